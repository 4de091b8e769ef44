"""`cohort plot FILE [-o PNG] [--overwrite]`: a figure of what a cohort file holds.

One panel for each thing the file has: the model's length over time with its 95% band and its
fitted law; the observables' means with their standard errors; the structure factor at a few
times; the k-means clusters over the swept parameters (a map for a grid of two keys, a scatter
otherwise); the Sobol indices over time with their intervals; a steady run's iterations. cohort
run's `plot` command runs this with the project's Python (matplotlib and netCDF4, Debian's
python3-matplotlib and python3-netcdf4). Exit 0 drawn, 2 a bad input (said why), 3 a module
missing (said which, and what to install).
"""
import os
import sys
import tempfile

PREFIX = "cohort plot: "


def fail(message, status=2):
    print(PREFIX + message, file=sys.stderr)
    sys.exit(status)


try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import netCDF4
    import numpy as np
except ImportError as missing:
    fail(f"{sys.executable} has no {missing.name}: install Debian's python3-matplotlib and "
         "python3-netcdf4 (or: pip install matplotlib netCDF4), or name another interpreter "
         "with COHORT_PYTHON", 3)


def values(ds, name):
    return np.ma.filled(np.ma.asarray(ds[name][...], dtype=np.float64), np.nan)


def length_panel(ds, ax):
    """<l>_mean(t) with its band and the fitted law, where the file has a length."""
    name = next((n[:-5] for n in ("ell_mean", "s_mean") if n in ds.variables), None)
    if name is None:
        return False
    if ax is None:
        return True
    t, mean = values(ds, "t"), values(ds, name + "_mean")
    ax.plot(t, mean, "k.-", label=f"{name} (ensemble mean)")
    if name + "_mean_ci95" in ds.variables:
        band = values(ds, name + "_mean_ci95")
        ax.fill_between(t, band[:, 0], band[:, 1], color="0.8", label="95% band")
    attrs = ds.ncattrs()
    for slope_key, form in (("ell_vs_log_t_slope", "log"), ("s_exponent", "power")):
        base = slope_key[:-6] if form == "log" else slope_key
        if slope_key in attrs and base + "_intercept" in attrs:
            slope, icpt = float(ds.getncattr(slope_key)), float(ds.getncattr(base + "_intercept"))
            tt = t[t > 0]
            fit = icpt + slope * np.log(tt) if form == "log" else np.exp(icpt) * tt**slope
            what = "ell = a + b log t" if form == "log" else "s = a t^b"
            ax.plot(tt, fit, "r--", label=f"fit {what}: b = {slope:.4g}")
    ax.set_xlabel("t")
    ax.set_ylabel(name)
    ax.set_title(f"{ds.getncattr('model')}: {name} over {ds.dimensions['member'].size} members")
    ax.legend(fontsize=7)
    return True


def observable_panel(ds, ax):
    """The observables' ensemble means over time, with +- 1.96 standard errors."""
    names = [n[:-5] for n in ds.variables if n.endswith("_mean") and n[:-5] + "_sem" in
             ds.variables and n not in ("ell_mean", "s_mean") and ds[n].dimensions == ("t",)]
    if not names:
        return False
    if ax is None:
        return True
    t = values(ds, "t")
    for n in names:
        mean, sem = values(ds, n + "_mean"), values(ds, n + "_sem")
        ax.plot(t, mean, label=n)
        ax.fill_between(t, mean - 1.96 * sem, mean + 1.96 * sem, alpha=0.3)
    ax.set_xlabel("t")
    ax.set_title("observables (ensemble mean, 95% interval)")
    ax.legend(fontsize=7)
    return True


def spectrum_panel(ds, ax):
    """structure_factor(t, k) at up to five record times, log-log."""
    if "structure_factor" not in ds.variables:
        return False
    if ax is None:
        return True
    s, k, t = values(ds, "structure_factor"), values(ds, "k"), values(ds, "t")
    for r in np.unique(np.linspace(1 if len(t) > 1 else 0, len(t) - 1, 5).astype(int)):
        good = (k > 0) & (s[r] > 0)
        ax.loglog(k[good], s[r][good], label=f"t = {t[r]:.3g}")
    ax.set_xlabel("|k|")
    ax.set_ylabel("S(k)")
    ax.set_title("structure factor")
    ax.legend(fontsize=7)
    return True


def swept(ds):
    return [v for v in ds.variables.values() if "parameter" in v.ncattrs() and
            v.dimensions == ("member",)]


def cluster_panel(ds, ax):
    """The k-means label over two swept keys: a map for a grid, a scatter otherwise."""
    if "label" not in ds.variables:
        return False
    if ax is None:
        return True
    params = swept(ds)
    colours = {"cmap": "tab10", "vmin": 0, "vmax": 9}  # label c in tab10's colour c
    named = False
    if "label_map" in ds.variables:
        lm = ds["label_map"]
        y, x = (values(ds, d) for d in lm.dimensions)
        ax.pcolormesh(x, y, values(ds, "label_map"), shading="nearest", **colours)
        ax.set_xlabel(lm.dimensions[1])
        ax.set_ylabel(lm.dimensions[0])
        named = True
    elif len(params) >= 2:
        ax.scatter(values(ds, params[0].name), values(ds, params[1].name), c=values(ds, "label"),
                   s=4, **colours)
        ax.set_xlabel(params[0].getncattr("parameter"))
        ax.set_ylabel(params[1].getncattr("parameter"))
        named = True
    else:
        counts = np.bincount(np.asarray(ds["label"][...]).astype(int))
        ax.bar(np.arange(len(counts)), counts)
        ax.set_xlabel("cluster")
        ax.set_ylabel("members")
    names = ds["label"].getncattr("flag_meanings").split() if named else []
    if 0 < len(names) <= 10:  # the clusters' names (A0, A1, A2 for flow regimes) by colour
        from matplotlib.patches import Patch
        cmap = plt.get_cmap("tab10")
        ax.legend(handles=[Patch(color=cmap(c), label=n) for c, n in enumerate(names)],
                  fontsize=7, loc="upper right")
    ax.set_title("k-means clusters")
    return True


