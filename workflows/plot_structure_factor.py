"""plot_structure_factor.py OUT.png RUN.nc [RUN.nc ...]: the ensemble structure factor S(k) at a
few times and 1/k1(t) (cuSten eq. 6 in 1D) of coarsening runs with analysis.structure_factor."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

png, runs = sys.argv[1], sys.argv[2:]
fig, axes = plt.subplots(len(runs), 2, figsize=(10, 3.8 * len(runs)), squeeze=False)
for row, path in zip(axes, runs):
    ds = xr.open_dataset(path)
    if "structure_factor" not in ds:
        sys.exit(f"{path}: no structure_factor (run with analysis.structure_factor = true)")
    t, k = ds["t"].values, ds["k"].values
    label = f"N = {ds.sizes['x']}, L = {float(ds['x'][1] * ds.sizes['x']):.4g}"
    for time in [1, 5, 20, 100]:
        i = int(np.argmin(np.abs(t - time)))
        row[0].loglog(k[1:], ds["structure_factor"].values[i, 1:], label=f"t = {t[i]:g}")
    row[0].set_xlabel("k")
    row[0].set_ylabel(r"$S(k) = \langle |\hat C_k|^2 \rangle$")
    row[0].set_title(label)
    row[0].legend(fontsize=8)
    keep = t > 0
    row[1].plot(t[keep], 1.0 / ds["k1"].values[keep], "o-", ms=2)
    row[1].set_xscale("log")
    row[1].set_xlabel("t")
    row[1].set_ylabel(r"$1/k_1(t)$")
    row[1].set_title(label)
fig.tight_layout()
fig.savefig(png, dpi=150)
print(f"wrote {png}")
