#include "results/analyze_sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sobol.h"
#include "backend/cohort_error.h"
#include "config/config_schema.h"
#include "fields/fields.h"
#include "io/cohort_file.h"
#include "report.h"

/* One statistic of every member: at every record (record -1; values[r * members + g]) or at one
 * record (values[g]). */
typedef struct series {
    const char *name;
    int64_t record;
    const double *values;
} series;

/* The indices of one statistic at one record (values[g] of every member) into first, total and
 * their intervals at [j * stride] (j the parameter). Each replicate of a base point is a base
 * point of its own: its arms share its noise (layout_noise_stream, backend/layout_numerics.h). */
static int indices_at(const run_plan *p, const double *values, int resamples, double *first,
                      double *total, double *first_ci, double *total_ci, int64_t stride)
{
    const int d = p->n_sweeps;
    const int64_t arms = design_saltelli_arms(d), reps = p->replicates;
    const int64_t samples = p->points / arms * reps;
    sobol_units s;
    COHORT_CALL(sobol_units_alloc(&s, d, samples, moments_unit_size(samples)));
    for (int64_t b = 0; b < samples; ++b) {
        double f[SOBOL_MAX_PARAMETERS + 2];
        const int64_t base = b / reps, rep = b % reps;
        for (int64_t arm = 0; arm < arms; ++arm) f[arm] = values[(base * arms + arm) * reps + rep];
        sobol_units_add(&s, b, f);
    }
    double f[SOBOL_MAX_PARAMETERS], t[SOBOL_MAX_PARAMETERS], fci[2 * SOBOL_MAX_PARAMETERS],
        tci[2 * SOBOL_MAX_PARAMETERS];
    sobol_indices(&s, NULL, s.n_units, f, t);
    const int rc = sobol_intervals(&s, resamples, p->ic.seed, fci, tci);
    for (int j = 0; j < d; ++j) {
        first[j * stride] = f[j], total[j * stride] = t[j];
        for (int e = 0; e < 2; ++e)
            first_ci[2 * j * stride + e] = fci[2 * j + e],
                                      total_ci[2 * j * stride + e] = tci[2 * j + e];
    }
    sobol_units_free(&s);
    return rc;
}

/* The member series `name`(t, member) into *out (malloc'd; NULL where the run kept none).
 * COHORT_ERR_IO (*bad = 1) or NO_MEMORY. */
static int read_series(int nc, const char *path, const run_plan *p, const char *name, double **out,
                       int *bad)
{
    int grp, var, ndims = 0;
    size_t len[2] = {0, 0};
    *out = NULL;
    if (!name || cohort_file_variable(nc, NULL, name, &grp, &var) ||
        cohort_file_shape(grp, var, 2, &ndims, len, NULL) || ndims != 2 ||
        len[0] != (size_t)p->n_records || len[1] != (size_t)p->members)
        return COHORT_OK;
    double *v = malloc(len[0] * len[1] * sizeof *v);
    if (!v)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%s: %s of %zu values", path, name,
                           len[0] * len[1]);
    const int status = cohort_file_read_double(grp, var, NULL, NULL, v);
    if (status) {
        free(v);
        *bad = 1;
        return COHORT_FAIL(COHORT_ERR_IO, "%s: reading %s: %s", path, name,
                           cohort_file_strerror(status));
    }
    *out = v;
    return COHORT_OK;
}

/* Each member's final field's mean (out[g]) and variance over the grid (out[members + g]; the
 * run's sums, fields_numerics.h), from the archive C(member, [y,] x) or its last snapshot, into
 * *out (malloc'd; NULL where the file has none). COHORT_ERR_IO (*bad = 1) or NO_MEMORY. */
