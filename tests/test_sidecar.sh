#!/bin/sh
# The files beside an output are the run's alone (issue 51), on the cpu backend:
#  1. an interrupted run's files refuse every command that would create its output (analyze,
#     merge, run), which change nothing; the run then resumes to the uninterrupted run's bits;
#  2. no command's -o may name a file of another output (s.nc.partial, .checkpoint, .lock, a
#     checkpoint's copy, an MPI part), while that output's run is live or not;
#  3. links planted beside an output (OUT.lock, OUT.partial, OUT.checkpoint, a checkpoint's copy,
#     the temporary names of earlier versions) are refused or never followed: the file they
#     point to is never written; -o onto a link needs --overwrite, which replaces the link;
#  4. --resume and cohort init follow no link planted at the names they used to write;
#  5. cohort merge refuses a part whose C has the wrong shape, a part without C and a part whose
#     member coordinate is not the range its attributes claim, naming the part and the variable,
#     and leaves nothing;
#  6. a configuration that is not a regular text file of at most 16 MiB is refused before it is
#     read (a NUL byte, /dev/zero, a pipe, 17 MiB);
#  7. (test_signal_stop.sh: SIGTERM, SIGINT and SIGUSR1 stop a run of millions of members
#     within seconds);
#  8. --resume on a finished run of the same configuration exits 0 and changes nothing (a
#     requeued job); of another configuration it is refused; a run that fails before its first
#     checkpoint says that its work is lost.
# Usage: test_sidecar.sh PATH_TO_COHORT PATH_TO_COMPARE_NC WORKDIR PYTHON
cohort=${1:?cohort} compare=${2:?compare_nc} dir=${3:?workdir} python=${4:?python}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_workdir "$dir"
export OMP_NUM_THREADS=2

cat > small.ini << 'INI'
[model]
name = ch1d
[grid]
n = 32
length = 2*pi
[time]
t_end = 0.5
output_every = 0.25
[ensemble]
members = 2048
[output]
archive = final
INI
# long enough to be stopped; a checkpoint at every record
cat > long.ini << 'INI'
[model]
name = ch1d
[grid]
n = 128
length = 2*pi
[time]
t_end = 8
output_every = 0.5
[ensemble]
members = 512
chunk = 128
[output]
archive = final
checkpoint_every = 0
INI
# (in the background, "$cohort" itself: $! of a function is its subshell's, not cohort's)
run() { "$cohort" run --backend cpu --quiet "$@"; }
# refused PATTERN COMMAND...: COMMAND exits 2 with a message matching PATTERN
refused() {
    pattern=$1; shift
    msg=$("$@" 2>&1); status=$?
    if [ $status -eq 2 ] && printf '%s' "$msg" | grep -Eq -- "$pattern"; then
        ok
    else
        bad "$* -> status $status, message: $msg"
    fi
}
# sums FILE...: their checksums (a missing file says so)
sums() { for f in "$@"; do cksum "$f" 2> /dev/null || echo "no $f"; done; }
# interrupt OUT: a run of long.ini to OUT stopped by SIGINT after its first checkpoint
interrupt() {
    "$cohort" run --backend cpu --quiet long.ini -o "$1" 2> /dev/null &
    pid=$!
    wait_for "$1.checkpoint"
    kill -INT $pid
    wait $pid
}
echo victim > victim
victim_intact() { [ "$(cat victim)" = victim ] && ok || bad "$1: the link's target was written"; }

run long.ini -o ref.nc || bad "the reference run"
run small.ini --members 0:1024 -o p0.nc && run small.ini --members 1024:2048 -o p1.nc ||
    bad "the parts"
run small.ini -o other.nc || bad "another run"

# 1. an interrupted run's files refuse analyze, merge and run, which change nothing
interrupt s.nc
before=$(sums s.nc.partial s.nc.checkpoint)
refused "s\.nc\.checkpoint exists: an interrupted run of s\.nc.*--resume.*--overwrite" \
    "$cohort" analyze other.nc -o s.nc --structure-factor --backend cpu --quiet
refused "s\.nc\.checkpoint exists" "$cohort" merge p0.nc p1.nc -o s.nc --quiet
refused "s\.nc\.checkpoint exists" run small.ini -o s.nc
[ "$(sums s.nc.partial s.nc.checkpoint)" = "$before" ] && [ ! -e s.nc ] && ok ||
    bad "a refused command changed the interrupted run's files"
run long.ini -o s.nc --resume && "$compare" ref.nc s.nc > s.cmp && ok ||
    bad "the protected run did not resume to the uninterrupted bits: $(cat s.cmp)"

