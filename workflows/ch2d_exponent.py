"""ch2d_exponent.py OUT_PREFIX RUN.nc [--resamples B]: the coarsening exponents of a ch2d
ensemble with 95% intervals from resampling its members (issue "statistics you can trust",
part 5).

From the run's file (workflows/ch2d-exponent.ini: output.member_series and snapshots):
  * s ~ t^a: s(t, member) = 1 / (1 - <C^2>), the ensemble mean over resampled members, ln s_mean
    against ln t from analysis.fit_from on;
  * 1/k1 ~ t^b: k1 = sum_{k != 0} S / sum_{k != 0} |k|^-1 S (cuSten eq. 6) of the mean power
    spectrum S over the resampled members, from the archived snapshots C(t_snap, member, y, x)
    (numpy's FFT, every mode with its exact |k|), ln(1/k1) against ln t.
The members are resampled with replacement, B times (seeded: the same file gives the same
numbers); the interval is the 2.5 and 97.5 percentiles. Before fitting, the k1 this script takes
from all members is compared with the k1(t) cohort stored (an independent check of the run's
structure factor). Writes OUT_PREFIX.txt and OUT_PREFIX.png."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import netCDF4
import numpy as np

prefix, path = sys.argv[1], sys.argv[2]
resamples = int(sys.argv[sys.argv.index("--resamples") + 1]) if "--resamples" in sys.argv else 1000

with netCDF4.Dataset(path) as ds:
    ds.set_auto_mask(False)
    t, s_member = np.array(ds["t"][...]), np.array(ds["s"][...])  # s(t, member)
    t_snap, fields = np.array(ds["t_snap"][...]), ds["C"]  # C(t_snap, member, y, x)
    k1_file = np.array(ds["k1"][...])
    config = ds.getncattr("config")
    fit_from = float(config.split("fit_from = ")[1].split("\n")[0])
    members, ny, nx = fields.shape[1:]
    # grid.length as written: a number, or a multiple of pi (2*pi, pi/2)
    length_text = config.split("[grid]")[1].split("length = ")[1].split("\n")[0]
    length = float(eval(length_text, {"__builtins__": {}}, {"pi": np.pi}))
    # each member's power |C^_k|^2 at each snapshot, C^ = FFT / (nx ny)
    power = np.empty((len(t_snap), members, ny, nx))
    for i in range(len(t_snap)):
        power[i] = np.abs(np.fft.fft2(np.array(fields[i]), axes=(-2, -1)) / (nx * ny)) ** 2

kx = 2 * np.pi / length * np.fft.fftfreq(nx, 1.0 / nx)
ky = 2 * np.pi / length * np.fft.fftfreq(ny, 1.0 / ny)
modulus = np.hypot(*np.meshgrid(kx, ky))  # (ny, nx)
nonzero = modulus > 0


def k1_of(mean_power):
    """cuSten eq. 6 over every nonzero mode of the full spectrum."""
    p = mean_power[..., nonzero]
    return p.sum(axis=-1) / (p / modulus[nonzero]).sum(axis=-1)


# the run's own k1 at the snapshot times, against this script's from the same fields
k1_all = k1_of(power.mean(axis=1))
at = [int(np.argmin(abs(t - ts))) for ts in t_snap]
agreement = np.max(abs(k1_all - k1_file[at]) / k1_file[at])


def exponent(x, y):
    keep = np.isfinite(y)
    return np.polyfit(x[keep], y[keep], 1)[0]


fit_t = (t > 0) & (t >= fit_from)
fit_snap = (t_snap > 0) & (t_snap >= fit_from)
rng = np.random.default_rng(20261125)
a_boot, b_boot = [], []
for _ in range(resamples):
    pick = rng.integers(0, members, members)
    a_boot.append(exponent(np.log(t[fit_t]), np.log(s_member[fit_t][:, pick].mean(axis=1))))
    k1 = k1_of(power[fit_snap][:, pick].mean(axis=1))
    b_boot.append(exponent(np.log(t_snap[fit_snap]), -np.log(k1)))
a = exponent(np.log(t[fit_t]), np.log(s_member[fit_t].mean(axis=1)))
b = exponent(np.log(t_snap[fit_snap]), -np.log(k1_all[fit_snap]))
a_ci, b_ci = np.percentile(a_boot, [2.5, 97.5]), np.percentile(b_boot, [2.5, 97.5])
report = (
    f"{path}: {members} members of {nx} x {ny}, L = {length:.6g}, to t = {t[-1]:g}, fit from "
    f"t = {fit_from:g}; {resamples} resamples of the members\n"
    f"s ~ t^a:    a = {a:.4f}, 95% interval {a_ci[0]:.4f} .. {a_ci[1]:.4f} "
    f"(standard error {np.std(a_boot, ddof=1):.4f}; {fit_t.sum()} records)\n"
    f"1/k1 ~ t^b: b = {b:.4f}, 95% interval {b_ci[0]:.4f} .. {b_ci[1]:.4f} "
    f"(standard error {np.std(b_boot, ddof=1):.4f}; {fit_snap.sum()} snapshots)\n"
    f"the run's k1 against numpy's from its snapshots: largest relative difference "
    f"{agreement:.2e}\n"
    f"LSW theory: 1/3 = 0.3333\n")
print(report, end="")
with open(f"{prefix}.txt", "w") as out:
    out.write(report)

fig, ax = plt.subplots(figsize=(6.0, 4.4))
s_boot = np.array([s_member[:, rng.integers(0, members, members)].mean(axis=1)
                   for _ in range(200)])
keep = t > 0
ax.fill_between(t[keep], *np.percentile(s_boot[:, keep], [2.5, 97.5], axis=0), alpha=0.3, lw=0)
ax.loglog(t[keep], s_member[keep].mean(axis=1), "-",
          label=f"s(t): t^{a:.3f} [{a_ci[0]:.3f}, {a_ci[1]:.3f}]")
ax.loglog(t_snap[t_snap > 0], 1 / k1_all[t_snap > 0], "s", ms=3,
          label=f"1/k1(t): t^{b:.3f} [{b_ci[0]:.3f}, {b_ci[1]:.3f}]")
ref = t[keep & (t >= fit_from)]
ax.loglog(ref, s_member[keep].mean(axis=1)[-1] * (ref / ref[-1]) ** (1 / 3), "k--", lw=0.8,
          label="t^(1/3)")
ax.set_xlabel("t")
ax.set_title(f"2D Cahn-Hilliard: {members} members of {nx}^2 (cohort ch2d)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(f"{prefix}.png", dpi=150)
print(f"wrote {prefix}.txt and {prefix}.png")
