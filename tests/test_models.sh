#!/bin/sh
# The tests every registered model gets without writing them (the registry through `cohort models
# --table`), on one backend: (a) each model parameter outside its range is refused with exit 2 and
# a message naming the key, leaving no file; (b) ensemble.chunk = 1, 7 and automatic give the
# same bits in every variable, and so does the pre-flight's timed probe; (c) where the model
# conserves the mean, mass_mean(t) stays within 1e-12 of its start; (d) on cuda, the cpu
# backend's file agrees within the model's declared tolerance (cpu_cuda_rtol).
# Usage: test_models.sh COHORT COMPARE_NC BACKEND WORKDIR (exit 77: BACKEND not usable here)
cohort=${1:?cohort} compare=${2:?compare_nc} backend=${3:?backend} dir=${4:?workdir}
. "$(cd "$(dirname "$0")" && pwd)/test_lib.sh"
test_workdir "$dir"
test_needs_backend "$cohort" "$backend"

"$cohort" models --table > table-with-header.tsv || bad "cohort models --table"
tail -n +2 table-with-header.tsv > table.tsv
for model in $(cut -f1 table.tsv | uniq); do
    line=$(grep "^$model	" table.tsv | head -1)
    dimension=$(echo "$line" | cut -f2) conserves=$(echo "$line" | cut -f3)
    rtol=$(echo "$line" | cut -f4) kind=$(echo "$line" | cut -f10) bounded=$(echo "$line" | cut -f11)
    steady=$(echo "$line" | cut -f12)
    # a bounded model has no structure factor (it is of periodic fields), nor has a steady one
    if [ "$bounded" = 1 ] || [ "$steady" = 1 ]; then sf=false; else sf=true; fi
    if [ "$dimension" = 2 ]; then grid="nx = 12
ny = 10"; else grid="n = 24"; fi
    cat > "$model.ini" <<INI
[model]
name = $model
[grid]
$grid
[time]
t_end = 0.2
output_every = 0.05
[ensemble]
members = 9
seed = 11
[initial]
kind = $kind
mean = 0.2
[output]
archive = final
[analysis]
structure_factor = $sf
INI
    # (a) every parameter with a lower bound, just outside it
    grep "^$model	" table.tsv > params.tsv
    while IFS='	' read -r _ _ _ _ key _ min max exclusive _; do
        case $min in -inf) continue ;; esac
        if [ "$exclusive" = 1 ]; then value=$min; else value=$(awk "BEGIN { print $min - 1 }"); fi
        expect_refusal "$model-bad.nc" "model\.$key = '$value'" "$cohort" run "$model.ini" \
            --quiet --backend "$backend" --set "model.$key=$value" -o "$model-bad.nc"
    done < params.tsv
    # (b) the chunking changes nothing
    for chunk in 1 7 auto; do
        "$cohort" run "$model.ini" --quiet --backend "$backend" --set ensemble.chunk=$chunk \
            -o "$model-$chunk.nc" || bad "$model: run with ensemble.chunk = $chunk"
    done
    for chunk in 1 7; do
        "$compare" "$model-auto.nc" "$model-$chunk.nc" > compare.txt && ok ||
            bad "$model: ensemble.chunk = $chunk changes the results: $(grep FAIL compare.txt)"
    done
    # (b') the pre-flight's timed probe (a run without --quiet) changes nothing either: it steps
    # the first chunk on a stepper of its own, and the run starts it afresh (a steady model
    # solves, and has no probe)
    if [ "$steady" != 1 ]; then
        "$cohort" run "$model.ini" --backend "$backend" -o "$model-probed.nc" 2> probe.err &&
            grep -q "about .* of stepping (a probe" probe.err ||
            bad "$model: the probed run: $(cat probe.err)"
        "$compare" "$model-auto.nc" "$model-probed.nc" > compare.txt && ok ||
            bad "$model: the probe changes the results: $(grep FAIL compare.txt)"
    fi
    # (c) the conserved mean
    if [ "$conserves" = 1 ]; then
        "$compare" --constant "$model-auto.nc" mass_mean 1e-12 > drift.txt && ok ||
            bad "$model: $(cat drift.txt)"
    fi
    # (d) the cpu backend agrees with cuda bit for bit (the declared tolerance, 0), but for the
    # structure factor's FFT (cuFFT against GSL: test_backend_tolerance.sh measures it)
    if [ "$backend" = cuda ]; then
        if [ "$rtol" = 0 ]; then set --; else set -- --rtol "$rtol"; fi
        "$cohort" run "$model.ini" --quiet --backend cpu -o "$model-cpu.nc" &&
            "$compare" "$@" --skip structure_factor --skip k1 "$model-auto.nc" "$model-cpu.nc" \
                > backends.txt && ok ||
            bad "$model: cpu and cuda differ by more than $rtol: $(grep FAIL backends.txt)"
    fi
done
test_summary
