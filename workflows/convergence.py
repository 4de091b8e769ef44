"""convergence.py OUT_PREFIX RUN.nc [RUN.nc ...]: the seed's convergence table (seed 003, Tables 3
and 4) from single-member runs of one configuration at different N. E_N = max_i |C_N(x_i, T) -
C_ref(x_i, T)| against the finest run, whose grid contains every coarser grid point; the observed
order is log2(E_N / E_2N). Prints the table and writes OUT_PREFIX.txt and OUT_PREFIX.png."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

prefix, paths = sys.argv[1], sys.argv[2:]
runs = {}
for path in paths:
    ds = xr.open_dataset(path)
    if "C" not in ds or ds.sizes["member"] != 1:
        sys.exit(f"{path}: needs output.archive = final and one member")
    runs[ds.sizes["x"]] = (ds["C"].values[0], float(ds["t"].values[-1]), ds.attrs["model"])
sizes = sorted(runs)
finest = sizes[-1]
ref, t_end, model = runs[finest]
if any(finest % n for n in sizes) or any(abs(runs[n][1] - t_end) > 1e-12 for n in sizes):
    sys.exit("every N must divide the finest N and every run must end at the same T")
errors = [np.max(np.abs(runs[n][0] - ref[:: finest // n])) for n in sizes[:-1]]
lines = [f"{model}: error against N = {finest} at T = {t_end:g} (max norm)",
         f"{'N':>6} {'E_N':>11} {'log2(E_N/E_2N)':>15}"]
for i, n in enumerate(sizes[:-1]):
    order = f"{np.log2(errors[i] / errors[i + 1]):15.4f}" if i + 1 < len(errors) else ""
    lines.append(f"{n:6d} {errors[i]:11.3e} {order}")
text = "\n".join(lines)
print(text)
with open(prefix + ".txt", "w") as f:
    f.write(text + "\n")
fig, ax = plt.subplots(figsize=(5.6, 4.2))
n = np.array(sizes[:-1], dtype=float)
ax.loglog(n, errors, "o-", label=r"$E_N$")
ax.loglog(n, errors[0] * (n / n[0]) ** -2.0, "k--", lw=0.8, label=r"slope $-2$")
ax.set_xlabel(r"$N_x$")
ax.set_ylabel(r"$E_N$ (max norm)")
ax.set_title(f"{model}: convergence at T = {t_end:g} (cohort)")
ax.legend()
fig.tight_layout()
fig.savefig(prefix + ".png", dpi=150)
print(f"wrote {prefix}.txt and {prefix}.png")
