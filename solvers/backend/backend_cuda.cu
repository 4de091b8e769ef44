/* The cuda backend: device memory, launches and CUDA error translation. Kernels are written in
 * C style around the COHORT_HD arithmetic of banded_numerics.h; this file exports only the
 * extern "C" functions and table of backend_cuda.h. */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <curand_kernel.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend/backend_cuda.h"
#include "backend/cohort_error.h"
#include "backend/layout_numerics.h"
#include "backend/reduction_numerics.h"
#include "banded/banded_numerics.h"
#include "models/model1d/model1d_numerics.h"
#include "stencil/stencil_numerics.h"

#define COHORT_CUDA_CHECK(expr)                                                                    \
    do {                                                                                           \
        cudaError_t cohort_cuda_rc_ = (expr);                                                      \
        if (cohort_cuda_rc_ != cudaSuccess)                                                        \
            return cohort_error_raise(COHORT_ERR_CUDA, __FILE__, __LINE__, "%s: %s (%s)", #expr,   \
                                      cudaGetErrorString(cohort_cuda_rc_),                         \
                                      cudaGetErrorName(cohort_cuda_rc_));                          \
    } while (0)

/* After a launch: a bad configuration shows at once, a fault at the next synchronisation. */
static int launch_status(const char *kernel, const char *file, int line)
{
    cudaError_t rc = cudaGetLastError();
    if (rc == cudaSuccess) return COHORT_OK;
    return cohort_error_raise(COHORT_ERR_CUDA, file, line, "launch of %s: %s (%s)", kernel,
                              cudaGetErrorString(rc), cudaGetErrorName(rc));
}
#define COHORT_CUDA_CHECK_LAUNCH(kernel)                                                           \
    do {                                                                                           \
        int cohort_launch_rc_ = launch_status((kernel), __FILE__, __LINE__);                       \
        if (cohort_launch_rc_ != COHORT_OK) return cohort_launch_rc_;                              \
    } while (0)

enum {
    PORTABLE_THREADS = 256,
    FILL_THREADS = 256,
    TILE_THREADS = 256, /* at most (members per tile) x (segments per member) threads */
    TILE_MIN_WIDTH = 4, /* below 4 members (32-byte rows) loads stop being coalesced */
    TILE_CHUNK = 8,     /* rows whose loads are issued together in a sweep */
    TILE_MAX_BYTES = 227 * 1024,
    /* AUTO takes the tiled path when a tile holds at least this many members per unit of
     * half-bandwidth (16 tridiagonal, 32 pentadiagonal): narrower tiles keep too few systems on
     * an SM to hide the latency of their sweeps, and the portable kernel is as fast or faster
     * there (bench-banded on an H100, 2026-11-22: tri up to N = 512, penta up to N = 256). */
    TILE_AUTO_MIN_WIDTH_PER_H = 16
};
static const size_t TILE_DEFAULT_BYTES = 96 * 1024;
/* The fused 1D step: each warp steps a tile of a warp's width of members, or half of it for long
 * members (narrower tiles lose to the separate kernels: 8 members of N = 1024 took 8.3 ms a step
 * against 8.0 ms, bench-model1d, H100); FUSED_DEFAULT_BYTES per tile leaves room for three tiles
 * and the factor in a block; at most FUSED_MAX_WARPS tiles per block. */
enum { FUSED_MAX_WIDTH = 32, FUSED_MIN_WIDTH = 16, FUSED_MAX_WARPS = 8 };
/* The fused kernel's terms for the solve alone (no right-hand side: f = u); not a model's. */
#define FUSED_SOLVE_ONLY (1u << 8)
static const size_t FUSED_DEFAULT_BYTES = 72 * 1024;

extern "C" int cohort_cuda_device_present(char *why, size_t len)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
        if (why && len) snprintf(why, len, "no usable CUDA device (%s)", cudaGetErrorString(rc));
        return 0;
    }
    if (count == 0) {
        if (why && len) snprintf(why, len, "no CUDA device found");
        return 0;
    }
    return 1;
}

extern "C" void cohort_cuda_runtime_versions(char *buf, size_t len)
{
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
        snprintf(buf, len, "CUDA runtime %d.%d, driver none", runtime / 1000, runtime % 1000 / 10);
    else
        snprintf(buf, len, "CUDA runtime %d.%d, driver %d.%d", runtime / 1000, runtime % 1000 / 10,
                 driver / 1000, driver % 1000 / 10);
}

static int cuda_describe(char *buf, size_t len)
{
    int dev = 0;
    cudaDeviceProp prop;
    COHORT_CUDA_CHECK(cudaGetDevice(&dev));
    COHORT_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    snprintf(buf, len, "%s (sm_%d%d, %d SMs, %.1f GiB)", prop.name, prop.major, prop.minor,
             prop.multiProcessorCount, (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return COHORT_OK;
}

static int cuda_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    size_t f = 0, t = 0;
    COHORT_CUDA_CHECK(cudaMemGetInfo(&f, &t));
    if (free_bytes) *free_bytes = f;
    if (total_bytes) *total_bytes = t;
    return COHORT_OK;
}

static int cuda_alloc(void **ptr, size_t bytes)
{
    if (!ptr) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "ptr is NULL");
    *ptr = NULL;
    cudaError_t rc = cudaMalloc(ptr, bytes ? bytes : 64);
    if (rc == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* clear the sticky-free allocation error */
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "cannot allocate %zu bytes of device memory",
                           bytes);
    }
    COHORT_CUDA_CHECK(rc);
    return COHORT_OK;
}

static int cuda_release(void *ptr)
{
    if (ptr) COHORT_CUDA_CHECK(cudaFree(ptr));
    return COHORT_OK;
}

static int cuda_copy_to_device(void *dst, const void *src, size_t bytes)
{
    COHORT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    return COHORT_OK;
}

static int cuda_copy_to_host(void *dst, const void *src, size_t bytes)
{
    COHORT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    return COHORT_OK;
}

static int cuda_copy_within(void *dst, const void *src, size_t bytes)
{
    COHORT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    return COHORT_OK;
}

__global__ void fill_kernel(double *dst, double value, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = value;
}

static int cuda_fill(double *dst, double value, size_t count)
{
    if (count == 0) return COHORT_OK;
    size_t blocks = (count + FILL_THREADS - 1) / FILL_THREADS;
    fill_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), FILL_THREADS>>>(dst, value, count);
    COHORT_CUDA_CHECK_LAUNCH("fill_kernel");
    return COHORT_OK;
}

static int cuda_synchronize(void)
{
    COHORT_CUDA_CHECK(cudaDeviceSynchronize());
    return COHORT_OK;
}

/* ---- random numbers and layout ---- */

/* One thread per pair of values (2p, 2p + 1) of a member: cuRAND's device API at stream
 * first + k, offset 4p words, two doubles from one Philox block (backend/philox.h states the
 * mapping the cpu backend draws with Random123). */
__global__ void uniform_members_kernel(double *out, int64_t n, int64_t first, int64_t count,
                                       uint64_t seed)
{
    const int64_t pairs = (n + 1) / 2;
    const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (t >= pairs * count) return;
    const int64_t k = t / pairs, p = t % pairs;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, (unsigned long long)(first + k), (unsigned long long)(4 * p), &state);
    const double2 u = curand_uniform2_double(&state);
    out[k * n + 2 * p] = u.x;
    if (2 * p + 1 < n) out[k * n + 2 * p + 1] = u.y;
}

static int cuda_uniform_members(double *out, int64_t n, int64_t first, int64_t count, uint64_t seed)
{
    const int64_t threads = (n + 1) / 2 * count;
    if (threads == 0) return COHORT_OK;
    uniform_members_kernel<<<(unsigned)((threads + FILL_THREADS - 1) / FILL_THREADS),
                             FILL_THREADS>>>(out, n, first, count, seed);
    COHORT_CUDA_CHECK_LAUNCH("uniform_members_kernel");
    return COHORT_OK;
}

__global__ void interleave_kernel(const double *src, int64_t member_stride, double scale,
                                  double shift, int remove_mean, const double *member_scale,
                                  double *dst, int64_t n, int64_t ld, int64_t m0, int64_t count)
{
    const int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (k < count)
        layout_interleave_member(src + k * member_stride, scale, shift, remove_mean,
                                 member_scale ? member_scale[k] : 1.0, dst + m0 + k, n, ld);
}

