#include "results/uncertainty.h"

#include <gsl/gsl_fit.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "backend/cohort_error.h"
#include "report.h"

/* The fitted line's names: the model's length ("ell", "s") and its slope's and intercept's
 * attributes (ell_vs_log_t_slope, ell_vs_log_t_intercept; s_exponent, s_exponent_intercept). */
typedef struct uncertainty_names {
    const char *length, *slope, *intercept; /* slope NULL: no law holds, the mean's band alone */
    int log_law; /* y = the mean (ell against ln t), else its logarithm */
} uncertainty_names;

int uncertainty_fit_store(cohort_output *out, const char *base, const char *slope_suffix,
                          const double *x, const double *y, size_t n, double *c0, double *c1,
                          double *r)
{
    double cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, y, 1, n, c0, c1, &cov00, &cov01, &cov11, &sumsq);
    *r = gsl_stats_correlation(x, 1, y, 1, n);
    char name[64];
    snprintf(name, sizeof name, "%s%s", base, slope_suffix);
    COHORT_CALL(output_put_double(out, name, *c1));
    snprintf(name, sizeof name, "%s%s_se_ols", base, slope_suffix);
    COHORT_CALL(output_put_double(out, name, n > 2 ? sqrt(cov11) : NAN));
    snprintf(name, sizeof name, "%s_intercept", base);
    COHORT_CALL(output_put_double(out, name, *c0));
    snprintf(name, sizeof name, "%s_intercept_se_ols", base);
    COHORT_CALL(output_put_double(out, name, n > 2 ? sqrt(cov00) : NAN));
    snprintf(name, sizeof name, "%s_r", base);
    return output_put_double(out, name, *r);
}

/* "<base><suffix>" = value (n values) */
static int put(cohort_output *out, const char *base, const char *suffix, int n, const double *value)
{
    char name[96];
    snprintf(name, sizeof name, "%s%s", base, suffix);
    return output_put_doubles(out, name, n, value);
}

/* The records the plan's fits take (t > 0, t >= analysis.fit_from), and their ln t. */
static void fitted_records(const run_plan *p, unsigned char *fit, double *x)
{
    for (int64_t r = 0; r < p->n_records; ++r) {
        fit[r] = run_plan_record_fitted(p, r);
        x[r] = fit[r] ? log(run_plan_record_time(p, r)) : 0.0;
    }
}

static int write_line(cohort_output *out, const uncertainty_names *names, const bootstrap_line *b)
{
    COHORT_CALL(put(out, names->slope, "_se", 1, &b->slope_se));
    COHORT_CALL(put(out, names->slope, "_ci95", 2, b->slope_ci95));
    COHORT_CALL(put(out, names->intercept, "_se", 1, &b->intercept_se));
    COHORT_CALL(put(out, names->intercept, "_ci95", 2, b->intercept_ci95));
    return COHORT_OK;
}

/* What the bootstrap drew from: bootstrap_resamples (0: none), bootstrap_units and
 * bootstrap_unit_members. */
static int write_drawn(cohort_output *out, const run_plan *p, const bootstrap_line *b)
{
    const double resamples = b->units < 2 ? 0 : b->resamples, units = (double)b->units,
                 unit = (double)p->bootstrap_unit;
    COHORT_CALL(output_put_double(out, "bootstrap_resamples", resamples));
    COHORT_CALL(output_put_double(out, "bootstrap_units", units));
    return output_put_double(out, "bootstrap_unit_members", unit);
}

/* "N units of U members" (or "N members", units of one) */
static void units_text(const run_plan *p, int64_t units, char *text, size_t len)
{
    if (p->bootstrap_unit == 1)
        snprintf(text, len, "%lld members", (long long)units);
    else
        snprintf(text, len, "%lld units of %lld members", (long long)units,
                 (long long)p->bootstrap_unit);
}

