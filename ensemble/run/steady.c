#include "run/steady.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "exit_status.h"
#include "io/output.h"
#include "report.h"
#include "results/file_spec.h"

/* What a steady run cannot do is refused, not ignored, before anything is done: 0, or 2. */
static int steady_refusals(const cohort_config *c, const cohort_model *model)
{
    static const struct {
        const char *section, *name, *refused_text, *why; /* refused_text NULL: any true value */
    } cannot[] = {
        {"output", "archive", "snapshots", "output.archive = final stores its converged field"},
        {"output", "member_series", NULL, "its history is residual_history(member, check)"},
        {"analysis", "structure_factor", NULL, "the structure factor is of periodic fields"},
        {"analysis", "kmeans", NULL, "k-means is not offered for steady models"},
    };
    for (size_t q = 0; q < sizeof cannot / sizeof cannot[0]; ++q) {
        const config_value *v = config_get(c, cannot[q].section, cannot[q].name);
        if (cannot[q].refused_text ? strcmp(v->text, cannot[q].refused_text) : !v->integer)
            continue;
        report(REPORT_ERROR, "%s: %s.%s = %s: %s is steady: %s", v->origin, cannot[q].section,
               cannot[q].name, v->text, model->name, cannot[q].why);
        return EXIT_BAD_INPUT;
    }
    return 0;
}

/* A steady run: its plan, file, chunk buffers and tallies. */
typedef struct steady_run {
    run_plan *p;
    const cohort_backend *be;
    const char *path;
    char *config_text;
    int64_t chunk, checks, *check_iterations;
    output_spec spec;
    file_provenance provenance;
    cohort_output *out;
    double *fields, *values, *hist, *member_param;
    unsigned char *diverged;
    void *stepper;
    int64_t stepper_member, converged, iterations;
} steady_run;

/* The file (file_spec.c): the interior points, the model's member values and its history at
 * every check. */
static int steady_open(const cohort_config *c, const run_options *opt, steady_run *r)
{
    char *history = output_history(opt->command_line, NULL);
    r->config_text = config_render(c);
    r->check_iterations = malloc((size_t)(r->checks > 0 ? r->checks : 1) * sizeof(int64_t));
    for (int64_t k = 0; r->check_iterations && k < r->checks; ++k)
        r->check_iterations[k] = (k + 1) * r->p->values.check_every;
    const file_request rq = {.kind = FILE_KIND_STEADY,
                             .plan = r->p,
                             .backend = r->be,
                             .path = r->path,
                             .history = history,
                             .source = opt->version,
                             .config = r->config_text,
                             .replace = opt->overwrite,
                             .chunk = r->chunk,
                             .n_checks = r->checks,
                             .check_iterations = r->check_iterations};
    output_spec *spec = &r->spec;
    file_spec_build(&rq, &r->provenance, spec, NULL);
    const int rc = history && r->config_text && r->check_iterations
                       ? output_create(spec, &r->out)
                       : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "history and configuration text");
    free(history);
    spec->history = NULL;
    if (rc == COHORT_OK) return 0;
    report(REPORT_ERROR, "%s (from %s)", cohort_error_message(),
           opt->output_path ? "-o" : config_get(c, "output", "path")->origin);
    return EXIT_BAD_INPUT;
}

/* The chunk of members [m0, m0 + count) solved and written; a chunk never spans two steppers. */
static int steady_chunk(steady_run *r, int64_t m0, int64_t *count)
{
    const run_plan *p = r->p;
    const cohort_model *model = p->model;
    int64_t same = 1;
    while (same < *count && run_plan_same_stepper(p, m0, m0 + same)) ++same;
    *count = same;
    if (!r->stepper || !run_plan_same_stepper(p, m0, r->stepper_member)) {
        if (r->stepper) model->stepper_free(r->stepper);
        r->stepper = NULL;
        const cohort_model_values v = run_plan_stepper_values(p, m0);
        r->stepper_member = m0;
        COHORT_CALL(model->stepper_alloc(model, r->be, &v, &r->stepper));
    }
    for (int64_t q = 0; q < *count && p->member_param_sweep >= 0; ++q)
        r->member_param[q] = run_plan_swept_value(p, p->member_param_sweep, m0 + q);
    /* the fields leave the solve only where the file keeps them */
    COHORT_CALL(model->steady->solve(
        r->stepper, p->member_param_sweep >= 0 ? r->member_param : NULL, *count,
        r->spec.archive_final ? r->fields : NULL, r->values, r->hist, r->diverged + m0));
    for (int64_t q = 0; q < *count; ++q) {
        r->converged += r->values[*count + q] != 0.0;
        r->iterations += (int64_t)r->values[q];
    }
    for (int v = 0; v < model->steady->n_member_values; ++v)
        COHORT_CALL(output_write_member_value(r->out, v, m0, *count, r->values + v * *count));
    if (r->checks > 0) COHORT_CALL(output_write_member_history(r->out, m0, *count, r->hist));
    if (r->spec.archive_final) COHORT_CALL(output_write_state(r->out, m0, *count, r->fields));
    return COHORT_OK;
}