static int cuda_interleave(const double *src, int64_t member_stride, double scale, double shift,
                           int remove_mean, const double *member_scale, double *dst, int64_t n,
                           int64_t ld, int64_t m0, int64_t count)
{
    const int64_t blocks = (count + PORTABLE_THREADS - 1) / PORTABLE_THREADS;
    interleave_kernel<<<(unsigned)blocks, PORTABLE_THREADS>>>(
        src, member_stride, scale, shift, remove_mean, member_scale, dst, n, ld, m0, count);
    COHORT_CUDA_CHECK_LAUNCH("interleave_kernel");
    return COHORT_OK;
}

/* ---- batched banded solve: the portable path ---- */

/* Group g of a launch (blockIdx.y) solves the systems at u + (group0 + g) * group_stride. */
__global__ void __launch_bounds__(PORTABLE_THREADS)
    banded_portable_kernel(banded_view v, double *u, int64_t ld, int64_t m0, int64_t count,
                           int64_t group_stride)
{
    const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m >= count) return;
    double *x = u + blockIdx.y * group_stride + m0 + m;
    if (v.h == 1 && v.border == 0)
        banded_system_solve(&v, 1, 0, x, ld);
    else if (v.h == 1)
        banded_system_solve(&v, 1, 1, x, ld);
    else if (v.border == 0)
        banded_system_solve(&v, 2, 0, x, ld);
    else
        banded_system_solve(&v, 2, 2, x, ld);
}

/* ---- batched banded solve: the tiled path ---- */

/* banded_band_solve on a column in shared memory. The sweep is a chain of one multiply-add per
 * row; to keep that chain from waiting on memory, the right-hand sides and the factor rows of
 * TILE_CHUNK rows are loaded into registers before their multiply-adds (a store to the tile may
 * alias the next row's load as far as the compiler knows, so it would not hoist them itself;
 * the factor goes through the read-only path). */
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
            for (int k = 0; k < hb; ++k) row[q][k] = __ldg(coef + (i + q) * stride + k);
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
            for (int k = hb; k <= 2 * hb; ++k) row[q][k] = __ldg(coef + (i - q) * stride + k);
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
 * spike rows (read-only path) and values of TILE_CHUNK rows loaded before their stores, as in
 * tile_band_solve. */
__device__ __forceinline__ void tile_segment_correct(const double *__restrict__ seg_spike, int h,
                                                     int start, int end, double *x, int s,
                                                     const double *next_top,
                                                     const double *prev_bottom)
{
    int i = start;
    for (; i + TILE_CHUNK <= end; i += TILE_CHUNK) {
        double g[TILE_CHUNK], spike[TILE_CHUNK][2 * BANDED_MAX_HALF_BANDWIDTH];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            g[q] = x[(i - start + q) * s];
            for (int k = 0; k < 2 * h; ++k) spike[q][k] = __ldg(seg_spike + (i + q) * 2 * h + k);
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

/* Where row i of member g lives in a tile of w members per row: member fastest, plus one empty
 * row after each of the first last_seg segments of 1 << seg_shift rows, so that threads sweeping
 * different segments at the same offset (a warp spans several segments when the tile is narrower
 * than 32 members) hit different banks; last_seg = 0: no padding. */
__device__ __forceinline__ int tile_slot(int i, int g, int w, int seg_shift, int last_seg)
{
    const int seg = i >> seg_shift;
    return (i + (seg < last_seg ? seg : last_seg)) * w + g;
}

/* The slot of row i of member g in the tiled solve's tile (seg_len is a power of two). */
__device__ __forceinline__ int tile_index(const banded_view &v, int i, int g, int w)
{
    return tile_slot(i, g, w, __ffs(v.seg_len) - 1, v.n_seg - 1);
}

/* Issues the copies that stage rows [0, rows) of members [0, width) of base (leading dimension
 * ld) into a tile of w = 1 << w_shift members per row laid out as tile_slot; thread t of
 * `threads` takes every threads-th pair. The caller commits, waits and synchronises. Pairs of
 * members go in 16-byte copies that bypass L1 (cp.async.cg), so that the streaming tile does not
 * evict the factor rows the sweeps read through L1; 8-byte copies (cp.async.ca) where a pair is
 * not 16-byte aligned (odd ld, or a first member off a 16-byte boundary: an odd member, or a 2D
 * line group at an odd offset) or is cut by the end. An unpadded, aligned, full tile whose rows
 * the threads cover in whole steps takes a loop of one copy and two additions per pair. */
__device__ __forceinline__ void tile_stage_issue(double *tile, const double *base, int64_t ld,
                                                 int rows, int w_shift, int width, int seg_shift,
                                                 int last_seg, int t, int threads)
{
    const int w = 1 << w_shift, half = w >> 1;
    const int aligned = (ld & 1) == 0 && ((uintptr_t)base & 15u) == 0;
    if (last_seg == 0 && aligned && width == w && threads % half == 0) {
        const int step = threads / half; /* rows per pass of the threads */
        int i = t / half;
        const int g = (t % half) * 2;
        unsigned dst = (unsigned)__cvta_generic_to_shared(tile + i * w + g);
        const double *src = base + (int64_t)i * ld + g;
        for (; i < rows; i += step, dst += step * w * sizeof(double), src += step * ld)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
        return;
    }
    for (int idx = t; idx < (rows << (w_shift - 1)); idx += threads) {
        const int i = idx >> (w_shift - 1), g = (idx & (half - 1)) * 2;
        double *dst = tile + tile_slot(i, g, w, seg_shift, last_seg);
        const double *src = base + (int64_t)i * ld + g;
        if (aligned && g + 1 < width) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
                             (unsigned)__cvta_generic_to_shared(dst)),
                         "l"(src));
        } else {
            if (g < width) __pipeline_memcpy_async(dst, src, sizeof(double));
            if (g + 1 < width) __pipeline_memcpy_async(dst + 1, src + 1, sizeof(double));
        }
    }
}

/* One tile: members [first, first + width) x all n rows, with one thread per (member, segment).
 * Every element of u is read once (cp.async, coalesced across members) and written once. On
 * chip: each thread solves its segment's block, one thread per member solves the reduced system
 * of the segment tips, each thread corrects its segment with the spikes, and the periodic
 * correction x_t = p - Q x_b is applied as the tile is written back. */
