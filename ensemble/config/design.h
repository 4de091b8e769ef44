/* Space-filling sweep designs: where point i of a design of `points` points lies in the unit cube
 * [0, 1]^d, as a function of (seed, i) alone, so that chunks, ranks, `--members` parts, merges
 * and `--resume` all see the same points, bit for bit.
 *
 * - Latin hypercube (McKay, Beckman and Conover 1979): coordinate j of point i is
 *   (pi_j(i) + u_ij) / points, pi_j a permutation of [0, points) keyed by (seed, j) and u_ij in
 *   (0, 1] a Philox draw: one point in every stratum of every dimension.
 * - Sobol: the Joe-Kuo (2008) sequence (their new-joe-kuo-6.21201 direction numbers), in the
 *   Gray-code order scipy.stats.qmc.Sobol draws it, with 32 bits per coordinate, randomised by a
 *   digital shift (each coordinate's bits XORed with a word drawn from the seed): repeated seeds
 *   give independent, unbiased estimates, and each shifted sequence keeps the net's balance.
 * - Saltelli (Saltelli et al. 2010, Sec. 3): the A, B and AB_j matrices of a 2d-dimensional
 *   shifted Sobol base sequence (A: its first d coordinates, B: the last d; AB_j: A with column j
 *   taken from B). Point i is arm i % (d + 2) of base point i / (d + 2): arm 0 is A, arm 1 is B,
 *   arm 2 + j is AB_j, so that a base point's arms are neighbours and its estimator terms can be
 *   formed as they are computed. */
#ifndef COHORT_DESIGN_H
#define COHORT_DESIGN_H

#include <stdint.h>

typedef enum design_kind {
    DESIGN_GRID = 0,
    DESIGN_ZIP,
    DESIGN_LHS,
    DESIGN_SOBOL,
    DESIGN_SALTELLI
} design_kind;

/* The Joe-Kuo table's dimensions cohort carries: a Saltelli design of 8 swept keys needs 16. */
enum { DESIGN_SOBOL_DIMS = 16 };

/* The name `sweep.design` gives kind (grid, zip, lhs, sobol, saltelli), and back (-1: none). */
const char *design_name(design_kind kind);
int design_from_name(const char *name);
/* Whether kind draws points from ranges (lhs, sobol, saltelli) rather than lists. */
int design_space_filling(design_kind kind);

/* Coordinate `dim` (< DESIGN_SOBOL_DIMS) of point i of the unshifted Sobol sequence, as the
 * 32-bit integer x 2^32 (x in [0, 1)); point 0 is the origin. */
uint32_t design_sobol_bits(uint64_t i, int dim);
/* The digital shift of coordinate `dim` for `seed`. */
uint32_t design_sobol_shift(uint64_t seed, int dim);
/* The Latin hypercube's permutation of [0, points) for (seed, dim), at i (< points): a keyed
 * Feistel bijection on the next even power of two, walked back into range. */
uint64_t design_lhs_stratum(uint64_t seed, int dim, uint64_t points, uint64_t i);

/* The members of each Saltelli base point: d + 2 arms. */
int64_t design_saltelli_arms(int d);

/* Coordinate j (< d) of point i of a design of `points` points in d dimensions, in [0, 1]
 * (Saltelli: `points` counts members of arms, points / (d + 2) base points). */
double design_coordinate(design_kind kind, uint64_t seed, int d, uint64_t points, uint64_t i,
                         int j);

#endif
