#!/bin/sh
# Prompt signals (issue 51): SIGTERM, SIGINT and SIGUSR1 stop a run of 2^20 members (ch1d, 64
# points, its final fields archived) within STOP_SECONDS, wherever in the run they come: the
# chunks' working memory is bounded on the cpu backend, and the checkpoint of a stop links the
# partial file rather than copying it. The last stop's checkpoint resumes to the bits of the run
# left alone. Labelled long: a release build's figure (docs/running.md, "Signals").
# Usage: test_signal_stop.sh PATH_TO_COHORT PATH_TO_COMPARE_NC WORKDIR
cohort=${1:?cohort} compare=${2:?compare_nc} dir=${3:?workdir}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_workdir "$dir"
export OMP_NUM_THREADS=2
STOP_SECONDS=${STOP_SECONDS:-5}
run() { "$cohort" run --backend cpu --quiet "$@"; }

cat > many.ini << 'INI'
[model]
name = ch1d
[grid]
n = 64
length = 2*pi
[time]
t_end = 0.05
output_every = 0.025
[ensemble]
members = 1048576
[output]
archive = final
INI
for at in TERM:143:1 INT:130:3 USR1:138:5 TERM:143:7; do
    sig=${at%%:*} want=${at#*:} after=${at##*:}
    want=${want%:*}
    rm -f many.nc*
    "$cohort" run --backend cpu --quiet many.ini -o many.nc 2> many.err &
    pid=$!
    sleep "$after"
    kill -"$sig" $pid 2> /dev/null
    t0=$(date +%s%N)
    wait $pid
    status=$?
    took=$((($(date +%s%N) - t0) / 1000000))
    echo "SIG$sig at $after s: exit $status after $took ms"
    [ $status -eq "$want" ] && [ $took -le $((STOP_SECONDS * 1000)) ] && ok ||
        bad "SIG$sig at $after s: exit $status (want $want) after $took ms (at most $STOP_SECONDS s)"
done
# the last stop, midway, kept a checkpoint, which resumes to the bits of the run left alone
[ -s many.nc.checkpoint ] && run many.ini -o many.nc --resume && run many.ini -o whole.nc &&
    "$compare" whole.nc many.nc > /dev/null && ok || bad "the signalled run's resume"

test_summary
