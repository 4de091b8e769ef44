"""plot_bench_swept.py OUT.png BENCH.csv: seed 001's Figs. 8b and 9b from bench-swept's table, the
swept rule's speed-up over the classic kernels (each at its best tile width) against the number of
spatial points, on the paper's axes (log2 N from 2^11 to 2^20, speed-up)."""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

out, path = sys.argv[1], sys.argv[2]
best = defaultdict(lambda: float("inf"))
for row in csv.DictReader(open(path)):
    if row["members"] != "1":
        continue
    key = (row["model"], int(row["n"]), row["stepper"])
    best[key] = min(best[key], float(row["ms_per_step"]))
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
for ax, model, figure in zip(axes, ("heat1d", "ks1d"), ("8b", "9b")):
    sizes = sorted({n for (m, n, s) in best if m == model})
    speedup = [best[(model, n, "classic")] / best[(model, n, "swept")] for n in sizes]
    ax.semilogx(sizes, speedup, "o-", base=2, label="cohort, H100 (GPUShared-like swept)")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xlim(2**10.5, 2**20.5)
    ax.set_xlabel("spatial points N")
    ax.set_ylabel("speed-up of swept over classic")
    ax.set_title(f"{model} (seed 001, Fig. {figure}: 6x small N to 2x large N on a K40c)")
    ax.legend()
fig.tight_layout()
fig.savefig(out, dpi=100)
print(f"wrote {out}")
