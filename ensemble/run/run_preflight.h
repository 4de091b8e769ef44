/* The pre-flight check of a time-dependent run (run.c): before the first step, one line of what
 * the run will do and write, the free space where it goes, a refusal when the file cannot fit,
 * and a warning when the step is far finer than the records. */
#ifndef COHORT_RUN_PREFLIGHT_H
#define COHORT_RUN_PREFLIGHT_H

#include <stdint.h>

#include "config/config.h"
#include "config/plan.h"
#include "run/run.h"

/* For the file of members [first, end) of plan p (a part of a run where `part`): the notes of
 * the step and, unless --quiet, "pre-flight: ..."; 0, or 2 (reported) where the file cannot fit
 * in the free space of its directory. */
int run_preflight(const cohort_config *c, const run_options *opt, const run_plan *p, int64_t first,
                  int64_t end, int part);

#endif
