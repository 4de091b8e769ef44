/* ch1d: the 1D Cahn-Hilliard equation on a periodic line (the 1D family's code:
 * models/model1d). */
#include <math.h>

#include "models/model.h"
#include "models/model1d/model1d.h"

static const cohort_model_param params[] = {
    {"gamma", "0.01", 0, INFINITY, 1, "1",
     "Cahn-Hilliard interface parameter; transition zones have width sqrt(gamma)"},
};

/* cohort init: sized to run in a few seconds on a laptop's CPU */
static const char *const starter[] = {"ensemble.members", "64", NULL};

const cohort_model cohort_model_ch1d = {
    MODEL1D_DESCRIPTOR_FIELDS,
    .name = "ch1d",
    .summary = "Cahn-Hilliard phase separation and coarsening on a periodic line",
    .equation = "C_t = (C^3 - C - gamma C_xx)_xx",
    .scheme = "implicit hyperdiffusion, explicit C^3 - C, periodic pentadiagonal (seed 003, eq. "
              "24-27)",
    .min_points = 5,
    .variant = MODEL1D_CAHN_HILLIARD,
    .params = params,
    .dt_limit = cohort_model_dt_limit_cahn_hilliard,
    .n_params = 1,
    .per_member_param = -1,
    .starter = starter,
};
