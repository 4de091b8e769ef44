/* The batched banded solve on the cuda backend: the PORTABLE, TILED and WARP paths and AUTO's
 * choice among them (banded_cuda.h; measured in PERFORMANCE.md). Kernels are written in C style
 * around the COHORT_HD arithmetic of banded_numerics.h. */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "backend/cuda_check.cuh"
#include "banded/banded_cuda.cuh"
#include "banded/banded_cuda.h"
#include "banded/banded_kernels.h"

/* ---- batched banded solve: the portable path ---- */

/* Member m's system x with the shared factor or, where v has them, its own (H, BORDER literals). */
template <int H, int BORDER>
__device__ __forceinline__ void portable_system(const banded_view &v, double *x, int64_t ld,
                                                int64_t m)
{
    if (v.member_factor)
        banded_member_system_solve(&v, H, BORDER, x, ld, m);
    else
        banded_system_solve(&v, H, BORDER, x, ld);
}

/* Group g of a launch (blockIdx.y) solves the systems at u + (group0 + g) * group_stride. */
__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    banded_portable_kernel(banded_view v, double *u, int64_t ld, int64_t m0, int64_t count,
                           int64_t group_stride)
{
    const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m >= count) return;
    double *x = u + blockIdx.y * group_stride + m0 + m;
    if (v.h == 1 && v.border == 0)
        portable_system<1, 0>(v, x, ld, m0 + m);
    else if (v.h == 1)
        portable_system<1, 1>(v, x, ld, m0 + m);
    else if (v.border == 0)
        portable_system<2, 0>(v, x, ld, m0 + m);
    else
        portable_system<2, 2>(v, x, ld, m0 + m);
}

/* ---- batched banded solve: the tiled path ---- */

/* the kinds of system, (half-bandwidth, border), each a kernel instantiation */
#define BANDED_WARP_VARIANTS(X) X(1, 0) X(1, 1) X(2, 0) X(2, 2)

/* a tiled block: at most this many threads (128 registers a thread), and of tile groups (the
 * named barriers 1..15 beside __syncthreads' 0) */
enum { TILED_MAX_BLOCK_THREADS = 512, TILED_MAX_GROUPS = 15 };

/* Where the tiled solve reads its factor: the block's copy in shared memory (SHARED = 1) or
 * device memory through the read-only path. */
template <int SHARED> __device__ __forceinline__ double tiled_factor_load(const double *p)
{
    return SHARED ? *p : __ldg(p);
}

/* The factor arrays a tile's sweeps read: v's, or the block's copies of them in shared memory. */
struct tiled_factor {
    const double *seg_coef, *seg_spike, *red_coef, *spike;
};

/* banded_band_solve on a column in shared memory. The sweep is a chain of one multiply-add per
 * row; to keep that chain from waiting on memory, the right-hand sides and the factor rows of
 * TILE_CHUNK rows are loaded into registers before their multiply-adds (a store to the tile may
 * alias the next row's load as far as the compiler knows, so it would not hoist them itself). */
template <int SHARED>
__device__ __forceinline__ void tile_band_solve(const double *__restrict__ coef, int rows, int hb,
                                                double *x, int s)
{
    const int stride = 2 * hb + 1;
    double carry[BANDED_MAX_CARRY] = {0.0};
    int i = 0;
    for (; i + TILE_CHUNK <= rows; i += TILE_CHUNK) {
        double d[TILE_CHUNK], row[TILE_CHUNK][2 * BANDED_MAX_CARRY + 1];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            d[q] = x[(i + q) * s];
            for (int k = 0; k < hb; ++k)
                row[q][k] = tiled_factor_load<SHARED>(coef + (i + q) * stride + k);
        }
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            const double y = banded_forward_value(row[q], hb, d[q], carry);
            x[(i + q) * s] = y;
            banded_carry_push(carry, hb, y);
        }
    }
    for (; i < rows; ++i) {
        const double y = banded_forward_value(coef + i * stride, hb, x[i * s], carry);
        x[i * s] = y;
        banded_carry_push(carry, hb, y);
    }
    for (int k = 0; k < BANDED_MAX_CARRY; ++k) carry[k] = 0.0;
    i = rows - 1;
    for (; i >= TILE_CHUNK - 1; i -= TILE_CHUNK) {
        double y[TILE_CHUNK], row[TILE_CHUNK][2 * BANDED_MAX_CARRY + 1];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            y[q] = x[(i - q) * s];
            for (int k = hb; k <= 2 * hb; ++k)
                row[q][k] = tiled_factor_load<SHARED>(coef + (i - q) * stride + k);
        }
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            const double xi = banded_backward_value(row[q], hb, y[q], carry);
            x[(i - q) * s] = xi;
            banded_carry_push(carry, hb, xi);
        }
    }
    for (; i >= 0; --i) {
        const double xi = banded_backward_value(coef + i * stride, hb, x[i * s], carry);
        x[i * s] = xi;
        banded_carry_push(carry, hb, xi);
    }
}

