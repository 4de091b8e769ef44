#!/bin/sh
# Space-filling designs and Sobol indices (issue "designs and sensitivity"): Latin hypercube,
# Sobol and Saltelli points against scipy and the strata; the same members' parameters and bits
# under another chunking, a --members split merged, and (where MPI is built in) 3 ranks; the
# indices of `cohort analyze --sensitivity` against numpy's estimators and diffusion1d's closed
# form; and every wrong [sweep] refused with its key.
# Usage: test_design.sh COHORT COMPARE_NC BACKEND WORKDIR PYTHON [MPIEXEC]
cohort=${1:?cohort} compare=${2:?compare_nc} backend=${3:?backend} dir=${4:?workdir}
python=${5:?python} mpirun=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_needs_backend "$cohort" "$backend"
test_workdir "$dir"

cat > lhs.ini <<'INI'
[model]
name = ch1d
[grid]
n = 32
[time]
t_end = 1
[ensemble]
members = 100
seed = 5
[sweep]
design = lhs
replicates = 2
initial.mean = -0.4:0.4
initial.amplitude = 0.01:0.1:log
INI
run() { "$cohort" run --quiet --backend "$backend" "$@"; }

# Latin hypercube: one point per stratum; the same bits in chunks of 7
run lhs.ini -o lhs.nc || bad "lhs run"
"$python" "$here/check_design.py" lhs.nc
check_python $? "lhs strata"
run lhs.ini --set ensemble.chunk=7 -o lhs7.nc || bad "lhs run in chunks of 7"
"$compare" --attributes lhs.nc lhs7.nc > lhs7.cmp || bad "lhs chunk 7 differs: $(cat lhs7.cmp)"

# Sobol and Saltelli points: scipy's Joe-Kuo points under the file's digital shifts
run lhs.ini --set sweep.design=sobol --set sweep.points=64 -o sobol.nc || bad "sobol run"
"$python" "$here/check_design.py" sobol.nc
check_python $? "sobol points"
run lhs.ini --set sweep.design=saltelli --set sweep.points=16 --set sweep.model.gamma=0.005:0.02 \
    -o saltelli.nc || bad "saltelli run"
"$python" "$here/check_design.py" saltelli.nc
check_python $? "saltelli points"
# a stepper key drawn from a range: said before the run, since each member is then a chunk
# (diffusion1d's alpha: its Crank-Nicolson right-hand side reads it too)
"$cohort" run lhs.ini --backend "$backend" --set model.name=diffusion1d \
    --set sweep.design=saltelli --set sweep.points=4 --set sweep.model.alpha=0.5:1 -o note.nc \
    2> note.err || bad "saltelli run of alpha"
grep -q "note: model.alpha is a key the model's stepper is built from" note.err ||
    bad "no note of the stepper key: $(cat note.err)"
# ch1d's gamma, only in its implicit matrix, is held a member: no note, one chunk
"$cohort" run lhs.ini --backend "$backend" --set sweep.design=saltelli --set sweep.points=4 \
    --set sweep.model.gamma=0.005:0.02 -o gamma.nc 2> gamma.err || bad "saltelli run of gamma"
grep -q "note:" gamma.err && bad "a note for gamma, held a member: $(cat gamma.err)"
grep -q "in 1 chunks" gamma.err || bad "gamma's members not in one chunk: $(cat gamma.err)"
grep -q "pre-flight:.* s factoring the members' matrices" gamma.err ||
    bad "the pre-flight does not count the members' factoring: $(cat gamma.err)"

# each member's own gamma against runs of each gamma alone: ch1d_forced from a cosine (the same
# state for every member index) over a grid of two gammas, member for member, bit for bit
cat > forced.ini <<'INI'
[model]
name = ch1d_forced
gamma = 0.01
[grid]
n = 64
[time]
dt = 0.005
t_end = 1
[initial]
kind = cosine
amplitude = 0.3
[sweep]
model.gamma = 0.01,0.02
model.f0 = 0.5,1.5
initial.mean = 0.1,0.4
INI
for g in 0.01 0.02; do
    sed -e "s/^gamma = 0.01/gamma = $g/" -e "/^model.gamma/d" forced.ini > forced-$g.ini
    run forced-$g.ini -o forced-$g.nc || bad "ch1d_forced at gamma = $g"
