/* ks1d: the Kuramoto-Sivashinsky equation of seed 001 (eq. 3-4, appendix eq. 10-16): centred
 * differences, the explicit midpoint method, periodic (the model's code: models/swept1d). */
#include "models/swept1d/swept1d.h"

static const cohort_model_observable observables[] = {
    {"energy", "energy 1/2 <u^2> of the member (the mean over its points)", "1"},
};

/* cohort init: sized to run in a few seconds on a laptop's CPU */
static const char *const starter[] = {"grid.length", "128", "ensemble.members", "16", NULL};

const cohort_model cohort_model_ks1d = {
    SWEPT1D_DESCRIPTOR_FIELDS,
    .name = "ks1d",
    .summary = "Kuramoto-Sivashinsky equation on a periodic line (the swept rule's second test)",
    .equation = "u_t = -(u u_x + u_xx + u_xxxx)",
    .scheme = "centred differences (flux form, 5-point fourth derivative), explicit midpoint "
              "method (seed 001, eq. 4, 15-16); classic or swept time-space decomposition",
    .citation = "Magee, Niemeyer: Accelerating solutions of PDEs with GPU-based swept time-space "
                "decomposition (seed 001)",
    .min_points = 5,
    .min_points_reason = "the 5-point fourth derivative",
    .variant = SWEPT1D_KS,
    .params = NULL,
    .n_params = 0,
    .per_member_param = -1,
    .initial_kinds = "uniform|cosine|mode",
    .conserves_mean = 1,
    .field_meaning = "u",
    .observables = observables,
    .starter = starter,
};