/* banded_segment_correct on rows [start, end) of a segment column in shared memory, with the
 * spike rows and values of TILE_CHUNK rows loaded before their stores, as in tile_band_solve. */
template <int SHARED>
__device__ __forceinline__ void
tile_segment_correct(const double *__restrict__ seg_spike, int h, int start, int end, double *x,
                     int s, const double *next_top, const double *prev_bottom)
{
    int i = start;
    for (; i + TILE_CHUNK <= end; i += TILE_CHUNK) {
        double g[TILE_CHUNK], spike[TILE_CHUNK][2 * BANDED_MAX_HALF_BANDWIDTH];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            g[q] = x[(i - start + q) * s];
            for (int k = 0; k < 2 * h; ++k)
                spike[q][k] = tiled_factor_load<SHARED>(seg_spike + (i + q) * 2 * h + k);
        }
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q)
            x[(i - start + q) * s] =
                banded_segment_correct(spike[q], h, g[q], next_top, prev_bottom);
    }
    for (; i < end; ++i)
        x[(i - start) * s] = banded_segment_correct(seg_spike + i * 2 * h, h, x[(i - start) * s],
                                                    next_top, prev_bottom);
}

/* The slot of row i of member g in the tiled solve's tile (seg_len is a power of two). */
__device__ __forceinline__ int tile_index(const banded_view &v, int i, int g, int w)
{
    return tile_slot(i, g, w, __ffs(v.seg_len) - 1, v.n_seg - 1);
}

/* A barrier of the `threads` threads (whole warps) of one tile group: groups of a block run out
 * of step, one group staging its tile while another sweeps. */
__device__ __forceinline__ void tile_group_sync(int barrier, int threads)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(barrier), "r"(threads) : "memory");
}

/* One tile: members [first, first + width) x all n rows, with one thread per (member, segment)
 * of the group's threads (t of `threads`; those past w P only stage and wait). Every element of u
 * is read once (cp.async, coalesced across members) and written once. On chip: each thread
 * solves its segment's block, one thread per member solves the reduced system of the segment
 * tips, each thread corrects its segment with the spikes, and the periodic correction
 * x_t = p - Q x_b is applied as the tile is written back. `area` is the group's tile, tips and
 * border values; the group's barrier is `barrier`. */