done
run forced.ini -o forced.nc || bad "ch1d_forced over two gammas"
"$python" - forced.nc forced-0.01.nc forced-0.02.nc <<'PY'
import sys
try:
    import netCDF4
    import numpy as np
except ImportError:
    sys.exit(77)
both, first, second = (netCDF4.Dataset(p)["C"][...].filled(np.nan) for p in sys.argv[1:])
same = both.shape[0] == 8 and (both[:4].tobytes() == first.tobytes() and
                               both[4:].tobytes() == second.tobytes())
sys.exit(0 if same else 1)
PY
check_python $? "each member's gamma: the runs of each gamma alone, bit for bit"
# ... and, with 200 replicates a point (1,600 members, gamma 0.02 from member 800 on), split
# into parts at member 1,024 and merged: the same bits
reps="--set sweep.replicates=200"
run forced.ini $reps -o forced-r.nc || bad "ch1d_forced of 1,600 members"
run forced.ini $reps --members 0:1024 -o forced-a.nc || bad "ch1d_forced part a"
run forced.ini $reps --members 1024:1600 -o forced-b.nc || bad "ch1d_forced part b"
"$cohort" merge --quiet forced-a.nc forced-b.nc -o forced-merged.nc || bad "merge of forced parts"
"$compare" forced-r.nc forced-merged.nc C ell_mean > forced-merged.cmp ||
    bad "forced parts merged: $(cat forced-merged.cmp)"
# a system too long for a factor a member keeps a stepper a value (and says so): N = 577
"$cohort" run forced.ini --backend "$backend" --set grid.n=577 --set sweep.design=lhs \
    --set ensemble.members=2 --set time.t_end=0.01 --set sweep.model.gamma=0.01:0.02 \
    --set sweep.model.f0=0:1 --set sweep.initial.mean=0:0.5 -o long.nc 2> long.err ||
    bad "N = 577 over gamma: $(cat long.err)"
grep -q "note: model.gamma is a key the model's stepper is built from" long.err ||
    bad "N = 577: no note of the stepper key: $(cat long.err)"

# Sobol indices of diffusion1d's cosine decay: numpy's estimators and the closed form
cat > decay.ini <<'INI'
[model]
name = diffusion1d
[grid]
n = 32
[initial]
kind = cosine
mode = 1
[time]
t_end = 0.2
output_every = 0.05
[sweep]
design = saltelli
points = 4096
initial.amplitude = 0.5:1.5
model.alpha = 0.5:2
[output]
member_series = true
INI
run decay.ini -o decay.nc || bad "saltelli run of diffusion1d"
"$cohort" analyze decay.nc --sensitivity --quiet --backend "$backend" || bad "analyze --sensitivity"
"$python" "$here/check_sensitivity.py" decay.nc decay.analysis.nc --diffusion
check_python $? "Sobol indices against numpy and the closed form"

# from the archive alone (no member series): the final field's variance
run decay.ini --set output.member_series=false -o archived.nc || bad "saltelli run, archive only"
"$cohort" analyze archived.nc --sensitivity --quiet -o archived.analysis.nc ||
    bad "analyze --sensitivity of the archive"
"$python" "$here/check_sensitivity.py" archived.nc archived.analysis.nc
check_python $? "Sobol indices of the final fields against numpy"

# the same members under another chunking, split by --members and merged, and on ranks
run decay.ini --set ensemble.chunk=300 -o chunked.nc || bad "chunked saltelli run"
"$compare" --attributes decay.nc chunked.nc > chunked.cmp || bad "chunk 300 differs: $(cat chunked.cmp)"
run decay.ini --members 0:8192 -o part-a.nc || bad "part a"
run decay.ini --members 8192:16384 -o part-b.nc || bad "part b"
"$cohort" merge --quiet part-a.nc part-b.nc -o merged.nc || bad "merge"
"$compare" --attributes decay.nc merged.nc ell C initial_amplitude model_alpha > merged.cmp ||
    bad "merged parts differ: $(cat merged.cmp)"
if [ -n "$mpirun" ] && ! "$cohort" --version | grep -q "^MPI: not built in"; then
    "$mpirun" --oversubscribe --allow-run-as-root -np 3 "$cohort" run decay.ini --quiet \
        --backend "$backend" -o ranks.nc || bad "saltelli run on 3 ranks"
    "$compare" --attributes decay.nc ranks.nc ell C initial_amplitude model_alpha > ranks.cmp ||
        bad "3 ranks differ: $(cat ranks.cmp)"
