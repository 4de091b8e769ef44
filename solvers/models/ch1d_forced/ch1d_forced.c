/* ch1d_forced: the travelling-wave forced 1D Cahn-Hilliard equation in the wave's frame (the 1D
 * family's code: models/model1d; the WENO5 advection in model1d_numerics.h). */
#include <math.h>

#include "models/model.h"
#include "models/model1d/model1d.h"

static const cohort_model_param params[] = {
    {"gamma", "0.01", 0, INFINITY, 1, "1",
     "Cahn-Hilliard interface parameter; transition zones have width sqrt(gamma)"},
    {"f0", "0", 0, INFINITY, 0, "1", "amplitude of the travelling-wave forcing"},
    {"k", "1", 0, INFINITY, 1, "1", "wavenumber of the forcing"},
    {"v", "0.5", -INFINITY, INFINITY, 0, "1",
     "speed of the forcing wave (the equation is solved in its moving frame)"},
};

/* The Cahn-Hilliard limit (registry.c) at the amplitude the forcing drives: in the wave's frame
 * v C_eta balances f0 k cos(k eta) where the wave is fast, so C swings by about f0 / |v| about
 * its mean. An estimate, not a bound: over a 10 x 10 (f0, <C>) square of the flow map at N = 64,
 * dt = 0.1 dx, T = 5, it flagged all 79 members that diverged and 7 that did not (v = 0: the
 * mean alone). */
static double dt_limit(const cohort_model *m, const cohort_model_values *v, double mean)
{
    const double f0 = v->param[cohort_model_param_index(m, "f0")];
    const double speed = fabs(v->param[cohort_model_param_index(m, "v")]);
    const double swing = speed > 0.0 ? f0 / speed : 0.0;
    return cohort_model_dt_limit_cahn_hilliard(m, v, fabs(mean) + swing);
}

const cohort_model cohort_model_ch1d_forced = {
    MODEL1D_DESCRIPTOR_FIELDS,
    .name = "ch1d_forced",
    .summary = "Cahn-Hilliard under a travelling-wave forcing (the flow-pattern maps)",
    .equation =
        "C_t - v C_eta = (C^3 - C - gamma C_etaeta)_etaeta + f0 k cos(k eta), eta = x - v t",
    .scheme = "as ch1d, with v C_eta by fifth-order Hamilton-Jacobi WENO upwinded by the sign of v "
              "and the forcing explicit (seed 003, eq. 33-34)",
    .min_points = 5,
    .variant = MODEL1D_CAHN_HILLIARD_FORCED,
    .params = params,
    .dt_limit = dt_limit,
    .n_params = 4,
    .per_member_param = 1, /* f0: each member's amplitude is an argument of the step */
};