template <int SHARED>
__device__ __forceinline__ void
tiled_body(const banded_view &v, const tiled_factor &f, int h, int border, double *area, double *u,
           int64_t ld, int64_t first, int64_t last, int w_shift, int t, int threads, int barrier)
{
    const int w = 1 << w_shift, P = v.n_seg, nb = (int)v.n_band, n = (int)v.n;
    const int total = n << w_shift, red_n = (int)v.red_n;
    double *tile = area;
    double *tips = area + total + P * w; /* red_n x w */
    double *xbs = tips + w * red_n;      /* border x w */
    const int width = (int)(last - first < w ? last - first : w);
    double *base = u + first;
    tile_stage_issue(tile, base, ld, n, w_shift, width, __ffs(v.seg_len) - 1, P - 1, t, threads);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    tile_group_sync(barrier, threads);

    const int p = t >> w_shift, g = t & (w - 1), stride = 2 * h + 1;
    const int active = g < width && p < P;
    const int pad = SHARED ? p : 0; /* the segment's shift in the shared copy of the factor */
    const int start = (int)banded_segment_start(&v, p), end = (int)banded_segment_end(&v, p);
    double *x = tile + tile_index(v, start, g, w);
    double *my_tips = tips + g; /* member fastest: lanes of a warp hit consecutive banks */
    if (active) {
        tile_band_solve<SHARED>(f.seg_coef + start * stride + pad, end - start, h, x, w);
        if (P > 1) banded_segment_tips(&v, h, p, x, w, my_tips, w);
    }
    if (P > 1) {
        tile_group_sync(barrier, threads);
        if (active && p == 0) tile_band_solve<SHARED>(f.red_coef, red_n, 3 * h - 1, my_tips, w);
        tile_group_sync(barrier, threads);
        if (active) {
            double next_top[BANDED_MAX_HALF_BANDWIDTH], prev_bottom[BANDED_MAX_HALF_BANDWIDTH];
            banded_segment_neighbours(&v, h, p, my_tips, w, next_top, prev_bottom);
            tile_segment_correct<SHARED>(f.seg_spike + pad, h, start, end, x, w, next_top,
                                         prev_bottom);
        }
    }
    if (border) {
        tile_group_sync(barrier, threads);
        if (active && p == 0) {
            double p_cols[BANDED_MAX_BORDER_COLS], d_b[BANDED_MAX_HALF_BANDWIDTH];
            double xb[BANDED_MAX_HALF_BANDWIDTH];
            for (int c = 0; c < v.n_border_cols; ++c)
                p_cols[c] = tile[tile_index(v, (int)v.border_col[c], g, w)];
            for (int j = 0; j < border; ++j) d_b[j] = tile[tile_index(v, nb + j, g, w)];
            banded_border_values(&v, border, p_cols, d_b, xb);
            for (int j = 0; j < border; ++j) {
                xbs[j * w + g] = xb[j];
                tile[tile_index(v, nb + j, g, w)] = xb[j];
            }
        }
    }
    tile_group_sync(barrier, threads);
    /* the store: thread t < w P writes member t mod w of rows t / w, t / w + P, ..., consecutive
     * threads consecutive addresses; the member's border values x_b in registers */
    const int gi = t & (w - 1);
    if (t < (P << w_shift) && gi < width) {
        double xb[BANDED_MAX_HALF_BANDWIDTH];
        for (int j = 0; j < border; ++j) xb[j] = xbs[j * w + gi];
        int i = t >> w_shift;
        double *dst = base + (int64_t)i * ld + gi;
        const int64_t dst_step = (int64_t)P * ld;
#pragma unroll 4
        for (; i < n; i += P, dst += dst_step) {
            double val = tile[tile_index(v, i, gi, w)];
            if (border && i < nb) {
                double q_row[BANDED_MAX_HALF_BANDWIDTH];
                for (int j = 0; j < border; ++j)
                    q_row[j] = tiled_factor_load<SHARED>(f.spike + i * border + j);
                val = banded_border_correct(q_row, border, val, xb);
            }
            __stcs(dst, val);
        }
    }
    /* the group's next tile is staged over this one */
    tile_group_sync(barrier, threads);
}

/* The doubles of the factor copied to shared memory (SHARED), in the order seg_coef, seg_spike,
 * red_coef, spike; the segments' rows of seg_coef and seg_spike one double apart per segment
 * (segment p's at offset p), so that the threads of a warp sweeping different segments at the same
 * row read different banks; rounded up to keep the tiles after it 16-byte aligned. */
__host__ __device__ static inline int64_t tiled_factor_doubles(const banded_view &v,
                                                               int64_t parts[4])
{
    const int partitioned = v.n_seg > 1;
    parts[0] = v.n_band * (2 * v.h + 1) + v.n_seg;
    parts[1] = partitioned ? v.n_band * 2 * v.h + v.n_seg : 0;
    parts[2] = partitioned ? v.red_n * (2 * v.red_h + 1) : 0;
    parts[3] = v.n_band * v.border;
    const int64_t sum = parts[0] + parts[1] + parts[2] + parts[3];
    return (sum + 1) & ~(int64_t)1;
}

