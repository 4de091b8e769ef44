/* willmore2d: the Willmore flow of graphs (seed 000, Problem 2.2, Scheme 3.2). */
#include "models/curvature2d/curvature2d.h"

/* cohort init: sized to run in a few seconds on a laptop's CPU */
static const char *const starter[] = {"grid.nx",    "16",    "grid.ny", "16",
                                      "time.t_end", "0.005", NULL};

/* the family's stepper, of this model's kind */
static int stepper_alloc(const cohort_model *m, const cohort_backend *be,
                         const cohort_model_values *v, void **stepper)
{
    return curvature2d_stepper_alloc(1, m, be, v, stepper);
}

static const cohort_model_observing observing = {
    .observables = curvature2d_observables,
    .n_observables = 2, /* area, willmore_energy */
    .exact_kind = "manufactured",
    .observe = curvature2d_observe,
};

static const cohort_model_defaults defaults = {
    .dt_auto = curvature2d_tau0_willmore,
    .default_records = 10,
    .starter = starter,
};

const cohort_model cohort_model_willmore2d = {
    .name = "willmore2d",
    .summary = "Willmore flow of graphs on a square, adaptive Runge-Kutta-Merson in time",
    .equation = "phi_t = -Q div(E grad w - w^2 / (2 Q^3) grad phi) + F, w = Q div(grad phi / Q), "
                "E = (I - grad phi grad phi^T / Q^2) / Q, on [origin, origin + L]^2, Dirichlet "
                "(phi = g, w = 0) or Neumann",
    .scheme = "complementary finite volumes (seed 000, Scheme 3.2, eq. 21-22, 36-53, with eq. "
              "10's sign), Runge-Kutta-Merson with per-member steps to time.tolerance "
              "(Algorithm 4.1)",
    .citation = "Oberhuber, Suzuki, Zabka: The CUDA implementation of the method of lines for the "
                "curvature dependent flows (seed 000)",
    /* 1/Q and the step-size control are cohort_hd.h's, the same bits on both backends
     * (tests/test_backends_adaptive.sh holds it on a large ensemble) */
    .cpu_cuda_rtol = 0.0,
    .dimension = 2,
    .min_points = 2,
    .min_points_reason = "the complementary finite volumes' one interior node",
    .boundaries = "dirichlet|neumann",
    .params = curvature2d_params,
    .n_params = CURVATURE2D_N_PARAMS,
    .per_member_param = -1,
    .initial_kinds = "manufactured|radial_sine",
    .initial_fill = curvature2d_initial_fill,
    .field_meaning = "graph height phi",
    .stepper_alloc = stepper_alloc,
    .stepper_free = curvature2d_stepper_free,
    .check = curvature2d_check,
    .stepping = &curvature2d_stepping,
    .adaptive = &curvature2d_adaptive,
    .observing = &observing,
    .defaults = &defaults,
};
