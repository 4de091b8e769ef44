/* The explicit 1D schemes on the cuda backend (swept1d_kernels.h): seed 001's GPUClassic (a launch
 * per tier) and GPUShared (the swept rule), for one large member or a batch of members.
 *
 * The swept rule here. Global memory holds, for every point, the two rows of seed 001's IV.B (the
 * latest even tier computed there in rows[0], the latest odd tier in rows[1]) and the tier the
 * point has reached (`reached`, the same for every member). A phase is one launch: each block
 * copies a window of points (rows and tiers) into shared memory and advances every point of it as
 * far as its dependency cone allows: a point at tier t - 1 takes tier t once every point of its
 * stencil is at tier t - 1 or t (then their tier t - 1 values are still in the rows) and inside
 * the window. Windows alternate between the tiles [a_j, a_{j+1}) (a_j = j n / B, B = ceil(n /
 * width)) and the windows between the tiles' centres, so that from a uniform start the first
 * phase builds the upward triangles (trapezoids where the tiles are wider than the cone) and each
 * later phase fills the valleys between them and builds the next triangles on top: the diamonds
 * of seed 001, Fig. 1, with its edge arrays replaced by the rows themselves (a window reads the
 * edges its neighbours left at their own positions). Any n, any width from 2 radius + 1 points,
 * the periodic wrap (a window may straddle the seam) and the insulated ends (mirror neighbours
 * inside the window) come out of the same rule, and every (point, tier) is computed exactly once
 * by swept1d_update from the same inputs as the classic kernel, hence the same bits.
 *
 * A member that fits in one block (width >= n) is advanced from the first tier to the last without
 * touching global memory in between, the swept idea taken to its end for cohort's ensembles of
 * small members: by one warp where n = 32 P (P = 2, 4, 8, 16: P points per lane in registers,
 * the stencil's outer points from the neighbouring lanes by shuffles, no barrier), else by one
 * block in shared memory where the device lets a block hold its two rows (else in tiles). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include "backend/backend_cuda.h"
#include "backend/cuda_check.cuh"
#include "models/swept1d/swept1d_kernels.h"

static unsigned threads_for(int64_t width)
{
    const int64_t w = width < 32 ? 32 : width > 1024 ? 1024 : (width + 31) / 32 * 32;
    return (unsigned)w;
}

/* The scheme with its model fixed at compile time (KS: ks1d), so that the stencil loops unroll,
 * the stencil values stay in registers and the update's branch folds away. */
template <bool KS> __device__ __forceinline__ swept1d_scheme swept1d_fixed(const swept1d_scheme &s)
{
    swept1d_scheme f = s;
    f.ks = KS;
    f.radius = KS ? 2 : 1;
    return f;
}

