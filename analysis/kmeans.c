#include "kmeans.h"

#include <math.h>
#include <stdio.h>
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
    const cohort_team *team;
    int64_t n, members, chunk;
    int64_t staged; /* members a load stages (host_stage, stage): the chunk, or fewer resident */
    int64_t lo, hi, local; /* this rank's members [lo, hi), local of them */
    int64_t n_blocks;
    int64_t block0, share_blocks; /* this rank's blocks [block0, block0 + share_blocks) */
    int resident;
    kmeans_load_fn load;
    void *ctx;
    /* backend memory: the features, this rank's labels, previous labels and distances, the
     * per-cluster sums of its blocks (share_blocks x k x n), its blocks' sums of distances and
     * the labels' tally (k + 1) */
    double *feat, *stage, *dist_dev, *centroids_dev, *fold_dev, *dist_blocks_dev;
    unsigned char *labels_dev, *prev_dev;
    int64_t *tally_dev;
    double *host_stage;
    unsigned char *labels;         /* host: this rank's members, brought back once a restart */
    double *dist;                  /* host: this rank's members, brought back where needed */
    double *dist_blocks;           /* host, every block: the distances' sums (k-means++) */
    double iteration_seconds[256]; /* wall time of the first Lloyd iterations, every restart */
    int timed;
} km;

static int km_compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void kmeans_share(int64_t members, const cohort_team *t, int64_t *first, int64_t *end)
{
    const int64_t blocks = (members + ORDERED_SUM_BLOCK - 1) / ORDERED_SUM_BLOCK;
    int64_t b0 = 0, b1 = blocks;
    if (t) team_share(blocks, t->size, t->rank, &b0, &b1);
    *first = b0 * ORDERED_SUM_BLOCK < members ? b0 * ORDERED_SUM_BLOCK : members;
    *end = b1 * ORDERED_SUM_BLOCK < members ? b1 * ORDERED_SUM_BLOCK : members;
}

/* The features of members [first, first + count) (this rank's) on the device: where they stay
 * (resident) or loaded, copied and interleaved into feat (ld = chunk). */
