/* ch1d: the 1D Cahn-Hilliard equation on a periodic line (the 1D family's code:
 * models/model1d). */
#include <math.h>

#include "models/model.h"
#include "models/model1d/model1d.h"

static const cohort_model_param params[] = {
    {"gamma", "0.01", 0, INFINITY, 1, "1",
     "Cahn-Hilliard interface parameter; transition zones have width sqrt(gamma)"},
};

/* the family's stepper, of this model's kind */
static int stepper_alloc(const cohort_model *m, const cohort_backend *be,
                         const cohort_model_values *v, void **stepper)
{
    return model1d_model_stepper_alloc(MODEL1D_CAHN_HILLIARD, m, be, v, stepper);
}

const cohort_model cohort_model_ch1d = {
    .name = "ch1d",
    .summary = "Cahn-Hilliard phase separation and coarsening on a periodic line",
    .equation = "C_t = (C^3 - C - gamma C_xx)_xx",
    .scheme = "implicit hyperdiffusion, explicit C^3 - C, periodic pentadiagonal (seed 003, eq. "
              "24-27)",
    .min_points = 5,
    .params = params,
    .dt_limit = cohort_model_dt_limit_cahn_hilliard,
    .n_params = 1,
    .per_member_param = -1,
    .citation = model1d_citation,
    .dimension = 1,
    .initial_kinds = "uniform|cosine|mode",
    .conserves_mean = 1,
    .cpu_cuda_rtol = 0.0,
    .stepper_alloc = stepper_alloc,
    .stepper_free = model1d_model_stepper_free,
    .stepping = &model1d_stepping,
    .on_chip = &model1d_on_chip,
    .member_factors = &model1d_member_gamma,
    .statistics = &model1d_statistics,
    .defaults = &model1d_defaults,
};