/* Copies n rows of `stride` doubles of src (device memory) to dst (shared memory), segment p's rows
 * shifted by p (tiled_factor_doubles); padded = 0: as they are. */
__device__ __forceinline__ void tiled_factor_copy(double *dst, const double *src, int64_t n,
                                                  int stride, int padded, const banded_view &v)
{
    for (int64_t i = threadIdx.x; i < n * stride; i += blockDim.x) {
        const int64_t seg = i / stride / v.seg_len;
        dst[i + (padded ? (seg < v.n_seg - 1 ? seg : v.n_seg - 1) : 0)] = __ldg(src + i);
    }
}

/* Tiles of `width` members, `tiles_x` of them in each of the launch's groups of systems (2D line
 * groups at u + k group_stride), tile k of a group of threads taken by group tile_group + k
 * (groups of a block x blocks). Each block's threads form blockDim.x / group_threads tile groups,
 * each with its own barrier and area of shared memory, so that one group's staging overlaps
 * another's sweeps; SHARED: the block first copies the factor into shared memory, where the sweeps
 * read it without waiting on the L2 that streams the tiles. */
template <int H, int BORDER, int SHARED>
__global__ void __launch_bounds__(TILED_MAX_BLOCK_THREADS)
    banded_tiled_kernel(banded_view v, double *u, int64_t ld, int64_t m0, int64_t count,
                        int w_shift, int64_t tiles_x, int64_t groups, int64_t group_stride,
                        int group_threads, int64_t area_doubles)
{
    extern __shared__ __align__(16) double smem[];
    tiled_factor f = {v.seg_coef, v.seg_spike, v.red_coef, v.spike};
    double *areas = smem;
    if (SHARED) {
        int64_t parts[4];
        areas = smem + tiled_factor_doubles(v, parts);
        f.seg_coef = smem;
        f.seg_spike = f.seg_coef + parts[0];
        f.red_coef = f.seg_spike + parts[1];
        f.spike = f.red_coef + parts[2];
        tiled_factor_copy((double *)f.seg_coef, v.seg_coef, v.n_band, 2 * H + 1, 1, v);
        if (v.n_seg > 1) {
            tiled_factor_copy((double *)f.seg_spike, v.seg_spike, v.n_band, 2 * H, 1, v);
            tiled_factor_copy((double *)f.red_coef, v.red_coef, v.red_n, 2 * v.red_h + 1, 0, v);
        }
        if (BORDER) tiled_factor_copy((double *)f.spike, v.spike, v.n_band, BORDER, 0, v);
        __syncthreads();
    }
    const int group = threadIdx.x / group_threads, t = threadIdx.x % group_threads;
    const int tile_groups = blockDim.x / group_threads;
    double *area = areas + group * area_doubles;
    const int64_t tiles = tiles_x * groups;
    for (int64_t k = (int64_t)blockIdx.x * tile_groups + group; k < tiles;
         k += (int64_t)gridDim.x * tile_groups) {
        const int64_t gy = k / tiles_x, first = m0 + ((k % tiles_x) << w_shift);
        tiled_body<SHARED>(v, f, H, BORDER, area, u + gy * group_stride, ld, first, m0 + count,
                           w_shift, t, group_threads, 1 + group);
    }
}

extern "C" int cohort_cuda_banded_tile_width(const banded_view *v, size_t tile_bytes)
{
    if (tile_bytes == 0) tile_bytes = TILE_DEFAULT_BYTES;
    if (tile_bytes > cohort_cuda_shared_limit_bytes())
        tile_bytes = cohort_cuda_shared_limit_bytes();
    if (v->n_seg < 1 || v->n > INT32_MAX / TILE_THREADS) return 0;
    int width = 1;
    while (2 * width * v->n_seg <= TILE_THREADS) width *= 2;
    for (; width >= TILE_MIN_WIDTH; width /= 2)
        if ((size_t)banded_tile_bytes(v, width) <= tile_bytes) return width;
    return 0;
}

/* The members per tile of a tiled launch: the widest tile of the budget (max_width), halved while
 * it is wider than the batch needs or leaves the GPU with fewer than two blocks per SM (the y
 * lines of one 1024^2 field are 1,024 systems: 8 to a tile would be 128 blocks). A member's
 * arithmetic is the same at every width, so its bits do not depend on the batch it is in. */
