#!/bin/sh
# The adaptive models' cpu/cuda agreement (issue 55, one arithmetic): 1/Q, F_W's reciprocal and
# eq. 29's growth factor are cohort_hd.h's on both backends, so every member takes the same steps
# on both and the two files are the same bit for bit, on an ensemble large enough that some
# members sit near an accept/reject threshold (4,096 radial_sine members of 20^2, 20 records,
# time.tolerance 1e-6; before the one arithmetic, the device's own reciprocals and a
# single-precision growth factor gave some of them other steps).
# Usage: test_backends_adaptive.sh COHORT COMPARE_NC WORKDIR
cohort=${1:?cohort} compare=${2:?compare_nc} dir=${3:?workdir}
. "$(cd "$(dirname "$0")" && pwd)/test_lib.sh"
test_workdir "$dir"
test_needs_backend "$cohort" cuda

for model in mcf2d willmore2d; do
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
    # every variable, bit for bit: the fields, the series, the errors and the step counts
    if "$compare" $model-cpu.nc $model-cuda.nc > $model.cmp; then
        ok
    else
        bad "$model: cpu and cuda differ: $(grep FAIL $model.cmp)"
    fi
    "$compare" --rtol 0 $model-cpu.nc $model-cuda.nc > $model.worst
    echo "$model: $(tail -n 1 $model.worst)"
done
test_summary
