#include "flow_pattern.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ordered_sum.h"
#include "backend/cohort_error.h"

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
    /* mv: each block's sums in member order, this rank's blocks, added in the fixed tree */
    const int64_t n_blocks = (members + ORDERED_SUM_BLOCK - 1) / ORDERED_SUM_BLOCK;
    int64_t lo = 0, hi = 0;
    kmeans_share(members, team, &lo, &hi);
    double mv[3] = {0};
    double *buf = malloc((size_t)chunk * (size_t)n * sizeof(double));
    double *blocks = calloc((size_t)n_blocks * 3, sizeof(double));
    int rc =
        buf && blocks ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "flow-pattern statistics");
    for (int64_t first = lo, cnt = 0; rc == COHORT_OK && first < hi; first += cnt) {
        cnt = hi - first < chunk ? hi - first : chunk;
        rc = load(ctx, first, cnt, buf);
        for (int64_t j = 0; rc == COHORT_OK && j < cnt; ++j)
            blocks[(first + j) / ORDERED_SUM_BLOCK * 3 + r->labels[first + j]] +=
                kmeans_spatial_variance(buf + j * n, n, NULL);
    }
    if (rc == COHORT_OK)
        rc = ordered_sum_team_total(team ? team : &team_alone, blocks, 3, n_blocks, mv);
    free(buf), free(blocks);
    if (rc != COHORT_OK) return rc;
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

/* A member's l = 1 / (1 - <C^2>) over its n values, summed in order. */
static double member_length(const double *c, int64_t n)
{
    double squares = 0.0;
    for (int64_t i = 0; i < n; ++i) squares += c[i] * c[i];
    return 1.0 / (1.0 - squares / (double)n);
}

int flow_pattern_lengths(const kmeans_result *r, int k, int64_t n, int64_t members,
                         kmeans_load_fn load, void *ctx, int64_t chunk, const cohort_team *team,
                         double *mean, double *ci95)
{
    /* per block and cluster: the members, their lengths' sum and their squares' */
    const int64_t n_blocks = (members + ORDERED_SUM_BLOCK - 1) / ORDERED_SUM_BLOCK, width = 3 * k;
    int64_t lo = 0, hi = 0;
    kmeans_share(members, team, &lo, &hi);
    double *buf = malloc((size_t)chunk * (size_t)n * sizeof(double));
    double *blocks = calloc((size_t)(n_blocks * width), sizeof(double));
    double *total = calloc((size_t)width, sizeof(double));
    int rc = buf && blocks && total ? COHORT_OK
                                    : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the clusters' lengths");
    for (int64_t first = lo, cnt = 0; rc == COHORT_OK && first < hi; first += cnt) {
        cnt = hi - first < chunk ? hi - first : chunk;
        rc = load(ctx, first, cnt, buf);
        for (int64_t j = 0; rc == COHORT_OK && j < cnt; ++j) {
            const double l = member_length(buf + j * n, n);
            double *sums =
                blocks + (first + j) / ORDERED_SUM_BLOCK * width + 3 * r->labels[first + j];
            sums[0] += 1.0, sums[1] += l, sums[2] += l * l;
        }
    }
    if (rc == COHORT_OK)
        rc = ordered_sum_team_total(team ? team : &team_alone, blocks, (size_t)width, n_blocks,
                                    total);
    for (int c = 0; rc == COHORT_OK && c < k; ++c) {
        const double count = total[3 * c], m = total[3 * c + 1] / count;
        const double var = (total[3 * c + 2] - count * m * m) / (count - 1.0);
        const double half = count >= 2.0 ? 1.96 * sqrt(fmax(var, 0.0) / count) : NAN;
        mean[c] = count > 0.0 ? m : NAN;
        ci95[2 * c] = mean[c] - half, ci95[2 * c + 1] = mean[c] + half;
    }
    free(buf), free(blocks), free(total);
    return rc;
}
