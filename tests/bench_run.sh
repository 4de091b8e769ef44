#!/bin/sh
# A row of the benchmark table (make bench) for a whole command, such as a study's cohort run:
# its wall time, output included, appended to $COHORT_BENCH_TABLE in bench_check.h's columns.
#   bench_run.sh WORKLOAD COMMAND [ARG...]
workload=${1:?workload}
shift
table=${COHORT_BENCH_TABLE:?COHORT_BENCH_TABLE names the table}
start=$(date +%s%N)
"$@" || { echo "bench-run: '$workload' failed" >&2; exit 1; }
end=$(date +%s%N)
awk -v w="$workload" -v ns=$((end - start)) 'BEGIN {
    gsub(/"/, "\"\"", w); printf "\"end to end\",\"%s\",%.6g,,\"\",\"\",\n", w, ns / 1e6 }' >> "$table"
