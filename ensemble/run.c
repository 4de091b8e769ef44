#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <gsl/gsl_fit.h>
#include <gsl/gsl_statistics_double.h>
#include <gsl/gsl_version.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/flow_pattern.h"
#include "analysis/kmeans.h"
#include "analysis/moments.h"
#include "analysis/structure_factor.h"
#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "backend/reduction_numerics.h"
#include "initial.h"
#include "models/model1d.h"
#include "output.h"

enum { EXIT_FAILURE_RUNNING = 1, EXIT_BAD_INPUT = 2 };

typedef struct run_features {
    const double *values; /* member-major, every member */
    const int64_t *index; /* the members clustered (those that did not diverge) */
    int64_t n;
} run_features;

/* The resolved plan of a run. */
typedef struct plan {
    model1d_params model;
    initial1d ic;
    double mean; /* initial.mean: every member's conserved mean */
    int64_t members, chunk, steps;
    double t_end;
    int64_t n_records;
    int64_t *record_step; /* step after which record r is taken (0 = the initial state) */
    int64_t n_snapshots;  /* output.archive = snapshots */
    int64_t *snapshot_step;
    /* [sweep]: member g is replicate g % replicates of point g / replicates; in a grid design
     * the first swept key varies slowest */
    int n_sweeps, grid;
    const config_sweep *sweep[CONFIG_MAX_SWEEPS];
    int64_t stride[CONFIG_MAX_SWEEPS], replicates;
    int mean_sweep, amplitude_sweep, f0_sweep; /* per-member values: index into sweep, or -1 */
    int n_stepper_sweeps, stepper_sweep[CONFIG_MAX_SWEEPS]; /* keys the stepper holds */
} plan;

/* The value of swept key j for global member g. */
static double swept_value(const plan *p, int j, int64_t g)
{
    const int64_t point = g / p->replicates;
    const int64_t index = p->grid ? (point / p->stride[j]) % p->sweep[j]->count : point;
    return p->sweep[j]->values[index];
}

