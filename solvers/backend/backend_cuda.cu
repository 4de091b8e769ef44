/* The cuda backend: device memory, launches and CUDA error translation. Kernels are written in
 * C style around the COHORT_HD arithmetic of banded_numerics.h; this file exports only the
 * extern "C" functions and table of backend_cuda.h. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "backend/backend_cuda.h"
#include "backend/cohort_error.h"
#include "banded/banded_numerics.h"

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
    TILE_THREADS = 128,  /* threads that load and store a tile; the first `width` also sweep */
    TILE_MAX_WIDTH = 32, /* members per tile: one warp of sweeping threads */
    TILE_MIN_WIDTH = 4,  /* below 4 members (32-byte rows) loads stop being coalesced */
    /* AUTO takes the tiled path only with full 32-member tiles: measured on an H100, narrower
     * tiles hold too few systems per SM for their sequential sweeps to keep up with memory, and
     * the portable kernel is faster there (bench-banded, 2026-11-22). */
    TILE_AUTO_MIN_WIDTH = 32,
    TILE_CHUNK = 8, /* rows whose shared-memory loads are issued together in a sweep */
    TILE_MAX_BYTES = 227 * 1024
};
static const size_t TILE_DEFAULT_BYTES = 48 * 1024;

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

/* ---- batched banded solve: the portable path ---- */

__global__ void __launch_bounds__(PORTABLE_THREADS)
    banded_portable_kernel(banded_view v, double *u, int64_t ld, int64_t m0, int64_t count)
{
    const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m >= count) return;
    double *x = u + m0 + m;
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

/* banded_band_solve's arithmetic on a tile column in shared memory. The sweep is a chain of one
 * multiply-add per row; to keep that chain from waiting on memory, the right-hand sides and the
 * factor rows of TILE_CHUNK rows are loaded into registers before their multiply-adds (a store to
 * the tile may alias the next row's load as far as the compiler knows, so it would not hoist
 * them itself; the factor goes through the read-only path). */
__device__ __forceinline__ void tile_band_solve(const banded_view &v, int h, double *x, int s)
{
    const int nb = (int)v.n_band, stride = 2 * h + 1;
    const double *__restrict__ coef = v.coef;
    double y1 = 0.0, y2 = 0.0;
    int i = 0;
    for (; i + TILE_CHUNK <= nb; i += TILE_CHUNK) {
        double d[TILE_CHUNK], row[TILE_CHUNK][2 * BANDED_MAX_HALF_BANDWIDTH + 1];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            d[q] = x[(i + q) * s];
            for (int k = 0; k < h; ++k) row[q][k] = __ldg(coef + (i + q) * stride + k);
        }
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            const double y = banded_forward_value(row[q], h, d[q], y1, y2);
            x[(i + q) * s] = y;
            y2 = y1;
            y1 = y;
        }
    }
    for (; i < nb; ++i) {
        const double y = banded_forward_value(coef + i * stride, h, x[i * s], y1, y2);
        x[i * s] = y;
        y2 = y1;
        y1 = y;
    }
    double x1 = 0.0, x2 = 0.0;
    i = nb - 1;
    for (; i >= TILE_CHUNK - 1; i -= TILE_CHUNK) {
        double y[TILE_CHUNK], row[TILE_CHUNK][2 * BANDED_MAX_HALF_BANDWIDTH + 1];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            y[q] = x[(i - q) * s];
            for (int k = h; k <= 2 * h; ++k) row[q][k] = __ldg(coef + (i - q) * stride + k);
        }
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            const double xi = banded_backward_value(row[q], h, y[q], x1, x2);
            x[(i - q) * s] = xi;
            x2 = x1;
            x1 = xi;
        }
    }
    for (; i >= 0; --i) {
        const double xi = banded_backward_value(coef + i * stride, h, x[i * s], x1, x2);
        x[i * s] = xi;
        x2 = x1;
        x1 = xi;
    }
}

/* One tile: members [first, first + width) x all n rows. Every element of u is read once
 * (coalesced, streaming) and written once; the periodic correction x_t = p - Q x_b is applied as
 * the tile is written back. */
