/* k-means (analysis/kmeans.h) on one backend: planted, well-separated clusters are recovered
 * exactly (up to the canonical numbering, which is checked too); Lloyd's iterations match a
 * brute-force reference step by step from the same starting centroids; labels, centroids and
 * inertia are bitwise the same for any chunking (streamed or resident); the same seed gives the
 * same labels; the backend's label tally counts as a plain loop does.
 * Usage: test_kmeans --backend cpu|cuda (77: no device). */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kmeans.h"
#include "analysis/reduction_kernels.h"
#include "backend/cohort_error.h"
#include "banded_reference.h"
#include "test_common.h"

typedef struct data {
    int64_t n, members;
    double *x; /* member-major */
} data;

static int load(void *ctx, int64_t first, int64_t count, double *dst)
{
    const data *d = ctx;
    memcpy(dst, d->x + first * d->n, (size_t)(count * d->n) * sizeof(double));
    return COHORT_OK;
}

/* Members around k centres of different spread (centre c: amplitude c + 1 times a random
 * pattern), noise 0.01, planted[j] the centre of member j. */
static void planted_data(gsl_rng *rng, data *d, int k, unsigned char *planted)
{
    double centre[4][40];
    for (int c = 0; c < k; ++c)
        for (int64_t i = 0; i < d->n; ++i)
            centre[c][i] = (double)(c + 1) * (gsl_rng_uniform(rng) * 2.0 - 1.0);
    for (int64_t j = 0; j < d->members; ++j) {
        planted[j] = (unsigned char)gsl_rng_uniform_int(rng, (unsigned long)k);
        for (int64_t i = 0; i < d->n; ++i)
            d->x[j * d->n + i] = centre[planted[j]][i] + 0.01 * (gsl_rng_uniform(rng) - 0.5);
    }
}

static double variance(const double *c, int64_t n)
{
    double m = 0.0, v = 0.0;
    for (int64_t i = 0; i < n; ++i) m += c[i] / (double)n;
    for (int64_t i = 0; i < n; ++i) v += (c[i] - m) * (c[i] - m);
    return v / (double)n;
}

/* Planted clusters of `members` members, clustered resident (chunk 0) and in the given chunks.
 * Over 16,384 members a resident run loads its features in several stages (KM_STAGE_MEMBERS). */
static void planted_case(const cohort_backend *be, gsl_rng *rng, int64_t members,
                         const int64_t *chunks, int n_chunks)
{
    const int k = 3;
    data d = {.n = 40, .members = members};
    d.x = malloc((size_t)(d.n * d.members) * sizeof(double));
    unsigned char *planted = malloc((size_t)d.members);
    planted_data(rng, &d, k, planted);
    kmeans_options opt = {.k = k, .restarts = 4, .max_iter = 100, .tol = 0.0, .seed = 7};
    kmeans_result first = {0};
    for (int c = 0; c < n_chunks; ++c) {
        opt.chunk = chunks[c];
        kmeans_result r;
        int rc = kmeans_run(be, d.n, d.members, load, &d, &opt, &r);
        EXPECT(rc == COHORT_OK, "chunk %lld: %s", (long long)chunks[c], cohort_error_detail());
        if (rc != COHORT_OK) continue;
        if (c == 0) {
            int map[3] = {-1, -1, -1}, exact = 1;
            for (int64_t j = 0; j < d.members; ++j) {
                if (map[planted[j]] < 0) map[planted[j]] = r.labels[j];
                exact &= map[planted[j]] == r.labels[j];
            }
            exact &= map[0] != map[1] && map[1] != map[2] && map[0] != map[2];
            EXPECT(exact, "planted clusters not recovered exactly");
            EXPECT(r.resident, "%lld x 40 features should stay on the device", (long long)members);
            for (int q = 1; q < k; ++q)
                EXPECT(variance(r.centroids + (q - 1) * d.n, d.n) <
                           variance(r.centroids + q * d.n, d.n),
                       "canonical order: centroid %d has the larger variance", q - 1);
            first = r;
            continue;
        }
        EXPECT(!memcmp(first.labels, r.labels, (size_t)d.members), "chunk %lld: other labels",
               (long long)chunks[c]);
        EXPECT(!memcmp(first.centroids, r.centroids, (size_t)(k * d.n) * sizeof(double)) &&
                   first.inertia == r.inertia,
               "chunk %lld: centroids or inertia differ (%.17g vs %.17g)", (long long)chunks[c],
               r.inertia, first.inertia);
        EXPECT(!r.resident, "chunk %lld given: streamed", (long long)chunks[c]);
        kmeans_result_free(&r);
    }
    opt.chunk = 0; /* the same seed again: the same labels */
    kmeans_result again;
    if (kmeans_run(be, d.n, d.members, load, &d, &opt, &again) == COHORT_OK) {
        EXPECT(first.labels && !memcmp(first.labels, again.labels, (size_t)d.members),
               "the same seed gave other labels");
        kmeans_result_free(&again);
    }
    kmeans_result_free(&first);
    free(d.x), free(planted);
}

