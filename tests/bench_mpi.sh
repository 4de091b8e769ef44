#!/bin/sh
# bench-mpi: the MPI scale-out's figures (issue 16) on a machine with several GPUs. For each study,
# the wall time of one process on one GPU and of R ranks (one GPU each) under mpirun, output and
# joining included; the speed-up and the parallel efficiency; and whether the two files are the
# same bit for bit (compare_nc --attributes).
#   bench_mpi.sh COHORT COMPARE_NC MPIRUN RANKS OUTDIR [STUDY...]
# Studies: ch1d (bench-ch1d at 2^21 members, N = 256, T = 100, statistics only) and flow-map (the
# 768^2 flow map of ch1d_forced, N = 512, T = 50, with k-means). Default: both.
cohort=${1:?cohort} compare=${2:?compare_nc} mpirun=${3:?mpirun} ranks=${4:?ranks} out=${5:?outdir}
shift 5
studies=${*:-ch1d flow-map}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out" || exit 1
ms() { echo $(($(date +%s%N) / 1000000)); }
for study in $studies; do
    case $study in
    ch1d) args="$here/workflows/coarsening-1d-L2pi.ini --set ensemble.members=2097152
                --set output.archive=none --set analysis.structure_factor=false" ;;
    flow-map) args="$here/workflows/flow-map.ini --set model.v=0.5" ;;
    *) echo "bench-mpi: unknown study '$study' (ch1d, flow-map)" >&2; exit 2 ;;
    esac
    t0=$(ms)
    "$cohort" run $args --backend cuda --overwrite -o "$out/$study-1.nc" 2> "$out/$study-1.log" ||
        { echo "bench-mpi: $study on one GPU failed (see $out/$study-1.log)"; exit 1; }
    t1=$(ms)
    "$mpirun" --allow-run-as-root -np "$ranks" "$cohort" run $args --backend cuda --overwrite \
        -o "$out/$study-$ranks.nc" 2> "$out/$study-$ranks.log" ||
        { echo "bench-mpi: $study under $ranks ranks failed (see $out/$study-$ranks.log)"; exit 1; }
    t2=$(ms)
    same=$("$compare" --attributes "$out/$study-1.nc" "$out/$study-$ranks.nc" | tail -n 1)
    awk -v s="$study" -v r="$ranks" -v a=$((t1 - t0)) -v b=$((t2 - t1)) -v same="$same" 'BEGIN {
        printf "%-9s 1 GPU %8.2f s   %d GPUs %8.2f s   speed-up %.2f   efficiency %.1f%%   (%s)\n",
               s, a / 1000, r, b / 1000, a / b, 100 * a / (r * b), same }'
done
