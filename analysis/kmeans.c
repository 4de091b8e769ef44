#include "kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ordered_sum.h"
#include "analysis/reduction_kernels.h"
#include "backend/cohort_error.h"
#include "backend/philox.h"
#include "analysis/reduction_numerics.h"

/* k-means++ draws of restart r: Philox stream PHILOX_STREAM_RESERVED + r (no member's stream),
 * draw c at index c. */

typedef struct km {
    const cohort_backend *be;
    const kmeans_options *opt;
    int64_t n, members, chunk;
    int resident;
    kmeans_load_fn load;
    void *ctx;
    double *feat, *stage, *host_stage, *dist_dev, *centroids_dev, *fold_scratch;
    unsigned char *labels_dev;
    ordered_sum sums;
    unsigned char *labels, *prev;
    double *dist;                  /* host: per member */
    double iteration_seconds[256]; /* wall time of the first Lloyd iterations, every restart */
    int timed;
} km;

static int km_compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The features of members [first, first + count) on the device: where they stay (resident) or
 * loaded, copied and interleaved into feat (ld = chunk). */
static int km_features(km *s, int64_t first, int64_t count, const double **x, int64_t *ld,
                       int64_t *m0)
{
    if (s->resident) {
        *x = s->feat, *ld = s->members, *m0 = first;
        return COHORT_OK;
    }
    COHORT_CALL(s->load(s->ctx, first, count, s->host_stage));
    COHORT_CALL(
        s->be->copy_to_device(s->stage, s->host_stage, (size_t)(count * s->n) * sizeof(double)));
    COHORT_CALL(
        s->be->interleave(s->stage, s->n, 1.0, 0.0, 0, NULL, s->feat, s->n, s->chunk, 0, count));
    *x = s->feat, *ld = s->chunk, *m0 = 0;
    return COHORT_OK;
}

/* Labels and distances of every member to the nearest of the first kk centroids (host k x n);
 * with fold, also the ordered per-cluster sums of the features into sums. */
static int km_pass(km *s, const double *centroids, int kk, int fold, double *sums)
{
    COHORT_CALL(s->be->copy_to_device(s->centroids_dev, centroids,
                                      (size_t)kk * (size_t)s->n * sizeof(double)));
    if (fold) ordered_sum_reset(&s->sums);
    for (int64_t first = 0, count = 0; first < s->members; first += count) {
        count = s->members - first < s->chunk ? s->members - first : s->chunk;
        const double *x = NULL;
        int64_t ld = 0, m0 = 0;
        COHORT_CALL(km_features(s, first, count, &x, &ld, &m0));
        COHORT_CALL(COHORT_KERNELS(s->be, reduction_kernels)
                        ->nearest_centroid(x, s->n, ld, m0, count, s->centroids_dev, kk,
                                           s->labels_dev, s->dist_dev));
        if (fold)
            COHORT_CALL(
                ordered_sum_add(&s->sums, s->fold_scratch, x, ld, m0, count, first, s->labels_dev));
        COHORT_CALL(s->be->copy_to_host(s->labels + first, s->labels_dev, (size_t)count));
        COHORT_CALL(
            s->be->copy_to_host(s->dist + first, s->dist_dev, (size_t)count * sizeof(double)));
    }
    if (fold) COHORT_CALL(ordered_sum_total(&s->sums, sums));
    return COHORT_OK;
}

static int km_uniform(const km *s, int restart, int draw, double *u)
{
    *u = philox_uniform_value(s->opt->seed, PHILOX_STREAM_RESERVED + (uint64_t)restart,
                              (uint64_t)draw);
    return COHORT_OK;
}

/* k-means++ (Arthur and Vassilvitskii): the first centroid a uniformly drawn member, each next one
 * a member drawn with probability proportional to its squared distance to the nearest centroid so
 * far, the cumulative sum taken in member order. */
