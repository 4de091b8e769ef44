/* The curvature flows of graphs (seed 000) as models: the complementary finite volumes of
 * curvature_numerics.h in space and the adaptive Runge-Kutta-Merson integrator (ode/rkm.h) in
 * time, on the closed square [origin, origin + L]^2 with Dirichlet or Neumann boundaries. mcf2d/
 * and willmore2d/ hold the descriptors; they point at the family's tables. */
#ifndef COHORT_CURVATURE2D_H
#define COHORT_CURVATURE2D_H

#include "models/curvature2d/curvature_numerics.h"
#include "models/model.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CURVATURE2D_PARAM_N, CURVATURE2D_PARAM_R, CURVATURE2D_PARAM_SIGMA, CURVATURE2D_N_PARAMS };

extern const cohort_model_param curvature2d_params[CURVATURE2D_N_PARAMS];
extern const cohort_model_observable curvature2d_observables[2];

/* The grid of nx x ny cells of [origin, origin + length]^2, with zeta's per-axis factors and, for
 * the Willmore flow (willmore), F_W's per-node table in be's memory (curvature_grid_release frees
 * them). */
int curvature_grid_make(const cohort_backend *be, int64_t nx, int64_t ny, double length,
                        double origin, int neumann, int manufactured, int willmore,
                        curvature_exact_params zeta, curvature_grid *g);
void curvature_grid_release(const cohort_backend *be, curvature_grid *g);

/* The family's stepper; mcf2d and willmore2d delegate to it with willmore = 0 and 1. */
int curvature2d_stepper_alloc(int willmore, const cohort_model *m, const cohort_backend *be,
                              const cohort_model_values *v, void **stepper);
void curvature2d_stepper_free(void *stepper);
int curvature2d_initial_fill(void *stepper, double *u, const double *amplitude, const double *mean,
                             int64_t ld, int64_t count);
int curvature2d_observe(void *stepper, const double *u, double t, double *values, int64_t ld,
                        int64_t count);
int curvature2d_check(const cohort_model *m, const cohort_model_values *v, const char **key,
                      char *why, size_t len);
double curvature2d_tau0_mcf(const cohort_model_values *v);
double curvature2d_tau0_willmore(const cohort_model_values *v);

/* The family's tables, which mcf2d and willmore2d point at: one adaptive interval a step (each
 * member its own Runge-Kutta-Merson steps), its counters and carried state for checkpoints. */
extern const cohort_model_stepping curvature2d_stepping;
extern const cohort_model_adaptive curvature2d_adaptive;

#ifdef __cplusplus
}
#endif
#endif
