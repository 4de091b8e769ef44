#!/bin/sh
# Durable runs (issue 15): a run killed with SIGKILL at pseudo-random instants (several per case,
# some inside a checkpoint's write, with output.checkpoint_every = 0 so that one is written at
# every record and chunk) and resumed with --resume until it finishes gives the uninterrupted
# run's file bit for bit in every variable (compare_nc); SIGTERM and SIGINT stop a run cleanly
# (exit 143 and 130, "Resume with:" on stderr, OUT.partial and OUT.checkpoint kept); a one-chunk
# run's partial file holds the records completed before a kill; a changed key or a damaged
# checkpoint is refused; a write that fails for want of space stops with exit 1, naming the file,
# and resumes once there is space.
# Cases: ch1d over several chunks with snapshots, the structure factor and k-means; ch2d (two
# time levels) in one chunk; mcf2d (adaptive: the integrator's per-member state) with its exact
# errors; ks1d (the swept stepper).
# Usage: test_resume.sh PATH_TO_COHORT PATH_TO_COMPARE_NC BACKEND WORKDIR
cohort=${1:?cohort} compare=${2:?compare_nc} backend=${3:?backend} dir=${4:?workdir}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_needs_backend "$cohort" "$backend"
test_workdir "$dir"

cat > ch1d.ini <<'INI'
[model]
name = ch1d
[grid]
n = 128
length = 2*pi
[time]
t_end = 12
output_every = 0.5
[ensemble]
members = 700
chunk = 160
[output]
archive = snapshots
snapshot_every = 3
checkpoint_every = 0
[analysis]
structure_factor = true
kmeans = 3
INI
cat > ch2d.ini <<'INI'
[model]
name = ch2d
[grid]
nx = 32
ny = 32
length = 2*pi
[time]
t_end = 3
output_every = 0.1
[ensemble]
members = 48
[output]
checkpoint_every = 0
INI
cat > mcf2d.ini <<'INI'
[model]
name = mcf2d
[grid]
nx = 32
ny = 32
origin = -4
length = 8
[time]
t_end = 0.1
output_every = 0.005
tolerance = 1e-9
[initial]
kind = manufactured
[sweep]
model.zeta_sigma = 0.5:2:24
[output]
checkpoint_every = 0
INI
cat > ks1d.ini <<'INI'
[model]
name = ks1d
[grid]
n = 512
length = 256
[time]
dt = 0.005
t_end = 60
output_every = 2
[initial]
kind = cosine
amplitude = 2
mode = 19
[ensemble]
members = 24
[output]
checkpoint_every = 0
INI

# pseudo-random delays in (lo, hi) seconds, the k-th of a fixed sequence
delay() { awk -v k="$1" -v lo="$2" -v hi="$3" 'BEGIN { srand(1234 + k); for (i = 0; i < 3; ++i) x = rand(); printf "%.2f", lo + (hi - lo) * x }'; }

