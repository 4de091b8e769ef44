#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <gsl/gsl_fit.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/moments.h"
#include "analysis/structure_factor.h"
#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "fields/fields.h"
#include "clustering.h"
#include "initial.h"
#include "output.h"
#include "paths.h"
#include "plan.h"
#include "steady.h"

enum { EXIT_FAILURE_RUNNING = 1, EXIT_BAD_INPUT = 2 };

/* Members per chunk: ensemble.chunk, or as many as fit in half the free memory. */
static int64_t chunk_size(const cohort_config *c, const cohort_backend *be, const run_plan *p)
{
    const config_value *chunk = config_get(c, "ensemble", "chunk");
    if (!chunk->is_auto) return chunk->integer < p->members ? chunk->integer : p->members;
    size_t free_bytes = 0;
    if (be->mem_info(&free_bytes, NULL) != COHORT_OK) free_bytes = (size_t)1 << 30;
    /* the time levels, scratch and noise, moments and mean per member, and the structure factor's
     * spectra */
    double per_member =
        ((double)(p->model->time_levels + 2 + p->model->working_states) * (double)p->n + 4.0) *
        sizeof(double);
    if (config_get(c, "analysis", "structure_factor")->integer)
        per_member += structure_factor_bytes_per_member(p->values.nx, p->values.ny);
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
    const double now = cohort_seconds();
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
 * steps; mean = NULL: the state is the field, as in 2D), member-major, on the host: what
 * archives, snapshots and k-means features hold. */
static int states_to_host(const cohort_backend *be, const double *state, double *scratch,
                          const double *mean, double *host_state, double *member_major, int64_t n,
                          int64_t chunk, int64_t count)
{
    if (mean) COHORT_CALL(fields_values(be, state, mean, n, chunk, 0, count, scratch));
    COHORT_CALL(
        be->copy_to_host(host_state, mean ? scratch : state, (size_t)(n * chunk) * sizeof(double)));
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

/* The run's k-means features: every member's final field, member-major, in host memory. */
typedef struct run_features {
    const double *values;
    int64_t n;
} run_features;

static int run_features_load(void *ctx, int64_t g0, int64_t count, double *dst)
{
    const run_features *f = ctx;
    memcpy(dst, f->values + g0 * f->n, (size_t)(count * f->n) * sizeof(double));
    return COHORT_OK;
}

/* A least-squares line y = c0 + c1 x (GSL) and its correlation r, stored as the global attributes
 * <base><slope_suffix>, <base>_intercept and <base>_r. */
static int fit_and_store(cohort_output *out, const char *base, const char *slope_suffix,
                         const double *x, const double *y, size_t n, double *c0, double *c1,
                         double *r)
{
    double cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, y, 1, n, c0, c1, &cov00, &cov01, &cov11, &sumsq);
    *r = gsl_stats_correlation(x, 1, y, 1, n);
    char name[64];
    snprintf(name, sizeof name, "%s%s", base, slope_suffix);
    COHORT_CALL(output_put_double(out, name, *c1));
    snprintf(name, sizeof name, "%s_intercept", base);
    COHORT_CALL(output_put_double(out, name, *c0));
    snprintf(name, sizeof name, "%s_r", base);
    return output_put_double(out, name, *r);
}

int run_output_path(const cohort_config *c, const run_options *opt, const char **path)
{
    const config_value *configured = config_get(c, "output", "path");
    *path = opt->output_path ? opt->output_path : configured->text;
    char option[CONFIG_ORIGIN + 32] = "-o", err[1024];
    if (!opt->output_path) snprintf(option, sizeof option, "%s: output.path =", configured->origin);
    if (!paths_check_output(*path, option, &opt->config_path, 1, opt->overwrite, err, sizeof err))
        return 0;
    fprintf(stderr, "cohort run: %s\n", err);
    return EXIT_BAD_INPUT;
}