static int write_bootstrap(cohort_output *out, const run_plan *p, const moments_units *records,
                           const uncertainty_names *names, const uncertainty_options *opt)
{
    const int64_t n = p->n_records;
    unsigned char *fit = malloc((size_t)n);
    double *x = malloc((size_t)n * sizeof *x), *band = malloc((size_t)(2 * n) * sizeof *band);
    int rc = fit && x && band
                 ? COHORT_OK
                 : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "bootstrap of %lld records", (long long)n);
    if (rc == COHORT_OK) fitted_records(p, fit, x);
    if (rc == COHORT_OK && !names->slope) memset(fit, 0, (size_t)n); /* no law: no line to fit */
    bootstrap_line b;
    const bootstrap_series series = bootstrap_series_means(records, n);
    if (rc == COHORT_OK)
        rc = bootstrap_fit_line(&series, fit, x, !names->log_law, opt->resamples, p->ic.seed, &b,
                                opt->with_band ? band : NULL);
    if (rc == COHORT_OK && names->slope) rc = write_line(out, names, &b);
    if (rc == COHORT_OK) rc = write_drawn(out, p, &b);
    char name[64], meaning[256], drawn[96];
    units_text(p, b.units, drawn, sizeof drawn);
    snprintf(name, sizeof name, "%s_mean_ci95", names->length);
    snprintf(meaning, sizeof meaning,
             "95%% interval of %s_mean: the 2.5 and 97.5 percentiles over a bootstrap of the "
             "members in units of %lld (bootstrap_resamples, bootstrap_units)",
             names->length, (long long)p->bootstrap_unit);
    if (rc == COHORT_OK && opt->with_band) rc = output_write_interval(out, name, meaning, n, band);
    if (rc == COHORT_OK && !opt->quiet && names->slope && isfinite(b.slope_se))
        report(REPORT_RESULT,
               "%s: standard error %.2g, 95%% interval %.4g .. %.4g (bootstrap of %s, %d "
               "resamples)",
               names->slope, b.slope_se, b.slope_ci95[0], b.slope_ci95[1], drawn, b.resamples);
    else if (rc == COHORT_OK && !opt->quiet && b.units < 2)
        report(REPORT_RESULT,
               "%s: no bootstrap error bars (NaN): the bootstrap needs 2 units or more, and the "
               "members fill %s",
               names->slope ? names->slope : names->length, drawn);
    free(fit), free(x), free(band);
    return rc;
}

static int write_units(cohort_output *out, const char *length, const moments_units *records,
                       int64_t n)
{
    const int64_t units = n > 0 ? records[0].n_units : 0, unit = n > 0 ? records[0].unit : 1;
    double *v = malloc((size_t)(n * units * 3) * sizeof *v);
    if (!v) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "unit moments of %lld records", (long long)n);
    for (int64_t r = 0; r < n; ++r)
        for (int64_t k = 0; k < units; ++k) {
            const moments *m = &records[r].units[k];
            double *d = v + (r * units + k) * 3;
            d[0] = m->count, d[1] = m->mean, d[2] = m->m2;
        }
    char name[64], meaning[256];
    snprintf(name, sizeof name, "%s_block_moments", length);
    snprintf(meaning, sizeof meaning,
             "count, mean and sum of squared deviations of %s over each unit of %lld consecutive "
             "members (the units of the bootstrap)",
             length, (long long)unit);
    const int rc = output_write_unit_moments(out, name, meaning, n, units, unit, v);
    free(v);
    return rc;
}

/* The fitted records' points (t > 0, t >= analysis.fit_from, a finite y) of the mean curve. */
static size_t fit_points(const run_plan *p, const moments_units *records, int log_law, double *x,
                         double *y)
{
    size_t n = 0;
    for (int64_t r = 0; r < p->n_records; ++r) {
        const moments e = moments_units_total(&records[r]);
        const double v = log_law ? e.mean : log(e.mean);
        if (run_plan_record_fitted(p, r) && e.count > 0 && isfinite(v))
            x[n] = log(run_plan_record_time(p, r)), y[n++] = v;
    }
    return n;
}