static int read_final_stats(int nc, const char *path, const run_plan *p, double **out, int *bad)
{
    enum { MEMBERS_A_READ = 4096 };
    int grp, var, ndims = 0;
    size_t len[4] = {0, 0, 0, 0};
    const int base = p->model->dimension == 2 ? 3 : 2, n = (int)p->n;
    *out = NULL;
    if (cohort_file_variable(nc, NULL, "C", &grp, &var) ||
        cohort_file_shape(grp, var, 4, &ndims, len, NULL) || ndims < base || ndims > base + 1 ||
        len[ndims - base] != (size_t)p->members)
        return COHORT_OK;
    cohort_file_cache_chunk(grp, var); /* each chunk of C read once, not once a slab */
    double *stats = malloc(2 * (size_t)p->members * sizeof *stats);
    double *fields = malloc((size_t)MEMBERS_A_READ * (size_t)n * sizeof *fields);
    int status = 0;
    for (int64_t g0 = 0; stats && fields && !status && g0 < p->members; g0 += MEMBERS_A_READ) {
        size_t at[4] = {0, 0, 0, 0}, size[4];
        for (int d = 0; d < ndims; ++d) size[d] = len[d];
        if (ndims > base) at[0] = len[0] - 1, size[0] = 1; /* the last snapshot */
        at[ndims - base] = (size_t)g0;
        size[ndims - base] =
            (size_t)(p->members - g0 < MEMBERS_A_READ ? p->members - g0 : MEMBERS_A_READ);
        status = cohort_file_read_double(grp, var, at, size, fields);
        for (size_t k = 0; !status && k < size[ndims - base]; ++k) {
            double mean = 0.0, mean2 = 0.0;
            fields_member_moments_host(fields + k * (size_t)n, n, 1, &mean, &mean2);
            stats[g0 + (int64_t)k] = mean,
                       stats[p->members + g0 + (int64_t)k] = mean2 - mean * mean;
        }
    }
    const int allocated = stats && fields;
    free(fields);
    if (allocated && !status) {
        *out = stats;
        return COHORT_OK;
    }
    free(stats);
    if (!allocated) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%s: the final fields", path);
    *bad = 1;
    return COHORT_FAIL(COHORT_ERR_IO, "%s: reading C: %s", path, cohort_file_strerror(status));
}

/* The record times, from the file's t. */
static int read_times(int nc, const char *path, const run_plan *p, double *times, int *bad)
{
    int grp, var;
    const int status = cohort_file_variable(nc, NULL, "t", &grp, &var)
                           ? -1
                           : cohort_file_read_double(grp, var, NULL, NULL, times);
    if (!status) return COHORT_OK;
    *bad = 1;
    return COHORT_FAIL(COHORT_ERR_IO, "%s: reading t (%lld records): %s", path,
                       (long long)p->n_records,
                       status < 0 ? "no such variable" : cohort_file_strerror(status));
}

/* The statistics the file holds: the length and the variance at every record; the final field's
 * mean where the model does not conserve it (else it is the initial mean, to rounding) and its
 * variance where the series do not hold it already. */
static int gather_series(const run_plan *p, const double *length, const double *variance,
                         const double *final_values, series *s)
{
    int n = 0;
    if (length) s[n++] = (series){p->model->statistics->length_name, -1, length};
    if (variance) s[n++] = (series){"C_variance", -1, variance};
    if (final_values && !p->model->conserves_mean)
        s[n++] = (series){"final_mean", p->n_records - 1, final_values};
    if (final_values && !variance)
        s[n++] = (series){"final_variance", p->n_records - 1, final_values + p->members};
    return n;
}

/* Every statistic's indices at the records it has (NaN at the others). */
static int all_indices(const run_plan *p, const series *s, int n_stats, int resamples,
                       double *first, double *total, double *first_ci, double *total_ci)
{
    const int d = p->n_sweeps;
    const int64_t n_t = p->n_records, cell = (int64_t)d * n_stats;
    for (int64_t i = 0; i < n_t * cell; ++i)
        first[i] = total[i] = first_ci[2 * i] = first_ci[2 * i + 1] = total_ci[2 * i] =
            total_ci[2 * i + 1] = NAN;
    for (int q = 0; q < n_stats; ++q)
        for (int64_t r = 0; r < n_t; ++r) {
            if (s[q].record >= 0 && s[q].record != r) continue;
            const double *values = s[q].values + (s[q].record >= 0 ? 0 : r * p->members);
            const int64_t at = r * cell + q; /* [r][j][q]: parameter stride n_stats */
            COHORT_CALL(indices_at(p, values, resamples, first + at, total + at, first_ci + 2 * at,
                                   total_ci + 2 * at, n_stats));
        }
    return COHORT_OK;
}