static int tiled_launch_width(int max_width, int64_t count, int64_t groups, int *width)
{
    int sm_count = 0;
    COHORT_CALL(cohort_cuda_sm_count(&sm_count));
    int w = max_width;
    while (w > 1 && (w / 2 >= count || (count + w - 1) / w * groups < 2 * (int64_t)sm_count))
        w /= 2;
    *width = w;
    return COHORT_OK;
}

typedef void (*banded_tiled_kernel_fn)(banded_view, double *, int64_t, int64_t, int64_t, int,
                                       int64_t, int64_t, int64_t, int, int64_t);

/* The tiled kernel for v's half-bandwidth and border, its factor in shared memory or not. */
static banded_tiled_kernel_fn tiled_kernel_for(const banded_view *v, int shared, int *slot)
{
#define BANDED_TILED_MATCH(half, edge)                                                             \
    if (v->h == (half) && v->border == (edge)) {                                                   \
        *slot = 2 * (2 * ((half)-1) + ((edge) > 0)) + shared;                                      \
        return shared ? banded_tiled_kernel<half, edge, 1> : banded_tiled_kernel<half, edge, 0>;   \
    }
    BANDED_WARP_VARIANTS(BANDED_TILED_MATCH)
#undef BANDED_TILED_MATCH
    return NULL;
}

/* The tiled kernel for v, its shared-memory limit raised to the device's (once a kernel). */
static int tiled_kernel_ready(const banded_view *v, int shared, banded_tiled_kernel_fn *kernel)
{
    static int shared_limit_raised[8];
    int slot = 0;
    *kernel = tiled_kernel_for(v, shared, &slot);
    if (!shared_limit_raised[slot]) {
        COHORT_CUDA_CHECK(cudaFuncSetAttribute(*kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)cohort_cuda_shared_limit_bytes()));
        shared_limit_raised[slot] = 1;
    }
    return COHORT_OK;
}

/* A tile group's threads (whole warps) and its area of shared memory in doubles (tile, tips and
 * border values; a 16-byte multiple). */
static int tiled_group_threads(const banded_view *v, int width)
{
    return (width * v->n_seg + 31) / 32 * 32;
}

static int64_t tiled_area_doubles(const banded_view *v, int width)
{
    return (int64_t)(((size_t)banded_tile_bytes(v, width) / sizeof(double) + 1) & ~(size_t)1);
}

/* TILED_SHARED's tiles for tiles of at most `width` members: the width (narrowed down to 4
 * members where that keeps more members on an SM; narrower tiles would split the 32-byte sectors
 * of a row between tiles) and the tile groups of a block beside the factor's copy (0: none fits).
 */
static void tiled_shared_plan(const banded_view *v, int width, int *plan_width, int *plan_groups)
{
    int64_t parts[4];
    const size_t factor_bytes = (size_t)tiled_factor_doubles(*v, parts) * sizeof(double);
    *plan_width = width, *plan_groups = 0;
    for (int c = width; c >= 1 && (c >= 4 || c == width); c /= 2) {
        const size_t area = (size_t)tiled_area_doubles(v, c) * sizeof(double);
        if (factor_bytes + area > cohort_cuda_shared_limit_bytes()) continue;
        int g = (int)((cohort_cuda_shared_limit_bytes() - factor_bytes) / area);
        if (g > TILED_MAX_GROUPS) g = TILED_MAX_GROUPS;
        if (g > TILED_MAX_BLOCK_THREADS / tiled_group_threads(v, c))
            g = TILED_MAX_BLOCK_THREADS / tiled_group_threads(v, c);
        if (g * c > *plan_groups * *plan_width || *plan_groups == 0)
            *plan_width = c, *plan_groups = g;
    }
    if (*plan_groups == 0) *plan_width = 0;
}

/* A tiled block of tile_groups groups of tiles of w members: its shared memory (the factor's copy
 * with `shared`, then the groups' areas), its kernel (limit raised), and, where resident is not
 * NULL, the blocks of it an SM holds (the occupancy calculator). */
