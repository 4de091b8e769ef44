/* k-means clustering of an ensemble's members by their fields (Lloyd's algorithm, k-means++
 * seeding), out of core: the features come from a callback in chunks of members, and stay on the
 * device when they fit there, otherwise they are streamed again for every pass. Every sum is an
 * ordered sum (ordered_sum.h), and the k-means++ draws use a cumulative sum in member order, so
 * labels do not depend on chunking; the same seed gives the same labels.
 *
 * A team (team.h) shares the work: each rank holds the features of its share of the members
 * (kmeans_share), its Lloyd passes fold per-block sums that rank 0 adds in the fixed tree and
 * answers with the new centroids, and k-means++ finds its draw's block from the blocks' sums on
 * rank 0 and its member on the block's rank; so labels, centroids and inertia are the same bits
 * for any number of ranks, and no rank holds another's features.
 *
 * Canonical numbering: clusters are numbered by ascending variance of their centroid over x
 * (var_c = mean_i (c_i - mean_i c_i)^2), ties by ascending centroid mean, then by the order found;
 * so a label means the same kind of pattern in every run (0: the flattest centroid). */
#ifndef COHORT_KMEANS_H
#define COHORT_KMEANS_H

#include <stdint.h>

#include "analysis/team.h"
#include "backend/backend.h"

/* Writes the features of members [first, first + count) member-major into host memory
 * (dst[j * n + i]); returns a cohort status. Under a team a rank's loader is asked only for its
 * own members (kmeans_share). */
typedef int (*kmeans_load_fn)(void *ctx, int64_t first, int64_t count, double *dst);

typedef struct kmeans_options {
    int k;         /* clusters, 1 .. REDUCTION_MAX_CLASSES */
    int restarts;  /* independent k-means++ seedings; the lowest inertia is kept */
    int max_iter;  /* Lloyd iterations per restart */
    double tol;    /* stop when the inertia falls by less than tol x inertia (0: only when no
                    * label changes) */
    uint64_t seed; /* the run's seed: k-means++ draws from Philox4x32-10 with this seed */
    int64_t chunk; /* members per pass chunk; 0: all resident if they fit in device memory */
    const double *initial;   /* k x n starting centroids instead of k-means++ (restarts = 1), or
                              * NULL */
    const cohort_team *team; /* the ranks that share the members (every rank calls kmeans_run
                              * with the same arguments but its loader); NULL: this process */
} kmeans_options;

typedef struct kmeans_result { /* the same on every rank of a team */
    unsigned char *labels;     /* members (canonical) */
    double *centroids;         /* k x n (canonical order) */
    double *sizes;             /* k: members per cluster */
    double inertia;            /* sum over members of the squared distance to their centroid */
    int iterations;            /* Lloyd iterations of the kept restart */
    int restart;               /* which restart was kept */
    /* the labels of the restart of the next-lowest inertia (its own numbering) and that inertia,
     * for the agreement between restarts; NULL and NaN with one restart */
    unsigned char *runner_up;
    double runner_up_inertia;
    int resident;                 /* the features stayed on the device */
    double seconds_per_iteration; /* median wall time of a Lloyd iteration (labels, sums and
                                   * new centroids), over every restart */
} kmeans_result;

/* Clusters `members` members of n features each. Errors: COHORT_ERR_INVALID_ARGUMENT (k, sizes),
 * COHORT_ERR_NO_MEMORY, the loader's and the backend's; under a team of several ranks a failure
 * after the arguments' check ends every rank (the team's abort), the message said first. */
int kmeans_run(const cohort_backend *be, int64_t n, int64_t members, kmeans_load_fn load, void *ctx,
               const kmeans_options *opt, kmeans_result *out);
void kmeans_result_free(kmeans_result *r);

/* The members [*first, *end) of this rank of team t (NULL: all): its team_share of the
 * ORDERED_SUM_BLOCK blocks. */
void kmeans_share(int64_t members, const cohort_team *t, int64_t *first, int64_t *end);

/* mean_i (c_i - mean_i c_i)^2 of n values, and their mean (mean may be NULL): the variance
 * behind the canonical numbering. */
double kmeans_spatial_variance(const double *c, int64_t n, double *mean);

/* The most frequent of `count` labels below k, the lowest among equals (REDUCTION_SKIP when
 * none is below k): one label for the replicates of a sweep point. */
unsigned char kmeans_mode_label(const unsigned char *labels, int64_t count, int k);

#endif
