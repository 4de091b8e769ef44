#!/bin/sh
# cohort plot: a PNG of every model's starter run, of a grid sweep's k-means map and of a Saltelli
# run's Sobol indices; an existing output refused without --overwrite, a file that is not
# cohort's refused, and a Python without matplotlib named with what to install.
# Usage: test_plot.sh COHORT WORKDIR PYTHON
cohort=${1:?cohort} dir=${2:?workdir} python=${3:?python}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/test_lib.sh"
test_workdir "$dir"
if ! "$python" -c "import matplotlib, netCDF4" 2> /dev/null; then
    echo "skipped: $python has no matplotlib or netCDF4"
    exit 77
fi
export COHORT_PYTHON="$python" OMP_NUM_THREADS=1

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

for model in $("$cohort" models --table | awk 'NR > 1 {print $1}' | sort -u); do
    "$cohort" init "$model" -o "$model.ini" > /dev/null &&
        "$cohort" run "$model.ini" --quiet --backend cpu -o "$model.nc" || bad "$model run"
    "$cohort" plot "$model.nc" > /dev/null && is_png "$model.png" && ok || bad "plot of $model"
done
"$cohort" run ch1d_forced.ini --quiet --backend cpu --set analysis.kmeans=3 \
    --set sweep.model.f0=0:2:4 --set sweep.initial.mean=0:1:4 -o map.nc || bad "grid sweep"
"$cohort" plot map.nc -o map.png > /dev/null && is_png map.png && ok || bad "plot of a label map"
"$cohort" run diffusion1d.ini --quiet --backend cpu --set initial.kind=cosine \
    --set sweep.design=saltelli --set sweep.points=64 --set sweep.initial.amplitude=0.5:1.5 \
    --set sweep.model.alpha=0.5:2 --set analysis.sensitivity=sobol -o sobol.nc || bad "saltelli"
"$cohort" plot sobol.nc > /dev/null && is_png sobol.png && ok || bad "plot of Sobol indices"

expect_plot_refusal() { # STATUS PATTERN ARGS...
    want=$1 pattern=$2; shift 2
    msg=$("$cohort" plot "$@" 2>&1); status=$?
    if [ $status -eq "$want" ] && printf '%s' "$msg" | grep -Eq -- "$pattern"; then ok; else
        bad "plot $* -> status $status (want $want): $msg"; fi
}
expect_plot_refusal 2 "-o sobol.png: exists \(give --overwrite" sobol.nc
expect_plot_refusal 0 "wrote sobol.png" sobol.nc --overwrite
expect_plot_refusal 2 "ch1d.ini: not a readable NetCDF file" ch1d.ini -o x.png
expect_plot_refusal 2 "unknown option '--bogus'" sobol.nc --bogus
[ ! -e x.png ] && ! ls .cohort-plot-* > /dev/null 2>&1 && ok || bad "a refused plot left files"
COHORT_PYTHON=/nonexistent/python3 expect_plot_refusal 1 "cannot run /nonexistent/python3" sobol.nc -o y.png
test_summary
