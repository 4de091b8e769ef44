#include "results/clustering.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cluster_quality.h"
#include "analysis/flow_pattern.h"
#include "analysis/kmeans.h"
#include "analysis/reduction_numerics.h"
#include "backend/cohort_error.h"
#include "report.h"

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

/* The silhouette's seeded subsample of the clustered members, with their features. */
typedef struct silhouette_sample {
    int64_t count, n;
    int64_t *pick;         /* clustered members (0 .. active-1), ascending */
    double *x;             /* count x n features */
    unsigned char *labels; /* scratch: the subsample's labels */
} silhouette_sample;

static void sample_free(silhouette_sample *s)
{
    free(s->pick), free(s->x), free(s->labels);
}

/* Draws the subsample (the run's seed) and loads its features one member at a time: on rank 0
 * of a team, which alone computes the silhouette (the others keep an empty sample). */
static int sample_load(const run_plan *p, const cohort_team *team, int64_t active,
                       clustered_members *f, silhouette_sample *s)
{
    const int64_t want = silhouette_sample_size(p->n), most = want < active ? want : active;
    *s = (silhouette_sample){.n = p->n};
    if (team->rank != 0) return COHORT_OK;
    s->pick = malloc((size_t)most * sizeof *s->pick);
    s->labels = malloc((size_t)most);
    s->x = malloc((size_t)most * (size_t)p->n * sizeof *s->x);
    if (!s->pick || !s->labels || !s->x)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "silhouette subsample");
    s->count = cluster_sample(p->ic.seed, active, want, s->pick);
    for (int64_t j = 0; j < s->count; ++j)
        COHORT_CALL(load_clustered(f, s->pick[j], 1, s->x + j * p->n));
    return COHORT_OK;
}

/* The mean silhouette of the subsample under the clustered members' labels, computed on rank 0
 * and sent to every rank. */
static int sample_silhouette(const cohort_team *team, silhouette_sample *s,
                             const unsigned char *labels, int k, double *sil)
{
    for (int64_t j = 0; j < s->count; ++j) s->labels[j] = labels[s->pick[j]];
    if (team->rank == 0) COHORT_CALL(cluster_silhouette(s->x, s->n, s->count, s->labels, k, sil));
    return team->broadcast(team->ctx, sil, sizeof *sil, 0);
}

/* analysis.kmeans = auto's largest k: CLUSTERING_AUTO_MAX_K, at most the clustered members */
static int auto_largest_k(int64_t active)
{
    return active < CLUSTERING_AUTO_MAX_K ? (int)active : CLUSTERING_AUTO_MAX_K;
}

/* k-means with opt->k clusters; with opt->k_auto, the k in 2 .. CLUSTERING_AUTO_MAX_K (at most
 * the members) of the highest mean silhouette, the lowest k among equals, by_k[k - 2] each k's
 * silhouette. *r, *k and *sil: the kept result. */
static int clustering_fit(const cohort_backend *be, const run_plan *p,
                          const clustering_options *opt, int64_t active, clustered_members *f,
                          silhouette_sample *sample, kmeans_result *r, int *k, double *sil,
                          double *by_k)
{
    kmeans_options kopt = {.k = opt->k,
                           .restarts = opt->restarts,
                           .max_iter = opt->max_iter,
                           .tol = opt->tol,
                           .seed = p->ic.seed,
                           .team = opt->team};
    const int last = opt->k_auto ? auto_largest_k(active) : opt->k;
    *sil = -INFINITY, *k = 0;
    for (int kk = opt->k_auto ? 2 : opt->k; kk <= last; ++kk) {
        kmeans_result trial;
        kopt.k = kk;
        double s = NAN;
        COHORT_CALL(kmeans_run(be, p->n, active, load_clustered, f, &kopt, &trial));
        int rc = sample_silhouette(kopt.team, sample, trial.labels, kk, &s);
        if (opt->k_auto) by_k[kk - 2] = s;
        if (rc == COHORT_OK && (*k == 0 || (isfinite(s) && s > *sil))) {
            if (*k) kmeans_result_free(r);
            *r = trial, *k = kk, *sil = isfinite(s) ? s : -INFINITY;
        } else {
            kmeans_result_free(&trial);
        }
        if (rc != COHORT_OK) return rc;
    }
    if (!isfinite(*sil)) *sil = NAN;
    return COHORT_OK;
}

