#include "clustering.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cluster_quality.h"
#include "analysis/flow_pattern.h"
#include "analysis/kmeans.h"
#include "backend/cohort_error.h"
#include "analysis/reduction_numerics.h"

/* The clustered members (index: their global numbers, ascending) as kmeans_run sees them:
 * members 0 .. active-1. */
typedef struct clustered_members {
    member_fields_fn fields;
    void *ctx;
    const int64_t *index;
    int64_t n;
    double *span; /* fields of a run of global members, between the first and last asked for */
    int64_t span_cap;
} clustered_members;

static int load_clustered(void *ctx, int64_t first, int64_t count, double *dst)
{
    clustered_members *f = ctx;
    const int64_t g0 = f->index[first], span = f->index[first + count - 1] - g0 + 1;
    if (span == count) return f->fields(f->ctx, g0, count, dst); /* no excluded member between */
    if (span > f->span_cap) {
        double *bigger = realloc(f->span, (size_t)(span * f->n) * sizeof(double));
        if (!bigger)
            return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "fields of %lld members", (long long)span);
        f->span = bigger, f->span_cap = span;
    }
    COHORT_CALL(f->fields(f->ctx, g0, span, f->span));
    for (int64_t j = 0; j < count; ++j)
        memcpy(dst + j * f->n, f->span + (f->index[first + j] - g0) * f->n,
               (size_t)f->n * sizeof(double));
    return COHORT_OK;
}

/* The silhouette's subsample: 1,024 members, fewer where a member's features are many, so that
 * its pairwise distances stay near 2^31 values' work (64 members at least). */
static int64_t silhouette_sample_size(int64_t n)
{
    const double fit = sqrt(2147483648.0 / (double)n);
    return fit >= 1024.0 ? 1024 : fit <= 64.0 ? 64 : (int64_t)fit;
}

/* The agreement of the kept restart with the runner-up and the silhouette over a seeded
 * subsample of the clustered members (features loaded one member at a time). */
static int clustering_quality(const run_plan *p, const kmeans_result *r, int k, int64_t active,
                              clustered_members *f, cohort_output *out, double *silhouette)
{
    const double agreement =
        r->runner_up ? cluster_adjusted_rand(r->labels, r->runner_up, active, k) : NAN;
    const int64_t want = silhouette_sample_size(p->n);
    int64_t *pick = malloc((size_t)(want < active ? want : active) * sizeof *pick);
    unsigned char *labels = malloc((size_t)(want < active ? want : active));
    const int64_t count = pick ? cluster_sample(p->ic.seed, active, want, pick) : 0;
    double *x = malloc((size_t)(count > 0 ? count : 1) * (size_t)p->n * sizeof *x);
    int rc =
        pick && labels && x ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "silhouette subsample");
    for (int64_t j = 0; j < count && rc == COHORT_OK; ++j) {
        labels[j] = r->labels[pick[j]];
        rc = load_clustered(f, pick[j], 1, x + j * p->n);
        pick[j] = f->index[pick[j]]; /* stored as the global member */
    }
    if (rc == COHORT_OK) rc = cluster_silhouette(x, p->n, count, labels, k, silhouette);
    if (rc == COHORT_OK) rc = output_write_kmeans_quality(out, agreement, *silhouette, pick, count);
    free(pick), free(labels), free(x);
    return rc;
}

clustering_options clustering_options_from_plan(const run_plan *p)
{
    const clustering_options opt = {.k = p->kmeans_k,
                                    .restarts = p->kmeans_restarts,
                                    .max_iter = p->kmeans_max_iter,
                                    .tol = p->kmeans_tol,
                                    .tool = "cohort run"};
    return opt;
}

int clustering_run(const cohort_backend *be, const run_plan *p, const clustering_options *opt,
                   member_fields_fn fields, void *ctx, const unsigned char *excluded,
                   cohort_output *out)
{
    const kmeans_options kopt = {.k = opt->k,
                                 .restarts = opt->restarts,
                                 .max_iter = opt->max_iter,
                                 .tol = opt->tol,
                                 .seed = p->ic.seed};
    int64_t *index = malloc((size_t)p->members * sizeof *index), active = 0;
    unsigned char *labels = malloc((size_t)p->members);
    if (!index || !labels) {
        free(index), free(labels);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means labels");
    }
    for (int64_t m = 0; m < p->members; ++m)
        if (!excluded[m]) index[active++] = m;
    if (active < kopt.k) {
        fprintf(stderr,
                "%s: k-means skipped: %lld members did not diverge, fewer than %d clusters\n",
                opt->tool, (long long)active, kopt.k);
        free(index), free(labels);
        return COHORT_OK;
    }
    clustered_members f = {fields, ctx, index, p->n, NULL, 0};
    kmeans_result r;
    const double start = cohort_seconds();
    int rc = kmeans_run(be, p->n, active, load_clustered, &f, &kopt, &r);
    if (rc != COHORT_OK) {
        free(index), free(labels), free(f.span);
        return rc;
    }
    memset(labels, REDUCTION_SKIP, (size_t)p->members);
    for (int64_t j = 0; j < active; ++j) labels[index[j]] = r.labels[j];
    char meanings[512];
    rc = flow_pattern_names(p->model->statistics && p->model->statistics->flow_regimes, &r, kopt.k,
                            p->n, active, load_clustered, &f, 65536, meanings, sizeof meanings);
    unsigned char *map = NULL;
    if (output_has_label_map(out)) {
        const int64_t n1 = p->sweep[0]->count, n2 = p->sweep[1]->count;
        map = malloc((size_t)(n1 * n2));
        if (!map && rc == COHORT_OK) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "label map");
        for (int64_t point = 0; map && point < n1 * n2; ++point)
            map[point] = kmeans_mode_label(labels + point * p->replicates, p->replicates, kopt.k);
    }
    if (rc == COHORT_OK)
        rc = output_write_kmeans(out, labels, r.centroids, r.sizes, r.inertia, r.iterations,
                                 meanings, map);
    double silhouette = NAN;
    const double quality_start = cohort_seconds();
    if (rc == COHORT_OK) rc = clustering_quality(p, &r, kopt.k, active, &f, out, &silhouette);
    const double quality_seconds = cohort_seconds() - quality_start;
    if (rc == COHORT_OK && !opt->quiet)
        fprintf(stderr,
                "k-means: %d clusters (%s) of %lld members, inertia %.6g after %d "
                "iterations, silhouette %.3f (%.2f s of it), %.2f s%s\n",
                kopt.k, meanings, (long long)active, r.inertia, r.iterations, silhouette,
                quality_seconds, cohort_seconds() - start,
                r.resident ? "" : " (features streamed)");
    free(map), free(index), free(labels), free(f.span);
    kmeans_result_free(&r);
    return rc;
}
