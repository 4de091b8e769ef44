#include "results/finish.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "report.h"
#include "results/analyze_sensitivity.h"
#include "results/uncertainty.h"

_Static_assert((int)MOMENTS_BLOCK == (int)ORDERED_SUM_BLOCK,
               "parts start where the structure factor's blocks do");
_Static_assert(sizeof(moments) == 3 * sizeof(double), "moments stored as three doubles");

/* Record r's statistics over all members, complete once the last chunk has reached it: t, the
 * length and mass, the model's series and the structure factor. */
int run_write_record(cohort_output *out, const run_plan *p, const run_accumulators *a,
                     double *spectrum, int64_t r)
{
    const moments e = moments_units_total(&a->ell[r]);
    const moments m = moments_units_total(&a->mass[r]);
    COHORT_CALL(output_write_record(out, r, p->record_step[r] * p->values.dt,
                                    e.count ? e.mean : NAN, moments_variance(&e), moments_sem(&e),
                                    m.count ? m.mean : NAN, (int64_t)e.count));
    for (int q = 0; q < a->n_obs; ++q) {
        const moments o = moments_units_total(&a->obs[q * a->n_records + r]);
        COHORT_CALL(output_write_series(out, r, q, o.count ? o.mean : NAN, moments_variance(&o),
                                        moments_sem(&o)));
    }
    if (!a->sf) return COHORT_OK;
    double k1 = NAN;
    COHORT_CALL(structure_factor_result(a->sf, r, (int64_t)e.count, spectrum, &k1));
    return output_write_spectrum(out, r, spectrum, k1);
}

/* The k-means features: every member's final field, member-major, in host memory. */
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

/* A part's merge data: each record's statistics units (the accumulators hold the part's
 * alone), the structure factor's block sums and unit sums from the part's first, and the k-means
 * features. */
static int finish_merge_data(cohort_output *out, const run_plan *p, const run_accumulators *a,
                             const run_finish_options *o)
{
    const int64_t b0 = o->first / MOMENTS_BLOCK, u0 = o->first / p->bootstrap_unit;
    for (int64_t r = 0; r < p->n_records; ++r) {
        COHORT_CALL(output_write_merge_moments(out, 0, r, a->ell[r].units));
        COHORT_CALL(output_write_merge_moments(out, 1, r, a->mass[r].units));
        for (int q = 0; q < a->n_obs; ++q)
            COHORT_CALL(
                output_write_merge_moments(out, 2 + q, r, a->obs[q * a->n_records + r].units));
        const ordered_sum *s = a->sf ? &a->sf->sums[r] : NULL;
        if (s && s->host)
            COHORT_CALL(output_write_merge_sums(out, r, s->host + (size_t)b0 * (size_t)s->rows));
        const ordered_sum *k1 = a->sf ? &a->sf->k1_units[r] : NULL;
        if (k1 && k1->host)
            COHORT_CALL(output_write_merge_k1_units(
                out, r, k1->host + (size_t)u0 * STRUCTURE_FACTOR_K1_TERMS));
    }
    if (a->features)
        COHORT_CALL(output_write_merge_features(out, o->first, o->end - o->first, a->features));
    if (!a->sobol) return COHORT_OK;
    double *sums = malloc((size_t)sobol_stream_values(a->sobol) * sizeof *sums);
    int rc = sums ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the Sobol sums");
    for (int64_t r = 0; r < p->n_records && rc == COHORT_OK; ++r) {
        sobol_stream_save(a->sobol, r, sums);
        rc = output_write_merge_sobol(out, r, sums);
    }
    free(sums);
    return rc;
}

/* The Sobol indices of the statistics streamed, at the record times, and of the k-means regimes
 * where the run clustered its members (from the labels written by now). */
static int finish_sensitivity(cohort_output *out, const run_plan *p, const sobol_stream *st,
                              int quiet)
{
    const char *names[SENSITIVITY_MAX_STATISTICS];
    sensitivity_statistics(p, names);
    double *times = malloc((size_t)p->n_records * sizeof *times);
    if (!times) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld times", (long long)p->n_records);
    for (int64_t r = 0; r < p->n_records; ++r) times[r] = p->record_step[r] * p->values.dt;
    const int rc =
        sensitivity_write(out, output_ncid(out), p, st, names, times, p->bootstrap, quiet);
    free(times);
    return rc;
}