__device__ __forceinline__ void tiled_body(const banded_view &v, int h, int border, double *u,
                                           int64_t ld, int64_t m0, int64_t count, int w_shift)
{
    extern __shared__ __align__(16) double smem[];
    const int w = 1 << w_shift, P = v.n_seg, nb = (int)v.n_band, n = (int)v.n;
    const int total = n << w_shift, red_n = (int)v.red_n;
    double *tile = smem;
    double *tips = smem + total + P * w; /* red_n x w */
    double *xbs = tips + w * red_n;      /* border x w */
    const int64_t first = m0 + ((int64_t)blockIdx.x << w_shift);
    const int width = (int)(m0 + count - first < w ? m0 + count - first : w);
    double *base = u + first;
    tile_stage_issue(tile, base, ld, n, w_shift, width, __ffs(v.seg_len) - 1, P - 1, threadIdx.x,
                     blockDim.x);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();

    const int p = threadIdx.x >> w_shift, g = threadIdx.x & (w - 1), stride = 2 * h + 1;
    const int active = g < width;
    const int start = (int)banded_segment_start(&v, p), end = (int)banded_segment_end(&v, p);
    double *x = tile + tile_index(v, start, g, w);
    double *my_tips = tips + g; /* member fastest: lanes of a warp hit consecutive banks */
    if (active) {
        tile_band_solve(v.seg_coef + start * stride, end - start, h, x, w);
        if (P > 1) banded_segment_tips(&v, h, p, x, w, my_tips, w);
    }
    if (P > 1) {
        __syncthreads();
        if (active && p == 0) tile_band_solve(v.red_coef, red_n, 3 * h - 1, my_tips, w);
        __syncthreads();
        if (active) {
            double next_top[BANDED_MAX_HALF_BANDWIDTH], prev_bottom[BANDED_MAX_HALF_BANDWIDTH];
            banded_segment_neighbours(&v, h, p, my_tips, w, next_top, prev_bottom);
            tile_segment_correct(v.seg_spike, h, start, end, x, w, next_top, prev_bottom);
        }
    }
    if (border) {
        __syncthreads();
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
    __syncthreads();
#pragma unroll 4
    for (int idx = threadIdx.x; idx < total; idx += blockDim.x) {
        const int i = idx >> w_shift, gi = idx & (w - 1);
        if (gi >= width) continue;
        double val = tile[tile_index(v, i, gi, w)];
        if (border && i < nb) {
            double xb[BANDED_MAX_HALF_BANDWIDTH], q_row[BANDED_MAX_HALF_BANDWIDTH];
            for (int j = 0; j < border; ++j) {
                xb[j] = xbs[j * w + gi];
                q_row[j] = __ldg(v.spike + i * border + j);
            }
            val = banded_border_correct(q_row, border, val, xb);
        }
        __stcs(base + (int64_t)i * ld + gi, val);
    }
}

__global__ void __launch_bounds__(TILE_THREADS)
    banded_tiled_kernel(banded_view v, double *u, int64_t ld, int64_t m0, int64_t count,
                        int w_shift, int64_t group_stride)
{
    u += blockIdx.y * group_stride;
    if (v.h == 1 && v.border == 0)
        tiled_body(v, 1, 0, u, ld, m0, count, w_shift);
    else if (v.h == 1)
        tiled_body(v, 1, 1, u, ld, m0, count, w_shift);
    else if (v.border == 0)
        tiled_body(v, 2, 0, u, ld, m0, count, w_shift);
    else
        tiled_body(v, 2, 2, u, ld, m0, count, w_shift);
}

static size_t tile_bytes_for(const banded_view *v, int width)
{
    return ((size_t)(v->n + v->n_seg) * width + (size_t)width * (size_t)v->red_n +
            (size_t)width * (size_t)v->border) *
           sizeof(double);
}

extern "C" int cohort_cuda_banded_tile_width(const banded_view *v, size_t tile_bytes)
{
    if (tile_bytes == 0) tile_bytes = TILE_DEFAULT_BYTES;
    if (tile_bytes > TILE_MAX_BYTES) tile_bytes = TILE_MAX_BYTES;
    if (v->n_seg < 1 || v->n > INT32_MAX / TILE_THREADS) return 0;
    int width = 1;
    while (2 * width * v->n_seg <= TILE_THREADS) width *= 2;
    for (; width >= TILE_MIN_WIDTH; width /= 2)
        if (tile_bytes_for(v, width) <= tile_bytes) return width;
    return 0;
}

static int banded_warp_launch(const banded_view *v, double *u, int64_t ld, int64_t m0,
                              int64_t count, int64_t groups, int64_t group_stride, int width);

/* groups x count systems: those of group g at u + g * group_stride (grid.y, at most 65535 groups
 * per launch, on the portable and tiled paths). */
static int banded_launch(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                         int64_t groups, int64_t group_stride, cohort_cuda_banded_path path,
                         size_t tile_bytes)
{
    /* AUTO decides by the system alone, never by the count: a member's solution then does not
     * depend on how members are batched (the run's chunks, 2D line groups) */
    const int width = cohort_cuda_banded_tile_width(v, tile_bytes);
    int warp_width = 0;
    if (path == COHORT_CUDA_BANDED_WARP) {
        warp_width = cohort_cuda_banded_warp_width(v, tile_bytes);
        if (warp_width == 0)
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                               "no warp tile of >= %d systems of n = %lld rows fits in %zu bytes",
                               FUSED_MIN_WIDTH, (long long)v->n, tile_bytes);
    } else if (path == COHORT_CUDA_BANDED_AUTO) {
        /* WARP wherever it forms a tile, except plain tridiagonal systems with half-warp tiles,
         * where the tiled path's many threads per system win (bench-banded, H100: N = 512, 0.29
         * against 0.35 ms at M = 2^16; for periodic and pentadiagonal systems WARP wins there) */
        warp_width = cohort_cuda_banded_warp_width(v, 0);
        if (v->h == 1 && v->border == 0 && warp_width < FUSED_MAX_WIDTH &&
            width >= TILE_AUTO_MIN_WIDTH_PER_H * v->h)
            warp_width = 0;
    }
    if (warp_width > 0)
        return banded_warp_launch(v, u, ld, m0, count, groups, group_stride, warp_width);
    if (path == COHORT_CUDA_BANDED_TILED && width == 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "no tile of >= %d members of n = %lld rows (%d segments) fits in %zu "
                           "bytes",
                           TILE_MIN_WIDTH, (long long)v->n, v->n_seg, tile_bytes);
    const int portable =
        path == COHORT_CUDA_BANDED_PORTABLE || width == 0 ||
        (path == COHORT_CUDA_BANDED_AUTO && width < TILE_AUTO_MIN_WIDTH_PER_H * v->h);
    static int shared_limit_raised = 0;
    if (!portable && !shared_limit_raised) {
        COHORT_CUDA_CHECK(cudaFuncSetAttribute(
            banded_tiled_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, TILE_MAX_BYTES));
        shared_limit_raised = 1;
    }
    int shift = 0;
    while ((1 << shift) < width) ++shift;
    for (int64_t g0 = 0; g0 < groups; g0 += 65535) {
        const unsigned gy = (unsigned)(groups - g0 < 65535 ? groups - g0 : 65535);
        double *base = u + g0 * group_stride;
        if (portable) {
            const dim3 grid((unsigned)((count + PORTABLE_THREADS - 1) / PORTABLE_THREADS), gy);
            banded_portable_kernel<<<grid, PORTABLE_THREADS>>>(*v, base, ld, m0, count,
                                                               group_stride);
            COHORT_CUDA_CHECK_LAUNCH("banded_portable_kernel");
        } else {
            const dim3 grid((unsigned)((count + width - 1) / width), gy);
            banded_tiled_kernel<<<grid, (unsigned)(width * v->n_seg), tile_bytes_for(v, width)>>>(
                *v, base, ld, m0, count, shift, group_stride);
            COHORT_CUDA_CHECK_LAUNCH("banded_tiled_kernel");
        }
    }
    return COHORT_OK;
}

extern "C" int cohort_cuda_banded_solve_path(const banded_view *v, double *u, int64_t ld,
                                             int64_t m0, int64_t count,
                                             cohort_cuda_banded_path path, size_t tile_bytes)
{
    return banded_launch(v, u, ld, m0, count, 1, 0, path, tile_bytes);
}

static int cuda_banded_solve(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                             int64_t groups, int64_t group_stride)
{
    return banded_launch(v, u, ld, m0, count, groups, group_stride, COHORT_CUDA_BANDED_AUTO, 0);
}

/* ---- 1D model right-hand sides: one thread per member, a window of five rows in registers, so
 * each value of u is read once ---- */

__global__ void __launch_bounds__(PORTABLE_THREADS)
    model1d_rhs_kernel(model1d_rhs r, const double *__restrict__ u, double *__restrict__ f,
                       const double *__restrict__ mean, const double *__restrict__ member_f0,
                       int64_t n, int64_t ld, int64_t m0, int64_t count)
{
    const int64_t m = m0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m >= m0 + count) return;
    const double mu = mean ? mean[m] : 0.0, f0 = member_f0 ? member_f0[m] : r.f0;
    const double drift = mean ? model1d_member_mean(u + m, n, ld) : 0.0; /* projected out */
    if (n < MODEL1D_WINDOW) { /* the window would wrap onto itself: index each neighbour */
        for (int64_t i = 0; i < n; ++i)
            f[i * ld + m] = model1d_rhs_at(&r, u + m, n, ld, i, mu, drift, f0);
        return;
    }
    double c[MODEL1D_WINDOW];
    for (int k = 0; k < MODEL1D_WINDOW; ++k) {
        const int64_t j = k - MODEL1D_RADIUS;
        c[k] = u[(j < 0 ? j + n : j) * ld + m];
    }
    for (int64_t i = 0; i < n; ++i) {
        f[i * ld + m] = model1d_rhs_point(&r, c, mu, drift, r.forcing ? r.forcing[i] : 0.0, f0);
        for (int k = 0; k < MODEL1D_WINDOW - 1; ++k) c[k] = c[k + 1];
        const int64_t next = i + MODEL1D_RADIUS + 1;
        c[MODEL1D_WINDOW - 1] = __ldcs(u + (next < n ? next : next - n) * ld + m);
    }
}

/* ---- the 1D step in one pass: the right-hand side and the banded solve fused ---- */

