/* The model's coarsening law and its error bars (issue "statistics you can trust"): the line
 * fitted to the ensemble mean of its length over the records from analysis.fit_from on (ell_mean
 * against ln t, seed 003 Fig. 9; ln s_mean against ln t, cuSten Fig. 1), its least-squares
 * standard errors, and a bootstrap of it over units of members (analysis/bootstrap.h) with each
 * record's 95% band; and the units' moments the bootstrap resamples, from which `cohort analyze
 * --bootstrap` redoes it. Used by `cohort run` (finish.c) and `cohort analyze`. */
#ifndef COHORT_UNCERTAINTY_H
#define COHORT_UNCERTAINTY_H

#include <stddef.h>

#include "analysis/moments.h"
#include "analysis/structure_factor.h"
#include "config/plan.h"
#include "io/output.h"

/* A least-squares line y = c0 + c1 x (GSL) of n points and its correlation r, stored as the
 * global attributes <base><slope_suffix>, <base>_intercept and <base>_r, with the ordinary
 * least-squares standard errors (the points' scatter about the line) <base><slope_suffix>_se_ols
 * and <base>_intercept_se_ols. */
int uncertainty_fit_store(cohort_output *out, const char *base, const char *slope_suffix,
                          const double *x, const double *y, size_t n, double *c0, double *c1,
                          double *r);

typedef struct uncertainty_options {
    int resamples;  /* the bootstrap's (0: none) */
    int with_units; /* <l>_block_moments(t, unit, moment) */
    int with_band;  /* <l>_mean_ci95(t, bound), the bootstrap's band over the records' t */
    int quiet;      /* no summary lines on stderr */
} uncertainty_options;

/* The law of p's model's length (p->model->statistics) from records[0 .. p->n_records): the
 * fit as uncertainty_fit_store (<l>_vs_log_t_slope ... or <l>_exponent ...) where 3 records or
 * more are fitted, and as the options ask, the units and the bootstrap: <slope>_se,
 * <slope>_ci95 (2 values), the same of the intercept, bootstrap_resamples, bootstrap_units,
 * bootstrap_unit_members and the band. */
int uncertainty_fit_length(cohort_output *out, const run_plan *p, const moments_units *records,
                           const uncertainty_options *opt);

/* inverse_k1_exponent's bootstrap (<slope>_se, _ci95 and the intercept's) from the structure
 * factor's per-unit sums of every record (structure_factor.h). */
int uncertainty_bootstrap_inverse_k1(cohort_output *out, const run_plan *p,
                                     const structure_factor *sf, int resamples, int quiet);

#endif
