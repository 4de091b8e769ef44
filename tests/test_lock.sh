#!/bin/sh
# One writer per output (issue 38). While a run writes s.nc, a second `cohort run` to s.nc (no
# flag, --overwrite, --resume), a `cohort merge -o s.nc` and a `cohort analyze -o s.nc` each exit 2
# at once, naming the first run's pid, and touch nothing: the first run's file is then bit for bit
# the file of the same run left alone. A run killed with SIGKILL leaves its lock behind, and
# --resume on the same host takes it over, saying so, to the uninterrupted run's bits. A lock left
# by another host is refused with that host's name and how to clear it, and is left in place; one
# left by a process of this host that is gone is taken over by a plain run.
# Usage: test_lock.sh PATH_TO_COHORT PATH_TO_COMPARE_NC WORKDIR
cohort=${1:?cohort} compare=${2:?compare_nc} dir=${3:?workdir}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_workdir "$dir"
# the first run is held stopped (SIGSTOP) while the second commands try, so that the test does
# not depend on how fast a machine (or a sanitizer's build) runs it
export OMP_NUM_THREADS=2

cat > long.ini <<'INI'
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
INI
cat > small.ini <<'INI'
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
run() { "$cohort" run --backend cpu "$@"; }

# busy WHAT PID COMMAND...: COMMAND exits 2 within 5 s, naming PID's run as the writer of s.nc,
# while PID (stopped) holds it
busy() {
    what=$1 pid=$2; shift 2
    start=$(date +%s)
    msg=$("$@" 2>&1); status=$?
    took=$(($(date +%s) - start))
    if [ $status -eq 2 ] && [ $took -le 5 ] && kill -0 "$pid" 2> /dev/null &&
        printf '%s' "$msg" | grep -q "s.nc is being written by cohort run pid $pid on " &&
        ! printf '%s' "$msg" | grep -Eq '\.c:[0-9]|Permission denied'; then
        ok
    else
        bad "$what while pid $pid writes s.nc: status $status after $took s: $msg"
    fi
}

# parts and a finished file for the second merge and analyze
run small.ini --members 0:1024 -o p1.nc --quiet && run small.ini --members 1024:2048 -o p2.nc \
    --quiet && run small.ini -o small.nc --quiet || bad "the small runs"
run long.ini -o ref.nc --quiet || bad "the reference run"

"$cohort" run long.ini -o s.nc --backend cpu --quiet & # not through run(): $! is cohort's pid
first=$!
if wait_for s.nc.lock; then
    kill -STOP $first # it holds its lock, stopped
    busy "a second run" $first run long.ini -o s.nc --set ensemble.members=256
    busy "--overwrite" $first run long.ini -o s.nc --overwrite --set time.t_end=2
    busy "--resume" $first run long.ini -o s.nc --resume
    busy "cohort merge -o" $first "$cohort" merge p1.nc p2.nc -o s.nc --overwrite
    busy "cohort analyze -o" $first "$cohort" analyze small.nc -o s.nc --overwrite --kmeans 2
    kill -CONT $first
else
    bad "the first run made no s.nc.lock"
fi
wait $first && ok || bad "the first run failed"
"$compare" ref.nc s.nc > s.cmp && ok || bad "s.nc differs from the run left alone: $(cat s.cmp)"
[ ! -e s.nc.lock ] && [ ! -e s.nc.partial ] && ok || bad "the first run left $(ls s.nc.*)"

# a run killed with SIGKILL after its first checkpoint: --resume takes its lock over
every="--set output.checkpoint_every=0"
"$cohort" run long.ini -o k.nc $every --backend cpu --quiet &
killed=$!
wait_for k.nc.checkpoint
kill -STOP $killed # at once, well before its end, then killed
kill -9 $killed
wait $killed 2> /dev/null
[ -s k.nc.lock ] && ok || bad "the killed run left no k.nc.lock"
msg=$(run long.ini -o k.nc $every --resume --quiet 2>&1)
if [ $? -eq 0 ] && printf '%s' "$msg" | grep -q "taking over k.nc.lock, left by cohort run pid $killed on .*, which has ended"; then
    ok
else
    bad "--resume after kill -9: $msg"
fi
"$compare" ref.nc k.nc > k.cmp && ok || bad "the resumed k.nc differs: $(cat k.cmp)"
[ ! -e k.nc.lock ] && ok || bad "the resumed run left k.nc.lock"

# a lock another host left: refused, named, kept; nothing created
printf 'cohort output lock 1\nhost node-elsewhere-17\npid 4242\nstarted 1764093780\ncommand cohort run\n' > f.nc.lock
msg=$(run small.ini -o f.nc --overwrite 2>&1)
if [ $? -eq 2 ] && printf '%s' "$msg" | grep -q "cohort run pid 4242 on node-elsewhere-17" &&
    printf '%s' "$msg" | grep -q "remove f.nc.lock" && [ -s f.nc.lock ] && [ ! -e f.nc.partial ] &&
    [ ! -e f.nc ]; then
    ok
else
    bad "a lock of another host: $msg"
fi

# a lock this host left, whose process is gone (the pid of a shell that has ended)
sh -c 'exit 0' &
gone=$!
wait $gone
printf 'cohort output lock 1\nhost %s\npid %s\nstarted 1764093780\ncommand cohort merge\n' \
    "$(hostname)" $gone > g.nc.lock
msg=$(run small.ini -o g.nc 2>&1)
if [ $? -eq 0 ] && printf '%s' "$msg" | grep -q "taking over g.nc.lock, left by cohort merge pid $gone" &&
    [ -e g.nc ] && [ ! -e g.nc.lock ]; then
    ok
else
    bad "a stale lock of this host: $msg"
fi
test_summary
