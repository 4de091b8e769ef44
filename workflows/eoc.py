"""eoc.py [--paper mcf|willmore] [--min-eoc X] [--last K] [--out PREFIX] RUN.nc ...: the
experimental order of convergence (seed 000, eq. 34) of curvature-flow runs from
initial.kind = manufactured, one file per grid (nx = ny = N cells), each holding the space-time
errors error_l1, error_l2, error_linf of eq. 31-33 per member. Prints the table (every member of a
file: a sweep over zeta's constants gives a column group per member) beside the seed's Table 3
(--paper mcf) or Table 4 (--paper willmore), and writes PREFIX.txt and PREFIX.png.

--min-eoc X: exit 1 unless the EOC of the last K pairs (--last, default all) is >= X in every
norm, for every member (the tests use this)."""
import argparse
import sys

import numpy as np
from netCDF4 import Dataset

# seed 000, Tables 3 and 4 (double precision): N -> (L1, L2, Linf)
PAPER = {
    "mcf": {16: (7.1e-03, 9.0e-03, 4.3e-02), 32: (1.5e-03, 1.9e-03, 8.5e-03),
            64: (3.9e-04, 4.9e-04, 2.4e-03), 128: (9.8e-05, 1.2e-04, 6.1e-04),
            256: (2.5e-05, 3.1e-05, 1.5e-04), 512: (6.2e-06, 7.7e-06, 3.8e-05),
            1024: (1.6e-06, 1.9e-06, 9.6e-06)},
    "willmore": {16: (1.4e-01, 2.5e-01, 1.3), 32: (8.1e-02, 1.5e-01, 7.0e-01),
                 64: (5.8e-03, 1.2e-02, 7.1e-02), 128: (1.8e-03, 3.8e-03, 2.3e-02),
                 256: (4.5e-04, 9.9e-04, 6.1e-03)},
}
NORMS = ("error_l1", "error_l2", "error_linf")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--paper", choices=sorted(PAPER))
    ap.add_argument("--min-eoc", type=float)
    ap.add_argument("--last", type=int, default=0)
    ap.add_argument("--out")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    runs = {}
    for path in a.runs:
        with Dataset(path) as ds:
            missing = [v for v in NORMS if v not in ds.variables]
            if missing:
                sys.exit(f"{path}: no {', '.join(missing)} (run with initial.kind = manufactured)")
            n = ds.dimensions["x"].size - 1
            runs[n] = (np.array([ds[v][:] for v in NORMS]),  # norm x member
                       np.array(ds["steps_accepted"][:]), np.array(ds["steps_rejected"][:]),
                       ds.getncattr("model"))
    sizes = sorted(runs)
    members = runs[sizes[0]][0].shape[1]
    lines, failed = [], []
    paper = PAPER.get(a.paper, {})
    for m in range(members):
        lines.append(f"{runs[sizes[0]][3]}, member {m}" + (" (seed 000 beside it, in [ ])"
                                                             if paper else ""))
        lines.append(f"{'N':>6} " + " ".join(f"{name[6:]:>10} {'EOC':>5}" for name in NORMS) +
                     f" {'steps':>8} {'rejected':>8}")
        for i, n in enumerate(sizes):
            err, acc, rej = runs[n][0][:, m], runs[n][1][m], runs[n][2][m]
            cells = []
            for q in range(3):
                eoc = ""
                if i > 0:
                    prev_n = sizes[i - 1]
                    e = np.log(runs[prev_n][0][q, m] / err[q]) / np.log(n / prev_n)
                    eoc = f"{e:5.2f}"
                    if a.min_eoc is not None and i >= len(sizes) - (a.last or len(sizes)) and \
                            not e >= a.min_eoc:
                        failed.append(f"member {m}, {NORMS[q]}, N = {prev_n} -> {n}: EOC {e:.3f}")
                cells.append(f"{err[q]:10.2e} {eoc:>5}")
            lines.append(f"{n:>4}^2 " + " ".join(cells) + f" {acc:8d} {rej:8d}")
            if n in paper:
                p = paper[n]
                prev = paper.get(sizes[i - 1]) if i > 0 else None
                cells = []
                for q in range(3):
                    eoc = f"{np.log(prev[q] / p[q]) / np.log(n / sizes[i - 1]):5.2f}" if prev else ""
                    cells.append(f"[{p[q]:8.1e}] {eoc:>5}")
                lines.append(f"{'':>6} " + " ".join(cells))
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out + ".txt", "w") as f:
            f.write(text + "\n")
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4.5))
        h = [8.0 / n for n in sizes]  # the seed's [-4, 4]^2
        for q, name in enumerate(NORMS):
            ax.loglog(sizes, [runs[n][0][q, 0] for n in sizes], "o-", label=f"cohort {name[6:]}")
            if paper:
                ps = [n for n in sizes if n in paper]
                ax.loglog(ps, [paper[n][q] for n in ps], "x--", color=f"C{q}",
                          label=f"seed 000 {name[6:]}")
        ref = runs[sizes[-1]][0][1, 0]
        ax.loglog(sizes, [ref * (h_ / h[-1]) ** 2 for h_ in h], "k:", label="h^2")
        ax.set_xlabel("N (N^2 cells)")
        ax.set_ylabel("space-time error (eq. 31-33)")
        ax.set_title(f"{runs[sizes[0]][3]}: experimental order of convergence")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.out + ".png", dpi=120)
    if failed:
        print("EOC below " + str(a.min_eoc) + ":\n  " + "\n  ".join(failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
