#!/bin/sh
# A run to a target precision (issue 37, part 2: ensemble.target_sem, max_members, target): the
# run stops at the first checked size whose relative standard error of the target statistic at
# the last record is at most the target (check_target.py recomputes it from the file's blocks);
# its file is, bit for bit, the fixed-size run of that many members with the same seed and the
# same bootstrap units, those of its first round (analysis.bootstrap_unit; every
# variable and fit: the length's statistics, the structure factor, the archive, k-means); the
# same under 2 and 3 MPI ranks, and after a SIGUSR1 in its second round and --resume; a bad
# combination of keys is refused with exit 2 and a message naming the key.
# Usage: test_target.sh PATH_TO_COHORT PATH_TO_COMPARE_NC BACKEND WORKDIR PYTHON [MPIRUN]
cohort=${1:?cohort} compare=${2:?compare_nc} backend=${3:?backend} dir=${4:?workdir}
python=${5:?python} mpirun=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_needs_backend "$cohort" "$backend"
test_workdir "$dir"
export OMP_NUM_THREADS=1

cat > target.ini <<'INI'
[model]
name = ch1d
[grid]
n = 32
length = 2*pi
[time]
t_end = 2
output_every = 0.25
[ensemble]
members = 1000
target_sem = 0.0012
max_members = 40000
[output]
archive = final
[analysis]
structure_factor = true
kmeans = 3
INI
run() { "$cohort" run target.ini --backend "$backend" --quiet "$@"; }
members_of() { "$cohort" info "$1" | awk '$1 == "target_members" { print $2 }'; }

run -o target.nc || bad "the target run"
m=$(members_of target.nc)
if [ -n "$m" ] && [ "$m" -gt 1024 ] && [ "$m" -lt 40000 ] && [ $((m % 1024)) -eq 0 ]; then
    ok; echo "the target took $m members"
else bad "target_members = '$m'"; fi
"$python" "$here/check_target.py" target.nc
case $? in 0) ok ;; 77) echo "check_target skipped (no python3-netcdf4)" ;; *) bad "the stop" ;; esac
# the bootstrap's units are fixed by the first round; a fixed-size run takes them as a key
u=$("$cohort" info target.nc | awk '$1 == "bootstrap_unit_members" { print $2 }')
run -o fixed.nc --set ensemble.target_sem=0 --set ensemble.max_members=auto \
    --set ensemble.members="$m" --set analysis.bootstrap_unit="$u" || bad "the fixed-size run"
if "$compare" --attributes fixed.nc target.nc > same.out; then
    ok; echo "the fixed-size run of $m members: $(tail -n 1 same.out)"
else bad "the target run differs from the fixed-size run of $m members: $(cat same.out)"; fi
[ -z "$(ls target.nc.* 2> /dev/null)" ] && ok || bad "left beside target.nc: $(ls target.nc.*)"

# nothing computed is thrown away: 3,000 members run as 3,072 (three blocks), which reach 0.01
# at once, and the file holds all 3,072 (it held the first block's 1,024 before)
run -o kept.nc --set ensemble.members=3000 --set ensemble.target_sem=0.01 2> kept.err ||
    bad "the run of 3,000 to 0.01: $(cat kept.err)"
[ "$(members_of kept.nc)" = 3072 ] &&
    "$cohort" info kept.nc | grep -q "sizes *3072 members" && ok ||
    bad "a target met in the first round kept $(members_of kept.nc) of 3072 members"

# max_members within the first block: the first round is the whole run (a part all the same), the
# target unreachable there: the run of max_members members, saying so
run -o small.nc --set ensemble.members=100 --set ensemble.max_members=300 2> small.err ||
    bad "max_members in one block: $(cat small.err)"
run -o small-fixed.nc --set ensemble.target_sem=0 --set ensemble.max_members=auto \
    --set ensemble.members=300 || bad "the fixed-size run of 300"
"$compare" --attributes small-fixed.nc small.nc > small.out && [ "$(members_of small.nc)" = 300 ] &&
    grep -q "warning: ell's relative standard error .* at 300 members: ensemble.target_sem not reached" \
        small.err && ok || bad "max_members in one block: $(cat small.out small.err)"

# a SIGUSR1 in the second round (its part's first checkpoint), then --resume
rm -f stop.nc*
# (cohort itself in the background: a shell function there would be a subshell)
"$cohort" run target.ini --backend "$backend" --quiet -o stop.nc --set output.checkpoint_every=0 \
    2> stop.err &
pid=$!
i=0
while [ -z "$(ls stop.nc.part-1024-*.checkpoint 2> /dev/null)" ] && [ $i -lt 2400 ]; do
    sleep 0.05; i=$((i + 1))
done
kill -USR1 $pid
wait $pid
status=$?
if [ $status -ne 0 ] && [ -e stop.nc.ranks ] && [ ! -e stop.nc ]; then ok; else
    bad "SIGUSR1 in the second round: exit $status, $(cat stop.err)"; fi
run -o stop.nc --resume --set output.checkpoint_every=0 || bad "the resume"
"$compare" --attributes target.nc stop.nc > stop.out && ok ||
    bad "stopped and resumed: $(cat stop.out)"

if [ -n "$mpirun" ] && ! "$cohort" --version | grep -q "^MPI: not built in"; then
    for n in 2 3; do
        "$mpirun" --oversubscribe --allow-run-as-root -np $n "$cohort" run target.ini \
            --backend "$backend" --quiet -o np$n.nc || bad "$n ranks"
        "$compare" --attributes target.nc np$n.nc > np$n.out && ok ||
            bad "under $n ranks: $(cat np$n.out)"
    done
else
    echo "MPI: not in this build; the ranks are not tried"
fi

# refusals: the key at fault, its value and origin
expect_refusal bad.nc "ensemble.target_sem = 0.0012 adds replicates of one configuration; \[sweep\]" \
    "$cohort" run target.ini -o bad.nc --set sweep.initial.mean=0:0.1:2
expect_refusal bad.nc "ensemble.max_members = 10 .*below ensemble.members = 1000" \
    "$cohort" run target.ini -o bad.nc --set ensemble.max_members=10
expect_refusal bad.nc "ensemble.target = energy: ch1d offers auto \(its length\)" \
    "$cohort" run target.ini -o bad.nc --set ensemble.target=energy
expect_refusal bad.nc "ensemble.max_members = 5000 applies only with ensemble.target_sem" \
    "$cohort" run target.ini -o bad.nc --set ensemble.target_sem=0 --set ensemble.max_members=5000
expect_refusal bad.nc "--members: a run to ensemble.target_sem splits the members itself" \
    "$cohort" run target.ini -o bad.nc --members 0:1024
expect_refusal bad.nc "--resume: bad.nc.ranks does not exist" \
    "$cohort" run target.ini -o bad.nc --resume
test_summary
