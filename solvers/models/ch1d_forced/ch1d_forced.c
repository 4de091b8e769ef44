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

/* How far C swings about the state c (c >= 1) under the travelling-wave forcing. Linearised about
 * c, mode k of C_t - v C_eta = (f'(c) C - gamma C_etaeta)_etaeta + f0 k cos(k eta) settles at
 * amplitude f0 / sqrt(v^2 + (k f' + gamma k^3)^2), f' = 3 c^2 - 1; the cubic limits it, since over
 * a sine of amplitude s about c the mean of f' is 3 c^2 + 3 s^2 / 2 - 1. The swing is the s that
 * is its own response: s = f0 / sqrt(v^2 + (k (3 c^2 + 3 s^2 / 2 - 1) + gamma k^3)^2). For c >= 1
 * (and gamma, k > 0) the right side falls as s grows, so the root is unique and lies in [0, its
 * value at s = 0]; bisected down to adjacent doubles. */
static double forced_response(double f0, double speed, double gamma, double k, double c, double s)
{
    const double slope = k * (3.0 * c * c + 1.5 * s * s - 1.0) + gamma * k * k * k;
    return f0 / sqrt(speed * speed + slope * slope);
}

static double forced_swing(double f0, double speed, double gamma, double k, double c)
{
    double lo = 0.0, hi = forced_response(f0, speed, gamma, k, c, 0.0);
    for (;;) {
        const double s = 0.5 * (lo + hi);
        if (!(lo < s && s < hi)) return hi;
        if (s < forced_response(f0, speed, gamma, k, c, s))
            lo = s;
        else
            hi = s;
    }
}

/* The Cahn-Hilliard limit (registry.c) at the largest C the forcing drives: a member coarsens to
 * +-max(|mean|, 1) and the forcing swings C about that by forced_swing. An estimate, not a bound.
 * Measured on 20 x 20 (f0, mean) squares of the flow map (f0 in [0, 2], mean in [0, 1.5], N = 64
 * unless named, T = 5, dt = 0.0196, 0.0098, 0.005, 0.0025, 0.00123; the cpu backend, 2026-11-23),
 * it flagged every member that diverged: at gamma = 0.01, k = 1 and v = 0.25, 0.5, 1 (3,016
 * diverged) it also flagged 682 that did not, where the swing f0 / |v| it replaces missed 21 and
 * flagged 1,844 that did not; at dt = 0.00123, where none diverged, it flagged 36 of 3 x 400
 * against 838. The same held, at v = 0.5, for N = 128; gamma = 0.02; k = 2; and N = 128 with
 * gamma = 0.005: none missed of 1,021, 608, 627 and 1,435 that diverged; 217, 243, 316 and 190
 * flagged that did not, against 646, 964, 1,035 and 340, with 5, 0, 0 and 6 missed. */
static double dt_limit(const cohort_model *m, const cohort_model_values *v, double mean)
{
    const double f0 = v->param[cohort_model_param_index(m, "f0")];
    const double speed = fabs(v->param[cohort_model_param_index(m, "v")]);
    const double gamma = v->param[cohort_model_param_index(m, "gamma")];
    const double k = v->param[cohort_model_param_index(m, "k")];
    const double c = fmax(fabs(mean), 1.0);
    return cohort_model_dt_limit_cahn_hilliard(m, v, c + forced_swing(f0, speed, gamma, k, c));
}

/* cohort init: sized to run in a few seconds on a laptop's CPU */
static const char *const starter[] = {"ensemble.members", "32", NULL};

/* the family's stepper, of this model's kind */
static int stepper_alloc(const cohort_model *m, const cohort_backend *be,
                         const cohort_model_values *v, void **stepper)
{
    return model1d_model_stepper_alloc(MODEL1D_CAHN_HILLIARD_FORCED, m, be, v, stepper);
}

static const cohort_model_defaults defaults = {
    .dt_auto = cohort_model_dt_tenth_dx,
    .starter = starter,
};

/* the family's length; its three k-means clusters are seed 003's flow-pattern regimes. No law:
 * a flow map's members coarsen, travel or freeze by regime (seed 003, Sec. 6), and one fit across
 * them says nothing */
static const cohort_model_statistics statistics = {
    .length_name = "ell",
    .length_meaning = "coarsening length 1/(1 - <C^2>)",
    .fit = COHORT_FIT_NONE,
    .flow_regimes = 1,
};

const cohort_model cohort_model_ch1d_forced = {
    .name = "ch1d_forced",
    .summary = "Cahn-Hilliard under a travelling-wave forcing (the flow-pattern maps)",
    .equation =
        "C_t - v C_eta = (C^3 - C - gamma C_etaeta)_etaeta + f0 k cos(k eta), eta = x - v t",
    .scheme = "as ch1d, with v C_eta by fifth-order Hamilton-Jacobi WENO upwinded by the sign of v "
              "and the forcing explicit (seed 003, eq. 33-34)",
    .min_points = 5,
    .params = params,
    .dt_limit = dt_limit,
    .n_params = 4,
    .per_member_param = 1, /* f0: each member's amplitude is an argument of the step */
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
    .statistics = &statistics,
    .defaults = &defaults,
};
