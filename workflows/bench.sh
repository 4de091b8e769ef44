#!/bin/sh
# make bench's rows, part by part, resumable: each benchmark program of PROGRAMS and each study of
# RUNS (timed end to end by tests/bench_run.sh) is one part, run as `MAKE... PART` with its rows
# going to PARTS/PART.csv (PARTS = TABLE without .csv, plus -parts). A part's file is written
# under another name and renamed when the part has succeeded, with the commit it measured on its
# first line, so a run stopped by a job's time limit or a failure is taken up again by the next
# call: parts measured at the same commit are kept, the rest run. Then TABLE gets every part's
# rows in order, under the header of tests/bench_check.h's columns.
#   bench.sh TABLE COMMIT "PROGRAMS" "RUNS" MAKE [ARG...]
table=${1:?table} commit=${2:?commit} programs=$3 runs=$4
shift 4
[ $# -gt 0 ] || { echo "bench.sh: no make command" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
parts=${table%.csv}-parts
mkdir -p "$parts" || exit 1
stamp="# commit $commit"
for part in $programs $runs; do
    file=$parts/$part.csv
    if [ -f "$file" ] && [ "$(sed -n 1p "$file")" = "$stamp" ]; then
        echo "bench: $part: measured at $commit already ($file; remove it to measure again)"
        continue
    fi
    echo "$stamp" > "$file.part" || exit 1
    case " $runs " in
    *" $part "*)
        COHORT_BENCH_TABLE=$PWD/$file.part sh "$here/../tests/bench_run.sh" "make $part" "$@" \
            "$part" ;;
    *) COHORT_BENCH_TABLE=$PWD/$file.part "$@" "$part" ;;
    esac || {
        rm -f "$file.part"
        echo "bench: $part failed; the parts measured so far are in $parts, and the next" \
            "make bench takes up from there" >&2
        exit 1
    }
    mv "$file.part" "$file" || exit 1
done
{
    echo 'program,workload,ms,floor_ms,floor_basis,peer,peer_ms'
    for part in $programs $runs; do sed 1d "$parts/$part.csv"; done
} > "$table.part" && mv "$table.part" "$table"
