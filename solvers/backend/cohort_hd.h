/* COHORT_HD marks the per-point and per-system arithmetic that is shared by the OpenMP loops and
 * the CUDA kernels: static __host__ __device__ inline under nvcc, plain static inline in C. */
#ifndef COHORT_HD_H
#define COHORT_HD_H

#include <math.h>

#if defined(__CUDACC__)
#    define COHORT_HD static __host__ __device__ __forceinline__
/* Arithmetic compiled once per translation unit and called, not inlined: every kernel of the
 * unit then rounds it alike (nvcc contracts multiply-adds into FMAs per inlined context, so two
 * kernels inlining one long expression may differ in the last bits). Unused where a unit calls
 * it from device code only: the host compiler then sees no caller. */
#    define COHORT_HD_CALLED static __host__ __device__ __noinline__ __attribute__((unused))
#else
#    define COHORT_HD static inline
#    define COHORT_HD_CALLED static inline
#endif

/* A product and a multiply-add that every kernel inlining them rounds alike: on the device the
 * intrinsics nvcc never contracts or reorders (a plain a * b + c it fuses or not per inlined
 * context), on the host the plain operations. Arithmetic that the per-stage and the fused kernels
 * both inline is written with them where a product meets a sum. */
COHORT_HD double cohort_mul(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

COHORT_HD double cohort_mul_add(double a, double b, double c)
{
#if defined(__CUDA_ARCH__)
    return __fma_rn(a, b, c);
#else
    return a * b + c;
#endif
}

/* 1 / x and 1 / sqrt(x) for 1 <= x < 2^1000 (or not finite: NaN). On the device without a branch:
 * the hardware's approximation (about 23 bits) refined by two Newton steps, to within an ulp or
 * two. CUDA's division and rsqrt check the argument's range and branch, which kept ptxas from
 * interleaving a node's four edges (a quarter of the fused advance's stalls were on them and on
 * the branches). On the host the plain operations. */
COHORT_HD double cohort_reciprocal(double x)
{
#if defined(__CUDA_ARCH__)
    double y;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    for (int k = 0; k < 2; ++k) y = __fma_rn(y, __fma_rn(-x, y, 1.0), y); /* y (2 - x y) */
    return y;
#else
    return 1.0 / x;
#endif
}

COHORT_HD double cohort_inverse_sqrt(double x)
{
#if defined(__CUDA_ARCH__)
    double y;
    asm("rsqrt.approx.f64 %0, %1;" : "=d"(y) : "d"(x));
    for (int k = 0; k < 2; ++k) /* y (3 - x y^2) / 2 */
        y = __fma_rn(__dmul_rn(0.5, y), __fma_rn(-__dmul_rn(x, y), y, 1.0), y);
    return y;
#else
    return 1.0 / sqrt(x);
#endif
}

#endif