# 2. -o may not name another output's file, while its run is live or not
interrupt t.nc
"$cohort" run --backend cpu --quiet long.ini -o t.nc --resume 2> /dev/null &
live=$!
wait_for t.nc.lock
kill -STOP $live
before=$(sums t.nc.partial t.nc.checkpoint)
refused "t\.nc\.partial: that name is the partial file of the output t\.nc" \
    run small.ini -o t.nc.partial --overwrite
refused "the checkpoint of the output t\.nc" "$cohort" analyze other.nc -o t.nc.checkpoint \
    --structure-factor --backend cpu --quiet
refused "the lock of the output t\.nc" "$cohort" merge p0.nc p1.nc -o t.nc.lock --quiet
refused "copy of the partial file of the output t\.nc" run small.ini -o t.nc.checkpoint.7.nc
refused "a part of a run over several processes of the output t\.nc" \
    run small.ini -o t.nc.part-0-1024.nc
refused "of the output t\.nc" "$cohort" init ch1d -o t.nc.ranks
[ "$(sums t.nc.partial t.nc.checkpoint)" = "$before" ] && ok ||
    bad "a refused -o changed the live run's files"
kill -CONT $live
wait $live && "$compare" ref.nc t.nc > t.cmp && ok || bad "the live run's file: $(cat t.cmp)"

# 3. links planted beside an output are refused, never followed
for name in lock partial checkpoint; do
    rm -f l.nc*
    ln -s victim "l.nc.$name"
    refused "l\.nc\.$name is a symbolic link" run small.ini -o l.nc
    victim_intact "l.nc.$name"
    [ -L "l.nc.$name" ] && [ ! -e l.nc ] && ok || bad "l.nc.$name: the link went, or l.nc came"
done
rm -f l.nc*
# the fixed temporary names of earlier versions are no longer written
for name in checkpoint.tmp checkpoint.1.nc.tmp checkpoint.2.nc.tmp partial.tmp ids ids.partial; do
    ln -s victim "l.nc.$name"
done
run long.ini -o l.nc || bad "a run beside planted links"
victim_intact "the old temporary names"
[ -f l.nc ] && [ ! -L l.nc ] && "$compare" ref.nc l.nc > /dev/null && ok ||
    bad "l.nc is not the run's own file"
# a link at the name of a checkpoint's next copy: the run fails there, the target untouched
rm -f g.nc*
ln -s victim g.nc.checkpoint.1.nc
msg=$(run long.ini -o g.nc 2>&1) && bad "a run over a planted copy link succeeded" ||
    { printf '%s' "$msg" | grep -q "g\.nc\.checkpoint\.1\.nc.*symbolic link" && ok ||
          bad "the planted copy link: $msg"; }
victim_intact "g.nc.checkpoint.1.nc"
# -o onto a link: refused without --overwrite; with it the link is replaced, not followed
ln -s victim o.nc
refused "o\.nc: the file exists; pass --overwrite" run small.ini -o o.nc
run small.ini -o o.nc --overwrite && [ -f o.nc ] && [ ! -L o.nc ] && ok ||
    bad "--overwrite onto a link"
victim_intact "-o onto a link"

# 4. --resume and cohort init follow no link at the names they used to write
interrupt r.nc
cp r.nc.checkpoint r-stale.checkpoint
for name in partial.tmp ids ids.partial checkpoint.tmp; do ln -s victim "r.nc.$name"; done
run long.ini -o r.nc --resume && [ -f r.nc ] && [ ! -L r.nc ] &&
    "$compare" ref.nc r.nc > /dev/null && ok || bad "--resume beside planted links"
victim_intact "--resume"
ln -s victim new.ini.partial
"$cohort" init ch1d -o new.ini && [ -f new.ini ] && [ ! -L new.ini ] && ok ||
    bad "cohort init beside a planted link"
victim_intact "cohort init"
ln -s victim linked.ini
refused "linked\.ini: the file exists" "$cohort" init ch1d -o linked.ini
victim_intact "cohort init onto a link"

