/* The curvature flows on the cuda backend (curvature_kernels.h): one thread per (member, node),
 * member fastest (a warp reads consecutive addresses of many members, or consecutive nodes of
 * one). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "backend/cuda_check.cuh"
#include "models/curvature2d/curvature_kernels.h"
#include "ode/rkm_cuda.cuh"

static unsigned blocks_for(int64_t threads)
{
    return (unsigned)((threads + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS);
}

/* The nodes a thread of curvature_node_kernel takes: the time factors (a sincospi, tens of FP64
 * instructions) are formed once for them. */
enum { CURVATURE_NODES_PER_THREAD = 4 };

/* The members a warp's lanes take in curvature_node_kernel: 32, or all where fewer. */
static __host__ __device__ int64_t curvature_lane_members(int64_t count)
{
    return count < 32 ? count : 32;
}

/* PASS 0: w; 1: mean-curvature phi_t; 2: Willmore phi_t; I: the index type. Thread (m, slice)
 * takes nodes slice, slice + slices, ... of member m. A warp's lanes take consecutive members
 * (consecutive addresses), and the warps of a block consecutive slices of the same members, so
 * that their 3 x 3 windows overlap in the SM's L1 cache: with a block's warps on one slice of 256
 * members, each window's 9 values a node came from the L2 cache, and the ensembles' w and flux
 * kernels were bound by its bandwidth (Nsight Compute). With fewer than 32 members, the
 * members and then the slices run fastest, as a warp's lanes then take several slices anyway. */
template <int PASS, typename I>
__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    curvature_node_kernel(const __grid_constant__ curvature_grid g, const double *__restrict__ t,
                          const double *__restrict__ u, const double *__restrict__ w,
                          double *__restrict__ out, int64_t ld, int64_t count, I slices)
{
    const I idx = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    const I nx1 = (I)(g.nx + 1), n = nx1 * (I)(g.ny + 1);
    const I lanes = (I)curvature_lane_members(count), rest = idx / lanes;
    const I m = rest / slices * lanes + idx % lanes;
    if (m >= (I)count) return;
    const curvature_time_factors tf = curvature_time_factors_at(t[m]);
    /* the w pass's edge data, which the flux pass's kernel forms again */
    curvature_edges edges;
    for (I v = rest % slices; v < n; v += slices) {
        const I i = v % nx1, j = v / nx1;
        const int kind = curvature_node_kind_at(&g, i, j);
        out[(int64_t)v * ld + m] =
            PASS == 0
                ? curvature_w_node(&g, u + m, ld, i, j, kind, tf, &edges)
                : curvature_rhs_node(&g, u + m, PASS == 2 ? w + m : NULL, ld, i, j, kind, tf, NULL,
                                     curvature_forcing_node(&g, PASS == 2, i, j, kind, tf,
                                                            curvature_forcing_entry(&g, i, j)));
    }
}

template <int PASS>
static int curvature_node_launch(const curvature_grid *g, const double *t, const double *u,
                                 const double *w, double *out, int64_t ld, int64_t count)
{
    const int64_t n = (g->nx + 1) * (g->ny + 1),
                  slices = (n + CURVATURE_NODES_PER_THREAD - 1) / CURVATURE_NODES_PER_THREAD,
                  lanes = curvature_lane_members(count), groups = (count + lanes - 1) / lanes;
    COHORT_CUDA_WITH_INDEX(n * groups * lanes, I,
                           curvature_node_kernel<PASS, I>
                           <<<blocks_for(slices * groups * lanes), COHORT_CUDA_THREADS>>>(
                               *g, t, u, w, out, ld, count, (I)slices));
    COHORT_CUDA_CHECK_LAUNCH("curvature_node_kernel");
    return COHORT_OK;
}

static int curvature_w_cuda(const curvature_grid *g, const double *t, const double *u, double *w,
                            int64_t ld, int64_t count)
{
    return curvature_node_launch<0>(g, t, u, NULL, w, ld, count);
}

static int curvature_rhs_cuda(const curvature_grid *g, const double *t, const double *u,
                              const double *w, double *f, int64_t ld, int64_t count)
{
    return w ? curvature_node_launch<2>(g, t, u, w, f, ld, count)
             : curvature_node_launch<1>(g, t, u, NULL, f, ld, count);
}

