#include "flow_pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"

int flow_pattern_names(int regimes, const kmeans_result *r, int k, int64_t n, int64_t members,
                       kmeans_load_fn load, void *ctx, int64_t chunk, char *out, size_t len)
{
    if (!regimes || k != 3) {
        size_t used = 0;
        out[0] = '\0';
        for (int c = 0; c < k && used < len; ++c)
            used += (size_t)snprintf(out + used, len - used, "%scluster_%d", c ? " " : "", c);
        return COHORT_OK;
    }
    double mv[3] = {0}, count[3] = {0};
    double *buf = malloc((size_t)chunk * (size_t)n * sizeof(double));
    if (!buf) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "flow-pattern statistics");
    for (int64_t first = 0, cnt = 0; first < members; first += cnt) {
        cnt = members - first < chunk ? members - first : chunk;
        const int rc = load(ctx, first, cnt, buf);
        if (rc != COHORT_OK) {
            free(buf);
            return rc;
        }
        for (int64_t j = 0; j < cnt; ++j) {
            const int c = r->labels[first + j];
            mv[c] += kmeans_spatial_variance(buf + j * n, n, NULL);
            count[c] += 1.0;
        }
    }
    free(buf);
    int a2 = 0;
    for (int c = 0; c < 3; ++c) {
        mv[c] = count[c] > 0.0 ? mv[c] / count[c] : 0.0;
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
