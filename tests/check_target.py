"""check_target.py RUN.nc: a run to ensemble.target_sem stopped where the target was first met.

From the file's own per-block moments of the target statistic (ell_block_moments or
s_block_moments: count, mean, M2 per 1,024-member block) at the last record, this script
recomputes, with numpy and the Chan et al. merge in member order (not cohort's tree: an
independent computation, equal to it up to rounding), the relative standard error of each checked
prefix of blocks (every prefix up to 32 blocks; cohort's rule for larger runs is not exercised
here), and checks that the run's target_members is the first prefix whose error is at most the
target (within 1e-9 of it, for rounding), and that target_sem_reached is that prefix's error.
Exit 0 when it holds, 1 when not, 77 without netCDF4."""
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
    blocks = np.array(ds[name][-1])  # (block, moment): count, mean, M2 at the last record


def relative_sem(b):
    n, mean, m2 = 0.0, 0.0, 0.0
    for count, block_mean, block_m2 in blocks[:b]:
        total = n + count
        delta = block_mean - mean
        mean += delta * count / total
        m2 += block_m2 + delta * delta * n * count / total
        n = total
    return np.sqrt(m2 / (n - 1) / n) / abs(mean)


errors = [relative_sem(b) for b in range(1, len(blocks) + 1)]
first = next((b for b, e in enumerate(errors, 1) if e <= target * (1 + 1e-9)), None)
ok = first == len(blocks) and (len(blocks) - 1) * 1024 < members <= len(blocks) * 1024
ok = ok and all(e > target * (1 - 1e-9) for e in errors[:-1])
ok = ok and abs(errors[-1] - reached) <= 1e-9 * reached
print(f"{name}: relative standard errors {', '.join(f'{e:.5g}' for e in errors)}; target "
      f"{target}; the run stopped at {members} members ({reached:.6g}): "
      f"{'the first to reach it' if ok else 'NOT the first to reach it'}")
sys.exit(0 if ok else 1)
