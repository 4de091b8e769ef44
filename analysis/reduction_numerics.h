/* Member-wise reductions shared by the backends (COHORT_HD): the ordered block fold behind every
 * ensemble statistic that must not depend on chunking, the nearest centroid of k-means, and the
 * normalisation of a power spectrum. */
#ifndef COHORT_REDUCTION_NUMERICS_H
#define COHORT_REDUCTION_NUMERICS_H

#include <stdint.h>

#include "backend/cohort_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A member of class REDUCTION_SKIP is left out of a fold (diverged members). */
enum { REDUCTION_SKIP = 255, REDUCTION_MAX_CLASSES = 16 };

/* The first and one-past-last local member (0 .. count) of local fold block b of a call covering
 * global members [first, first + count) with blocks of `block` global members. */
COHORT_HD void reduction_block_range(int64_t first, int64_t count, int64_t block, int64_t b,
                                     int64_t *lo, int64_t *hi)
{
    const int64_t start = (first / block + b) * block - first, end = start + block;
    *lo = start > 0 ? start : 0;
    *hi = end < count ? end : count;
}

/* The fixed pairwise tree behind every ordered sum (ordered_sum.h): level by level, stride 1, 2,
 * 4, ... while stride < n, block b = 2 stride p, p < reduction_tree_pairs(n, stride), takes in
 * block b + stride value by value; after the last level block 0 holds the total. The tree depends
 * only on n, so the same blocks give the same bits on either backend. */
COHORT_HD int64_t reduction_tree_pairs(int64_t n, int64_t stride)
{
    return n > stride ? (n - stride + 2 * stride - 1) / (2 * stride) : 0;
}

/* Squared Euclidean distance from member x[i * s], i < n, to each of k centroids c[j * n + i]
 * (each summed over i in order, (x - c)^2 added as a fused multiply-add on both backends), and
 * the nearest (the lowest index
 * among equals). One pass over the member's values: every centroid's sum is carried beside the
 * others, so a member is read once whatever k. */
COHORT_HD int reduction_nearest_centroid(const double *x, int64_t n, int64_t s, const double *c,
                                         int k, double *dist2)
{
    double d[REDUCTION_MAX_CLASSES];
    for (int j = 0; j < REDUCTION_MAX_CLASSES; ++j) d[j] = 0.0;
#if defined(__CUDA_ARCH__) /* loads of several values in flight */
#    pragma unroll 4
#endif
    for (int64_t i = 0; i < n; ++i) {
        const double xi = x[i * s];
#if defined(__CUDA_ARCH__) /* unrolled: d stays in registers */
#    pragma unroll
#endif
        for (int j = 0; j < REDUCTION_MAX_CLASSES; ++j)
            if (j < k) {
                const double diff = xi - c[j * n + i];
                d[j] = cohort_mul_add(diff, diff, d[j]);
            }
    }
    int best = 0;
    for (int j = 1; j < k; ++j)
        if (d[j] < d[best]) best = j;
    *dist2 = d[best];
    return best;
}

/* sum over r < rows, in order, of w[r] x[r * ld + j] (the bootstrap's per-member terms of k1,
 * structure_factor.h), each term a fused multiply-add (cohort_mul_add). */
COHORT_HD double reduction_weighted_sum(const double *x, int64_t rows, int64_t ld, int64_t j,
                                        const double *w)
{
    double sum = 0.0;
    for (int64_t r = 0; r < rows; ++r) sum = cohort_mul_add(w[r], x[r * ld + j], sum);
    return sum;
}

/* |C^_k|^2 with C^_k = (1/n) sum_j C_j e^{-2 pi i jk/n} from an unnormalised DFT coefficient. */
/* Whether coefficient (kx, ky) of a real nx x ny field's half spectrum is its own conjugate (its
 * imaginary part is zero up to rounding, which is dropped): kx and ky each 0 or a Nyquist index.
 * 1D: ny = 1. */
COHORT_HD int spectrum_self_conjugate(int64_t kx, int64_t ky, int64_t nx, int64_t ny)
{
    return (kx == 0 || 2 * kx == nx) && (ky == 0 || 2 * ky == ny);
}

COHORT_HD double reduction_power(double re, double im, int64_t n)
{
    const double inv = 1.0 / (double)n;
    return (re * re + im * im) * inv * inv;
}

#ifdef __cplusplus
}
#endif
#endif