__global__ void curvature_initial_kernel(const __grid_constant__ curvature_grid g, double amplitude,
                                         const double *__restrict__ amplitudes, double mode,
                                         double *__restrict__ u, int64_t ld, int64_t count)
{
    const int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t nx1 = g.nx + 1;
    if (idx >= nx1 * (g.ny + 1) * count) return;
    const int64_t m = idx % count, v = idx / count;
    u[v * ld + m] =
        curvature_initial_node(&g, amplitudes ? amplitudes[m] : amplitude, mode, v % nx1, v / nx1);
}

static int curvature_initial_cuda(const curvature_grid *g, double amplitude,
                                  const double *amplitudes, double mode, double *u, int64_t ld,
                                  int64_t count)
{
    curvature_initial_kernel<<<blocks_for((g->nx + 1) * (g->ny + 1) * count),
                               COHORT_CUDA_THREADS>>>(*g, amplitude, amplitudes, mode, u, ld,
                                                      count);
    COHORT_CUDA_CHECK_LAUNCH("curvature_initial_kernel");
    return COHORT_OK;
}

__global__ void curvature_observe_rows_kernel(const __grid_constant__ curvature_grid g,
                                              const double *__restrict__ u, double t,
                                              double *__restrict__ rows, int64_t ld, int64_t count)
{
    const int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x, n_rows = g.ny + 1;
    if (r >= count * n_rows) return;
    const int64_t m = r % count, j = r / count;
    double row[CURVATURE_OBSERVED];
    curvature_observe_row(&g, u + m, ld, t, j, row);
    for (int q = 0; q < CURVATURE_OBSERVED; ++q)
        rows[(m * CURVATURE_OBSERVED + q) * n_rows + j] = row[q];
}

__global__ void curvature_observe_combine_kernel(const double *__restrict__ rows,
                                                 double *__restrict__ out, int64_t n_rows,
                                                 int64_t count)
{
    const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m >= count) return;
    double member[CURVATURE_OBSERVED];
    curvature_observe_combine(rows + m * CURVATURE_OBSERVED * n_rows, n_rows, n_rows, member);
    for (int q = 0; q < CURVATURE_OBSERVED; ++q) out[q * count + m] = member[q];
}

static int curvature_observe_cuda(const curvature_grid *g, const double *u, double t, double *rows,
                                  double *out, int64_t ld, int64_t count)
{
    const int64_t n_rows = g->ny + 1;
    curvature_observe_rows_kernel<<<blocks_for(count * n_rows), COHORT_CUDA_THREADS>>>(
        *g, u, t, rows, ld, count);
    COHORT_CUDA_CHECK_LAUNCH("curvature_observe_rows_kernel");
    curvature_observe_combine_kernel<<<blocks_for(count), COHORT_CUDA_THREADS>>>(rows, out, n_rows,
                                                                                 count);
    COHORT_CUDA_CHECK_LAUNCH("curvature_observe_combine_kernel");
    return COHORT_OK;
}

/* The flows for the fused advance (ode/rkm_cuda.cuh): the member's nodes the thread owns,
 * Willmore's w pass first into the scratch (the same node functions as curvature_node_kernel).
 * Where the thread owns one node, the flux pass takes the edge data of phi that the w pass formed
 * at it (4 square roots and a division fewer; the same values, so the same bits as the per-stage
 * kernels, which form them twice). The flow is a constant of the kernel: told apart by whether
 * the scratch was NULL, every stage tested generic pointers to shared memory against NULL and
 * formed them again, some fifty instructions a stage. */
