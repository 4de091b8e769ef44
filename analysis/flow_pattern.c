#include "flow_pattern.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ordered_sum.h"
#include "backend/cohort_error.h"

/* Per-cluster sums of `terms` values of each member (term(field, n, values)) over the members
 * [0, members) of r's labels: each rank of team (NULL: this process alone) loads its
 * kmeans_share in chunks of `chunk` and folds it into 1,024-member blocks in member order, and
 * the blocks are added in the fixed tree, so that total (k x terms, cluster-major) does not
 * depend on the ranks. */
typedef void (*member_terms_fn)(const double *field, int64_t n, double *values);
static int cluster_sums(const kmeans_result *r, int k, int64_t n, int64_t members,
                        kmeans_load_fn load, void *ctx, int64_t chunk, const cohort_team *team,
                        member_terms_fn term, int terms, double *total)
{
    const int64_t n_blocks = (members + ORDERED_SUM_BLOCK - 1) / ORDERED_SUM_BLOCK;
    const int64_t width = (int64_t)k * terms;
    int64_t lo = 0, hi = 0;
    kmeans_share(members, team, &lo, &hi);
    double *buf = malloc((size_t)chunk * (size_t)n * sizeof(double));
    double *blocks = calloc((size_t)(n_blocks * width), sizeof(double));
    int rc = buf && blocks ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the clusters' sums");
    double values[4];
    for (int64_t first = lo, cnt = 0; rc == COHORT_OK && first < hi; first += cnt) {
        cnt = hi - first < chunk ? hi - first : chunk;
        rc = load(ctx, first, cnt, buf);
        for (int64_t j = 0; rc == COHORT_OK && j < cnt; ++j) {
            term(buf + j * n, n, values);
            double *sums =
                blocks + (first + j) / ORDERED_SUM_BLOCK * width + r->labels[first + j] * terms;
            for (int q = 0; q < terms; ++q) sums[q] += values[q];
        }
    }
    if (rc == COHORT_OK)
        rc = ordered_sum_team_total(team ? team : &team_alone, blocks, (size_t)width, n_blocks,
                                    total);
    free(buf), free(blocks);
    return rc;
}

/* a member's spatial variance <C^2> - <C>^2 */
static void member_variance(const double *field, int64_t n, double *values)
{
    values[0] = kmeans_spatial_variance(field, n, NULL);
}

int flow_pattern_names(int regimes, const kmeans_result *r, int k, int64_t n, int64_t members,
                       kmeans_load_fn load, void *ctx, int64_t chunk, const cohort_team *team,
                       char *out, size_t len)
{
    if (!regimes || k != 3) {
        size_t used = 0;
        out[0] = '\0';
        for (int c = 0; c < k && used < len; ++c)
            used += (size_t)snprintf(out + used, len - used, "%scluster_%d", c ? " " : "", c);
        return COHORT_OK;
    }
    /* mv: each cluster's summed member variances, in member order and the fixed tree */
    double mv[3] = {0};
    COHORT_CALL(cluster_sums(r, k, n, members, load, ctx, chunk, team, member_variance, 1, mv));
    int a2 = 0;
    for (int c = 0; c < 3; ++c) {
        mv[c] = r->sizes[c] > 0.0 ? mv[c] / r->sizes[c] : 0.0;
        if (mv[c] < mv[a2]) a2 = c;
    }
    const int p = (a2 + 1) % 3, q = (a2 + 2) % 3;
    const double lock_p = kmeans_spatial_variance(r->centroids + p * n, n, NULL) / mv[p];
    const double lock_q = kmeans_spatial_variance(r->centroids + q * n, n, NULL) / mv[q];
    const int a1 = lock_q > lock_p ? q : p, a0 = a1 == p ? q : p;
    const char *name[3];
    name[a2] = "A2", name[a1] = "A1", name[a0] = "A0";
    snprintf(out, len, "%s %s %s", name[0], name[1], name[2]);
    return COHORT_OK;
}

/* A member's count, l = 1 / (1 - <C^2>) over its n values (summed in order) and l^2. */
static void member_length(const double *field, int64_t n, double *values)
{
    double squares = 0.0;
    for (int64_t i = 0; i < n; ++i) squares += field[i] * field[i];
    const double l = 1.0 / (1.0 - squares / (double)n);
    values[0] = 1.0, values[1] = l, values[2] = l * l;
}

int flow_pattern_lengths(const kmeans_result *r, int k, int64_t n, int64_t members,
                         kmeans_load_fn load, void *ctx, int64_t chunk, const cohort_team *team,
                         double *mean, double *ci95)
{
    double *total = calloc((size_t)(3 * k), sizeof(double));
    int rc = total ? cluster_sums(r, k, n, members, load, ctx, chunk, team, member_length, 3, total)
                   : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the clusters' lengths");
    for (int c = 0; rc == COHORT_OK && c < k; ++c) {
        const double count = total[3 * c], m = total[3 * c + 1] / count;
        const double var = (total[3 * c + 2] - count * m * m) / (count - 1.0);
        const double half = count >= 2.0 ? 1.96 * sqrt(fmax(var, 0.0) / count) : NAN;
        mean[c] = count > 0.0 ? m : NAN;
        ci95[2 * c] = mean[c] - half, ci95[2 * c + 1] = mean[c] + half;
    }
    free(total);
    return rc;
}
