"""plot_flow_map.py OUT.png RUN.nc: the k-means flow-pattern map of a ch1d_forced sweep over
f0 x <C> (seed 003, Fig. 13 and 14): label_map with <C> across and f0 up, each regime in its own
colour and named by the label's flag_meanings (A0 / A1 / A2)."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import xarray as xr
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

png, path = sys.argv[1], sys.argv[2]
ds = xr.open_dataset(path)
if "label_map" not in ds:
    sys.exit(f"{path}: no label_map (needs a grid sweep of two keys and analysis.kmeans)")
lm = ds["label_map"]
names = ds["label"].attrs["flag_meanings"].split()
f0 = ds["model_f0_grid"].values
mean = ds["initial_mean_grid"].values
grid = lm.transpose("model_f0_grid", "initial_mean_grid").values  # rows f0, columns <C>
palette = {"A0": "#4c72b0", "A1": "#dd8452", "A2": "#55a868"}
colours = [palette.get(name, f"C{i}") for i, name in enumerate(names)]
fig, ax = plt.subplots(figsize=(5.6, 4.8))
ax.pcolormesh(mean, f0, grid, cmap=ListedColormap(colours), vmin=-0.5,
              vmax=len(names) - 0.5, shading="nearest")
v = float(ds.attrs["config"].split("\nv = ")[1].split("\n")[0])
ax.set_xlabel(r"$\langle C\rangle$")
ax.set_ylabel(r"$f_0$")
ax.set_title(f"ch1d_forced flow-pattern map, v = {v:g}, {len(mean)} x {len(f0)} (cohort)")
ax.legend(handles=[Patch(color=c, label=n) for c, n in zip(colours, names)],
          loc="upper right", fontsize=8)
fig.tight_layout()
fig.savefig(png, dpi=150)
counts = {n: int((grid == i).sum()) for i, n in enumerate(names)}
print(f"wrote {png}: {counts}")
