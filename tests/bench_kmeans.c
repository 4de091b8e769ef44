/* bench-kmeans: the time of one Lloyd iteration (nearest centroid, ordered per-cluster sums, new
 * centroids) over features resident on the device, at the seed's Fig. 13 size by default
 * (589,824 members x 512 points, K = 3). Features: three smooth patterns (a flat level, a
 * +-1 square wave, a cosine) plus uniform noise of 0.3, drawn per member from a fixed-seed GSL
 * generator, so Lloyd's iterations do real work; the median iteration time over every restart
 * comes from kmeans_run. Usage: bench-kmeans [--backend B] [--members M] [--n N] [--k K]
 * [--restarts R] [--iterations I] */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kmeans.h"
#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "bench_check.h"

typedef struct features {
    int64_t n;
    gsl_rng *rng;
} features;

/* Members are loaded once, in order, when resident (the bench refuses a streamed layout). */
static int load(void *ctx, int64_t first, int64_t count, double *dst)
{
    const features *f = ctx;
    for (int64_t j = 0; j < count; ++j) {
        const int pattern = (int)((first + j) % 3);
        for (int64_t i = 0; i < f->n; ++i) {
            const double x = 6.283185307179586 * (double)i / (double)f->n;
            const double base = pattern == 0   ? 0.5
                                : pattern == 1 ? (sin(x) > 0 ? 1.0 : -1.0)
                                               : cos(x);
            dst[j * f->n + i] = base + 0.3 * (2.0 * gsl_rng_uniform(f->rng) - 1.0);
        }
    }
    return COHORT_OK;
}

int main(int argc, char **argv)
{
    const char *backend = "auto";
    long long members = 589824, n = 512, k = 3, restarts = 3, iterations = 10;
    static const char usage[] = "usage: bench-kmeans [--backend auto|cpu|cuda] [--members M] "
                                "[--n N] [--k K] [--restarts R] [--iterations I] (each >= 1)\n";
    for (int i = 1; i < argc; i += 2) {
        long long *count = !strcmp(argv[i], "--members")      ? &members
                           : !strcmp(argv[i], "--n")          ? &n
                           : !strcmp(argv[i], "--k")          ? &k
                           : !strcmp(argv[i], "--restarts")   ? &restarts
                           : !strcmp(argv[i], "--iterations") ? &iterations
                                                              : NULL;
        if (!count && strcmp(argv[i], "--backend") != 0) {
            fprintf(stderr, "bench-kmeans: unknown option %s\n%s", argv[i], usage);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench-kmeans: %s needs a value\n%s", argv[i], usage);
            return 2;
        }
        if (!count) {
            backend = argv[i + 1];
        } else if ((*count = atoll(argv[i + 1])) < 1) {
            fprintf(stderr, "bench-kmeans: %s %s: must be >= 1\n%s", argv[i], argv[i + 1], usage);
            return 2;
        }
    }
    const cohort_backend *be = NULL;
    if (cohort_backend_get(backend, &be) != COHORT_OK) {
        fprintf(stderr, "bench-kmeans: %s\n", cohort_error_detail());
        return 2;
    }
    char device[256];
    be->describe(device, sizeof device);
    features f = {n, gsl_rng_alloc(gsl_rng_mt19937)};
    const kmeans_options opt = {
        .k = (int)k, .restarts = (int)restarts, .max_iter = (int)iterations, .tol = 0.0, .seed = 1};
    kmeans_result r;
    const double copy_gbs = bench_copy_bandwidth(be);
    const int rc = kmeans_run(be, n, members, load, &f, &opt, &r);
    gsl_rng_free(f.rng);
    if (rc != COHORT_OK) {
        fprintf(stderr, "bench-kmeans: %s\n%s\n", cohort_strerror(rc), cohort_error_detail());
        return 1;
    }
    const double bytes = (double)members * (double)n * sizeof(double);
    printf("device: %s\n", device);
    printf("k-means: %lld members x %lld points (%.3f GB of double features, %s), K = %lld\n",
           members, n, 1e-9 * bytes, r.resident ? "resident" : "streamed", k);
    printf("kept restart %d: %d iterations, inertia %.6g, sizes", r.restart, r.iterations,
           r.inertia);
    for (int c = 0; c < (int)k; ++c) printf(" %.0f", r.sizes[c]);
    printf("\none Lloyd iteration (median over %lld restarts): %.3f ms = %.3g GB/s of features\n",
           restarts, 1e3 * r.seconds_per_iteration, 1e-9 * bytes / r.seconds_per_iteration);
    char workload[128];
    snprintf(workload, sizeof workload,
             "k-means, a Lloyd iteration, %lld members x %lld, K = %lld (%s)", members, n, k,
             be->name);
    /* the floor: one read of the features (half a copy's read + write) */
    bench_table_row("bench-kmeans", workload, 1e3 * r.seconds_per_iteration,
                    r.resident ? bytes / (0.5 * copy_gbs * 1e6) : 0.0,
                    "one read of the features at the copy bandwidth", NULL, 0.0);
    kmeans_result_free(&r);
    return 0;
}
