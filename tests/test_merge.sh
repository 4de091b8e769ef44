#!/bin/sh
# Member subsets (issue 15): `cohort run --members A:B` runs only global members [A, B), and
# `cohort merge` joins disjoint parts that cover a run into the file the whole run writes, every
# variable and the fits (double global attributes) bit for bit (compare_nc --attributes), whatever
# the split, the order of the parts or their chunking; a part killed with SIGKILL resumes with
# the same --members; a bad split or a bad set of parts is refused (exit 2, nothing written).
# Cases: ch1d over several chunks with snapshots, ell(t, member), the structure factor and
# k-means; ch2d with the final archive and the 2D structure factor; mcf2d (adaptive) with its
# step counts and exact errors, over a sweep.
# Usage: test_merge.sh PATH_TO_COHORT PATH_TO_COMPARE_NC BACKEND WORKDIR
cohort=${1:?cohort} compare=${2:?compare_nc} backend=${3:?backend} dir=${4:?workdir}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_needs_backend "$cohort" "$backend"
test_workdir "$dir"

cat > ch1d.ini <<'INI'
[model]
name = ch1d
[grid]
n = 32
length = 2*pi
[time]
t_end = 2
output_every = 0.25
[ensemble]
members = 2600
chunk = 700
[output]
archive = snapshots
snapshot_every = 1
member_series = true
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
cat > mcf2d.ini <<'INI'
[model]
name = mcf2d
[grid]
nx = 16
ny = 16
origin = -4
length = 8
[time]
t_end = 0.02
output_every = 0.005
tolerance = 1e-6
[initial]
kind = manufactured
[sweep]
model.zeta_sigma = 0.5,1.5
replicates = 550
INI

run() { "$cohort" run "$@" --backend "$backend" --quiet; }

# same_as_whole NAME MERGED: the merged file equals the whole run's
same_as_whole() {
    if "$compare" --attributes "$1-whole.nc" "$2" > "$2.cmp"; then
        ok
        echo "$2: the whole run's bits ($(tail -n 1 "$2.cmp"))"
    else
        bad "$2 differs from $1-whole.nc: $(cat "$2.cmp")"
    fi
}

for name in ch1d ch2d mcf2d; do run "$name.ini" -o "$name-whole.nc" || bad "$name: the whole run"; done

# ch1d in three parts (one with its own chunking), given out of order; and in two
run ch1d.ini -o p0.nc --members 0:1024 || bad "ch1d part 0:1024"
run ch1d.ini -o p1.nc --members 1024:2048 --set ensemble.chunk=100 || bad "ch1d part 1024:2048"
run ch1d.ini -o p2.nc --members 2048:2600 || bad "ch1d part 2048:2600"
"$cohort" merge p2.nc p0.nc p1.nc -o ch1d-three.nc --backend "$backend" --quiet || bad "merge of three"
same_as_whole ch1d ch1d-three.nc
run ch1d.ini -o q0.nc --members 0:2048 || bad "ch1d part 0:2048"
"$cohort" merge q0.nc p2.nc -o ch1d-two.nc --backend "$backend" --quiet || bad "merge of two"
same_as_whole ch1d ch1d-two.nc
# a part's member coordinate and per-member values are the whole run's, at their global indices
"$compare" p2.nc p2.nc member > /dev/null || bad "p2.nc unreadable"

for name in ch2d mcf2d; do
    run $name.ini -o $name-a.nc --members 0:1024 || bad "$name part 0:1024"
    run $name.ini -o $name-b.nc --members 1024:1100 || bad "$name part 1024:1100"
    "$cohort" merge $name-b.nc $name-a.nc -o $name-merged.nc --backend "$backend" --quiet ||
        bad "$name: merge"
    same_as_whole $name $name-merged.nc
done

# a part killed with SIGKILL after a checkpoint resumes with the same --members; another
# --members is refused
rm -f k1.nc k1.nc.partial k1.nc.checkpoint
"$cohort" run ch1d.ini -o k1.nc --members 1024:2048 --set ensemble.chunk=100 \
    --set output.checkpoint_every=0 --backend "$backend" --quiet &
pid=$!
i=0
while [ ! -e k1.nc.checkpoint ] && [ $i -lt 3000 ] && kill -0 $pid 2> /dev/null; do
    sleep 0.01; i=$((i + 1))
done
kill -9 $pid 2> /dev/null
wait $pid
if [ -e k1.nc.checkpoint ]; then
    expect_refusal none.nc "covered members \[1024, 2048\)" "$cohort" run ch1d.ini -o k1.nc \
        --members 0:1024 --set ensemble.chunk=100 --set output.checkpoint_every=0 --resume \
        --backend "$backend" --quiet
    run ch1d.ini -o k1.nc --members 1024:2048 --set ensemble.chunk=100 \
        --set output.checkpoint_every=0 --resume || bad "the killed part's resume"
else
    run ch1d.ini -o k1.nc --members 1024:2048 --set ensemble.chunk=100 --overwrite ||
        bad "the killed part, run again"
fi
"$cohort" merge p0.nc k1.nc p2.nc -o ch1d-resumed.nc --backend "$backend" --quiet ||
    bad "merge with the resumed part"
same_as_whole ch1d ch1d-resumed.nc

# bad splits and bad sets of parts: exit 2, nothing written
expect_refusal x.nc "A is not a multiple" "$cohort" run ch1d.ini -o x.nc --members 5:1024
expect_refusal x.nc "B is neither a multiple" "$cohort" run ch1d.ini -o x.nc --members 0:1000
expect_refusal x.nc "past the ensemble's last member" "$cohort" run ch1d.ini -o x.nc \
    --members 2048:4096
expect_refusal x.nc "expected A:B" "$cohort" run ch1d.ini -o x.nc --members 7
expect_refusal x.nc "expected A:B" "$cohort" run ch1d.ini -o x.nc --members 9:3
expect_refusal x.nc "members \[1024, 2048\) are in none" "$cohort" merge p0.nc p2.nc -o x.nc
expect_refusal x.nc "q0.nc both hold member 0" "$cohort" merge p0.nc p1.nc q0.nc p2.nc -o x.nc
expect_refusal x.nc "members \[2048, 2600\) are in none" "$cohort" merge p0.nc p1.nc -o x.nc
expect_refusal x.nc "not a part of a run" "$cohort" merge p0.nc ch1d-whole.nc -o x.nc
run ch1d.ini -o other.nc --members 1024:2048 --set time.t_end=3 || bad "ch1d part, t_end = 3"
expect_refusal x.nc "different configurations \(time.t_end" "$cohort" merge p0.nc other.nc \
    p2.nc -o x.nc
expect_refusal x.nc "is a part of a run of 2600 members, ch2d-a.nc of 1100" "$cohort" merge \
    ch2d-a.nc ch2d-b.nc p1.nc -o x.nc
expect_refusal p0.nc.x "never overwrites" "$cohort" merge p0.nc p1.nc p2.nc -o p0.nc
expect_refusal x.nc "pass --overwrite" "$cohort" merge p0.nc p1.nc p2.nc -o ch1d-two.nc
expect_refusal x.nc "no -o" "$cohort" merge p0.nc p1.nc p2.nc
test_summary