static int tiled_block(const banded_view *v, int shared, int w, int tile_groups, size_t *smem,
                       banded_tiled_kernel_fn *kernel, int *resident)
{
    int64_t parts[4];
    *smem = (shared ? (size_t)tiled_factor_doubles(*v, parts) * sizeof(double) : 0) +
            (size_t)tile_groups * (size_t)tiled_area_doubles(v, w) * sizeof(double);
    COHORT_CALL(tiled_kernel_ready(v, shared, kernel));
    if (resident)
        COHORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            resident, *kernel, tile_groups * tiled_group_threads(v, w), *smem));
    return COHORT_OK;
}

/* The members TILED (one tile of `width` a block) or TILED_SHARED (its plan's tile groups a
 * block) keeps resident on an SM. */
static int tiled_members_per_sm(const banded_view *v, int width, int shared, int *members)
{
    int w = width, tile_groups = 1, resident = 0;
    if (shared) tiled_shared_plan(v, width, &w, &tile_groups);
    *members = 0;
    if (tile_groups < 1) return COHORT_OK;
    size_t smem = 0;
    banded_tiled_kernel_fn kernel = NULL;
    COHORT_CALL(tiled_block(v, shared, w, tile_groups, &smem, &kernel, &resident));
    *members = resident * tile_groups * w;
    return COHORT_OK;
}

extern "C" int cohort_cuda_banded_resident_members(const banded_view *v, size_t tile_bytes,
                                                   int shared)
{
    const int width = cohort_cuda_banded_tile_width(v, tile_bytes);
    int members = 0;
    if (width > 0 && tiled_members_per_sm(v, width, shared, &members) != COHORT_OK) {
        cohort_error_clear();
        members = 0;
    }
    return members;
}

extern "C" int cohort_cuda_banded_tile_groups(const banded_view *v, size_t tile_bytes)
{
    int width = 0, groups = 0;
    const int max_width = cohort_cuda_banded_tile_width(v, tile_bytes);
    if (max_width > 0) tiled_shared_plan(v, max_width, &width, &groups);
    return groups;
}

/* One tiled launch of tiles of `width` members (tiled_launch_width). shared (TILED_SHARED): the
 * block copies the factor into shared memory and runs the plan's tile groups (no more than give
 * every SM a block), each taking tile after tile (2026-11-23: the sweeps' stalls on the factor
 * read through L1 were the tiled kernel's largest cost, PERFORMANCE.md); otherwise one tile a
 * block, the factor read through the read-only path. The arithmetic is the same either way and
 * at every width: the bits do not change. */
static int banded_tiled_launch(const banded_view *v, double *u, int64_t ld, int64_t m0,
                               int64_t count, int64_t groups, int64_t group_stride, int width,
                               int shared)
{
    int sm_count = 0;
    COHORT_CALL(cohort_cuda_sm_count(&sm_count));
    int w = width, tile_groups = 1;
    if (shared) tiled_shared_plan(v, width, &w, &tile_groups);
    if (tile_groups < 1)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "no tile of %d members of n = %lld rows fits beside the factor", width,
                           (long long)v->n);
    int shift = 0;
    while ((1 << shift) < w) ++shift;
    const int64_t tiles_x = (count + w - 1) / w, tiles = tiles_x * groups;
    const int64_t tiles_per_sm = (tiles + sm_count - 1) / sm_count;
    if (tiles_per_sm < tile_groups) tile_groups = (int)tiles_per_sm;
    const int group_threads = tiled_group_threads(v, w);
    const int64_t area_doubles = tiled_area_doubles(v, w);
    size_t smem = 0;
    int resident = 0;
    banded_tiled_kernel_fn kernel = NULL;
    COHORT_CALL(tiled_block(v, shared, w, tile_groups, &smem, &kernel, shared ? &resident : NULL));
    int64_t blocks = (tiles + tile_groups - 1) / tile_groups;
    if (shared) {
        if (resident < 1) resident = 1;
        if (blocks > (int64_t)resident * sm_count) blocks = (int64_t)resident * sm_count;
    }
    kernel<<<(unsigned)blocks, (unsigned)(tile_groups * group_threads), smem>>>(
        *v, u, ld, m0, count, shift, tiles_x, groups, group_stride, group_threads, area_doubles);
    COHORT_CUDA_CHECK_LAUNCH("banded_tiled_kernel");
    return COHORT_OK;
}

