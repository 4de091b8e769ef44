"""plot_ch2d.py OUT_PREFIX RUN.nc: cuSten's Fig. 1 and 2 from a ch2d run: s_mean(t) and 1/k1(t) on
log-log axes with the stored power-law fits and a t^(1/3) reference line (OUT_PREFIX-s.png), and
the field C of the first member at four snapshot times (OUT_PREFIX-fields.png)."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

prefix, path = sys.argv[1], sys.argv[2]
ds = xr.open_dataset(path)
t, s = ds["t"].values, ds["s_mean"].values
keep = t > 0
fig, ax = plt.subplots(figsize=(6.0, 4.4))
ax.loglog(t[keep], s[keep], "o", ms=2.5,
          label=f"s(t), {ds.sizes['member']} member(s), {ds.sizes['x']} x {ds.sizes['y']}")
if "s_mean_ci95" in ds and np.isfinite(ds["s_mean_ci95"].values[keep]).all():
    band = ds["s_mean_ci95"].values
    ax.fill_between(t[keep], band[keep, 0], band[keep, 1], alpha=0.25, lw=0,
                    label="95% band (bootstrap of units of members)")
if "s_exponent" in ds.attrs:
    a, b, r = (ds.attrs[k] for k in ("s_exponent_intercept", "s_exponent", "s_exponent_r"))
    ci = ds.attrs.get("s_exponent_ci95")
    interval = f", 95%: {ci[0]:.3f}..{ci[1]:.3f}" if ci is not None and np.isfinite(ci).all() else ""
    tt = t[keep & (t >= float(ds.attrs["config"].split("fit_from = ")[1].split("\n")[0]))]
    ax.loglog(tt, np.exp(a) * tt**b, "-", label=f"fit: s ~ t^{b:.3f}{interval} (r = {r:.4f})")
if "k1" in ds:
    inv = 1.0 / ds["k1"].values
    label = "1/k1(t)"
    if "inverse_k1_exponent" in ds.attrs:
        label += f", fit t^{ds.attrs['inverse_k1_exponent']:.3f} (r = {ds.attrs['inverse_k1_exponent_r']:.4f})"
    ax.loglog(t[keep], inv[keep], "s", ms=2.5, label=label)
ref = t[keep]
ax.loglog(ref, s[keep][-1] * (ref / ref[-1]) ** (1.0 / 3.0), "k--", lw=0.8, label="t^(1/3)")
ax.set_xlabel("t")
ax.set_ylabel(r"$s(t) = 1/(1 - \langle C^2\rangle)$")
ax.set_title("2D Cahn-Hilliard coarsening (cohort ch2d)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(f"{prefix}-s.png", dpi=150)
print(f"wrote {prefix}-s.png")

if "t_snap" not in ds:  # output.archive = final or none: no fields over time to draw
    print(f"{path} has no snapshots (output.archive = snapshots): no {prefix}-fields.png")
    sys.exit(0)
snaps = ds["t_snap"].values
pick = np.unique(np.linspace(1 if len(snaps) > 4 else 0, len(snaps) - 1, 4).round().astype(int))
fig, axes = plt.subplots(1, len(pick), figsize=(3.2 * len(pick), 3.3))
for axis, q in zip(np.atleast_1d(axes), pick):
    axis.imshow(ds["C"].isel(t_snap=q, member=0).values, origin="lower", cmap="RdBu_r",
                vmin=-1.05, vmax=1.05, extent=[0, 2 * np.pi, 0, 2 * np.pi])
    axis.set_title(f"t = {snaps[q]:.4g}")
    axis.set_xticks([]), axis.set_yticks([])
fig.tight_layout()
fig.savefig(f"{prefix}-fields.png", dpi=120)
print(f"wrote {prefix}-fields.png")
