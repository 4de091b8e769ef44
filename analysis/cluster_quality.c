#include "cluster_quality.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/reduction_numerics.h"
#include "backend/cohort_error.h"
#include "backend/philox.h"

_Static_assert(CLUSTER_SAMPLE_STREAM > PHILOX_STREAM_RESERVED + 1000,
               "the subsample's stream is none of k-means++'s (restarts <= 1000)");

/* n choose 2, exactly in a double for the counts of an ensemble (below 2^26 members) */
static double pairs(double n)
{
    return 0.5 * n * (n - 1.0);
}

double cluster_adjusted_rand(const unsigned char *a, const unsigned char *b, int64_t n, int k)
{
    double table[REDUCTION_MAX_CLASSES][REDUCTION_MAX_CLASSES] = {{0}};
    double rows[REDUCTION_MAX_CLASSES] = {0}, cols[REDUCTION_MAX_CLASSES] = {0}, total = 0.0;
    for (int64_t j = 0; j < n; ++j)
        if (a[j] < k && b[j] < k) {
            table[a[j]][b[j]] += 1.0;
            rows[a[j]] += 1.0;
            cols[b[j]] += 1.0;
        }
    for (int c = 0; c < k; ++c) total += rows[c];
    double index = 0.0, sum_rows = 0.0, sum_cols = 0.0;
    for (int c = 0; c < k; ++c) {
        for (int d = 0; d < k; ++d) index += pairs(table[c][d]);
        sum_rows += pairs(rows[c]);
        sum_cols += pairs(cols[c]);
    }
    /* ARI = (index - expected) / (mean of the marginals' pairs - expected) */
    const double expected = total > 1.0 ? sum_rows * sum_cols / pairs(total) : 0.0;
    const double maximum = 0.5 * (sum_rows + sum_cols);
    if (maximum == expected) return 1.0; /* one cluster each, or singletons each: they agree */
    return (index - expected) / (maximum - expected);
}

int64_t cluster_sample(uint64_t seed, int64_t members, int64_t size, int64_t *index)
{
    if (size >= members) {
        for (int64_t j = 0; j < members; ++j) index[j] = j;
        return members;
    }
    int64_t chosen = 0;
    for (int64_t j = 0; j < members && chosen < size; ++j) {
        /* member j is taken with probability (still wanted) / (still left) */
        const double u = philox_uniform_value(seed, CLUSTER_SAMPLE_STREAM, (uint64_t)j);
        if ((double)(members - j) * (1.0 - u) < (double)(size - chosen)) index[chosen++] = j;
    }
    return chosen;
}

static double distance(const double *x, const double *y, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; ++i) s += (x[i] - y[i]) * (x[i] - y[i]);
    return sqrt(s);
}

/* s_i of member i: its mean distance to each cluster (its own without itself) */
static double member_silhouette(const double *x, int64_t n, int64_t count,
                                const unsigned char *labels, int k, int64_t i, const double *size)
{
    double sum[REDUCTION_MAX_CLASSES] = {0};
    for (int64_t j = 0; j < count; ++j)
        if (j != i && labels[j] < k) sum[labels[j]] += distance(x + i * n, x + j * n, n);
    const int own = labels[i];
    if (size[own] < 2.0) return 0.0;
    const double a = sum[own] / (size[own] - 1.0);
    double b = INFINITY;
    for (int c = 0; c < k; ++c)
        if (c != own && size[c] > 0.0 && sum[c] / size[c] < b) b = sum[c] / size[c];
    const double m = fmax(a, b);
    return m > 0.0 ? (b - a) / m : 0.0;
}

int cluster_silhouette(const double *x, int64_t n, int64_t count, const unsigned char *labels,
                       int k, double *mean)
{
    double size[REDUCTION_MAX_CLASSES] = {0}, total = 0.0, counted = 0.0;
    int present = 0;
    for (int64_t j = 0; j < count; ++j)
        if (labels[j] < k) size[labels[j]] += 1.0;
    for (int c = 0; c < k; ++c) present += size[c] > 0.0;
    *mean = NAN;
    if (present < 2) return COHORT_OK;
    double *s = malloc((size_t)count * sizeof *s);
    if (!s)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "silhouette of %lld members", (long long)count);
        /* each member's s_i independently (in parallel), then summed in member order */
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t i = 0; i < count; ++i)
        s[i] = labels[i] < k ? member_silhouette(x, n, count, labels, k, i, size) : 0.0;
    for (int64_t i = 0; i < count; ++i)
        if (labels[i] < k) total += s[i], counted += 1.0;
    free(s);
    *mean = total / counted;
    return COHORT_OK;
}
