"""Sobol indices of `cohort analyze --sensitivity` against independent computations.

1. The same estimators in numpy (those of scipy.stats.sobol_indices: Saltelli 2010's first-order
   and Jansen's total, V the variance of f_A and f_B together) from the run's own members: the
   length and the field's variance from its member series, the final field's mean and variance
   from its archive C, and each k-means cluster's indicator from its labels.
   Agreement to 1e-9.
2. With --diffusion: a diffusion1d run from a cosine mode over initial.amplitude a and
   model.alpha, whose final variance is (a^2 / 2) G(alpha)^(2 steps) exactly, G the
   Crank-Nicolson growth factor of the mode. A product of a function of each parameter has
   closed-form indices from the moments of the two factors (here by quadrature): the file's
   estimate must lie within twice its 95% interval's half-width (about 4 standard errors).

Exit 0 agrees, 1 differs, 77 without netCDF4 or scipy.
Usage: check_sensitivity.py RUN.nc ANALYSIS.nc [--diffusion]
"""
import sys

try:
    import netCDF4
    import numpy as np
    from scipy import integrate
except ImportError:
    sys.exit(77)


def saltelli_jansen(f, arms, replicates):
    """scipy.stats.sobol_indices' estimators over (base point, replicate) samples."""
    v = f.reshape(-1, arms, replicates).transpose(0, 2, 1).reshape(-1, arms)
    ok = np.all(np.isfinite(v), axis=1)
    v = v[ok]
    fa, fb, fab = v[:, 0], v[:, 1], v[:, 2:].T
    var = np.var(np.concatenate([fa, fb]))
    return np.mean(fb * (fab - fa), axis=1) / var, 0.5 * np.mean((fa - fab) ** 2, axis=1) / var


def member_statistics(run):
    """Each statistic's member values per record (None where the record has none)."""
    t = np.asarray(run["t"][...])
    stats = {}
    for name in ("ell", "s"):
        if name in run.variables and run[name].dimensions == ("t", "member"):
            stats[name] = [np.asarray(run[name][r, :], dtype=np.float64) for r in range(len(t))]
    if "C_variance" in run.variables:
        stats["C_variance"] = [np.asarray(run["C_variance"][r, :], dtype=np.float64)
                               for r in range(len(t))]
    if "C" in run.variables:
        c = np.asarray(run["C"][...], dtype=np.float64)
        c = c.reshape(c.shape[0], -1)
        mean, mean2 = c.mean(axis=1), (c * c).mean(axis=1)
        stats["final_mean"] = [None] * (len(t) - 1) + [mean]
        stats["final_variance"] = [None] * (len(t) - 1) + [mean2 - mean * mean]
    if "label" in run.variables:  # the k-means regimes: each cluster's indicator, NaN unlabelled
        label = np.ma.filled(run["label"][...].astype(np.int64), -1)
        for c, meaning in enumerate(run["label"].getncattr("flag_meanings").split()):
            indicator = np.where((label < 0) | (label == 255), np.nan, (label == c) * 1.0)
            stats["in_" + meaning] = [None] * (len(t) - 1) + [indicator]
    return stats


def diffusion_exact(run, analysis):
    """Closed-form first-order and total indices of the final variance over (a, alpha)."""
    params = list(analysis["parameter_key"][...])
    ranges = [tuple(run[p.replace(".", "_")].getncattr("design_range")) for p in params]
    n, dt = run.dimensions["x"].size, float(run.getncattr("dt"))
    x = np.asarray(run["x"][...])
    length = (x[1] - x[0]) * n
    steps = int(round(float(run["t"][-1]) / dt))
    dx, k = length / n, 2 * np.pi / length  # the mode the configuration starts (mode = 1)
    lam = 4 / dx**2 * np.sin(k * dx / 2) ** 2

    def factor(p, value):
        if p == "initial.amplitude":
            return value * value / 2
        r = value * dt * lam / 2
        return ((1 - r) / (1 + r)) ** (2 * steps)

    moments = []
    for p, (lo, hi) in zip(params, ranges):
        m1 = integrate.quad(lambda v: factor(p, v), lo, hi, epsabs=0, epsrel=1e-13)[0] / (hi - lo)
        m2 = integrate.quad(lambda v: factor(p, v) ** 2, lo, hi, epsabs=0, epsrel=1e-13)[0] / (
            hi - lo)
        moments.append((m1, m2))
    (u1, u2), (v1, v2) = moments
    total_var = u2 * v2 - (u1 * v1) ** 2
    var_u, var_v = (u2 - u1**2) * v1**2, u1**2 * (v2 - v1**2)
    first = np.array([var_u, var_v]) / total_var
    total = 1 - np.array([var_v, var_u]) / total_var
    return first, total


def main(argv):
    run_path, analysis_path = argv[1], argv[2]
    ok = True
    with netCDF4.Dataset(run_path) as run, netCDF4.Dataset(analysis_path) as analysis:
        arms = int(run.getncattr("saltelli_arms"))
        members = run.dimensions["member"].size
        replicates = members // (int(run.getncattr("sweep_points")) * arms)
        names = list(analysis["statistic_name"][...])
        first = np.asarray(analysis["sobol_first"][...])
        total = np.asarray(analysis["sobol_total"][...])
        worst, compared, skipped = 0.0, 0, []
        reference = member_statistics(run)
        for q, name in enumerate(names):
            if name not in reference:
                print(f"FAIL: the run holds no values of the analysis's statistic {name}")
                return 1
            series = reference[name]
            for r, f in enumerate(series):
                if f is None:
                    continue
                s1, st = saltelli_jansen(f, arms, replicates)
                # a statistic constant to rounding (a conserved mean) has indices of rounding
                # noise, which another order of summation changes entirely
                if not np.all(np.isfinite(s1)) or np.std(f) <= 1e-9 * max(1.0, np.max(np.abs(f))):
                    skipped.append(f"{name} at t[{r}]")
                    continue
                worst = max(worst, float(np.max(np.abs(s1 - first[r, :, q]))),
                            float(np.max(np.abs(st - total[r, :, q]))))
                compared += 1
        ok = compared > 0 and worst <= 1e-9
        print(f"{analysis_path}: {compared} (record, statistic) pairs against numpy's "
              f"estimators: largest difference {worst:.2e}: {'ok' if ok else 'FAIL'}"
              + (f" (not compared, constant to rounding: {', '.join(skipped)})" if skipped else ""))
        if len(argv) > 3 and argv[3] == "--diffusion":
            q = names.index("C_variance")
            exact_first, exact_total = diffusion_exact(run, analysis)
            for label, exact, got, ci in (
                ("first", exact_first, first[-1, :, q], analysis["sobol_first_ci95"][-1, :, q]),
                ("total", exact_total, total[-1, :, q], analysis["sobol_total_ci95"][-1, :, q]),
            ):
                ci = np.asarray(ci)
                half = (ci[:, 1] - ci[:, 0]) / 2
                good = bool(np.all(np.abs(got - exact) <= 2 * half))
                ok = ok and good
                print(f"  {label}-order of the final field's variance: {np.round(got, 4)} against the "
                      f"closed form {np.round(exact, 4)}, 95% half-widths {np.round(half, 4)}: "
                      f"{'ok' if good else 'FAIL'}")
    return 0 if ok else 1


sys.exit(main(sys.argv))
