/* The curvature flows of graphs (seed 000) as models: the complementary finite volumes of
 * curvature_numerics.h in space and the adaptive Runge-Kutta-Merson integrator (ode/rkm.h) in
 * time, on the closed square [origin, origin + L]^2 with Dirichlet or Neumann boundaries. mcf2d/
 * and willmore2d/ hold the descriptors; CURVATURE2D_DESCRIPTOR_FIELDS is what they share. */
#ifndef COHORT_CURVATURE2D_H
#define COHORT_CURVATURE2D_H

#include "models/curvature2d/curvature_numerics.h"
#include "models/model.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CURVATURE2D_MCF = 0, CURVATURE2D_WILLMORE = 1 };
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

int curvature2d_stepper_alloc(const cohort_model *m, const cohort_backend *be,
                              const cohort_model_values *v, void **stepper);
void curvature2d_stepper_free(void *stepper);
int curvature2d_step(void *stepper, cohort_model_state *s, int64_t step);
int curvature2d_initial_fill(void *stepper, double *u, const double *amplitude, const double *mean,
                             int64_t ld, int64_t count);
int curvature2d_observe(void *stepper, const double *u, double t, double *values, int64_t ld,
                        int64_t count);
int curvature2d_counters(void *stepper, int64_t count, int64_t *accepted, int64_t *rejected);
size_t curvature2d_carried_bytes(int64_t count);
int curvature2d_carried_get(void *stepper, int64_t count, void *bytes);
int curvature2d_carried_set(void *stepper, int64_t ld, int64_t count, const void *bytes);
int curvature2d_check(const cohort_model *m, const cohort_model_values *v, const char **key,
                      char *why, size_t len);
double curvature2d_tau0_mcf(const cohort_model_values *v);
double curvature2d_tau0_willmore(const cohort_model_values *v);

#define CURVATURE2D_DESCRIPTOR_FIELDS                                                              \
    .dimension = 2, .min_points = 2,                                                               \
    .min_points_reason = "the complementary finite volumes' one interior node",                    \
    .params = curvature2d_params, .n_params = CURVATURE2D_N_PARAMS, .per_member_param = -1,        \
    .initial_kinds = "manufactured|radial_sine", .evolves_deviation = 0, .time_levels = 1,         \
    .conserves_mean = 0, .length_name = NULL, .length_meaning = NULL,                              \
    .field_meaning = "graph height phi", .fit = COHORT_FIT_POWER_LAW, .dt_limit = NULL,            \
    .stepper_alloc = curvature2d_stepper_alloc, .stepper_free = curvature2d_stepper_free,          \
    .step = curvature2d_step, .boundaries = "dirichlet|neumann", .adaptive = 1,                    \
    .working_states = 6, .initial_fill = curvature2d_initial_fill, .exact_kind = "manufactured",   \
    .observables = curvature2d_observables, .observe = curvature2d_observe,                        \
    .counters = curvature2d_counters, .carried_bytes = curvature2d_carried_bytes,                  \
    .carried_get = curvature2d_carried_get, .carried_set = curvature2d_carried_set,                \
    .check = curvature2d_check, .default_records = 10

#ifdef __cplusplus
}
#endif
#endif