static int km_seed(km *s, int restart, double *centroids)
{
    const int64_t n = s->n;
    for (int c = 0; c < s->opt->k; ++c) {
        double u;
        COHORT_CALL(km_uniform(s, restart, c, &u)); /* in (0, 1] */
        int64_t pick = (int64_t)((1.0 - u) * (double)s->members);
        if (c > 0) {
            COHORT_CALL(km_pass(s, centroids, c, 0, NULL));
            double total = 0.0;
            for (int64_t j = 0; j < s->members; ++j) total += s->dist[j];
            if (total > 0.0) {
                const double target = u * total;
                double cum = 0.0;
                pick = -1;
                for (int64_t j = 0; j < s->members && pick < 0; ++j) {
                    cum += s->dist[j];
                    if (s->dist[j] > 0.0 && cum >= target) pick = j;
                }
                for (int64_t j = s->members - 1; pick < 0; --j) /* rounding: the last candidate */
                    if (s->dist[j] > 0.0) pick = j;
            }
        }
        if (pick >= s->members) pick = s->members - 1;
        COHORT_CALL(s->load(s->ctx, pick, 1, centroids + (size_t)c * (size_t)n));
    }
    return COHORT_OK;
}

/* One restart of Lloyd's algorithm from the centroids given; on return `centroids` are the means
 * of the final labels (s->labels), *inertia the final assignment's. */
static int km_lloyd(km *s, double *centroids, double *sums, double *inertia, int *iterations)
{
    const int64_t n = s->n;
    const int k = s->opt->k;
    double previous = INFINITY;
    for (int it = 1; it <= s->opt->max_iter; ++it) {
        const double start = cohort_seconds();
        COHORT_CALL(km_pass(s, centroids, k, 1, sums));
        COHORT_CALL(ordered_sum_host(s->dist, s->members, NULL, inertia));
        if (!isfinite(*inertia))
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                               "k-means: features that are not finite (inertia %g)", *inertia);
        const int changed = it == 1 || memcmp(s->labels, s->prev, (size_t)s->members) != 0;
        memcpy(s->prev, s->labels, (size_t)s->members);
        double count[REDUCTION_MAX_CLASSES] = {0};
        for (int64_t j = 0; j < s->members; ++j) count[s->labels[j]] += 1.0;
        for (int c = 0; c < k; ++c) {
            if (count[c] > 0.0) {
                for (int64_t i = 0; i < n; ++i) centroids[c * n + i] = sums[c * n + i] / count[c];
                continue;
            }
            /* an empty cluster takes the member farthest from its centroid (the lowest index
             * among equals), which then leaves its own distance at 0 */
            int64_t far = 0;
            for (int64_t j = 1; j < s->members; ++j)
                if (s->dist[j] > s->dist[far]) far = j;
            s->dist[far] = 0.0;
            COHORT_CALL(s->load(s->ctx, far, 1, centroids + (size_t)c * (size_t)n));
        }
        *iterations = it;
        if (s->timed < (int)(sizeof s->iteration_seconds / sizeof s->iteration_seconds[0]))
            s->iteration_seconds[s->timed++] = cohort_seconds() - start;
        if (!changed) break;
        if (previous - *inertia <= s->opt->tol * *inertia) break;
        previous = *inertia;
    }
    return COHORT_OK;
}

/* Restart r's result (s->labels, centroids) kept where its inertia is the lowest so far, the
 * previous best becoming the runner-up; else kept as the runner-up where it beats that. */
static void km_keep(const km *s, int r, double inertia, int iterations, const double *centroids,
                    kmeans_result *out)
{
    const size_t members = (size_t)s->members, kn = (size_t)s->opt->k * (size_t)s->n;
    if (inertia < out->inertia) {
        if (out->runner_up && r > 0) {
            memcpy(out->runner_up, out->labels, members);
            out->runner_up_inertia = out->inertia;
        }
        out->inertia = inertia, out->iterations = iterations, out->restart = r;
        memcpy(out->labels, s->labels, members);
        memcpy(out->centroids, centroids, kn * sizeof(double));
    } else if (out->runner_up && inertia < out->runner_up_inertia) {
        memcpy(out->runner_up, s->labels, members);
        out->runner_up_inertia = inertia;
    }
}

double kmeans_spatial_variance(const double *c, int64_t n, double *mean)
{
    double m = 0.0, v = 0.0;
    for (int64_t i = 0; i < n; ++i) m += c[i];
    m /= (double)n;
    for (int64_t i = 0; i < n; ++i) v += (c[i] - m) * (c[i] - m);
    if (mean) *mean = m;
    return v / (double)n;
}