run_case() {
    name=$1
    # on a device the swept KS run is over before a kill can find it: a longer one there
    extra=""
    [ "$backend" = cuda ] && [ "$name" = ks1d ] && extra="--set time.t_end=2000 --set ensemble.members=512"
    start=$(date +%s.%N)
    "$cohort" run "$name.ini" --backend "$backend" --quiet -o "$name-full.nc" $extra ||
        { bad "$name: the uninterrupted run"; return; }
    seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    kills=0 resumes=0 attempt=0 resume=""
    while :; do
        attempt=$((attempt + 1))
        [ "$resume" = --resume ] && resumes=$((resumes + 1))
        "$cohort" run "$name.ini" --backend "$backend" --quiet -o "$name.nc" $extra $resume \
            2> "$name.err" &
        pid=$!
        # until a run has resumed, the kill comes soon after the first checkpoint (so that at
        # least one run resumes, however fast or loaded the machine), then at instants spread
        # over the run
        if [ $resumes -eq 0 ]; then
            i=0
            while [ ! -e "$name.nc.checkpoint" ] && [ $i -lt 3000 ] && kill -0 $pid 2> /dev/null; do
                sleep 0.01; i=$((i + 1))
            done
            [ $attempt -eq 1 ] &&
                sleep "$(delay "$attempt$name" 0 "$(awk -v s="$seconds" 'BEGIN { print 0.2 * s }')")"
            kill -9 $pid 2> /dev/null
        elif [ $attempt -le 6 ]; then
            sleep "$(delay "$attempt$name" "$(awk -v s="$seconds" 'BEGIN { print 0.05 * s }')" \
                "$(awk -v s="$seconds" 'BEGIN { print 0.7 * s }')")"
            kill -9 $pid 2> /dev/null
        fi
        wait $pid
        status=$?
        # a run that ended before its kill, with none resumed yet, proves nothing: again
        if [ $status -eq 0 ] && [ $resumes -eq 0 ] && [ $attempt -le 6 ]; then
            rm -f "$name.nc" "$name.nc.checkpoint"*; resume=""; continue
        fi
        if [ $status -eq 0 ]; then break; fi
        if [ $status -ne 137 ]; then bad "$name: attempt $attempt exited $status: $(cat "$name.err")"; return; fi
        # a kill that came after the run had finished (its file made, its checkpoint removed)
        # counts as the run ending; the file would otherwise make the next --resume refuse, as it
        # must, a checkpoint of another run beside a finished file
        if [ -e "$name.nc" ] && [ ! -e "$name.nc.checkpoint" ] && [ ! -e "$name.nc.partial" ]; then
            [ $resumes -ge 1 ] && break
            rm -f "$name.nc"; resume=""; continue
        fi
        kills=$((kills + 1))
        # resume where a checkpoint exists; a kill before the first one starts over
        if [ -e "$name.nc.checkpoint" ]; then resume=--resume; else resume="--overwrite"; rm -f "$name.nc.partial"; fi
        [ $attempt -gt 12 ] && { bad "$name: no end after $attempt attempts"; return; }
    done
    [ ! -e "$name.nc.checkpoint" ] && [ ! -e "$name.nc.partial" ] || bad "$name: checkpoint or partial file left after success"
    if "$compare" --attributes "$name-full.nc" "$name.nc" > "$name.cmp"; then
        ok
        echo "$name ($backend): $kills kills, $resumes resumes, the uninterrupted run's bits ($(cat "$name.cmp"))"
    else
        bad "$name: the resumed file differs after $kills kills: $(cat "$name.cmp")"
    fi
    [ $resumes -ge 1 ] || bad "$name: no run resumed from a checkpoint (too short for the test)"
}

for name in ch1d ch2d mcf2d ks1d; do run_case $name; done

# waits (up to a minute) until FILE exists: the run is in its loop, its signal handlers set
wait_for() { i=0; while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; sleep 0.2; }

# SIGTERM and SIGINT: a clean stop once the run has checkpointed, then --resume to the same bits
# (ch2d: one chunk, so also the records written as they complete)
t_end=$([ "$backend" = cuda ] && echo 300 || echo 30)
long="--set time.t_end=$t_end --set output.checkpoint_every=0"
"$cohort" run ch2d.ini --backend "$backend" --quiet -o long-full.nc $long || bad "the long run"
for sig in TERM INT; do
    rm -f stop.nc stop.nc.partial stop.nc.checkpoint
    "$cohort" run ch2d.ini --backend "$backend" --quiet -o stop.nc $long 2> stop.err &
    pid=$!
    wait_for stop.nc.checkpoint
    kill -$sig $pid
    wait $pid
    status=$?
    want=$([ $sig = TERM ] && echo 143 || echo 130)
    if [ $status -eq "$want" ] && grep -q "Resume with:" stop.err && [ -e stop.nc.partial ] &&
        [ -e stop.nc.checkpoint ]; then
        ok
    else
        bad "SIG$sig: exit $status (want $want), $(cat stop.err)"
    fi
    # the records completed before the signal are in the partial file
    records=$("$cohort" info stop.nc.partial 2> /dev/null | sed -n 's/.* \([0-9][0-9]*\) records in t.*/\1/p')
    if [ "${records:-0}" -ge 1 ]; then ok; else bad "SIG$sig: the partial file has '${records}' records"; fi
    # a changed key is refused, naming it, and leaves the interrupted run as it was; so is a
    # damaged checkpoint
    expect_refusal none.nc "model\.gamma" "$cohort" run ch2d.ini --backend "$backend" --quiet \
        -o stop.nc $long --set model.gamma=0.02 --resume
    cp stop.nc.checkpoint saved.checkpoint
    printf 'X' | dd of=stop.nc.checkpoint bs=1 seek=200 conv=notrunc 2> /dev/null
    expect_refusal none.nc "damaged" "$cohort" run ch2d.ini --backend "$backend" --quiet \
        -o stop.nc $long --resume
    mv saved.checkpoint stop.nc.checkpoint
    # a fresh run over an interrupted one is refused: it would lose the checkpoint
    expect_refusal none.nc "stop\.nc\.checkpoint exists.*--resume.*--overwrite" "$cohort" run \
        ch2d.ini --backend "$backend" --quiet -o stop.nc $long
    cp -p stop.nc.checkpoint stale.checkpoint
    if "$cohort" run ch2d.ini --backend "$backend" --quiet -o stop.nc $long --resume &&
        "$compare" --attributes long-full.nc stop.nc > /dev/null; then
        ok
    else
        bad "SIG$sig: the resumed run differs from the uninterrupted one"
    fi
    # the history names the interrupted run and the resuming one
    lines=$("$cohort" info stop.nc | grep -c "cohort run ch2d.ini")
    [ "$lines" -eq 2 ] && ok || bad "SIG$sig: the history has $lines lines of cohort run, not 2"
