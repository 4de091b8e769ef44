/* heat1d: the rod of seed 001 (eq. 1-2, appendix eq. 5-9): forward Euler with the 3-point
 * Laplacian, insulated ends (the model's code: models/swept1d). */
#include <math.h>

#include "models/swept1d/swept1d.h"

static const cohort_model_param params[] = {
    {"alpha", "1", 0, INFINITY, 1, "1", "thermal diffusivity"},
};

static const cohort_model_observable observables[] = {
    {"l2_error",
     "L2 norm over the rod of T minus the exact solution (the cosine series of the insulated "
     "rod), sqrt(sum_i w_i (T_i - T(x_i, t))^2 dx) with the trapezoid weights",
     "1"},
};

/* the family's stepper, of this model's kind */
static int stepper_alloc(const cohort_model *m, const cohort_backend *be,
                         const cohort_model_values *v, void **stepper)
{
    return swept1d_stepper_alloc(0, m, be, v, stepper);
}

static const cohort_model_observing observing = {
    .observables = observables,
    .n_observables = 1,
    .exact_kind = "ramp|cosine",
    .observe = swept1d_observe,
};

static const cohort_model_defaults defaults = {
    .dt_auto = swept1d_dt_auto,
};

const cohort_model cohort_model_heat1d = {
    .name = "heat1d",
    .summary = "heat conduction in a rod with insulated ends (the swept rule's first test)",
    .equation = "T_t = alpha T_xx on [origin, origin + L], T_x = 0 at both ends",
    .scheme = "forward Euler, 3-point Laplacian, Fo = alpha dt / dx^2 <= 1/2 (seed 001, eq. 2 and "
              "9); classic or swept time-space decomposition",
    .citation = "Magee, Niemeyer: Accelerating solutions of PDEs with GPU-based swept time-space "
                "decomposition (seed 001)",
    .min_points = 2,
    .min_points_reason = "a rod of at least two cells",
    .params = params,
    .n_params = 1,
    .per_member_param = -1,
    .initial_kinds = "ramp|cosine",
    .conserves_mean = 0, /* the trapezoid-weighted mean is what the rod keeps */
    .field_meaning = "temperature T",
    .boundaries = "neumann",
    .initial_fill = swept1d_initial_fill,
    .dimension = 1,
    .cpu_cuda_rtol = 0.0,
    .stepper_alloc = stepper_alloc,
    .stepper_free = swept1d_stepper_free,
    .check = swept1d_check,
    .dt_limit = swept1d_dt_limit,
    .stepping = &swept1d_stepping,
    .on_chip = &swept1d_on_chip,
    .observing = &observing,
    .defaults = &defaults,
};
