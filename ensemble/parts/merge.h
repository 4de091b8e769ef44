/* `cohort merge`: joins the parts of one run, each written by `cohort run --members A:B`, into the
 * file the whole run would have written. The per-member variables are copied to their global
 * members; the statistics are folded again from the parts' blocks in the fixed merge order
 * (finish.h), so every data variable, the statistics and fits included, equals the whole run's
 * bit for bit; k-means runs over the parts' features as the whole run's would, reading them from
 * the parts (no process holds every member's). */
#ifndef COHORT_MERGE_H
#define COHORT_MERGE_H

#include <stdint.h>

#include "analysis/moments.h"
#include "analysis/team.h"

typedef struct merge_options {
    const char *const *inputs; /* the parts, in any order */
    int n_inputs;
    const char *output_path;
    int overwrite;
    const char *backend; /* for k-means: auto | cpu | cuda */
    int quiet;
    int joining; /* the MPI run joining its segments: the whole run's summary (k-means, fits) but
                    no line per part and no closing line (the run writes its own) */
    /* > 0: the run to a target SEM (ensemble.target_sem) stopped at this many members: the
     * output is the run of them, from the parts' first members (the parts' run has more); its
     * relative SEM, target_reached, is stored beside */
    int64_t members;
    double target_reached;
    const cohort_team *team;  /* an MPI run's join: its ranks share the k-means, each
                               * reading its members' features from the parts; NULL: alone */
    const char *command_line; /* for the history (NULL: the parts' history alone) */
    const char *version;
} merge_options;

/* Returns 0, 2 for bad input (a file that is no part, parts of different runs or
 * configurations, members missing or twice; nothing written), 1 for a failure while writing. */
int merge_parts(const merge_options *opt);

/* The first n_units units of a part's statistic `statistic` (RUN_TARGET_*: the order of its
 * merge data) at record `record`, from the file at path. COHORT_ERR_IO. */
int merge_part_moments(const char *path, int64_t record, int statistic, int64_t n_units,
                       moments *units);

#endif