/* One system's step, by one thread, on its column x[i * w] of a tile in shared memory holding
 * all n rows of u (each value of u read from device memory once; each value of out written once;
 * the separate kernels read u twice, for the drift and the window, write f, and the solve reads
 * and writes it again). The member's mean (the drift it projects out); the forward sweep, which
 * computes f_i from a register window of u as it goes and writes y_i over u_i (the window's next
 * row, i + 4, is read before row i + 4 is written; rows 0..3, needed again at the periodic end,
 * are kept in registers); the backward sweep, writing p = T^{-1} f over y; the periodic border
 * from p; and the store of x = p - Q x_b. The arithmetic is model1d_rhs_point's and
 * banded_system_solve's, in their order, so the result is the separate rhs kernel's followed by
 * the portable solve's, bit for bit. coef and spike are the copies in shared memory of v's.
 * TERMS is r's terms as a constant: the tests of absent
 * terms fold away and no branch cuts the unrolled rows apart, so their right-hand sides overlap.
 * A model's step needs n >= MODEL1D_WINDOW (the window must not wrap onto itself). With TERMS =
 * FUSED_SOLVE_ONLY there is no right-hand side, f = u: the banded solve alone, plain (BORDER = 0)
 * or periodic (BORDER = H), the batched solver's WARP path. */
template <int H, int BORDER, unsigned TERMS>
__device__ __forceinline__ void fused_member_step(const model1d_rhs &r_in, const banded_view &v,
                                                  const double *coef, const double *spike,
                                                  double *x, int w, double *dst, int64_t ld,
                                                  double mu, int use_mean)
{
    static_assert(!(TERMS & MODEL1D_TERM_FORCING),
                  "the fused step has no forcing term: ch1d_forced takes the separate kernels");
    enum { AHEAD = MODEL1D_RADIUS + 1, SOLVE_ONLY = TERMS == FUSED_SOLVE_ONLY };
    model1d_rhs r = r_in;
    r.terms = TERMS;
    const int n = (int)v.n, nb = (int)v.n_band, stride = 2 * H + 1;
    const double drift = use_mean ? model1d_member_mean(x, n, w) : 0.0;
    double c[MODEL1D_WINDOW] = {0.0}, head[AHEAD] = {0.0}, carry[BANDED_MAX_CARRY] = {0.0};
    if (!SOLVE_ONLY) {
        for (int k = 0; k < MODEL1D_WINDOW; ++k) c[k] = x[((k - MODEL1D_RADIUS + n) % n) * w];
        for (int k = 0; k < AHEAD; ++k) head[k] = x[k * w];
    }
    /* With a few warps per SM nothing but the thread's own instructions hides a latency, so each
     * sweep reads its operands a chunk of TILE_CHUNK rows ahead: the window's rows and the
     * factor's before the forward chunk, whose right-hand sides overlap them; the next chunk's
     * before the current one in the backward sweep and the store. */
    auto forward_row = [&](int i, double cur, double next, const double *lower, bool band) {
        const double f = SOLVE_ONLY ? cur : model1d_rhs_point(&r, c, mu, drift, 0.0, 0.0);
        if (band) {
            const double y = banded_forward_value(lower, H, f, carry);
            banded_carry_push(carry, H, y);
            x[i * w] = y;
        } else {
            x[i * w] = f; /* the border rows keep their right-hand sides d_b */
        }
        for (int k = 0; k < MODEL1D_WINDOW - 1; ++k) c[k] = c[k + 1];
        c[MODEL1D_WINDOW - 1] = next;
    };
    int i = 0;
    for (; i + TILE_CHUNK <= n - AHEAD; i += TILE_CHUNK) { /* rows < n - AHEAD <= nb: band rows */
        double cur[TILE_CHUNK], next[TILE_CHUNK], lower[TILE_CHUNK][H];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            cur[q] = x[(i + q) * w]; /* f itself when SOLVE_ONLY (else unused and dropped) */
            next[q] = x[(i + AHEAD + q) * w];
            for (int k = 0; k < H; ++k) lower[q][k] = coef[(i + q) * stride + k];
        }
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) forward_row(i + q, cur[q], next[q], lower[q], true);
    }
    for (; i < n - AHEAD; ++i)
        forward_row(i, x[i * w], x[(i + AHEAD) * w], coef + i * stride, true);
    for (; i < n; ++i) {
        forward_row(i, x[i * w], head[0], coef + i * stride, i < nb);
        for (int k = 0; k < AHEAD - 1; ++k) head[k] = head[k + 1];
    }

    /* backward: chunk [top - TILE_CHUNK + 1, top] from its loaded y and upper_k, 1/pivot */
    for (int k = 0; k < BANDED_MAX_CARRY; ++k) carry[k] = 0.0;
    double y[TILE_CHUNK], upper[TILE_CHUNK][2 * H + 1]; /* [k] = coef entry k, k >= H used */
    auto backward_load = [&](int top) {
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            y[q] = x[(top - q) * w];
            for (int k = H; k <= 2 * H; ++k) upper[q][k] = coef[(top - q) * stride + k];
        }
    };
    auto backward_row = [&](int row, double yi, const double *coef_row) {
        const double p = banded_backward_value(coef_row, H, yi, carry);
        banded_carry_push(carry, H, p);
        x[row * w] = p;
    };
    i = nb - 1;
    if (i >= TILE_CHUNK - 1) backward_load(i);
    for (; i >= TILE_CHUNK - 1; i -= TILE_CHUNK) {
        double y_cur[TILE_CHUNK], upper_cur[TILE_CHUNK][2 * H + 1];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            y_cur[q] = y[q];
            for (int k = H; k <= 2 * H; ++k) upper_cur[q][k] = upper[q][k];
        }
        if (i - TILE_CHUNK >= TILE_CHUNK - 1) backward_load(i - TILE_CHUNK); /* rows not written */
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) backward_row(i - q, y_cur[q], upper_cur[q]);
    }
    for (; i >= 0; --i) backward_row(i, x[i * w], coef + i * stride);

    /* x_t = p - Q x_b, stored once */
    double xb[BANDED_MAX_HALF_BANDWIDTH] = {0.0};
    banded_border_solve(&v, BORDER, x, w, xb);
    double p[TILE_CHUNK], q_row[TILE_CHUNK][BORDER > 0 ? BORDER : 1];
    auto store_load = [&](int row0) {
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            p[q] = x[(row0 + q) * w];
            for (int j = 0; j < BORDER; ++j) q_row[q][j] = spike[(row0 + q) * BORDER + j];
        }
    };
    i = 0;
    if (TILE_CHUNK <= nb) store_load(0);
    for (; i + TILE_CHUNK <= nb; i += TILE_CHUNK) {
        double value[TILE_CHUNK];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q)
            value[q] = banded_border_correct(q_row[q], BORDER, p[q], xb);
        if (i + 2 * TILE_CHUNK <= nb) store_load(i + TILE_CHUNK);
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) __stcs(dst + (i + q) * ld, value[q]);
    }
    for (; i < nb; ++i)
        __stcs(dst + i * ld, banded_border_correct(spike + i * BORDER, BORDER, x[i * w], xb));
    for (int j = 0; j < BORDER; ++j) __stcs(dst + (nb + j) * ld, xb[j]);
}

/* The doubles of the factor a fused block keeps in shared memory, before its tiles: rounded up
 * to a pair so that the tiles stay 16-byte aligned. */
__host__ __device__ inline int fused_factor_doubles(const banded_view &v)
{
    const int words = (int)v.n_band * (2 * v.h + 1) + (int)v.n_band * v.border;
    return (words + 1) & ~1;
}

/* A persistent kernel: each block copies the factor rows into shared memory once, then each of its
 * warps takes tiles of w = 1 << w_shift members in turn, stages all their rows in its own part of
 * shared memory (cp.async), and steps them, one thread per member. The warps of a block run out of
 * step, so one warp's staging overlaps another's sweeps, and the factor rows every sweep reads come
 * from shared memory (read through L1, they waited hundreds of cycles per chunk on L2 behind the
 * streaming tiles: ncu, long-scoreboard stalls). */