static int km_features(km *s, int64_t first, int64_t count, const double **x, int64_t *ld,
                       int64_t *m0)
{
    if (s->resident) {
        *x = s->feat, *ld = s->local, *m0 = first - s->lo;
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

/* Labels and distances of this rank's members to the nearest of the first kk centroids (host
 * k x n, the same on every rank), and each block's sum of the distances in member order; with
 * fold, also each block's per-cluster sums of its members' features. All stay on the device:
 * the block sums carry from one chunk to the next there. */
static int km_pass(km *s, const double *centroids, int kk, int fold)
{
    const reduction_kernels *kernels = COHORT_KERNELS(s->be, reduction_kernels);
    const size_t width = (size_t)s->opt->k * (size_t)s->n;
    COHORT_CALL(s->be->copy_to_device(s->centroids_dev, centroids,
                                      (size_t)kk * (size_t)s->n * sizeof(double)));
    COHORT_CALL(s->be->fill(s->dist_blocks_dev, 0.0, (size_t)s->share_blocks));
    if (fold) COHORT_CALL(s->be->fill(s->fold_dev, 0.0, (size_t)s->share_blocks * width));
    for (int64_t first = s->lo, count = 0; first < s->hi; first += count) {
        count = s->hi - first < s->chunk ? s->hi - first : s->chunk;
        const double *x = NULL;
        int64_t ld = 0, m0 = 0;
        COHORT_CALL(km_features(s, first, count, &x, &ld, &m0));
        unsigned char *labels = s->labels_dev + (first - s->lo);
        double *dist = s->dist_dev + (first - s->lo);
        const int64_t block = first / ORDERED_SUM_BLOCK - s->block0; /* where `first` lies */
        COHORT_CALL(
            kernels->nearest_centroid(x, s->n, ld, m0, count, s->centroids_dev, kk, labels, dist));
        COHORT_CALL(kernels->block_fold(dist, 1, count, 0, count, first, ORDERED_SUM_BLOCK, 1, NULL,
                                        s->dist_blocks_dev + block));
        if (fold)
            COHORT_CALL(kernels->block_fold(x, s->n, ld, m0, count, first, ORDERED_SUM_BLOCK,
                                            s->opt->k, labels,
                                            s->fold_dev + (size_t)block * width));
    }
    return COHORT_OK;
}

/* The team's per-cluster sums of the last folded pass (k x n, the fixed tree over the blocks). */
static int km_cluster_sums(km *s, double *sums)
{
    return ordered_sum_team_total_backend(s->team, s->be, s->fold_dev,
                                          (size_t)s->opt->k * (size_t)s->n, s->n_blocks, sums);
}

/* The sum of every member's squared distance: each block's in member order, the blocks in the
 * fixed tree; as ordered_sum_host adds them. The blocks' sums are used up. */
static int km_total_distance(km *s, double *total)
{
    return ordered_sum_team_total_backend(s->team, s->be, s->dist_blocks_dev, 1, s->n_blocks,
                                          total);
}

/* This rank's distances on the host (an empty cluster's farthest member). */
static int km_distances_to_host(km *s)
{
    return s->be->copy_to_host(s->dist, s->dist_dev, (size_t)s->local * sizeof(double));
}

/* Member `member`'s features into dst on every rank, loaded by the rank that holds it. */
static int km_shared_load(km *s, int64_t member, double *dst)
{
    const int owner = team_owner(s->n_blocks, s->team->size, member / ORDERED_SUM_BLOCK);
    if (s->team->rank == owner) COHORT_CALL(s->load(s->ctx, member, 1, dst));
    return s->team->broadcast(s->team->ctx, dst, (size_t)s->n * sizeof(double), owner);
}

static int km_uniform(const km *s, int restart, int draw, double *u)
{
    *u = philox_uniform_value(s->opt->seed, PHILOX_STREAM_RESERVED + (uint64_t)restart,
                              (uint64_t)draw);
    return COHORT_OK;
}

/* Where a k-means++ draw lands: the running sum of the distances reaches target in block
 * `block`, whose members start from the running sum `before` (block -1: no draw). */
typedef struct km_draw_at {
    double before, target;
    int64_t block;
} km_draw_at;

/* The first block of a positive sum at whose end the blocks' running sum reaches target; where
 * rounding leaves the target beyond the last sum, the last block of a positive sum. */
static km_draw_at km_draw_block(const double *blocks, int64_t n_blocks, double target)
{
    km_draw_at last = {0.0, target, -1};
    double cum = 0.0;
    for (int64_t b = 0; b < n_blocks; ++b) {
        const double next = cum + blocks[b];
        if (blocks[b] > 0.0) {
            last = (km_draw_at){cum, target, b};
            if (next >= target) return last;
        }
        cum = next;
    }
    return last;
}

/* In the block of `at` (this rank's): the first member at a positive distance where the running
 * sum from at.before reaches at.target; where rounding keeps it below, the block's last member
 * at a positive distance. */
static int64_t km_draw_member(const km *s, km_draw_at at)
{
    const int64_t b0 = at.block * ORDERED_SUM_BLOCK;
    const int64_t b1 = b0 + ORDERED_SUM_BLOCK < s->hi ? b0 + ORDERED_SUM_BLOCK : s->hi;
    int64_t last = -1;
    double cum = at.before;
    for (int64_t j = b0; j < b1; ++j) {
        const double d = s->dist[j - s->lo];
        cum += d;
        if (d > 0.0) {
            last = j;
            if (cum >= at.target) return j;
        }
    }
    return last;
}

/* Every block's sum of distances (km_total_distance's) at rank 0, in s->dist_blocks. */
static int km_gather_blocks(km *s)
{
    const cohort_team *t = s->team;
    size_t *bytes = malloc((size_t)t->size * sizeof *bytes);
    if (!bytes) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means: the blocks' distances");
    int64_t first = 0, end = 0;
    for (int r = 0; r < t->size; ++r) {
        team_share(s->n_blocks, t->size, r, &first, &end);
        bytes[r] = (size_t)(end - first) * sizeof(double);
    }
    team_share(s->n_blocks, t->size, t->rank, &first, &end);
    const int rc = t->gather(t->ctx, s->dist_blocks + first, s->dist_blocks, bytes);
    free(bytes);
    return rc;
}

/* k-means++'s draw u in (0, 1] among the members, by their squared distances to the centroids
 * so far (the last pass's): *pick kept where every distance is 0. The blocks' running sum
 * (rank 0) finds the block, the block's rank the member from the block's distances. */
static int km_draw(km *s, double u, int64_t *pick)
{
    double total = 0.0;
    COHORT_CALL(s->be->copy_to_host(s->dist_blocks + s->block0, s->dist_blocks_dev,
                                    (size_t)s->share_blocks * sizeof(double)));
    COHORT_CALL(ordered_sum_team_total(s->team, s->dist_blocks, 1, s->n_blocks, &total));
    COHORT_CALL(km_gather_blocks(s));
    km_draw_at at = {0.0, 0.0, -1};
    if (s->team->rank == 0 && total > 0.0)
        at = km_draw_block(s->dist_blocks, s->n_blocks, u * total);
    COHORT_CALL(s->team->broadcast(s->team->ctx, &at, sizeof at, 0));
    if (at.block < 0) return COHORT_OK;
    const int owner = team_owner(s->n_blocks, s->team->size, at.block);
    if (s->team->rank == owner) {
        const int64_t b0 = at.block * ORDERED_SUM_BLOCK,
                      b1 = b0 + ORDERED_SUM_BLOCK < s->hi ? b0 + ORDERED_SUM_BLOCK : s->hi;
        COHORT_CALL(s->be->copy_to_host(s->dist + (b0 - s->lo), s->dist_dev + (b0 - s->lo),
                                        (size_t)(b1 - b0) * sizeof(double)));
        *pick = km_draw_member(s, at);
    }
    return s->team->broadcast(s->team->ctx, pick, sizeof *pick, owner);
}

/* k-means++ (Arthur and Vassilvitskii): the first centroid a uniformly drawn member, each next one
 * a member drawn with probability proportional to its squared distance to the nearest centroid so
 * far (km_draw). */
static int km_seed(km *s, int restart, double *centroids)
{
    for (int c = 0; c < s->opt->k; ++c) {
        double u;
        COHORT_CALL(km_uniform(s, restart, c, &u)); /* in (0, 1] */
        int64_t pick = (int64_t)((1.0 - u) * (double)s->members);
        if (pick >= s->members) pick = s->members - 1;
        if (c > 0) {
            COHORT_CALL(km_pass(s, centroids, c, 0));
            COHORT_CALL(km_draw(s, u, &pick));
        }
        COHORT_CALL(km_shared_load(s, pick, centroids + (size_t)c * (size_t)s->n));
    }
    return COHORT_OK;
}

/* The member farthest from its centroid (the lowest index among equals) over every rank, its
 * distance then set to 0 (an empty cluster takes it). */
static int km_farthest(km *s, int64_t *far)
{
    double mine[2] = {-1.0, -1.0}; /* distance, member (-1: none here) */
    for (int64_t j = s->lo; j < s->hi; ++j)
        if (mine[1] < 0.0 || s->dist[j - s->lo] > mine[0])
            mine[0] = s->dist[j - s->lo], mine[1] = (double)j;
    size_t *bytes = malloc((size_t)s->team->size * sizeof *bytes);
    double *all = s->team->rank == 0 ? malloc((size_t)s->team->size * sizeof mine) : NULL;
    int rc = bytes && (s->team->rank != 0 || all)
                 ? COHORT_OK
                 : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means: the farthest member");
    for (int r = 0; rc == COHORT_OK && r < s->team->size; ++r) bytes[r] = sizeof mine;
    if (rc == COHORT_OK) rc = s->team->gather(s->team->ctx, mine, all, bytes);
    for (int r = 1; rc == COHORT_OK && all && r < s->team->size; ++r) /* ranks in member order */
        if (all[2 * r + 1] >= 0.0 && (all[1] < 0.0 || all[2 * r] > all[0]))
            all[0] = all[2 * r], all[1] = all[2 * r + 1];
    if (all) mine[0] = all[0], mine[1] = all[1];
    free(bytes), free(all);
    if (rc == COHORT_OK) rc = s->team->broadcast(s->team->ctx, mine, sizeof mine, 0);
    *far = (int64_t)mine[1];
    if (rc == COHORT_OK && *far >= s->lo && *far < s->hi) s->dist[*far - s->lo] = 0.0;
    return rc;
}

/* Members per cluster (labels of this rank's members, host), over every rank. */
static int km_count(const km *s, const unsigned char *labels, double *count)
{
    for (int c = 0; c < s->opt->k; ++c) count[c] = 0.0;
    for (int64_t j = 0; j < s->local; ++j) count[labels[j]] += 1.0;
    return team_sum(s->team, count, s->opt->k);
}

/* Members per cluster of the last pass over every rank, and whether any label changed from the
 * pass before on any rank; the labels then become the previous ones. Counted on the device. */
static int km_tally(km *s, int first_pass, double *count, int *changed)
{
    const int k = s->opt->k;
    int64_t tally[REDUCTION_MAX_CLASSES + 1];
    COHORT_CALL(COHORT_KERNELS(s->be, reduction_kernels)
                    ->label_tally(s->labels_dev, s->prev_dev, s->local, k, s->tally_dev));
    COHORT_CALL(s->be->copy_to_host(tally, s->tally_dev, (size_t)(k + 1) * sizeof *tally));
    COHORT_CALL(s->be->copy_within(s->prev_dev, s->labels_dev, (size_t)s->local));
    *changed = first_pass || tally[k] != 0;
    COHORT_CALL(team_max_int(s->team, changed));
    for (int c = 0; c < k; ++c) count[c] = (double)tally[c];
    return team_sum(s->team, count, k);
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
        COHORT_CALL(km_pass(s, centroids, k, 1));
        COHORT_CALL(km_cluster_sums(s, sums));
        COHORT_CALL(km_total_distance(s, inertia));
        if (!isfinite(*inertia))
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                               "k-means: features that are not finite (inertia %g)", *inertia);
        int changed = 0, distances_here = 0;
        double count[REDUCTION_MAX_CLASSES];
        COHORT_CALL(km_tally(s, it == 1, count, &changed));
        for (int c = 0; c < k; ++c) {
            if (count[c] > 0.0) {
                for (int64_t i = 0; i < n; ++i) centroids[c * n + i] = sums[c * n + i] / count[c];
                continue;
            }
            if (!distances_here++) COHORT_CALL(km_distances_to_host(s));
            int64_t far = 0; /* an empty cluster takes the farthest member */
            COHORT_CALL(km_farthest(s, &far));
            COHORT_CALL(km_shared_load(s, far, centroids + (size_t)c * (size_t)n));
        }
        *iterations = it;
        if (s->timed < (int)(sizeof s->iteration_seconds / sizeof s->iteration_seconds[0]))
            s->iteration_seconds[s->timed++] = cohort_seconds() - start;
        if (!changed) break;
        if (previous - *inertia <= s->opt->tol * *inertia) break;
        previous = *inertia;
    }
    return s->be->copy_to_host(s->labels, s->labels_dev, (size_t)s->local);
}

