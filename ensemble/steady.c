#include "steady.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "output.h"

enum { EXIT_FAILURE_RUNNING = 1, EXIT_BAD_INPUT = 2 };

int run_steady(const cohort_config *c, const run_options *opt, run_plan *p,
               const cohort_backend *be)
{
    const cohort_model *model = p->model;
    const int64_t members = p->members, n = p->n,
                  checks = p->values.max_iterations / p->values.check_every;
    /* what a steady run cannot do is refused, not ignored, before anything is done */
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
        fprintf(stderr, "cohort run: %s: %s.%s = %s: %s is steady: %s\n", v->origin,
                cannot[q].section, cannot[q].name, v->text, model->name, cannot[q].why);
        run_plan_free(p);
        return EXIT_BAD_INPUT;
    }
    /* auto: as many members as fit a budget of 1 GiB of host arrays (the field, the iterate with
     * its ring, omega, coefficients: about 6 n doubles each), so that an ensemble of small
     * members fills a device in one chunk */
    const config_value *chunk_key = config_get(c, "ensemble", "chunk");
    const int64_t fit = ((int64_t)1 << 30) / (int64_t)(6 * sizeof(double)) / n;
    const int64_t wanted = chunk_key->is_auto ? (fit > 1 ? fit : 1) : chunk_key->integer;
    const int64_t chunk = wanted < members ? wanted : members;
    p->chunk = chunk;
    const char *path = NULL;
    if (run_output_path(c, opt, &path)) {
        run_plan_free(p);
        return EXIT_BAD_INPUT;
    }
    run_provenance provenance;
    char *history = output_history(opt->command_line, NULL);
    char *config_text = config_render(c);
    int64_t *check_iterations = malloc((size_t)(checks > 0 ? checks : 1) * sizeof(int64_t));
    for (int64_t k = 0; check_iterations && k < checks; ++k)
        check_iterations[k] = (k + 1) * p->values.check_every;
    /* the interior points (i h, j k), i = 1 .. nx: a closed grid from h to 1 - h */
    const double h = 1.0 / (double)(p->values.nx + 1), k = 1.0 / (double)(p->values.ny + 1);
    output_spec spec = {.path = path,
                        .archive_final = !strcmp(config_get(c, "output", "archive")->text, "final"),
                        .archive_float =
                            !strcmp(config_get(c, "output", "precision")->text, "float"),
                        .chunk_members = chunk,
                        .title = "cohort steady ensemble",
                        .history = history,
                        .source = opt->version,
                        .config = config_text};
    run_plan_output_spec(p, model->name, be, &provenance, &spec);
    spec.closed = 1, spec.origin = h, spec.length = 1.0 - 2.0 * h;
    spec.origin_y = k, spec.length_y = 1.0 - 2.0 * k;
    spec.field_name = "u";
    spec.steady = 1;
    spec.n_checks = checks, spec.check_iterations = check_iterations;
    spec.history_name = model->history_name, spec.history_meaning = model->history_meaning;
    spec.n_member_values = model->n_member_values;
    for (int q = 0; q < model->n_member_values; ++q) {
        spec.member_value_name[q] = model->member_values[q].name;
        spec.member_value_meaning[q] = model->member_values[q].meaning;
        spec.member_value_int[q] = 1;
    }
    cohort_output *out = NULL;
    int rc = history && config_text && check_iterations
                 ? output_create(&spec, &out)
                 : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "history and configuration text");
    free(history);
    if (rc != COHORT_OK) {
        fprintf(stderr, "cohort run: %s (from %s)\n", cohort_error_message(),
                opt->output_path ? "-o" : config_get(c, "output", "path")->origin);
        free(config_text), free(check_iterations);
        run_plan_free(p);
        return EXIT_BAD_INPUT;
    }
    double *fields = malloc((size_t)(n * chunk) * sizeof(double));
    double *values = malloc((size_t)(model->n_member_values * chunk) * sizeof(double));
    double *hist = malloc((size_t)((checks > 0 ? checks : 1) * chunk) * sizeof(double));
    double *member_param = malloc((size_t)chunk * sizeof(double));
    unsigned char *diverged = calloc((size_t)members, 1);
    if (!fields || !values || !hist || !member_param || !diverged)
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "chunks of %lld members", (long long)chunk);
    void *stepper = NULL;
    int64_t stepper_member = -1, converged = 0, iterations = 0;
    const double start = cohort_seconds();
    for (int64_t m0 = 0, count = 0; m0 < members && rc == COHORT_OK; m0 += count) {
        count = m0 + chunk <= members ? chunk : members - m0;
        int64_t same = 1; /* a chunk never spans two steppers */
        while (same < count && run_plan_same_stepper(p, m0, m0 + same)) ++same;
        count = same;
        if (!stepper || !run_plan_same_stepper(p, m0, stepper_member)) {
            if (stepper) model->stepper_free(stepper);
            stepper = NULL;
            const cohort_model_values v = run_plan_stepper_values(p, m0);
            rc = model->stepper_alloc(model, be, &v, &stepper);
            stepper_member = m0;
            if (rc != COHORT_OK) break;
        }
        for (int64_t q = 0; q < count && p->member_param_sweep >= 0; ++q)
            member_param[q] = run_plan_swept_value(p, p->member_param_sweep, m0 + q);
        rc = model->solve(stepper, p->member_param_sweep >= 0 ? member_param : NULL, count, fields,
                          values, hist);
        for (int64_t q = 0; q < count && rc == COHORT_OK; ++q) {
            converged += values[count + q] != 0.0;
            iterations += (int64_t)values[q];
            for (int64_t i = 0; i < n; ++i) diverged[m0 + q] |= !isfinite(fields[q * n + i]);
        }
        for (int v = 0; v < model->n_member_values && rc == COHORT_OK; ++v)
            rc = output_write_member_value(out, v, m0, count, values + v * count);
        if (rc == COHORT_OK && checks > 0) rc = output_write_member_history(out, m0, count, hist);
        if (rc == COHORT_OK && spec.archive_final) rc = output_write_state(out, m0, count, fields);
        if (!opt->quiet)
            fprintf(stderr, "%lld/%lld members solved, %lld converged\n", (long long)(m0 + count),
                    (long long)members, (long long)converged);
    }
    if (rc == COHORT_OK) rc = output_write_diverged(out, 0, members, diverged);
    if (rc == COHORT_OK) rc = run_plan_write_parameters(p, out, 0, p->members);
    /* the solve's wall time, for element rates (seed 004's Mega-elements/s: iterations N / s) */
    const double seconds = cohort_seconds() - start;
    if (rc == COHORT_OK) rc = output_put_double(out, "solve_seconds", seconds);
    const int ok = rc == COHORT_OK;
    if (!ok) fprintf(stderr, "cohort run: %s\n", cohort_error_message());
    const int closed = output_close(out, ok);
    if (ok && closed != COHORT_OK) fprintf(stderr, "cohort run: %s\n", cohort_error_message());
    if (ok && closed == COHORT_OK && !opt->quiet)
        fprintf(stderr,
                "wrote %s: %lld members of %lld x %lld interior points, %lld converged, %lld "
                "iterations in all, solver %s, %.2f s\n",
                path, (long long)members, (long long)p->values.nx, (long long)p->values.ny,
                (long long)converged, (long long)iterations,
                config_get(c, "solver", "method")->text, seconds);
    if (stepper) model->stepper_free(stepper);
    free(fields), free(values), free(hist), free(member_param), free(diverged);
    free(config_text), free(check_iterations);
    run_plan_free(p);
    return ok && closed == COHORT_OK ? 0 : EXIT_FAILURE_RUNNING;
}
