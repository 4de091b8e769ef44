/* The pre-flight check of a time-dependent run (run.c): before the first step, one line of what
 * the run will do and write, the free space where it goes, a refusal when the file cannot fit,
 * and a warning when the step is far finer than the records. */
#ifndef COHORT_RUN_PREFLIGHT_H
#define COHORT_RUN_PREFLIGHT_H

#include <stdint.h>

#include "config/config.h"
#include "config/plan.h"
#include "run/run.h"

/* The most bytes the file of members [first, end) of plan p holds, uncompressed; *driver says
 * which keys make most of it ("output.archive = final: members x points x 8 bytes"). */
double run_preflight_file_bytes(const run_plan *p, int64_t first, int64_t end, int part,
                                char *driver, size_t len);

/* Says (unless --quiet) "pre-flight: ..." and checks the space: 0, or 2 (reported) where the
 * file cannot fit in the free space of its directory. */
int run_preflight(const cohort_config *c, const run_options *opt, const run_plan *p, int64_t first,
                  int64_t end);

#endif