/* Restart r's result (s->labels, centroids) kept where its inertia is the lowest so far, the
 * previous best becoming the runner-up; else kept as the runner-up where it beats that. Labels
 * are kept at this rank's members' places. */
static void km_keep(const km *s, int r, double inertia, int iterations, const double *centroids,
                    kmeans_result *out)
{
    const size_t local = (size_t)s->local, kn = (size_t)s->opt->k * (size_t)s->n;
    if (inertia < out->inertia) {
        if (out->runner_up && r > 0) {
            memcpy(out->runner_up + s->lo, out->labels + s->lo, local);
            out->runner_up_inertia = out->inertia;
        }
        out->inertia = inertia, out->iterations = iterations, out->restart = r;
        memcpy(out->labels + s->lo, s->labels, local);
        memcpy(out->centroids, centroids, kn * sizeof(double));
    } else if (out->runner_up && inertia < out->runner_up_inertia) {
        memcpy(out->runner_up + s->lo, s->labels, local);
        out->runner_up_inertia = inertia;
    }
}

/* Every rank's labels (at their members' places in labels) on every rank. */
static int km_share_labels(const km *s, unsigned char *labels)
{
    if (s->team->size == 1) return COHORT_OK;
    size_t *bytes = malloc((size_t)s->team->size * sizeof *bytes);
    if (!bytes) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means labels");
    for (int r = 0; r < s->team->size; ++r) {
        const cohort_team rank = {.rank = r, .size = s->team->size};
        int64_t first, end;
        kmeans_share(s->members, &rank, &first, &end);
        bytes[r] = (size_t)(end - first);
    }
    int rc = s->team->gather(s->team->ctx, labels + s->lo, labels, bytes);
    free(bytes);
    return rc == COHORT_OK ? s->team->broadcast(s->team->ctx, labels, (size_t)s->members, 0) : rc;
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
    be->release(s->centroids_dev), be->release(s->labels_dev), be->release(s->prev_dev);
    be->release(s->fold_dev), be->release(s->dist_blocks_dev), be->release(s->tally_dev);
    free(s->host_stage), free(s->labels), free(s->dist), free(s->dist_blocks);
}

