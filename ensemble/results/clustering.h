/* analysis.kmeans for `cohort run` and `cohort analyze`: k-means over the members' final fields
 * (those that did not diverge; the others keep the label's fill value), the names of the labels
 * (flow_pattern.h), and for a grid of two swept keys the label map, written to the output. The
 * features come from a loader over global member ranges: the run's host array, or the archive
 * read chunk by chunk. */
#ifndef COHORT_CLUSTERING_H
#define COHORT_CLUSTERING_H

#include <stdint.h>

#include "analysis/team.h"
#include "backend/backend.h"
#include "config/config.h"
#include "config/plan.h"
#include "io/output.h"

/* Writes the fields of global members [g0, g0 + count) member-major (dst[j * n + i]). */
typedef int (*member_fields_fn)(void *ctx, int64_t g0, int64_t count, double *dst);

/* analysis.kmeans = auto: k from 2 up to this */
enum { CLUSTERING_AUTO_MAX_K = 8 };

typedef struct clustering_options {
    int k;      /* clusters (ignored with k_auto) */
    int k_auto; /* choose k in 2 .. CLUSTERING_AUTO_MAX_K by the mean silhouette */
    int restarts, max_iter;
    double tol;
    int quiet;               /* no summary line on stderr */
    const cohort_team *team; /* the ranks that share the k-means (kmeans.h); NULL: alone */
} clustering_options;

/* The options analysis.kmeans* of the plan (k from analysis.kmeans). */
clustering_options clustering_options_from_plan(const run_plan *p);

/* Clusters the members of p with excluded[g] = 0 and writes the result to out: the labels,
 * centroids and sizes, the measures of cluster_quality.h over a seeded subsample and, with k_auto,
 * each candidate k's silhouette. Under a team of several ranks this is rank 0's call: the others
 * are in clustering_follow, each rank's fields reach at least its kmeans_share of the clustered
 * members (rank 0's every member: the silhouette's subsample), and a failure ends every rank. */
int clustering_run(const cohort_backend *be, const run_plan *p, const clustering_options *opt,
                   member_fields_fn fields, void *ctx, const unsigned char *excluded,
                   cohort_output *out);
/* The part of a rank other than 0 in opt->team's clusterings: each clustering_run of rank 0, until
 * rank 0 calls clustering_team_done. */
int clustering_follow(const cohort_backend *be, const run_plan *p, const clustering_options *opt,
                      member_fields_fn fields, void *ctx);
void clustering_team_done(const cohort_team *team);

#endif
