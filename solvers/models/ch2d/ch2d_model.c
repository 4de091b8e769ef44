/* ch2d's descriptor (models/model.h): the ADI stepper of ch2d.h behind the registry's
 * operations. */
#include <math.h>

#include "models/ch2d/ch2d.h"
#include "models/model.h"

enum { PARAM_GAMMA, PARAM_D };

static const cohort_model_param params[] = {
    [PARAM_GAMMA] = {"gamma", "0.01", 0, INFINITY, 1, "1",
                     "Cahn-Hilliard interface parameter; transition zones have width sqrt(gamma)"},
    [PARAM_D] = {"D", "0.6", 0, INFINITY, 1, "1",
                 "mobility D of C_t = D lap(C^3 - C - gamma lap C)"},
};

static int ch2d_model_stepper_alloc(const cohort_model *m, const cohort_backend *be,
                                    const cohort_model_values *v, void **stepper)
{
    (void)m;
    const ch2d_params p = {.nx = v->nx,
                           .ny = v->ny,
                           .length = v->length,
                           .D = v->param[PARAM_D],
                           .gamma = v->param[PARAM_GAMMA],
                           .dt = v->dt};
    return ch2d_stepper_alloc(be, &p, (ch2d_stepper **)stepper);
}

static void ch2d_model_stepper_free(void *stepper)
{
    ch2d_stepper_free(stepper);
}

/* The start step (the BDF1 form, ch2d.h), then eq. 2 */
static int ch2d_model_step(void *stepper, cohort_model_state *s, int64_t step)
{
    return (step == 0 ? ch2d_start : ch2d_step)(stepper, &s->u, &s->prev, s->scratch, s->ld, s->m0,
                                                s->count);
}

/* cohort init: sized to run in a few seconds on a laptop's CPU */
static const char *const starter[] = {"grid.nx",          "64", "grid.ny", "64", "time.t_end", "5",
                                      "ensemble.members", "4",  NULL};

static const cohort_model_stepping stepping = {
    .step = ch2d_model_step,
    .time_levels = 2, /* BDF2 */
    .evolves_deviation = 0,
};

/* cuSten's Fig. 1: the domain size s = 1 / (1 - <C^2>) grows as t^{1/3} */
static const cohort_model_statistics statistics = {
    .length_name = "s",
    .length_meaning = "domain size 1/(1 - <C^2>)",
    .fit = COHORT_FIT_POWER_LAW,
};

static const cohort_model_defaults defaults = {
    .dt_auto = cohort_model_dt_tenth_dx,
    .starter = starter,
};

const cohort_model cohort_model_ch2d = {
    .name = "ch2d",
    .summary = "2D Cahn-Hilliard coarsening on the periodic square, many small fields or one "
               "large one",
    .equation = "C_t = D lap(C^3 - C - gamma lap C) on the periodic square (0, L)^2",
    .scheme = "ADI: BDF2 with pentadiagonal line solves along x then y, C^3 - C explicit at t^n "
              "(cuSten eq. 2), the first step by the BDF1 form of the factorisation (ch2d.h)",
    .citation = "Gloster, O Naraigh: cuSten - CUDA finite-difference and stencil library (seed "
                "002)",
    .dimension = 2,
    .min_points = 5,
    .params = params,
    .n_params = 2,
    .per_member_param = -1,
    .initial_kinds = "uniform",
    .conserves_mean = 1,
    .cpu_cuda_rtol = 0.0,
    .stepper_alloc = ch2d_model_stepper_alloc,
    .stepper_free = ch2d_model_stepper_free,
    .stepping = &stepping,
    .statistics = &statistics,
    .defaults = &defaults,
};
