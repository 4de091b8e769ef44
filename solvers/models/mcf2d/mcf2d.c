/* mcf2d: the mean-curvature flow of graphs (seed 000, Problem 2.1, Scheme 3.1). */
#include "models/curvature2d/curvature2d.h"

/* cohort init: sized to run in a few seconds on a laptop's CPU */
static const char *const starter[] = {"grid.nx", "32", "grid.ny", "32", "time.t_end", "0.1", NULL};

/* the family's stepper, of this model's kind */
static int stepper_alloc(const cohort_model *m, const cohort_backend *be,
                         const cohort_model_values *v, void **stepper)
{
    return curvature2d_stepper_alloc(0, m, be, v, stepper);
}

static const cohort_model_observing observing = {
    .observables = curvature2d_observables,
    .n_observables = 1, /* area */
    .exact_kind = "manufactured",
    .observe = curvature2d_observe,
};

static const cohort_model_defaults defaults = {
    .dt_auto = curvature2d_tau0_mcf,
    .default_records = 10,
    .starter = starter,
};

const cohort_model cohort_model_mcf2d = {
    .name = "mcf2d",
    .summary = "mean-curvature flow of graphs on a square, adaptive Runge-Kutta-Merson in time",
    .equation = "phi_t = Q div(grad phi / Q) + F, Q = sqrt(1 + |grad phi|^2), on [origin, origin "
                "+ L]^2, Dirichlet or Neumann",
    .scheme = "complementary finite volumes (seed 000, Scheme 3.1, eq. 17, 36-49), "
              "Runge-Kutta-Merson with per-member steps to time.tolerance (Algorithm 4.1)",
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
