#include "config/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/moments.h"
#include "backend/cohort_error.h"
#include "exit_status.h"

/* The value of swept key j for global member g. */
double run_plan_swept_value(const run_plan *p, int j, int64_t g)
{
    const int64_t point = g / p->replicates;
    const config_sweep *sw = p->sweep[j];
    if (design_space_filling(p->design)) {
        const double x = design_coordinate(p->design, p->ic.seed, p->n_sweeps, (uint64_t)p->points,
                                           (uint64_t)point, j);
        const double v = sw->log ? exp(log(sw->lo) + (log(sw->hi) - log(sw->lo)) * x)
                                 : sw->lo + (sw->hi - sw->lo) * x;
        return fmin(fmax(v, sw->lo), sw->hi); /* rounding at the ends */
    }
    const int64_t index = p->design == DESIGN_GRID ? (point / p->stride[j]) % sw->count : point;
    return sw->values[index];
}

/* The steps nearest t = 0, every, 2 every, ... and t_end, without repeats. */
static int64_t *event_steps(double every, const run_plan *p, int64_t *count)
{
    const int64_t most = (int64_t)floor(p->t_end / every) + 2;
    int64_t *steps = malloc((size_t)most * sizeof *steps);
    *count = 0;
    for (int64_t r = 0; steps && r < most; ++r) {
        int64_t step = (int64_t)llround(fmin((double)r * every, p->t_end) / p->values.dt);
        if (step > p->steps) step = p->steps;
        if (*count > 0 && step <= steps[*count - 1]) continue;
        steps[(*count)++] = step;
        if (step == p->steps) break;
    }
    return steps;
}

double run_plan_record_time(const run_plan *p, int64_t r)
{
    return (double)p->record_step[r] * p->values.dt;
}

int run_plan_record_fitted(const run_plan *p, int64_t r)
{
    const double t = run_plan_record_time(p, r);
    return t > 0.0 && t >= p->fit_from * (1.0 - 1e-9);
}

double run_plan_fit_start(const run_plan *p)
{
    for (int64_t r = 0; r < p->n_records; ++r)
        if (run_plan_record_fitted(p, r)) return run_plan_record_time(p, r);
    return NAN;
}

/* The longest period that t_end, time.output_every and (with snapshots) output.snapshot_every
 * are all whole multiples of, to 1e-9 relative, among their smallest divided by 1 .. 1000; 0
 * where there is none (the records then fall on the step nearest their times). */
static double event_period(const cohort_config *c, double t_end)
{
    double v[3] = {t_end, config_real(c, "time", "output_every"), 0.0};
    int n = 2;
    if (!strcmp(config_get(c, "output", "archive")->text, "snapshots"))
        v[n++] = config_real(c, "output", "snapshot_every");
    double smallest = v[0];
    for (int i = 1; i < n; ++i) smallest = fmin(smallest, v[i]);
    for (int j = 1; j <= 1000; ++j) {
        const double period = smallest / j;
        int whole = 1;
        for (int i = 0; i < n && whole; ++i) {
            const double q = v[i] / period;
            whole = fabs(q - nearbyint(q)) <= 1e-9 * q;
        }
        if (whole) return period;
    }
    return 0.0;
}

/* Whether members g and h share every swept value the stepper holds. */
int run_plan_same_stepper(const run_plan *p, int64_t g, int64_t h)
{
    for (int j = 0; j < p->n_stepper_sweeps; ++j)
        if (run_plan_swept_value(p, p->stepper_sweep[j], g) !=
            run_plan_swept_value(p, p->stepper_sweep[j], h))
            return 0;
    return 1;
}

cohort_model_values run_plan_stepper_values(const run_plan *p, int64_t g)
{
    cohort_model_values v = p->values;
    for (int q = 0; q < p->n_stepper_sweeps; ++q)
        v.param[p->stepper_param[q]] = run_plan_swept_value(p, p->stepper_sweep[q], g);
    return v;
}

cohort_model_values run_plan_member_values(const run_plan *p, int64_t g)
{
    cohort_model_values v = run_plan_stepper_values(p, g);
    if (p->member_param_sweep >= 0)
        v.param[p->model->per_member_param] = run_plan_swept_value(p, p->member_param_sweep, g);
    if (p->member_factor_sweep >= 0)
        v.param[p->member_factor_param] = run_plan_swept_value(p, p->member_factor_sweep, g);
    return v;
}

