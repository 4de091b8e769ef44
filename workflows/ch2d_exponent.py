"""ch2d_exponent.py OUT_PREFIX RUN.nc: the coarsening exponents of a ch2d ensemble with the 95%
intervals the run itself computed (issue "numbers you can trust", item 1), and their plot.

From the run's file (workflows/ch2d-exponent.ini):
  * s ~ t^a: s_exponent, the least-squares slope of ln s_mean against ln t from analysis.fit_from
    on, with s_exponent_se and s_exponent_ci95 from cohort's bootstrap of its units of members
    (single members up to 1,024 of them: bootstrap_units, bootstrap_unit_members);
  * 1/k1 ~ t^b: inverse_k1_exponent, of k1 = sum_{k != 0} S / sum_{k != 0} |k|^-1 S (cuSten
    eq. 6) of the mean spectrum, with its bootstrap's _se and _ci95.
Where the file archives snapshots, the k1 that numpy finds from them (its FFT, every mode with
its exact |k|) is compared with the k1(t) cohort stored: an independent check of the run's
structure factor. Writes OUT_PREFIX.txt and OUT_PREFIX.png."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import netCDF4
import numpy as np

prefix, path = sys.argv[1], sys.argv[2]


def attribute(ds, name):
    return np.atleast_1d(ds.getncattr(name)) if name in ds.ncattrs() else np.array([np.nan])


with netCDF4.Dataset(path) as ds:
    ds.set_auto_mask(False)
    t, s_mean = np.array(ds["t"][...]), np.array(ds["s_mean"][...])
    band = np.array(ds["s_mean_ci95"][...])
    k1_file = np.array(ds["k1"][...])
    config = ds.getncattr("config")
    fit_from = float(config.split("fit_from = ")[1].split("\n")[0])
    members, nx, ny = ds.dimensions["member"].size, ds.dimensions["x"].size, ds.dimensions["y"].size
    fits = {name: attribute(ds, name) for name in
            ("s_exponent", "s_exponent_se", "s_exponent_ci95", "inverse_k1_exponent",
             "inverse_k1_exponent_se", "inverse_k1_exponent_ci95", "bootstrap_units",
             "bootstrap_unit_members", "bootstrap_resamples", "s_exponent_intercept",
             "inverse_k1_exponent_intercept")}
    agreement = None
    if "t_snap" in ds.variables:  # numpy's k1 from the archived fields, against the run's
        length_text = config.split("[grid]")[1].split("length = ")[1].split("\n")[0]
        length = float(eval(length_text, {"__builtins__": {}}, {"pi": np.pi}))
        t_snap, fields = np.array(ds["t_snap"][...]), ds["C"]  # C(t_snap, member, y, x)
        kx = 2 * np.pi / length * np.fft.fftfreq(nx, 1.0 / nx)
        ky = 2 * np.pi / length * np.fft.fftfreq(ny, 1.0 / ny)
        modulus = np.hypot(*np.meshgrid(kx, ky))
        nonzero = modulus > 0
        worst = 0.0
        for i, ts in enumerate(t_snap):
            power = (np.abs(np.fft.fft2(np.array(fields[i]), axes=(-2, -1)) / (nx * ny)) ** 2
                     ).mean(axis=0)[nonzero]
            k1 = power.sum() / (power / modulus[nonzero]).sum()
            at = int(np.argmin(abs(t - ts)))
            worst = max(worst, abs(k1 - k1_file[at]) / k1_file[at])
        agreement = worst

a, a_se, a_ci = fits["s_exponent"][0], fits["s_exponent_se"][0], fits["s_exponent_ci95"]
b, b_se, b_ci = (fits["inverse_k1_exponent"][0], fits["inverse_k1_exponent_se"][0],
                 fits["inverse_k1_exponent_ci95"])
fitted = (t > 0) & (t >= fit_from)
report = (
    f"{path}: {members} members of {nx} x {ny}, to t = {t[-1]:g}, fit from t = {fit_from:g} "
    f"({fitted.sum()} records); cohort's bootstrap of {fits['bootstrap_units'][0]:.0f} units of "
    f"{fits['bootstrap_unit_members'][0]:.0f} members, {fits['bootstrap_resamples'][0]:.0f} "
    f"resamples\n"
    f"s ~ t^a:    a = {a:.4f}, 95% interval {a_ci[0]:.4f} .. {a_ci[1]:.4f} "
    f"(standard error {a_se:.4f})\n"
    f"1/k1 ~ t^b: b = {b:.4f}, 95% interval {b_ci[0]:.4f} .. {b_ci[1]:.4f} "
    f"(standard error {b_se:.4f})\n"
    + (f"the run's k1 against numpy's from its snapshots: largest relative difference "
       f"{agreement:.2e}\n" if agreement is not None else "")
    + "LSW theory: 1/3 = 0.3333\n")
print(report, end="")
with open(f"{prefix}.txt", "w") as out:
    out.write(report)

fig, ax = plt.subplots(figsize=(6.0, 4.4))
keep = t > 0
ax.fill_between(t[keep], band[keep, 0], band[keep, 1], alpha=0.3, lw=0)
ax.loglog(t[keep], s_mean[keep], "-", label=f"s(t): t^{a:.3f} [{a_ci[0]:.3f}, {a_ci[1]:.3f}]")
ax.loglog(t[keep], 1 / k1_file[keep], "s", ms=2.5,
          label=f"1/k1(t): t^{b:.3f} [{b_ci[0]:.3f}, {b_ci[1]:.3f}]")
ref = t[fitted]
ax.loglog(ref, s_mean[fitted][0] * (ref / ref[0]) ** (1 / 3), "k--", lw=0.8, label="t^(1/3)")
ax.axvline(fit_from, color="0.6", lw=0.6, ls=":")
ax.set_xlabel("t")
ax.set_title(f"2D Cahn-Hilliard: {members} members of {nx}^2 (cohort ch2d)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(f"{prefix}.png", dpi=150)
print(f"wrote {prefix}.txt and {prefix}.png")
