/* Sobol indices (analysis/sobol.h) of a Saltelli design's members (config/design.h), streamed
 * (analysis/sobol_stream.h): by `cohort run` as its records arrive (analysis.sensitivity = sobol)
 * and by `cohort analyze --sensitivity` from what a file holds of each member: its length and
 * variance at every record (output.member_series = true) and its final field's mean and variance
 * (the archive). */
#ifndef COHORT_ANALYZE_SENSITIVITY_H
#define COHORT_ANALYZE_SENSITIVITY_H

#include "analysis/sobol_stream.h"
#include "config/plan.h"
#include "io/output.h"

enum { SENSITIVITY_MAX_STATISTICS = 4 };

/* The statistics a run streams, in order (names[0 ..), at most SENSITIVITY_MAX_STATISTICS): the
 * model's length (where it has one) and the field's variance at every record, then the final
 * field's mean at the last record (where the model does not conserve the mean). Their count. */
int sensitivity_statistics(const run_plan *p, const char **names);

/* The stream of n_stats statistics at n_records records of plan p's members [first, end)
 * (sobol_stream_alloc's errors). */
int sensitivity_stream_alloc(sobol_stream *s, const run_plan *p, int n_stats, int64_t n_records,
                             int64_t first, int64_t end);

/* The doubles a record of that stream saves (its checkpoint's or its part's merge data). */
int64_t sensitivity_stream_values(const run_plan *p, int64_t first, int64_t end);

/* The indices and their intervals (`resamples` resamples) of the stream's statistics (names[]),
 * and of the k-means regimes of the file open as labels_nc where it holds labels
 * (sensitivity_regimes), at the record times, into out; unless quiet, reported at the last
 * record. NaN where a statistic was not streamed. Errors: sensitivity_regimes', NO_MEMORY,
 * output's. */
int sensitivity_write(cohort_output *out, int labels_nc, const run_plan *p, const sobol_stream *st,
                      const char *const *names, const double *times, int resamples, int quiet);

enum { SENSITIVITY_NAME_MAX = 64, SENSITIVITY_MAX_REGIMES = 32 };
/* The k-means regimes of the members of the open file nc (its `label`, which the run's, a
 * merge's or an analysis's clustering wrote): the indicator of each of the k clusters, named
 * in_<flag meaning>, streamed into *st, a stream of one record (the last). *k = 0 and nothing
 * allocated where the file has no labels. Errors: COHORT_ERR_IO, NO_MEMORY. */
int sensitivity_regimes(int nc, const run_plan *p, sobol_stream *st,
                        char names[][SENSITIVITY_NAME_MAX], int *k);

/* The indices and their intervals (`resamples` resamples) of the run of plan p whose file `path`
 * is open as nc (cohort analyze's input), into out; unless quiet, reported at the last record.
 * Errors: COHORT_ERR_INVALID_ARGUMENT with *bad = 1 where the file holds no statistic to analyse,
 * COHORT_ERR_IO (*bad = 1), NO_MEMORY. */
int analyze_sensitivity(int nc, const char *path, const run_plan *p, int resamples, int quiet,
                        cohort_output *out, int *bad);

#endif
