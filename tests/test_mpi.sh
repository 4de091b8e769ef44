#!/bin/sh
# MPI scale-out (issue 16): cohort run under mpirun with 1 to 4 ranks writes the serial run's
# file bit for bit (every variable and the fits: compare_nc --attributes), for a 1D sweep with the
# structure factor and k-means (k = 3, and auto), whose Lloyd iterations the ranks share, each
# over its own members' features (issue 37), and for a ch2d ensemble (1 to 3 ranks); a run
# stopped by SIGUSR1 to its ranks (every rank checkpoints its segment) resumes under another
# number of ranks, and without mpirun, to the same bits; a bad input is refused once, exit 2, on every rank; a failure of one
# rank stops the job with a message naming the rank and its host; while a job writes a file, a
# second job, a resume and a part run on it are refused, and the first job's file is unharmed.
# Usage: test_mpi.sh PATH_TO_COHORT PATH_TO_COMPARE_NC BACKEND WORKDIR MPIRUN
cohort=${1:?cohort} compare=${2:?compare_nc} backend=${3:?backend} dir=${4:?workdir}
mpirun=${5:?mpirun}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_needs_backend "$cohort" "$backend"
"$cohort" --version | grep -q "^MPI: not built in" && { echo "skipped: no MPI in this build"; exit 77; }
test_workdir "$dir"
export OMP_NUM_THREADS=1
# several ranks on few cores (CI has 2), as root where CI is
mpi() { n=$1; shift; "$mpirun" --oversubscribe --allow-run-as-root -np "$n" "$@"; }

cat > sweep.ini <<'INI'
[model]
name = ch1d
[grid]
n = 32
length = 2*pi
[time]
t_end = 2
output_every = 0.25
[sweep]
initial.mean = -0.3:0.3:13
initial.amplitude = 0.05,0.1
design = grid
replicates = 100
[output]
archive = final
[analysis]
structure_factor = true
kmeans = 3
INI
cat > ch2d.ini <<'INI'
[model]
name = ch2d
[grid]
nx = 16
ny = 16
length = 2*pi
[time]
t_end = 0.5
output_every = 0.1
[ensemble]
members = 1100
[output]
archive = final
[analysis]
structure_factor = true
INI

same() { # same SERIAL FILE WHAT
    if "$compare" --attributes "$1" "$2" > "$2.cmp"; then
        ok
        echo "$3: the serial run's bits ($(tail -n 1 "$2.cmp"))"
    else
        bad "$3 differs from the serial run: $(cat "$2.cmp")"
    fi
}

# k-means = auto (k = 2 .. 8, each a k-means over the ranks, the silhouette on rank 0), over 6
# blocks, which the ranks' shares cut at other places of the fixed tree
sed 's/^kmeans = 3$/kmeans = auto/; s/^replicates = 100$/replicates = 200/' sweep.ini > auto.ini

for name in sweep auto ch2d; do
    "$cohort" run $name.ini -o $name-serial.nc --backend "$backend" --quiet || bad "$name serial"
    # 4 ranks (k-means): the sweep's 3 blocks leave rank 0 without a share of the k-means
    for n in 1 2 3 $([ $name = ch2d ] || echo 4); do
        mpi $n "$cohort" run $name.ini -o $name-np$n.nc --backend "$backend" --quiet ||
            bad "$name under $n ranks"
        same $name-serial.nc $name-np$n.nc "$name, $n ranks"
        left=$(ls $name-np$n.nc.* 2> /dev/null | grep -v cmp)
        [ -z "$left" ] && ok || bad "$name, $n ranks: left $left"
    done
done

# what the run reports is the whole run's summary (k-means, the fits), as the serial run reports
# it, not a segment's fit nor the join's lines per part
summary() { grep -E '^(k-means|ell_mean|1/k1|cohort merge)' "$1" | sed 's/, [0-9.]* s$//; s/ over 2 ranks//'; }
"$cohort" run sweep.ini -o summary-serial.nc --backend "$backend" 2> summary-serial.log || bad "summary serial"
mpi 2 "$cohort" run sweep.ini -o summary-np2.nc --backend "$backend" 2> summary-np2.log || bad "summary np2"
if [ "$(summary summary-serial.log)" = "$(summary summary-np2.log)" ] &&
    grep -q "^k-means: .* of 2600 members over 2 ranks," summary-np2.log &&
    tail -n 1 summary-np2.log | grep -q "^wrote summary-np2.nc: 2600 members"; then
    ok
    echo "2 ranks report the serial run's summary: $(summary summary-np2.log | tr '\n' ';')"
else
    bad "2 ranks' summary differs from the serial run's: $(summary summary-np2.log) vs $(summary summary-serial.log)"
fi