template <int H, int BORDER, unsigned TERMS>
__device__ __forceinline__ void
fused_step_body(const model1d_rhs &r, const banded_view &v, const double *u, double *out,
                const double *__restrict__ mean, int64_t ld, int64_t m0, int64_t count,
                int64_t groups, int64_t group_stride, int w_shift)
{
    extern __shared__ __align__(16) double smem[];
    const int n = (int)v.n, nb = (int)v.n_band, w = 1 << w_shift;
    const int warps = blockDim.x >> 5, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    double *coef = smem, *spike = coef + nb * (2 * H + 1);
    for (int k = threadIdx.x; k < nb * (2 * H + 1); k += blockDim.x) coef[k] = v.coef[k];
    for (int k = threadIdx.x; k < nb * BORDER; k += blockDim.x) spike[k] = v.spike[k];
    __syncthreads();
    double *tile = smem + fused_factor_doubles(v) + (size_t)warp * n * w;
    const int64_t tiles = (count + w - 1) >> w_shift; /* per group */
    for (int64_t t = (int64_t)blockIdx.x * warps + warp; t < tiles * groups;
         t += (int64_t)gridDim.x * warps) {
        const int64_t group = t / tiles, first = m0 + ((t - group * tiles) << w_shift);
        const int width = (int)(m0 + count - first < w ? m0 + count - first : w);
        const int64_t offset = group * group_stride + first;
        tile_stage_issue(tile, u + offset, ld, n, w_shift, width, 30, 0, lane, 32);
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncwarp();
        if (lane < width) {
            const int64_t m = first + lane;
            fused_member_step<H, BORDER, TERMS>(r, v, coef, spike, tile + lane, w,
                                                out + offset + lane, ld, mean ? mean[m] : 0.0,
                                                mean != NULL);
        }
        __syncwarp(); /* the tile is free for the next stage */
    }
}

/* The (half-bandwidth, border, terms) the fused kernel is built for: the 1D models (model1d.c)
 * and the solve alone, plain and periodic; any other right-hand side takes the separate kernels.
 * Not ch1d_forced: its WENO derivative (four divisions a point) is a chain of long latencies that
 * a few warps per SM cannot hide; fused it took 48 ms a step at N = 512, M = 589,824 against
 * 11.6 ms separate (bench-model1d, H100). */
#define FUSED_VARIANTS(X)                                                                          \
    X(1, 1, MODEL1D_TERM_STENCIL)   /* diffusion1d */                                              \
    X(2, 2, MODEL1D_TERM_STENCIL)   /* hyperdiffusion1d */                                         \
    X(2, 2, MODEL1D_TERM_NONLINEAR) /* ch1d */                                                     \
    X(1, 0, FUSED_SOLVE_ONLY)                                                                      \
    X(1, 1, FUSED_SOLVE_ONLY)                                                                      \
    X(2, 0, FUSED_SOLVE_ONLY)                                                                      \
    X(2, 2, FUSED_SOLVE_ONLY)

template <int H, int BORDER, unsigned TERMS>
__global__ void __launch_bounds__(32 * FUSED_MAX_WARPS)
    model1d_fused_kernel(model1d_rhs r, banded_view v, const double *u, double *out,
                         const double *mean, int64_t ld, int64_t m0, int64_t count, int64_t groups,
                         int64_t group_stride, int w_shift)
{
    fused_step_body<H, BORDER, TERMS>(r, v, u, out, mean, ld, m0, count, groups, group_stride,
                                      w_shift);
}

typedef void (*fused_kernel_fn)(model1d_rhs, banded_view, const double *, double *, const double *,
                                int64_t, int64_t, int64_t, int64_t, int64_t, int);

/* The kernel built for these terms and v's half-bandwidth and border, or NULL. */
static fused_kernel_fn fused_kernel_for(unsigned terms, const banded_view *v)
{
#define FUSED_MATCH(half, edge, set)                                                               \
    if (v->h == (half) && v->border == (edge) && terms == (set))                                   \
        return model1d_fused_kernel<half, edge, set>;
    FUSED_VARIANTS(FUSED_MATCH)
#undef FUSED_MATCH
    return NULL;
}

/* Members per tile of the fused kernel for v and terms: the widest power of two from
 * FUSED_MAX_WIDTH down to FUSED_MIN_WIDTH whose tile fits tile_bytes (0: the default) and, with
 * the factor, one block; 0 where none does or no kernel is built. */
static int fused_width(unsigned terms, const banded_view *v, size_t tile_bytes)
{
    if (tile_bytes == 0) tile_bytes = FUSED_DEFAULT_BYTES;
    const size_t factor = (size_t)fused_factor_doubles(*v) * sizeof(double);
    if (!fused_kernel_for(terms, v) || factor >= TILE_MAX_BYTES) return 0;
    for (int width = FUSED_MAX_WIDTH; width >= FUSED_MIN_WIDTH; width /= 2) {
        const size_t bytes = (size_t)v->n * (size_t)width * sizeof(double);
        if (bytes <= tile_bytes && factor + bytes <= TILE_MAX_BYTES) return width;
    }
    return 0;
}

/* Launches the fused kernel for (terms, v) with tiles of `width` members: as many warps per
 * block as tiles fit beside the factor (at most FUSED_MAX_WARPS), as many blocks as stay resident
 * (no more than there are tiles to take). */
static int fused_launch(const model1d_rhs *r, unsigned terms, const banded_view *v, const double *u,
                        double *out, const double *mean, int64_t ld, int64_t m0, int64_t count,
                        int64_t groups, int64_t group_stride, int width)
{
    const fused_kernel_fn kernel = fused_kernel_for(terms, v);
    int shift = 0;
    while ((1 << shift) < width) ++shift;
    const size_t factor = (size_t)fused_factor_doubles(*v) * sizeof(double);
    const size_t tile = (size_t)v->n * (size_t)width * sizeof(double);
    int warps = (int)((TILE_MAX_BYTES - factor) / tile);
    if (warps > FUSED_MAX_WARPS) warps = FUSED_MAX_WARPS;
    const size_t bytes = factor + (size_t)warps * tile;
    /* the launch shape of the previous call: a run launches the same one every step, so the
     * shared-memory attribute and the occupancy query are done when it changes only */
    static struct {
        fused_kernel_fn kernel;
        size_t bytes;
        int warps, resident;
    } last = {NULL, 0, 0, 0};
    if (kernel != last.kernel || bytes != last.bytes || warps != last.warps) {
        int dev = 0, sm_count = 0, per_sm = 0;
        COHORT_CUDA_CHECK(cudaGetDevice(&dev));
        COHORT_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, dev));
        COHORT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               TILE_MAX_BYTES));
        COHORT_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * warps, bytes));
        last.kernel = kernel, last.bytes = bytes, last.warps = warps;
        last.resident = (per_sm > 0 ? per_sm : 1) * sm_count;
    }
    const int64_t tiles = (count + width - 1) / width * groups;
    int64_t blocks = last.resident;
    if (blocks > (tiles + warps - 1) / warps) blocks = (tiles + warps - 1) / warps;
    model1d_rhs plain; /* the solve alone reads no right-hand side */
    memset(&plain, 0, sizeof plain);
    plain.terms = terms;
    kernel<<<(unsigned)blocks, (unsigned)(32 * warps), bytes>>>(
        r ? *r : plain, *v, u, out, mean, ld, m0, count, groups, group_stride, shift);
    COHORT_CUDA_CHECK_LAUNCH("model1d_fused_kernel");
    return COHORT_OK;
}

extern "C" int cohort_cuda_banded_warp_width(const banded_view *v, size_t tile_bytes)
{
    return fused_width(FUSED_SOLVE_ONLY, v, tile_bytes);
}

static int banded_warp_launch(const banded_view *v, double *u, int64_t ld, int64_t m0,
                              int64_t count, int64_t groups, int64_t group_stride, int width)
{
    return fused_launch(NULL, FUSED_SOLVE_ONLY, v, u, u, NULL, ld, m0, count, groups, group_stride,
                        width);
}

extern "C" int cohort_cuda_model1d_step_width(const model1d_rhs *r, const banded_view *v,
                                              size_t tile_bytes)
{
    if (v->border != v->h || v->n < MODEL1D_WINDOW || r->terms == FUSED_SOLVE_ONLY) return 0;
    return fused_width(r->terms, v, tile_bytes);
}