int run_ensemble(const cohort_config *c, const run_options *opt)
{
    char err[1024] = "";
    run_plan p;
    int status = run_plan_make(c, &p, err, sizeof err);
    if (status) {
        fprintf(stderr, "cohort run: %s\n", err);
        run_plan_free(&p);
        return status;
    }
    const cohort_backend *be = NULL;
    if (cohort_backend_get(opt->backend, &be) != COHORT_OK) {
        fprintf(stderr, "cohort run: --backend %s: %s\n", opt->backend, cohort_error_detail());
        run_plan_free(&p);
        return EXIT_BAD_INPUT;
    }
    const cohort_model *model = p.model;
    if (model->solver_methods) return run_steady(c, opt, &p, be);
    const int64_t n = p.n, members = p.members;
    double worst_limit, mean_lo, mean_hi;
    const int64_t unstable = run_plan_unstable_members(&p, &worst_limit, &mean_lo, &mean_hi);
    if (unstable > 0 && !opt->quiet)
        fprintf(stderr,
                "cohort run: warning: time.dt = %.4g (from %s) is above %s's stability limit "
                "for %lld of %lld members (initial.mean in [%g, %g]; their smallest limit is dt "
                "= %.4g): expect them to diverge, or set time.dt below it\n",
                p.values.dt, config_get(c, "time", "dt")->origin, model->name, (long long)unstable,
                (long long)members, mean_lo, mean_hi, worst_limit);
    /* time.dt = auto says what it chose (an adaptive model's is the first trial step) */
    if (config_get(c, "time", "dt")->is_auto && !opt->quiet)
        fprintf(stderr, "cohort run: time.dt = auto: %s %.6g (%s)\n",
                model->adaptive ? "first trial step" : "dt =",
                model->adaptive ? p.values.tau0 : p.values.dt, model->name);
    p.chunk = chunk_size(c, be, &p);

    /* the file first: an unwritable path is the user's to fix, before any work is done */
    const char *path = NULL;
    if (run_output_path(c, opt, &path)) {
        run_plan_free(&p);
        return EXIT_BAD_INPUT;
    }
    run_provenance provenance;
    char *history = output_history(opt->command_line, NULL);
    char *config_text = config_render(c);
    const int archive = !strcmp(config_get(c, "output", "archive")->text, "final");
    output_spec spec = {
        .path = path,
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
        .config = config_text};
    run_plan_output_spec(&p, model->name, be, &provenance, &spec);
    /* the model's observables over t; per member its steps and, from the exact solution, the
     * errors of seed 000 eq. 31-33 */
    const int n_obs = model->n_observables;
    const int exact =
        model->exact_kind && config_list_has(model->exact_kind, '|', p.values.initial_kind);
    spec.n_series = n_obs;
    for (int q = 0; q < n_obs; ++q) {
        spec.series_name[q] = model->observables[q].name;
        spec.series_meaning[q] = model->observables[q].meaning;
        spec.series_units[q] = model->observables[q].units;
    }
    enum { VALUE_ACCEPTED, VALUE_REJECTED, VALUE_L1, VALUE_L2, VALUE_LINF };
    static const char *const value_name[] = {"steps_accepted", "steps_rejected", "error_l1",
                                             "error_l2", "error_linf"};
    static const char *const value_meaning[] = {
        "accepted Runge-Kutta-Merson steps of the member",
        "rejected Runge-Kutta-Merson steps of the member (error estimate above time.tolerance)",
        "error in L1(omega_h x [0, T]): sum over the records t_k of theta sum_ij |phi - zeta| h1 "
        "h2 (seed 000, eq. 31)",
        "error in L2(omega_h x [0, T]): sqrt of the sum over the records of theta sum_ij (phi - "
        "zeta)^2 h1 h2 (seed 000, eq. 32)",
        "error in Linf(omega_h x [0, T]): max over the records and nodes of |phi - zeta| (seed "
        "000, eq. 33)"};
    /* the per-member values stored: an adaptive model's step counts, the errors where the
     * exact solution is known */
    int value_slot[5], n_values = 0;
    for (int q = model->adaptive ? VALUE_ACCEPTED : VALUE_L1;
         q <= (exact ? VALUE_LINF : VALUE_REJECTED); ++q)
        value_slot[n_values++] = q;
    spec.n_member_values = n_values;
    for (int q = 0; q < n_values; ++q) {
        spec.member_value_name[q] = value_name[value_slot[q]];
        spec.member_value_meaning[q] = value_meaning[value_slot[q]];
        spec.member_value_int[q] = value_slot[q] <= VALUE_REJECTED;
    }
    cohort_output *out = NULL;
    const int created = history && config_text
                            ? output_create(&spec, &out)
                            : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "history and configuration text");
    free(history);
    if (created != COHORT_OK) {
        fprintf(stderr, "cohort run: %s (from %s)\n", cohort_error_detail(),
                opt->output_path ? "-o" : config_get(c, "output", "path")->origin);
        free(config_text);
        run_plan_free(&p);
        return EXIT_BAD_INPUT;
    }

    /* working memory */
    const int64_t chunk = p.chunk;
    void *stepper = NULL;
    double *prev = NULL; /* C^{n-1} of models with two time levels */
    double *state = NULL, *scratch = NULL, *noise = NULL, *mean = NULL, *moments_dev = NULL;
    double *host_moments = malloc((size_t)(2 * chunk) * sizeof(double));
    double *ell = malloc((size_t)chunk * sizeof(double)),
           *mass = malloc((size_t)chunk * sizeof(double));
    const int states = archive || p.n_snapshots > 0 || spec.kmeans_k > 0;
    double *host_state = states ? malloc((size_t)(n * chunk) * sizeof(double)) : NULL;
    double *member_major = states ? malloc((size_t)(n * chunk) * sizeof(double)) : NULL;
    double *host_mean = malloc((size_t)chunk * sizeof(double));
    double *host_amplitude = malloc((size_t)chunk * sizeof(double)), *amplitude = NULL;
    /* each member's value of the model's per-member parameter, where it is swept */
    double *host_member_param = malloc((size_t)chunk * sizeof(double)), *member_param = NULL;
    unsigned char *finite = malloc((size_t)chunk), *diverged = calloc((size_t)members, 1);
    moments_blocks *ell_stats = calloc((size_t)p.n_records, sizeof *ell_stats);
    moments_blocks *mass_stats = calloc((size_t)p.n_records, sizeof *mass_stats);
    /* observable q at record r: obs_stats[q * n_records + r]; a record's values per member, then
     * each member's values of the chunk (errors accumulated over its records) */
    moments_blocks *obs_stats = calloc((size_t)(n_obs * p.n_records) + 1, sizeof *obs_stats);
    double *observed = malloc((size_t)((n_obs + 3) * chunk) * sizeof(double));
    double *member_value = malloc((size_t)(5 * chunk) * sizeof(double));
    int64_t *counter = malloc((size_t)(2 * chunk) * sizeof(int64_t));
    int rc = COHORT_OK;
    if (!host_moments || !ell || !mass || !host_mean || !host_amplitude || !host_member_param ||
        !finite || !diverged || !ell_stats || !mass_stats || !obs_stats || !observed ||
        !member_value || !counter || (states && (!host_state || !member_major)))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "host buffers for chunks of %lld members",
                         (long long)chunk);
    for (int64_t r = 0; r < p.n_records && rc == COHORT_OK; ++r) {
        rc = moments_blocks_alloc(&ell_stats[r], members);
        if (rc == COHORT_OK) rc = moments_blocks_alloc(&mass_stats[r], members);
        for (int q = 0; q < n_obs && rc == COHORT_OK; ++q)
            rc = moments_blocks_alloc(&obs_stats[q * p.n_records + r], members);
    }
    if (rc == COHORT_OK && p.n_stepper_sweeps == 0)
        rc = model->stepper_alloc(model, be, &p.values, &stepper);
    if (rc == COHORT_OK) rc = be->alloc((void **)&state, (size_t)(n * chunk) * sizeof(double));
    if (rc == COHORT_OK && model->time_levels == 2)
        rc = be->alloc((void **)&prev, (size_t)(n * chunk) * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&scratch, (size_t)(n * chunk) * sizeof(double));
    if (rc == COHORT_OK)
        rc = be->alloc((void **)&noise,
                       (size_t)initial1d_scratch_values(&p.ic, n, chunk) * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&mean, (size_t)chunk * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&amplitude, (size_t)chunk * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&member_param, (size_t)chunk * sizeof(double));
    if (rc == COHORT_OK)
        rc = be->alloc((void **)&moments_dev, (size_t)(2 * chunk) * sizeof(double));
    structure_factor *sf = NULL;
    if (rc == COHORT_OK && spec.structure_factor)
        rc = structure_factor_alloc(be, p.values.nx, p.values.ny, p.values.length, chunk, chunk,
                                    members, p.n_records, &sf);
    /* k-means features: every member's final field as archived (rounded to float with
     * output.precision = float, so that `cohort analyze` of the archive finds the same labels) */
    double *features = NULL;
    if (rc == COHORT_OK && spec.kmeans_k > 0 &&
        !(features = malloc((size_t)members * (size_t)n * sizeof(double))))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means features of %lld members x %lld points",
                         (long long)members, (long long)n);

    progress pr = {opt->quiet, isatty(2), cohort_seconds(), 0.0, members * p.steps};
    int64_t member_steps = 0;
    int64_t stepper_member = -1; /* a member whose swept stepper keys the stepper has */
    int64_t n_chunks = 0;
    for (int64_t m0 = 0, count = 0; m0 < members && rc == COHORT_OK; m0 += count) {
        count = m0 + chunk <= members ? chunk : members - m0;
        ++n_chunks;
        if (p.n_stepper_sweeps > 0) { /* a chunk never spans two steppers */
            int64_t k = 1;
            while (k < count && run_plan_same_stepper(&p, m0, m0 + k)) ++k;
            count = k;
            if (!stepper || !run_plan_same_stepper(&p, m0, stepper_member)) {
                if (stepper) model->stepper_free(stepper);
                stepper = NULL;
                const cohort_model_values values = run_plan_stepper_values(&p, m0);
                rc = model->stepper_alloc(model, be, &values, &stepper);
                stepper_member = m0;
                if (rc != COHORT_OK) break;
            }
        }
        /* the chunk's arrays hold its members at columns [0, count), leading dimension chunk */
        for (int64_t k = 0; k < count; ++k) {
            host_mean[k] =
                p.mean_sweep >= 0 ? run_plan_swept_value(&p, p.mean_sweep, m0 + k) : p.mean;
            if (p.amplitude_sweep >= 0)
                host_amplitude[k] = run_plan_swept_value(&p, p.amplitude_sweep, m0 + k);
            if (p.member_param_sweep >= 0)
                host_member_param[k] = run_plan_swept_value(&p, p.member_param_sweep, m0 + k);
        }
        rc = be->copy_to_device(mean, host_mean, (size_t)count * sizeof(double));
        if (rc == COHORT_OK && p.amplitude_sweep >= 0)
            rc = be->copy_to_device(amplitude, host_amplitude, (size_t)count * sizeof(double));
        if (rc == COHORT_OK && p.member_param_sweep >= 0)
            rc =
                be->copy_to_device(member_param, host_member_param, (size_t)count * sizeof(double));
        if (rc == COHORT_OK && model->initial_fill)
            rc = model->initial_fill(stepper, state, p.amplitude_sweep >= 0 ? amplitude : NULL,
                                     mean, chunk, count);
        else if (rc == COHORT_OK)
            rc = initial1d_fill(be, &p.ic, p.amplitude_sweep >= 0 ? amplitude : NULL, state, noise,
                                n, chunk, 0, m0, count);
        /* a model that evolves the field itself starts from mean + the mean-free noise */
        const double *field_mean = model->evolves_deviation ? mean : NULL;
        for (int64_t k = 0; k < 5 * count; ++k) member_value[k] = 0.0;
        if (rc == COHORT_OK && !model->evolves_deviation && !model->initial_fill) {
            rc = fields_values(be, state, mean, n, chunk, 0, count, scratch);
            double *t = state;
            state = scratch, scratch = t;
        }
        /* step to each record and snapshot time in turn */
        int64_t step = 0, r = 0, q = 0;
        while (rc == COHORT_OK && (r < p.n_records || q < p.n_snapshots)) {
            int64_t next = r < p.n_records ? p.record_step[r] : p.steps;
            if (q < p.n_snapshots && p.snapshot_step[q] < next) next = p.snapshot_step[q];
            while (step < next && rc == COHORT_OK) {
                cohort_model_state ms = {
                    state, prev, scratch, mean, p.member_param_sweep >= 0 ? member_param : NULL,
                    chunk, 0,    count};
                /* a model that advances many steps in one call (the swept rule) takes up to
                 * 4096 at a time, so that the progress line still moves */
                const int64_t steps =
                    model->advance ? (next - step < 4096 ? next - step : 4096) : 1;
                rc = model->advance ? model->advance(stepper, &ms, step, steps)
                                    : model->step(stepper, &ms, step);
                state = ms.u, prev = ms.prev, scratch = ms.scratch;
                member_steps += steps * count;
                if (model->advance || (step & 63) == 0)
                    progress_show(&pr, m0, members, (step + steps) * p.values.dt, member_steps, 0);
                step += steps;
            }
            if (rc == COHORT_OK && r < p.n_records && p.record_step[r] == next) {
                rc = fields_moments(be, state, field_mean, n, chunk, 0, count, moments_dev);
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
                if (rc == COHORT_OK && spec.member_series && model->length_name)
                    rc = output_write_member_ell(out, r, m0, count, ell);
                if (rc == COHORT_OK && model->observe)
                    rc = model->observe(stepper, state, p.record_step[r] * p.values.dt, observed,
                                        chunk, count);
                for (int o = 0; o < n_obs && rc == COHORT_OK; ++o)
                    rc = moments_blocks_add(&obs_stats[o * p.n_records + r], m0, count,
                                            observed + o * count, finite);
                /* eq. 31-33: theta times the sums at t = k theta, k = 0 .. M (the records of an
                 * adaptive model are its steps, theta = T / M apart) */
                for (int64_t k = 0; exact && rc == COHORT_OK && k < count; ++k) {
                    const double *e = observed + n_obs * count;
                    member_value[VALUE_L1 * count + k] += p.values.dt * e[k];
                    member_value[VALUE_L2 * count + k] += p.values.dt * e[count + k];
                    const double linf = member_value[VALUE_LINF * count + k], ek = e[2 * count + k];
                    member_value[VALUE_LINF * count + k] = ek > linf || ek != ek ? ek : linf;
                }
                /* the field as archived: a deviation's in the scratch array, or the state */
                if (rc == COHORT_OK && sf && model->evolves_deviation)
                    rc = fields_values(be, state, mean, n, chunk, 0, count, scratch);
                if (rc == COHORT_OK && sf)
                    rc = structure_factor_add(sf, r, model->evolves_deviation ? scratch : state, 0,
                                              count, m0, finite);
                ++r;
            }
            if (rc == COHORT_OK && q < p.n_snapshots && p.snapshot_step[q] == next) {
                rc = states_to_host(be, state, scratch, field_mean, host_state, member_major, n,
                                    chunk, count);
                if (rc == COHORT_OK)
                    rc = output_write_snapshot(out, q, next * p.values.dt, m0, count, member_major);
                ++q;
            }
        }
        if (rc == COHORT_OK && model->counters && model->adaptive) {
            rc = model->counters(stepper, count, counter, counter + count);
            for (int64_t k = 0; k < count; ++k) {
                member_value[VALUE_ACCEPTED * count + k] = (double)counter[k];
                member_value[VALUE_REJECTED * count + k] = (double)counter[count + k];
            }
        }
        for (int64_t k = 0; exact && k < count; ++k)
            member_value[VALUE_L2 * count + k] = sqrt(member_value[VALUE_L2 * count + k]);
        for (int v = 0; v < n_values && rc == COHORT_OK; ++v)
            rc = output_write_member_value(out, v, m0, count, member_value + value_slot[v] * count);
        if (rc == COHORT_OK && (archive || features))
            rc = states_to_host(be, state, scratch, field_mean, host_state, member_major, n, chunk,
                                count);
        if (rc == COHORT_OK && archive) rc = output_write_state(out, m0, count, member_major);
        if (rc == COHORT_OK && features)
            for (int64_t v = 0; v < count * n; ++v)
                features[m0 * n + v] =
                    spec.archive_float ? (double)(float)member_major[v] : member_major[v];
        progress_show(&pr, m0 + count, members, p.t_end, member_steps, m0 + count == members);
    }

    /* statistics, fit, flags */
    double *spectrum =
        sf ? malloc((size_t)structure_factor_k_count(sf->nx, sf->ny) * sizeof(double)) : NULL;
    if (sf && !spectrum && rc == COHORT_OK) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "spectrum");
    double *fit_x = malloc((size_t)p.n_records * sizeof(double));
    double *fit_y = malloc((size_t)p.n_records * sizeof(double));
    double *k1_x = malloc((size_t)p.n_records * sizeof(double));
    double *k1_y = malloc((size_t)p.n_records * sizeof(double));
    size_t n_fit = 0, n_k1 = 0;
    int64_t n_diverged = 0;
    const double fit_from = config_real(c, "analysis", "fit_from");
    for (int64_t r = 0; r < p.n_records && rc == COHORT_OK; ++r) {
        const moments e = moments_blocks_total(&ell_stats[r]);
        const moments m = moments_blocks_total(&mass_stats[r]);
        const double t = p.record_step[r] * p.values.dt;
        rc = output_write_record(out, r, t, e.count ? e.mean : NAN, moments_variance(&e),
                                 moments_sem(&e), m.count ? m.mean : NAN, (int64_t)e.count);
        for (int q = 0; q < n_obs && rc == COHORT_OK; ++q) {
            const moments o = moments_blocks_total(&obs_stats[q * p.n_records + r]);
            rc = output_write_series(out, r, q, o.count ? o.mean : NAN, moments_variance(&o),
                                     moments_sem(&o));
        }
        if (rc == COHORT_OK && sf && spectrum) {
            double k1 = NAN;
            rc = structure_factor_result(sf, r, (int64_t)e.count, spectrum, &k1);
            if (rc == COHORT_OK) rc = output_write_spectrum(out, r, spectrum, k1);
            /* 1/k1 ~ t^p (cuSten Fig. 1), over the times of the s fit */
            if (t > 0.0 && t >= fit_from && isfinite(log(k1)) && k1_x && k1_y)
                k1_x[n_k1] = log(t), k1_y[n_k1++] = -log(k1);
        }
        /* ell_mean against ln t (seed 003 Fig. 9), or ln s_mean against ln t, whose slope is the
         * coarsening exponent (cuSten Fig. 1: 1/3) */
        const double y = model->fit == COHORT_FIT_POWER_LAW ? log(e.mean) : e.mean;
        if (model->length_name && t > 0.0 && t >= fit_from && e.count > 0 && isfinite(y) && fit_x &&
            fit_y)
            fit_x[n_fit] = log(t), fit_y[n_fit++] = y;
    }
    for (int64_t m = 0; m < members; ++m) n_diverged += diverged ? diverged[m] : 0;
    if (rc == COHORT_OK) rc = output_write_diverged(out, 0, members, diverged);
    if (rc == COHORT_OK) rc = run_plan_write_parameters(&p, out);
    /* an adaptive model's steps are its members' own (steps_accepted): dt is the records' theta */
    if (rc == COHORT_OK)
        rc = output_put_double(out, model->adaptive ? "record_interval" : "dt", p.values.dt);
    if (rc == COHORT_OK && features) { /* the run's device arrays make room for the features */
        be->release(state), be->release(scratch), be->release(noise), be->release(prev);
        state = scratch = noise = prev = NULL;
        structure_factor_free(sf);
        sf = NULL;
        clustering_options copt = clustering_options_from_config(c);
        copt.quiet = opt->quiet;
        run_features f = {features, n};
        rc = clustering_run(be, &p, model->name, &copt, run_features_load, &f, diverged, out);
    }
    /* <l>_vs_log_t_slope (and _intercept, _r) or <l>_exponent for the model's length <l> */
    double c0 = 0.0, c1 = 0.0, fit_r = 0.0;
    const int power_law = model->fit == COHORT_FIT_POWER_LAW;
    const char *l = model->length_name;
    if (rc == COHORT_OK && n_fit >= 3) {
        char base[64];
        snprintf(base, sizeof base, "%s%s", l, power_law ? "_exponent" : "_vs_log_t");
        rc = fit_and_store(out, base, power_law ? "" : "_slope", fit_x, fit_y, n_fit, &c0, &c1,
                           &fit_r);
        if (rc == COHORT_OK && !opt->quiet && power_law)
            fprintf(stderr, "%s_mean = %.4g t^%.4g (r = %.4f) from t = %g on\n", l, exp(c0), c1,
                    fit_r, fit_from);
        else if (rc == COHORT_OK && !opt->quiet)
            fprintf(stderr, "%s_mean = %.4g + %.4g ln t (r = %.4f) from t = %g on\n", l, c0, c1,
                    fit_r, fit_from);
    }
    if (rc == COHORT_OK && power_law && n_k1 >= 3) {
        rc = fit_and_store(out, "inverse_k1_exponent", "", k1_x, k1_y, n_k1, &c0, &c1, &fit_r);
        if (rc == COHORT_OK && !opt->quiet)
            fprintf(stderr, "1/k1 = %.4g t^%.4g (r = %.4f) from t = %g on\n", exp(c0), c1, fit_r,
                    fit_from);
    }
    const int ok = rc == COHORT_OK;
    if (!ok) fprintf(stderr, "cohort run: %s\n%s\n", cohort_strerror(rc), cohort_error_detail());
    const int closed = output_close(out, ok);
    if (ok && closed != COHORT_OK) fprintf(stderr, "cohort run: %s\n", cohort_error_detail());
    if (ok && closed == COHORT_OK && !opt->quiet)
        fprintf(stderr,
                "wrote %s: %lld members x %lld points in %lld chunks of up to %lld, %lld %s "
                "of %.6g to t = %g, %lld records, %lld diverged, backend %s (%s), %.2f s\n",
                path, (long long)members, (long long)n, (long long)n_chunks, (long long)chunk,
                (long long)p.steps, model->adaptive ? "adaptive intervals" : "steps of dt",
                p.values.dt, p.t_end, (long long)p.n_records, (long long)n_diverged, be->name,
                provenance.device, cohort_seconds() - pr.start);
    for (int64_t r = 0; r < p.n_records; ++r) {
        if (ell_stats) moments_blocks_free(&ell_stats[r]);
        if (mass_stats) moments_blocks_free(&mass_stats[r]);
        for (int q = 0; q < n_obs && obs_stats; ++q)
            moments_blocks_free(&obs_stats[q * p.n_records + r]);
    }
    be->release(state);
    be->release(prev);
    be->release(scratch);
    be->release(noise);
    be->release(mean);
    be->release(amplitude);
    be->release(member_param);
    be->release(moments_dev);
    structure_factor_free(sf);
    free(features), free(spectrum);
    if (stepper) model->stepper_free(stepper);
    free(obs_stats), free(observed), free(member_value), free(counter);
    free(ell_stats), free(mass_stats), free(host_moments), free(ell), free(mass);
    free(host_state), free(member_major), free(host_mean), free(host_amplitude),
        free(host_member_param), free(finite), free(diverged);
    free(fit_x), free(fit_y), free(k1_x), free(k1_y), free(config_text);
    run_plan_free(&p);
    return ok && closed == COHORT_OK ? 0 : EXIT_FAILURE_RUNNING;
}
