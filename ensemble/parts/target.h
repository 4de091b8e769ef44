/* A run to a target precision (ensemble.target_sem): the members run in rounds of whole
 * 1,024-member blocks, each round's parts written as an MPI run's segments are (distributed.c),
 * until the relative standard error of the target statistic at the last record, over every member
 * run, is at most the target; the output is then joined from all the parts as the run of those M
 * members (merge.h), bit for bit the fixed-size run of M members with the same seed: nothing
 * computed is thrown away. M depends on the configuration alone, not on the ranks or an
 * interruption: each round's size follows from the blocks' statistics of the rounds before,
 * which are the same bits however the members were run. */
#ifndef COHORT_TARGET_H
#define COHORT_TARGET_H

#include <stdint.h>

#include "analysis/moments.h"
#include "config/plan.h"
#include "parts/segments.h"

typedef struct target_result {
    int64_t members;  /* the run's members once it stops (target_round; 0 before) */
    double reached;   /* the relative standard error over every member covered */
    int64_t estimate; /* the members that sem ~ M^-1/2 says would reach the target */
} target_result;

/* From units[0 .. n) of the target statistic (members [0, covered)): their relative standard
 * error (standard error of the mean / |mean|) and the members estimated to reach target. */
target_result target_assess(const moments *units, int64_t n, int64_t covered, double target);

/* After a round: the target statistic's units at the last record of plan p (a target run's,
 * p->target_sem > 0) read from parts[0 .. count), part s holding members [bounds[s],
 * bounds[s + 1]), and target_assess over them. COHORT_ERR_IO, COHORT_ERR_NO_MEMORY. */
int target_read(const run_plan *p, const char *const *parts, const int64_t *bounds, int count,
                target_result *r);

/* Rank 0, after a round of a target run of configuration c (output `out`, `ranks` ranks): done
 * (*done; *t: the members the target took, or all of max_members where it was not reached, and
 * their relative standard error, said unless quiet, and as a warning, quiet or not, where not
 * reached), or one more round appended to g, sized by sem ~ M^-1/2 and a quarter more at least,
 * and OUT.ranks rewritten. 0, or 1 (said). */
int target_round(const cohort_config *c, const char *out, int ranks, int quiet, segments *g,
                 target_result *t, int *done);

#endif
