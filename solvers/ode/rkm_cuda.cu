/* The Runge-Kutta-Merson loops on the cuda backend (rkm_kernels.h), around rkm_numerics.h. The
 * point kernels run one thread per (member, value), member fastest, so that a warp reads
 * consecutive addresses whether the batch holds thousands of small members or one large one. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "backend/cuda_check.cuh"
#include "ode/rkm_kernels.h"

static __device__ unsigned long long rkm_active_members;

__global__ void rkm_begin_kernel(rkm_member *s, double t_to, int64_t count)
{
    const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m < count && rkm_member_begin(&s[m], t_to)) atomicAdd(&rkm_active_members, 1ull);
}

static int rkm_begin_cuda(rkm_member *s, double t_to, int64_t count, int64_t *active)
{
    void *counter = NULL;
    COHORT_CUDA_CHECK(cudaGetSymbolAddress(&counter, rkm_active_members));
    if (active) COHORT_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned long long)));
    rkm_begin_kernel<<<(unsigned)((count + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS),
                       COHORT_CUDA_THREADS>>>(s, t_to, count);
    COHORT_CUDA_CHECK_LAUNCH("rkm_begin_kernel");
    if (!active) return COHORT_OK;
    unsigned long long a = 0;
    COHORT_CUDA_CHECK(cudaMemcpy(&a, counter, sizeof a, cudaMemcpyDeviceToHost));
    *active = (int64_t)a;
    return COHORT_OK;
}

static unsigned blocks_for(int64_t threads)
{
    return (unsigned)((threads + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS);
}

template <typename I>
__global__ void rkm_stage_kernel(int stage, const rkm_member *__restrict__ s,
                                 const double *__restrict__ u, const double *__restrict__ k1,
                                 const double *__restrict__ k2, const double *__restrict__ k3,
                                 const double *__restrict__ k4, double *__restrict__ t_stage,
                                 double *__restrict__ arg, int64_t n, int64_t ld, int64_t count)
{
    const I idx = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    if (idx >= (I)(n * count)) return;
    const I m = idx % (I)count, v = idx / (I)count;
    const int64_t q = (int64_t)v * ld + m;
    const double h = s[m].h;
    if (v == 0) t_stage[m] = s[m].t + rkm_stage_time_fraction(stage) * h;
    if (stage == 1) return;
    /* only the stage values the stage reads: k2 in stage 3, k3 in 4 and 5, k4 in 5 */
    arg[q] = rkm_stage_argument(stage, u[q], h, k1[q], stage == 3 ? k2[q] : 0.0,
                                stage >= 4 ? k3[q] : 0.0, stage == 5 ? k4[q] : 0.0);
}

static int rkm_stage_cuda(int stage, const rkm_member *s, const double *u, const double *k1,
                          const double *k2, const double *k3, const double *k4, double *t_stage,
                          double *arg, int64_t n, int64_t ld, int64_t count)
{
    const int64_t threads = stage == 1 ? count : n * count;
    COHORT_CUDA_WITH_INDEX(threads, I,
                           rkm_stage_kernel<I><<<blocks_for(threads), COHORT_CUDA_THREADS>>>(
                               stage, s, u, k1, k2, k3, k4, t_stage, arg, n, ld, count));
    COHORT_CUDA_CHECK_LAUNCH("rkm_stage_kernel");
    return COHORT_OK;
}

/* eq. 27: thread (m, slice) takes the maximum over values slice, slice + slices, ... of member m,
 * then one atomicMax on the bits of the member's e: non-negative doubles order as their bits, and
 * a NaN's bits exceed every finite value's, so the maximum is exact, in any order, and a NaN
 * stays. */
__global__ void rkm_error_kernel(rkm_member *__restrict__ s, const double *__restrict__ k1,
                                 const double *__restrict__ k3, const double *__restrict__ k4,
                                 const double *__restrict__ k5, int64_t n, int64_t ld,
                                 int64_t count, int64_t slices)
{
    const int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx >= slices * count) return;
    const int64_t m = idx % count;
    const double h = s[m].h;
    if (h == 0.0) return;
    unsigned long long e = 0;
    for (int64_t v = idx / count; v < n; v += slices) {
        const int64_t q = v * ld + m;
        const unsigned long long bits = (unsigned long long)__double_as_longlong(
            rkm_error_point(h, k1[q], k3[q], k4[q], k5[q]));
        e = bits > e ? bits : e;
    }
    atomicMax((unsigned long long *)&s[m].e, e);
}

__global__ void rkm_control_kernel(rkm_member *s, double t_to, double tolerance, int64_t count)
{
    const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m < count) rkm_member_control(&s[m], t_to, tolerance);
}

template <typename I>
__global__ void rkm_update_kernel(const rkm_member *__restrict__ s, double *__restrict__ u,
                                  const double *__restrict__ k1, const double *__restrict__ k4,
                                  const double *__restrict__ k5, int64_t n, int64_t ld,
                                  int64_t count)
{
    const I idx = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x;
    if (idx >= (I)(n * count)) return;
    const I m = idx % (I)count;
    const int64_t q = (int64_t)(idx / (I)count) * ld + m;
    if (s[m].update) u[q] = rkm_update_value(u[q], s[m].h, k1[q], k4[q], k5[q]);
}

static int rkm_finish_cuda(rkm_member *s, double t_to, double tolerance, double *u,
                           const double *k1, const double *k3, const double *k4, const double *k5,
                           int64_t n, int64_t ld, int64_t count)
{
    /* enough threads to fill the device: ~2^18, whole slices of every member */
    int64_t slices = ((int64_t)1 << 18) / count;
    slices = slices < 1 ? 1 : slices > n ? n : slices;
    rkm_error_kernel<<<blocks_for(slices * count), COHORT_CUDA_THREADS>>>(s, k1, k3, k4, k5, n, ld,
                                                                          count, slices);
    COHORT_CUDA_CHECK_LAUNCH("rkm_error_kernel");
    rkm_control_kernel<<<blocks_for(count), COHORT_CUDA_THREADS>>>(s, t_to, tolerance, count);
    COHORT_CUDA_CHECK_LAUNCH("rkm_control_kernel");
    COHORT_CUDA_WITH_INDEX(n * count, I,
                           rkm_update_kernel<I><<<blocks_for(n * count), COHORT_CUDA_THREADS>>>(
                               s, u, k1, k4, k5, n, ld, count));
    COHORT_CUDA_CHECK_LAUNCH("rkm_update_kernel");
    return COHORT_OK;
}

extern "C" const rkm_kernels rkm_kernels_cuda = {rkm_begin_cuda, rkm_stage_cuda, rkm_finish_cuda};