extern "C" int cohort_cuda_model1d_step_path(const model1d_rhs *r, const banded_view *v,
                                             const double *u, double *out, const double *mean,
                                             const double *member_f0, int64_t ld, int64_t m0,
                                             int64_t count, cohort_cuda_step_path path,
                                             size_t tile_bytes)
{
    const int width =
        path == COHORT_CUDA_STEP_PORTABLE ? 0 : cohort_cuda_model1d_step_width(r, v, tile_bytes);
    if (path == COHORT_CUDA_STEP_FUSED && width == 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "no tile of >= %d members of n = %lld rows fits in %zu bytes (or "
                           "n < %d, the system is not periodic, or no kernel is built for the "
                           "terms)",
                           FUSED_MIN_WIDTH, (long long)v->n, tile_bytes, MODEL1D_WINDOW);
    if (width == 0) {
        const int64_t blocks = (count + PORTABLE_THREADS - 1) / PORTABLE_THREADS;
        model1d_rhs_kernel<<<(unsigned)blocks, PORTABLE_THREADS>>>(*r, u, out, mean, member_f0,
                                                                   v->n, ld, m0, count);
        COHORT_CUDA_CHECK_LAUNCH("model1d_rhs_kernel");
        return banded_launch(v, out, ld, m0, count, 1, 0,
                             path == COHORT_CUDA_STEP_PORTABLE ? COHORT_CUDA_BANDED_PORTABLE
                                                               : COHORT_CUDA_BANDED_AUTO,
                             0);
    }
    return fused_launch(r, r->terms, v, u, out, mean, ld, m0, count, 1, 0, width);
}

static int cuda_model1d_step(const model1d_rhs *r, const banded_view *v, const double *u,
                             double *out, const double *mean, const double *member_f0, int64_t ld,
                             int64_t m0, int64_t count)
{
    return cohort_cuda_model1d_step_path(r, v, u, out, mean, member_f0, ld, m0, count,
                                         COHORT_CUDA_STEP_AUTO, 0);
}

__global__ void __launch_bounds__(PORTABLE_THREADS)
    model1d_moments_kernel(const double *__restrict__ u, const double *__restrict__ mean, int64_t n,
                           int64_t ld, int64_t m0, int64_t count, double *out)
{
    const int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (k >= count) return;
    model1d_member_moments(u + m0 + k, n, ld, mean != NULL, mean ? mean[m0 + k] : 0.0, &out[k],
                           &out[count + k]);
}

static int cuda_model1d_moments(const double *u, const double *mean, int64_t n, int64_t ld,
                                int64_t m0, int64_t count, double *out)
{
    const int64_t blocks = (count + PORTABLE_THREADS - 1) / PORTABLE_THREADS;
    model1d_moments_kernel<<<(unsigned)blocks, PORTABLE_THREADS>>>(u, mean, n, ld, m0, count, out);
    COHORT_CUDA_CHECK_LAUNCH("model1d_moments_kernel");
    return COHORT_OK;
}

/* ---- spectra, folds and centroids ---- */

#define COHORT_CUFFT_CHECK(expr)                                                                   \
    do {                                                                                           \
        cufftResult cohort_cufft_rc_ = (expr);                                                     \
        if (cohort_cufft_rc_ != CUFFT_SUCCESS)                                                     \
            return cohort_error_raise(COHORT_ERR_CUDA, __FILE__, __LINE__, "%s: cuFFT error %d",   \
                                      #expr, (int)cohort_cufft_rc_);                               \
    } while (0)

typedef struct cuda_spectrum_plan {
    int64_t nx, ny, ld, max_count; /* 1D: ny = 1 */
    int batch;                     /* the batch of the current cuFFT plan (0: none) */
    cufftHandle fft;
    cufftDoubleComplex *out; /* ny (nx / 2 + 1) x (max_count + 2), member fastest */
    double *pair; /* ld = 1: the lone member and a zero column, interleaved (nx ny x 2) */
} cuda_spectrum_plan;

static void cuda_spectrum_plan_free(void *plan)
{
    cuda_spectrum_plan *p = (cuda_spectrum_plan *)plan;
    if (!p) return;
    if (p->batch) cufftDestroy(p->fft);
    cudaFree(p->out);
    cudaFree(p->pair);
    free(p);
}

static int cuda_spectrum_plan_alloc(int64_t nx, int64_t ny, int64_t ld, int64_t max_count,
                                    void **plan)
{
    if (nx < 1 || ny < 1 || ld < 1 || max_count < 1 || max_count > ld || nx > INT32_MAX ||
        ny > INT32_MAX || ld > INT32_MAX - 2)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "nx = %lld, ny = %lld, ld = %lld, max_count = %lld", (long long)nx,
                           (long long)ny, (long long)ld, (long long)max_count);
    const int64_t n = nx * ny, rows = ny * (nx / 2 + 1);
    cuda_spectrum_plan *p = (cuda_spectrum_plan *)calloc(1, sizeof *p);
    if (!p) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "spectrum plan");
    p->nx = nx, p->ny = ny, p->ld = ld, p->max_count = max_count;
    int rc = cuda_alloc((void **)&p->out,
                        (size_t)rows * (size_t)(max_count + 2) * sizeof(cufftDoubleComplex));
    if (rc == COHORT_OK && ld == 1) {
        rc = cuda_alloc((void **)&p->pair, (size_t)(2 * n) * sizeof(double));
        if (rc == COHORT_OK &&
            cudaMemset(p->pair, 0, (size_t)(2 * n) * sizeof(double)) != cudaSuccess)
            rc = COHORT_FAIL(COHORT_ERR_CUDA, "cudaMemset");
    }
    if (rc != COHORT_OK) {
        cuda_spectrum_plan_free(p);
        return rc;
    }
    *plan = p;
    return COHORT_OK;
}

/* power[r * count + j] from coefficient r of transform `first + j` at x[r * batch + first + j] */
__global__ void spectrum_power_kernel(const cufftDoubleComplex *__restrict__ x, int64_t nx,
                                      int64_t ny, int64_t batch, int64_t first, int64_t count,
                                      double *__restrict__ power)
{
    const int64_t cols = nx / 2 + 1, rows = ny * cols;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < rows * count;
         idx += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = idx / count, j = idx - r * count;
        const cufftDoubleComplex c = x[r * batch + first + j];
        const int self = spectrum_self_conjugate(r % cols, r / cols, nx, ny);
        power[idx] = reduction_power(c.x, self ? 0.0 : c.y, nx * ny);
    }
}

/* One batched D2Z straight from the interleaved layout: element i of column j at
 * u[start + j + i * ld] (istride = ld, idist = 1), coefficient k at out[k * batch + j]. cuFFT
 * (CUDA 13.0, H100) refuses two cases of this layout: an input pointer that is not 16-byte
 * aligned (CUFFT_INVALID_VALUE at execution: odd m0) and a batch of one (CUFFT_INVALID_VALUE when
 * planning). So the transformed columns are widened by neighbours inside [0, ld) whose results
 * are dropped: one to the left for an odd start, one more to the right (or two to the left at the
 * end) for a single member; a member alone in its array (ld = 1) is copied beside a zero column.
 * Every member goes through the same strided algorithm whatever the
 * chunking; test_structure_factor checks that the spectra do not depend on it. The plan is kept
 * while the batch stays the same (every chunk but the last). */
static int cuda_spectrum_power(void *plan, const double *u, int64_t m0, int64_t count,
                               double *power)
{
    cuda_spectrum_plan *p = (cuda_spectrum_plan *)plan;
    if (count < 1 || count > p->max_count || m0 < 0 || m0 + count > p->ld)
        return COHORT_FAIL(COHORT_ERR_SUBBATCH_RANGE, "m0 = %lld, count = %lld, ld = %lld",
                           (long long)m0, (long long)count, (long long)p->ld);
    int64_t start = m0, batch = count, stride = p->ld;
    if (p->pair) {
        COHORT_CUDA_CHECK(cudaMemcpy2D(p->pair, 2 * sizeof(double), u, sizeof(double),
                                       sizeof(double), (size_t)(p->nx * p->ny),
                                       cudaMemcpyDeviceToDevice));
        u = p->pair, start = 0, batch = stride = 2;
    }
    if (((uintptr_t)(u + start) & 15u) != 0) --start, ++batch;
    if (batch == 1) {
        if (start + 1 < stride)
            batch = 2;
        else
            start -= 2, batch = 3;
    }
    if (start < 0 || ((uintptr_t)(u + start) & 15u) != 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "cuFFT needs 16-byte aligned columns: u = %p, m0 = %lld, ld = %lld",
                           (const void *)u, (long long)m0, (long long)p->ld);
    if (p->batch != batch) {
        if (p->batch) cufftDestroy(p->fft);
        p->batch = 0;
        /* 1D: n = {nx}; 2D: n = {ny, nx}, x fastest, as the fields are stored */
        int n[2] = {(int)p->ny, (int)p->nx}, onembed[2] = {(int)p->ny, (int)(p->nx / 2 + 1)};
        const int rank = p->ny > 1 ? 2 : 1;
        COHORT_CUFFT_CHECK(cufftPlanMany(&p->fft, rank, n + 2 - rank, n + 2 - rank, (int)stride, 1,
                                         onembed + 2 - rank, (int)batch, 1, CUFFT_D2Z, (int)batch));
        p->batch = (int)batch;
    }
    /* cuFFT keeps the input of an out-of-place real-to-complex transform (only complex-to-real
     * ones overwrite it); test_spectrum checks that u is unchanged. */
    COHORT_CUFFT_CHECK(cufftExecD2Z(p->fft, (cufftDoubleReal *)(u + start), p->out));
    const int64_t total = p->ny * (p->nx / 2 + 1) * count;
    const int64_t blocks = (total + PORTABLE_THREADS - 1) / PORTABLE_THREADS;
    spectrum_power_kernel<<<(unsigned)(blocks < 65536 ? blocks : 65536), PORTABLE_THREADS>>>(
        p->out, p->nx, p->ny, batch, m0 - start, count, power);
    COHORT_CUDA_CHECK_LAUNCH("spectrum_power_kernel");
    return COHORT_OK;
}