/* Resident features are loaded this many members at a time, so that the staging copies (host and
 * device) stay small beside the features themselves. */
enum { KM_STAGE_MEMBERS = 16384 };

/* This rank's features resident on the device when they (and a pass's working arrays) take at
 * most half the free memory, as run.c sizes its chunks. */
static int km_layout(km *s)
{
    const int64_t n = s->n, local = s->local > 0 ? s->local : 1;
    if (s->opt->chunk > 0) {
        s->chunk = s->staged = s->opt->chunk < local ? s->opt->chunk : local;
        s->resident = 0;
        return COHORT_OK;
    }
    size_t free_bytes = 0;
    COHORT_CALL(s->be->mem_info(&free_bytes, NULL));
    const double per_member = ((double)n + 2.0) * sizeof(double);
    if ((double)local * per_member <= 0.5 * (double)free_bytes) {
        s->chunk = local, s->resident = 1;
        s->staged = local < KM_STAGE_MEMBERS ? local : KM_STAGE_MEMBERS;
        return COHORT_OK;
    }
    /* streamed: the features and their member-major copy per member of a chunk, beside every
     * member's distance and two labels */
    const double kept = (double)local * (sizeof(double) + 2.0);
    int64_t fit = (int64_t)((0.5 * (double)free_bytes - kept) / (2.0 * (double)n * sizeof(double)));
    s->chunk = s->staged = fit < 1 ? 1 : fit < local ? fit : local;
    s->resident = 0;
    return COHORT_OK;
}