clustering_options clustering_options_from_plan(const run_plan *p)
{
    const clustering_options opt = {.k = p->kmeans_k,
                                    .k_auto = p->kmeans_auto,
                                    .restarts = p->kmeans_restarts,
                                    .max_iter = p->kmeans_max_iter,
                                    .tol = p->kmeans_tol};
    return opt;
}

/* The labels of every member (the excluded ones the fill value), the names, the label map, the
 * measures and, for k chosen, the criterion of each k, into out (rank 0 of a team; the names are
 * the team's work). */
static int clustering_write(const run_plan *p, const clustering_options *opt,
                            const kmeans_result *r, int k, double sil, const double *by_k,
                            int64_t active, clustered_members *f, const silhouette_sample *sample,
                            cohort_output *out, char *meanings, size_t len)
{
    COHORT_CALL(flow_pattern_names(p->model->statistics && p->model->statistics->flow_regimes, r, k,
                                   p->n, active, load_clustered, f, 65536, opt->team, meanings,
                                   len));
    if (opt->team->rank != 0) return COHORT_OK;
    unsigned char *labels = malloc((size_t)p->members), *map = NULL;
    int64_t *sampled = malloc((size_t)(sample->count > 0 ? sample->count : 1) * sizeof *sampled);
    if (!labels || !sampled) {
        free(labels), free(sampled);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means labels");
    }
    for (int64_t j = 0; j < sample->count; ++j) sampled[j] = f->index[sample->pick[j]];
    memset(labels, REDUCTION_SKIP, (size_t)p->members);
    for (int64_t j = 0; j < active; ++j) labels[f->index[j]] = r->labels[j];
    int rc = COHORT_OK;
    if (output_has_label_map(out)) {
        const int64_t n1 = p->sweep[0]->count, n2 = p->sweep[1]->count;
        map = malloc((size_t)(n1 * n2));
        if (!map) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "label map");
        for (int64_t point = 0; map && point < n1 * n2; ++point)
            map[point] = kmeans_mode_label(labels + point * p->replicates, p->replicates, k);
    }
    if (rc == COHORT_OK)
        rc = output_write_kmeans(out, k, labels, r->centroids, r->sizes, r->inertia, r->iterations,
                                 meanings, map);
    const double agreement =
        r->runner_up ? cluster_adjusted_rand(r->labels, r->runner_up, active, k) : NAN;
    const int candidates = opt->k_auto ? auto_largest_k(active) - 1 : 0; /* k = 2, 3, ... */
    if (rc == COHORT_OK)
        rc = output_write_kmeans_quality(out, agreement, sil, sampled, sample->count, by_k,
                                         candidates);
    free(labels), free(map), free(sampled);
    return rc;
}

/* Where the model has a length: each cluster's mean length and its 95% interval (every rank of
 * the team reads its share), written and said by rank 0 under the clusters' names. */
static int clustering_lengths(const run_plan *p, const clustering_options *opt,
                              const kmeans_result *r, int k, int64_t active, clustered_members *f,
                              const char *meanings, cohort_output *out)
{
    const cohort_model_statistics *st = p->model->statistics;
    if (!st) return COHORT_OK;
    double mean[REDUCTION_MAX_CLASSES], ci95[2 * REDUCTION_MAX_CLASSES];
    COHORT_CALL(
        flow_pattern_lengths(r, k, p->n, active, load_clustered, f, 65536, opt->team, mean, ci95));
    if (opt->team->rank != 0) return COHORT_OK;
    COHORT_CALL(output_write_cluster_lengths(out, st->length_name, k, mean, ci95));
    if (opt->quiet) return COHORT_OK;
    char text[1024] = "";
    const char *name = meanings;
    for (int c = 0; c < k; ++c) {
        const size_t used = strlen(text), name_len = strcspn(name, " ");
        snprintf(text + used, sizeof text - used, "%s%.*s %.4g [%.4g, %.4g] (%.0f members)",
                 c ? "; " : "", (int)name_len, name, mean[c], ci95[2 * c], ci95[2 * c + 1],
                 r->sizes[c]);
        name += name_len + (name[name_len] == ' ');
    }
    report(REPORT_RESULT, "%s by cluster, mean and 95%% interval: %s", st->length_name, text);
    return COHORT_OK;
}

/* The members that did not diverge (index: ascending global numbers), rank 0's flags sent to
 * every rank of the team. */