# 5. cohort merge checks its parts before merging (the damaged parts are made with netCDF4, which
# the set-up installs; a machine without it, such as a GPU host, says so and leaves this out)
if "$python" -c 'import netCDF4' 2> /dev/null; then
    for damage in narrow-C no-C member arithmetic; do
        "$python" "$here/damage_part.py" $damage p1.nc "bad-$damage.nc" || bad "damage_part $damage"
    done
    refused "bad-narrow-C\.nc: C has member = 1024, x2 = 17 where the configuration implies member = 1024, x = 32" \
        "$cohort" merge p0.nc bad-narrow-C.nc -o m.nc --quiet
    refused "bad-no-C\.nc: there is no variable C" "$cohort" merge p0.nc bad-no-C.nc -o m.nc --quiet
    refused "bad-member\.nc: its variable member holds -5 at index 0, where members_first = 1024" \
        "$cohort" merge p0.nc bad-member.nc -o m.nc --quiet
    refused "bad-arithmetic\.nc was computed in another arithmetic \(generation 1" \
        "$cohort" merge p0.nc bad-arithmetic.nc -o m.nc --quiet
    left=$(ls m.nc* 2> /dev/null)
    [ -z "$left" ] && ok || bad "a refused merge left $left"
else
    echo "skipped the damaged parts: $python has no netCDF4"
fi
"$cohort" merge p0.nc p1.nc -o m.nc --quiet && "$compare" other.nc m.nc > /dev/null && ok ||
    bad "the undamaged parts no longer merge to the whole run"

# 6. a configuration is a regular text file of at most 16 MiB
printf '[model]\nname = ch1d\n\000[ensemble]\nmembers = 7\n' > nul.ini
refused "nul\.ini:3: a NUL byte" run nul.ini -o n.nc
start=$(date +%s)
refused "/dev/zero: the configuration is not a regular file" run /dev/zero -o n.nc
mkfifo pipe.ini
refused "pipe\.ini: the configuration is not a regular file" timeout 10 "$cohort" run pipe.ini -o n.nc
[ $(($(date +%s) - start)) -le 5 ] && ok || bad "refusing /dev/zero and a pipe took over 5 s"
head -c 17825792 /dev/zero | tr '\000' '#' > huge.ini
refused "huge\.ini: the configuration has 17825792 bytes; at most 16777216" run huge.ini -o n.nc
[ ! -e n.nc ] && ok || bad "a refused configuration wrote n.nc"

# 8. a requeued --resume: a finished run of this configuration is left as it is, exit 0
cp -p other.nc other-before.nc
msg=$("$cohort" run --backend cpu small.ini -o other.nc --resume --set output.checkpoint_every=60 2>&1) &&
    printf '%s' "$msg" | grep -q "other\.nc is complete: this configuration's run" &&
    cmp -s other.nc other-before.nc && ok || bad "--resume on a finished run: $msg"
refused "other\.nc exists and holds another run \(model\.gamma differs\)" \
    run small.ini -o other.nc --resume --set model.gamma=0.02
cmp -s other.nc other-before.nc && ok || bad "the refused --resume changed other.nc"
# the same run id in the file and a stale checkpoint, but another configuration: refused
cp r.nc r-before.nc
cp r-stale.checkpoint r.nc.checkpoint
refused "r\.nc is the finished run that r\.nc\.checkpoint was taken of, and this command differs from it \(model\.gamma\)" \
    run long.ini -o r.nc --resume --set model.gamma=0.02
cmp -s r.nc r-before.nc && cmp -s r.nc.checkpoint r-stale.checkpoint && ok ||
    bad "the refused --resume changed r.nc or its checkpoint"
# a run killed before its first checkpoint: --resume says that its work is lost, a plain run
# refuses its orphan partial file, and --overwrite discards it
"$cohort" run --backend cpu --quiet long.ini -o o2.nc --set output.checkpoint_every=600 &
pid=$!
wait_for o2.nc.partial
kill -9 $pid
wait $pid 2> /dev/null
if [ -e o2.nc ]; then
    bad "the run to o2.nc ended before it was killed"
else
    refused "no checkpoint of o2\.nc .*its work is lost; run it again without --resume, with --overwrite" \
        run long.ini -o o2.nc --resume
    refused "o2\.nc\.partial exists without a checkpoint" run long.ini -o o2.nc
    run long.ini -o o2.nc --overwrite 2> /dev/null && "$compare" ref.nc o2.nc > /dev/null && ok ||
        bad "--overwrite over an orphan partial file"
fi
# a failure before the first checkpoint says that the work is lost
msg=$(ulimit -f 64 && run long.ini -o lost.nc --set output.checkpoint_every=600 2>&1)
status=$?
[ $status -eq 1 ] && printf '%s' "$msg" | grep -q "nothing of this run was kept.*checkpoint_every = 600 s.*its work is lost" &&
    [ ! -e lost.nc ] && [ ! -e lost.nc.partial ] && ok ||
    bad "a failure before the first checkpoint: status $status, $msg"

test_summary
