"""lmsor_table.py TABLE OUT.png RUN.nc ...: seed 004's Table 1, 3 or 4 beside cohort's runs of it:
the (R, I) counts and iterations per problem and Re (Tables 1 and 3), and for Table 4 the
element rate (Mega-elements/s: iterations N / solve time) against sqrt(N) on Fig. 1's axes."""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from netCDF4 import Dataset

# seed 004: iterations (Tables 1, 3, 4) and the GTX 480's Mega-elements/s (Table 4, kernel #2)
PAPER_ITERATIONS = {
    (1, 10.0, 402): 412, (2, 10.0, 402): 554, (3, 10.0, 402): 1015,
    (1, 10.0, 2002): 1998, (2, 10.0, 2002): 2704, (3, 10.0, 2002): 2018,
    (1, 1e3, 1002): 2620, (1, 1e4, 1002): 5394, (1, 1e5, 1002): 6243,
    (2, 1e3, 1002): 1003, (2, 1e4, 1002): 1112, (2, 1e5, 1002): 3170,
    (3, 1e3, 1002): 5514, (3, 1e4, 1002): 6271, (3, 1e5, 1002): 7034,
    (2, 10.0, 1002): 1384, (2, 10.0, 3002): 4055, (2, 10.0, 4002): 5406,
}
PAPER_RATE_GTX480 = {402: 1329.55, 1002: 2354.79, 2002: 2665.86, 3002: 2750.96, 4002: 2776.04}
PAPER_RATE_CPU = {402: 57.55, 1002: 49.10, 2002: 42.17, 3002: 26.03, 4002: 24.90}

table, out, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = []
for path in paths:
    ds = Dataset(path)
    n = len(ds["x"])
    members = len(ds["member"])
    config = ds.getncattr("config")

    def key(name, default):
        for line in config.splitlines():
            if line.strip().startswith(name + " ="):
                return line.split("=", 1)[1].strip()
        return default

    problem = ds["model_problem"][:] if "model_problem" in ds.variables else \
        np.full(members, float(key("problem", 1)))
    re = ds["model_re"][:] if "model_re" in ds.variables else np.full(members, float(key("re", 10)))
    seconds = float(ds.getncattr("solve_seconds"))
    its = ds["iterations"][:]
    for m in range(members):
        rows.append(dict(problem=int(problem[m]), re=float(re[m]), n=n, it=int(its[m]),
                         conv=int(ds["converged"][m]), R=int(ds["real_points"][m]),
                         I=int(ds["imaginary_points"][m]), seconds=seconds, members=members,
                         backend=ds.getncattr("backend"), device=ds.getncattr("device")))
print(f"seed 004, Table {table}: cohort beside the paper (iterations to ||u||_inf <= 1e-6)")
print(f"{'f,g':>4} {'Re':>8} {'sqrt(N)':>8} {'(R, I)':>22} {'cohort':>8} {'paper':>7}" +
      ("  Melem/s  paper GPU  paper CPU" if table == "4" else ""))
for r in rows:
    paper = PAPER_ITERATIONS.get((r["problem"], r["re"], r["n"]), None)
    line = (f"{r['problem']:>4} {r['re']:>8g} {r['n']:>8} {'(%d, %d)' % (r['R'], r['I']):>22} "
            f"{r['it'] if r['conv'] else str(r['it']) + '*':>8} {paper if paper else '-':>7}")
    if table == "4":
        rate = r["it"] * r["n"] ** 2 / r["seconds"] / 1e6
        r["rate"] = rate
        line += (f"  {rate:7.1f}  {PAPER_RATE_GTX480.get(r['n'], float('nan')):9.1f}"
                 f"  {PAPER_RATE_CPU.get(r['n'], float('nan')):9.1f}")
    print(line)
print(f"(* not converged within solver.max_iterations; {rows[0]['backend']}: {rows[0]['device']})")
fig, ax = plt.subplots(figsize=(6.5, 4.2))
if table == "4":
    sizes = [r["n"] for r in rows]
    ax.plot(sizes, [r["rate"] for r in rows], "o-", label=f"cohort ({rows[0]['backend']})")
    ax.plot(list(PAPER_RATE_GTX480), list(PAPER_RATE_GTX480.values()), "s--",
            label="seed 004, GTX 480 (kernel #2)")
    ax.plot(list(PAPER_RATE_CPU), list(PAPER_RATE_CPU.values()), "^--",
            label="seed 004, Opteron (1 thread)")
    ax.set_yscale("log")
    ax.set_xlabel("sqrt(N)")
    ax.set_ylabel("Mega-elements computed per second")
else:
    labels = [f"{r['problem']}, Re={r['re']:g}, {r['n']}" for r in rows]
    x = np.arange(len(rows))
    ax.bar(x - 0.2, [r["it"] for r in rows], 0.4, label="cohort")
    ax.bar(x + 0.2, [PAPER_ITERATIONS.get((r["problem"], r["re"], r["n"]), 0) for r in rows],
           0.4, label="seed 004")
    ax.set_xticks(x, labels, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("iterations")
ax.set_title(f"seed 004, Table {table}")
ax.legend()
fig.tight_layout()
fig.savefig(out, dpi=100)
print(f"wrote {out}")
