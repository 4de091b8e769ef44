#!/bin/sh
# Every kind of file cohort writes passes the IOOS compliance-checker for CF-1.11 with no errors
# and no warnings: a run of each registered model (snapshots, per-member series, structure factor,
# k-means), a swept run with a label map and an archive, and `cohort analyze`'s output of it; a
# Saltelli run's Sobol indices and `cohort analyze --sensitivity`'s.
# Usage: check_cf.sh COHORT COMPLIANCE_CHECKER WORKDIR (exit 77 where the checker is missing;
# make -f Makefile.workflow setup installs it into .venv)
cohort=${1:?cohort} checker=${2:?compliance-checker} dir=${3:?workdir}
. "$(cd "$(dirname "$0")" && pwd)/test_lib.sh"
if [ ! -x "$checker" ]; then
    echo "skipped: no compliance-checker at $checker (make -f Makefile.workflow setup)"
    exit 77
fi
test_workdir "$dir"

# check FILE: 0 errors and 0 warnings
check() {
    "$checker" -t cf:1.11 "$1" > "$1.cf.txt" 2>&1
    status=$?
    if [ $status -eq 0 ] && ! grep -q '^\*' "$1.cf.txt" && grep -q "All tests passed" "$1.cf.txt"; then
        ok
    else
        bad "$1 (exit $status): $(grep -E '^\*|Error|error' "$1.cf.txt" | head -8)"
    fi
}

"$cohort" models --table > table-with-header.tsv || bad "cohort models --table"
tail -n +2 table-with-header.tsv > table.tsv
for model in $(cut -f1 table.tsv | uniq); do
    line=$(grep "^$model	" table.tsv | head -1)
    dimension=$(echo "$line" | cut -f2) kind=$(echo "$line" | cut -f10)
    if [ "$(echo "$line" | cut -f11)" = 1 ]; then sf=false; else sf=true; fi
    if [ "$dimension" = 2 ]; then grid="--set grid.nx=12 --set grid.ny=10"; else grid="--set grid.n=24"; fi
    if [ "$(echo "$line" | cut -f12)" = 1 ]; then # steady: its history, values and field
        # shellcheck disable=SC2086
        "$cohort" run /dev/null --quiet --backend cpu --set model.name="$model" $grid \
            --set ensemble.members=6 --set solver.check_every=5 --set output.archive=final \
            -o "$model.nc" || bad "$model run"
        check "$model.nc"
        continue
    fi
    # shellcheck disable=SC2086
    "$cohort" run /dev/null --quiet --backend cpu --set model.name="$model" $grid \
        --set time.t_end=0.2 --set time.output_every=0.05 --set ensemble.members=6 \
        --set initial.kind="$kind" \
        --set output.archive=snapshots --set output.snapshot_every=0.1 \
        --set output.member_series=true --set analysis.structure_factor=$sf \
        --set analysis.kmeans=2 -o "$model.nc" || bad "$model run"
    check "$model.nc"
done
"$cohort" run /dev/null --quiet --backend cpu --set model.name=ch1d_forced --set grid.n=24 \
    --set time.t_end=0.2 --set sweep.model.f0=0:1:3 --set sweep.initial.mean=0:0.5:3 \
    --set sweep.replicates=2 --set analysis.kmeans=3 -o sweep.nc || bad "swept run"
check sweep.nc
"$cohort" analyze sweep.nc --kmeans 2 --structure-factor -o analysis.nc 2> /dev/null ||
    bad "cohort analyze"
check analysis.nc
"$cohort" run /dev/null --quiet --backend cpu --set model.name=diffusion1d --set grid.n=24 \
    --set time.t_end=0.2 --set time.output_every=0.05 --set initial.kind=cosine \
    --set sweep.design=saltelli --set sweep.points=16 --set sweep.initial.amplitude=0.5:1.5 \
    --set sweep.model.alpha=0.5:2:log --set analysis.sensitivity=sobol -o sobol.nc ||
    bad "Saltelli run"
check sobol.nc
"$cohort" analyze sobol.nc --sensitivity -o sobol-analysis.nc 2> /dev/null ||
    bad "cohort analyze --sensitivity"
check sobol-analysis.nc
test_summary
