#!/bin/sh
# One arithmetic (issue 55): every model declares cpu/cuda tolerance 0 (cohort models --table,
# cpu_cuda_rtol), and each model's example (examples/configs, what `cohort init` writes) runs on
# both backends to its t_end and to ten times it: the two files are the same bit for bit, every
# variable. A steady model runs once. The structure factor is the one analysis that uses another
# library on each backend (cuFFT, GSL's FFT): with analysis.structure_factor on, everything else
# stays bitwise and structure_factor and k1 agree within SPECTRAL_RTOL (|a - b| <= R max(1, |a|,
# |b|), compare_nc's rule), the largest difference printed (docs/performance.md quotes it). Needs
# a usable CUDA device (exit 77 otherwise).
# Usage: test_backend_tolerance.sh COHORT COMPARE_NC SOURCE_DIR WORKDIR
cohort=${1:?cohort} compare=${2:?compare_nc} source=${3:?source} dir=${4:?workdir}
. "$(cd "$(dirname "$0")" && pwd)/test_lib.sh"
test_needs_backend "$cohort" cuda
test_workdir "$dir"
SPECTRAL_RTOL=${SPECTRAL_RTOL:-1e-15}

# spectral_run BACKEND: the example of $model with the structure factor on
spectral_run() {
    "$cohort" run "$example" --quiet --set analysis.structure_factor=true --backend "$1" \
        -o "$model-sf-$1.nc" 2> "$model-sf-$1.err"
}

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
        if [ "$rtol" = 0 ]; then set --; else set -- --rtol "$rtol"; fi
        result=$("$compare" "$@" "$model-$factor-cuda.nc" "$model-$factor-cpu.nc")
        status=$?
        printf '%s\t%s x t_end\tdeclared %s\t%s\n' "$model" "$factor" "$rtol" \
            "$(printf '%s\n' "$result" | tail -n 1)"
        [ $status -eq 0 ] && ok || bad "$model at $factor x t_end: $(printf '%s' "$result" | grep FAIL)"
    done
    [ "$steady" = 1 ] && continue
    # the structure factor, where the model has one: cuFFT against GSL
    if ! spectral_run cpu; then
        grep -q "structure_factor" "$model-sf-cpu.err" ||
            bad "$model: the structure factor on cpu: $(cat "$model-sf-cpu.err")"
        continue # a model without a structure factor refuses the key
    fi
    spectral_run cuda || bad "$model: the structure factor on cuda"
    "$compare" --skip structure_factor --skip k1 "$model-sf-cuda.nc" "$model-sf-cpu.nc" > sf.cmp &&
        ok || bad "$model with the structure factor: $(grep FAIL sf.cmp)"
    result=$("$compare" --rtol "$SPECTRAL_RTOL" "$model-sf-cuda.nc" "$model-sf-cpu.nc" \
        structure_factor k1)
    status=$?
    printf '%s\tstructure factor\tdeclared %s\t%s\n' "$model" "$SPECTRAL_RTOL" \
        "$(printf '%s\n' "$result" | tail -n 1)"
    [ $status -eq 0 ] && ok || bad "$model structure factor: $(printf '%s' "$result" | grep FAIL)"
done

# The banded solver's forms (banded_form_of): systems long enough for the chunked form (a
# pentadiagonal one just past the warp tiles, N = 768, and N = 2048), a tridiagonal one between
# the warp tiles of 32 and 16 (sequential), and a 2D field's lines in the partitioned form: the
# same bits on both backends, each from the example's configuration.
for spec in "diffusion1d grid.n=512" "diffusion1d grid.n=2048" "ch1d grid.n=2048" \
    "hyperdiffusion1d grid.n=768" "ch1d_forced grid.n=2048" "ch2d grid.nx=128 grid.ny=128"; do
    set -- $spec
    model=$1
    shift
    name=$(echo "$spec" | tr ' =' '__')
    for backend in cuda cpu; do
        sets=""
        for kv in "$@"; do sets="$sets --set $kv"; done
        # shellcheck disable=SC2086
        "$cohort" run "$source/examples/configs/$model.ini" --quiet $sets --set time.t_end=0.2 \
            --set ensemble.members=16 --backend $backend -o "form-$name-$backend.nc" ||
            bad "$spec on $backend"
    done
    result=$("$compare" "form-$name-cuda.nc" "form-$name-cpu.nc")
    status=$?
    printf '%s\tbanded form\t%s\n' "$spec" "$(printf '%s\n' "$result" | tail -n 1)"
    [ $status -eq 0 ] && ok || bad "$spec: $(printf '%s' "$result" | grep FAIL)"
done
test_summary
