/* `cohort analyze --bootstrap B`: the length's law and its bootstrap again, from the blocks'
 * moments a run stored (<l>_block_moments, uncertainty.h), with B resamples. */
#ifndef COHORT_ANALYZE_FIT_H
#define COHORT_ANALYZE_FIT_H

#include "config/plan.h"
#include "io/output.h"

/* The fit and its error bars of the run of plan p whose file `path` is open as nc, into out.
 * Errors: COHORT_ERR_INVALID_ARGUMENT with *bad = 1 where the file has no blocks of the plan's
 * shape (a file of an earlier cohort, or a part), COHORT_ERR_IO (*bad = 1), NO_MEMORY. */
int analyze_fit(int nc, const char *path, const run_plan *p, int resamples, int quiet,
                cohort_output *out, int *bad);

#endif
