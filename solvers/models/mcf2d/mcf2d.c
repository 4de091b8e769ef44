/* mcf2d: the mean-curvature flow of graphs (seed 000, Problem 2.1, Scheme 3.1). */
#include "models/curvature2d/curvature2d.h"

/* cohort init: sized to run in a few seconds on a laptop's CPU */
static const char *const starter[] = {"grid.nx", "32", "grid.ny", "32", "time.t_end", "0.1", NULL};

const cohort_model cohort_model_mcf2d = {
    .name = "mcf2d",
    .summary = "mean-curvature flow of graphs on a square, adaptive Runge-Kutta-Merson in time",
    .equation = "phi_t = Q div(grad phi / Q) + F, Q = sqrt(1 + |grad phi|^2), on [origin, origin "
                "+ L]^2, Dirichlet or Neumann",
    .scheme = "complementary finite volumes (seed 000, Scheme 3.1, eq. 17, 36-49), "
              "Runge-Kutta-Merson with per-member steps to time.tolerance (Algorithm 4.1)",
    .citation = "Oberhuber, Suzuki, Zabka: The CUDA implementation of the method of lines for the "
                "curvature dependent flows (seed 000)",
    .variant = CURVATURE2D_MCF,
    .n_observables = 1,
    .dt_auto = curvature2d_tau0_mcf,
    CURVATURE2D_DESCRIPTOR_FIELDS,
    .starter = starter,
    /* the backends' 1/Q differ within an ulp (the device's approximation and Newton steps);
     * tests/test_backends_adaptive.sh holds it on a large ensemble */
    .cpu_cuda_rtol = 1e-9,
};
