#!/bin/sh
# Every model's declared cpu/cuda tolerance (cohort models --table, cpu_cuda_rtol) is a measured
# one (issue "numbers you can trust", item 4): each model's example (examples/configs, what
# `cohort init` writes) runs on both backends to its t_end and to ten times it, and every double
# variable of the two files agrees within the declared tolerance (compare_nc's rule, |a - b| <=
# R max(1, |a|, |b|)); the largest difference is printed, as docs/performance.md quotes it. A
# steady model runs once. Needs a usable CUDA device (exit 77 otherwise).
# Usage: test_backend_tolerance.sh COHORT COMPARE_NC SOURCE_DIR WORKDIR
cohort=${1:?cohort} compare=${2:?compare_nc} source=${3:?source} dir=${4:?workdir}
. "$(cd "$(dirname "$0")" && pwd)/test_lib.sh"
test_needs_backend "$cohort" cuda
test_workdir "$dir"

"$cohort" models --table | tail -n +2 > table.tsv || bad "cohort models --table"
for model in $(cut -f1 table.tsv | uniq); do
    line=$(grep "^$model	" table.tsv | head -1)
    rtol=$(echo "$line" | cut -f4) steady=$(echo "$line" | cut -f12)
    example=$source/examples/configs/$model.ini
    t_end=$(sed -n 's/^t_end = //p' "$example")
    if [ "$steady" = 1 ]; then factors=1; else factors="1 10"; fi
    for factor in $factors; do
        set -- --quiet
        [ "$steady" = 1 ] || set -- "$@" --set time.t_end="$(awk "BEGIN { print $t_end * $factor }")"
        for backend in cuda cpu; do
            "$cohort" run "$example" "$@" --backend $backend -o "$model-$factor-$backend.nc" ||
                bad "$model: the example on $backend to $factor x t_end"
        done
        result=$("$compare" --rtol "$rtol" "$model-$factor-cuda.nc" "$model-$factor-cpu.nc")
        status=$?
        printf '%s\t%s x t_end\tdeclared %s\t%s\n' "$model" "$factor" "$rtol" \
            "$(printf '%s\n' "$result" | tail -n 1 | sed 's/.*largest difference/largest/')"
        [ $status -eq 0 ] && ok || bad "$model at $factor x t_end: $(printf '%s' "$result" | grep FAIL)"
    done
done
test_summary