static int clustered_index(const run_plan *p, const cohort_team *team,
                           const unsigned char *excluded, int64_t *index, int64_t *active)
{
    unsigned char *flags = malloc((size_t)p->members);
    if (!flags) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means members");
    if (team->rank == 0) memcpy(flags, excluded, (size_t)p->members);
    const int rc = team->broadcast(team->ctx, flags, (size_t)p->members, 0);
    *active = 0;
    for (int64_t m = 0; rc == COHORT_OK && m < p->members; ++m)
        if (!flags[m]) index[(*active)++] = m;
    free(flags);
    return rc;
}

/* clustering_run, every rank of opt->team taking part (out: rank 0's) */
static int clustering_team_run(const cohort_backend *be, const run_plan *p,
                               const clustering_options *opt, member_fields_fn fields, void *ctx,
                               const unsigned char *excluded, cohort_output *out)
{
    const int root = opt->team->rank == 0;
    int64_t *index = malloc((size_t)p->members * sizeof *index), active = 0;
    if (!index) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means members");
    int rc = clustered_index(p, opt->team, excluded, index, &active);
    const int fewest = opt->k_auto ? 2 : opt->k;
    if (rc == COHORT_OK && active < fewest) {
        if (root)
            report(REPORT_NOTE,
                   "k-means skipped: %lld members did not diverge, fewer than %d clusters",
                   (long long)active, fewest);
        free(index);
        return COHORT_OK;
    }
    clustered_members f = {fields, ctx, index, p->n, NULL, 0};
    silhouette_sample sample = {0};
    kmeans_result r = {0};
    int k = 0;
    double sil = NAN, by_k[CLUSTERING_AUTO_MAX_K - 1];
    const double start = cohort_seconds();
    if (rc == COHORT_OK) rc = sample_load(p, opt->team, active, &f, &sample);
    if (rc == COHORT_OK) rc = clustering_fit(be, p, opt, active, &f, &sample, &r, &k, &sil, by_k);
    char meanings[512] = "";
    if (rc == COHORT_OK)
        rc = clustering_write(p, opt, &r, k, sil, by_k, active, &f, &sample, out, meanings,
                              sizeof meanings);
    char ranks[64] = "";
    if (opt->team->size > 1) snprintf(ranks, sizeof ranks, " over %d ranks", opt->team->size);
    if (rc == COHORT_OK && !opt->quiet && root)
        report(REPORT_RESULT,
               "k-means: %d clusters%s (%s) of %lld members%s, inertia %.6g after %d "
               "iterations, silhouette %.3f, %.2f s%s",
               k, opt->k_auto ? " (chosen by silhouette)" : "", meanings, (long long)active, ranks,
               r.inertia, r.iterations, sil, cohort_seconds() - start,
               r.resident ? "" : " (features streamed)");
    if (rc == COHORT_OK) rc = clustering_lengths(p, opt, &r, k, active, &f, meanings, out);
    sample_free(&sample);
    free(index), free(f.span);
    if (k) kmeans_result_free(&r);
    return rc;
}

/* A team's ranks other than 0 learn from it whether a clustering begins (1) or none will (0). */
static int team_word(const cohort_team *team, int word)
{
    const int rc = team->broadcast(team->ctx, &word, sizeof word, 0);
    return rc == COHORT_OK ? word : 0;
}

int clustering_run(const cohort_backend *be, const run_plan *p, const clustering_options *opt,
                   member_fields_fn fields, void *ctx, const unsigned char *excluded,
                   cohort_output *out)
{
    clustering_options o = *opt;
    if (!o.team) o.team = &team_alone;
    if (o.team->size > 1) team_word(o.team, 1); /* the others are in clustering_follow */
    const int rc = clustering_team_run(be, p, &o, fields, ctx, excluded, out);
    if (rc != COHORT_OK && o.team->size > 1) { /* the others may wait in a collective */
        report(REPORT_ERROR, "k-means: %s", cohort_error_message());
        o.team->abort(o.team->ctx, 1);
    }
    return rc;
}

int clustering_follow(const cohort_backend *be, const run_plan *p, const clustering_options *opt,
                      member_fields_fn fields, void *ctx)
{
    while (team_word(opt->team, 0)) {
        const int rc = clustering_team_run(be, p, opt, fields, ctx, NULL, NULL);
        if (rc != COHORT_OK) {
            report(REPORT_ERROR, "k-means on rank %d: %s", opt->team->rank, cohort_error_message());
            opt->team->abort(opt->team->ctx, 1);
        }
    }
    return COHORT_OK;
}

void clustering_team_done(const cohort_team *team)
{
    if (team && team->size > 1) team_word(team, 0);
}
