"""Opens a cohort NetCDF file the way a user would (xarray) and checks its coordinates and CF
attributes. Exit 77 (ctest: skipped) where xarray is not installed."""
import sys

try:
    import xarray as xr
except ImportError:
    print("skipped: xarray is not installed (make -f Makefile.workflow setup installs it)")
    sys.exit(77)

ds = xr.open_dataset(sys.argv[1])
problems = []
for coord in ("member", "x", "t"):
    if coord not in ds.coords:
        problems.append(f"{coord} is not a coordinate")
if ds["member"].attrs.get("standard_name") != "realization":
    problems.append("member lacks standard_name = realization")
if ds.attrs.get("Conventions") != "CF-1.11":
    problems.append("Conventions is not CF-1.11")
if ds["ell_mean"].dims != ("t",) or ds["C"].dims != ("member", "x"):
    problems.append(f"unexpected dimensions: ell_mean {ds['ell_mean'].dims}, C {ds['C'].dims}")
if float(ds["ell_mean"].sel(t=0.5)) != 2.0:
    problems.append("ell_mean at t = 0.5 is not 2")
for p in problems:
    print("FAIL", p)
print(f"{4 - len(problems)} passed, {len(problems)} failed")
sys.exit(1 if problems else 0)