/* Renumbers clusters by ascending centroid variance (then mean, then found order). */
static void km_canonical(int64_t n, int64_t members, int k, double *centroids,
                         unsigned char *labels, double *sizes, double *copy)
{
    double var[REDUCTION_MAX_CLASSES], avg[REDUCTION_MAX_CLASSES];
    int order[REDUCTION_MAX_CLASSES], rank[REDUCTION_MAX_CLASSES];
    for (int c = 0; c < k; ++c) {
        double m = 0.0, v = 0.0;
        for (int64_t i = 0; i < n; ++i) m += centroids[c * n + i];
        m /= (double)n;
        for (int64_t i = 0; i < n; ++i)
            v += (centroids[c * n + i] - m) * (centroids[c * n + i] - m);
        var[c] = v / (double)n, avg[c] = m, order[c] = c;
    }
    for (int a = 1; a < k; ++a) /* insertion sort: stable */
        for (int b = a; b > 0; --b) {
            const int p = order[b - 1], q = order[b];
            if (var[q] < var[p] || (var[q] == var[p] && avg[q] < avg[p]))
                order[b - 1] = q, order[b] = p;
            else
                break;
        }
    memcpy(copy, centroids, (size_t)k * (size_t)n * sizeof(double));
    double size_copy[REDUCTION_MAX_CLASSES];
    for (int c = 0; c < k; ++c) size_copy[c] = sizes[c];
    for (int c = 0; c < k; ++c) {
        rank[order[c]] = c;
        memcpy(centroids + (size_t)c * n, copy + (size_t)order[c] * n, (size_t)n * sizeof(double));
        sizes[c] = size_copy[order[c]];
    }
    for (int64_t j = 0; j < members; ++j) labels[j] = (unsigned char)rank[labels[j]];
}

void kmeans_result_free(kmeans_result *r)
{
    free(r->labels), free(r->centroids), free(r->sizes), free(r->runner_up);
    r->labels = r->runner_up = NULL, r->centroids = r->sizes = NULL;
}

static void km_free(km *s)
{
    const cohort_backend *be = s->be;
    be->release(s->feat), be->release(s->stage), be->release(s->dist_dev);
    be->release(s->centroids_dev), be->release(s->labels_dev), be->release(s->fold_scratch);
    ordered_sum_free(&s->sums);
    free(s->host_stage), free(s->labels), free(s->prev), free(s->dist);
}

/* Features resident on the device when all of them (and a pass's working arrays) take at most
 * half the free memory, as run.c sizes its chunks. */
static int km_layout(km *s)
{
    const int64_t n = s->n;
    if (s->opt->chunk > 0) {
        s->chunk = s->opt->chunk < s->members ? s->opt->chunk : s->members;
        s->resident = 0;
        return COHORT_OK;
    }
    size_t free_bytes = 0;
    COHORT_CALL(s->be->mem_info(&free_bytes, NULL));
    const double per_member = ((double)n + 2.0) * sizeof(double);
    if ((double)s->members * per_member <= 0.5 * (double)free_bytes) {
        s->chunk = s->members, s->resident = 1;
        return COHORT_OK;
    }
    /* streamed: features, the member-major copy, labels and distances per member of a chunk */
    int64_t fit = (int64_t)(0.5 * (double)free_bytes / ((2.0 * (double)n + 2.0) * sizeof(double)));
    s->chunk = fit < 1 ? 1 : fit < s->members ? fit : s->members;
    s->resident = 0;
    return COHORT_OK;
}

