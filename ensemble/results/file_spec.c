/* The output spec of every kind of cohort file (file_spec.h), built here alone. */
#include "results/file_spec.h"

#include <gsl/gsl_version.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/structure_factor.h"
#include "backend/cohort_error.h"
#include "results/analyze_sensitivity.h"

/* The swept parameters: each key's name, meaning and units, a grid's values, a space-filling
 * design's range, distribution and Sobol shifts, and the design. */
static void file_spec_parameters(const run_plan *p, file_provenance *pv, output_spec *spec)
{
    for (int j = 0; j < p->n_sweeps; ++j) {
        size_t n_keys;
        const config_key *k = &config_schema(&n_keys)[p->sweep[j]->key];
        snprintf(pv->keys[j], sizeof pv->keys[j], "%s.%s", k->section, k->name);
        spec->param_key[j] = pv->keys[j];
        spec->param_meaning[j] = k->meaning;
        spec->param_units[j] = k->units[0] ? k->units : "1";
        spec->param_grid_count[j] = p->design == DESIGN_GRID ? p->sweep[j]->count : 0;
        spec->param_values[j] = p->sweep[j]->values;
        spec->param_lo[j] = p->sweep[j]->lo;
        spec->param_hi[j] = p->sweep[j]->hi;
        spec->param_log[j] = p->sweep[j]->log;
        spec->param_shifts[j] = p->design == DESIGN_SOBOL      ? 1
                                : p->design == DESIGN_SALTELLI ? 2
                                                               : 0;
        for (int s = 0; s < spec->param_shifts[j]; ++s) /* saltelli: A's column, then B's */
            spec->param_shift[j][s] = design_sobol_shift(p->ic.seed, j + s * p->n_sweeps);
    }
    if (p->n_sweeps > 0 && design_space_filling(p->design)) {
        spec->design = design_name(p->design);
        spec->design_arms = p->design == DESIGN_SALTELLI ? design_saltelli_arms(p->n_sweeps) : 1;
        spec->design_points = p->points / spec->design_arms;
    }
}

/* What every kind shares: sizes, domain, swept parameters, backend, device, library versions,
 * model, seed and what the command adds. */
static void file_spec_common(const file_request *rq, file_provenance *pv, output_spec *spec)
{
    const run_plan *p = rq->plan;
    const cohort_backend *be = rq->backend;
    char cuda[128];
    be->describe(pv->device, sizeof pv->device);
    cohort_cuda_versions(cuda, sizeof cuda);
    snprintf(pv->libraries, sizeof pv->libraries, "NetCDF-C %s; GSL %s; %s",
             output_netcdf_version(), GSL_VERSION, cuda);
    *spec = (output_spec){.path = rq->path,
                          .members = p->members,
                          .n = p->n,
                          .nx = p->values.nx,
                          .ny = p->model->dimension == 2 ? p->values.ny : 0,
                          .length = p->values.length,
                          .length_name =
                              p->model->statistics ? p->model->statistics->length_name : NULL,
                          .field_meaning = p->model->field_meaning,
                          .archive_final = p->archive_final,
                          .archive_float = p->archive_float,
                          .chunk_members = p->chunk,
                          .backend = rq->ran_backend ? rq->ran_backend : be->name,
                          .device = rq->ran_device ? rq->ran_device : pv->device,
                          .libraries = pv->libraries,
                          .model = p->model->name,
                          .seed = p->ic.seed,
                          .history = rq->history,
                          .source = rq->source,
                          .config = rq->config,
                          .run_id = rq->run_id,
                          .replace = rq->replace,
                          .n_params = p->n_sweeps};
    if (p->model->boundaries) { /* nodes 0 .. nx at origin + i L / nx */
        spec->closed = 1;
        spec->origin = p->values.origin;
        spec->nx = p->values.nx + 1;
        spec->ny = p->model->dimension == 2 ? p->values.ny + 1 : 0;
    }
    file_spec_parameters(p, pv, spec);
}

/* A run's member values: an adaptive model's step counts and, from the exact solution, the
 * errors of seed 000 eq. 31-33; value_slot[q] names the RUN_VALUE_* of the file's value q. */
static void file_spec_member_values(const run_plan *p, int exact, output_spec *spec,
                                    int value_slot[RUN_VALUES])
{
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
    int n_values = 0;
    for (int q = p->model->adaptive ? RUN_VALUE_ACCEPTED : RUN_VALUE_L1;
         q <= (exact ? RUN_VALUE_LINF : RUN_VALUE_REJECTED); ++q)
        value_slot[n_values++] = q;
    spec->n_member_values = n_values;
    for (int q = 0; q < n_values; ++q) {
        spec->member_value_name[q] = value_name[value_slot[q]];
        spec->member_value_meaning[q] = value_meaning[value_slot[q]];
        spec->member_value_int[q] = value_slot[q] <= RUN_VALUE_REJECTED;
    }
}