static int banded_warp_solve(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                             int64_t groups, int64_t group_stride, int width, double *stored_mean,
                             cudaStream_t stream);

/* AUTO's warp tile width for v at the default budgets: the widest that forms where v's form is
 * sequential (banded_form_of), else 0 (the queries of the warp path's stored means; banded_launch
 * decides the same way). */
static int auto_warp_width(const banded_view *v)
{
    return banded_form_of(v) == BANDED_FORM_SEQUENTIAL ? cohort_cuda_banded_warp_width(v, 0) : 0;
}

/* groups x count systems: those of group g at u + g * group_stride (grid.y, at most 65535 groups
 * per launch, on the portable path). */
static int banded_launch(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                         int64_t groups, int64_t group_stride, cohort_cuda_banded_path path,
                         size_t tile_bytes)
{
    /* AUTO solves v in its form (banded_form_of: the system alone decides it, never the count or
     * the device, so a member's bits depend neither on how members are batched nor on the
     * backend): sequential by the widest warp tile that forms, else the portable kernel;
     * partitioned by the tiled kernels; chunked by the chunked kernel. */
    const banded_form form = banded_form_of(v);
    /* members with factors of their own: the warp tiles or the portable kernel, which read them
     * from device memory (the tiled and chunked kernels stage one shared factor) */
    if (v->member_factor && path != COHORT_CUDA_BANDED_AUTO &&
        path != COHORT_CUDA_BANDED_PORTABLE && path != COHORT_CUDA_BANDED_WARP)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "members with factors of their own are solved by the warp tiles or the "
                           "portable kernel (AUTO, WARP or PORTABLE), not path %d",
                           (int)path);
    const int partitioned = path == COHORT_CUDA_BANDED_AUTO && form == BANDED_FORM_PARTITIONED;
    if (path == COHORT_CUDA_BANDED_CHUNKED ||
        (path == COHORT_CUDA_BANDED_AUTO && form == BANDED_FORM_CHUNKED))
        return banded_chunked_launch(v, u, ld, m0, count, groups, group_stride);
    const int max_width = cohort_cuda_banded_tile_width(v, tile_bytes);
    int shared_width = 0, shared_groups = 0;
    if (max_width > 0) tiled_shared_plan(v, max_width, &shared_width, &shared_groups);
    int warp_width = 0;
    if (path == COHORT_CUDA_BANDED_WARP) {
        warp_width = cohort_cuda_banded_warp_width(v, tile_bytes);
        if (warp_width == 0)
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                               "no warp tile of >= %d systems of n = %lld rows fits in %zu bytes",
                               WARP_MIN_WIDTH, (long long)v->n, tile_bytes);
    } else if (path == COHORT_CUDA_BANDED_AUTO && form == BANDED_FORM_SEQUENTIAL) {
        warp_width = cohort_cuda_banded_warp_width(v, 0);
    }
    if (warp_width > 0)
        return banded_warp_solve(v, u, ld, m0, count, groups, group_stride, warp_width, NULL, 0);
    if ((path == COHORT_CUDA_BANDED_TILED || path == COHORT_CUDA_BANDED_TILED_SHARED) &&
        max_width == 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "no tile of n = %lld rows (%d segments) fits in %zu bytes",
                           (long long)v->n, v->n_seg, tile_bytes);
    if (path == COHORT_CUDA_BANDED_TILED_SHARED && shared_groups == 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "no tile of n = %lld rows fits in shared memory beside its factor",
                           (long long)v->n);
    int shared = path == COHORT_CUDA_BANDED_TILED_SHARED;
    /* AUTO's sequential systems with no warp tile: the portable kernel; its partitioned ones
     * always have a tile (banded_form_of sizes it to the smallest budget cohort builds for) */
    const int portable = path == COHORT_CUDA_BANDED_PORTABLE || max_width == 0 ||
                         (path == COHORT_CUDA_BANDED_AUTO && !partitioned);
    /* TILED and TILED_SHARED give the same bits: TILED_SHARED where two tile groups fit beside
     * the factor (bench-banded; PERFORMANCE.md, "Figures behind the source's choices") */
    if (partitioned) shared = shared_groups >= 2;
    if (portable) {
        for (int64_t g0 = 0; g0 < groups; g0 += 65535) {
            const unsigned gy = (unsigned)(groups - g0 < 65535 ? groups - g0 : 65535);
            const dim3 grid((unsigned)((count + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS),
                            gy);
            banded_portable_kernel<<<grid, COHORT_CUDA_THREADS>>>(*v, u + g0 * group_stride, ld, m0,
                                                                  count, group_stride);
            COHORT_CUDA_CHECK_LAUNCH("banded_portable_kernel");
        }
        return COHORT_OK;
    }
    int width = 0;
    COHORT_CALL(tiled_launch_width(max_width, count, groups, &width));
    return banded_tiled_launch(v, u, ld, m0, count, groups, group_stride, width, shared);
    return COHORT_OK;
}

