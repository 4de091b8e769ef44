/* The explicit 1D models of seed 001 (the swept rule): heat1d (eq. 2, insulated ends) and ks1d
 * (eq. 3-4, periodic), each with two steppers, time.stepper = classic | swept, that compute every
 * point of every tier with the same arithmetic (swept1d_numerics.h) and so give the same bits.
 * heat1d/ and ks1d/ hold the descriptors, which point at the family's tables. */
#ifndef COHORT_SWEPT1D_H
#define COHORT_SWEPT1D_H

#include "models/model.h"
#include "models/swept1d/swept1d_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scheme of a member of n points (heat: n nodes) with spacing dx and step dt; alpha is heat's
 * diffusivity (unused by KS). */
swept1d_scheme swept1d_scheme_make(int ks, int64_t n, double dx, double dt, double alpha);

/* The tile width time.block_width = auto picks for members of n points, count at a time (the
 * best of bench-swept, solvers/models/swept1d/PERFORMANCE.md; a member that fits in one block's
 * shared memory is one tile). */
int64_t swept1d_auto_width(const cohort_backend *be, int ks, int64_t n, int64_t count);

/* heat1d: Fo = alpha dt / dx^2 <= 1/2 (eq. 2 is stable for Fo <= 1/2 only), time.dt = auto takes
 * Fo = 0.4. ks1d: the midpoint method on the linear part, u_t = -u_xx - u_xxxx, whose most
 * negative eigenvalue is 4/dx^2 - 16/dx^4 (at the Nyquist mode), is stable for dt <= 2 / (16/dx^4
 * - 4/dx^2); auto takes half of that, the other half being the margin for the advective term. */
double swept1d_dt_auto(const cohort_model_values *v);
double swept1d_dt_limit(const cohort_model *m, const cohort_model_values *v, double mean);

/* The family's stepper; heat1d and ks1d delegate to it with ks = 0 and 1. */
int swept1d_stepper_alloc(int ks, const cohort_model *m, const cohort_backend *be,
                          const cohort_model_values *v, void **stepper);
void swept1d_stepper_free(void *stepper);
int swept1d_initial_fill(void *stepper, double *u, const double *amplitude, const double *mean,
                         int64_t ld, int64_t count);
int swept1d_observe(void *stepper, const double *u, double t, double *values, int64_t ld,
                    int64_t count);
int swept1d_check(const cohort_model *m, const cohort_model_values *v, const char **key, char *why,
                  size_t len);
/* heat1d's exact solution at node x_i = i L / cells (shape times amplitude, plus mean), for the
 * initial kinds ramp and cosine: the series of the insulated rod (see swept1d.c) */
double heat1d_exact(int ramp, double mode, double alpha, double length, double xi_over_length,
                    double t);

/* The family's tables, which heat1d and ks1d point at: one step or many (the swept rule keeps a
 * tile's rows on chip between steps), the same arithmetic classic or swept (time.stepper). */
extern const cohort_model_stepping swept1d_stepping;
extern const cohort_model_on_chip swept1d_on_chip;

#ifdef __cplusplus
}
#endif
#endif