/* This rank's features on the device, loaded once in chunks of the staging size. */
static int km_load_resident(km *s)
{
    const int64_t n = s->n;
    for (int64_t first = s->lo, count = 0; first < s->hi; first += count) {
        count = s->hi - first < s->staged ? s->hi - first : s->staged;
        COHORT_CALL(s->load(s->ctx, first, count, s->host_stage));
        COHORT_CALL(
            s->be->copy_to_device(s->stage, s->host_stage, (size_t)(count * n) * sizeof(double)));
        COHORT_CALL(s->be->interleave(s->stage, n, 1.0, 0.0, 0, NULL, s->feat, n, s->local,
                                      first - s->lo, count));
    }
    return COHORT_OK;
}

/* The device memory of s (km's backend arrays), sized by its layout. */
static int km_alloc_device(km *s)
{
    const cohort_backend *be = s->be;
    const int64_t n = s->n, local = s->local > 0 ? s->local : 1;
    const size_t kn = (size_t)s->opt->k * (size_t)n, blocks = (size_t)s->share_blocks + 1;
    const size_t feat_values = (size_t)n * (size_t)(s->resident ? local : s->chunk);
    COHORT_CALL(be->alloc((void **)&s->feat, feat_values * sizeof(double)));
    COHORT_CALL(be->alloc((void **)&s->stage, (size_t)n * (size_t)s->staged * sizeof(double)));
    COHORT_CALL(be->alloc((void **)&s->labels_dev, (size_t)local));
    COHORT_CALL(be->alloc((void **)&s->prev_dev, (size_t)local));
    COHORT_CALL(be->alloc((void **)&s->dist_dev, (size_t)local * sizeof(double)));
    COHORT_CALL(be->alloc((void **)&s->centroids_dev, kn * sizeof(double)));
    COHORT_CALL(be->alloc((void **)&s->fold_dev, blocks * kn * sizeof(double)));
    COHORT_CALL(be->alloc((void **)&s->dist_blocks_dev, blocks * sizeof(double)));
    return be->alloc((void **)&s->tally_dev, (REDUCTION_MAX_CLASSES + 1) * sizeof(int64_t));
}