__device__ __forceinline__ void tiled_body(const banded_view &v, int h, int border, double *u,
                                           int64_t ld, int64_t m0, int64_t count, int shift)
{
    extern __shared__ double tile[];
    const int tw = 1 << shift, nb = (int)v.n_band;
    const int total = (int)v.n << shift;
    const int64_t first = m0 + ((int64_t)blockIdx.x << shift);
    const int width = (int)(m0 + count - first < tw ? m0 + count - first : tw);
    double *xbs = tile + total; /* border x tw values of x_b */
    double *base = u + first;
#pragma unroll 4
    for (int idx = threadIdx.x; idx < total; idx += TILE_THREADS) {
        const int i = idx >> shift, j = idx & (tw - 1);
        if (j < width) tile[idx] = __ldcs(base + (int64_t)i * ld + j);
    }
    __syncthreads();
    if ((int)threadIdx.x < width) {
        double *x = tile + threadIdx.x;
        tile_band_solve(v, h, x, tw);
        if (border) {
            double xb[BANDED_MAX_HALF_BANDWIDTH];
            banded_border_values(&v, border, x, tw, xb);
            for (int b = 0; b < border; ++b) {
                xbs[b * tw + threadIdx.x] = xb[b];
                x[(nb + b) * tw] = xb[b];
            }
        }
    }
    __syncthreads();
#pragma unroll 4
    for (int idx = threadIdx.x; idx < total; idx += TILE_THREADS) {
        const int i = idx >> shift, j = idx & (tw - 1);
        if (j >= width) continue;
        double val = tile[idx];
        if (border && i < nb) {
            double xb[BANDED_MAX_HALF_BANDWIDTH];
            for (int b = 0; b < border; ++b) xb[b] = xbs[b * tw + j];
            val = banded_border_correct(&v, border, i, val, xb);
        }
        __stcs(base + (int64_t)i * ld + j, val);
    }
}

__global__ void __launch_bounds__(TILE_THREADS)
    banded_tiled_kernel(banded_view v, double *u, int64_t ld, int64_t m0, int64_t count, int shift)
{
    if (v.h == 1 && v.border == 0)
        tiled_body(v, 1, 0, u, ld, m0, count, shift);
    else if (v.h == 1)
        tiled_body(v, 1, 1, u, ld, m0, count, shift);
    else if (v.border == 0)
        tiled_body(v, 2, 0, u, ld, m0, count, shift);
    else
        tiled_body(v, 2, 2, u, ld, m0, count, shift);
}

static size_t tile_bytes_for(int64_t n, int width)
{
    /* the tile plus x_b of each member (border <= BANDED_MAX_HALF_BANDWIDTH) */
    return (size_t)(n + BANDED_MAX_HALF_BANDWIDTH) * (size_t)width * sizeof(double);
}

extern "C" int cohort_cuda_banded_tile_width(int64_t n, size_t tile_bytes)
{
    if (tile_bytes == 0) tile_bytes = TILE_DEFAULT_BYTES;
    if (tile_bytes > TILE_MAX_BYTES) tile_bytes = TILE_MAX_BYTES;
    for (int width = TILE_MAX_WIDTH; width >= TILE_MIN_WIDTH; width /= 2)
        if (tile_bytes_for(n, width) <= tile_bytes) return width;
    return 0;
}

extern "C" int cohort_cuda_banded_solve_path(const banded_view *v, double *u, int64_t ld,
                                             int64_t m0, int64_t count,
                                             cohort_cuda_banded_path path, size_t tile_bytes)
{
    const int width = cohort_cuda_banded_tile_width(v->n, tile_bytes);
    if (path == COHORT_CUDA_BANDED_TILED && width == 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "no tile of >= %d members of n = %lld rows fits in %zu bytes",
                           TILE_MIN_WIDTH, (long long)v->n, tile_bytes);
    const int portable = path == COHORT_CUDA_BANDED_PORTABLE || width == 0 ||
                         (path == COHORT_CUDA_BANDED_AUTO && width < TILE_AUTO_MIN_WIDTH);
    if (portable) {
        const int64_t blocks = (count + PORTABLE_THREADS - 1) / PORTABLE_THREADS;
        banded_portable_kernel<<<(unsigned)blocks, PORTABLE_THREADS>>>(*v, u, ld, m0, count);
        COHORT_CUDA_CHECK_LAUNCH("banded_portable_kernel");
        return COHORT_OK;
    }
    static int shared_limit_raised = 0;
    if (!shared_limit_raised) {
        COHORT_CUDA_CHECK(cudaFuncSetAttribute(
            banded_tiled_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, TILE_MAX_BYTES));
        shared_limit_raised = 1;
    }
    int shift = 0;
    while ((1 << shift) < width) ++shift;
    const int64_t blocks = (count + width - 1) / width;
    banded_tiled_kernel<<<(unsigned)blocks, TILE_THREADS, tile_bytes_for(v->n, width)>>>(
        *v, u, ld, m0, count, shift);
    COHORT_CUDA_CHECK_LAUNCH("banded_tiled_kernel");
    return COHORT_OK;
}

static int cuda_banded_solve(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count)
{
    return cohort_cuda_banded_solve_path(v, u, ld, m0, count, COHORT_CUDA_BANDED_AUTO, 0);
}

extern "C" const cohort_backend cohort_backend_cuda = {
    "cuda",           COHORT_BACKEND_CUDA, cuda_describe,       cuda_mem_info,
    cuda_alloc,       cuda_release,        cuda_copy_to_device, cuda_copy_to_host,
    cuda_copy_within, cuda_fill,           cuda_synchronize,    cuda_banded_solve,
};
