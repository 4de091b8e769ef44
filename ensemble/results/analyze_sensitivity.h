/* `cohort analyze --sensitivity`: the Sobol indices (analysis/sobol.h) of a Saltelli design's
 * members (config/design.h), from what the file holds of each member: its length at every
 * record (output.member_series = true) and its final field's mean and variance (the archive). */
#ifndef COHORT_ANALYZE_SENSITIVITY_H
#define COHORT_ANALYZE_SENSITIVITY_H

#include "config/plan.h"
#include "io/output.h"

/* The indices and their intervals (`resamples` resamples) of the run of plan p whose file `path`
 * is open as nc (a run's own output at its end, or cohort analyze's input), into out; unless
 * quiet, reported at the last record. Errors:
 * COHORT_ERR_INVALID_ARGUMENT with *bad = 1 where the file holds no statistic to analyse,
 * COHORT_ERR_IO (*bad = 1), NO_MEMORY. */
int analyze_sensitivity(int nc, const char *path, const run_plan *p, int resamples, int quiet,
                        cohort_output *out, int *bad);

#endif