/* Lloyd from the first k members as centroids, `steps` times, the plain way. */
static void reference_lloyd(const data *d, int k, int steps, double *c, unsigned char *labels)
{
    const int64_t n = d->n;
    memcpy(c, d->x, (size_t)(k * n) * sizeof(double));
    for (int s = 0; s < steps; ++s) {
        double sum[3][6] = {{0}}, count[3] = {0};
        for (int64_t j = 0; j < d->members; ++j) {
            int best = 0;
            double best_d = INFINITY;
            for (int q = 0; q < k; ++q) {
                double dd = 0.0;
                for (int64_t i = 0; i < n; ++i)
                    dd += (d->x[j * n + i] - c[q * n + i]) * (d->x[j * n + i] - c[q * n + i]);
                if (dd < best_d) best = q, best_d = dd;
            }
            labels[j] = (unsigned char)best;
            count[best] += 1.0;
            for (int64_t i = 0; i < n; ++i) sum[best][i] += d->x[j * n + i];
        }
        for (int q = 0; q < k; ++q)
            for (int64_t i = 0; i < n; ++i) c[q * n + i] = sum[q][i] / count[q];
    }
}

static void stepwise_case(const cohort_backend *be, gsl_rng *rng)
{
    const int k = 3;
    data d = {.n = 6, .members = 300};
    d.x = malloc((size_t)(d.n * d.members) * sizeof(double));
    for (int64_t j = 0; j < d.n * d.members; ++j) d.x[j] = gsl_rng_uniform(rng);
    double ref_c[3 * 6];
    unsigned char *ref_labels = malloc((size_t)d.members);
    for (int steps = 1; steps <= 5; ++steps) {
        reference_lloyd(&d, k, steps, ref_c, ref_labels);
        kmeans_options opt = {.k = k, .restarts = 1, .max_iter = steps, .initial = d.x};
        kmeans_result r;
        int rc = kmeans_run(be, d.n, d.members, load, &d, &opt, &r);
        EXPECT(rc == COHORT_OK, "step %d: %s", steps, cohort_error_detail());
        if (rc != COHORT_OK) continue;
        /* match each canonical cluster to the reference's by its centroid */
        int same = 1;
        double worst = 0.0;
        int map[3];
        for (int q = 0; q < k; ++q) {
            double best = INFINITY;
            map[q] = 0;
            for (int p = 0; p < k; ++p) {
                double dd = 0.0;
                for (int64_t i = 0; i < d.n; ++i)
                    dd = fmax(dd, fabs(r.centroids[q * d.n + i] - ref_c[p * d.n + i]));
                if (dd < best) best = dd, map[q] = p;
            }
            worst = fmax(worst, best);
        }
        for (int64_t j = 0; j < d.members; ++j) same &= map[r.labels[j]] == ref_labels[j];
        EXPECT(worst <= 1e-13, "step %d: centroids differ from the reference by %.3e", steps,
               worst);
        EXPECT(same, "step %d: labels differ from the reference", steps);
        kmeans_result_free(&r);
    }
    free(ref_labels), free(d.x);
}

/* label_tally against a host count, on random labels where about a third changed. */
static void tally_case(const cohort_backend *be, gsl_rng *rng)
{
    enum { COUNT = 100003, K = 5 };
    unsigned char *labels = malloc(2 * COUNT), *dev = NULL;
    int64_t expected[K + 1] = {0}, tally[K + 1], *tally_dev = NULL;
    for (int j = 0; j < COUNT; ++j) {
        labels[j] = (unsigned char)gsl_rng_uniform_int(rng, K);
        labels[COUNT + j] =
            gsl_rng_uniform(rng) < 0.3 ? (unsigned char)gsl_rng_uniform_int(rng, K) : labels[j];
        ++expected[labels[j]];
        expected[K] += labels[j] != labels[COUNT + j];
    }
    EXPECT(be->alloc((void **)&dev, 2 * COUNT) == COHORT_OK &&
               be->alloc((void **)&tally_dev, sizeof tally) == COHORT_OK &&
               be->copy_to_device(dev, labels, 2 * COUNT) == COHORT_OK &&
               COHORT_KERNELS(be, reduction_kernels)
                       ->label_tally(dev, dev + COUNT, COUNT, K, tally_dev) == COHORT_OK &&
               be->copy_to_host(tally, tally_dev, sizeof tally) == COHORT_OK,
           "%s", cohort_error_message());
    EXPECT(!memcmp(tally, expected, sizeof tally),
           "tally %lld %lld %lld %lld %lld, changed %lld; expected %lld %lld %lld %lld %lld, %lld",
           (long long)tally[0], (long long)tally[1], (long long)tally[2], (long long)tally[3],
           (long long)tally[4], (long long)tally[5], (long long)expected[0], (long long)expected[1],
           (long long)expected[2], (long long)expected[3], (long long)expected[4],
           (long long)expected[5]);
    be->release(dev), be->release(tally_dev), free(labels);
}

static void bad_input(const cohort_backend *be)
{
    data d = {.n = 2, .members = 3};
    double x[6] = {0};
    d.x = x;
    kmeans_options opt = {.k = 4, .restarts = 1, .max_iter = 10};
    kmeans_result r;
    EXPECT(kmeans_run(be, d.n, d.members, load, &d, &opt, &r) == COHORT_ERR_INVALID_ARGUMENT,
           "k > members accepted");
    opt.k = 2, opt.restarts = 0;
    EXPECT(kmeans_run(be, d.n, d.members, load, &d, &opt, &r) == COHORT_ERR_INVALID_ARGUMENT,
           "restarts = 0 accepted");
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    gsl_rng *rng = reference_rng_alloc("test_kmeans");
    static const int64_t chunks[] = {0, 1000, 7, 4999}, staged_chunks[] = {0, 16383, 20000};
    planted_case(be, rng, 5000, chunks, 4);
    planted_case(be, rng, 40000, staged_chunks, 3);
    stepwise_case(be, rng);
    tally_case(be, rng);
    bad_input(be);
    gsl_rng_free(rng);
    return test_summary();
}