int run_finish(cohort_output *out, const run_plan *p, run_accumulators *a,
               const run_finish_options *o, int64_t *n_diverged)
{
    const cohort_model *model = p->model;
    /* 1/k1 as a power of t, where the model's length is one too (ell's law is logarithmic) */
    const int power_law = model->statistics && model->statistics->fit == COHORT_FIT_POWER_LAW;
    structure_factor *sf = a->sf;
    double *k1_x = malloc((size_t)p->n_records * sizeof(double));
    double *k1_y = malloc((size_t)p->n_records * sizeof(double));
    double *spectrum =
        sf ? malloc((size_t)structure_factor_k_count(sf->nx, sf->ny) * sizeof(double)) : NULL;
    size_t n_k1 = 0;
    int rc = COHORT_OK;
    if (!k1_x || !k1_y || (sf && !spectrum))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "fits of %lld records", (long long)p->n_records);
    /* the records (a run wrote each as its last chunk completed it), and 1/k1's points */
    for (int64_t r = 0; r < p->n_records && rc == COHORT_OK; ++r) {
        if (o->write_records) rc = run_write_record(out, p, a, spectrum, r);
        const moments e = moments_units_total(&a->ell[r]);
        const double t = run_plan_record_time(p, r);
        if (sf && rc == COHORT_OK) {
            double k1 = NAN;
            rc = structure_factor_result(sf, r, (int64_t)e.count, spectrum, &k1);
            /* 1/k1 ~ t^p (cuSten Fig. 1), over the times of the s fit */
            if (run_plan_record_fitted(p, r) && isfinite(log(k1)))
                k1_x[n_k1] = log(t), k1_y[n_k1++] = -log(k1);
        }
    }
    *n_diverged = 0;
    for (int64_t m = o->first; m < o->end; ++m) *n_diverged += a->diverged[m];
    if (rc == COHORT_OK)
        rc = output_write_diverged(out, o->first, o->end - o->first, a->diverged + o->first);
    if (rc == COHORT_OK) rc = file_spec_write_parameters(p, out, o->first, o->end - o->first);
    /* an adaptive model's steps are its members' own (steps_accepted): dt is the records' theta */
    if (rc == COHORT_OK)
        rc = output_put_double(out, model->adaptive ? "record_interval" : "dt", p->values.dt);
    if (rc == COHORT_OK && o->part) rc = finish_merge_data(out, p, a, o);
    /* the model's length's law, with its error bars where the file holds every member */
    if (rc == COHORT_OK && model->statistics)
        rc = uncertainty_fit_length(
            out, p, a->ell,
            &(uncertainty_options){o->part ? 0 : p->bootstrap, !o->part, !o->part, o->quiet});
    double c0 = 0.0, c1 = 0.0, fit_r = 0.0;
    if (rc == COHORT_OK && power_law && n_k1 >= 3) {
        rc = uncertainty_fit_store(out, "inverse_k1_exponent", "", k1_x, k1_y, n_k1, &c0, &c1,
                                   &fit_r);
        if (rc == COHORT_OK && !o->quiet)
            report(REPORT_RESULT, "1/k1 = %.4g t^%.4g (r = %.4f) from t = %g on", exp(c0), c1,
                   fit_r, run_plan_fit_start(p));
        if (rc == COHORT_OK && !o->part && p->bootstrap > 0)
            rc = uncertainty_bootstrap_inverse_k1(out, p, sf, p->bootstrap, o->quiet);
    }
    if (rc == COHORT_OK && (a->features || o->fields) && !o->part) {
        structure_factor_free(sf); /* room for the clustering */
        a->sf = sf = NULL;
        clustering_options copt = clustering_options_from_plan(p);
        copt.quiet = o->quiet, copt.team = o->team;
        run_features f = {a->features, a->n};
        rc = o->fields ? clustering_run(o->be, p, &copt, o->fields, o->fields_ctx, a->diverged, out)
                       : clustering_run(o->be, p, &copt, run_features_load, &f, a->diverged, out);
    }
    /* the Sobol indices, from the sums streamed over all members (and the labels by now) */
    if (rc == COHORT_OK && a->sobol && !o->part)
        rc = finish_sensitivity(out, p, a->sobol, o->quiet);
    free(k1_x), free(k1_y), free(spectrum);
    return rc;
}

int run_accumulators_alloc(run_accumulators *a, const run_plan *p, int n_obs, int64_t first,
                           int64_t end)
{
    const int64_t members = p->members, n_records = p->n_records, unit = p->bootstrap_unit;
    *a = (run_accumulators){
        .members = members, .n = p->n, .n_records = n_records, .n_obs = n_obs, .first = first};
    a->diverged = calloc((size_t)members, 1);
    a->ell = calloc((size_t)n_records, sizeof *a->ell);
    a->mass = calloc((size_t)n_records, sizeof *a->mass);
    /* observable q at record r: obs[q * n_records + r] */
    a->obs = calloc((size_t)(n_obs * n_records) + 1, sizeof *a->obs);
    if (!a->diverged || !a->ell || !a->mass || !a->obs)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "accumulators of %lld members",
                           (long long)members);
    for (int64_t r = 0; r < n_records; ++r) {
        COHORT_CALL(moments_units_alloc(&a->ell[r], members, unit, first, end));
        COHORT_CALL(moments_units_alloc(&a->mass[r], members, unit, first, end));
        for (int q = 0; q < n_obs; ++q)
            COHORT_CALL(moments_units_alloc(&a->obs[q * n_records + r], members, unit, first, end));
    }
    if (!p->sensitivity) return COHORT_OK;
    const char *names[SENSITIVITY_MAX_STATISTICS];
    if (!(a->sobol = malloc(sizeof *a->sobol)))
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the Sobol sums");
    const int rc = sensitivity_stream_alloc(a->sobol, p, sensitivity_statistics(p, names),
                                            n_records, first, end);
    if (rc != COHORT_OK) free(a->sobol), a->sobol = NULL;
    return rc;
}

void run_accumulators_free(run_accumulators *a)
{
    for (int64_t r = 0; r < a->n_records; ++r) {
        if (a->ell) moments_units_free(&a->ell[r]);
        if (a->mass) moments_units_free(&a->mass[r]);
        for (int q = 0; q < a->n_obs && a->obs; ++q)
            moments_units_free(&a->obs[q * a->n_records + r]);
    }
    free(a->ell), free(a->mass), free(a->obs), free(a->diverged), free(a->features);
    structure_factor_free(a->sf);
    if (a->sobol) sobol_stream_free(a->sobol);
    free(a->sobol);
    *a = (run_accumulators){0};
}
