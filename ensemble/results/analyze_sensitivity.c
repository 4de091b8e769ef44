#include "results/analyze_sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sobol.h"
#include "analysis/sobol_stream.h"
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

int sensitivity_statistics(const run_plan *p, const char **names)
{
    int n = 0;
    if (p->model->statistics) names[n++] = p->model->statistics->length_name;
    names[n++] = "C_variance";
    if (!p->model->conserves_mean) names[n++] = "final_mean";
    return n;
}

/* the unit of members of plan p's Sobol sums */
static int64_t stream_unit(const run_plan *p)
{
    return sobol_stream_unit(design_saltelli_arms(p->n_sweeps) * p->replicates, p->bootstrap_unit);
}

int sensitivity_stream_alloc(sobol_stream *s, const run_plan *p, int n_stats, int64_t n_records,
                             int64_t first, int64_t end)
{
    return sobol_stream_alloc(s, p->n_sweeps, p->replicates, stream_unit(p), n_stats, n_records,
                              p->members, first, end);
}

int64_t sensitivity_stream_values(const run_plan *p, int64_t first, int64_t end)
{
    const char *names[SENSITIVITY_MAX_STATISTICS];
    return sobol_stream_values_of(p->n_sweeps, p->replicates, stream_unit(p),
                                  sensitivity_statistics(p, names), first, end);
}

/* The units of statistic q at record r: the stream's statistics, then those of `last` (NULL: none)
 * at the last record; NULL where q was not streamed at r. */
static const sobol_units *units_of(const run_plan *p, const sobol_stream *st,
                                   const sobol_stream *last, int64_t r, int q)
{
    if (q < st->n_stats) return sobol_stream_units(st, r, q);
    return last && r == p->n_records - 1 ? sobol_stream_units(last, 0, q - st->n_stats) : NULL;
}

/* The indices of units u (NULL: NaN) into first, total and their intervals at [j * stride] (j the
 * parameter). */