int uncertainty_fit_length(cohort_output *out, const run_plan *p, const moments_units *records,
                           const uncertainty_options *opt)
{
    const int quiet = opt->quiet;
    const cohort_model_statistics *st = p->model->statistics;
    const int log_law = st->fit == COHORT_FIT_LINEAR_IN_LOG_T;
    const char *l = st->length_name;
    if (st->fit == COHORT_FIT_NONE) { /* no law: the mean's band alone */
        const uncertainty_names names = {l, NULL, NULL, 1};
        int rc = COHORT_OK;
        if (opt->with_units) rc = write_units(out, l, records, p->n_records);
        if (rc == COHORT_OK && opt->resamples > 0 && opt->with_band)
            rc = write_bootstrap(out, p, records, &names, opt);
        return rc;
    }
    double *x = malloc((size_t)p->n_records * sizeof *x),
           *y = malloc((size_t)p->n_records * sizeof *y);
    int rc = x && y ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the fit's points");
    const size_t n = rc == COHORT_OK ? fit_points(p, records, log_law, x, y) : 0;
    char base[64], slope[80], intercept[80];
    snprintf(base, sizeof base, "%s%s", l, log_law ? "_vs_log_t" : "_exponent");
    snprintf(slope, sizeof slope, "%s%s", base, log_law ? "_slope" : "");
    snprintf(intercept, sizeof intercept, "%s_intercept", base);
    double c0 = 0.0, c1 = 0.0, r = 0.0;
    if (rc == COHORT_OK && n >= 3) {
        rc = uncertainty_fit_store(out, base, log_law ? "_slope" : "", x, y, n, &c0, &c1, &r);
        if (rc == COHORT_OK && !quiet && log_law)
            report(REPORT_RESULT, "%s_mean = %.4g %s %.4g ln t (r = %.4f) from t = %g on", l, c0,
                   c1 < 0 ? "-" : "+", fabs(c1), r, run_plan_fit_start(p));
        else if (rc == COHORT_OK && !quiet)
            report(REPORT_RESULT, "%s_mean = %.4g t^%.4g (r = %.4f) from t = %g on", l, exp(c0), c1,
                   r, run_plan_fit_start(p));
        const uncertainty_names names = {l, slope, intercept, log_law};
        if (rc == COHORT_OK && opt->with_units) rc = write_units(out, l, records, p->n_records);
        if (rc == COHORT_OK && opt->resamples > 0)
            rc = write_bootstrap(out, p, records, &names, opt);
    }
    free(x), free(y);
    return rc;
}

int uncertainty_bootstrap_inverse_k1(cohort_output *out, const run_plan *p,
                                     const structure_factor *sf, int resamples, int quiet)
{
    const int64_t n = p->n_records;
    unsigned char *fit = malloc((size_t)n);
    double *x = malloc((size_t)n * sizeof *x);
    int rc = fit && x ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k1's bootstrap");
    if (rc == COHORT_OK) fitted_records(p, fit, x);
    const bootstrap_series series = structure_factor_series_inverse_k1(sf);
    bootstrap_line b;
    if (rc == COHORT_OK)
        rc = bootstrap_fit_line(&series, fit, x, 1, resamples, p->ic.seed, &b, NULL);
    const uncertainty_names names = {"k1", "inverse_k1_exponent", "inverse_k1_exponent_intercept",
                                     0};
    if (rc == COHORT_OK) rc = write_line(out, &names, &b);
    char drawn[96];
    units_text(p, b.units, drawn, sizeof drawn);
    if (rc == COHORT_OK && !quiet && isfinite(b.slope_se))
        report(REPORT_RESULT,
               "inverse_k1_exponent: standard error %.2g, 95%% interval %.4g .. %.4g (bootstrap "
               "of %s, %d resamples)",
               b.slope_se, b.slope_ci95[0], b.slope_ci95[1], drawn, b.resamples);
    free(fit), free(x);
    return rc;
}