/* The working memory of s (host and device) and of the result, the features loaded where they
 * stay on the device. */
static int km_alloc(km *s, int restarts, kmeans_result *out)
{
    const int64_t n = s->n, members = s->members, local = s->local > 0 ? s->local : 1;
    const size_t kn = (size_t)s->opt->k * (size_t)n;
    COHORT_CALL(km_layout(s));
    out->labels = malloc((size_t)members);
    out->centroids = malloc(kn * sizeof(double));
    out->sizes = calloc((size_t)s->opt->k, sizeof(double));
    s->labels = malloc((size_t)local);
    s->dist = malloc((size_t)local * sizeof(double));
    s->dist_blocks = malloc((size_t)s->n_blocks * sizeof(double));
    s->host_stage = malloc((size_t)n * (size_t)s->staged * sizeof(double));
    if (restarts > 1) out->runner_up = malloc((size_t)members);
    if (!out->labels || !out->centroids || !out->sizes || !s->labels || !s->dist ||
        !s->dist_blocks || !s->host_stage || (restarts > 1 && !out->runner_up))
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means of %lld members", (long long)members);
    COHORT_CALL(km_alloc_device(s));
    return s->resident ? km_load_resident(s) : COHORT_OK;
}

/* The kept restart's sizes, canonical numbering and every rank's labels on every rank. */
static int km_result(km *s, double *scratch, kmeans_result *out)
{
    const int k = s->opt->k;
    COHORT_CALL(km_count(s, out->labels + s->lo, out->sizes));
    km_canonical(s->n, s->local, k, out->centroids, out->labels + s->lo, out->sizes, scratch);
    COHORT_CALL(km_share_labels(s, out->labels));
    if (out->runner_up) COHORT_CALL(km_share_labels(s, out->runner_up));
    out->resident = s->resident;
    qsort(s->iteration_seconds, (size_t)s->timed, sizeof(double), km_compare_double);
    out->seconds_per_iteration = s->timed ? s->iteration_seconds[s->timed / 2] : NAN;
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
    km s = {.be = be,
            .opt = opt,
            .team = opt->team ? opt->team : &team_alone,
            .n = n,
            .members = members,
            .n_blocks = (members + ORDERED_SUM_BLOCK - 1) / ORDERED_SUM_BLOCK,
            .load = load,
            .ctx = ctx};
    kmeans_share(members, s.team, &s.lo, &s.hi);
    s.local = s.hi - s.lo;
    s.block0 = s.lo / ORDERED_SUM_BLOCK;
    s.share_blocks = (s.hi + ORDERED_SUM_BLOCK - 1) / ORDERED_SUM_BLOCK - s.block0;
    const size_t kn = (size_t)opt->k * (size_t)n;
    double *centroids = malloc(kn * sizeof(double)), *sums = malloc(kn * sizeof(double));
    double *scratch = malloc(kn * sizeof(double));
    const int restarts = opt->initial ? 1 : opt->restarts;
    int rc = centroids && sums && scratch ? km_alloc(&s, restarts, out)
                                          : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means centroids");
    out->inertia = INFINITY;
    out->runner_up_inertia = restarts > 1 ? INFINITY : NAN;
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
    if (rc == COHORT_OK) rc = km_result(&s, scratch, out);
    km_free(&s);
    free(centroids), free(sums), free(scratch);
    if (rc != COHORT_OK && s.team->size > 1) { /* the other ranks wait in a collective */
        fprintf(stderr, "k-means on rank %d: %s\n", s.team->rank, cohort_error_message());
        s.team->abort(s.team->ctx, 1);
    }
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
