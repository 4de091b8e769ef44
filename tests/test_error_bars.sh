#!/bin/sh
# Error bars for every ensemble size (issue "numbers you can trust", item 1): ch1d runs of 64,
# 1,000 and 4,096 members each store a finite bootstrap standard error and 95% interval of
# their slope and a finite band at every fitted record, over at least 64 units; the same bits
# under other chunkings, a run split by --members and merged, and (where MPI is built in) ranks;
# the run's bootstrap redone in numpy from its units, and against a member-level bootstrap.
# Usage: test_error_bars.sh COHORT COMPARE_NC BACKEND WORKDIR PYTHON [MPIEXEC]
cohort=${1:?cohort} compare=${2:?compare_nc} backend=${3:?backend} dir=${4:?workdir}
python=${5:?python} mpirun=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_needs_backend "$cohort" "$backend"
test_workdir "$dir"

cat > bars.ini <<'INI'
[model]
name = ch1d
[grid]
n = 32
length = 2*pi
[time]
t_end = 4
output_every = 0.5
[ensemble]
members = 64
seed = 11
[analysis]
fit_from = 1
INI

finite_bars() { # FILE MEMBERS UNITS: the slope's error bars and the band are finite
    "$python" - "$1" "$2" "$3" <<'PY'
import sys
try:
    import netCDF4
    import numpy as np
except ImportError:
    sys.exit(77)
path, members, units = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with netCDF4.Dataset(path) as ds:
    se = float(ds.getncattr("ell_vs_log_t_slope_se"))
    ci = np.atleast_1d(ds.getncattr("ell_vs_log_t_slope_ci95"))
    band = np.array(ds["ell_mean_ci95"][...])
    t = np.array(ds["t"][...])
    got = (int(ds.getncattr("bootstrap_units")), ds.dimensions["member"].size)
ok = (np.isfinite(se) and se > 0 and np.all(np.isfinite(ci)) and ci[0] < ci[1]
      and np.all(np.isfinite(band[t >= 1])) and got == (units, members))
print(f"{path}: se {se:.4g}, interval {ci}, {got[0]} units of {got[1]} members: "
      f"{'ok' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
PY
}

# error bars at 64 (units of one member), 1,000 (one member) and 4,096 (1,024 units of 4)
for m in 64:64 1000:1000 4096:1024; do
    members=${m%%:*} units=${m##*:}
    "$cohort" run bars.ini --quiet --backend "$backend" --set ensemble.members="$members" \
        -o "m$members.nc" || bad "run of $members members"
    finite_bars "m$members.nc" "$members" "$units"
    check_python $? "error bars of $members members"
done

# the same bits under other chunkings and across a split run merged
"$cohort" run bars.ini --quiet --backend "$backend" --set ensemble.members=4096 \
    --set ensemble.chunk=300 -o chunked.nc || bad "chunked run"
"$compare" --attributes m4096.nc chunked.nc > chunked.cmp || bad "chunk 300 differs: $(cat chunked.cmp)"
"$cohort" run bars.ini --quiet --backend "$backend" --set ensemble.members=4096 \
    --members 0:2048 -o part-a.nc || bad "part a"
"$cohort" run bars.ini --quiet --backend "$backend" --set ensemble.members=4096 \
    --members 2048:4096 -o part-b.nc || bad "part b"
"$cohort" merge --quiet part-a.nc part-b.nc -o merged.nc || bad "merge"
"$compare" --attributes m4096.nc merged.nc ell_block_moments ell_mean ell_mean_ci95 \
    > merged.cmp || bad "merged parts differ: $(cat merged.cmp)"
if [ -n "$mpirun" ] && ! "$cohort" --version | grep -q "^MPI: not built in"; then
    "$mpirun" --oversubscribe --allow-run-as-root -np 3 "$cohort" run bars.ini --quiet \
        --backend "$backend" --set ensemble.members=4096 -o ranks.nc || bad "run on 3 ranks"
    "$compare" --attributes m4096.nc ranks.nc ell_block_moments ell_mean ell_mean_ci95 \
        > ranks.cmp || bad "3 ranks differ: $(cat ranks.cmp)"
fi

# the bootstrap redone in numpy from the units, and a member-level bootstrap beside it
"$cohort" run bars.ini --quiet --backend "$backend" --set ensemble.members=4096 \
    --set output.member_series=true -o series.nc || bad "run with member series"
"$python" "$here/check_bootstrap.py" series.nc --members
check_python $? "the bootstrap in numpy and member by member"
test_summary
