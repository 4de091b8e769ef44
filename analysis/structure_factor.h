/* The ensemble's structure factor from the members' Fourier coefficients
 * C^_k = (1/(nx ny)) sum_j C_j e^{-i k.x_j} (a unit cosine has |C^| = 1/2), k = 2 pi (jx, jy) / L:
 *  - 1D (ny = 1): S(t, k_j) = mean over active members of |C^_k|^2 at k_j = 2 pi j / L,
 *    j = 0 .. nx/2 (the k = 0 entry is <C>^2);
 *  - 2D: the radial average: S(t, k_b) = the mean over the modes of shell b (|k| L / 2 pi
 *    rounded to b, b = 0 .. round(sqrt((nx/2)^2 + (ny/2)^2))) of the mean over active members of
 *    |C^_k|^2, k_b = 2 pi b / L;
 * and k1(t) = sum_{k != 0} S / sum_{k != 0} |k|^-1 S over every mode of the mean spectrum with its
 * exact |k| (cuSten eq. 6; both sums over all nonzero wavevectors of the real field, each
 * conjugate pair counted twice, the self-conjugate modes once). Spectra come from the backend
 * (cuFFT or GSL) and are summed in member order (ordered_sum.h), so S does not depend on
 * chunking. For the bootstrap of 1/k1, each member's two sums of eq. 6 (sum_{k != 0} |C^_k|^2
 * and sum_{k != 0} |k|^-1 |C^_k|^2, weighted as above) are summed over the bootstrap's units:
 * both are linear in the spectrum, so k1 of the mean spectrum over any units drawn is the ratio
 * of their sums, and a unit costs two numbers a time however large the grid. */
#ifndef COHORT_STRUCTURE_FACTOR_H
#define COHORT_STRUCTURE_FACTOR_H

#include <stdint.h>

#include "analysis/bootstrap.h"
#include "analysis/ordered_sum.h"
#include "backend/backend.h"

/* the per-member sums of eq. 6 kept per unit: sum S, sum S / |k| */
enum { STRUCTURE_FACTOR_K1_TERMS = 2 };

typedef struct structure_factor {
    const cohort_backend *be;
    int64_t nx, ny, rows, members, max_count, n_times, unit;
    double length;
    void *plan;
    double *power;      /* backend: rows x max_count */
    unsigned char *cls; /* backend: max_count classes (0, or REDUCTION_SKIP) */
    unsigned char *host_cls;
    double *mean_power;    /* host: rows */
    double *fold_scratch;  /* backend: the blocks of one call of the ordered sums */
    ordered_sum *sums;     /* one per time, allocated when first used */
    double *k1_weights;    /* backend: K1_TERMS x rows, each row's weight in eq. 6's two sums */
    double *k1_terms;      /* backend: K1_TERMS x max_count, a call's members' sums */
    double *unit_scratch;  /* backend: the units of one call of k1_units */
    ordered_sum *k1_units; /* one per time: K1_TERMS rows, blocks of `unit` members */
} structure_factor;

/* Spectra of nx x ny members (1D: ny = 1) on a domain of side `length`, `members` in all, calls
 * of at most max_count members at leading dimension ld, at n_times output times, the bootstrap's
 * units of `unit` members. */
int structure_factor_alloc(const cohort_backend *be, int64_t nx, int64_t ny, double length,
                           int64_t ld, int64_t max_count, int64_t members, int64_t n_times,
                           int64_t unit, structure_factor **out);
void structure_factor_free(structure_factor *sf);
/* The values summed per member (the half spectrum's ny (nx/2 + 1) powers): an ordered sum's
 * rows. */
int64_t structure_factor_sum_rows(int64_t nx, int64_t ny);
/* Backend memory a structure factor needs per member of a call (for chunk sizing). */
double structure_factor_bytes_per_member(int64_t nx, int64_t ny);
/* How many wavenumbers S has (nx/2 + 1 in 1D, the shells in 2D), and their values. */
int64_t structure_factor_k_count(int64_t nx, int64_t ny);
void structure_factor_k_values(int64_t nx, int64_t ny, double length, double *k);
/* Adds the spectra of global members [first, first + count) at time index `time`: their fields
 * at columns [m0, m0 + count) of u (backend memory, the plan's leading dimension); include[j]
 * (host) = 0 leaves member first + j out (diverged). */
int structure_factor_add(structure_factor *sf, int64_t time, const double *u, int64_t m0,
                         int64_t count, int64_t first, const unsigned char *include);
/* S(t, k) for the structure_factor_k_count wavenumbers into spectrum (n_active members: NaN
 * where 0) and k1. */
int structure_factor_result(const structure_factor *sf, int64_t time, int64_t n_active,
                            double *spectrum, double *k1);
/* The bootstrap's series of 1/k1 (bootstrap.h): at time index r, 1/k1 of the mean spectrum over
 * the drawn units, from their sums of eq. 6 (sf->k1_units[r]). */
bootstrap_series structure_factor_series_inverse_k1(const structure_factor *sf);

/* k1 from a mean half spectrum, power[ky (nx/2 + 1) + kx] (see above). */
double structure_factor_k1(const double *power, int64_t nx, int64_t ny, double length);

#endif
