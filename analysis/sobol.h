/* Variance-based (Sobol) sensitivity indices of one statistic from a Saltelli design's members
 * (config/design.h: each base point's arms A, B, AB_1 .. AB_d): the first-order index of
 * Saltelli et al. (2010, Table 2 (b)), S_j = mean(f_B (f_ABj - f_A)) / V, and Jansen's total
 * index (Table 2 (f)), ST_j = mean((f_A - f_ABj)^2) / (2 V), V the variance (divided by the
 * count) of the f_A and f_B values together: the estimators scipy.stats.sobol_indices uses.
 *
 * Base points are folded into units (sums in the order they are added; sobol_stream.h's units of
 * members, each base point in the unit of its first member) and the units are what a bootstrap
 * resamples (bootstrap.h's draws), so that the indices and their intervals depend only on the
 * base points' values, their units and the seed. A base point with a value that is not finite (a
 * diverged member) is left out whole. */
#ifndef COHORT_SOBOL_H
#define COHORT_SOBOL_H

#include <stdint.h>

#include "analysis/moments.h"

enum { SOBOL_MAX_PARAMETERS = 8 };

typedef struct sobol_units {
    int d;                 /* parameters */
    int64_t n_units;       /* units */
    moments *outputs;      /* [unit]: the f_A and f_B values */
    double *first, *total; /* [unit * d + j]: sums of f_B (f_ABj - f_A) and (f_A - f_ABj)^2 */
    double *points;        /* [unit]: base points included */
} sobol_units;

/* n_units units of base points of d parameters. Errors: COHORT_ERR_INVALID_ARGUMENT (d outside
 * [1, SOBOL_MAX_PARAMETERS], n_units < 1), COHORT_ERR_NO_MEMORY. */
int sobol_units_alloc(sobol_units *s, int d, int64_t n_units);
void sobol_units_free(sobol_units *s);
/* Adds a base point's d + 2 values f[arm] (A, B, AB_1 .. AB_d) to unit u (nothing where one is
 * not finite). */
void sobol_units_add(sobol_units *s, int64_t u, const double *f);

/* The indices over the units draw[0 .. n) (draw NULL: every unit once, in order): first[j] and
 * total[j], NaN where fewer than two base points count or V is 0. */
void sobol_indices(const sobol_units *s, const int64_t *draw, int64_t n, double *first,
                   double *total);
/* Bootstrap 95% percentile intervals of every index from `resamples` resamples of the units
 * (first_ci[2 j], first_ci[2 j + 1]; NaN with fewer than two units or resamples). Errors:
 * COHORT_ERR_NO_MEMORY. */
int sobol_intervals(const sobol_units *s, int resamples, uint64_t seed, double *first_ci,
                    double *total_ci);

#endif
