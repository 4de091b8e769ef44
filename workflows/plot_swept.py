"""plot_swept.py OUT.png RUN.nc: u(x, t) of a heat1d or ks1d run's snapshots as space-time images
(first and last member), and the model's observable over t (heat1d: the L2 error against the exact
solution; ks1d: the energy 1/2 <u^2>), with a short table."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from netCDF4 import Dataset

out, path = sys.argv[1], sys.argv[2]
ds = Dataset(path)
model = ds.getncattr("model")
x, t_snap, t = np.array(ds["x"][:]), np.array(ds["t_snap"][:]), np.array(ds["t"][:])
C = np.array(ds["C"][:])  # (t_snap, member, x)
members = C.shape[1]
observable = "l2_error" if model == "heat1d" else "energy"
fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
for ax, m in zip(axes[:2], (0, members - 1)):
    im = ax.imshow(C[:, m, :], aspect="auto", origin="lower", cmap="coolwarm",
                   extent=[x[0], x[-1], t_snap[0], t_snap[-1]])
    ax.set_xlabel("x")
    ax.set_ylabel("t")
    label = ", ".join(f"{ds[v].parameter} = {float(ds[v][m]):g}" for v in ds.variables
                      if "parameter" in ds[v].ncattrs() and ds[v].dimensions == ("member",))
    ax.set_title(f"{model}, member {m}" + (f" ({label})" if label else ""))
    fig.colorbar(im, ax=ax, label="T" if model == "heat1d" else "u")
mean = np.array(ds[f"{observable}_mean"][:])
shown = t > 0 if model == "heat1d" else t >= 0  # the log axis skips the exact t = 0
axes[2].plot(t[shown], mean[shown], "k-")
if model == "heat1d":
    axes[2].set_yscale("log")
axes[2].set_xlabel("t")
axes[2].set_ylabel(f"{observable} (ensemble mean)")
axes[2].set_title("L2 error against the exact solution" if model == "heat1d"
                  else "energy 1/2 <u^2>")
fig.tight_layout()
fig.savefig(out, dpi=100)
print(f"{model}: {path}, {members} members of {len(x)} points, {len(t_snap)} snapshots")
print(f"{'t':>10} {observable + '_mean':>16}")
for k in range(0, len(t), max(1, len(t) // 10)):
    print(f"{t[k]:10.4g} {mean[k]:16.6g}")
if model == "heat1d":
    print("error_l2 per member:", " ".join(f"{v:.3g}" for v in np.array(ds["error_l2"][:])))
print(f"wrote {out}")