extern "C" int cohort_cuda_banded_solve_path(const banded_view *v, double *u, int64_t ld,
                                             int64_t m0, int64_t count,
                                             cohort_cuda_banded_path path, size_t tile_bytes)
{
    return banded_launch(v, u, ld, m0, count, 1, 0, path, tile_bytes);
}

static int cuda_solve(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                      int64_t groups, int64_t group_stride)
{
    return banded_launch(v, u, ld, m0, count, groups, group_stride, COHORT_CUDA_BANDED_AUTO, 0);
}

/* ---- the WARP path: the warp-tile kernel of banded_cuda.cuh with no right-hand side ---- */

/* The kernel built for v's half-bandwidth and border (plain or periodic), tiles of `width`
 * members and the solve Solve (banded_warp_solve_only or _mean), or NULL. */
template <class Solve>
static banded_warp_kernel_fn<Solve> warp_solve_kernel(const banded_view *v, int width)
{
#define BANDED_WARP_MATCH(half, edge)                                                              \
    if (v->h == (half) && v->border == (edge))                                                     \
        return v->member_factor                                                                    \
                   ? banded_warp_kernel_for<half, edge, Solve, 1>(banded_warp_solve_widths(),      \
                                                                  width)                           \
                   : banded_warp_kernel_for<half, edge, Solve, 0>(banded_warp_solve_widths(),      \
                                                                  width);
    BANDED_WARP_VARIANTS(BANDED_WARP_MATCH)
#undef BANDED_WARP_MATCH
    return NULL;
}

extern "C" int cohort_cuda_banded_warp_width(const banded_view *v, size_t tile_bytes)
{
    return warp_solve_kernel<banded_warp_solve_only>(v, WARP_MAX_WIDTH)
               ? banded_warp_width_for(v, tile_bytes)
               : 0;
}

static int banded_warp_solve(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                             int64_t groups, int64_t group_stride, int width, double *stored_mean,
                             cudaStream_t stream)
{
    if (stored_mean)
        return banded_warp_launch(warp_solve_kernel<banded_warp_solve_mean>(v, width),
                                  banded_warp_solve_mean(), v, u, u, NULL, ld, m0, count, groups,
                                  group_stride, width, 1, stored_mean, stream);
    return banded_warp_launch(warp_solve_kernel<banded_warp_solve_only>(v, width),
                              banded_warp_solve_only(), v, u, u, NULL, ld, m0, count, groups,
                              group_stride, width, 1, NULL, stream);
}

extern "C" int cohort_cuda_banded_auto_stores_mean(const banded_view *v)
{
    return auto_warp_width(v) > 0;
}

extern "C" int cohort_cuda_banded_solve_mean(const banded_view *v, double *u, int64_t ld,
                                             int64_t m0, int64_t count, double *member_mean,
                                             void *stream)
{
    const int width = auto_warp_width(v);
    if (width == 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "n = %lld, h = %d: AUTO does not take the warp path, which alone sums "
                           "the solutions as it stores them",
                           (long long)v->n, v->h);
    return banded_warp_solve(v, u, ld, m0, count, 1, 0, width, member_mean, (cudaStream_t)stream);
}

extern "C" const banded_kernels banded_kernels_cuda = {.solve = cuda_solve};
