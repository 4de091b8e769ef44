"""check_moments.py FILE [TOL]: the statistics a run writes agree with its own archived snapshots,
recomputed here from C(t_snap, member, ...) with numpy: at every snapshot time that is also a
record time, mass_mean(t) is the mean over members of each field's <C>, and ell_mean or s_mean
the mean of 1 / (1 - <C^2>). An independent check of the run's reductions (it caught ch2d's
mass_mean, which was the mean of the deviation, not <C>). Exit 77 where netCDF4 is missing."""
import sys

try:
    import netCDF4
    import numpy as np
except ImportError:
    print("skipped: python3-netcdf4 is not installed (make -f Makefile.workflow setup)")
    sys.exit(77)

path, tol = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1e-12
passed = failed = 0
with netCDF4.Dataset(path) as ds:
    ds.set_auto_mask(False)
    t = np.array(ds["t"][:])
    length_name = "s_mean" if "s_mean" in ds.variables else "ell_mean"
    snapshots = np.array(ds["C"][:])
    for q, ts in enumerate(np.array(ds["t_snap"][:])):
        r = np.flatnonzero(np.abs(t - ts) <= 1e-12 * max(1.0, abs(ts)))
        if r.size == 0:
            continue
        r = int(r[0])
        fields = snapshots[q].reshape(snapshots.shape[1], -1)
        c_mean = fields.mean(axis=1)
        c2_mean = (fields * fields).mean(axis=1)
        checks = [("mass_mean", c_mean.mean(), float(ds["mass_mean"][r])),
                  (length_name, (1.0 / (1.0 - c2_mean)).mean(), float(ds[length_name][r]))]
        for name, want, got in checks:
            if abs(got - want) <= tol * max(1.0, abs(want)):
                passed += 1
            else:
                failed += 1
                print(f"FAIL {path}: {name}(t = {ts:g}) = {got!r}, the snapshots give {want!r}")
if passed + failed == 0:
    print(f"FAIL {path}: no snapshot time is a record time")
    failed = 1
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
