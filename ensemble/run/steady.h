/* `cohort run` for a steady model (model->steady: convdiff2d): each member is solved to
 * solver.tolerance, chunk by chunk, and the file holds its per-member values (iterations,
 * converged, ...), its history at solver.check_every, and on request the final field. */
#ifndef COHORT_STEADY_H
#define COHORT_STEADY_H

#include "backend/backend.h"
#include "config/config.h"
#include "config/plan.h"
#include "run/run.h"
#include "run/run_file.h"

/* Takes over the plan (frees it). Returns 0, 2 (bad input, nothing written) or 1 (failure). */
int run_steady(const cohort_config *c, const run_options *opt, run_plan *p,
               const cohort_backend *be);

#endif