done

# a stop after the file's final rename, before its checkpoint's removal: --resume finds the file
# complete (the file and the checkpoint carry the same run id), removes the stale checkpoint,
# leaves the file as it was and exits 0, however new the checkpoint looks
cp -p stop.nc done-before.nc
cp -p stale.checkpoint stop.nc.checkpoint
if "$cohort" run ch2d.ini --backend "$backend" -o stop.nc $long --resume 2> done.err &&
    grep -q "is complete" done.err && [ ! -e stop.nc.checkpoint ] && cmp -s stop.nc done-before.nc; then
    ok
else
    bad "--resume over a complete file and its stale checkpoint: $(cat done.err)"
fi
cp stale.checkpoint stop.nc.checkpoint
touch stop.nc.checkpoint
if "$cohort" run ch2d.ini --backend "$backend" -o stop.nc $long --resume 2> done.err &&
    grep -q "is complete" done.err && [ ! -e stop.nc.checkpoint ] && cmp -s stop.nc done-before.nc; then
    ok
else
    bad "--resume over a complete file and its touched checkpoint: $(cat done.err)"
fi

# starting over with --overwrite removes the interrupted run's checkpoint and its copy
rm -f over.nc*
"$cohort" run ch2d.ini --backend "$backend" --quiet -o over.nc $long &
pid=$!
wait_for over.nc.checkpoint
kill -TERM $pid
wait $pid
# another run's checkpoint beside a finished file: --resume refuses, and removes nothing
cp -p over.nc.checkpoint stop.nc.checkpoint
expect_refusal none.nc "stop\.nc exists and is not the run that stop\.nc\.checkpoint continues" \
    "$cohort" run ch2d.ini --backend "$backend" --quiet -o stop.nc $long --resume
cmp -s stop.nc done-before.nc && cmp -s stop.nc.checkpoint over.nc.checkpoint && ok ||
    bad "the refused --resume changed stop.nc or its checkpoint"
rm -f stop.nc.checkpoint
"$cohort" run ch2d.ini --backend "$backend" --quiet -o over.nc --overwrite ||
    bad "--overwrite over an interrupted run"
left=$(ls over.nc.* 2> /dev/null | tr '\n' ' ')
[ -z "$left" ] && [ -e over.nc ] && ok || bad "--overwrite left $left"


# a kill with SIGKILL leaves the records so far readable
rm -f rec.nc rec.nc.partial rec.nc.checkpoint
"$cohort" run ch2d.ini --backend "$backend" --quiet -o rec.nc $long &
pid=$!
wait_for rec.nc.checkpoint
kill -9 $pid
wait $pid
records=$("$cohort" info rec.nc.partial 2> /dev/null | sed -n 's/.* \([0-9][0-9]*\) records in t.*/\1/p')
if [ "${records:-0}" -ge 1 ]; then ok; else bad "the killed run's partial file: '${records}' records"; fi

# a full disk (here a file-size limit, which the test can set without privileges; 3,000 KB lies
# above the largest checkpoint, about 2.6 MB, and below the finished file, 3.5 MB): exit 1 with
# the file named, the last checkpoint intact, and --resume completing once space is back
rm -f full.nc full.nc.partial full.nc.checkpoint*
(ulimit -f 3000; "$cohort" run ch1d.ini --backend "$backend" --quiet -o full.nc 2> full.err)
status=$?
if [ $status -eq 1 ] && grep -q "full.nc.partial.*File too large" full.err &&
    [ -e full.nc.checkpoint ] && [ ! -e full.nc ]; then
    ok
else
    bad "file-size limit: exit $status, $(cat full.err)"
fi
if "$cohort" run ch1d.ini --backend "$backend" --quiet -o full.nc --resume &&
    "$compare" ch1d-full.nc full.nc > /dev/null && [ ! -e full.nc.checkpoint ]; then
    ok
else
    bad "file-size limit: --resume did not complete to the uninterrupted run's bits"
fi

# no checkpoint to resume from
expect_refusal never.nc "never\.nc\.checkpoint" "$cohort" run ch2d.ini --backend "$backend" --quiet \
    -o never.nc --resume
test_summary
