#include "plan.h"

#include <gsl/gsl_version.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"

enum { EXIT_FAILURE_RUNNING = 1, EXIT_BAD_INPUT = 2 };

/* The value of swept key j for global member g. */
double run_plan_swept_value(const run_plan *p, int j, int64_t g)
{
    const int64_t point = g / p->replicates;
    const int64_t index = p->grid ? (point / p->stride[j]) % p->sweep[j]->count : point;
    return p->sweep[j]->values[index];
}

/* The steps nearest t = 0, every, 2 every, ... and t_end, without repeats. */
static int64_t *event_steps(double every, const run_plan *p, int64_t *count)
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

/* Whether members g and h share every swept value the stepper holds (gamma, alpha, k, v). */
int run_plan_same_stepper(const run_plan *p, int64_t g, int64_t h)
{
    for (int j = 0; j < p->n_stepper_sweeps; ++j)
        if (run_plan_swept_value(p, p->stepper_sweep[j], g) !=
            run_plan_swept_value(p, p->stepper_sweep[j], h))
            return 0;
    return 1;
}

/* The [sweep] part of the plan: which keys, how members map to points, which keys the stepper
 * holds (its factor or its forcing is then rebuilt between groups of members). */
static int plan_sweeps(const cohort_config *c, run_plan *p, const char *model, char *err,
                       size_t len)
{
    size_t n_keys = 0;
    const config_key *schema = config_schema(&n_keys);
    const int forced = p->model.kind == MODEL1D_CAHN_HILLIARD_FORCED;
    const char *reads =
        p->two_d                                                                        ? "gamma, D"
        : p->model.kind == MODEL1D_DIFFUSION || p->model.kind == MODEL1D_HYPERDIFFUSION ? "alpha"
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
int run_plan_make(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    memset(p, 0, sizeof *p);
    const config_value *name = config_get(c, "model", "name"), *n = config_get(c, "grid", "n");
    p->model.kind = !strcmp(name->text, "diffusion1d")        ? MODEL1D_DIFFUSION
                    : !strcmp(name->text, "hyperdiffusion1d") ? MODEL1D_HYPERDIFFUSION
                    : !strcmp(name->text, "ch1d")             ? MODEL1D_CAHN_HILLIARD
                                                              : MODEL1D_CAHN_HILLIARD_FORCED;
    p->two_d = !strcmp(name->text, "ch2d");
    if (p->two_d) p->model.kind = MODEL1D_CAHN_HILLIARD; /* for the parameters it shares */
    const int64_t n_min = p->model.kind == MODEL1D_DIFFUSION ? 3 : 5;
    if (!p->two_d && n->integer < n_min) {
        snprintf(err, len, "%s: grid.n = %lld: %s needs grid.n >= %lld (the %s solver's minimum)",
                 n->origin, (long long)n->integer, name->text, (long long)n_min,
                 n_min == 3 ? "tridiagonal" : "pentadiagonal");
        return EXIT_BAD_INPUT;
    }
    p->model.n = n->integer;
    p->model.length = config_real(c, "grid", "length");
    if (p->two_d) { /* a member is nx x ny points, stored as one line of nx ny (row-major) */
        p->ch2d.nx = config_get(c, "grid", "nx")->integer;
        p->ch2d.ny = config_get(c, "grid", "ny")->integer;
        p->ch2d.length = p->model.length;
        p->ch2d.D = config_real(c, "model", "D");
        p->model.n = p->ch2d.nx * p->ch2d.ny;
        const config_value *kind = config_get(c, "initial", "kind");
        if (strcmp(kind->text, "uniform")) {
            snprintf(err, len, "%s: initial.kind = %s: ch2d starts from uniform noise only",
                     kind->origin, kind->text);
            return EXIT_BAD_INPUT;
        }
    }
    p->model.alpha = config_real(c, "model", "alpha");
    p->model.gamma = config_real(c, "model", "gamma");
    p->model.f0 = config_real(c, "model", "f0");
    p->model.k = config_real(c, "model", "k");
    p->model.v = config_real(c, "model", "v");
    const config_value *dt = config_get(c, "time", "dt"), *t_end = config_get(c, "time", "t_end");
    const double dx = p->model.length / (double)(p->two_d ? p->ch2d.nx : p->model.n);
    const double dt_wanted = dt->is_auto ? 0.1 * dx : dt->number;
    p->t_end = t_end->number;
    if (p->t_end < dt_wanted) {
        snprintf(err, len, "%s: time.t_end = %g is less than one step (time.dt = %g, from %s)",
                 t_end->origin, p->t_end, dt_wanted, dt->origin);
        return EXIT_BAD_INPUT;
    }
    /* t_end is reached exactly: dt shrinks by less than a step where t_end / dt is not whole */
    p->steps = (int64_t)ceil(p->t_end / dt_wanted * (1.0 - 1e-12));
    p->model.dt = p->t_end / (double)p->steps;
    p->ch2d.dt = p->model.dt;
    p->ch2d.gamma = p->model.gamma;
    /* records at t = 0, every, 2 every, ... (the nearest step) and at t_end; snapshots alike */
    p->record_step = event_steps(config_real(c, "time", "output_every"), p, &p->n_records);
    if (!strcmp(config_get(c, "output", "archive")->text, "snapshots"))
        p->snapshot_step =
            event_steps(config_real(c, "output", "snapshot_every"), p, &p->n_snapshots);
    if (!p->record_step || (p->n_snapshots == 0 && p->snapshot_step)) {
        snprintf(err, len, "out of memory");
        return EXIT_FAILURE_RUNNING;
    }
    const config_value *kind = config_get(c, "initial", "kind");
    p->ic.kind = !strcmp(kind->text, "uniform")  ? INITIAL_UNIFORM
                 : !strcmp(kind->text, "cosine") ? INITIAL_COSINE
                                                 : INITIAL_MODE;
    p->ic.amplitude = config_real(c, "initial", "amplitude");
    p->ic.mode = config_get(c, "initial", "mode")->integer;
    p->ic.seed = (uint64_t)config_get(c, "ensemble", "seed")->integer;
    p->mean = config_real(c, "initial", "mean");
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
void run_plan_free(run_plan *p)
{
    free(p->record_step);
    free(p->snapshot_step);
    p->record_step = p->snapshot_step = NULL;
}

void run_plan_output_spec(const run_plan *p, const char *model, const cohort_backend *be,
                          run_provenance *pv, output_spec *spec)
{
    char cuda[128];
    be->describe(pv->device, sizeof pv->device);
    cohort_cuda_versions(cuda, sizeof cuda);
    snprintf(pv->libraries, sizeof pv->libraries, "NetCDF-C %s; GSL %s; %s", nc_inq_libvers(),
             GSL_VERSION, cuda);
    spec->members = p->members;
    spec->n = p->model.n;
    spec->nx = p->two_d ? p->ch2d.nx : p->model.n;
    spec->ny = p->two_d ? p->ch2d.ny : 0;
    spec->length = p->model.length;
    spec->backend = be->name;
    spec->device = pv->device;
    spec->libraries = pv->libraries;
    spec->model = model;
    spec->seed = p->ic.seed;
    spec->n_params = p->n_sweeps;
    for (int j = 0; j < p->n_sweeps; ++j) {
        size_t n_keys;
        const config_key *k = &config_schema(&n_keys)[p->sweep[j]->key];
        snprintf(pv->keys[j], sizeof pv->keys[j], "%s.%s", k->section, k->name);
        spec->param_key[j] = pv->keys[j];
        spec->param_grid_count[j] = p->grid ? p->sweep[j]->count : 0;
        spec->param_values[j] = p->sweep[j]->values;
    }
}

int run_plan_write_parameters(const run_plan *p, cohort_output *out)
{
    if (p->n_sweeps == 0) return COHORT_OK;
    double *values = malloc((size_t)p->members * sizeof *values);
    if (!values) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "parameter values");
    int rc = COHORT_OK;
    for (int j = 0; j < p->n_sweeps && rc == COHORT_OK; ++j) {
        for (int64_t g = 0; g < p->members; ++g) values[g] = run_plan_swept_value(p, j, g);
        rc = output_write_parameter(out, j, values);
    }
    free(values);
    return rc;
}
