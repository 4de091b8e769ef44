/* One time step of the 1D periodic models for a batch of members: the explicit right-hand side
 * (model1d_numerics.h) and the shared-LHS banded solve, in one backend operation (on cuda one
 * pass over the state where a member fits a shared-memory tile). Interleaved layout,
 * u[i * ld + m]; sub-batches [m0, m0 + count) as in banded.h. */
#ifndef COHORT_MODEL1D_H
#define COHORT_MODEL1D_H

#include <stdint.h>

#include "backend/backend.h"
#include "banded/banded.h"
#include "models/model.h"
#include "models/model1d/model1d_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MODEL1D_DIFFUSION = 0,      /* C_t = alpha C_xx */
    MODEL1D_HYPERDIFFUSION = 1, /* C_t = -alpha C_xxxx */
    MODEL1D_CAHN_HILLIARD = 2,  /* C_t = (C^3 - C - gamma C_xx)_xx */
    /* C_t - v C_eta = (C^3 - C - gamma C_eta eta)_eta eta + f0 k cos(k eta), the travelling-wave
     * forced equation in the wave's frame (seed 003, eq. 33-34) */
    MODEL1D_CAHN_HILLIARD_FORCED = 3
} model1d_kind;

typedef struct model1d_params {
    model1d_kind kind;
    int64_t n;     /* grid points on the periodic domain, dx = length / n */
    double length; /* domain length */
    double dt;
    double alpha;    /* diffusion1d, hyperdiffusion1d */
    double gamma;    /* ch1d, ch1d_forced */
    double f0, k, v; /* ch1d_forced: forcing amplitude (members may have their own), wavenumber,
                      * wave speed */
} model1d_params;

typedef struct model1d_stepper model1d_stepper;

/* Builds and factors the model's left-hand side and uploads it to the backend. Errors:
 * COHORT_ERR_NULL_POINTER, COHORT_ERR_INVALID_ARGUMENT (non-positive dt, length, alpha, gamma or
 * an unknown kind), those of banded_factor_alloc (n too small). */
int model1d_stepper_alloc(const cohort_backend *backend, const model1d_params *p,
                          model1d_stepper **out);
void model1d_stepper_free(model1d_stepper *s);

/* ch1d and ch1d_forced: members [0, count) of the steps from now on take their own gamma (host,
 * count values), each its own factor (banded.h's factor a member), as if each had a stepper of
 * that gamma, bit for bit. Errors: COHORT_ERR_NULL_POINTER, COHORT_ERR_INVALID_ARGUMENT (another
 * kind; a gamma not > 0; a system whose form holds no factor a member: model1d_member_bytes),
 * COHORT_ERR_NO_MEMORY, those of the backend's copy. */
int model1d_stepper_members(model1d_stepper *s, const double *gamma, int64_t count);
/* The bytes of one member's factor where a stepper of p can take its members' own gamma (a
 * Cahn-Hilliard kind whose system's form holds a factor a member), else 0. */
double model1d_member_bytes(const model1d_params *p);

/* Advances members [m0, m0 + count) of *state by one step. *state holds each member's deviation
 * C - mean[m] from its mean (conserved by every model; see model1d_rhs_point), with mean an array
 * of ld values in the backend's memory, or NULL for the field itself. scratch is an array of the
 * same shape as the state; on return the two pointers are swapped, so *state holds step n+1.
 * member_f0 (backend memory, ld values, or NULL for params.f0): ch1d_forced's forcing amplitude
 * of each member. */
int model1d_step(const model1d_stepper *s, double **state, double **scratch, const double *mean,
                 const double *member_f0, int64_t ld, int64_t m0, int64_t count);

/* `steps` steps of model1d_step in one call, the same bits: on cuda, where the fused tile forms
 * (diffusion1d, hyperdiffusion1d, ch1d), in one launch with each member's state kept on chip
 * between the steps, so device memory is read and written once for all of them; elsewhere one
 * step at a time, where the cuda solve sums what it stores (ch1d_forced) each step handing its
 * members' drift to the next, so that a step reads the state once, not twice. */
int model1d_advance(const model1d_stepper *s, double **state, double **scratch, const double *mean,
                    const double *member_f0, int64_t ld, int64_t m0, int64_t count, int64_t steps);
/* Whether model1d_advance keeps the states on chip for this stepper (else it steps one at a
 * time). */
int model1d_advances_on_chip(const model1d_stepper *s);
/* The most steps one model1d_advance is worth (on_chip.steps_a_call of models/model.h): 0, no
 * limit of its own, on chip; MODEL1D_DRIFT_STEPS where the drift is handed on (a call saves all
 * but one of its steps' sums of the state); 1 where it would only loop over model1d_step. */
enum { MODEL1D_DRIFT_STEPS = 64 };
int64_t model1d_steps_a_call(const model1d_stepper *s);

/* The 1D family for the registry (models/model.h): diffusion1d, hyperdiffusion1d, ch1d and
 * ch1d_forced point at its tables and delegate their stepper_alloc to the family's with their
 * kind, their parameters (alpha; gamma; gamma, f0, k, v) filling model1d_params by key. The
 * family: periodic lines of grid.n points evolved as deviations from the conserved mean (seed
 * 003), many steps on chip (model1d_advance), the coarsening length ell fitted against ln t (seed
 * 003, Sec. 5.3). */
extern const char model1d_citation[];
extern const cohort_model_stepping model1d_stepping;
extern const cohort_model_on_chip model1d_on_chip;
extern const cohort_model_member_factors model1d_member_gamma;
extern const cohort_model_statistics model1d_statistics;
extern const cohort_model_statistics model1d_statistics_no_law;
extern const cohort_model_defaults model1d_defaults;
int model1d_model_stepper_alloc(model1d_kind kind, const cohort_model *m, const cohort_backend *be,
                                const cohort_model_values *v, void **stepper);
void model1d_model_stepper_free(void *stepper);

/* The stepper's right-hand side and the backend-memory view of its factor: the arguments of
 * the backend's model1d_step (for the benchmarks and the tests of a backend's paths). */
const model1d_rhs *model1d_stepper_rhs(const model1d_stepper *s);
const banded_view *model1d_stepper_view(const model1d_stepper *s);

#ifdef __cplusplus
}
#endif
#endif
