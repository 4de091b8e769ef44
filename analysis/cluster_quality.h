/* Measures of a clustering that say whether to trust it: the agreement of two labelings (the
 * adjusted Rand index of Hubert and Arabie, J. Classification 2, 1985), the mean silhouette
 * (Rousseeuw, J. Comput. Appl. Math. 20, 1987) over a fixed, seeded subsample of the members, and
 * that subsample. Plain host code in a fixed order, so that a result depends only on the labels,
 * the features and the seed: never on chunking, backend or ranks. */
#ifndef COHORT_CLUSTER_QUALITY_H
#define COHORT_CLUSTER_QUALITY_H

#include <stdint.h>

/* The Philox stream of the silhouette's subsample (philox.h: beyond every member's stream and
 * beyond k-means++'s PHILOX_STREAM_RESERVED + restart). */
#define CLUSTER_SAMPLE_STREAM (((uint64_t)1 << 62) + ((uint64_t)1 << 40))

/* The adjusted Rand index of labelings a and b of n members (labels below k; others are
 * skipped in both): 1 for identical partitions up to renumbering, about 0 for independent ones.
 * Where both put every member in one cluster, or each member in its own, it is 1 (the partitions
 * agree), as scikit-learn's adjusted_rand_score. */
double cluster_adjusted_rand(const unsigned char *a, const unsigned char *b, int64_t n, int k);

/* `size` of the indices [0, members) in ascending order, drawn without replacement by selection
 * sampling (Knuth, TAOCP 2, Algorithm S) from the Philox stream CLUSTER_SAMPLE_STREAM of `seed`:
 * every size-subset equally likely. size >= members gives them all. Returns the count written. */
int64_t cluster_sample(uint64_t seed, int64_t members, int64_t size, int64_t *index);

/* The mean silhouette of `count` members (features x member-major, n each; labels below k):
 * s_i = (b_i - a_i) / max(a_i, b_i) with a_i the mean Euclidean distance to the other members
 * of its cluster and b_i the least mean distance to another cluster's; 0 for a member alone in
 * its cluster (scikit-learn's silhouette_score); *mean is NaN where fewer than 2 clusters are
 * present. Errors: COHORT_ERR_NO_MEMORY. */
int cluster_silhouette(const double *x, int64_t n, int64_t count, const unsigned char *labels,
                       int k, double *mean);

#endif