__global__ void __launch_bounds__(PORTABLE_THREADS)
    model1d_field_kernel(const double *__restrict__ u, const double *__restrict__ mean, int64_t n,
                         int64_t ld, int64_t m0, int64_t count, double *out)
{
    const int64_t m = m0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m < m0 + count) model1d_member_field(u + m, n, ld, mean[m], out + m);
}

static int cuda_model1d_field(const double *u, const double *mean, int64_t n, int64_t ld,
                              int64_t m0, int64_t count, double *out)
{
    const int64_t blocks = (count + PORTABLE_THREADS - 1) / PORTABLE_THREADS;
    model1d_field_kernel<<<(unsigned)blocks, PORTABLE_THREADS>>>(u, mean, n, ld, m0, count, out);
    COHORT_CUDA_CHECK_LAUNCH("model1d_field_kernel");
    return COHORT_OK;
}

enum { FOLD_ROWS = 128, FOLD_MEMBERS = 16 };

/* One (fold block, 128 rows) per thread block. Members are staged 16 at a time through shared
 * memory (each half-warp reads 16 consecutive members of a row: a whole 128-byte line), then every
 * thread adds its row's 16 values to its class accumulators in member order, as the cpu loop does.
 */
__global__ void __launch_bounds__(FOLD_ROWS)
    block_fold_kernel(const double *__restrict__ x, int64_t rows, int64_t ld, int64_t m0,
                      int64_t count, int64_t first, int64_t block, int classes,
                      const unsigned char *__restrict__ cls, double *sums)
{
    __shared__ double tile[FOLD_ROWS][FOLD_MEMBERS + 1];
    __shared__ unsigned char tile_cls[FOLD_MEMBERS];
    __shared__ double acc[REDUCTION_MAX_CLASSES][FOLD_ROWS];
    const int64_t b = blockIdx.x, r0 = (int64_t)blockIdx.y * FOLD_ROWS, r = r0 + threadIdx.x;
    int64_t lo, hi;
    reduction_block_range(first, count, block, b, &lo, &hi);
    for (int c = 0; c < classes; ++c)
        acc[c][threadIdx.x] = r < rows ? sums[(b * classes + c) * rows + r] : 0.0;
    for (int64_t j0 = lo; j0 < hi; j0 += FOLD_MEMBERS) {
        const int width = (int)(hi - j0 < FOLD_MEMBERS ? hi - j0 : FOLD_MEMBERS);
        __syncthreads();
        for (int e = threadIdx.x; e < FOLD_ROWS * FOLD_MEMBERS; e += FOLD_ROWS) {
            const int rr = e / FOLD_MEMBERS, jj = e % FOLD_MEMBERS;
            if (r0 + rr < rows && jj < width) tile[rr][jj] = x[(r0 + rr) * ld + m0 + j0 + jj];
        }
        if (threadIdx.x < width) tile_cls[threadIdx.x] = cls ? cls[j0 + threadIdx.x] : 0;
        __syncthreads();
        if (r < rows)
            for (int jj = 0; jj < width; ++jj) {
                const int c = tile_cls[jj];
                if (c != REDUCTION_SKIP) acc[c][threadIdx.x] += tile[threadIdx.x][jj];
            }
    }
    if (r < rows)
        for (int c = 0; c < classes; ++c) sums[(b * classes + c) * rows + r] = acc[c][threadIdx.x];
}

static int cuda_block_fold(const double *x, int64_t rows, int64_t ld, int64_t m0, int64_t count,
                           int64_t first, int64_t block, int classes, const unsigned char *cls,
                           double *sums)
{
    if (classes < 1 || classes > REDUCTION_MAX_CLASSES || rows < 1 || count < 1 || block < 1)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "classes = %d, rows = %lld, count = %lld, block = %lld", classes,
                           (long long)rows, (long long)count, (long long)block);
    const int64_t blocks = (first + count - 1) / block - first / block + 1;
    const dim3 grid((unsigned)blocks, (unsigned)((rows + FOLD_ROWS - 1) / FOLD_ROWS));
    block_fold_kernel<<<grid, FOLD_ROWS>>>(x, rows, ld, m0, count, first, block, classes, cls,
                                           sums);
    COHORT_CUDA_CHECK_LAUNCH("block_fold_kernel");
    return COHORT_OK;
}

__global__ void __launch_bounds__(PORTABLE_THREADS)
    nearest_centroid_kernel(const double *__restrict__ x, int64_t n, int64_t ld, int64_t m0,
                            int64_t count, const double *__restrict__ centroids, int k,
                            unsigned char *labels, double *dist2)
{
    const int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (j < count)
        labels[j] =
            (unsigned char)reduction_nearest_centroid(x + m0 + j, n, ld, centroids, k, &dist2[j]);
}

static int cuda_nearest_centroid(const double *x, int64_t n, int64_t ld, int64_t m0, int64_t count,
                                 const double *centroids, int k, unsigned char *labels,
                                 double *dist2)
{
    const int64_t blocks = (count + PORTABLE_THREADS - 1) / PORTABLE_THREADS;
    nearest_centroid_kernel<<<(unsigned)blocks, PORTABLE_THREADS>>>(x, n, ld, m0, count, centroids,
                                                                    k, labels, dist2);
    COHORT_CUDA_CHECK_LAUNCH("nearest_centroid_kernel");
    return COHORT_OK;
}

/* ---- 2D stencils: one thread per (point, member) of a row, member fastest, so a warp reads
 * consecutive addresses; neighbours come through L1/L2 ---- */

/* RX, RY: the reach of the box, fixed at compile time (0, 1, 2 or 4, at least the
 * stencil's). Each thread computes STENCIL_COLUMN rows of one (i, member) column, sliding its
 * window down one row at a time in registers: one new window row per output instead of
 * 2 RY + 1 (the specialised path; stencil_weights_window does the arithmetic of every path). */
enum { STENCIL_COLUMN = 8 };

template <int RX, int RY>
__global__ void __launch_bounds__(PORTABLE_THREADS)
    stencil_weights_kernel(const __grid_constant__ stencil_view v, const double *__restrict__ in,
                           double *__restrict__ out, int64_t ld, int64_t m0, int64_t count,
                           stencil_range b, int64_t j_first)
{
    constexpr int W = 2 * RX + 1, H = 2 * RY + 1;
    int64_t i, m;
    if (!stencil_range_point(&b, blockIdx.x * (int64_t)blockDim.x + threadIdx.x, m0, count, &i, &m))
        return;
    const double *u = in + m;
    const int64_t j0 = j_first + (int64_t)blockIdx.y * STENCIL_COLUMN;
    const int64_t j1 = j0 + STENCIL_COLUMN < b.j1 ? j0 + STENCIL_COLUMN : b.j1;
    double win[H * W];
#pragma unroll
    for (int dy = -RY; dy < RY; ++dy) /* rows j0 - RY .. j0 + RY - 1; the last comes in the loop */
        stencil_window_row(&v, u, ld, i, stencil_row(&v, j0, dy), RX, win + (dy + RY + 1) * W);
    for (int64_t j = j0; j < j1; ++j) {
#pragma unroll
        for (int q = 0; q < (H - 1) * W; ++q) win[q] = win[q + W];
        stencil_window_row(&v, u, ld, i, stencil_row(&v, j, RY), RX, win + (H - 1) * W);
        out[(j * v.nx + i) * ld + m] = stencil_weights_window(&v, win, RX, RY);
    }
}

