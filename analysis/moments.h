/* Streaming ensemble moments that do not depend on how the ensemble was cut into chunks.
 *
 * Welford's update adds one value at a time; Chan, Golub and LeVeque's pairwise formula merges two
 * partial results. Floating-point merges depend on where the parts were cut, so members are
 * folded into fixed units of consecutive global member indices (Welford, in member order) and the
 * units are merged in a fixed pairwise tree: the same members in the same order give bitwise the
 * same moments whatever the chunk size, the number of devices, or a resume. The units are also
 * what the bootstrap resamples (bootstrap.h): their size is chosen from the ensemble's size alone
 * (moments_unit_size) and divides MOMENTS_BLOCK, the alignment at which parts of a run split by
 * `--members` or over ranks start, so that no unit is ever cut. */
#ifndef COHORT_MOMENTS_H
#define COHORT_MOMENTS_H

#include <stddef.h>
#include <stdint.h>

/* parts of a run start at multiples of MOMENTS_BLOCK members; every unit size divides it */
enum { MOMENTS_BLOCK = 1024, MOMENTS_UNITS_WANTED = 1024 };

/* The bootstrap's unit for an ensemble of `members`: single members up to MOMENTS_UNITS_WANTED
 * members; above, the smallest power of two that cuts the ensemble into at most
 * MOMENTS_UNITS_WANTED units, MOMENTS_BLOCK at most (so at least 513 units from 1,025 members
 * on, and members / 1024 of them above 2^20 members). */
int64_t moments_unit_size(int64_t members);
/* Whether `unit` may be a unit: a power of two that divides MOMENTS_BLOCK. */
int moments_unit_valid(int64_t unit);

typedef struct moments {
    double count; /* values included */
    double mean;
    double m2; /* sum of squared deviations from the mean */
} moments;

void moments_add(moments *a, double x);
/* a <- a merged with b (Chan et al.). */
void moments_merge(moments *a, const moments *b);
/* Sample variance (count - 1 in the denominator; NaN below two values). */
double moments_variance(const moments *a);
/* Standard error of the mean, sqrt(variance / count). */
double moments_sem(const moments *a);

/* The unit-ordered accumulator of one statistic over members [first, end) of an ensemble of
 * `members`: units[u] holds global unit first_unit + u, members [(first_unit + u) unit, ...). */
typedef struct moments_units {
    int64_t members, next; /* the next global member index expected */
    int64_t unit, first_unit, n_units;
    moments *units;
} moments_units;

/* The units of members [first, end) (first a multiple of unit; the whole run: 0, members).
 * Errors: COHORT_ERR_EMPTY_BATCH (members < 1), COHORT_ERR_INVALID_ARGUMENT (unit or range),
 * COHORT_ERR_NO_MEMORY. */
int moments_units_alloc(moments_units *b, int64_t members, int64_t unit, int64_t first,
                        int64_t end);
void moments_units_free(moments_units *b);
/* Adds the values of members [first, first + count) in order; values whose include flag is 0
 * (diverged members; include = NULL: all) are skipped. Members must arrive in increasing order,
 * each at most once, inside the allocated range (COHORT_ERR_INVALID_ARGUMENT otherwise). */
int moments_units_add(moments_units *b, int64_t first, int64_t count, const double *values,
                      const unsigned char *include);
/* The merged moments over all units held (fixed pairwise tree). */
moments moments_units_total(const moments_units *b);

#endif
