#!/bin/sh
# The adaptive models' cpu/cuda agreement (issue 39): the device forms 1/Q and F_W's reciprocal
# from the hardware's approximation and Newton steps, and eq. 29's growth factor in single
# precision, so members near an accept/reject threshold can take other steps on the two backends.
# On an ensemble large enough for that to happen (4,096 radial_sine members of 20^2, 20 records,
# time.tolerance 1e-6) every double variable of the file (C, the series, the errors) must agree
# within the model's declared cpu_cuda_rtol (cohort models --table: the larger of this test's
# measurement and the example's, test_backend_tolerance.sh); how many members took other steps is
# reported, not asserted.
# Usage: test_backends_adaptive.sh COHORT COMPARE_NC WORKDIR
cohort=${1:?cohort} compare=${2:?compare_nc} dir=${3:?workdir}
. "$(cd "$(dirname "$0")" && pwd)/test_lib.sh"
test_workdir "$dir"
test_needs_backend "$cohort" cuda

for model in mcf2d willmore2d; do
    rtol=$("$cohort" models --table | awk -F'\t' -v m=$model '$1 == m { print $4; exit }')
    cat > $model.ini <<INI
[model]
name = $model
boundary = neumann
[grid]
nx = 20
ny = 20
[time]
t_end = 0.002
output_every = 0.0001
tolerance = 1e-6
[initial]
kind = radial_sine
[sweep]
initial.amplitude = 0.1:3:4096
[output]
archive = final
INI
    "$cohort" run $model.ini --backend cuda --quiet -o $model-cuda.nc || bad "$model on cuda"
    "$cohort" run $model.ini --backend cpu --quiet -o $model-cpu.nc || bad "$model on cpu"
    # the double variables (compare_nc --rtol applies to doubles; the step counts are int64)
    doubles="C area_mean area_var area_sem"
    [ $model = willmore2d ] && doubles="$doubles willmore_energy_mean willmore_energy_var willmore_energy_sem"
    if "$compare" --rtol "$rtol" $model-cpu.nc $model-cuda.nc $doubles > $model.cmp; then
        ok
    else
        bad "$model: cpu and cuda differ by more than its declared $rtol: $(grep FAIL $model.cmp)"
    fi
    "$compare" --rtol 0 $model-cpu.nc $model-cuda.nc C > $model.worst
    steps=same
    "$compare" $model-cpu.nc $model-cuda.nc steps_accepted steps_rejected > /dev/null || steps=different
    echo "$model: declared $rtol; measured: $(grep -o 'worst relative difference.*' $model.worst || echo 'C bitwise'); step counts $steps"
done
test_summary
