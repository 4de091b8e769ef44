"""check_record_times.py EVERY SNAPSHOT_EVERY T_END FILE.nc: every record of FILE at its nominal
time k * EVERY (and the last at T_END), every snapshot at k * SNAPSHOT_EVERY (0: none), each to
1e-12 relative. Exit 0 when they are, 1 with the first that is not, 77 without netCDF4."""
import sys

try:
    import netCDF4
    import numpy as np
except ImportError:
    sys.exit(77)


def nominal(every, t_end, count):
    """0, every, 2 every, ..., and t_end last, as cohort schedules its events"""
    times = np.minimum(np.arange(count, dtype=float) * every, t_end)
    times[-1] = t_end
    return times


def check(name, got, want):
    rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-300)
    rel[want == 0] = np.abs(got[want == 0])
    worst = int(np.argmax(rel))
    if rel[worst] > 1e-12:
        print(f"{name}[{worst}] = {got[worst]!r}, nominal {want[worst]!r} "
              f"(relative error {rel[worst]:.3g})")
        return False
    return True


every, snap_every, t_end, path = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
with netCDF4.Dataset(path) as ds:
    t = np.asarray(ds["t"][:], dtype=float)
    ok = check("t", t, nominal(every, t_end, len(t)))
    if snap_every > 0:
        ts = np.asarray(ds["t_snap"][:], dtype=float)
        ok = check("t_snap", ts, nominal(snap_every, t_end, len(ts))) and ok
sys.exit(0 if ok else 1)
