#!/bin/sh
# One arithmetic on the cpu backend (issue 55): a build whose explicit FMAs are the hardware's
# (COHORT_CPU_FMA=ON, or AUTO on a machine with FMA) and one that leaves them to the C library
# (COHORT_CPU_FMA=OFF: glibc's fma, exact on any machine) give the same bits. Each model's example
# (examples/configs) runs to its t_end with both programs; every variable of the two files must be
# identical (compare_nc without --rtol).
# Usage: test_cpu_fma.sh COHORT_FMA COHORT_NO_FMA COMPARE_NC SOURCE_DIR WORKDIR
with=${1:?cohort built with FMA} without=${2:?cohort built without} compare=${3:?compare_nc}
source=${4:?source} dir=${5:?workdir}
. "$(cd "$(dirname "$0")" && pwd)/test_lib.sh"
test_workdir "$dir"

for example in "$source"/examples/configs/*.ini; do
    model=$(basename "$example" .ini)
    OMP_NUM_THREADS=1 "$with" run "$example" --quiet --backend cpu -o "$model-fma.nc" ||
        bad "$model: the example with FMA"
    OMP_NUM_THREADS=1 "$without" run "$example" --quiet --backend cpu -o "$model-libm.nc" ||
        bad "$model: the example without"
    result=$("$compare" "$model-fma.nc" "$model-libm.nc")
    printf '%s\t%s\n' "$model" "$(printf '%s\n' "$result" | tail -n 1)"
    printf '%s\n' "$result" | grep -q "0 differ" && ok || bad "$model: $(printf '%s' "$result" | grep FAIL)"
done
test_summary
