"""plot_coarsening.py OUT.png RUN.nc [RUN.nc ...]: the ensemble-mean coarsening length against
ln t with the fitted line and r stored in each file (seed 003, Fig. 9), the bootstrap's 95% band
of the mean (ell_mean_ci95) shaded and the slope's standard error in the legend."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

png, runs = sys.argv[1], sys.argv[2:]
fig, ax = plt.subplots(figsize=(6.4, 4.4))
for path in runs:
    ds = xr.open_dataset(path)
    t, ell, sem = ds["t"].values, ds["ell_mean"].values, ds["ell_sem"].values
    keep = t > 0
    grid = ds.attrs["config"].split("[grid]")[1]
    length = grid.split("length = ")[1].split("\n")[0].replace("*", " ").replace("pi", "π")
    label = f"L = {length}, N = {ds.sizes['x']}, {ds.sizes['member']} members"
    line = ax.errorbar(np.log(t[keep]), ell[keep], yerr=sem[keep], fmt="o", ms=2.5, label=label)
    if "ell_mean_ci95" in ds:
        band = ds["ell_mean_ci95"].values
        ax.fill_between(np.log(t[keep]), band[keep, 0], band[keep, 1], alpha=0.25, lw=0,
                        color=line[0].get_color(), label="95% band (bootstrap of units of members)")
    if "ell_vs_log_t_slope" in ds.attrs:
        a, b, r = (ds.attrs[k] for k in ("ell_vs_log_t_intercept", "ell_vs_log_t_slope",
                                         "ell_vs_log_t_r"))
        se = ds.attrs.get("ell_vs_log_t_slope_se", np.nan)
        x = np.log(t[keep & (t >= 1)])
        ax.plot(x, a + b * x, "-", color=line[0].get_color(),
                label=f"fit: {a:.3f} + ({b:.4f} ± {se:.4f}) ln t, r = {r:.4f}")
ax.set_xlabel("ln t")
ax.set_ylabel(r"$\bar\ell(t) = \langle 1/(1 - \langle C^2\rangle) \rangle$")
ax.set_title("1D Cahn-Hilliard coarsening (cohort)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(png, dpi=150)
print(f"wrote {png}")
