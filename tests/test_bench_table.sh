#!/bin/sh
# The benchmark table's plumbing (make bench): a benchmark program's rows (bench-curvature's two
# smallest mean-curvature cases on the cpu backend) and a whole command's row (bench_run.sh)
# land in $COHORT_BENCH_TABLE with their floor and peer, a quoted workload survives, and
# bench_table.py makes the Markdown table of them.
# Usage: test_bench_table.sh PATH_TO_BENCH_CURVATURE PYTHON WORKDIR
bench=${1:?bench-curvature} python=${2:?python} dir=${3:?workdir}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_workdir "$dir"
export COHORT_BENCH_TABLE="$dir/bench.csv"
echo 'program,workload,ms,floor_ms,floor_basis,peer,peer_ms' > bench.csv
"$bench" --backend cpu --max-n 32 --max-willmore-n 0 --members 0 > bench.txt || bad "bench-curvature"
sh "$here/bench_run.sh" 'a "quoted", workload' sleep 0.2 || bad "bench_run.sh"
sh "$here/bench_run.sh" failing false 2> failing.err && bad "a failing command succeeded" || ok
"$python" "$here/../workflows/bench_table.py" bench.csv bench.md "the test's CPU" test > /dev/null ||
    bad "bench_table.py"
"$python" - <<'PY' && ok || bad "the table's rows"
import csv
rows = list(csv.DictReader(open("bench.csv")))
assert len(rows) == 3, rows
mcf = rows[0]
assert mcf["program"] == "bench-curvature" and mcf["workload"].startswith("mcf2d, 16^2 x 1"), mcf
assert 0 < float(mcf["floor_ms"]) < float(mcf["ms"]), mcf  # a floor below the time it bounds
assert mcf["peer"] == "seed 000, GTX 280" and float(mcf["peer_ms"]) == 50, mcf  # Table 6, 16^2
run = rows[2]
assert run["program"] == "end to end" and run["workload"] == 'a "quoted", workload', run
assert 200 <= float(run["ms"]) < 5000 and run["floor_ms"] == "", run
md = open("bench.md").read().splitlines()
assert md[0].startswith("Benchmarks on the test's CPU, commit test"), md[0]
assert len([l for l in md if l.startswith("| bench-curvature | mcf2d")]) == 2, md
assert '| end to end | a "quoted", workload | ' in "\n".join(md), md
PY
test_summary
