/* Error bars on a fitted coarsening law: a bootstrap over the fixed units of consecutive members
 * that the ensemble moments are kept in (moments.h: single members up to 1,024 members, else
 * units of a power of two members, at least 513 of them; members are independent, so a unit is
 * as good as a member and only the number of units matters to the error of the error). A
 * resample draws as many units as there are, uniformly with replacement, from the Philox stream
 * BOOTSTRAP_STREAM of the run's seed (draw j of resample b at index b * units + j), the same
 * units for every record, so that a member's whole history moves together; its value at record
 * r is a statistic of the drawn units (the count-weighted mean of their means, or 1/k1 of their
 * summed spectra), and its line the least-squares fit of the fitted records. The result depends
 * only on the units' sums and the seed: never on chunking, backend or ranks. */
#ifndef COHORT_BOOTSTRAP_H
#define COHORT_BOOTSTRAP_H

#include <stdint.h>

#include "analysis/moments.h"

/* beyond every member's stream, k-means++'s and the silhouette's subsample's (philox.h) */
#define BOOTSTRAP_STREAM (((uint64_t)1 << 62) + ((uint64_t)1 << 41))

typedef struct bootstrap_line {
    int resamples;                           /* B: the resamples whose line could be fitted */
    int64_t units;                           /* the units resampled */
    double slope_se, intercept_se;           /* standard deviations over the resamples */
    double slope_ci95[2], intercept_ci95[2]; /* their 2.5 and 97.5 percentiles */
} bootstrap_line;

/* A statistic over records resampled by units: value(ctx, r, draw, units) is record r's over
 * the units draw[0 .. units) (repeats counted as often as drawn); NaN where it has none. */
typedef struct bootstrap_series {
    int64_t records, units;
    double (*value)(void *ctx, int64_t record, const int64_t *draw, int64_t units);
    void *ctx;
} bootstrap_series;

/* Resample b's units: draw[j], j < units, is unit floor((1 - u) units) for the Philox value u of
 * index b * units + j. */
void bootstrap_draw(uint64_t seed, int b, int64_t units, int64_t *draw);
/* The 2.5 and 97.5 percentiles of the finite values of v[0 .. n) (sorted in place), linear
 * between order statistics (numpy's default); NaN below two finite values. */
void bootstrap_interval95(double *v, int n, double ci[2]);

/* The series of the count-weighted means of records[0 .. n)'s units (each of the same units). */
bootstrap_series bootstrap_series_means(const moments_units *records, int64_t n);

/* The bootstrap of the line y = c0 + c1 x fitted to the records r with fit[r] != 0, at x[r], y
 * the series' value (log_y: its logarithm; records whose y is not finite are left out of a
 * resample's fit), from `resamples` resamples of its units. band (NULL: not wanted):
 * records x 2, each record's 2.5 and 97.5 percentiles of the resampled value. Percentiles
 * interpolate linearly between order statistics (numpy's default); standard deviations divide
 * by B - 1. Fewer than 2 units, or of resamples: every value NaN. Errors: COHORT_ERR_NO_MEMORY. */
int bootstrap_fit_line(const bootstrap_series *series, const unsigned char *fit, const double *x,
                       int log_y, int resamples, uint64_t seed, bootstrap_line *out, double *band);

#endif
