/* The ensemble's structure factor S(t, k) = mean over active members of |C^_k|^2, with
 * C^_k = (1/N) sum_j C_j e^{-2 pi i jk/N} (a unit cosine has |C^| = 1/2), k = 2 pi j / L for
 * j = 0 .. N/2, and k1(t) = sum_{k != 0} S / sum_{k != 0} |k|^-1 S (cuSten eq. 6 in 1D, both sums
 * over all nonzero wavenumbers of the real field: the pair +-k counts twice, the Nyquist mode
 * once); the k = 0 entry is <C>^2. Spectra come from the
 * backend (cuFFT or GSL) and are summed in member order (ordered_sum.h), so S does not depend on
 * chunking. */
#ifndef COHORT_STRUCTURE_FACTOR_H
#define COHORT_STRUCTURE_FACTOR_H

#include <stdint.h>

#include "analysis/ordered_sum.h"
#include "backend/backend.h"

typedef struct structure_factor {
    const cohort_backend *be;
    int64_t n, members, max_count, n_times;
    double length;
    void *plan;
    double *power;      /* backend: (n/2 + 1) x max_count */
    unsigned char *cls; /* backend: max_count classes (0, or REDUCTION_SKIP) */
    unsigned char *host_cls;
    ordered_sum *sums; /* one per time, allocated when first used */
} structure_factor;

/* Spectra of n-point members on a domain of `length`, `members` in all, calls of at most
 * max_count members at leading dimension ld, at n_times output times. */
int structure_factor_alloc(const cohort_backend *be, int64_t n, double length, int64_t ld,
                           int64_t max_count, int64_t members, int64_t n_times,
                           structure_factor **out);
void structure_factor_free(structure_factor *sf);
/* Backend memory a structure factor needs per member of a call (for chunk sizing). */
double structure_factor_bytes_per_member(int64_t n);
/* Adds the spectra of global members [first, first + count) at time index `time`: their fields
 * at columns [m0, m0 + count) of u (backend memory, the plan's leading dimension); include[j]
 * (host) = 0 leaves member first + j out (diverged). */
int structure_factor_add(structure_factor *sf, int64_t time, const double *u, int64_t m0,
                         int64_t count, int64_t first, const unsigned char *include);
/* S(t, k_j) for j = 0 .. n/2 into spectrum (n_active members: NaN where 0) and k1. */
int structure_factor_result(const structure_factor *sf, int64_t time, int64_t n_active,
                            double *spectrum, double *k1);
/* k1 from a spectrum S(k_j), j = 0 .. n/2 (see above). */
double structure_factor_k1(const double *spectrum, int64_t n, double length);

#endif
