"""compare_runs.py A.nc B.nc ...: every data variable of the files is bitwise identical to the
first's (the chunking must not change a result). Exit 77 where netCDF4 is not installed."""
import sys

try:
    import netCDF4
    import numpy as np
except ImportError:
    print("skipped: python3-netcdf4 is not installed (make -f Makefile.workflow setup)")
    sys.exit(77)

def variables(path):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return {name: np.array(v[...]) for name, v in ds.variables.items()}

reference = variables(sys.argv[1])
failed = 0
for other in sys.argv[2:]:
    got = variables(other)
    for name, ref in reference.items():
        same = name in got and ref.shape == got[name].shape and ref.tobytes() == got[name].tobytes()
        if not same:
            failed += 1
            print(f"FAIL {other}: {name} differs from {sys.argv[1]}")
print(f"{len(reference) * (len(sys.argv) - 2) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