fi

# the indices in the run itself (analysis.sensitivity = sobol), streamed as the records arrive:
# the same bits as analyze's from the member series
sobol_vars="sobol_first sobol_total sobol_first_ci95 sobol_total_ci95"
run decay.ini --set analysis.sensitivity=sobol -o inrun.nc || bad "run with analysis.sensitivity"
"$python" "$here/check_sensitivity.py" inrun.nc inrun.nc --diffusion
check_python $? "the run's own Sobol indices against numpy and the closed form"
"$compare" decay.analysis.nc inrun.nc $sobol_vars > inrun.cmp ||
    bad "the run's indices differ from analyze's: $(cat inrun.cmp)"

# lhs.ini's keys as a Saltelli design, its indices streamed with no member series and its
# members clustered: a base point's 4 arms x 3 replicates are 12 members, which chunks of 7 and
# 1,000 and the part boundary at 8,192 cut; the same bits in chunks, parts merged, on ranks and
# across kills and --resume, and no per-member series in the file
stream="--set time.output_every=0.25 --set sweep.design=saltelli --set sweep.points=1024
    --set sweep.replicates=3 --set analysis.sensitivity=sobol --set analysis.kmeans=2"
run lhs.ini $stream -o stream.nc || bad "streamed run"
# the regimes' indices: each cluster's indicator, against numpy's from the labels
run lhs.ini $stream --set output.member_series=true -o series.nc || bad "streamed run with series"
"$python" "$here/check_sensitivity.py" series.nc series.nc
check_python $? "the streamed indices and the regimes' against numpy"
"$compare" stream.nc series.nc $sobol_vars label > series.cmp ||
    bad "the indices differ with the member series kept: $(cat series.cmp)"
"$cohort" info stream.nc | grep -q "sobol_first" && "$python" - stream.nc <<'PY'
import sys
try:
    import netCDF4
except ImportError:
    sys.exit(0)
names = list(netCDF4.Dataset(sys.argv[1])["statistic_name"][...])
sys.exit(0 if names == ["ell", "C_variance", "in_cluster_0", "in_cluster_1"] else 1)
PY
[ $? = 0 ] || bad "the streamed run's statistics are not ell, C_variance and the regimes"
"$cohort" info stream.nc | grep -q "variables.*sobol_first(t, parameter, statistic)" ||
    bad "no sobol_first in the streamed run's file"
"$cohort" info stream.nc | grep -Eq "variables.*(ell|C_variance)\(t, member\)" &&
    bad "the streamed run's file keeps per-member series"
for chunk in 7 1000; do
    run lhs.ini $stream --set ensemble.chunk=$chunk -o stream$chunk.nc || bad "chunks of $chunk"
    "$compare" stream.nc stream$chunk.nc $sobol_vars > stream$chunk.cmp ||
        bad "chunks of $chunk: $(cat stream$chunk.cmp)"
done
run lhs.ini $stream --members 0:8192 --set ensemble.chunk=100 -o spart-a.nc || bad "part a"
run lhs.ini $stream --members 8192:12288 -o spart-b.nc || bad "part b"
"$cohort" merge --quiet spart-a.nc spart-b.nc -o smerged.nc || bad "merge of streamed parts"
"$compare" stream.nc smerged.nc $sobol_vars > smerged.cmp || bad "merged: $(cat smerged.cmp)"
if [ -n "$mpirun" ] && ! "$cohort" --version | grep -q "^MPI: not built in"; then
    "$mpirun" --oversubscribe --allow-run-as-root -np 3 "$cohort" run lhs.ini $stream --quiet \
        --backend "$backend" -o sranks.nc || bad "3 ranks"
    "$compare" stream.nc sranks.nc $sobol_vars > sranks.cmp || bad "3 ranks: $(cat sranks.cmp)"
