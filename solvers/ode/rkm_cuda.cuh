/* The fused Runge-Kutta-Merson advance on the cuda backend (C++, for a model's .cu file): one block
 * per member runs Algorithm 4.1 from the member's time to t_to in a single launch, the stages
 * separated by block barriers, so that a batch of small members costs one launch per advance
 * instead of some fifteen launches and a host synchronisation per step (rkm.h: the batches it
 * takes). The arithmetic is rkm_numerics.h's in the per-stage path's order, and e is the same
 * exact maximum, so a member's steps and state are bitwise those of the per-stage path
 * (test_curvature checks it).
 *
 * Rhs: a device functor with
 *   __device__ void eval(double t, const double *u, double *f, int64_t m, int64_t ld) const;
 * that writes f(t, u) for member m, values spread over the block's threads, and ends after a
 * __syncthreads() of its own where it has several passes. */
#ifndef COHORT_RKM_CUDA_CUH
#define COHORT_RKM_CUDA_CUH

#include <cuda_runtime.h>

#include "backend/cuda_check.cuh"
#include "ode/rkm.h"
#include "ode/rkm_numerics.h"

enum { RKM_FUSED_THREADS = 256 };

template <class Rhs>
__global__ void __launch_bounds__(RKM_FUSED_THREADS)
    rkm_fused_kernel(const Rhs rhs, const rkm_fused_args a)
{
    const int64_t m = blockIdx.x, n = a.n, ld = a.ld;
    __shared__ rkm_member s;
    __shared__ unsigned long long e_bits;
    __shared__ int stepping;
    if (threadIdx.x == 0) s = a.members[m];
    for (;;) {
        if (threadIdx.x == 0) stepping = rkm_member_begin(&s, a.t_to), e_bits = 0;
        __syncthreads();
        if (!stepping) break;
        const double h = s.h;
        double *const stage_out[6] = {NULL, a.k1, a.k2_k5, a.k3, a.k4, a.k2_k5};
        for (int stage = 1; stage <= 5; ++stage) {
            if (stage > 1) {
                for (int64_t v = threadIdx.x; v < n; v += blockDim.x) {
                    const int64_t q = v * ld + m;
                    a.arg[q] =
                        rkm_stage_argument(stage, a.u[q], h, a.k1[q], stage == 3 ? a.k2_k5[q] : 0.0,
                                           stage >= 4 ? a.k3[q] : 0.0, stage == 5 ? a.k4[q] : 0.0);
                }
                __syncthreads();
            }
            rhs.eval(s.t + rkm_stage_time_fraction(stage) * h, stage == 1 ? a.u : a.arg,
                     stage_out[stage], m, ld);
            __syncthreads();
        }
        /* eq. 27, as rkm_error_kernel: the maximum of the bits of non-negative values */
        unsigned long long e = 0;
        for (int64_t v = threadIdx.x; v < n; v += blockDim.x) {
            const int64_t q = v * ld + m;
            const unsigned long long bits = (unsigned long long)__double_as_longlong(
                rkm_error_point(h, a.k1[q], a.k3[q], a.k4[q], a.k2_k5[q]));
            e = bits > e ? bits : e;
        }
        atomicMax(&e_bits, e);
        __syncthreads();
        if (threadIdx.x == 0) {
            s.e = __longlong_as_double((long long)e_bits);
            rkm_member_control(&s, a.t_to, a.tolerance);
        }
        __syncthreads();
        if (s.update)
            for (int64_t v = threadIdx.x; v < n; v += blockDim.x) {
                const int64_t q = v * ld + m;
                a.u[q] = rkm_update_value(a.u[q], h, a.k1[q], a.k4[q], a.k2_k5[q]);
            }
        __syncthreads();
    }
    if (threadIdx.x == 0) a.members[m] = s;
}

template <class Rhs> static int rkm_fused_launch(const Rhs &rhs, const rkm_fused_args *a)
{
    rkm_fused_kernel<Rhs><<<(unsigned)a->count, RKM_FUSED_THREADS>>>(rhs, *a);
    COHORT_CUDA_CHECK_LAUNCH("rkm_fused_kernel");
    return COHORT_OK;
}

#endif
