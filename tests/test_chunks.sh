#!/bin/sh
# On one backend, every 1D model's results are the same bits whatever the chunking: ensemble.chunk
# = 1, 7 and automatic, with the archive, the statistics and the structure factor compared by
# compare_nc (plain NetCDF-C, so it runs on the GPU machine). On cuda this goes through the fused
# step (diffusion1d, hyperdiffusion1d, ch1d) and the separate kernels (ch1d_forced), whose sub-batch
# handling a chunk exercises.
# Usage: test_chunks.sh COHORT COMPARE_NC BACKEND WORKDIR (exit 77: BACKEND not usable here)
cohort=${1:?cohort} compare=${2:?compare_nc} backend=${3:?backend} dir=${4:?workdir}
. "$(cd "$(dirname "$0")" && pwd)/test_lib.sh"
test_workdir "$dir"
test_needs_backend "$cohort" "$backend"

variables="C ell_mean ell_var ell_sem mass_mean n_active diverged structure_factor k1"
for model in diffusion1d hyperdiffusion1d ch1d ch1d_forced; do
    cat > "$model.ini" <<INI
[model]
name = $model
[grid]
n = 96
length = 2*pi
[time]
dt = 0.002
t_end = 0.2
output_every = 0.05
[ensemble]
members = 75
seed = 5
[initial]
kind = uniform
amplitude = 0.1
mean = 0.1
[output]
archive = final
[analysis]
structure_factor = true
INI
    for chunk in 1 7 auto; do
        "$cohort" run "$model.ini" --quiet --backend "$backend" --set ensemble.chunk=$chunk \
            -o "$model-$chunk.nc" || bad "$model, ensemble.chunk = $chunk"
    done
    for chunk in 1 7; do
        "$compare" "$model-auto.nc" "$model-$chunk.nc" $variables > /dev/null && ok ||
            bad "$model: ensemble.chunk = $chunk changes the results"
    done
done
test_summary
