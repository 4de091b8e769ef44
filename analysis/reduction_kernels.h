/* The analyses' kernels per backend (reduction_cpu.c, reduction_cuda.cu), chosen by
 * COHORT_KERNELS in structure_factor.c, ordered_sum.c and kmeans.c. */
#ifndef COHORT_REDUCTION_KERNELS_H
#define COHORT_REDUCTION_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct reduction_kernels {
    /* Power spectra of periodic members of nx x ny points (1D: ny = 1): a plan for batches of up
     * to max_count members at leading dimension ld (cuFFT D2Z over the interleaved layout on
     * cuda, GSL's mixed-radix FFTs on cpu); then power[r * count + j] = |C^|^2 (reduction_power,
     * normalised by nx ny) of member m0 + j of the field u at the half-spectrum row
     * r = ky (nx/2 + 1) + kx, kx = 0 .. nx/2, ky = 0 .. ny-1, in the backend's memory. */
    int (*spectrum_plan_alloc)(int64_t nx, int64_t ny, int64_t ld, int64_t max_count, void **plan);
    void (*spectrum_plan_free)(void *plan);
    int (*spectrum_power)(void *plan, const double *u, int64_t m0, int64_t count, double *power);
    /* The ordered block fold: for each row r < rows, each local block b of the global members
     * [first, first + count) cut at multiples of `block` (reduction_block_range), and each class
     * c < classes: sums[(b * classes + c) * rows + r] += x[r * ld + m0 + j] over the members j of
     * the block with cls[j] == c, one at a time in member order (cls = NULL: all class 0;
     * REDUCTION_SKIP: left out). Because a sum carried over from the previous call continues in
     * the same order, the result does not depend on where calls cut the members. x, cls and sums
     * in the backend's memory; classes <= REDUCTION_MAX_CLASSES. */
    int (*block_fold)(const double *x, int64_t rows, int64_t ld, int64_t m0, int64_t count,
                      int64_t first, int64_t block, int classes, const unsigned char *cls,
                      double *sums);
    /* out[q * count + j] = sum over r < rows of weights[q * rows + r] x[r * count + j], q <
     * n_weights, j < count (reduction_weighted_sum: r in order). Backend memory. */
    int (*weighted_sums)(const double *x, int64_t rows, int64_t count, const double *weights,
                         int n_weights, double *out);
    /* labels[j] and dist2[j]: the nearest of k centroids (k x n, row-major, backend memory) to
     * member m0 + j of x and its squared distance (reduction_nearest_centroid). */
    int (*nearest_centroid)(const double *x, int64_t n, int64_t ld, int64_t m0, int64_t count,
                            const double *centroids, int k, unsigned char *labels, double *dist2);
    /* blocks[0 .. width) <- the sum of blocks[0 .. n), each of width values, by the fixed
     * pairwise tree (reduction_tree_pairs); the other blocks are overwritten. Backend memory. */
    int (*block_tree)(double *blocks, int64_t width, int64_t n);
    /* tally[c], c < k: how many of labels[0 .. count) are c; tally[k]: how many differ from
     * previous[j]. Integer counts, the same on any backend. Backend memory. */
    int (*label_tally)(const unsigned char *labels, const unsigned char *previous, int64_t count,
                       int k, int64_t *tally);
} reduction_kernels;
extern const reduction_kernels reduction_kernels_cpu, reduction_kernels_cuda;

#ifdef __cplusplus
}
#endif
#endif
