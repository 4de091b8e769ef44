#!/bin/sh
# cohort analyze: on a run's archive it reproduces the run's own structure factor and k-means bit
# for bit (same backend); the input is never modified; a missing, foreign, truncated or wrongly
# shaped input, or a bad option, is a clear message, exit 2, and no output file.
# Usage: test_analyze.sh COHORT COMPARE_NC BACKEND WORKDIR (exit 77: BACKEND not usable here)
cohort=${1:?cohort} compare=${2:?compare_nc} backend=${3:?backend} dir=${4:?workdir}
. "$(cd "$(dirname "$0")" && pwd)/test_lib.sh"
test_workdir "$dir"
test_needs_backend "$cohort" "$backend"
checksum() { cksum < "$1"; }

# a small flow map: ch1d_forced over f0 x <C> with replicates, snapshots at the record times,
# structure factor and k-means in the run
cat > forced.ini <<'INI'
[model]
name = ch1d_forced
[grid]
n = 32
length = 2*pi
[time]
t_end = 0.5
output_every = 0.1
[ensemble]
seed = 11
chunk = 7
[output]
path = run.nc
archive = snapshots
snapshot_every = 0.1
[analysis]
structure_factor = true
kmeans = 3
[sweep]
model.f0 = 0:2:3
initial.mean = 0:1:3
replicates = 4
INI
"$cohort" run forced.ini --quiet --backend "$backend" || bad "the run"
before=$(checksum run.nc)
analyses="t k structure_factor k1 label centroid cluster_size kmeans_inertia kmeans_iterations label_map"
if "$cohort" analyze run.nc --quiet --backend "$backend" && [ -e run.analysis.nc ] &&
    "$compare" run.nc run.analysis.nc $analyses; then
    ok
else
    bad "analyze run.nc does not reproduce the run's analyses"
fi
# one analysis at a time, a later start, and a final float archive (k-means on rounded fields)
"$cohort" analyze run.nc --quiet --backend "$backend" --kmeans 3 -o km.nc &&
    "$compare" run.nc km.nc label centroid label_map && ok || bad "--kmeans 3"
if "$cohort" analyze run.nc --quiet --backend "$backend" --structure-factor --from 0.25 -o late.nc &&
    "$cohort" info late.nc | grep -q "x 32 points, 3 records in t" &&
    ! "$cohort" info late.nc | grep -q "label(member)"; then
    ok
else
    bad "--structure-factor --from 0.25: $("$cohort" info late.nc 2>&1 | grep -E 'sizes|variables')"
fi
"$cohort" run forced.ini --quiet --backend "$backend" --set output.archive=final \
    --set output.precision=float -o final.nc || bad "the float run"
"$cohort" analyze final.nc --quiet --backend "$backend" --kmeans 3 -o final-km.nc &&
    "$compare" final.nc final-km.nc label centroid kmeans_inertia && ok ||
    bad "k-means of a float archive"
[ "$(checksum run.nc)" = "$before" ] && ok || bad "analyze modified its input"
# 2D: a ch2d ensemble, C(t_snap, member, y, x), the radial structure factor and k-means
cat > ch2d.ini <<'INI'
[model]
name = ch2d
[grid]
nx = 24
ny = 20
[time]
t_end = 1
output_every = 0.25
[ensemble]
members = 9
seed = 4
chunk = 4
[output]
archive = snapshots
snapshot_every = 0.25
[analysis]
structure_factor = true
kmeans = 2
INI
"$cohort" run ch2d.ini --quiet --backend "$backend" -o ch2d.nc || bad "the ch2d run"
"$cohort" analyze ch2d.nc --quiet --backend "$backend" -o ch2d-analysis.nc &&
    "$compare" ch2d.nc ch2d-analysis.nc t k structure_factor k1 label centroid kmeans_inertia &&
    ok || bad "analyze of a ch2d archive"

# the length fit's bootstrap again from the blocks the run stored (no archive needed): with the
# run's B, the run's own values
printf '[model]\nname = ch1d\n[grid]\nn = 32\n[time]\nt_end = 2\noutput_every = 0.5\n' > boot.ini
"$cohort" run boot.ini --quiet --backend "$backend" --set ensemble.members=2100 \
    --set output.archive=none -o boot.nc || bad "the bootstrap's run"
fit_lines() { "$cohort" info "$1" | grep -E "^ +(ell_vs_log_t|bootstrap_)"; }
if "$cohort" analyze boot.nc --quiet --backend "$backend" --bootstrap 1000 -o boot-again.nc &&
    [ "$(fit_lines boot.nc)" = "$(fit_lines boot-again.nc)" ] &&
    [ "$(fit_lines boot.nc | grep -c _se)" -eq 4 ]; then
    ok