/* The steps nearest t = 0, every, 2 every, ... and t_end, without repeats. */
static int64_t *event_steps(double every, const plan *p, int64_t *count)
{
    const int64_t most = (int64_t)floor(p->t_end / every) + 2;
    int64_t *steps = malloc((size_t)most * sizeof *steps);
    *count = 0;
    for (int64_t r = 0; steps && r < most; ++r) {
        int64_t step = (int64_t)llround(fmin((double)r * every, p->t_end) / p->model.dt);
        if (step > p->steps) step = p->steps;
        if (*count > 0 && step <= steps[*count - 1]) continue;
        steps[(*count)++] = step;
        if (step == p->steps) break;
    }
    return steps;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double real(const cohort_config *c, const char *section, const char *name)
{
    return config_get(c, section, name)->number;
}

/* Whether members g and h share every swept value the stepper holds (gamma, alpha, k, v). */
static int same_stepper(const plan *p, int64_t g, int64_t h)
{
    for (int j = 0; j < p->n_stepper_sweeps; ++j)
        if (swept_value(p, p->stepper_sweep[j], g) != swept_value(p, p->stepper_sweep[j], h))
            return 0;
    return 1;
}

/* The [sweep] part of the plan: which keys, how members map to points, which keys the stepper
 * holds (its factor or its forcing is then rebuilt between groups of members). */
static int plan_sweeps(const cohort_config *c, plan *p, const char *model, char *err, size_t len)
{
    size_t n_keys = 0;
    const config_key *schema = config_schema(&n_keys);
    const int forced = p->model.kind == MODEL1D_CAHN_HILLIARD_FORCED;
    const char *reads =
        p->model.kind == MODEL1D_DIFFUSION || p->model.kind == MODEL1D_HYPERDIFFUSION ? "alpha"
        : forced ? "gamma, f0, k, v"
                 : "gamma";
    p->mean_sweep = p->amplitude_sweep = p->f0_sweep = -1;
    p->n_stepper_sweeps = 0;
    p->replicates = c->replicates;
    p->grid = c->design_grid;
    p->n_sweeps = c->n_sweeps;
    int64_t points = 1;
    for (int j = 0; j < c->n_sweeps; ++j) {
        const config_sweep *sw = &c->sweeps[j];
        const config_key *k = &schema[sw->key];
        p->sweep[j] = sw;
        if (!strcmp(k->section, "initial")) {
            if (!strcmp(k->name, "mean"))
                p->mean_sweep = j;
            else
                p->amplitude_sweep = j;
        } else if (forced && !strcmp(k->name, "f0")) {
            p->f0_sweep = j;
        } else if (strstr(reads, k->name) && (strcmp(k->name, "k") || forced) &&
                   (strcmp(k->name, "v") || forced)) {
            p->stepper_sweep[p->n_stepper_sweeps++] = j;
        } else {
            snprintf(err, len, "%s: sweep.%s.%s: %s does not read model.%s (it reads model.%s)",
                     sw->origin, k->section, k->name, model, k->name, reads);
            return EXIT_BAD_INPUT;
        }
        if (!p->grid && sw->count != c->sweeps[0].count) {
            snprintf(err, len,
                     "%s: a zip design needs sweeps of equal length: %s.%s has %lld "
                     "values, %s.%s (%s) has %lld",
                     sw->origin, k->section, k->name, (long long)sw->count,
                     schema[c->sweeps[0].key].section, schema[c->sweeps[0].key].name,
                     c->sweeps[0].origin, (long long)c->sweeps[0].count);
            return EXIT_BAD_INPUT;
        }
        if (p->grid && points > ((int64_t)1 << 40) / sw->count) {
            snprintf(err, len, "%s: the grid of sweeps exceeds 2^40 points", sw->origin);
            return EXIT_BAD_INPUT;
        }
        points = p->grid ? points * sw->count : sw->count;
    }
    for (int j = c->n_sweeps - 1; j >= 0; --j)
        p->stride[j] = j == c->n_sweeps - 1 ? 1 : p->stride[j + 1] * c->sweeps[j + 1].count;
    if (c->n_sweeps > 0) {
        if (points > ((int64_t)1 << 40) / p->replicates) {
            snprintf(err, len, "[sweep]: points x replicates exceeds 2^40 members");
            return EXIT_BAD_INPUT;
        }
        p->members = points * p->replicates; /* ensemble.members is not used */
    }
    if (p->amplitude_sweep >= 0) p->ic.amplitude = 1.0; /* per member instead */
    return 0;
}

/* Checks what the schema cannot (relations between keys, what this version can run) and derives
 * the plan. Messages name the key and where its value came from. */
static int make_plan(const cohort_config *c, plan *p, char *err, size_t len)
{
    memset(p, 0, sizeof *p);
    const config_value *name = config_get(c, "model", "name"), *n = config_get(c, "grid", "n");
    p->model.kind = !strcmp(name->text, "diffusion1d")        ? MODEL1D_DIFFUSION
                    : !strcmp(name->text, "hyperdiffusion1d") ? MODEL1D_HYPERDIFFUSION
                    : !strcmp(name->text, "ch1d")             ? MODEL1D_CAHN_HILLIARD
                                                              : MODEL1D_CAHN_HILLIARD_FORCED;
    const int64_t n_min = p->model.kind == MODEL1D_DIFFUSION ? 3 : 5;
    if (n->integer < n_min) {
        snprintf(err, len, "%s: grid.n = %lld: %s needs grid.n >= %lld (the %s solver's minimum)",
                 n->origin, (long long)n->integer, name->text, (long long)n_min,
                 n_min == 3 ? "tridiagonal" : "pentadiagonal");
        return EXIT_BAD_INPUT;
    }
    p->model.n = n->integer;
    p->model.length = real(c, "grid", "length");
    p->model.alpha = real(c, "model", "alpha");
    p->model.gamma = real(c, "model", "gamma");
    p->model.f0 = real(c, "model", "f0");
    p->model.k = real(c, "model", "k");
    p->model.v = real(c, "model", "v");
    const config_value *dt = config_get(c, "time", "dt"), *t_end = config_get(c, "time", "t_end");
    const double dt_wanted = dt->is_auto ? 0.1 * p->model.length / (double)p->model.n : dt->number;
    p->t_end = t_end->number;
    if (p->t_end < dt_wanted) {
        snprintf(err, len, "%s: time.t_end = %g is less than one step (time.dt = %g, from %s)",
                 t_end->origin, p->t_end, dt_wanted, dt->origin);
        return EXIT_BAD_INPUT;
    }
    /* t_end is reached exactly: dt shrinks by less than a step where t_end / dt is not whole */
    p->steps = (int64_t)ceil(p->t_end / dt_wanted * (1.0 - 1e-12));
    p->model.dt = p->t_end / (double)p->steps;
    /* records at t = 0, every, 2 every, ... (the nearest step) and at t_end; snapshots alike */
    p->record_step = event_steps(real(c, "time", "output_every"), p, &p->n_records);
    if (!strcmp(config_get(c, "output", "archive")->text, "snapshots"))
        p->snapshot_step = event_steps(real(c, "output", "snapshot_every"), p, &p->n_snapshots);
    if (!p->record_step || (p->n_snapshots == 0 && p->snapshot_step)) {
        snprintf(err, len, "out of memory");
        return EXIT_FAILURE_RUNNING;
    }
    const config_value *kind = config_get(c, "initial", "kind");
    p->ic.kind = !strcmp(kind->text, "uniform")  ? INITIAL_UNIFORM
                 : !strcmp(kind->text, "cosine") ? INITIAL_COSINE
                                                 : INITIAL_MODE;
    p->ic.amplitude = real(c, "initial", "amplitude");
    p->ic.mode = config_get(c, "initial", "mode")->integer;
    p->ic.seed = (uint64_t)config_get(c, "ensemble", "seed")->integer;
    p->mean = real(c, "initial", "mean");
    p->members = config_get(c, "ensemble", "members")->integer;
    const int rc = plan_sweeps(c, p, name->text, err, len);
    const config_value *kmeans = config_get(c, "analysis", "kmeans");
    if (rc == 0 && kmeans->integer > p->members) {
        snprintf(err, len, "%s: analysis.kmeans = %lld clusters, more than the %lld members",
                 kmeans->origin, (long long)kmeans->integer, (long long)p->members);
        return 2;
    }
    return rc;
}

/* Members per chunk: ensemble.chunk, or as many as fit in half the free memory. */
static int64_t chunk_size(const cohort_config *c, const cohort_backend *be, const plan *p)
{
    const config_value *chunk = config_get(c, "ensemble", "chunk");
    if (!chunk->is_auto) return chunk->integer < p->members ? chunk->integer : p->members;
    size_t free_bytes = 0;
    if (be->mem_info(&free_bytes, NULL) != COHORT_OK) free_bytes = (size_t)1 << 30;
    /* state, scratch, noise, moments, mean per member, and the structure factor's spectra */
    double per_member = (3.0 * (double)p->model.n + 4.0) * sizeof(double);
    if (config_get(c, "analysis", "structure_factor")->integer)
        per_member += structure_factor_bytes_per_member(p->model.n);
    int64_t fit = (int64_t)(0.5 * (double)free_bytes / per_member);
    if (fit < 1) fit = 1;
    return fit < p->members ? fit : p->members;
}

typedef struct progress {
    int quiet, tty;
    double start, last;
    int64_t total_member_steps;
} progress;

static void progress_show(progress *pr, int64_t members_done, int64_t members, double t,
                          int64_t member_steps, int final)
{
    if (pr->quiet) return;
    const double now = seconds_now();
    if (!final && now - pr->last < (pr->tty ? 0.2 : 10.0)) return;
    pr->last = now;
    const double rate = member_steps / fmax(now - pr->start, 1e-9);
    const double eta = (double)(pr->total_member_steps - member_steps) / fmax(rate, 1e-9);
    fprintf(stderr, "%s%lld/%lld members, t = %.4g, %.3g member-steps/s, ETA %.0f s%s",
            pr->tty ? "\r" : "", (long long)members_done, (long long)members, t, rate, eta,
            pr->tty && !final ? "   " : "\n");
    fflush(stderr);
}

/* The chunk's states as fields (model1d_field, into the scratch array, which is free between
 * steps), member-major, on the host: what archives, snapshots and k-means features hold. */
static int states_to_host(const cohort_backend *be, const double *state, double *scratch,
                          const double *mean, double *host_state, double *member_major, int64_t n,
                          int64_t chunk, int64_t count)
{
    COHORT_CALL(be->model1d_field(state, mean, n, chunk, 0, count, scratch));
    COHORT_CALL(be->copy_to_host(host_state, scratch, (size_t)(n * chunk) * sizeof(double)));
    for (int64_t k = 0; k < count; ++k)
        for (int64_t i = 0; i < n; ++i) member_major[k * n + i] = host_state[i * chunk + k];
    return COHORT_OK;
}

/* The per-member values of one record: ell, <C>, and whether the member is finite. */
static void member_values(const double *moments2, int64_t count, double *ell, double *mass,
                          unsigned char *finite)
{
    for (int64_t k = 0; k < count; ++k) {
        const double c = moments2[k], c2 = moments2[count + k];
        finite[k] = isfinite(c) && isfinite(c2);
        ell[k] = 1.0 / (1.0 - c2);
        mass[k] = c;
    }
}

static int load_features(void *ctx, int64_t first, int64_t count, double *dst)
{
    const run_features *f = ctx;
    for (int64_t j = 0; j < count; ++j)
        memcpy(dst + j * f->n, f->values + f->index[first + j] * f->n,
               (size_t)f->n * sizeof(double));
    return COHORT_OK;
}

/* analysis.kmeans on the final fields of the members that did not diverge (the others keep the
 * label's fill value), with the names of the labels and, for a grid of two swept keys, the label
 * map. */
static int run_kmeans(const cohort_config *c, const cohort_backend *be, const plan *p,
                      cohort_output *out, const double *values, const unsigned char *diverged,
                      int quiet)
{
    const kmeans_options opt = {
        .k = (int)config_get(c, "analysis", "kmeans")->integer,
        .restarts = (int)config_get(c, "analysis", "kmeans_restarts")->integer,
        .max_iter = (int)config_get(c, "analysis", "kmeans_max_iter")->integer,
        .tol = real(c, "analysis", "kmeans_tol"),
        .seed = p->ic.seed};
    int64_t *index = malloc((size_t)p->members * sizeof *index), active = 0;
    unsigned char *labels = malloc((size_t)p->members);
    if (!index || !labels) {
        free(index), free(labels);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means labels");
    }
    for (int64_t m = 0; m < p->members; ++m)
        if (!diverged[m]) index[active++] = m;
    if (active < opt.k) {
        fprintf(stderr,
                "cohort run: k-means skipped: %lld members did not diverge, fewer than "
                "analysis.kmeans = %d\n",
                (long long)active, opt.k);
        free(index), free(labels);
        return COHORT_OK;
    }
    run_features f = {values, index, p->model.n};
    kmeans_result r;
    const double start = seconds_now();
    int rc = kmeans_run(be, p->model.n, active, load_features, &f, &opt, &r);
    if (rc != COHORT_OK) {
        free(index), free(labels);
        return rc;
    }
    memset(labels, REDUCTION_SKIP, (size_t)p->members);
    for (int64_t j = 0; j < active; ++j) labels[index[j]] = r.labels[j];
    char meanings[512];
    rc = flow_pattern_names(config_get(c, "model", "name")->text, &r, opt.k, p->model.n, active,
                            load_features, &f, 65536, meanings, sizeof meanings);
    unsigned char *map = NULL;
    if (output_has_label_map(out)) {
        const int64_t n1 = p->sweep[0]->count, n2 = p->sweep[1]->count;
        map = malloc((size_t)(n1 * n2));
        if (!map && rc == COHORT_OK) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "label map");
        for (int64_t point = 0; map && point < n1 * n2; ++point)
            map[point] = kmeans_mode_label(labels + point * p->replicates, p->replicates, opt.k);
    }
    if (rc == COHORT_OK)
        rc = output_write_kmeans(out, labels, r.centroids, r.sizes, r.inertia, r.iterations,
                                 meanings, map);
    if (rc == COHORT_OK && !quiet)
        fprintf(stderr,
                "k-means: %d clusters (%s) of %lld members, inertia %.6g after %d "
                "iterations, %.2f s%s\n",
                opt.k, meanings, (long long)active, r.inertia, r.iterations, seconds_now() - start,
                r.resident ? "" : " (features streamed)");
    free(map), free(index), free(labels);
    kmeans_result_free(&r);
    return rc;
}