# SIGUSR1 to the ranks (as Slurm's --signal sends it; mpirun 4.1.4 forwards it to them, 4.1.6 was
# seen not to), at rank 0's first checkpoint: every rank checkpoints and stops.
# - under 2 ranks, resumed under 3;
# - under 4 ranks, of which one has no segment (the 2,600 members make 3) and waits for the others
#   all along: it must take the signal without dying of it; resumed without mpirun.
# The run is long enough for the signal to find it running (a checkpoint at every record slows
# it too).
t_long=$([ "$backend" = cuda ] && echo 300 || echo 200)
long="--set time.t_end=$t_long --set output.checkpoint_every=0"
"$cohort" run sweep.ini -o long-serial.nc $long --backend "$backend" --quiet || bad "long serial"
for ranks in 2 4; do
    resume=$([ $ranks = 2 ] && echo 3 || echo serial)
    rm -f stop.nc*
    # mpirun itself in the background (a shell function there would be a subshell)
    "$mpirun" --oversubscribe --allow-run-as-root -np $ranks "$cohort" run sweep.ini -o stop.nc \
        $long --backend "$backend" --quiet 2> stop.err &
    pid=$!
    i=0
    while [ ! -e stop.nc.part-0-1024.nc.checkpoint ] && [ $i -lt 2400 ]; do
        sleep 0.05; i=$((i + 1))
    done
    sleep 0.2
    pkill -USR1 -P $pid -x cohort
    wait $pid
    status=$?
    if [ $status -ne 0 ] && grep -q "Resume with (any number of ranks)" stop.err && [ -e stop.nc.ranks ] &&
        ! grep -q "exited on signal" stop.err; then
        ok
    else
        bad "SIGUSR1 under $ranks ranks: exit $status, $(cat stop.err)"
    fi
    if [ $resume = serial ]; then
        "$cohort" run sweep.ini -o stop.nc $long --backend "$backend" --quiet --resume
    else
        mpi $resume "$cohort" run sweep.ini -o stop.nc $long --backend "$backend" --quiet --resume
    fi || bad "resume under $resume"
    same long-serial.nc stop.nc "stopped under $ranks ranks, resumed under $resume"
done

# one writer per output (issue 38): while 2 ranks write lk.nc (held stopped, so that the test
# does not depend on the machine's speed), a second job to lk.nc and a resume of it without mpirun
# each exit 2 with one message naming the writer, and a part run on rank 0's part with one naming
# the output whose file it is (issue 51); the first job's file is then the serial run's
rm -f lk.nc*
"$mpirun" --oversubscribe --allow-run-as-root -np 2 "$cohort" run sweep.ini -o lk.nc \
    --set time.t_end=$t_long --backend "$backend" --quiet 2> lk.err &
pid=$!
i=0
while [ ! -s lk.nc.part-0-1024.nc.lock ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
pkill -STOP -P $pid -x cohort
refused() { # refused WHAT PATTERN COMMAND...
    what=$1 pattern=$2; shift 2
    "$@" > lk.out 2>&1
    status=$?
    count=$(grep -c "$pattern" lk.out)
    if [ $status -eq 2 ] && [ "$count" -eq 1 ] && kill -0 $pid 2> /dev/null; then ok; else
        bad "$what while 2 ranks write lk.nc: exit $status, $count messages: $(cat lk.out)"; fi
}
lk="--set time.t_end=$t_long --backend $backend"
writer="lk.nc is being written by cohort run pid [0-9]* on "
refused "a second job" "$writer" mpi 2 "$cohort" run sweep.ini -o lk.nc $lk
refused "--resume alone" "$writer" "$cohort" run sweep.ini -o lk.nc $lk --resume
refused "a part run" "lk.nc.part-0-1024.nc: that name is a part of a run over several processes of the output lk.nc" \
    "$cohort" run sweep.ini --members 0:1024 -o lk.nc.part-0-1024.nc --overwrite $lk
pkill -CONT -P $pid -x cohort
wait $pid || bad "the first job: $(cat lk.err)"
same long-serial.nc lk.nc "written while others tried"

# a bad input: exit 2, one message
mpi 3 "$cohort" run sweep.ini -o bad.nc --set time.dt=-1 --backend "$backend" > bad.out 2>&1
status=$?
count=$(grep -c "^cohort run: --set time.dt=-1" bad.out)
if [ $status -eq 2 ] && [ "$count" -eq 1 ] && [ ! -e bad.nc ]; then ok; else
    bad "bad input under 3 ranks: exit $status, $count messages: $(cat bad.out)"; fi
mpi 3 "$cohort" run sweep.ini -o sweep-np3.nc --backend "$backend" > exists.out 2>&1
status=$?
count=$(grep -c "the file exists; pass --overwrite" exists.out)
if [ $status -eq 2 ] && [ "$count" -eq 1 ]; then ok; else
    bad "an existing output under 3 ranks: exit $status, $count messages"; fi

# one rank fails (its part's name is taken by a directory): every rank stops, the message names
# the rank and its host
rm -rf fail.nc*
mkdir fail.nc.part-1024-2600.nc
mpi 2 "$cohort" run sweep.ini -o fail.nc --backend "$backend" --quiet > fail.out 2>&1
status=$?
if [ $status -ne 0 ] && grep -q "rank 1 on $(hostname).*failed (exit 2) on members \[1024, 2600)" fail.out &&
    [ ! -e fail.nc ]; then
    ok
else
    bad "a failing rank: exit $status, $(cat fail.out)"
fi
rmdir fail.nc.part-1024-2600.nc
mpi 3 "$cohort" run sweep.ini -o fail.nc --backend "$backend" --quiet --resume || bad "resume after the failure"
same sweep-serial.nc fail.nc "failed under 2 ranks, resumed under 3"
test_summary