/* Every chunk, then the flags, the swept parameters and the solve's wall time (for element
 * rates: seed 004's Mega-elements/s, iterations N / s) into *seconds. */
static int steady_solve(const run_options *opt, steady_run *r, double *seconds)
{
    const int64_t members = r->p->members, chunk = r->chunk, n = r->p->n;
    r->fields = malloc((size_t)(r->spec.archive_final ? n * chunk : 1) * sizeof(double));
    r->values = malloc((size_t)(r->p->model->steady->n_member_values * chunk) * sizeof(double));
    r->hist = malloc((size_t)((r->checks > 0 ? r->checks : 1) * chunk) * sizeof(double));
    r->member_param = malloc((size_t)chunk * sizeof(double));
    r->diverged = calloc((size_t)members, 1);
    if (!r->fields || !r->values || !r->hist || !r->member_param || !r->diverged)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "chunks of %lld members", (long long)chunk);
    const double start = cohort_seconds();
    for (int64_t m0 = 0, count = 0; m0 < members; m0 += count) {
        count = m0 + chunk <= members ? chunk : members - m0;
        COHORT_CALL(steady_chunk(r, m0, &count));
        if (!opt->quiet)
            report(REPORT_RESULT, "%lld/%lld members solved, %lld converged",
                   (long long)(m0 + count), (long long)members, (long long)r->converged);
    }
    COHORT_CALL(output_write_diverged(r->out, 0, members, r->diverged));
    COHORT_CALL(file_spec_write_parameters(r->p, r->out, 0, members));
    *seconds = cohort_seconds() - start;
    return output_put_double(r->out, "solve_seconds", *seconds);
}

int run_steady(const cohort_config *c, const run_options *opt, run_plan *p,
               const cohort_backend *be)
{
    steady_run r = {.p = p,
                    .be = be,
                    .stepper_member = -1,
                    .checks = p->values.max_iterations / p->values.check_every};
    int status = steady_refusals(c, p->model);
    /* auto: as many members as fit a budget of 1 GiB of host arrays (the field, the iterate with
     * its ring, omega, coefficients: about 6 n doubles each), so that an ensemble of small
     * members fills a device in one chunk */
    const int64_t fit = ((int64_t)1 << 30) / (int64_t)(6 * sizeof(double)) / p->n;
    const int64_t wanted = p->chunk_wanted ? p->chunk_wanted : fit > 1 ? fit : 1;
    r.chunk = p->chunk = wanted < p->members ? wanted : p->members;
    if (!status) status = run_file_prepare(c, opt, &r.path);
    if (!status) status = steady_open(c, opt, &r);
    double seconds = 0.0;
    if (!status) {
        const int rc = steady_solve(opt, &r, &seconds);
        const int ok = rc == COHORT_OK;
        if (!ok) report(REPORT_ERROR, "%s", cohort_error_message());
        const int closed = output_close(r.out, ok);
        if (ok && closed != COHORT_OK) report(REPORT_ERROR, "%s", cohort_error_message());
        if (ok && closed == COHORT_OK && !opt->quiet)
            report(REPORT_RESULT,
                   "wrote %s: %lld members of %lld x %lld interior points, %lld converged, %lld "
                   "iterations in all, solver %s, %.2f s",
                   r.path, (long long)p->members, (long long)p->values.nx, (long long)p->values.ny,
                   (long long)r.converged, (long long)r.iterations,
                   config_get(c, "solver", "method")->text, seconds);
        status = ok && closed == COHORT_OK ? 0 : EXIT_FAILURE_RUNNING;
    }
    if (r.stepper) p->model->stepper_free(r.stepper);
    free(r.fields), free(r.values), free(r.hist), free(r.member_param), free(r.diverged);
    free(r.config_text), free(r.check_iterations);
    run_plan_free(p);
    return status;
}