int run_ensemble(const cohort_config *c, const run_options *opt)
{
    char err[1024] = "";
    plan p;
    int status = make_plan(c, &p, err, sizeof err);
    if (status) {
        fprintf(stderr, "cohort run: %s\n", err);
        free(p.record_step);
        free(p.snapshot_step);
        return status;
    }
    const cohort_backend *be = NULL;
    if (cohort_backend_get(opt->backend, &be) != COHORT_OK) {
        fprintf(stderr, "cohort run: --backend %s: %s\n", opt->backend, cohort_error_detail());
        free(p.record_step);
        free(p.snapshot_step);
        return EXIT_BAD_INPUT;
    }
    const int64_t n = p.model.n, members = p.members;
    p.chunk = chunk_size(c, be, &p);

    /* the file first: an unwritable path is the user's to fix, before any work is done */
    char device[256] = "", cuda[128], libraries[512], history[2048], stamp[64];
    char param_keys[CONFIG_MAX_SWEEPS][2 * CONFIG_TEXT];
    be->describe(device, sizeof device);
    cohort_cuda_versions(cuda, sizeof cuda);
    snprintf(libraries, sizeof libraries, "NetCDF-C %s; GSL %s; %s", nc_inq_libvers(), GSL_VERSION,
             cuda);
    const time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(history, sizeof history, "%s %s", stamp, opt->command_line);
    char *config_text = config_render(c);
    const char *path = opt->output_path ? opt->output_path : config_get(c, "output", "path")->text;
    const int archive = !strcmp(config_get(c, "output", "archive")->text, "final");
    output_spec spec = {
        .path = path,
        .members = members,
        .n = n,
        .length = p.model.length,
        .archive_final = archive,
        .n_snapshots = p.n_snapshots,
        .member_series = (int)config_get(c, "output", "member_series")->integer,
        .archive_float = !strcmp(config_get(c, "output", "precision")->text, "float"),
        .chunk_members = p.chunk,
        .structure_factor = (int)config_get(c, "analysis", "structure_factor")->integer,
        .kmeans_k = (int)config_get(c, "analysis", "kmeans")->integer,
        .title = "cohort ensemble",
        .history = history,
        .source = opt->version,
        .config = config_text,
        .backend = be->name,
        .device = device,
        .libraries = libraries,
        .model = config_get(c, "model", "name")->text,
        .seed = p.ic.seed};
    spec.n_params = p.n_sweeps;
    for (int j = 0; j < p.n_sweeps; ++j) {
        size_t n_keys;
        const config_key *k = &config_schema(&n_keys)[p.sweep[j]->key];
        snprintf(param_keys[j], sizeof param_keys[j], "%s.%s", k->section, k->name);
        spec.param_key[j] = param_keys[j];
        spec.param_grid_count[j] = p.grid ? p.sweep[j]->count : 0;
        spec.param_values[j] = p.sweep[j]->values;
    }
    cohort_output *out = NULL;
    if (output_create(&spec, &out) != COHORT_OK) {
        fprintf(stderr, "cohort run: %s (from %s)\n", cohort_error_detail(),
                opt->output_path ? "-o" : config_get(c, "output", "path")->origin);
        free(config_text);
        free(p.record_step);
        free(p.snapshot_step);
        return EXIT_BAD_INPUT;
    }

    /* working memory */
    const int64_t chunk = p.chunk;
    model1d_stepper *stepper = NULL;
    double *state = NULL, *scratch = NULL, *noise = NULL, *mean = NULL, *moments_dev = NULL;
    double *host_moments = malloc((size_t)(2 * chunk) * sizeof(double));
    double *ell = malloc((size_t)chunk * sizeof(double)),
           *mass = malloc((size_t)chunk * sizeof(double));
    const int states = archive || p.n_snapshots > 0 || spec.kmeans_k > 0;
    double *host_state = states ? malloc((size_t)(n * chunk) * sizeof(double)) : NULL;
    double *member_major = states ? malloc((size_t)(n * chunk) * sizeof(double)) : NULL;
    double *host_mean = malloc((size_t)chunk * sizeof(double));
    double *host_amplitude = malloc((size_t)chunk * sizeof(double)), *amplitude = NULL;
    double *host_f0 = malloc((size_t)chunk * sizeof(double)), *f0 = NULL;
    unsigned char *finite = malloc((size_t)chunk), *diverged = calloc((size_t)members, 1);
    moments_blocks *ell_stats = calloc((size_t)p.n_records, sizeof *ell_stats);
    moments_blocks *mass_stats = calloc((size_t)p.n_records, sizeof *mass_stats);
    int rc = COHORT_OK;
    if (!host_moments || !ell || !mass || !host_mean || !host_amplitude || !host_f0 || !finite ||
        !diverged || !ell_stats || !mass_stats || (states && (!host_state || !member_major)))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "host buffers for chunks of %lld members",
                         (long long)chunk);
    for (int64_t r = 0; r < p.n_records && rc == COHORT_OK; ++r) {
        rc = moments_blocks_alloc(&ell_stats[r], members);
        if (rc == COHORT_OK) rc = moments_blocks_alloc(&mass_stats[r], members);
    }
    if (rc == COHORT_OK && p.n_stepper_sweeps == 0)
        rc = model1d_stepper_alloc(be, &p.model, &stepper);
    if (rc == COHORT_OK) rc = be->alloc((void **)&state, (size_t)(n * chunk) * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&scratch, (size_t)(n * chunk) * sizeof(double));
    if (rc == COHORT_OK)
        rc = be->alloc((void **)&noise,
                       (size_t)initial1d_scratch_values(&p.ic, n, chunk) * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&mean, (size_t)chunk * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&amplitude, (size_t)chunk * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&f0, (size_t)chunk * sizeof(double));
    if (rc == COHORT_OK)
        rc = be->alloc((void **)&moments_dev, (size_t)(2 * chunk) * sizeof(double));
    structure_factor *sf = NULL;
    if (rc == COHORT_OK && spec.structure_factor)
        rc = structure_factor_alloc(be, n, p.model.length, chunk, chunk, members, p.n_records, &sf);
    /* k-means features: every member's final field as archived (rounded to float with
     * output.precision = float, so that `cohort analyze` of the archive finds the same labels) */
    double *features = NULL;
    if (rc == COHORT_OK && spec.kmeans_k > 0 &&
        !(features = malloc((size_t)members * (size_t)n * sizeof(double))))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means features of %lld members x %lld points",
                         (long long)members, (long long)n);

    progress pr = {opt->quiet, isatty(2), seconds_now(), 0.0, members * p.steps};
    int64_t member_steps = 0;
    int64_t stepper_member = -1; /* a member whose swept stepper keys the stepper has */
    for (int64_t m0 = 0, count = 0; m0 < members && rc == COHORT_OK; m0 += count) {
        count = m0 + chunk <= members ? chunk : members - m0;
        if (p.n_stepper_sweeps > 0) { /* a chunk never spans two steppers */
            int64_t k = 1;
            while (k < count && same_stepper(&p, m0, m0 + k)) ++k;
            count = k;
            if (!stepper || !same_stepper(&p, m0, stepper_member)) {
                model1d_stepper_free(stepper);
                stepper = NULL;
                for (int q = 0; q < p.n_stepper_sweeps; ++q) {
                    size_t n_keys;
                    const int j = p.stepper_sweep[q];
                    const char *key = config_schema(&n_keys)[p.sweep[j]->key].name;
                    double *field = !strcmp(key, "alpha")   ? &p.model.alpha
                                    : !strcmp(key, "gamma") ? &p.model.gamma
                                    : !strcmp(key, "k")     ? &p.model.k
                                                            : &p.model.v;
                    *field = swept_value(&p, j, m0);
                }
                rc = model1d_stepper_alloc(be, &p.model, &stepper);
                stepper_member = m0;
                if (rc != COHORT_OK) break;
            }
        }
        /* the chunk's arrays hold its members at columns [0, count), leading dimension chunk */
        for (int64_t k = 0; k < count; ++k) {
            host_mean[k] = p.mean_sweep >= 0 ? swept_value(&p, p.mean_sweep, m0 + k) : p.mean;
            if (p.amplitude_sweep >= 0)
                host_amplitude[k] = swept_value(&p, p.amplitude_sweep, m0 + k);
            if (p.f0_sweep >= 0) host_f0[k] = swept_value(&p, p.f0_sweep, m0 + k);
        }
        rc = be->copy_to_device(mean, host_mean, (size_t)count * sizeof(double));
        if (rc == COHORT_OK && p.amplitude_sweep >= 0)
            rc = be->copy_to_device(amplitude, host_amplitude, (size_t)count * sizeof(double));
        if (rc == COHORT_OK && p.f0_sweep >= 0)
            rc = be->copy_to_device(f0, host_f0, (size_t)count * sizeof(double));
        if (rc == COHORT_OK)
            rc = initial1d_fill(be, &p.ic, p.amplitude_sweep >= 0 ? amplitude : NULL, state, noise,
                                n, chunk, 0, m0, count);
        /* step to each record and snapshot time in turn */
        int64_t step = 0, r = 0, q = 0;
        while (rc == COHORT_OK && (r < p.n_records || q < p.n_snapshots)) {
            int64_t next = r < p.n_records ? p.record_step[r] : p.steps;
            if (q < p.n_snapshots && p.snapshot_step[q] < next) next = p.snapshot_step[q];
            for (; step < next && rc == COHORT_OK; ++step) {
                rc = model1d_step(stepper, &state, &scratch, mean, p.f0_sweep >= 0 ? f0 : NULL,
                                  chunk, 0, count);
                member_steps += count;
                if ((step & 63) == 0)
                    progress_show(&pr, m0, members, (step + 1) * p.model.dt, member_steps, 0);
            }
            if (rc == COHORT_OK && r < p.n_records && p.record_step[r] == next) {
                rc = be->model1d_moments(state, mean, n, chunk, 0, count, moments_dev);
                if (rc == COHORT_OK) rc = be->synchronize();
                if (rc == COHORT_OK)
                    rc = be->copy_to_host(host_moments, moments_dev,
                                          (size_t)(2 * count) * sizeof(double));
                if (rc != COHORT_OK) break;
                member_values(host_moments, count, ell, mass, finite);
                for (int64_t k = 0; k < count; ++k) diverged[m0 + k] |= !finite[k];
                rc = moments_blocks_add(&ell_stats[r], m0, count, ell, finite);
                if (rc == COHORT_OK)
                    rc = moments_blocks_add(&mass_stats[r], m0, count, mass, finite);
                if (rc == COHORT_OK && spec.member_series)
                    rc = output_write_member_ell(out, r, m0, count, ell);
                if (rc == COHORT_OK && sf) /* the field as archived, in the scratch array */
                    rc = be->model1d_field(state, mean, n, chunk, 0, count, scratch);
                if (rc == COHORT_OK && sf)
                    rc = structure_factor_add(sf, r, scratch, 0, count, m0, finite);
                ++r;
            }
            if (rc == COHORT_OK && q < p.n_snapshots && p.snapshot_step[q] == next) {
                rc = states_to_host(be, state, scratch, mean, host_state, member_major, n, chunk,
                                    count);
                if (rc == COHORT_OK)
                    rc = output_write_snapshot(out, q, next * p.model.dt, m0, count, member_major);
                ++q;
            }
        }
        if (rc == COHORT_OK && (archive || features))
            rc =
                states_to_host(be, state, scratch, mean, host_state, member_major, n, chunk, count);
        if (rc == COHORT_OK && archive) rc = output_write_state(out, m0, count, member_major);
        if (rc == COHORT_OK && features)
            for (int64_t v = 0; v < count * n; ++v)
                features[m0 * n + v] =
                    spec.archive_float ? (double)(float)member_major[v] : member_major[v];
        progress_show(&pr, m0 + count, members, p.t_end, member_steps, m0 + count == members);
    }

    /* statistics, fit, flags */
    double *spectrum = sf ? malloc((size_t)(n / 2 + 1) * sizeof(double)) : NULL;
    if (sf && !spectrum && rc == COHORT_OK) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "spectrum");
    double *fit_x = malloc((size_t)p.n_records * sizeof(double));
    double *fit_y = malloc((size_t)p.n_records * sizeof(double));
    size_t n_fit = 0;
    int64_t n_diverged = 0;
    const double fit_from = real(c, "analysis", "fit_from");
    for (int64_t r = 0; r < p.n_records && rc == COHORT_OK; ++r) {
        const moments e = moments_blocks_total(&ell_stats[r]);
        const moments m = moments_blocks_total(&mass_stats[r]);
        const double t = p.record_step[r] * p.model.dt;
        rc = output_write_record(out, r, t, e.count ? e.mean : NAN, moments_variance(&e),
                                 moments_sem(&e), m.count ? m.mean : NAN, (int64_t)e.count);
        if (rc == COHORT_OK && sf && spectrum) {
            double k1 = NAN;
            rc = structure_factor_result(sf, r, (int64_t)e.count, spectrum, &k1);
            if (rc == COHORT_OK) rc = output_write_spectrum(out, r, spectrum, k1);
        }
        if (t > 0.0 && t >= fit_from && e.count > 0 && isfinite(e.mean) && fit_x && fit_y)
            fit_x[n_fit] = log(t), fit_y[n_fit++] = e.mean;
    }
    for (int64_t m = 0; m < members; ++m) n_diverged += diverged ? diverged[m] : 0;
    if (rc == COHORT_OK) rc = output_write_diverged(out, 0, members, diverged);
    for (int j = 0; j < p.n_sweeps && rc == COHORT_OK; ++j) {
        double *values = malloc((size_t)members * sizeof *values);
        if (!values) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "parameter values");
        for (int64_t g = 0; values && g < members; ++g) values[g] = swept_value(&p, j, g);
        if (rc == COHORT_OK) rc = output_write_parameter(out, j, values);
        free(values);
    }
    if (rc == COHORT_OK) rc = output_put_double(out, "dt", p.model.dt);
    if (rc == COHORT_OK && features) { /* the run's device arrays make room for the features */
        be->release(state), be->release(scratch), be->release(noise);
        state = scratch = noise = NULL;
        structure_factor_free(sf);
        sf = NULL;
        rc = run_kmeans(c, be, &p, out, features, diverged, opt->quiet);
    }
    if (rc == COHORT_OK && n_fit >= 3) {
        double c0, c1, cov00, cov01, cov11, sumsq;
        gsl_fit_linear(fit_x, 1, fit_y, 1, n_fit, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
        const double r = gsl_stats_correlation(fit_x, 1, fit_y, 1, n_fit);
        rc = output_put_double(out, "ell_vs_log_t_slope", c1);
        if (rc == COHORT_OK) rc = output_put_double(out, "ell_vs_log_t_intercept", c0);
        if (rc == COHORT_OK) rc = output_put_double(out, "ell_vs_log_t_r", r);
        if (rc == COHORT_OK && !opt->quiet)
            fprintf(stderr, "ell_mean = %.4g + %.4g ln t (r = %.4f) from t = %g on\n", c0, c1, r,
                    fit_from);
    }
    const int ok = rc == COHORT_OK;
    if (!ok) fprintf(stderr, "cohort run: %s\n%s\n", cohort_strerror(rc), cohort_error_detail());
    const int closed = output_close(out, ok);
    if (ok && closed != COHORT_OK) fprintf(stderr, "cohort run: %s\n", cohort_error_detail());
    if (ok && closed == COHORT_OK && !opt->quiet)
        fprintf(stderr,
                "wrote %s: %lld members x %lld points, %lld steps of dt = %.6g to t = %g, "
                "%lld records, %lld diverged, backend %s (%s), %.2f s\n",
                path, (long long)members, (long long)n, (long long)p.steps, p.model.dt, p.t_end,
                (long long)p.n_records, (long long)n_diverged, be->name, device,
                seconds_now() - pr.start);
    for (int64_t r = 0; r < p.n_records; ++r) {
        if (ell_stats) moments_blocks_free(&ell_stats[r]);
        if (mass_stats) moments_blocks_free(&mass_stats[r]);
    }
    be->release(state);
    be->release(scratch);
    be->release(noise);
    be->release(mean);
    be->release(amplitude);
    be->release(f0);
    be->release(moments_dev);
    structure_factor_free(sf);
    free(features), free(spectrum);
    model1d_stepper_free(stepper);
    free(ell_stats), free(mass_stats), free(host_moments), free(ell), free(mass);
    free(host_state), free(member_major), free(host_mean), free(host_amplitude), free(host_f0),
        free(finite), free(diverged);
    free(fit_x), free(fit_y), free(config_text), free(p.record_step), free(p.snapshot_step);
    return ok && closed == COHORT_OK ? 0 : EXIT_FAILURE_RUNNING;
}
