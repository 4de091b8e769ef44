#include "analysis/sobol.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "backend/cohort_error.h"

int sobol_units_alloc(sobol_units *s, int d, int64_t n_units)
{
    memset(s, 0, sizeof *s);
    if (d < 1 || d > SOBOL_MAX_PARAMETERS || n_units < 1)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "%d parameters, %lld units", d,
                           (long long)n_units);
    s->d = d, s->n_units = n_units;
    const size_t n = (size_t)s->n_units;
    s->outputs = calloc(n, sizeof *s->outputs);
    s->first = calloc(n * (size_t)d, sizeof *s->first);
    s->total = calloc(n * (size_t)d, sizeof *s->total);
    s->points = calloc(n, sizeof *s->points);
    if (s->outputs && s->first && s->total && s->points) return COHORT_OK;
    sobol_units_free(s);
    return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld units", (long long)n);
}

void sobol_units_free(sobol_units *s)
{
    free(s->outputs), free(s->first), free(s->total), free(s->points);
    memset(s, 0, sizeof *s);
}

void sobol_units_add(sobol_units *s, int64_t u, const double *f)
{
    for (int arm = 0; arm < s->d + 2; ++arm)
        if (!isfinite(f[arm])) return;
    const double fa = f[0], fb = f[1];
    moments_add(&s->outputs[u], fa);
    moments_add(&s->outputs[u], fb);
    for (int j = 0; j < s->d; ++j) {
        const double change = f[2 + j] - fa;
        s->first[u * s->d + j] += fb * change;     /* Saltelli 2010, Table 2 (b) */
        s->total[u * s->d + j] += change * change; /* Jansen, Table 2 (f) */
    }
    s->points[u] += 1.0;
}

void sobol_indices(const sobol_units *s, const int64_t *draw, int64_t n, double *first,
                   double *total)
{
    moments out = {0.0, 0.0, 0.0};
    double points = 0.0, sum_first[SOBOL_MAX_PARAMETERS] = {0},
           sum_total[SOBOL_MAX_PARAMETERS] = {0};
    for (int64_t k = 0; k < n; ++k) {
        const int64_t u = draw ? draw[k] : k;
        moments_merge(&out, &s->outputs[u]);
        points += s->points[u];
        for (int j = 0; j < s->d; ++j)
            sum_first[j] += s->first[u * s->d + j], sum_total[j] += s->total[u * s->d + j];
    }
    const double variance = out.count > 0.0 ? out.m2 / out.count : NAN; /* divided by the count */
    for (int j = 0; j < s->d; ++j) {
        const int ok = points >= 2.0 && variance > 0.0;
        first[j] = ok ? sum_first[j] / points / variance : NAN;
        total[j] = ok ? sum_total[j] / points / (2.0 * variance) : NAN;
    }
}

int sobol_intervals(const sobol_units *s, int resamples, uint64_t seed, double *first_ci,
                    double *total_ci)
{
    const int d = s->d;
    int64_t *draw = malloc((size_t)s->n_units * sizeof *draw);
    double *first = malloc((size_t)(resamples > 0 ? resamples : 1) * (size_t)d * sizeof *first);
    double *total = malloc((size_t)(resamples > 0 ? resamples : 1) * (size_t)d * sizeof *total);
    if (!draw || !first || !total) {
        free(draw), free(first), free(total);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%d resamples", resamples);
    }
    for (int b = 0; b < resamples; ++b) {
        double f[SOBOL_MAX_PARAMETERS], t[SOBOL_MAX_PARAMETERS];
        bootstrap_draw(seed, b, s->n_units, draw);
        sobol_indices(s, draw, s->n_units, f, t);
        for (int j = 0; j < d; ++j)
            first[j * resamples + b] = f[j], total[j * resamples + b] = t[j];
    }
    for (int j = 0; j < d; ++j) {
        const int usable = s->n_units >= 2 && resamples >= 2;
        bootstrap_interval95(first + j * resamples, usable ? resamples : 0, first_ci + 2 * j);
        bootstrap_interval95(total + j * resamples, usable ? resamples : 0, total_ci + 2 * j);
    }
    free(draw), free(first), free(total);
    return COHORT_OK;
}