/* A run's file over members [first, end), or a part's with its merge data (a part keeps the
 * k-means features for cohort merge rather than clustering them). */
static void file_spec_run(const file_request *rq, output_spec *spec, int value_slot[RUN_VALUES])
{
    const run_plan *p = rq->plan;
    const int part = rq->kind == FILE_KIND_PART;
    spec->title = "cohort ensemble";
    spec->members = rq->end - rq->first;
    spec->member_first = rq->first;
    spec->part_of = part ? p->members : 0;
    spec->n_snapshots = p->n_snapshots;
    spec->member_series = p->member_series;
    spec->structure_factor = p->structure_factor;
    spec->kmeans_k = part ? 0 : p->kmeans_k;
    spec->kmeans_auto = !part && p->kmeans_auto;
    spec->merge_features = part && (p->kmeans_k > 0 || p->kmeans_auto);
    /* the model's observables over t */
    const cohort_model_observing *obs = p->model->observing;
    const int n_obs = obs ? obs->n_observables : 0;
    spec->n_series = n_obs;
    spec->merge_statistics = part ? 2 + n_obs : 0;
    spec->merge_unit = p->bootstrap_unit;
    spec->merge_sobol_values =
        part && p->sensitivity ? sensitivity_stream_values(p, rq->first, rq->end) : 0;
    spec->merge_sum_rows =
        part && spec->structure_factor ? structure_factor_sum_rows(p->values.nx, p->values.ny) : 0;
    for (int q = 0; q < n_obs; ++q) {
        spec->series_name[q] = obs->observables[q].name;
        spec->series_meaning[q] = obs->observables[q].meaning;
        spec->series_units[q] = obs->observables[q].units;
    }
    const int exact =
        obs && obs->exact_kind && config_list_has(obs->exact_kind, '|', p->values.initial_kind);
    file_spec_member_values(p, exact, spec, value_slot);
}

/* A steady run's file: the interior points (i h, j k), i = 1 .. nx, a closed grid from h to
 * 1 - h; the model's member values and its history at every check. */
static void file_spec_steady(const file_request *rq, output_spec *spec)
{
    const run_plan *p = rq->plan;
    const cohort_model_steady *steady = p->model->steady;
    const double h = 1.0 / (double)(p->values.nx + 1), k = 1.0 / (double)(p->values.ny + 1);
    spec->title = "cohort steady ensemble";
    spec->chunk_members = rq->chunk;
    spec->closed = 1, spec->origin = h, spec->length = 1.0 - 2.0 * h;
    spec->origin_y = k, spec->length_y = 1.0 - 2.0 * k;
    spec->field_name = "u";
    spec->steady = 1;
    spec->n_checks = rq->n_checks, spec->check_iterations = rq->check_iterations;
    spec->history_name = steady->history_name;
    spec->history_meaning = steady->history_meaning;
    spec->n_member_values = steady->n_member_values;
    for (int q = 0; q < steady->n_member_values; ++q) {
        spec->member_value_name[q] = steady->member_values[q].name;
        spec->member_value_meaning[q] = steady->member_values[q].meaning;
        spec->member_value_int[q] = 1;
    }
}

/* cohort analyze's file: the analyses of an archive, no fields; t holds the analysed times. */
static void file_spec_analysis(const file_request *rq, output_spec *spec)
{
    spec->title = "cohort analysis of an archived ensemble";
    spec->archive_final = spec->archive_float = 0;
    spec->chunk_members = rq->plan->members;
    spec->structure_factor = rq->structure_factor;
    spec->kmeans_k = rq->kmeans_k;
    spec->kmeans_auto = rq->kmeans_auto;
    spec->analysis_only = 1;
    spec->analysed_file = rq->analysed_file;
}

void file_spec_build(const file_request *rq, file_provenance *pv, output_spec *spec,
                     int value_slot[RUN_VALUES])
{
    file_spec_common(rq, pv, spec);
    switch (rq->kind) {
    case FILE_KIND_RUN:
    case FILE_KIND_PART:
        file_spec_run(rq, spec, value_slot);
        break;
    case FILE_KIND_STEADY:
        file_spec_steady(rq, spec);
        break;
    case FILE_KIND_ANALYSIS:
        file_spec_analysis(rq, spec);
        break;
    }
}

int file_spec_write_parameters(const run_plan *p, cohort_output *out, int64_t first, int64_t count)
{
    if (p->n_sweeps == 0) return COHORT_OK;
    double *values = malloc((size_t)count * sizeof *values);
    if (!values) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "parameter values");
    int rc = COHORT_OK;
    for (int j = 0; j < p->n_sweeps && rc == COHORT_OK; ++j) {
        for (int64_t g = 0; g < count; ++g) values[g] = run_plan_swept_value(p, j, first + g);
        rc = output_write_parameter(out, j, values);
    }
    free(values);
    return rc;
}
