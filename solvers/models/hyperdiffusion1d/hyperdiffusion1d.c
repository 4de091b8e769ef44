/* hyperdiffusion1d: C_t = -alpha C_xxxx on a periodic line (the 1D family's code:
 * models/model1d). */
#include <math.h>

#include "models/model.h"
#include "models/model1d/model1d.h"

static const cohort_model_param params[] = {
    {"alpha", "1", 0, INFINITY, 1, "1", "hyperdiffusion coefficient"},
};

/* the family's stepper, of this model's kind */
static int stepper_alloc(const cohort_model *m, const cohort_backend *be,
                         const cohort_model_values *v, void **stepper)
{
    return model1d_model_stepper_alloc(MODEL1D_HYPERDIFFUSION, m, be, v, stepper);
}

const cohort_model cohort_model_hyperdiffusion1d = {
    .name = "hyperdiffusion1d",
    .summary = "hyperdiffusion on a periodic line (the pentadiagonal solver's benchmark)",
    .equation = "C_t = -alpha C_xxxx",
    .scheme = "Crank-Nicolson, periodic pentadiagonal (seed 003, eq. 17-19)",
    .min_points = 5,
    .params = params,
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
    .statistics = &model1d_statistics_no_law,
    .defaults = &model1d_defaults,
};
