/* The analyses' kernels on the cuda backend (reduction_kernels.h): spectra by cuFFT, the ordered
 * block fold and the nearest centroids, around the COHORT_HD arithmetic of reduction_numerics.h.
 */
#include <cuda_runtime.h>
#include <cufft.h>
#include <stdint.h>
#include <stdlib.h>

#include "analysis/reduction_kernels.h"
#include "analysis/reduction_numerics.h"
#include "backend/backend_cuda.h"
#include "backend/cuda_check.cuh"

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
    int rc = cohort_backend_cuda.alloc((void **)&p->out, (size_t)rows * (size_t)(max_count + 2) *
                                                             sizeof(cufftDoubleComplex));
    if (rc == COHORT_OK && ld == 1) {
        rc = cohort_backend_cuda.alloc((void **)&p->pair, (size_t)(2 * n) * sizeof(double));
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

/* The blocks of COHORT_CUDA_THREADS for a grid-stride loop over n elements. */
static unsigned grid_stride_blocks(int64_t n)
{
    const int64_t blocks = (n + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS;
    return (unsigned)(blocks < 65536 ? blocks : 65536);
}

/* pair[2 i] = u[i]: the lone member beside the zero column (set once, at allocation). A kernel, not
 * cudaMemcpy2D, whose copy of n rows of 8 bytes goes row by row. */
__global__ void spectrum_pair_kernel(const double *__restrict__ u, int64_t n,
                                     double *__restrict__ pair)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        pair[2 * i] = u[i];
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
        const int64_t n = p->nx * p->ny;
        spectrum_pair_kernel<<<grid_stride_blocks(n), COHORT_CUDA_THREADS>>>(u, n, p->pair);
        COHORT_CUDA_CHECK_LAUNCH("spectrum_pair_kernel");
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
    spectrum_power_kernel<<<grid_stride_blocks(total), COHORT_CUDA_THREADS>>>(
        p->out, p->nx, p->ny, batch, m0 - start, count, power);
    COHORT_CUDA_CHECK_LAUNCH("spectrum_power_kernel");
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

/* One value a member into one class (the k-means distances): block_fold_kernel's order, the
 * block's threads staging FOLD_ROWS members at a time for the one thread that adds them, where
 * the general kernel's tile would hold FOLD_MEMBERS of them. */
__global__ void __launch_bounds__(FOLD_ROWS)
    block_fold_value_kernel(const double *__restrict__ x, int64_t m0, int64_t count, int64_t first,
                            int64_t block, const unsigned char *__restrict__ cls, double *sums)
{
    __shared__ double tile[FOLD_ROWS];
    __shared__ unsigned char tile_cls[FOLD_ROWS];
    const int64_t b = blockIdx.x;
    int64_t lo, hi;
    reduction_block_range(first, count, block, b, &lo, &hi);
    double acc = sums[b];
    for (int64_t j0 = lo; j0 < hi; j0 += FOLD_ROWS) {
        const int width = (int)(hi - j0 < FOLD_ROWS ? hi - j0 : FOLD_ROWS);
        __syncthreads();
        if (threadIdx.x < width) {
            tile[threadIdx.x] = x[m0 + j0 + threadIdx.x];
            tile_cls[threadIdx.x] = cls ? cls[j0 + threadIdx.x] : 0;
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int jj = 0; jj < width; ++jj)
                if (tile_cls[jj] != REDUCTION_SKIP) acc += tile[jj];
    }
    if (threadIdx.x == 0) sums[b] = acc;
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
    if (rows == 1 && classes == 1) {
        block_fold_value_kernel<<<(unsigned)blocks, FOLD_ROWS>>>(x, m0, count, first, block, cls,
                                                                 sums);
        COHORT_CUDA_CHECK_LAUNCH("block_fold_value_kernel");
        return COHORT_OK;
    }
    const dim3 grid((unsigned)blocks, (unsigned)((rows + FOLD_ROWS - 1) / FOLD_ROWS));
    block_fold_kernel<<<grid, FOLD_ROWS>>>(x, rows, ld, m0, count, first, block, classes, cls,
                                           sums);
    COHORT_CUDA_CHECK_LAUNCH("block_fold_kernel");
    return COHORT_OK;
}

/* A thread per (weight vector, member): neighbouring threads read neighbouring members. */
__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    weighted_sums_kernel(const double *__restrict__ x, int64_t rows, int64_t count,
                         const double *__restrict__ weights, int n_weights, double *out)
{
    const int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (e >= n_weights * count) return;
    const int64_t q = e / count, j = e % count;
    out[e] = reduction_weighted_sum(x, rows, count, j, weights + q * rows);
}

static int cuda_weighted_sums(const double *x, int64_t rows, int64_t count, const double *weights,
                              int n_weights, double *out)
{
    const int64_t blocks = (n_weights * count + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS;
    weighted_sums_kernel<<<(unsigned)blocks, COHORT_CUDA_THREADS>>>(x, rows, count, weights,
                                                                    n_weights, out);
    COHORT_CUDA_CHECK_LAUNCH("weighted_sums_kernel");
    return COHORT_OK;
}

enum { CENTROIDS_SHARED_MAX = 48 * 1024 };

/* A thread per member; the centroids staged in shared memory where they fit (shared: their
 * bytes, else 0), so that every thread's reads of them are broadcasts from the SM. */
__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    nearest_centroid_kernel(const double *__restrict__ x, int64_t n, int64_t ld, int64_t m0,
                            int64_t count, const double *__restrict__ centroids, int k,
                            size_t shared, unsigned char *labels, double *dist2)
{
    extern __shared__ double staged[];
    for (int64_t e = threadIdx.x; shared && e < (int64_t)k * n; e += blockDim.x)
        staged[e] = centroids[e];
    __syncthreads();
    const int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (j < count)
        labels[j] = (unsigned char)reduction_nearest_centroid(
            x + m0 + j, n, ld, shared ? staged : centroids, k, &dist2[j]);
}

static int cuda_nearest_centroid(const double *x, int64_t n, int64_t ld, int64_t m0, int64_t count,
                                 const double *centroids, int k, unsigned char *labels,
                                 double *dist2)
{
    const int64_t blocks = (count + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS;
    const size_t bytes = (size_t)k * (size_t)n * sizeof(double),
                 shared = bytes <= CENTROIDS_SHARED_MAX ? bytes : 0;
    nearest_centroid_kernel<<<(unsigned)blocks, COHORT_CUDA_THREADS, shared>>>(
        x, n, ld, m0, count, centroids, k, shared, labels, dist2);
    COHORT_CUDA_CHECK_LAUNCH("nearest_centroid_kernel");
    return COHORT_OK;
}

/* One level of the fixed tree: a thread per (pair, value). */
__global__ void block_tree_kernel(double *blocks, int64_t width, int64_t stride, int64_t pairs)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < pairs * width;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t b = 2 * stride * (e / width), i = e % width;
        blocks[b * width + i] += blocks[(b + stride) * width + i];
    }
}

/* A launch per level: the levels depend on each other, the pairs of a level do not. */
static int cuda_block_tree(double *blocks, int64_t width, int64_t n)
{
    for (int64_t stride = 1; stride < n; stride *= 2) {
        const int64_t pairs = reduction_tree_pairs(n, stride);
        block_tree_kernel<<<grid_stride_blocks(pairs * width), COHORT_CUDA_THREADS>>>(
            blocks, width, stride, pairs);
        COHORT_CUDA_CHECK_LAUNCH("block_tree_kernel");
    }
    return COHORT_OK;
}

/* Each thread block counts into shared memory, then adds its counts to the tally: integer
 * additions, so the order of the atomics does not matter. */
__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    label_tally_kernel(const unsigned char *__restrict__ labels,
                       const unsigned char *__restrict__ previous, int64_t count, int k,
                       unsigned long long *tally)
{
    __shared__ unsigned long long local[REDUCTION_MAX_CLASSES + 1];
    if (threadIdx.x <= (unsigned)k) local[threadIdx.x] = 0;
    __syncthreads();
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < count;
         j += (int64_t)gridDim.x * blockDim.x) {
        if (labels[j] < k) atomicAdd(&local[labels[j]], 1ull);
        if (labels[j] != previous[j]) atomicAdd(&local[k], 1ull);
    }
    __syncthreads();
    if (threadIdx.x <= (unsigned)k && local[threadIdx.x])
        atomicAdd(&tally[threadIdx.x], local[threadIdx.x]);
}

static int cuda_label_tally(const unsigned char *labels, const unsigned char *previous,
                            int64_t count, int k, int64_t *tally)
{
    COHORT_CUDA_CHECK(cudaMemset(tally, 0, (size_t)(k + 1) * sizeof *tally));
    if (count < 1) return COHORT_OK;
    const unsigned blocks = grid_stride_blocks(count) < 1024 ? grid_stride_blocks(count) : 1024;
    label_tally_kernel<<<blocks, COHORT_CUDA_THREADS>>>(labels, previous, count, k,
                                                        (unsigned long long *)tally);
    COHORT_CUDA_CHECK_LAUNCH("label_tally_kernel");
    return COHORT_OK;
}

extern "C" const reduction_kernels reduction_kernels_cuda = {
    .spectrum_plan_alloc = cuda_spectrum_plan_alloc,
    .spectrum_plan_free = cuda_spectrum_plan_free,
    .spectrum_power = cuda_spectrum_power,
    .block_fold = cuda_block_fold,
    .weighted_sums = cuda_weighted_sums,
    .nearest_centroid = cuda_nearest_centroid,
    .block_tree = cuda_block_tree,
    .label_tally = cuda_label_tally};
