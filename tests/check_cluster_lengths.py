"""check_cluster_lengths.py FILE.nc: each k-means cluster's mean length and its 95% interval,
as the run stored them (<l>_cluster_mean, <l>_cluster_ci95), redone in numpy from the file's own
final fields C(member, x) and labels: l = 1 / (1 - <C^2>) per member, the mean over the cluster,
mean +- 1.96 standard errors (relative 1e-9: the sums' order differs). Exit 0 when they agree, 1
when not, 77 without netCDF4."""
import sys

try:
    import netCDF4
    import numpy as np
except ImportError:
    sys.exit(77)

with netCDF4.Dataset(sys.argv[1]) as ds:
    ds.set_auto_mask(False)
    length = "s" if "s_cluster_mean" in ds.variables else "ell"
    mean = np.array(ds[f"{length}_cluster_mean"][...])
    ci95 = np.array(ds[f"{length}_cluster_ci95"][...])
    fields = np.array(ds["C"][...])
    labels = np.array(ds["label"][...])
    fill = ds["label"].getncattr("_FillValue") if "_FillValue" in ds["label"].ncattrs() else 255

members = fields.reshape(fields.shape[0], -1)
l = 1.0 / (1.0 - (members**2).mean(axis=1))
want_mean, want_ci = [], []
for c in range(len(mean)):
    v = l[labels == c]
    half = 1.96 * v.std(ddof=1) / np.sqrt(len(v)) if len(v) >= 2 else np.nan
    want_mean.append(v.mean())
    want_ci.append((v.mean() - half, v.mean() + half))
ok = np.allclose(mean, want_mean, rtol=1e-9) and np.allclose(ci95, want_ci, rtol=1e-9)
print(f"{length}_cluster_mean {mean} (numpy {np.array(want_mean)}), intervals "
      f"{'agree' if ok else 'DIFFER: ' + str(ci95) + ' vs ' + str(np.array(want_ci))}")
sys.exit(0 if ok else 1)
