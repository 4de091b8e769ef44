"""check_target.py RUN.nc: a run to ensemble.target_sem kept every member it ran and met the target.

From the file's own per-unit moments of the target statistic (ell_block_moments or
s_block_moments: count, mean, M2 per unit of bootstrap_unit_members members) at the last record,
this script
recomputes, with numpy and the Chan et al. merge in member order (not cohort's tree: an
independent computation, equal to it up to rounding), the relative standard error over all the
file's members, and checks that the file holds target_members members (every member the run
ran), that the error is at most the target (within 1e-9 of it, for rounding) and that
target_sem_reached is that error. Exit 0 when it holds, 1 when not, 77 without netCDF4."""
import sys

try:
    import netCDF4
    import numpy as np
except ImportError:
    sys.exit(77)

with netCDF4.Dataset(sys.argv[1]) as ds:
    ds.set_auto_mask(False)
    config = ds.getncattr("config")
    target = float(config.split("target_sem = ")[1].split("\n")[0])
    members = int(ds.getncattr("target_members"))
    reached = float(ds.getncattr("target_sem_reached"))
    name = next(v for v in ds.variables if v.endswith("_block_moments"))
    blocks = np.array(ds[name][-1])  # (unit, moment): count, mean, M2 at the last record


def relative_sem(b):
    n, mean, m2 = 0.0, 0.0, 0.0
    for count, block_mean, block_m2 in blocks[:b]:
        if count == 0:  # a unit of diverged members only
            continue
        total = n + count
        delta = block_mean - mean
        mean += delta * count / total
        m2 += block_m2 + delta * delta * n * count / total
        n = total
    return np.sqrt(m2 / (n - 1) / n) / abs(mean)


error = relative_sem(len(blocks))
held = int(blocks[:, 0].sum())
ok = held == members and error <= target * (1 + 1e-9)
ok = ok and abs(error - reached) <= 1e-9 * reached
print(f"{name}: relative standard error {error:.6g} over the file's {held} members; target "
      f"{target}; the run kept {members} members ({reached:.6g}): "
      f"{'every member, the target met' if ok else 'NOT as it should be'}")
sys.exit(0 if ok else 1)
