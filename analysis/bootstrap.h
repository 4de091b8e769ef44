/* Error bars on a fitted coarsening law: a block bootstrap (Kuensch, Ann. Stat. 17, 1989) over
 * the fixed blocks of MOMENTS_BLOCK consecutive members that the ensemble moments are kept in
 * (moments.h). A resample draws as many blocks as there are, uniformly with replacement, from the
 * Philox stream BOOTSTRAP_STREAM of the run's seed (draw j of resample b at index b * blocks + j),
 * the same blocks for every record, so that a member's whole history moves together; its value at
 * record r is a statistic of the drawn blocks (the count-weighted mean of their means, or k1 of
 * their summed spectra), and its line the least-squares fit of the fitted records. The result
 * depends only on the blocks' sums and the seed: never on chunking, backend or ranks. */
#ifndef COHORT_BOOTSTRAP_H
#define COHORT_BOOTSTRAP_H

#include <stdint.h>

#include "analysis/moments.h"

/* beyond every member's stream, k-means++'s and the silhouette's subsample's (philox.h) */
#define BOOTSTRAP_STREAM (((uint64_t)1 << 62) + ((uint64_t)1 << 41))

typedef struct bootstrap_line {
    int resamples;                           /* B: the resamples whose line could be fitted */
    int64_t blocks;                          /* the blocks resampled */
    double slope_se, intercept_se;           /* standard deviations over the resamples */
    double slope_ci95[2], intercept_ci95[2]; /* their 2.5 and 97.5 percentiles */
} bootstrap_line;

/* A statistic over records resampled by blocks: value(ctx, r, draw, blocks) is record r's over
 * the blocks draw[0 .. blocks) (repeats counted as often as drawn); NaN where it has none. */
typedef struct bootstrap_series {
    int64_t records, blocks;
    double (*value)(void *ctx, int64_t record, const int64_t *draw, int64_t blocks);
    void *ctx;
} bootstrap_series;

/* The series of the count-weighted means of records[0 .. n)'s blocks (each of the same blocks). */
bootstrap_series bootstrap_series_means(const moments_blocks *records, int64_t n);

/* The bootstrap of the line y = c0 + c1 x fitted to the records r with fit[r] != 0, at x[r], y
 * the series' value (log_y: its logarithm; records whose y is not finite are left out of a
 * resample's fit), from `resamples` resamples of its blocks. band (NULL: not wanted):
 * records x 2, each record's 2.5 and 97.5 percentiles of the resampled value. Percentiles
 * interpolate linearly between order statistics (numpy's default); standard deviations divide
 * by B - 1. Fewer than 2 blocks, or of resamples: every value NaN. Errors: COHORT_ERR_NO_MEMORY. */
int bootstrap_fit_line(const bootstrap_series *series, const unsigned char *fit, const double *x,
                       int log_y, int resamples, uint64_t seed, bootstrap_line *out, double *band);

#endif
