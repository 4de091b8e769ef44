/* The cuda backend: device memory, copies, fills, the noise stream (cuRAND's device API) and the
 * interleaved layout on the current device, launches on the default stream, CUDA errors
 * translated to COHORT_ERR_CUDA (cuda_check.cuh). The modules' kernels are in their own folders
 * (<module>_cuda.cu). This file exports only the extern "C" functions and table of
 * backend_cuda.h. */
#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_cuda.h"
#include "backend/cuda_check.cuh"
#include "backend/layout_numerics.h"

enum { FILL_THREADS = 256 };

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

extern "C" int cohort_cuda_device_select(int local_rank)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return -1;
    const int device = (local_rank < 0 ? 0 : local_rank) % count;
    return cudaSetDevice(device) == cudaSuccess ? device : -1;
}

/* COHORT_CUDA_SHARED_LIMIT as a count of bytes: digits only, above 0; else 0 (not set). */
static long shared_limit_cap(void)
{
    const char *cap = getenv("COHORT_CUDA_SHARED_LIMIT");
    if (!cap || !*cap) return 0;
    char *end = NULL;
    const long bytes = strtol(cap, &end, 10);
    return *end == '\0' && bytes > 0 ? bytes : 0;
}

extern "C" size_t cohort_cuda_shared_limit_bytes(void)
{
    static size_t cached = 0;
    if (cached == 0) {
        int dev = 0, bytes = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) !=
                cudaSuccess ||
            bytes <= 0) {
            (void)cudaGetLastError(); /* not a later launch's error */
            bytes = 48 * 1024;        /* what every device allows */
        }
        const long cap = shared_limit_cap();
        if (cap > 0 && cap < bytes) bytes = (int)cap;
        cached = (size_t)bytes;
    }
    return cached;
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
                                       uint64_t seed, int64_t arms, int64_t replicates)
{
    const int64_t pairs = (n + 1) / 2;
    const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (t >= pairs * count) return;
    const int64_t k = t / pairs, p = t % pairs;
    curandStatePhilox4_32_10_t state;
    curand_init(seed, (unsigned long long)layout_noise_stream(first + k, arms, replicates),
                (unsigned long long)(4 * p), &state);
    const double2 u = curand_uniform2_double(&state);
    out[k * n + 2 * p] = u.x;
    if (2 * p + 1 < n) out[k * n + 2 * p + 1] = u.y;
}

static int cuda_uniform_members(double *out, int64_t n, int64_t first, int64_t count, uint64_t seed,
                                int64_t arms, int64_t replicates)
{
    const int64_t threads = (n + 1) / 2 * count;
    if (threads == 0) return COHORT_OK;
    uniform_members_kernel<<<(unsigned)((threads + FILL_THREADS - 1) / FILL_THREADS),
                             FILL_THREADS>>>(out, n, first, count, seed, arms, replicates);
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
    const int64_t blocks = (count + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS;
    interleave_kernel<<<(unsigned)blocks, COHORT_CUDA_THREADS>>>(
        src, member_stride, scale, shift, remove_mean, member_scale, dst, n, ld, m0, count);
    COHORT_CUDA_CHECK_LAUNCH("interleave_kernel");
    return COHORT_OK;
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
};
