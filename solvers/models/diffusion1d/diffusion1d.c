/* diffusion1d: C_t = alpha C_xx on a periodic line (the 1D family's code: models/model1d). */
#include <math.h>

#include "models/model.h"
#include "models/model1d/model1d.h"

static const cohort_model_param params[] = {
    {"alpha", "1", 0, INFINITY, 1, "1", "diffusion coefficient"},
};

/* cohort init: sized to run in a few seconds on a laptop's CPU */
static const char *const starter[] = {"ensemble.members", "64", NULL};

const cohort_model cohort_model_diffusion1d = {
    MODEL1D_DESCRIPTOR_FIELDS,
    .name = "diffusion1d",
    .summary = "heat equation on a periodic line (the tridiagonal solver's benchmark)",
    .equation = "C_t = alpha C_xx",
    .scheme = "Crank-Nicolson, periodic tridiagonal (seed 003, eq. 9-11)",
    .min_points = 3,
    .variant = MODEL1D_DIFFUSION,
    .params = params,
    .n_params = 1,
    .per_member_param = -1,
    .starter = starter,
};
