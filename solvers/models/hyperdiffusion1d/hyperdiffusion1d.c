/* hyperdiffusion1d: C_t = -alpha C_xxxx on a periodic line (the 1D family's code:
 * models/model1d). */
#include <math.h>

#include "models/model.h"
#include "models/model1d/model1d.h"

static const cohort_model_param params[] = {
    {"alpha", "1", 0, INFINITY, 1, "1", "hyperdiffusion coefficient"},
};

/* cohort init: sized to run in a few seconds on a laptop's CPU */
static const char *const starter[] = {"ensemble.members", "64", NULL};

const cohort_model cohort_model_hyperdiffusion1d = {
    MODEL1D_DESCRIPTOR_FIELDS,
    .name = "hyperdiffusion1d",
    .summary = "hyperdiffusion on a periodic line (the pentadiagonal solver's benchmark)",
    .equation = "C_t = -alpha C_xxxx",
    .scheme = "Crank-Nicolson, periodic pentadiagonal (seed 003, eq. 17-19)",
    .min_points = 5,
    .variant = MODEL1D_HYPERDIFFUSION,
    .params = params,
    .n_params = 1,
    .per_member_param = -1,
    .starter = starter,
};
