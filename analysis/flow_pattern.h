/* Names for k-means clusters (the flag_meanings of `label`). For a model of the flow-pattern
 * regimes (ch1d_forced declares flow_regimes) with three clusters, the seed's regimes (seed 003,
 * Sec. 6): A2, a small travelling oscillation around the mean; A1, travelling +-1 domains locked to
 * the forcing; A0, the rest (domains that move irregularly). The rule, from each cluster's mean
 * member variance mv (the spatial variance <C^2> - <C>^2 of a member, averaged over the cluster)
 * and its centroid's spatial variance cv: A2 = the cluster of least mv (its members barely depart
 * from their mean); A1 = of the other two, the one of larger cv / mv (members locked to the wave
 * share their domains, so their centroid keeps the members' +-1 pattern); A0 = the remaining one
 * (domains at different places average out in the centroid). Otherwise the names are cluster_0 ..
 * cluster_{k-1}. */
#ifndef COHORT_FLOW_PATTERN_H
#define COHORT_FLOW_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/kmeans.h"

/* out: k space-separated names for labels 0 .. k-1 of r (regimes: the model's members are seed
 * 003's flow patterns). The features come from load, as for kmeans_run: read in chunks of `chunk`
 * members, each rank of team (NULL: this process alone) reading its kmeans_share; the mean
 * variances are block sums added in the fixed tree, so the names do not depend on the ranks. */
int flow_pattern_names(int regimes, const kmeans_result *r, int k, int64_t n, int64_t members,
                       kmeans_load_fn load, void *ctx, int64_t chunk, const cohort_team *team,
                       char *out, size_t len);

/* Each cluster's mean of its members' length l = 1 / (1 - <C^2>) (issue 53: a length per flow
 * regime rather than one law across them) from their final fields as loaded (the same reading as
 * flow_pattern_names), and the 95% interval of that mean, mean +- 1.96 standard errors (the
 * members being independent; NaN below two members). The counts, sums and squares are block
 * sums added in the fixed tree, so the same on any ranks. mean: k values, ci95: k x 2. */
int flow_pattern_lengths(const kmeans_result *r, int k, int64_t n, int64_t members,
                         kmeans_load_fn load, void *ctx, int64_t chunk, const cohort_team *team,
                         double *mean, double *ci95);

#endif
