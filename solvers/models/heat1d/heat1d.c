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

const cohort_model cohort_model_heat1d = {
    SWEPT1D_DESCRIPTOR_FIELDS,
    .name = "heat1d",
    .summary = "heat conduction in a rod with insulated ends (the swept rule's first test)",
    .equation = "T_t = alpha T_xx on [origin, origin + L], T_x = 0 at both ends",
    .scheme = "forward Euler, 3-point Laplacian, Fo = alpha dt / dx^2 <= 1/2 (seed 001, eq. 2 and "
              "9); classic or swept time-space decomposition",
    .citation = "Magee, Niemeyer: Accelerating solutions of PDEs with GPU-based swept time-space "
                "decomposition (seed 001)",
    .min_points = 2,
    .min_points_reason = "a rod of at least two cells",
    .variant = SWEPT1D_HEAT,
    .params = params,
    .n_params = 1,
    .per_member_param = -1,
    .initial_kinds = "ramp|cosine",
    .conserves_mean = 0, /* the trapezoid-weighted mean is what the rod keeps */
    .field_meaning = "temperature T",
    .boundaries = "neumann",
    .initial_fill = swept1d_initial_fill,
    .exact_kind = "ramp|cosine",
    .observables = observables,
};
