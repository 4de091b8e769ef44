/* ks1d: the Kuramoto-Sivashinsky equation of seed 001 (eq. 3-4, appendix eq. 10-16): centred
 * differences, the explicit midpoint method, periodic (the model's code: models/swept1d). */
#include "models/swept1d/swept1d.h"

static const cohort_model_observable observables[] = {
    {"energy", "energy 1/2 <u^2> of the member (the mean over its points)", "1"},
};

/* cohort init: sized to run in a few seconds on a laptop's CPU */
static const char *const starter[] = {"grid.length", "128", "ensemble.members", "16", NULL};

/* the family's stepper, of this model's kind */
static int stepper_alloc(const cohort_model *m, const cohort_backend *be,
                         const cohort_model_values *v, void **stepper)
{
    return swept1d_stepper_alloc(1, m, be, v, stepper);
}

static const cohort_model_observing observing = {
    .observables = observables,
    .n_observables = 1,
    .observe = swept1d_observe,
};

static const cohort_model_defaults defaults = {
    .dt_auto = swept1d_dt_auto,
    .starter = starter,
};

const cohort_model cohort_model_ks1d = {
    .name = "ks1d",
    .summary = "Kuramoto-Sivashinsky equation on a periodic line (the swept rule's second test)",
    .equation = "u_t = -(u u_x + u_xx + u_xxxx)",
    .scheme = "centred differences (flux form, 5-point fourth derivative), explicit midpoint "
              "method (seed 001, eq. 4, 15-16); classic or swept time-space decomposition",
    .citation = "Magee, Niemeyer: Accelerating solutions of PDEs with GPU-based swept time-space "
                "decomposition (seed 001)",
    .min_points = 5,
    .min_points_reason = "the 5-point fourth derivative",
    .params = NULL,
    .n_params = 0,
    .per_member_param = -1,
    .initial_kinds = "uniform|cosine|mode",
    .conserves_mean = 1,
    .field_meaning = "u",
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
