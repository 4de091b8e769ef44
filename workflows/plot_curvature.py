"""plot_curvature.py OUT.png RUN.nc T1 T2 ...: the surfaces phi(t) of a curvature-flow run's
snapshots (member 0) at the given times (seed 000, Figs. 1-2), one panel each, and a table of the
area (and Willmore energy) at those times."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from netCDF4 import Dataset

out, path, times = sys.argv[1], sys.argv[2], [float(t) for t in sys.argv[3:]]
ds = Dataset(path)
t_snap, t_rec = np.array(ds["t_snap"][:]), np.array(ds["t"][:])
x, y = np.array(ds["x"][:]), np.array(ds["y"][:])
X, Y = np.meshgrid(x, y)
model = ds.getncattr("model")
fig = plt.figure(figsize=(4 * len(times), 4))
print(f"{model}: {path}")
print(f"{'t':>8} {'area':>12}" + (f" {'Willmore':>12}" if "willmore_energy_mean" in ds.variables
                                    else ""))
for k, t in enumerate(times):
    s = int(np.argmin(abs(t_snap - t)))
    if abs(t_snap[s] - t) > 1e-9:
        sys.exit(f"{path}: no snapshot at t = {t} (snapshots at {t_snap})")
    r = int(np.argmin(abs(t_rec - t)))
    row = f"{t:8.4g} {float(ds['area_mean'][r]):12.6f}"
    if "willmore_energy_mean" in ds.variables:
        row += f" {float(ds['willmore_energy_mean'][r]):12.6f}"
    print(row)
    ax = fig.add_subplot(1, len(times), k + 1, projection="3d")
    ax.plot_surface(X, Y, np.array(ds["C"][s, 0]), cmap="viridis", linewidth=0, antialiased=True,
                    rstride=max(1, len(y) // 64), cstride=max(1, len(x) // 64))
    ax.set_zlim(-1, 1)
    ax.set_title(f"t = {t:g}")
fig.suptitle(f"{model}: sin(3 pi |x|) on (-2, 2)^2, Neumann, {len(x) - 1}^2 cells")
fig.tight_layout()
fig.savefig(out, dpi=100)
print(f"wrote {out}")
