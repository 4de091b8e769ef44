#!/bin/sh
# The benchmark table's plumbing (make bench): a benchmark program's rows (bench-curvature's two
# smallest mean-curvature cases on the cpu backend) and a whole command's row (bench_run.sh)
# land in $COHORT_BENCH_TABLE with their floor and peer, a quoted workload survives, and
# bench_table.py makes the Markdown table of them; make bench's parts (workflows/bench.sh) resume
# after a failure, keeping the parts measured at the same commit and nothing half-written; and
# docs/performance.md's table is the one its CSV gives.
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
# a baseline: the first row measured at twice the time before, the second at the same time
"$python" - <<'PY' || bad "the baseline"
import csv
rows = list(csv.DictReader(open("bench.csv")))
rows[0]["ms"] = repr(2 * float(rows[0]["ms"]))
with open("baseline.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
PY
"$python" "$here/../workflows/bench_table.py" bench.csv before.md "the test's CPU" test baseline.csv \
    > /dev/null || bad "bench_table.py with a baseline"
"$python" "$here/../workflows/bench_table.py" bench.csv none.md "the test's CPU" test missing.csv \
    2> missing.err && bad "a missing baseline accepted" ||
    { [ $? -eq 2 ] && grep -q "cannot read missing.csv" missing.err && [ ! -e none.md ] && ok ||
        bad "a missing baseline: $(cat missing.err)"; }
"$python" - <<'PY' && ok || bad "the before column"
md = [l for l in open("before.md").read().splitlines() if l.startswith("|")]
assert md[0].endswith("| before | before / time |"), md[0]
cells = [l.strip("|").split(" | ") for l in md[2:]]
assert all(len(c) == 10 for c in cells), cells
assert cells[0][9].strip() == "2.00x" and cells[0][8], cells[0]
assert cells[1][8] == "" and cells[1][9].strip() == "", cells[1]
PY
# workflows/bench.sh with a stand-in for make: each part appends a row and logs its call; the part
# named in $FAIL fails
cat > fake_make.sh <<'SH'
echo "$1" >> calls.log
[ "$1" = "$FAIL" ] && exit 1
printf '"fake","%s",1,,"","",\n' "$1" >> "$COHORT_BENCH_TABLE"
SH
parts=t-parts
FAIL=p2 sh "$here/../workflows/bench.sh" t.csv c1 "p1 p2" "r1" sh fake_make.sh 2> stopped.err &&
    bad "bench.sh succeeded with a failing part" || ok
[ -f $parts/p1.csv ] && [ ! -e $parts/p2.csv ] && [ ! -e $parts/p2.csv.part ] && [ ! -e t.csv ] &&
    grep -q "next make bench takes up from there" stopped.err && ok ||
    bad "after a failed part: $(ls $parts) / $(cat stopped.err)"
FAIL= sh "$here/../workflows/bench.sh" t.csv c1 "p1 p2" "r1" sh fake_make.sh > resumed.out ||
    bad "the resumed bench.sh"
[ "$(tr '\n' ' ' < calls.log)" = "p1 p2 p2 r1 " ] && grep -q "p1: measured at c1 already" resumed.out &&
    ok || bad "the resumed run's calls: $(cat calls.log)"
"$python" - <<'PY' && ok || bad "the resumed table"
import csv
rows = list(csv.DictReader(open("t.csv")))
assert [(r["program"], r["workload"]) for r in rows] == [
    ("fake", "p1"), ("fake", "p2"), ("fake", "r1"), ("end to end", "make r1")], rows
PY
: > calls.log
FAIL= sh "$here/../workflows/bench.sh" t.csv c2 "p1 p2" "r1" sh fake_make.sh > /dev/null &&
    [ "$(tr '\n' ' ' < calls.log)" = "p1 p2 r1 " ] && [ "$(sed -n 1p $parts/p1.csv)" = "# commit c2" ] &&
    ok || bad "a new commit measures every part again: $(cat calls.log)"
# docs/performance.md's table is what its CSV gives (make performance-doc writes it)
"$python" "$here/../workflows/performance_doc.py" --check "$here/../docs/figures/bench-h100.csv" \
    "$here/../docs/performance.md" "$here/../docs/figures/bench-h100-ab12d8d.csv" && ok ||
    bad "docs/performance.md's table is not its CSV's"
test_summary