template <bool WILLMORE> struct curvature_block_rhs {
    curvature_grid g;
    double *scratch; /* w, laid out as the state (Willmore); NULL (mean curvature) */
    typedef curvature_time_factors time_data;
    __device__ time_data time_data_at(double t) const
    {
        return curvature_time_factors_at(t);
    }
    __host__ __device__ int passes() const
    {
        return WILLMORE ? 2 : 1;
    }
    /* A one-block member's nodes, interior nodes in the first warps and boundary nodes in the
     * last: a warp that holds both runs the boundary's branch and the interior's one after the
     * other, and every barrier waits for it. */
    __host__ __device__ int64_t one_block_threads(int64_t n) const
    {
        const int64_t inner = (g.nx - 1) * (g.ny - 1);
        return (inner + 31) / 32 * 32 + (n - inner + 31) / 32 * 32;
    }
    __device__ int64_t one_block_value(int64_t thread, int64_t n) const
    {
        const int nx = (int)g.nx, ny = (int)g.ny, inner = (nx - 1) * (ny - 1),
                  start = (inner + 31) / 32 * 32, k = (int)thread;
        if (k < inner) return (1 + k / (nx - 1)) * (nx + 1) + 1 + k % (nx - 1);
        const int b = k - start; /* rows 0 and ny, then columns 0 and nx of rows 1 .. ny - 1 */
        if (b < 0 || b >= n - inner) return n;
        if (b < 2 * (nx + 1)) return (b < nx + 1 ? 0 : ny - 1) * (nx + 1) + b;
        return (1 + (b - 2 * (nx + 1)) / 2) * (nx + 1) + (b - 2 * (nx + 1)) % 2 * nx;
    }
    /* the node's indices (a member has at most RKM_FUSED_MAX_SINGLE nodes, so 32-bit division:
     * 64-bit is a called routine), its kind and F_W's table entry, in registers for the whole
     * advance where a thread owns one node */
    struct node_data {
        int i, j, kind;
        curvature_willmore_forcing forcing;
    };
    __device__ node_data node_data_at(int64_t v) const
    {
        const int nx1 = (int)(g.nx + 1), i = (int)v % nx1, j = (int)v / nx1;
        const curvature_willmore_forcing none = {{0.0}, 0.0, 0.0};
        return node_data{i, j, curvature_node_kind_at(&g, i, j),
                         v < nx1 * (g.ny + 1) ? curvature_forcing_entry(&g, i, j) : none};
    }
    template <class Sync, class Out>
    __device__ void eval(const time_data &tf, const node_data &first, const double *u, double *w,
                         int64_t ld, rkm_nodes nodes, const Sync &sync, const Out &out) const
    {
        const int n = (int)((g.nx + 1) * (g.ny + 1));
        const auto node = [&](int v) { return nodes.single ? first : node_data_at(v); };
        const auto forcing = [&](const node_data &at) {
            return curvature_forcing_node(&g, WILLMORE, at.i, at.j, at.kind, tf, at.forcing);
        };
        /* a thread's one node's forcing first, to fill the w pass's latencies */
        const double first_forcing = nodes.single ? forcing(first) : 0.0;
        if constexpr (!WILLMORE) {
            for (int v = (int)nodes.first; v < n; v = (int)nodes.next(v, n)) {
                const node_data at = node(v);
                out(v, curvature_rhs_node(&g, u, NULL, ld, at.i, at.j, at.kind, tf, NULL,
                                          nodes.single ? first_forcing : forcing(at)));
            }
        } else {
            /* formed by the w pass where it forms a Q H, and read by the flux pass only there;
             * not cleared: a structure cleared on one path and formed on the other was cleared
             * on every path, 13 instructions a stage */
            curvature_edges edges;
            for (int v = (int)nodes.first; v < n; v = (int)nodes.next(v, n)) {
                const node_data at = node(v);
                w[v * ld] = curvature_w_node(&g, u, ld, at.i, at.j, at.kind, tf, &edges);
            }
            sync();
            for (int v = (int)nodes.first; v < n; v = (int)nodes.next(v, n)) {
                const node_data at = node(v);
                out(v, curvature_rhs_node(&g, u, w, ld, at.i, at.j, at.kind, tf,
                                          nodes.single ? &edges : NULL,
                                          nodes.single ? first_forcing : forcing(at)));
            }
        }
    }
};

static int curvature_advance_fused_cuda(const curvature_grid *g, double *w, const rkm_fused_args *a)
{
    return w ? rkm_fused_launch(curvature_block_rhs<true>{*g, w}, a)
             : rkm_fused_launch(curvature_block_rhs<false>{*g, NULL}, a);
}

extern "C" const curvature_kernels curvature_kernels_cuda = {
    curvature_w_cuda, curvature_rhs_cuda, curvature_initial_cuda, curvature_observe_cuda,
    curvature_advance_fused_cuda};