/* The indices at the last record, a line a statistic: "first [interval] / total [interval]". */
static void report_last(const output_sensitivity *o)
{
    const int64_t r = o->n_t - 1, cell = (int64_t)o->n_params * o->n_stats;
    report(REPORT_RESULT,
           "Sobol indices at t = %g, first-order and total with 95%% intervals "
           "(%lld base points):",
           o->times[r], (long long)o->base_points);
    for (int q = 0; q < o->n_stats; ++q) {
        char text[1024] = "";
        for (int j = 0; j < o->n_params; ++j) {
            const int64_t at = r * cell + (int64_t)j * o->n_stats + q;
            const size_t used = strlen(text);
            snprintf(text + used, sizeof text - used, "%s%s %.3f [%.3f, %.3f] / %.3f [%.3f, %.3f]",
                     j ? "; " : "", o->params[j], o->first[at], o->first_ci[2 * at],
                     o->first_ci[2 * at + 1], o->total[at], o->total_ci[2 * at],
                     o->total_ci[2 * at + 1]);
        }
        report(REPORT_RESULT, "  %s: %s", o->stats[q], text);
    }
}

/* The indices of the statistics s, their times and labels into out, and reported unless quiet;
 * v holds first, total and their intervals, `cells` each (the intervals 2 cells). */
static int write_indices(const run_plan *p, const series *s, int n_stats, const double *times,
                         const double *v, int64_t cells, int resamples, int quiet,
                         cohort_output *out)
{
    const char *params[SOBOL_MAX_PARAMETERS], *names[4];
    char keys[SOBOL_MAX_PARAMETERS][128];
    size_t n_keys;
    for (int j = 0; j < p->n_sweeps; ++j) {
        const config_key *k = &config_schema(&n_keys)[p->sweep[j]->key];
        snprintf(keys[j], sizeof keys[j], "%s.%s", k->section, k->name);
        params[j] = keys[j];
    }
    for (int q = 0; q < n_stats; ++q) names[q] = s[q].name;
    const int64_t samples = p->points / design_saltelli_arms(p->n_sweeps) * p->replicates;
    const int64_t unit = moments_unit_size(samples);
    const output_sensitivity o = {
        .n_t = p->n_records,
        .times = times,
        .n_params = p->n_sweeps,
        .n_stats = n_stats,
        .params = params,
        .stats = names,
        .meaning = "of each member's statistic: its length 1/(1 - <C^2>) and its field's "
                   "variance over the grid at every record, its final field's mean and "
                   "variance (at the last record)",
        .base_points = samples,
        .units = (samples + unit - 1) / unit,
        .resamples = resamples,
        .first = v,
        .total = v + cells,
        .first_ci = v + 2 * cells,
        .total_ci = v + 4 * cells};
    COHORT_CALL(output_write_sensitivity(out, &o));
    if (!quiet) report_last(&o);
    return COHORT_OK;
}

int analyze_sensitivity(int nc, const char *path, const run_plan *p, int resamples, int quiet,
                        cohort_output *out, int *bad)
{
    const char *length_name = p->model->statistics ? p->model->statistics->length_name : NULL;
    double *length = NULL, *variance = NULL, *finals = NULL, *times = NULL, *v = NULL;
    int rc = read_series(nc, path, p, length_name, &length, bad);
    if (rc == COHORT_OK) rc = read_series(nc, path, p, "C_variance", &variance, bad);
    if (rc == COHORT_OK) rc = read_final_stats(nc, path, p, &finals, bad);
    series s[4];
    const int n_stats = rc == COHORT_OK ? gather_series(p, length, variance, finals, s) : 0;
    const int64_t cells = p->n_records * p->n_sweeps * (n_stats > 0 ? n_stats : 1);
    if (rc == COHORT_OK && n_stats == 0) {
        *bad = 1;
        rc = COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                         "%s holds no per-member statistic for --sensitivity: run it with "
                         "output.member_series = true (the length and variance at every "
                         "record) or output.archive = final (the final field's mean and "
                         "variance)",
                         path);
    }
    if (rc == COHORT_OK && (!(times = malloc((size_t)p->n_records * sizeof *times)) ||
                            !(v = malloc(6 * (size_t)cells * sizeof *v))))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the indices of %lld cells", (long long)cells);
    if (rc == COHORT_OK) rc = read_times(nc, path, p, times, bad);
    if (rc == COHORT_OK)
        rc = all_indices(p, s, n_stats, resamples, v, v + cells, v + 2 * cells, v + 4 * cells);
    if (rc == COHORT_OK) rc = write_indices(p, s, n_stats, times, v, cells, resamples, quiet, out);
    free(length), free(variance), free(finals), free(times), free(v);
    return rc;
}
