#include "bootstrap.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "backend/philox.h"

_Static_assert(BOOTSTRAP_STREAM > PHILOX_STREAM_RESERVED + ((uint64_t)1 << 40),
               "the bootstrap's stream is not the silhouette's");

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Moves the finite values of v[0 .. n) to its front, sorted; returns how many there are. */
static int finite_sorted(double *v, int n)
{
    int m = 0;
    for (int i = 0; i < n; ++i)
        if (isfinite(v[i])) v[m++] = v[i];
    qsort(v, (size_t)m, sizeof *v, compare_double);
    return m;
}

/* The p-quantile of m sorted values, linear between order statistics: v[floor(h)] + (h -
 * floor(h)) (v[floor(h) + 1] - v[floor(h)]), h = (m - 1) p. */
static double quantile(const double *v, int m, double p)
{
    if (m < 2) return NAN;
    const double h = (double)(m - 1) * p;
    const int lo = (int)floor(h);
    return lo + 1 < m ? v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]) : v[lo];
}

void bootstrap_interval95(double *v, int n, double ci[2])
{
    const int m = finite_sorted(v, n);
    ci[0] = quantile(v, m, 0.025), ci[1] = quantile(v, m, 0.975);
}

/* The standard deviation (m - 1) of the finite values of v[0 .. n). */
static double deviation(const double *v, int n)
{
    double sum = 0.0, sq = 0.0;
    int m = 0;
    for (int i = 0; i < n; ++i)
        if (isfinite(v[i])) sum += v[i], ++m;
    if (m < 2) return NAN;
    const double mean = sum / (double)m;
    for (int i = 0; i < n; ++i)
        if (isfinite(v[i])) sq += (v[i] - mean) * (v[i] - mean);
    return sqrt(sq / (double)(m - 1));
}

void bootstrap_draw(uint64_t seed, int b, int64_t units, int64_t *draw)
{
    for (int64_t j = 0; j < units; ++j) {
        const double u = philox_uniform_value(seed, BOOTSTRAP_STREAM, (uint64_t)(b * units + j));
        const int64_t k = (int64_t)((1.0 - u) * (double)units); /* 1 - u in [0, 1) */
        draw[j] = k < units ? k : units - 1;
    }
}

static double weighted_mean(void *ctx, int64_t record, const int64_t *draw, int64_t units)
{
    const moments_units *records = ctx;
    double count = 0.0, sum = 0.0;
    for (int64_t j = 0; j < units; ++j) {
        const moments *m = &records[record].units[draw[j]];
        count += m->count, sum += m->count * m->mean;
    }
    return count > 0.0 ? sum / count : NAN;
}

bootstrap_series bootstrap_series_means(const moments_units *records, int64_t n)
{
    const bootstrap_series s = {n, n > 0 ? records[0].n_units : 0, weighted_mean, (void *)records};
    return s;
}

/* Resample b: every record's value over the drawn units (values[r]) and its line. */
static void resample(const bootstrap_series *series, const unsigned char *fit, const double *x,
                     int log_y, uint64_t seed, int b, int64_t *draw, double *xs, double *ys,
                     double *values, double *c0, double *c1)
{
    const int64_t nb = series->units;
    bootstrap_draw(seed, b, nb, draw);
    size_t points = 0;
    for (int64_t r = 0; r < series->records; ++r) {
        values[r] = series->value(series->ctx, r, draw, nb);
        const double y = log_y ? log(values[r]) : values[r];
        if (fit[r] && isfinite(y)) xs[points] = x[r], ys[points++] = y;
    }
    double cov00, cov01, cov11, sumsq;
    *c0 = *c1 = NAN;
    if (points >= 3) gsl_fit_linear(xs, 1, ys, 1, points, c0, c1, &cov00, &cov01, &cov11, &sumsq);
}

int bootstrap_fit_line(const bootstrap_series *series, const unsigned char *fit, const double *x,
                       int log_y, int resamples, uint64_t seed, bootstrap_line *out, double *band)
{
    const int64_t n = series->records;
    *out = (bootstrap_line){0, series->units, NAN, NAN, {NAN, NAN}, {NAN, NAN}};
    for (int64_t r = 0; band && r < 2 * n; ++r) band[r] = NAN;
    if (n < 1 || out->units < 2 || resamples < 2) return COHORT_OK;
    const int64_t nb = out->units, B = resamples;
    int64_t *draw = malloc((size_t)nb * sizeof *draw);
    double *xs = malloc((size_t)n * sizeof *xs), *ys = malloc((size_t)n * sizeof *ys);
    double *slope = malloc((size_t)B * sizeof *slope), *icpt = malloc((size_t)B * sizeof *icpt);
    double *values = malloc((size_t)(n * B) * sizeof *values); /* [r * B + b] */
    double *row = malloc((size_t)n * sizeof *row);
    int rc = draw && xs && ys && slope && icpt && values && row
                 ? COHORT_OK
                 : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "bootstrap of %d resamples", resamples);
    for (int b = 0; b < resamples && rc == COHORT_OK; ++b) {
        resample(series, fit, x, log_y, seed, b, draw, xs, ys, row, &icpt[b], &slope[b]);
        for (int64_t r = 0; r < n; ++r) values[r * B + b] = row[r];
    }
    if (rc == COHORT_OK) {
        for (int b = 0; b < resamples; ++b) out->resamples += isfinite(slope[b]);
        out->slope_se = deviation(slope, resamples), out->intercept_se = deviation(icpt, resamples);
        bootstrap_interval95(slope, resamples, out->slope_ci95);
        bootstrap_interval95(icpt, resamples, out->intercept_ci95);
        for (int64_t r = 0; band && r < n; ++r)
            bootstrap_interval95(values + r * B, resamples, band + 2 * r);
    }
    free(draw), free(xs), free(ys), free(slope), free(icpt), free(values), free(row);
    return rc;
}