/* Runs the statements with the compile-time constant KS of the scheme *s */
#define SWEPT1D_BY_MODEL(s, KS, ...)                                                               \
    do {                                                                                           \
        if ((s)->ks) {                                                                             \
            constexpr bool KS = true;                                                              \
            __VA_ARGS__;                                                                           \
        } else {                                                                                   \
            constexpr bool KS = false;                                                             \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
    } while (0)

/* ---- classic: one launch per tier, a thread per (member, point), member fastest ---- */

template <bool KS, typename I>
__global__ void swept1d_classic_kernel(const __grid_constant__ swept1d_scheme s0,
                                       const double *__restrict__ in, double *__restrict__ out,
                                       int64_t tier, int64_t ld, int64_t count)
{
    const swept1d_scheme s = swept1d_fixed<KS>(s0);
    constexpr int R = KS ? 2 : 1;
    const I idx = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    if (idx >= (I)(s.n * count)) return;
    const I m = idx % (I)count, x = idx / (I)count;
    double v[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
#pragma unroll
    for (int k = -R; k <= R; ++k) v[k + 2] = in[swept1d_neighbor(&s, (int64_t)x, k) * ld + m];
    out[(int64_t)x * ld + m] = swept1d_update(&s, tier, v, out[(int64_t)x * ld + m]);
}

static int swept1d_classic_cuda(const swept1d_scheme *s, double *const rows[2], int64_t tiers,
                                int64_t width, int64_t ld, int64_t count)
{
    const int64_t threads = s->n * count;
    const unsigned block = threads_for(width);
    const unsigned blocks = (unsigned)((threads + block - 1) / block);
    for (int64_t t = 1; t <= tiers; ++t) {
        SWEPT1D_BY_MODEL(s, KS,
                         COHORT_CUDA_WITH_INDEX(threads, I,
                                                swept1d_classic_kernel<KS, I>
                                                <<<blocks, block>>>(*s, rows[(t - 1) & 1],
                                                                    rows[t & 1], t, ld, count)));
        COHORT_CUDA_CHECK_LAUNCH("swept1d_classic_kernel");
    }
    return COHORT_OK;
}

/* ---- a whole member per warp, P points per lane in registers (n = 32 P) ---- */

/* One tier of a warp's member: in -> out, lane's points lane P .. lane P + P - 1, the stencil's
 * outer points from the neighbouring lanes (periodic: around the warp; bounded: the mirror
 * neighbour of an end, T_{-1} = T_1, T_n = T_{n-2}, is in the end lane itself) */
template <bool KS, int P>
__device__ __forceinline__ void swept1d_warp_tier(const swept1d_scheme &s, int t, const double *in,
                                                  double *out, int lane)
{
    constexpr int R = KS ? 2 : 1;
    double left[R], right[R];
#pragma unroll
    for (int k = 0; k < R; ++k) {
        left[k] = __shfl_sync(0xffffffffu, in[P - R + k], (lane + 31) & 31);
        right[k] = __shfl_sync(0xffffffffu, in[k], (lane + 1) & 31);
    }
    if (!KS) {
        if (lane == 0) left[0] = in[1];
        if (lane == 31) right[0] = in[P - 2];
    }
#pragma unroll
    for (int j = 0; j < P; ++j) {
        double v[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
#pragma unroll
        for (int k = -R; k <= R; ++k)
            v[k + 2] = j + k < 0 ? left[j + k + R] : j + k >= P ? right[j + k - P] : in[j + k];
        out[j] = swept1d_update(&s, t, v, out[j]);
    }
}

template <bool KS, int P>
__global__ void __launch_bounds__(128)
    swept1d_warp_member_kernel(const __grid_constant__ swept1d_scheme s0, double *row0,
                               double *row1, int tiers, int64_t ld, int64_t count)
{
    const swept1d_scheme s = swept1d_fixed<KS>(s0);
    const int lane = threadIdx.x & 31;
    const int64_t m = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    if (m >= count) return; /* a whole warp */
    double even[P], odd[P];
#pragma unroll
    for (int j = 0; j < P; ++j) even[j] = row0[(int64_t)(lane * P + j) * ld + m], odd[j] = 0.0;
    int t = 1;
    for (; t + 1 <= tiers; t += 2) {
        swept1d_warp_tier<KS, P>(s, t, even, odd, lane);
        swept1d_warp_tier<KS, P>(s, t + 1, odd, even, lane);
    }
    if (t == tiers) swept1d_warp_tier<KS, P>(s, t, even, odd, lane);
    double *last = (tiers & 1) ? row1 : row0;
#pragma unroll
    for (int j = 0; j < P; ++j)
        last[(int64_t)(lane * P + j) * ld + m] = (tiers & 1) ? odd[j] : even[j];
}

/* ---- a whole member per block in shared memory (any n that fits) ---- */

template <bool KS>
__global__ void swept1d_member_kernel(const __grid_constant__ swept1d_scheme s0, double *row0,
                                      double *row1, int tiers, int64_t ld)
{
    extern __shared__ double member_rows[];
    const swept1d_scheme s = swept1d_fixed<KS>(s0);
    constexpr int R = KS ? 2 : 1;
    const int n = (int)s.n;
    /* the rows by offset, not by a pointer array (which would live in local memory) */
    const int64_t m = blockIdx.x;
    for (int x = threadIdx.x; x < n; x += blockDim.x) member_rows[x] = row0[x * ld + m];
    __syncthreads();
    for (int t = 1; t <= tiers; ++t) {
        const double *in = member_rows + ((t - 1) & 1) * n;
        double *out = member_rows + (t & 1) * n;
        for (int x = threadIdx.x; x < n; x += blockDim.x) {
            double v[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
#pragma unroll
            for (int k = -R; k <= R; ++k) v[k + 2] = in[swept1d_neighbor(&s, x, k)];
            out[x] = swept1d_update(&s, t, v, out[x]);
        }
        __syncthreads();
    }
    double *last = (tiers & 1) ? row1 : row0;
    for (int x = threadIdx.x; x < n; x += blockDim.x)
        last[x * ld + m] = member_rows[(tiers & 1) * n + x];
}

/* ---- the swept rule over windows ---- */

/* Window j of a phase: the tiles (shifted = 0) or the windows between the tiles' centres c_j =
 * (a_j + a_{j+1}) / 2 (shifted = 1): periodic, B of them, the first [c_{B-1} - n, c_0) across
 * the seam; bounded, B + 1, from [0, c_0) to [c_{B-1}, n). */
__host__ __device__ static inline void swept1d_window(int64_t n, int64_t B, int periodic,
                                                      int shifted, int64_t j, int64_t *lo,
                                                      int64_t *width)
{
    if (!shifted) {
        *lo = j * n / B;
        *width = (j + 1) * n / B - *lo;
        return;
    }
#define SWEPT1D_CENTRE(i) (((i)*n / B + ((i) + 1) * n / B) / 2)
    const int64_t hi = j < B ? SWEPT1D_CENTRE(j) : n;
    *lo = j > 0 ? SWEPT1D_CENTRE(j - 1) : periodic ? SWEPT1D_CENTRE(B - 1) - n : 0;
#undef SWEPT1D_CENTRE
    *width = hi - *lo;
}

/* One thread per point of the window (tiles hold at most 1024 points). The tiers reached sit in
 * two arrays by parity: tier t reads the points' tiers t - 1 (and the rows) that the previous tier
 * left and writes its own into the other array, so that one barrier per tier orders everything
 * (the same holds for the rows: tier t writes only the row that tier t + 1 reads after the
 * barrier, and tier t + 1 overwrites only the row tier t read before it). */
template <bool KS>
__global__ void __launch_bounds__(1024)
    swept1d_phase_kernel(const __grid_constant__ swept1d_scheme s0, double *row0, double *row1,
                         int *reached, int last_tier, int64_t B, int shifted, int64_t windows,
                         int max_width, int64_t ld)
{
    extern __shared__ double window_rows[];
    const swept1d_scheme s = swept1d_fixed<KS>(s0);
    constexpr int R = KS ? 2 : 1;
    int *tiers = (int *)(window_rows + 2 * max_width); /* [parity * max_width + point] */
    __shared__ int lowest, highest;
    const int64_t j = blockIdx.x % windows, m = blockIdx.x / windows;
    int64_t lo, w64;
    swept1d_window(s.n, B, KS, shifted, j, &lo, &w64);
    const int w = (int)w64, p = threadIdx.x;
    const bool active = p < w;
    const int64_t x = lo + p < 0 ? lo + p + s.n : lo + p >= s.n ? lo + p - s.n : lo + p;
    if (p == 0) lowest = INT_MAX, highest = 0;
    __syncthreads();
    if (active) {
        window_rows[p] = row0[x * ld + m];
        window_rows[max_width + p] = row1[x * ld + m];
        tiers[p] = tiers[max_width + p] = reached[x];
        atomicMin(&lowest, tiers[p]);
        atomicMax(&highest, tiers[p]);
    }
    /* the stencil's points in the window (periodic: the window's points are consecutive around
     * the circle; bounded: the mirror neighbour of an end point), and which are inside it */
    int y[2 * R + 1];
    bool all_inside = active;
#pragma unroll
    for (int k = -R; k <= R; ++k) {
        y[k + R] = KS ? p + k : (int)(swept1d_neighbor(&s, lo + p, k) - lo);
        all_inside = all_inside && y[k + R] >= 0 && y[k + R] < w;
    }
    __syncthreads();
    if (lowest >= last_tier) return; /* a window at the last tier already: nothing to do */
    /* no point rises more than half the window over the radius above the highest tier loaded:
     * the points within the radius of its ends cannot advance at all */
    const int stop = min(last_tier, highest + w / (2 * R) + 2);
    for (int t = lowest + 1; t <= stop; ++t) {
        const double *in = window_rows + ((t - 1) & 1) * max_width;
        double *out = window_rows + (t & 1) * max_width;
        const int *before = tiers + ((t - 1) & 1) * max_width;
        int *after = tiers + (t & 1) * max_width;
        if (all_inside) {
            /* every load issued at once (no short-circuit: a && chain would wait for each
             * load before the next) */
            const int here = before[p];
            bool ready = here == t - 1;
            double v[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
#pragma unroll
            for (int k = 0; k <= 2 * R; ++k) {
                ready &= before[y[k]] >= t - 1;
                v[k + 2 - R] = in[y[k]];
            }
            if (ready) out[p] = swept1d_update(&s, t, v, out[p]);
            after[p] = ready ? t : here;
        }
        __syncthreads();
    }
    if (active) {
        row0[x * ld + m] = window_rows[p];
        row1[x * ld + m] = window_rows[max_width + p];
        /* the same for every member; either array holds the last tiers (after the last tier
         * both agree where nothing moved, and a point that moved at `stop` is in stop's) */
        if (m == 0) reached[x] = tiers[(stop & 1) * max_width + p];
    }
}

__global__ void swept1d_done_kernel(const int *reached, int64_t n, int64_t last_tier, int *behind)
{
    for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < n;
         x += (int64_t)gridDim.x * blockDim.x)
        if (reached[x] < last_tier) atomicAdd(behind, 1);
}

/* The members on chip from the first tier to the last: a warp each where n = 32 P, else a block
 * each where the device lets a block hold a member's two rows (*launched = 1); else nothing is
 * launched (*launched = 0). */
static int swept1d_members_on_chip(const swept1d_scheme *s, double *const rows[2], int tiers,
                                   int64_t ld, int64_t count, int *launched)
{
    *launched = 1;
    const int points_per_lane = s->n % 32 ? 0 : (int)(s->n / 32);
#define SWEPT1D_WARP_CASE(P)                                                                       \
    case P:                                                                                        \
        SWEPT1D_BY_MODEL(s, KS,                                                                    \
                         swept1d_warp_member_kernel<KS, P><<<(unsigned)((count + 3) / 4), 128>>>(  \
                             *s, rows[0], rows[1], tiers, ld, count));                             \
        COHORT_CUDA_CHECK_LAUNCH("swept1d_warp_member_kernel");                                    \
        return COHORT_OK;
    switch (points_per_lane) {
        SWEPT1D_WARP_CASE(2)
        SWEPT1D_WARP_CASE(4)
        SWEPT1D_WARP_CASE(8)
        SWEPT1D_WARP_CASE(16)
    default:
        break;
    }
#undef SWEPT1D_WARP_CASE
    const size_t bytes = 2 * (size_t)s->n * sizeof(double);
    if (bytes > cohort_cuda_shared_limit_bytes()) {
        *launched = 0;
        return COHORT_OK;
    }
    SWEPT1D_BY_MODEL(s, KS, {
        COHORT_CUDA_CHECK(cudaFuncSetAttribute(
            swept1d_member_kernel<KS>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
        swept1d_member_kernel<KS>
            <<<(unsigned)count, threads_for(s->n), bytes>>>(*s, rows[0], rows[1], tiers, ld);
    });
    COHORT_CUDA_CHECK_LAUNCH("swept1d_member_kernel");
    return COHORT_OK;
}

static int swept1d_swept_cuda(const swept1d_scheme *s, double *const rows[2], int *reached,
                              int64_t tiers, int64_t width, int64_t ld, int64_t count)
{
    if (tiers > INT_MAX - 1)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "%lld tiers in one advance (at most %d)",
                           (long long)tiers, INT_MAX - 1);
    if (width >= s->n) { /* the member on chip from the first tier to the last */
        int launched = 0;
        COHORT_CALL(swept1d_members_on_chip(s, rows, (int)tiers, ld, count, &launched));
        if (launched) return COHORT_OK;
        width = swept1d_tile_width(s->n); /* its two rows exceed a block: tiles, the same bits */
    }
    if (width > 1024)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "tiles of %lld points: at most 1024 (one block of threads)",
                           (long long)width);
    const int64_t B = (s->n + width - 1) / width;
    const int max_width = (int)((s->n + B - 1) / B); /* no window is wider than a tile */
    const size_t bytes = (size_t)max_width * 2 * (sizeof(double) + sizeof(int));
    const unsigned block = threads_for(max_width);
    SWEPT1D_BY_MODEL(
        s, KS,
        COHORT_CUDA_CHECK(cudaFuncSetAttribute(
            swept1d_phase_kernel<KS>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes)));
    COHORT_CUDA_CHECK(cudaMemsetAsync(reached, 0, (size_t)(s->n + 1) * sizeof(int)));
    int *behind = reached + s->n;
    /* Each phase after the first lifts the lowest point by about half a tile over the radius;
     * run that many, then phases until no point is behind (counted, so that the plan is never
     * trusted). */
    const int64_t half_cone = (s->n / B / 2) / s->radius - 1;
    const int64_t lift = half_cone > 1 ? half_cone : 1;
    const int64_t planned = 2 + (tiers + lift - 1) / lift;
    const unsigned check_blocks = (unsigned)((s->n + 255) / 256 < 1024 ? (s->n + 255) / 256 : 1024);
    for (int64_t phase = 0;; ++phase) {
        if (phase >= planned) {
            int left = 0;
            COHORT_CUDA_CHECK(cudaMemsetAsync(behind, 0, sizeof(int)));
            swept1d_done_kernel<<<check_blocks, 256>>>(reached, s->n, tiers, behind);
            COHORT_CUDA_CHECK_LAUNCH("swept1d_done_kernel");
            COHORT_CUDA_CHECK(cudaMemcpy(&left, behind, sizeof(int), cudaMemcpyDeviceToHost));
            if (left == 0) return COHORT_OK;
            if (phase > 4 * planned + 8)
                return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                                   "the swept rule stalled: %d points behind after %lld phases",
                                   left, (long long)phase);
        }
        const int shifted = (int)(phase & 1);
        const int64_t windows = shifted && !s->ks ? B + 1 : B;
        SWEPT1D_BY_MODEL(
            s, KS,
            swept1d_phase_kernel<KS><<<(unsigned)(windows * count), block, bytes>>>(
                *s, rows[0], rows[1], reached, (int)tiers, B, shifted, windows, max_width, ld));
        COHORT_CUDA_CHECK_LAUNCH("swept1d_phase_kernel");
    }
}

extern "C" const swept1d_kernels swept1d_kernels_cuda = {
    .classic = swept1d_classic_cuda,
    .swept = swept1d_swept_cuda,
};
