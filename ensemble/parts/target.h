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

/* Whether a run of b blocks is a size the target is checked at: every b up to 32, then 32 sizes
 * a doubling (b a multiple of 2^(floor(log2 b) - 5)), so that checking costs O(b) merges however
 * large the run, while a stop falls within 1/32 of the first size that reaches the target. */
int target_checked(int64_t b);

typedef struct target_result {
    int64_t members;    /* the smallest checked size that reaches the target (0: none) */
    double reached;     /* its relative standard error (none: that of every member covered) */
    int64_t estimate;   /* none: the members that sem ~ M^-1/2 says would reach it */
    double covered_sem; /* the relative standard error of every member covered */
} target_result;

/* From blocks[0 .. n) of the target statistic (members [0, covered)): the smallest checked size
 * whose relative standard error (standard error of the mean / |mean|, over its members) is at
 * most target. */
target_result target_find(const moments *blocks, int64_t n, int64_t covered, double target);

/* After a round: the target statistic's blocks at the last record of plan p (a target run's,
 * p->target_sem > 0) read from parts[0 .. count), part s holding members [bounds[s],
 * bounds[s + 1]), and target_find over them. COHORT_ERR_IO, COHORT_ERR_NO_MEMORY. */
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
