/* The fields' kernels on the cuda backend: one thread per member, or a block per member for the
 * moments of a large field. */
#include <cuda_runtime.h>

#include "backend/cuda_check.cuh"
#include "fields/fields.h"
#include "fields/fields_numerics.h"

__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    fields_moments_kernel(const double *__restrict__ u, const double *__restrict__ mean, int64_t n,
                          int64_t ld, int64_t m0, int64_t count, double *out)
{
    const int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (k >= count) return;
    field_member_moments(u + m0 + k, n, ld, mean != NULL, mean ? mean[m0 + k] : 0.0, &out[k],
                         &out[count + k]);
}

/* A large field stored as itself (n > FIELD_SUM_SEQUENTIAL_MAX): a block per member, a thread per
 * lane, the lanes added by halving as fields_member_moments_host does (the same bits). */
__global__ void __launch_bounds__(FIELD_SUM_LANES)
    fields_moments_lanes_kernel(const double *__restrict__ u, int64_t n, int64_t ld, int64_t m0,
                                int64_t count, double *out)
{
    __shared__ double sum[FIELD_SUM_LANES], sum2[FIELD_SUM_LANES];
    const int64_t k = blockIdx.x;
    const int l = threadIdx.x;
    field_lane_sums(u + m0 + k, n, ld, l, FIELD_SUM_LANES, &sum[l], &sum2[l]);
    for (int h = FIELD_SUM_LANES / 2; h >= 1; h /= 2) {
        __syncthreads();
        if (l < h) sum[l] += sum[l + h], sum2[l] += sum2[l + h];
    }
    if (l == 0) {
        out[k] = sum[0] / (double)n;
        out[count + k] = sum2[0] / (double)n;
    }
}

static int cuda_moments(const double *u, const double *mean, int64_t n, int64_t ld, int64_t m0,
                        int64_t count, double *out)
{
    if (!mean && n > FIELD_SUM_SEQUENTIAL_MAX) {
        fields_moments_lanes_kernel<<<(unsigned)count, FIELD_SUM_LANES>>>(u, n, ld, m0, count, out);
        COHORT_CUDA_CHECK_LAUNCH("fields_moments_lanes_kernel");
        return COHORT_OK;
    }
    const int64_t blocks = (count + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS;
    fields_moments_kernel<<<(unsigned)blocks, COHORT_CUDA_THREADS>>>(u, mean, n, ld, m0, count,
                                                                     out);
    COHORT_CUDA_CHECK_LAUNCH("fields_moments_kernel");
    return COHORT_OK;
}

__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    fields_values_kernel(const double *__restrict__ u, const double *__restrict__ mean, int64_t n,
                         int64_t ld, int64_t m0, int64_t count, double *out)
{
    const int64_t m = m0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m < m0 + count) field_member_values(u + m, n, ld, mean[m], out + m);
}

static int cuda_values(const double *u, const double *mean, int64_t n, int64_t ld, int64_t m0,
                       int64_t count, double *out)
{
    const int64_t blocks = (count + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS;
    fields_values_kernel<<<(unsigned)blocks, COHORT_CUDA_THREADS>>>(u, mean, n, ld, m0, count, out);
    COHORT_CUDA_CHECK_LAUNCH("fields_values_kernel");
    return COHORT_OK;
}

extern "C" const fields_kernels fields_kernels_cuda = {.moments = cuda_moments,
                                                       .values = cuda_values};