static int indices_at(const run_plan *p, const sobol_units *u, int resamples, double *first,
                      double *total, double *first_ci, double *total_ci, int64_t stride)
{
    double f[SOBOL_MAX_PARAMETERS], t[SOBOL_MAX_PARAMETERS], fci[2 * SOBOL_MAX_PARAMETERS],
        tci[2 * SOBOL_MAX_PARAMETERS];
    int rc = COHORT_OK;
    for (int j = 0; j < 2 * SOBOL_MAX_PARAMETERS; ++j) fci[j] = tci[j] = f[j / 2] = t[j / 2] = NAN;
    if (u) {
        sobol_indices(u, NULL, u->n_units, f, t);
        rc = sobol_intervals(u, resamples, p->ic.seed, fci, tci);
    }
    for (int j = 0; j < p->n_sweeps; ++j) {
        first[j * stride] = f[j], total[j * stride] = t[j];
        for (int e = 0; e < 2; ++e)
            first_ci[2 * j * stride + e] = fci[2 * j + e],
                                      total_ci[2 * j * stride + e] = tci[2 * j + e];
    }
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

/* Every statistic's indices at the records it has (NaN at the others), [r][j][q]. */
static int all_indices(const run_plan *p, const sobol_stream *st, const sobol_stream *last,
                       int n_stats, int resamples, double *first, double *total, double *first_ci,
                       double *total_ci)
{
    const int64_t cell = (int64_t)p->n_sweeps * n_stats;
    for (int q = 0; q < n_stats; ++q)
        for (int64_t r = 0; r < p->n_records; ++r) {
            const int64_t at = r * cell + q; /* parameter stride n_stats */
            COHORT_CALL(indices_at(p, units_of(p, st, last, r, q), resamples, first + at,
                                   total + at, first_ci + 2 * at, total_ci + 2 * at, n_stats));
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

/* The indices of the stream's statistics (names), their times and labels into out, and reported
 * unless quiet; v holds first, total and their intervals, `cells` each (the intervals 2 cells). */
static int write_indices(const run_plan *p, const sobol_stream *st, int n_stats,
                         const char *const *names, const double *times, const double *v,
                         int64_t cells, int resamples, int quiet, cohort_output *out)
{
    const char *params[SOBOL_MAX_PARAMETERS];
    char keys[SOBOL_MAX_PARAMETERS][128];
    size_t n_keys;
    for (int j = 0; j < p->n_sweeps; ++j) {
        const config_key *k = &config_schema(&n_keys)[p->sweep[j]->key];
        snprintf(keys[j], sizeof keys[j], "%s.%s", k->section, k->name);
        params[j] = keys[j];
    }
    const output_sensitivity o = {
        .n_t = p->n_records,
        .times = times,
        .n_params = p->n_sweeps,
        .n_stats = n_stats,
        .params = params,
        .stats = names,
        .meaning = "of each member's statistic: its length 1/(1 - <C^2>) and its field's "
                   "variance over the grid at every record, its final field's mean and "
                   "variance and, in_<cluster>, whether its k-means label is that cluster (at the "
                   "last record)",
        .base_points = p->points / design_saltelli_arms(p->n_sweeps) * p->replicates,
        .units = st->n_units,
        .unit_members = st->unit,
        .resamples = resamples,
        .first = v,
        .total = v + cells,
        .first_ci = v + 2 * cells,
        .total_ci = v + 4 * cells};
    COHORT_CALL(output_write_sensitivity(out, &o));
    if (!quiet) report_last(&o);
    return COHORT_OK;
}

/* The indices of the statistics of st (names) and of `last` (regimes) into out. */
static int write_streams(cohort_output *out, const run_plan *p, const sobol_stream *st,
                         const sobol_stream *last, const char *const *names, const double *times,
                         int resamples, int quiet)
{
    const int n_stats = st->n_stats + (last ? last->n_stats : 0);
    const int64_t cells = p->n_records * p->n_sweeps * n_stats;
    double *v = malloc(6 * (size_t)cells * sizeof *v);
    if (!v) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the indices of %lld cells", (long long)cells);
    int rc =
        all_indices(p, st, last, n_stats, resamples, v, v + cells, v + 2 * cells, v + 4 * cells);
    if (rc == COHORT_OK)
        rc = write_indices(p, st, n_stats, names, times, v, cells, resamples, quiet, out);
    free(v);
    return rc;
}

int sensitivity_write(cohort_output *out, int labels_nc, const run_plan *p, const sobol_stream *st,
                      const char *const *names, const double *times, int resamples, int quiet)
{
    const char *all[SENSITIVITY_MAX_STATISTICS + SENSITIVITY_MAX_REGIMES];
    char regimes[SENSITIVITY_MAX_REGIMES][SENSITIVITY_NAME_MAX];
    sobol_stream last;
    int k = 0;
    COHORT_CALL(sensitivity_regimes(labels_nc, p, &last, regimes, &k));
    for (int q = 0; q < st->n_stats; ++q) all[q] = names[q];
    for (int c = 0; c < k; ++c) all[st->n_stats + c] = regimes[c];
    const int rc = write_streams(out, p, st, k ? &last : NULL, all, times, resamples, quiet);
    if (k) sobol_stream_free(&last);
    return rc;
}

/* The statistics s of every member, in member order, into a stream of them. */
static int stream_series(const run_plan *p, const series *s, int n_stats, sobol_stream *st)
{
    COHORT_CALL(sensitivity_stream_alloc(st, p, n_stats, p->n_records, 0, p->members));
    int rc = COHORT_OK;
    for (int q = 0; q < n_stats && rc == COHORT_OK; ++q)
        for (int64_t r = 0; r < p->n_records && rc == COHORT_OK; ++r)
            if (s[q].record < 0 || s[q].record == r)
                rc = sobol_stream_add(st, r, q, 0, p->members,
                                      s[q].values + (s[q].record >= 0 ? 0 : r * p->members));
    if (rc != COHORT_OK) sobol_stream_free(st);
    return rc;
}

int analyze_sensitivity(int nc, const char *path, const run_plan *p, int resamples, int quiet,
                        cohort_output *out, int *bad)
{
    const char *length_name = p->model->statistics ? p->model->statistics->length_name : NULL;
    double *length = NULL, *variance = NULL, *finals = NULL, *times = NULL;
    int rc = read_series(nc, path, p, length_name, &length, bad);
    if (rc == COHORT_OK) rc = read_series(nc, path, p, "C_variance", &variance, bad);
    if (rc == COHORT_OK) rc = read_final_stats(nc, path, p, &finals, bad);
    series s[4];
    const int n_stats = rc == COHORT_OK ? gather_series(p, length, variance, finals, s) : 0;
    if (rc == COHORT_OK && n_stats == 0) {
        *bad = 1;
        rc = COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                         "%s holds no per-member statistic for --sensitivity: run it with "
                         "output.member_series = true (the length and variance at every "
                         "record) or output.archive = final (the final field's mean and "
                         "variance)",
                         path);
    }
    if (rc == COHORT_OK && !(times = malloc((size_t)p->n_records * sizeof *times)))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld record times", (long long)p->n_records);
    if (rc == COHORT_OK) rc = read_times(nc, path, p, times, bad);
    sobol_stream st;
    if (rc == COHORT_OK && (rc = stream_series(p, s, n_stats, &st)) == COHORT_OK) {
        const char *names[SENSITIVITY_MAX_STATISTICS];
        for (int q = 0; q < n_stats; ++q) names[q] = s[q].name;
        rc = sensitivity_write(out, nc, p, &st, names, times, resamples, quiet);
        sobol_stream_free(&st);
    }
    free(length), free(variance), free(finals), free(times);
    return rc;
}