fi
# killed: 2,048 base points of the same keys and a swept gamma, each member with its own factor,
# in chunks of 7, so that every group of 15 members is cut by chunk boundaries
big="--set sweep.points=2048 --set sweep.model.gamma=0.005:0.02 --set ensemble.chunk=7"
run lhs.ini $stream $big -o big.nc || bad "big run"
resumed=0
for attempt in 1 2 3 4 5 6 7 8; do
    "$cohort" run lhs.ini $stream --quiet --backend "$backend" $big \
        --set output.checkpoint_every=0.2 -o killed.nc $resume &
    pid=$!
    i=0
    while [ ! -e killed.nc.checkpoint ] && [ $i -lt 400 ] && kill -0 $pid 2> /dev/null; do
        sleep 0.01; i=$((i + 1))
    done
    sleep 0.3
    kill -9 $pid 2> /dev/null
    wait $pid 2> /dev/null && break
    resume=--resume resumed=$((resumed + 1))
done
[ -e killed.nc ] || "$cohort" run lhs.ini $stream --quiet --backend "$backend" $big \
    --set output.checkpoint_every=0.2 -o killed.nc --resume || bad "resume after $resumed kills"
echo "killed $resumed times and resumed"
"$compare" big.nc killed.nc $sobol_vars ell_mean label > killed.cmp || bad "resumed: $(cat killed.cmp)"
# a checkpoint without the Sobol sums (as the cohort before their streaming wrote it): --resume
# refuses it, exit 2, and keeps both files
"$cohort" run lhs.ini $stream --quiet --backend "$backend" $big --set output.checkpoint_every=0.2 \
    -o old.nc &
pid=$!
wait_for old.nc.checkpoint
kill -9 $pid 2> /dev/null
wait $pid 2> /dev/null
stripped=$("$python" "$here/strip_checkpoint.py" old.nc.checkpoint sobol.)
[ "${stripped:-0}" -gt 0 ] || bad "no Sobol sums stripped from the checkpoint: $stripped"
msg=$("$cohort" run lhs.ini $stream --quiet --backend "$backend" $big \
    --set output.checkpoint_every=0.2 -o old.nc --resume 2>&1)
status=$?
[ $status = 2 ] && printf '%s' "$msg" | grep -q "did not stream the Sobol indices" &&
    [ -e old.nc.checkpoint ] && [ -e old.nc.partial ] && [ ! -e old.nc ] ||
    bad "a checkpoint without Sobol sums: status $status, $msg"

# wrong designs, each refused with its key and nothing written
expect_refusal bad.nc "sweep.design = 'latin': expected grid, zip, lhs, sobol or saltelli" \
    "$cohort" run lhs.ini --set sweep.design=latin -o bad.nc
expect_refusal bad.nc "sweep.initial.mean = 0:1: a range is for design = lhs" \
    "$cohort" run lhs.ini --set sweep.design=grid --set sweep.initial.mean=0:1 \
    --set sweep.initial.amplitude=0.1,0.2 -o bad.nc
expect_refusal bad.nc "design = lhs draws each member's value from a range" \
    "$cohort" run lhs.ini --set sweep.initial.mean=0,0.5 -o bad.nc
expect_refusal bad.nc "ensemble.members = 100: design = sobol needs a power of two of points.*64 or 128" \
    "$cohort" run lhs.ini --set sweep.design=sobol -o bad.nc
expect_refusal bad.nc "a log range lo:hi:log needs lo > 0" \
    "$cohort" run lhs.ini --set sweep.initial.mean=0:1:log -o bad.nc
expect_refusal bad.nc "a range lo:hi needs numbers lo < hi" \
    "$cohort" run lhs.ini --set sweep.initial.mean=0.5:0.1 -o bad.nc
expect_refusal bad.nc "sweep.points = '0': expected an integer in \[1, 2\^32\]" \
    "$cohort" run lhs.ini --set sweep.points=0 -o bad.nc
expect_refusal bad.nc "analysis.sensitivity = sobol: Sobol indices need the A, B and AB_j members" \
    "$cohort" run lhs.ini --set analysis.sensitivity=sobol -o bad.nc
expect_refusal bad.nc "--sensitivity: spart-a.nc is a part \(members \[0, 8192\) of 12288" \
    "$cohort" analyze spart-a.nc --sensitivity -o bad.nc
expect_refusal bad.nc "--sensitivity: lhs.nc's run has sweep.design = lhs" \
    "$cohort" analyze lhs.nc --sensitivity -o bad.nc
test_summary