int64_t run_plan_unstable_members(const run_plan *p, double *worst_limit, double *mean_lo,
                                  double *mean_hi)
{
    *worst_limit = INFINITY, *mean_lo = INFINITY, *mean_hi = -INFINITY;
    const int64_t points = p->members / p->replicates;
    if (!p->model->dt_limit || points > ((int64_t)1 << 28)) return 0;
    int64_t unstable = 0;
    for (int64_t point = 0; point < points; ++point) {
        const int64_t g = point * p->replicates;
        const double mean =
            p->mean_sweep >= 0 ? run_plan_swept_value(p, p->mean_sweep, g) : p->mean;
        const cohort_model_values v = run_plan_member_values(p, g);
        const double limit = p->model->dt_limit(p->model, &v, mean);
        if (!(p->values.dt > limit)) continue;
        unstable += p->replicates;
        *worst_limit = fmin(*worst_limit, limit);
        *mean_lo = fmin(*mean_lo, mean), *mean_hi = fmax(*mean_hi, mean);
    }
    return unstable;
}

/* Where swept key j's values fit the design: lists for grid and zip, ranges for the
 * space-filling designs (and a zip's lists of equal length). 0, or 2 naming the key. */
static int sweep_fits_design(const cohort_config *c, const run_plan *p, int j, char *err,
                             size_t len)
{
    size_t n_keys = 0;
    const config_key *schema = config_schema(&n_keys);
    const config_sweep *sw = &c->sweeps[j], *first = &c->sweeps[0];
    const config_key *k = &schema[sw->key];
    const char *design = design_name(p->design);
    if (design_space_filling(p->design) && !sw->range) {
        snprintf(err, len,
                 "%s: sweep.%s.%s = %s: design = %s draws each member's value from a range: "
                 "give lo:hi (uniform) or lo:hi:log (log-uniform)",
                 sw->origin, k->section, k->name, sw->spec, design);
        return EXIT_BAD_INPUT;
    }
    if (!design_space_filling(p->design) && sw->range) {
        snprintf(err, len,
                 "%s: sweep.%s.%s = %s: a range is for design = lhs, sobol or saltelli; "
                 "design = %s takes start:stop:count or v1,v2,...",
                 sw->origin, k->section, k->name, sw->spec, design);
        return EXIT_BAD_INPUT;
    }
    if (p->design == DESIGN_ZIP && sw->count != first->count) {
        snprintf(err, len,
                 "%s: a zip design needs sweeps of equal length: %s.%s has %lld "
                 "values, %s.%s (%s) has %lld",
                 sw->origin, k->section, k->name, (long long)sw->count, schema[first->key].section,
                 schema[first->key].name, first->origin, (long long)first->count);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* Which per-member value or stepper parameter swept key j sets. 0, or 2 naming the key. */
static int sweep_target(const cohort_config *c, run_plan *p, int j, char *err, size_t len)
{
    size_t n_keys = 0;
    const config_key *schema = config_schema(&n_keys);
    const cohort_model *m = p->model;
    const config_sweep *sw = &c->sweeps[j];
    const config_key *k = &schema[sw->key];
    const int param = strcmp(k->section, "model") ? -1 : cohort_model_param_index(m, k->name);
    if (!strcmp(k->section, "initial")) {
        if (!strcmp(k->name, "mean"))
            p->mean_sweep = j;
        else
            p->amplitude_sweep = j;
    } else if (param >= 0 && param == m->per_member_param) {
        p->member_param_sweep = j;
    } else if (param >= 0) {
        p->stepper_param[p->n_stepper_sweeps] = param;
        p->stepper_sweep[p->n_stepper_sweeps++] = j;
    } else {
        char reads[256] = "";
        for (int q = 0; q < m->n_params; ++q)
            snprintf(reads + strlen(reads), sizeof reads - strlen(reads), "%s%s", q ? ", " : "",
                     m->params[q].key);
        snprintf(err, len, "%s: sweep.%s.%s: %s does not read model.%s (it reads model.%s)",
                 sw->origin, k->section, k->name, m->name, k->name, reads);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* A space-filling design's points: sweep.points, else ensemble.members (a Saltelli design's are
 * base points, powers of two as Sobol's balance needs, and each has d + 2 members). */
static int plan_design_points(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    const config_value *members = config_get(c, "ensemble", "members");
    const int64_t wanted = c->points ? c->points : members->integer;
    const char *origin = c->points ? c->points_origin : members->origin;
    const char *key = c->points ? "sweep.points" : "ensemble.members";
    if (p->design != DESIGN_LHS && (wanted & (wanted - 1))) {
        int64_t below = 1;
        while (below * 2 < wanted) below *= 2;
        snprintf(err, len,
                 "%s: %s = %lld: design = %s needs a power of two of %spoints (Sobol points "
                 "are balanced only in powers of two): %lld or %lld",
                 origin, key, (long long)wanted, design_name(p->design),
                 p->design == DESIGN_SALTELLI ? "base " : "", (long long)below,
                 (long long)below * 2);
        return EXIT_BAD_INPUT;
    }
    if (p->design == DESIGN_SALTELLI && p->n_sweeps > DESIGN_SOBOL_DIMS / 2) {
        snprintf(err, len, "%s: design = saltelli takes at most %d swept keys (%d given)",
                 p->sweep[0]->origin, DESIGN_SOBOL_DIMS / 2, p->n_sweeps);
        return EXIT_BAD_INPUT;
    }
    p->points = p->design == DESIGN_SALTELLI ? wanted * design_saltelli_arms(p->n_sweeps) : wanted;
    return 0;
}

/* The [sweep] part of the plan: which keys, how members map to points, which keys the stepper
 * holds (its factor or its forcing is then rebuilt between groups of members). */
static int plan_sweeps(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    p->mean_sweep = p->amplitude_sweep = p->member_param_sweep = -1;
    p->n_stepper_sweeps = 0;
    p->replicates = c->replicates;
    p->design = (design_kind)c->design;
    p->n_sweeps = c->n_sweeps;
    int64_t points = 1;
    int rc = 0;
    for (int j = 0; j < c->n_sweeps; ++j) {
        const config_sweep *sw = p->sweep[j] = &c->sweeps[j];
        if ((rc = sweep_target(c, p, j, err, len)) || (rc = sweep_fits_design(c, p, j, err, len)))
            return rc;
        if (p->design == DESIGN_GRID && points > ((int64_t)1 << 40) / sw->count) {
            snprintf(err, len, "%s: the grid of sweeps exceeds 2^40 points", sw->origin);
            return EXIT_BAD_INPUT;
        }
        points = p->design == DESIGN_GRID ? points * sw->count : sw->count;
    }
    if (c->n_sweeps > 0 && design_space_filling(p->design)) {
        if ((rc = plan_design_points(c, p, err, len))) return rc;
        points = p->points;
    }
    for (int j = c->n_sweeps - 1; j >= 0; --j)
        p->stride[j] = j == c->n_sweeps - 1 || p->design != DESIGN_GRID
                           ? 1
                           : p->stride[j + 1] * c->sweeps[j + 1].count;
    if (c->n_sweeps > 0) {
        if (points > ((int64_t)1 << 40) / p->replicates) {
            snprintf(err, len, "[sweep]: points x replicates exceeds 2^40 members");
            return EXIT_BAD_INPUT;
        }
        p->members = points * p->replicates; /* ensemble.members is not used */
    }
    p->ic.noise_arms = p->design == DESIGN_SALTELLI ? design_saltelli_arms(p->n_sweeps) : 1;
    p->ic.noise_replicates = p->replicates;
    if (p->amplitude_sweep >= 0) /* per member instead */
        p->ic.amplitude = p->values.amplitude = 1.0;
    return 0;
}

/* The model's own relations (m->check) for every swept point's values, 2^20 points at most
 * scanned: 0, or 2 with the message naming the key. */
static int check_points(const cohort_config *c, const run_plan *p, char *err, size_t len)
{
    const cohort_model *m = p->model;
    const int64_t points = p->replicates > 0 ? p->members / p->replicates : 0;
    for (int64_t point = 0; m->check && point < points && point < (1 << 20); ++point) {
        const cohort_model_values v = run_plan_member_values(p, point * p->replicates);
        const char *key = NULL;
        char why[512];
        if (m->check(m, &v, &key, why, sizeof why)) {
            const config_value *bad = config_get_key(c, key);
            snprintf(err, len, "%s: %s = %s: %s", bad->origin, key, bad->text, why);
            return EXIT_BAD_INPUT;
        }
    }
    return 0;
}

/* A steady model's plan: the [solver] keys, the members and their sweeps (of the model's
 * parameters only: it has no initial.* to sweep). */
static int plan_steady(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    const cohort_model *m = p->model;
    const config_value *method = config_get(c, "solver", "method");
    if (!config_list_has(m->steady->solver_methods, '|', method->text)) {
        snprintf(err, len, "%s: solver.method = %s: %s offers %s", method->origin, method->text,
                 m->name, m->steady->solver_methods);
        return EXIT_BAD_INPUT;
    }
    /* the method's index among the model's */
    const size_t w = strlen(method->text);
    for (const char *a = m->steady->solver_methods;
         strncmp(a, method->text, w) || (a[w] && a[w] != '|'); a = strchr(a, '|') + 1)
        ++p->values.solver_method;
    p->values.solver_tolerance = config_real(c, "solver", "tolerance");
    p->values.max_iterations = config_get(c, "solver", "max_iterations")->integer;
    p->values.check_every = config_get(c, "solver", "check_every")->integer;
    p->ic.seed = (uint64_t)config_get(c, "ensemble", "seed")->integer;
    p->members = config_get(c, "ensemble", "members")->integer;
    const int rc = plan_sweeps(c, p, err, len);
    if (rc) return rc;
    for (int j = 0; j < p->n_sweeps; ++j) {
        size_t n_keys;
        const config_key *k = &config_schema(&n_keys)[p->sweep[j]->key];
        if (strcmp(k->section, "model")) {
            snprintf(err, len,
                     "%s: sweep.%s.%s: %s is steady and reads no %s.* keys; it sweeps its model "
                     "parameters",
                     p->sweep[j]->origin, k->section, k->name, m->name, k->section);
            return EXIT_BAD_INPUT;
        }
    }
    return check_points(c, p, err, len);
}

/* The grid: grid.n points in 1D, grid.nx x grid.ny in 2D (a member is one line of nx ny values,
 * row-major); a bounded model's nx, ny are cells, its members hold the (nx + 1)(ny + 1) nodes. */
static int plan_grid(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    const cohort_model *m = p->model;
    const char *grid_keys[2] = {m->dimension == 1 ? "n" : "nx", "ny"};
    int64_t extent[2] = {1, 1};
    for (int d = 0; d < m->dimension; ++d) {
        const config_value *v = config_get(c, "grid", grid_keys[d]);
        extent[d] = v->integer;
        if (extent[d] < m->min_points) {
            char reason[128];
            snprintf(reason, sizeof reason, "the %s solver's minimum",
                     m->min_points == 3 ? "tridiagonal" : "pentadiagonal");
            snprintf(err, len, "%s: grid.%s = %lld: %s needs grid.%s >= %lld (%s)", v->origin,
                     grid_keys[d], (long long)extent[d], m->name, grid_keys[d],
                     (long long)m->min_points,
                     m->min_points_reason ? m->min_points_reason : reason);
            return EXIT_BAD_INPUT;
        }
    }
    p->values.nx = extent[0], p->values.ny = extent[1];
    /* a bounded model's nx, ny are cells: its members hold the (nx + 1)(ny + 1) nodes */
    const int64_t nodes = m->boundaries ? 1 : 0;
    p->n = (extent[0] + nodes) * (m->dimension == 2 ? extent[1] + nodes : 1);
    p->values.length = config_real(c, "grid", "length");
    if (m->boundaries) {
        const config_value *b = config_get(c, "model", "boundary");
        /* a model with one condition (heat1d's insulated rod) takes it unless told otherwise */
        const int only_one = !strchr(m->boundaries, '|'),
                  by_default = !strcmp(b->origin, "default");
        if (only_one && by_default) {
            p->values.boundary = !strcmp(m->boundaries, "neumann") ? COHORT_BOUNDARY_NEUMANN
                                                                   : COHORT_BOUNDARY_DIRICHLET;
        } else if (!config_list_has(m->boundaries, '|', b->text)) {
            snprintf(err, len, "%s: model.boundary = %s: %s allows %s", b->origin, b->text, m->name,
                     m->boundaries);
            return EXIT_BAD_INPUT;
        } else {
            p->values.boundary =
                !strcmp(b->text, "neumann") ? COHORT_BOUNDARY_NEUMANN : COHORT_BOUNDARY_DIRICHLET;
        }
        p->values.origin = config_real(c, "grid", "origin");
    }
    if (m->boundaries && config_get(c, "analysis", "structure_factor")->integer) {
        snprintf(err, len,
                 "%s: analysis.structure_factor = true: the structure factor is of periodic "
                 "fields, and %s's square is bounded",
                 config_get(c, "analysis", "structure_factor")->origin, m->name);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* The initial state: initial.kind among the model's, and the initial keys. */
static int plan_initial(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    const cohort_model *m = p->model;
    const config_value *kind = config_get(c, "initial", "kind");
    if (!config_list_has(m->initial_kinds, '|', kind->text)) {
        char kinds[128] = ""; /* "uniform noise or cosine" */
        for (const char *a = m->initial_kinds; *a;) {
            const size_t k = strcspn(a, "|");
            snprintf(kinds + strlen(kinds), sizeof kinds - strlen(kinds), "%s%.*s%s",
                     kinds[0] ? " or " : "", (int)k, a, !strncmp(a, "uniform", k) ? " noise" : "");
            a += k + (a[k] == '|');
        }
        snprintf(err, len, "%s: initial.kind = %s: %s starts from %s only", kind->origin,
                 kind->text, m->name, kinds);
        return EXIT_BAD_INPUT;
    }
    p->values.initial_kind = kind->text;
    p->values.amplitude = config_real(c, "initial", "amplitude");
    p->values.mode = config_get(c, "initial", "mode")->integer;
    p->ic.kind = !strcmp(kind->text, "uniform")  ? INITIAL_UNIFORM
                 : !strcmp(kind->text, "cosine") ? INITIAL_COSINE
                                                 : INITIAL_MODE;
    p->ic.amplitude = config_real(c, "initial", "amplitude");
    p->ic.mode = config_get(c, "initial", "mode")->integer;
    p->mean = config_real(c, "initial", "mean");
    return 0;
}

/* time.stepper and time.block_width, for a model that offers several steppers. */
static int plan_stepper(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    const cohort_model *m = p->model;
    const config_value *st = config_get(c, "time", "stepper");
    if (!config_list_has(m->stepping->steppers, '|', st->text)) {
        snprintf(err, len, "%s: time.stepper = %s: %s offers %s", st->origin, st->text, m->name,
                 m->stepping->steppers);
        return EXIT_BAD_INPUT;
    }
    p->values.stepper =
        !strcmp(st->text, "classic") ? COHORT_STEPPER_CLASSIC : COHORT_STEPPER_SWEPT;
    const config_value *bw = config_get(c, "time", "block_width");
    p->values.block_width = bw->is_auto ? 0 : bw->integer;
    return 0;
}

/* The steps: dt (auto: the model's, the smallest over the stepper's swept points), t_end reached
 * exactly, at most 2^40 steps. An adaptive model's step() is one output interval, in its own
 * steps from time.dt. */
static int plan_time(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    const cohort_model *m = p->model;
    const config_value *dt = config_get(c, "time", "dt"), *t_end = config_get(c, "time", "t_end");
    double dt_wanted = dt->is_auto ? m->defaults->dt_auto(&p->values) : dt->number;
    /* auto: the smallest of the stepper's swept points' choices (heat1d's Fo depends on alpha);
     * 2^20 points at most scanned */
    for (int64_t point = 0; dt->is_auto && p->n_stepper_sweeps > 0 &&
                            point < p->members / p->replicates && point < (1 << 20);
         ++point) {
        const cohort_model_values v = run_plan_stepper_values(p, point * p->replicates);
        dt_wanted = fmin(dt_wanted, m->defaults->dt_auto(&v));
    }
    /* auto never steps past t_end: a run shorter than the model's step takes one step of t_end */
    if (dt->is_auto && !m->adaptive) dt_wanted = fmin(dt_wanted, t_end->number);
    if (m->adaptive) {
        p->values.tau0 = dt_wanted;
        p->values.tolerance = config_real(c, "time", "tolerance");
        dt_wanted = config_real(c, "time", "output_every");
    }
    p->t_end = t_end->number;
    /* an adaptive model's step() is one output interval: that is the key at fault */
    const config_value *step_key = m->adaptive ? config_get(c, "time", "output_every") : dt;
    const char *step_name = m->adaptive ? "time.output_every" : "time.dt";
    if (p->t_end < dt_wanted) {
        snprintf(err, len, "%s: time.t_end = %g is less than one %s (%s = %g, from %s)",
                 t_end->origin, p->t_end, m->adaptive ? "output interval" : "step", step_name,
                 dt_wanted, step_key->origin);
        return EXIT_BAD_INPUT;
    }
    /* the step count must fit (and stay exact in a double): 2^40 steps at most */
    if (!(p->t_end / dt_wanted <= (double)((int64_t)1 << 40))) {
        snprintf(err, len,
                 "%s: time.t_end = %g with %s = %g (from %s) would take %.3g steps; at most "
                 "2^40 are allowed",
                 t_end->origin, p->t_end, step_name, dt_wanted, step_key->origin,
                 p->t_end / dt_wanted);
        return EXIT_BAD_INPUT;
    }
    /* every record on its time: dt divides the period of the records, the snapshots and t_end
     * (auto: the largest such dt at most the model's; a given dt that divides it) */
    p->event_period = m->adaptive ? 0.0 : event_period(c, p->t_end);
    const double per_period = p->event_period / dt_wanted;
    if (p->event_period > 0.0 &&
        (dt->is_auto || fabs(per_period - nearbyint(per_period)) <= 1e-9 * per_period)) {
        const int64_t k = (int64_t)ceil(per_period * (1.0 - 1e-9));
        p->values.dt = p->event_period / (double)k;
        p->steps = (int64_t)llround(p->t_end / p->event_period) * k;
        p->events_on_time = 1;
        return 0;
    }
    /* else t_end is reached exactly: dt shrinks by less than a step where t_end / dt is not
     * whole, and the records fall on the steps nearest their times */
    p->steps = (int64_t)ceil(p->t_end / dt_wanted * (1.0 - 1e-12));
    p->values.dt = p->t_end / (double)p->steps;
    p->events_on_time = m->adaptive != NULL;
    return 0;
}

/* A stepper sweep of the model's member_factors key becomes the members' own where a stepper of
 * the plan's values takes them (its factors are then the members', and a chunk steps its
 * members together instead of a stepper a value); else it stays a stepper sweep. */
static void plan_member_factors(run_plan *p)
{
    const cohort_model_member_factors *mf = p->model->member_factors;
    const int param = mf ? cohort_model_param_index(p->model, mf->key) : -1;
    for (int q = 0; mf && q < p->n_stepper_sweeps; ++q) {
        if (p->stepper_param[q] != param) continue;
        if (!(mf->bytes(p->model, &p->values) > 0.0)) return;
        p->member_factor_sweep = p->stepper_sweep[q];
        p->member_factor_param = param;
        for (int r = q + 1; r < p->n_stepper_sweeps; ++r) {
            p->stepper_sweep[r - 1] = p->stepper_sweep[r];
            p->stepper_param[r - 1] = p->stepper_param[r];
        }
        --p->n_stepper_sweeps;
        return;
    }
}

/* Records at t = 0, every, 2 every, ... (the nearest step) and at t_end; snapshots alike; the
 * model's relations at every swept point; k-means' clusters against the members. */
static int plan_events(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    p->record_step = event_steps(config_real(c, "time", "output_every"), p, &p->n_records);
    if (!strcmp(config_get(c, "output", "archive")->text, "snapshots"))
        p->snapshot_step =
            event_steps(config_real(c, "output", "snapshot_every"), p, &p->n_snapshots);
    if (!p->record_step || (p->n_snapshots == 0 && p->snapshot_step)) {
        snprintf(err, len, "out of memory");
        return EXIT_FAILURE_RUNNING;
    }
    const int rc = check_points(c, p, err, len);
    const config_value *kmeans = config_get(c, "analysis", "kmeans");
    if (rc == 0 && kmeans->is_auto && p->members < 2) {
        snprintf(err, len,
                 "%s: analysis.kmeans = auto chooses 2 clusters or more, and the run has "
                 "%lld member",
                 kmeans->origin, (long long)p->members);
        return 2;
    }
    if (rc == 0 && !kmeans->is_auto && kmeans->integer > p->members) {
        snprintf(err, len, "%s: analysis.kmeans = %lld clusters, more than the %lld members",
                 kmeans->origin, (long long)kmeans->integer, (long long)p->members);
        return 2;
    }
    return rc;
}

/* [output] and [analysis] as typed values: no stage after the plan reads them by key. */
static void plan_outputs(const cohort_config *c, run_plan *p)
{
    const config_value *chunk = config_get(c, "ensemble", "chunk");
    p->chunk_wanted = chunk->is_auto ? 0 : chunk->integer;
    p->checkpoint_every = config_real(c, "output", "checkpoint_every");
    p->archive_final = !strcmp(config_get(c, "output", "archive")->text, "final");
    p->archive_float = !strcmp(config_get(c, "output", "precision")->text, "float");
    p->member_series = (int)config_get(c, "output", "member_series")->integer;
    p->structure_factor = (int)config_get(c, "analysis", "structure_factor")->integer;
    p->fit_from = config_real(c, "analysis", "fit_from");
    p->bootstrap = (int)config_get(c, "analysis", "bootstrap")->integer;
    p->sensitivity = !strcmp(config_get(c, "analysis", "sensitivity")->text, "sobol");
    const config_value *kmeans = config_get(c, "analysis", "kmeans");
    p->kmeans_auto = kmeans->is_auto, p->kmeans_k = kmeans->is_auto ? 0 : (int)kmeans->integer;
    p->kmeans_restarts = (int)config_get(c, "analysis", "kmeans_restarts")->integer;
    p->kmeans_max_iter = (int)config_get(c, "analysis", "kmeans_max_iter")->integer;
    p->kmeans_tol = config_real(c, "analysis", "kmeans_tol");
}

/* ensemble.target_sem, max_members and target: a run to a precision adds replicates of one
 * configuration, of a statistic the model has. 0, or 2 with the message naming the key. */
static int plan_target(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    const config_value *sem = config_get(c, "ensemble", "target_sem");
    const config_value *most = config_get(c, "ensemble", "max_members");
    const config_value *target = config_get(c, "ensemble", "target");
    p->target_sem = sem->number;
    if (p->target_sem <= 0.0) {
        const config_value *set = !most->is_auto                 ? most
                                  : strcmp(target->text, "auto") ? target
                                                                 : NULL;
        if (set)
            snprintf(err, len, "%s: ensemble.%s = %s applies only with ensemble.target_sem > 0",
                     set->origin, set == most ? "max_members" : "target", set->text);
        return set ? EXIT_BAD_INPUT : 0;
    }
    if (p->n_sweeps > 0) {
        snprintf(err, len,
                 "%s: ensemble.target_sem = %s adds replicates of one configuration; [sweep] (%s) "
                 "fixes the members: run without one of them",
                 sem->origin, sem->text, p->sweep[0]->origin);
        return EXIT_BAD_INPUT;
    }
    p->max_members = most->is_auto ? 64 * p->members : most->integer;
    if (p->max_members < p->members) {
        snprintf(err, len, "%s: ensemble.max_members = %s is below ensemble.members = %lld (%s)",
                 most->origin, most->text, (long long)p->members,
                 config_get(c, "ensemble", "members")->origin);
        return EXIT_BAD_INPUT;
    }
    const cohort_model *m = p->model;
    const cohort_model_observing *obs = m->observing;
    if (!strcmp(target->text, "auto") && m->statistics) {
        p->target = RUN_TARGET_LENGTH, p->target_name = m->statistics->length_name;
        return 0;
    }
    for (int q = 0; obs && q < obs->n_observables; ++q)
        if (!strcmp(target->text, obs->observables[q].name)) {
            p->target = RUN_TARGET_OBSERVABLE + q, p->target_name = obs->observables[q].name;
            return 0;
        }
    char allowed[256] = "";
    if (m->statistics) snprintf(allowed, sizeof allowed, "auto (its length)");
    for (int q = 0; obs && q < obs->n_observables; ++q)
        snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                 *allowed ? ", " : "", obs->observables[q].name);
    snprintf(err, len, "%s: ensemble.target = %s: %s offers %s", target->origin, target->text,
             m->name, *allowed ? allowed : "no statistic to target");
    return EXIT_BAD_INPUT;
}

/* Checks what the schema cannot (relations between keys, what this version can run) and derives
 * the plan. Messages name the key and where its value came from. */
/* analysis.bootstrap_unit: given, or from the ensemble's size (a target run's: its first round's,
 * whole blocks, so that every later round adds units of the same size). 0, or 2 naming the key. */
static int plan_bootstrap_unit(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    const config_value *unit = config_get(c, "analysis", "bootstrap_unit");
    if (unit->is_auto) {
        const int64_t first_round =
            (p->members + MOMENTS_BLOCK - 1) / MOMENTS_BLOCK * MOMENTS_BLOCK;
        p->bootstrap_unit = moments_unit_size(p->target_sem > 0.0 ? first_round : p->members);
        return 0;
    }
    p->bootstrap_unit = unit->integer;
    if (moments_unit_valid(p->bootstrap_unit)) return 0;
    snprintf(err, len,
             "%s: analysis.bootstrap_unit = %s: a unit is a power of two that divides %d "
             "(1, 2, 4, .., %d), or auto",
             unit->origin, unit->text, MOMENTS_BLOCK, MOMENTS_BLOCK);
    return EXIT_BAD_INPUT;
}

/* analysis.sensitivity = sobol: a Saltelli design of an evolving model. 0, or 2 naming the key. */
static int plan_sensitivity(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    const config_value *key = config_get(c, "analysis", "sensitivity");
    if (!p->sensitivity) return 0;
    const char *why = NULL;
    if (p->design != DESIGN_SALTELLI || p->n_sweeps == 0)
        why = "Sobol indices need the A, B and AB_j members of a [sweep] with design = saltelli";
    else if (p->model->steady)
        why = "a steady model has no records to follow the indices over";
    if (why) {
        snprintf(err, len, "%s: analysis.sensitivity = %s: %s", key->origin, key->text, why);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

int run_plan_make(const cohort_config *c, run_plan *p, char *err, size_t len)
{
    memset(p, 0, sizeof *p);
    p->member_factor_sweep = p->member_factor_param = -1;
    const config_value *name = config_get(c, "model", "name");
    const cohort_model *m = p->model = cohort_model_find(name->text);
    if (!m) { /* the schema allows only registered names */
        snprintf(err, len, "%s: model.name = %s: no such model", name->origin, name->text);
        return EXIT_BAD_INPUT;
    }
    plan_outputs(c, p);
    int rc = plan_grid(c, p, err, len);
    if (rc) return rc;
    for (int j = 0; j < m->n_params; ++j)
        p->values.param[j] = config_real(c, "model", m->params[j].key);
    if (m->steady && config_real(c, "ensemble", "target_sem") > 0.0) {
        const config_value *sem = config_get(c, "ensemble", "target_sem");
        snprintf(err, len,
                 "%s: ensemble.target_sem = %s: %s is steady; its members converge "
                 "rather than fluctuate, so it has no target to reach",
                 sem->origin, sem->text, m->name);
        return EXIT_BAD_INPUT;
    }
    if (m->steady)
        return (rc = plan_steady(c, p, err, len)) ? rc : plan_sensitivity(c, p, err, len);
    if ((rc = plan_initial(c, p, err, len)) ||
        (m->stepping->steppers && (rc = plan_stepper(c, p, err, len))))
        return rc;
    p->ic.seed = (uint64_t)config_get(c, "ensemble", "seed")->integer;
    p->members = config_get(c, "ensemble", "members")->integer;
    if ((rc = plan_sweeps(c, p, err, len)) || (rc = plan_time(c, p, err, len))) return rc;
    plan_member_factors(p);
    if ((rc = plan_target(c, p, err, len)) || (rc = plan_bootstrap_unit(c, p, err, len)) ||
        (rc = plan_sensitivity(c, p, err, len)))
        return rc;
    return plan_events(c, p, err, len);
}
void run_plan_free(run_plan *p)
{
    free(p->record_step);
    free(p->snapshot_step);
    p->record_step = p->snapshot_step = NULL;
}