template <int OP>
__global__ void __launch_bounds__(PORTABLE_THREADS)
    stencil_operator_kernel(stencil_op_args a, int periodic, double *out, int64_t nx, int64_t ny,
                            int64_t ld, int64_t m0, int64_t count, stencil_range b, int64_t j_first)
{
    const int64_t j = j_first + blockIdx.y;
    int64_t i, m;
    if (!stencil_range_point(&b, blockIdx.x * (int64_t)blockDim.x + threadIdx.x, m0, count, &i, &m))
        return;
    stencil_window w;
    switch (OP) { /* resolved when the template is instantiated */
#define CUDA_STENCIL_OP_CASE(name, fn, inputs, rx, ry)                                             \
    case name:                                                                                     \
        stencil_gather(&a, inputs, rx, ry, periodic, nx, ny, ld, m, i, j, w);                      \
        out[(j * nx + i) * ld + m] = fn(w, a.p);                                                   \
        break;
        STENCIL_OPERATORS(CUDA_STENCIL_OP_CASE)
#undef CUDA_STENCIL_OP_CASE
    }
}

/* Rows j0 .. j1-1 in launches of at most 65535 (grid.y). */
#define STENCIL_LAUNCH_ROWS(b, count, ...)                                                         \
    for (int64_t j_first = (b).j0; j_first < (b).j1; j_first += 65535) {                           \
        const unsigned rows_ = (unsigned)((b).j1 - j_first < 65535 ? (b).j1 - j_first : 65535);    \
        const int64_t points_ = ((b).i1 - (b).i0) * (count);                                       \
        const dim3 grid_((unsigned)((points_ + PORTABLE_THREADS - 1) / PORTABLE_THREADS), rows_);  \
        __VA_ARGS__;                                                                               \
    }

/* The smallest compile-time reach of 0, 1, 2, 4 that covers r, or -1: beyond 4, the generic
 * kernel (runtime reach, the window in local memory; kept out of the templates, whose unrolled
 * windows would grow every binary for rare stencils). */
static int box_reach(int r)
{
    return r <= 2 ? r : r <= 4 ? 4 : -1;
}

__global__ void __launch_bounds__(PORTABLE_THREADS)
    stencil_weights_generic_kernel(const __grid_constant__ stencil_view v,
                                   const double *__restrict__ in, double *__restrict__ out,
                                   int64_t ld, int64_t m0, int64_t count, stencil_range b,
                                   int64_t j_first)
{
    const int64_t j = j_first + blockIdx.y;
    int64_t i, m;
    if (!stencil_range_point(&b, blockIdx.x * (int64_t)blockDim.x + threadIdx.x, m0, count, &i, &m))
        return;
    const int rx = v.left > v.right ? v.left : v.right, ry = v.top > v.bottom ? v.top : v.bottom;
    out[(j * v.nx + i) * ld + m] = stencil_weights_point(&v, in + m, ld, i, j, rx, ry);
}

template <int RX>
static void launch_weights_rx(int ry, const stencil_view *v, const double *in, double *out,
                              int64_t ld, int64_t m0, int64_t count, const stencil_range &b)
{
    const int64_t columns = (b.j1 - b.j0 + STENCIL_COLUMN - 1) / STENCIL_COLUMN;
    const int64_t points = (b.i1 - b.i0) * count;
    for (int64_t c0 = 0; c0 < columns; c0 += 65535) { /* grid.y: at most 65535 per launch */
        const dim3 grid((unsigned)((points + PORTABLE_THREADS - 1) / PORTABLE_THREADS),
                        (unsigned)(columns - c0 < 65535 ? columns - c0 : 65535));
        const int64_t j_first = b.j0 + c0 * STENCIL_COLUMN;
        switch (ry) {
        case 0:
            stencil_weights_kernel<RX, 0>
                <<<grid, PORTABLE_THREADS>>>(*v, in, out, ld, m0, count, b, j_first);
            break;
        case 1:
            stencil_weights_kernel<RX, 1>
                <<<grid, PORTABLE_THREADS>>>(*v, in, out, ld, m0, count, b, j_first);
            break;
        case 2:
            stencil_weights_kernel<RX, 2>
                <<<grid, PORTABLE_THREADS>>>(*v, in, out, ld, m0, count, b, j_first);
            break;
        default:
            stencil_weights_kernel<RX, 4>
                <<<grid, PORTABLE_THREADS>>>(*v, in, out, ld, m0, count, b, j_first);
        }
    }
}

static int cuda_stencil_weights(const stencil_view *v, const double *in, double *out, int64_t ld,
                                int64_t m0, int64_t count)
{
    const stencil_range b =
        stencil_written_range(v->periodic, v->nx, v->ny, v->left, v->right, v->top, v->bottom);
    if (b.i1 <= b.i0 || b.j1 <= b.j0) return COHORT_OK;
    const int rx = box_reach(v->left > v->right ? v->left : v->right);
    const int ry = box_reach(v->top > v->bottom ? v->top : v->bottom);
    if (rx < 0 || ry < 0) {
        STENCIL_LAUNCH_ROWS(b, count,
                            stencil_weights_generic_kernel<<<grid_, PORTABLE_THREADS>>>(
                                *v, in, out, ld, m0, count, b, j_first));
        COHORT_CUDA_CHECK_LAUNCH("stencil_weights_generic_kernel");
        return COHORT_OK;
    }
    switch (rx) {
    case 0:
        launch_weights_rx<0>(ry, v, in, out, ld, m0, count, b);
        break;
    case 1:
        launch_weights_rx<1>(ry, v, in, out, ld, m0, count, b);
        break;
    case 2:
        launch_weights_rx<2>(ry, v, in, out, ld, m0, count, b);
        break;
    default:
        launch_weights_rx<4>(ry, v, in, out, ld, m0, count, b);
    }
    COHORT_CUDA_CHECK_LAUNCH("stencil_weights_kernel");
    return COHORT_OK;
}

static int cuda_stencil_operator(int op, const stencil_op_args *a, int periodic, double *out,
                                 int64_t nx, int64_t ny, int64_t ld, int64_t m0, int64_t count)
{
    switch (op) {
#define CUDA_STENCIL_OP_LAUNCH(name, fn, inputs, rx, ry)                                           \
    case name: {                                                                                   \
        const stencil_range b = stencil_written_range(periodic, nx, ny, rx, rx, ry, ry);           \
        if (b.i1 <= b.i0 || b.j1 <= b.j0) return COHORT_OK;                                        \
        STENCIL_LAUNCH_ROWS(b, count,                                                              \
                            stencil_operator_kernel<name><<<grid_, PORTABLE_THREADS>>>(            \
                                *a, periodic, out, nx, ny, ld, m0, count, b, j_first));            \
        COHORT_CUDA_CHECK_LAUNCH(#fn);                                                             \
        return COHORT_OK;                                                                          \
    }
        STENCIL_OPERATORS(CUDA_STENCIL_OP_LAUNCH)
#undef CUDA_STENCIL_OP_LAUNCH
    default:
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "unknown stencil operator %d", op);
    }
}

extern "C" const cohort_backend cohort_backend_cuda = {
    .name = "cuda",
    .kind = COHORT_BACKEND_CUDA,
    .describe = cuda_describe,
    .mem_info = cuda_mem_info,
    .alloc = cuda_alloc,
    .release = cuda_release,
    .copy_to_device = cuda_copy_to_device,
    .copy_to_host = cuda_copy_to_host,
    .copy_within = cuda_copy_within,
    .fill = cuda_fill,
    .synchronize = cuda_synchronize,
    .uniform_members = cuda_uniform_members,
    .interleave = cuda_interleave,
    .banded_solve = cuda_banded_solve,
    .model1d_step = cuda_model1d_step,
    .model1d_moments = cuda_model1d_moments,
    .spectrum_plan_alloc = cuda_spectrum_plan_alloc,
    .spectrum_plan_free = cuda_spectrum_plan_free,
    .spectrum_power = cuda_spectrum_power,
    .model1d_field = cuda_model1d_field,
    .block_fold = cuda_block_fold,
    .nearest_centroid = cuda_nearest_centroid,
    .stencil_weights = cuda_stencil_weights,
    .stencil_operator = cuda_stencil_operator,
};
