/* COHORT_HD marks the per-point and per-system arithmetic that is shared by the OpenMP loops and
 * the CUDA kernels: static __host__ __device__ inline under nvcc, plain static inline in C. */
#ifndef COHORT_HD_H
#define COHORT_HD_H

#include <math.h>
#include <stdint.h>
#include <string.h>

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

/* The arithmetic's generation: results of different generations differ in their last bits (2:
 * cohort 0.2.0, the same bits on both backends). A checkpoint records it, and --resume refuses
 * one of another generation, whose continuation would not be the uninterrupted run's. */
#define COHORT_ARITHMETIC 2

/* One arithmetic on both backends (docs/design.md, "One arithmetic"): both are built without
 * implicit contraction (-ffp-contract=off, nvcc --fmad=false), so a * b + c rounds twice on both,
 * and a product meant to be fused says so with cohort_mul_add, one rounding on both (the device's
 * FMA; the host's C99 fma, the hardware's where the build enables it, glibc's exact software
 * fma where the machine has none). cohort_mul is a plain product that nvcc may not reorder. */
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
    return fma(a, b, c);
#endif
}

/* A double's bits and back, exact on both backends. */
COHORT_HD int64_t cohort_double_bits(double x)
{
#if defined(__CUDA_ARCH__)
    return __double_as_longlong(x);
#else
    int64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
#endif
}

COHORT_HD double cohort_bits_double(int64_t bits)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(bits);
#else
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
#endif
}

/* 1 / x and 1 / sqrt(x) for 2^-1000 <= x <= 2^1000 (not finite: NaN), the same bits on both
 * backends and without a branch: a seed from the exponent's bits (the integer subtraction halves
 * or negates the exponent; relative error at most 5.1e-2 and 3.5e-2), then three steps of the
 * third-order iterations y (1 + e + e^2), e = 1 - x y, and y (1 + r/2 + 3 r^2/8), r = 1 - x y^2.
 * Every operation is a product, a sum or an FMA, so both backends round alike; the result is
 * within an ulp (tests/test_arithmetic.c). The x * 0 term makes a non-finite x give NaN. On the
 * device it is a dozen FMAs where division and rsqrt branch on the argument's range (the branches
 * kept ptxas from interleaving a curvature node's four edges). */
COHORT_HD double cohort_reciprocal(double x)
{
    double y =
        cohort_mul_add(x, 0.0, cohort_bits_double(0x7FDE623822FC16E6LL - cohort_double_bits(x)));
    for (int k = 0; k < 3; ++k) {
        const double e = cohort_mul_add(-x, y, 1.0);
        y = cohort_mul_add(y, cohort_mul_add(e, e, e), y);
    }
    return y;
}

COHORT_HD double cohort_inverse_sqrt(double x)
{
    double y = cohort_mul_add(
        x, 0.0, cohort_bits_double(0x5FE6EB50C7B537A9LL - (cohort_double_bits(x) >> 1)));
    for (int k = 0; k < 3; ++k) {
        const double r = cohort_mul_add(-cohort_mul(x, y), y, 1.0);
        y = cohort_mul_add(cohort_mul(y, r), cohort_mul_add(0.375, r, 0.5), y);
    }
    return y;
}

/* sin(pi x) and cos(pi x), the same bits on both backends (the device's sincospi and the host's
 * sin and cos differ in their last bits). The reduction is exact: n = rint(2x), f = x - n/2,
 * |f| <= 1/4 (Sterbenz); then the Taylor series of sin(pi f) and cos(pi f) to the terms below
 * 1e-19 (|pi f| <= pi/4), Horner with FMAs, and the quadrant's sign and swap. Within two ulps of
 * the exact values (tests/test_arithmetic.c). */
COHORT_HD void cohort_sincospi(double x, double *sin_pi_x, double *cos_pi_x)
{
    const double n = rint(2.0 * x), f = x - 0.5 * n, t = cohort_mul(f, f);
    double s = -0x1.8a404211f9547p-26, c = -0x1.2a0c591af8314p-23;
    s = cohort_mul_add(s, t, 0x1.aaec32af93359p-21),
    c = cohort_mul_add(c, t, 0x1.20c62c2f2d7f5p-18);
    s = cohort_mul_add(s, t, -0x1.6fadb9f155744p-16),
    c = cohort_mul_add(c, t, -0x1.b6e24f44b128fp-14);
    s = cohort_mul_add(s, t, 0x1.e8f434d018d63p-12),
    c = cohort_mul_add(c, t, 0x1.f9d38a3763cc3p-10);
    s = cohort_mul_add(s, t, -0x1.e3074fde8871fp-8),
    c = cohort_mul_add(c, t, -0x1.a6d1f2a204a8cp-6);
    s = cohort_mul_add(s, t, 0x1.50783487ee782p-4), c = cohort_mul_add(c, t, 0x1.e1f506891babbp-3);
    s = cohort_mul_add(s, t, -0x1.32d2cce62bd86p-1),
    c = cohort_mul_add(c, t, -0x1.55d3c7e3cbffap+0);
    s = cohort_mul_add(s, t, 0x1.466bc6775aae2p+1), c = cohort_mul_add(c, t, 0x1.03c1f081b5ac4p+2);
    s = cohort_mul_add(s, t, -0x1.4abbce625be53p+2),
    c = cohort_mul_add(c, t, -0x1.3bd3cc9be45dep+2);
    s = cohort_mul_add(s, t, 0x1.921fb54442d18p+1), c = cohort_mul_add(c, t, 1.0);
    s = cohort_mul(s, f);
    const double quarter = n - 4.0 * floor(0.25 * n); /* n mod 4, exact */
    *sin_pi_x = quarter == 0.0 ? s : quarter == 1.0 ? c : quarter == 2.0 ? -s : -c;
    *cos_pi_x = quarter == 0.0 ? c : quarter == 1.0 ? -s : quarter == 2.0 ? -c : s;
}

/* x^(1/5) for 2^-120 <= x <= 2^20, the same bits on both backends: x = m 2^r 2^(5q), 1 <= m < 2,
 * 0 <= r < 5, so x^(1/5) = (m 2^r)^(1/5) 2^q; a seed m^(1/5) 2^(r/5) from a quadratic in m
 * (relative error 9.6e-4) and three Newton steps y <- (4 y + m 2^r / y^4) / 5 on m 2^r (errors
 * 1.8e-6, 6.6e-12, then rounding). */
COHORT_HD double cohort_fifth_root(double x)
{
    const int64_t bits = cohort_double_bits(x);
    const int exponent = (int)((bits >> 52) & 0x7FF) - 1023;
    const int q = exponent >= 0 ? exponent / 5 : -((4 - exponent) / 5), r = exponent - 5 * q;
    const double m = cohort_bits_double((bits & 0x000FFFFFFFFFFFFFLL) | 0x3FF0000000000000LL);
    const double z = m * (double)(1 << r); /* exact */
    const double two_to_r5 = r == 0   ? 1.0
                             : r == 1 ? 1.148698354997035
                             : r == 2 ? 1.3195079107728942
                             : r == 3 ? 1.515716566510398
                                      : 1.7411011265922482;
    double y = cohort_mul(
        cohort_mul_add(cohort_mul_add(-0.04019476, m - 1.0, 0.18720872), m - 1.0, 1.00095781),
        two_to_r5);
    for (int k = 0; k < 3; ++k) {
        const double y2 = cohort_mul(y, y);
        y = cohort_mul_add(0.8, y, 0.2 * (z / cohort_mul(y2, y2)));
    }
    return cohort_mul(y, cohort_bits_double((int64_t)(q + 1023) << 52));
}

#endif