def sensitivity_panels(ds, axes_for):
    """Each statistic's first-order (solid) and total (dashed) indices over time, or at the one
    record it has, with their 95% intervals."""
    if "sobol_first" not in ds.variables:
        return 0
    t = values(ds, "t")
    first, total = values(ds, "sobol_first"), values(ds, "sobol_total")
    fci, tci = values(ds, "sobol_first_ci95"), values(ds, "sobol_total_ci95")
    params, stats = list(ds["parameter_key"][...]), list(ds["statistic_name"][...])
    for q, stat in enumerate(stats):
        ax = axes_for()
        have = np.isfinite(first[:, 0, q])
        for j, p in enumerate(params):
            color = f"C{j}"
            if have.sum() > 1:
                ax.plot(t[have], first[have, j, q], color=color, label=f"{p} first")
                ax.fill_between(t[have], fci[have, j, q, 0], fci[have, j, q, 1], color=color,
                                alpha=0.2)
                ax.plot(t[have], total[have, j, q], "--", color=color, label=f"{p} total")
            else:
                r = int(np.flatnonzero(have)[-1]) if have.any() else len(t) - 1
                for offset, (v, ci, hatch) in enumerate(((first, fci, ""), (total, tci, "//"))):
                    ax.bar(j + 0.4 * offset, v[r, j, q], 0.4, color=color, hatch=hatch,
                           yerr=[[v[r, j, q] - ci[r, j, q, 0]], [ci[r, j, q, 1] - v[r, j, q]]])
        if have.sum() > 1:
            ax.set_xlabel("t")
            ax.legend(fontsize=6)
        else:
            ax.set_xticks(np.arange(len(params)) + 0.2)
            ax.set_xticklabels(params, fontsize=7)
        ax.set_ylim(-0.1, 1.1)
        ax.set_title(f"Sobol indices of {stat} (first; total {'dashed' if have.sum() > 1 else 'hatched'})")
    return len(stats)


def steady_panel(ds, ax):
    """A steady run's iterations per member."""
    if "iterations" not in ds.variables:
        return False
    if ax is None:
        return True
    it = values(ds, "iterations")
    ax.hist(it[np.isfinite(it)], bins=min(50, max(5, len(it) // 4)))
    ax.set_xlabel("iterations")
    ax.set_ylabel("members")
    ax.set_title(f"{ds.getncattr('model')}: iterations to converge")
    return True


def draw(ds, path):
    """The panels the file has, laid out three a row; None where it has none."""
    single = [p for p in (length_panel, observable_panel, spectrum_panel, cluster_panel,
                          steady_panel) if p(ds, None)]
    n_stats = len(ds["statistic_name"][...]) if "sobol_first" in ds.variables else 0
    n = len(single) + n_stats
    if n == 0:
        return None
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig = plt.figure(figsize=(4.4 * cols, 3.4 * rows))
    axes = iter(fig.add_subplot(rows, cols, i + 1) for i in range(n))
    for panel in single:
        panel(ds, next(axes))
    sensitivity_panels(ds, lambda: next(axes))
    for ax in fig.axes:
        ax.title.set_fontsize(9)
    fig.suptitle(os.path.basename(path))
    fig.tight_layout()
    return fig


def save(fig, out, overwrite):
    """Written beside OUT under a name of its own, then moved into place: over an existing OUT
    only with --overwrite (never through a link), and nothing left behind on failure."""
    fd, temp = tempfile.mkstemp(prefix=".cohort-plot-", suffix=".png",
                                dir=os.path.dirname(os.path.abspath(out)))
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format="png", dpi=120)
        if overwrite:
            os.replace(temp, out)
        else:
            os.link(temp, out)  # fails where OUT appeared meanwhile
            os.unlink(temp)
    except BaseException:
        os.unlink(temp)
        raise


def main(argv):
    path, out, overwrite = argv[1], argv[2], argv[3] == "1"
    try:
        ds = netCDF4.Dataset(path)
    except OSError as e:
        fail(f"{path}: not a readable NetCDF file ({e})")
    with ds:
        if "model" not in ds.ncattrs():
            fail(f"{path}: not a cohort file (no global attribute model)")
        fig = draw(ds, path)
        if not fig:
            fail(f"{path}: nothing to draw (no length, observables, structure factor, clusters, "
                 "Sobol indices or iterations)")
    try:
        save(fig, out, overwrite)
    except FileExistsError:
        fail(f"-o {out}: exists (give --overwrite to replace it)")
    except OSError as e:
        fail(f"-o {out}: {e.strerror}")
    print(f"wrote {out}")
    return 0


sys.exit(main(sys.argv))