else
    bad "--bootstrap 1000 differs from the run's: $(fit_lines boot-again.nc | tr '\n' ';')"
fi

# expect_bad PATTERN ARGS...: exit 2, a message matching PATTERN, no bad-out.nc (or .partial)
expect_bad() {
    pattern=$1; shift
    expect_refusal bad-out.nc "$pattern" "$cohort" analyze "$@" --quiet --backend "$backend" \
        -o bad-out.nc
}
expect_bad "missing.nc: cannot open it as NetCDF" missing.nc
printf 'not netcdf' > foreign.nc
expect_bad "foreign.nc: cannot open it as NetCDF" foreign.nc
head -c 20000 run.nc > truncated.nc
expect_bad "truncated.nc: (cannot open it as NetCDF|reading C)" truncated.nc
# a NetCDF file that is cohort's but holds no archive (an analysis file)
expect_bad "run.analysis.nc has no archive.*output.archive = final or snapshots" run.analysis.nc
"$cohort" run forced.ini --quiet --backend "$backend" --set output.archive=none -o plain.nc
expect_bad "plain.nc has no archive" plain.nc
"$cohort" run forced.ini --quiet --backend "$backend" --set analysis.kmeans=0 \
    --set analysis.structure_factor=false -o none.nc
expect_bad "nothing to do: the run asked for no analysis" none.nc
expect_bad "--kmeans 'abc': expected clusters in \[1, 16\]" run.nc --kmeans abc
"$cohort" run forced.ini --quiet --backend "$backend" --set sweep.replicates=1 -o few.nc
expect_bad "--kmeans 10: more clusters than the 9 members of few.nc" few.nc --kmeans 10
expect_bad "--from 7: run.nc has no archived time at or after it \(the last is 0.5\)" run.nc \
    --structure-factor --from 7
expect_bad "--from '-1': expected a time >= 0" run.nc --from -1
expect_bad "unknown option '--frob'" run.nc --frob
"$cohort" run boot.ini --quiet --backend "$backend" --set ensemble.members=700 \
    --set analysis.kmeans=auto -o auto.nc || bad "the auto run"
"$cohort" analyze auto.nc --quiet --backend "$backend" --kmeans auto -o auto-again.nc &&
    "$compare" auto.nc auto-again.nc label centroid kmeans_silhouette kmeans_silhouette_by_k \
        kmeans_candidate_k silhouette_member kmeans_restart_agreement && ok ||
    bad "--kmeans auto differs from the run's analysis.kmeans = auto"
expect_bad "--bootstrap '1': expected resamples in \[2, 100000\]" boot.nc --bootstrap 1
"$cohort" run boot.ini --quiet --backend "$backend" --set ensemble.members=2100 \
    --members 0:1024 -o boot-part.nc || bad "the bootstrap's part"
expect_bad "boot-part.nc has no ell_block_moments\(t = 5, unit = 525, moment = 3\)" boot-part.nc \
    --bootstrap 100
printf '[model]\nname = mcf2d\n[grid]\nnx = 8\nny = 8\n[time]\nt_end = 0.01\n' > flow.ini
"$cohort" run flow.ini --quiet --backend "$backend" -o flow.nc || bad "the mcf2d run"
expect_bad "--bootstrap: flow.nc's model mcf2d fits no coarsening law" flow.nc --bootstrap 100
msg=$("$cohort" analyze run.nc --quiet --backend "$backend" -o run.nc 2>&1); status=$?
[ $status -eq 2 ] && printf '%s' "$msg" | grep -q "that is the input" && ok || bad "-o IN: $msg"
# foreign and wrongly shaped NetCDF, where ncgen is at hand
if command -v ncgen > /dev/null && command -v ncdump > /dev/null; then
    printf 'netcdf f { dimensions: x = 4 ; variables: double C(x) ; }\n' > f.cdl
    ncgen -4 -o netcdf-foreign.nc f.cdl
    expect_bad "netcdf-foreign.nc: not a cohort file" netcdf-foreign.nc
    ncdump -h final.nc | sed 's/\bx = 32 ;/x = 16 ;/' > shape.cdl
    ncgen -4 -o shape.nc shape.cdl
    expect_bad "shape.nc: C has the wrong shape: dimension 1 is x = 16, expected x = 32" shape.nc
else
    echo "ncgen/ncdump not found: foreign-NetCDF cases skipped"
fi
[ "$(checksum run.nc)" = "$before" ] && ok || bad "analyze modified its input"

test_summary