int kmeans_run(const cohort_backend *be, int64_t n, int64_t members, kmeans_load_fn load, void *ctx,
               const kmeans_options *opt, kmeans_result *out)
{
    memset(out, 0, sizeof *out);
    if (!be || !load || !opt || !out)
        return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "backend, loader, options and result");
    if (n < 1 || members < 1 || opt->k < 1 || opt->k > REDUCTION_MAX_CLASSES || opt->k > members ||
        opt->restarts < 1 || opt->max_iter < 1 || !(opt->tol >= 0.0))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "k = %d (1 .. %d, at most the %lld members), restarts = %d, "
                           "max_iter = %d, tol = %g, n = %lld",
                           opt->k, REDUCTION_MAX_CLASSES, (long long)members, opt->restarts,
                           opt->max_iter, opt->tol, (long long)n);
    km s = {.be = be, .opt = opt, .n = n, .members = members, .load = load, .ctx = ctx};
    const int k = opt->k;
    const size_t kn = (size_t)k * (size_t)n;
    double *centroids = malloc(kn * sizeof(double)), *sums = malloc(kn * sizeof(double));
    double *scratch = malloc(kn * sizeof(double));
    int rc = km_layout(&s);
    out->labels = malloc((size_t)members);
    out->centroids = malloc(kn * sizeof(double));
    out->sizes = calloc((size_t)k, sizeof(double));
    s.labels = malloc((size_t)members), s.prev = malloc((size_t)members);
    s.dist = malloc((size_t)members * sizeof(double));
    if (rc == COHORT_OK && (!centroids || !sums || !scratch || !out->labels || !out->centroids ||
                            !out->sizes || !s.labels || !s.prev || !s.dist))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means of %lld members", (long long)members);
    const size_t feat_values = (size_t)n * (size_t)(s.resident ? members : s.chunk);
    if (rc == COHORT_OK) rc = be->alloc((void **)&s.feat, feat_values * sizeof(double));
    if (rc == COHORT_OK)
        rc = be->alloc((void **)&s.stage, (size_t)n * (size_t)s.chunk * sizeof(double));
    if (rc == COHORT_OK && !(s.host_stage = malloc((size_t)n * (size_t)s.chunk * sizeof(double))))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means staging of %lld members",
                         (long long)s.chunk);
    if (rc == COHORT_OK) rc = be->alloc((void **)&s.labels_dev, (size_t)s.chunk);
    if (rc == COHORT_OK) rc = be->alloc((void **)&s.dist_dev, (size_t)s.chunk * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&s.centroids_dev, kn * sizeof(double));
    if (rc == COHORT_OK) rc = ordered_sum_alloc(&s.sums, be, members, n, k, s.chunk);
    if (rc == COHORT_OK)
        rc = be->alloc((void **)&s.fold_scratch, ordered_sum_scratch_bytes(members, n, k, s.chunk));
    if (rc == COHORT_OK && s.resident) { /* load once, in chunks of the staging size */
        const int64_t stage = s.chunk;
        for (int64_t first = 0, count = 0; first < members && rc == COHORT_OK; first += count) {
            count = members - first < stage ? members - first : stage;
            rc = load(ctx, first, count, s.host_stage);
            if (rc == COHORT_OK)
                rc =
                    be->copy_to_device(s.stage, s.host_stage, (size_t)(count * n) * sizeof(double));
            if (rc == COHORT_OK)
                rc =
                    be->interleave(s.stage, n, 1.0, 0.0, 0, NULL, s.feat, n, members, first, count);
        }
    }
    out->inertia = INFINITY;
    const int restarts = opt->initial ? 1 : opt->restarts;
    out->runner_up_inertia = restarts > 1 ? INFINITY : NAN;
    if (rc == COHORT_OK && restarts > 1 && !(out->runner_up = malloc((size_t)members)))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means runner-up labels");
    for (int r = 0; r < restarts && rc == COHORT_OK; ++r) {
        double inertia = INFINITY;
        int iterations = 0;
        if (opt->initial)
            memcpy(centroids, opt->initial, kn * sizeof(double));
        else
            rc = km_seed(&s, r, centroids);
        if (rc == COHORT_OK) rc = km_lloyd(&s, centroids, sums, &inertia, &iterations);
        if (rc == COHORT_OK) km_keep(&s, r, inertia, iterations, centroids, out);
    }
    if (rc == COHORT_OK) {
        for (int64_t j = 0; j < members; ++j) out->sizes[out->labels[j]] += 1.0;
        km_canonical(n, members, k, out->centroids, out->labels, out->sizes, scratch);
        out->resident = s.resident;
        qsort(s.iteration_seconds, (size_t)s.timed, sizeof(double), km_compare_double);
        out->seconds_per_iteration = s.timed ? s.iteration_seconds[s.timed / 2] : NAN;
    }
    km_free(&s);
    free(centroids), free(sums), free(scratch);
    if (rc != COHORT_OK) kmeans_result_free(out);
    return rc;
}

unsigned char kmeans_mode_label(const unsigned char *labels, int64_t count, int k)
{
    int64_t votes[REDUCTION_MAX_CLASSES] = {0};
    for (int64_t j = 0; j < count; ++j)
        if (labels[j] < k) ++votes[labels[j]];
    int best = 0;
    for (int c = 1; c < k; ++c)
        if (votes[c] > votes[best]) best = c;
    return votes[best] > 0 ? (unsigned char)best : (unsigned char)REDUCTION_SKIP;
}
