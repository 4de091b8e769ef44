/* The pre-flight check of a time-dependent run (run.c): before the file is made, a refusal when
 * it cannot fit; before the first step, one line of what the run will do and write, its stepping
 * time from a timed probe (run_chunk_probe), the free space where the file goes, and a warning
 * when the step is far finer than the records or the stepping exceeds an hour. */
#ifndef COHORT_RUN_PREFLIGHT_H
#define COHORT_RUN_PREFLIGHT_H

#include <stdint.h>

#include "config/config.h"
#include "config/plan.h"
#include "run/run.h"

/* For the file of members [first, end) of plan p (a part of a run where `part`): the notes of
 * the step; 0, or 2 (reported) where the file cannot fit in the free space of its directory. */
int run_preflight(const cohort_config *c, const run_options *opt, const run_plan *p, int64_t first,
                  int64_t end, int part);
/* Unless --quiet (or a segment of a distributed run), "pre-flight: ..." with the stepping time
 * at the probe's rate (NAN: no probe ran, none said), the members' factoring at the probe's
 * seconds a member where they hold factors of their own, and the cost's warnings. */
void run_preflight_report(const cohort_config *c, const run_options *opt, const run_plan *p,
                          int64_t first, int64_t end, int part, double member_steps_per_second,
                          double setup_per_member);

#endif
