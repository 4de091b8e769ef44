/* The registry's view of the 1D family (model1d.h): parameters by key into model1d_params. */
#include "models/model.h"
#include "models/model1d/model1d.h"

/* model.<key> of the descriptor, or 0 where the model has no such parameter. */
static double param_or_zero(const cohort_model *m, const cohort_model_values *v, const char *key)
{
    const int j = cohort_model_param_index(m, key);
    return j >= 0 ? v->param[j] : 0.0;
}

int model1d_model_stepper_alloc(model1d_kind kind, const cohort_model *m, const cohort_backend *be,
                                const cohort_model_values *v, void **stepper)
{
    const model1d_params p = {.kind = kind,
                              .n = v->nx,
                              .length = v->length,
                              .dt = v->dt,
                              .alpha = param_or_zero(m, v, "alpha"),
                              .gamma = param_or_zero(m, v, "gamma"),
                              .f0 = param_or_zero(m, v, "f0"),
                              .k = param_or_zero(m, v, "k"),
                              .v = param_or_zero(m, v, "v")};
    return model1d_stepper_alloc(be, &p, (model1d_stepper **)stepper);
}

void model1d_model_stepper_free(void *stepper)
{
    model1d_stepper_free(stepper);
}

static int model1d_model_step(void *stepper, cohort_model_state *s, int64_t step)
{
    (void)step;
    return model1d_step(stepper, &s->u, &s->scratch, s->mean, s->member_param, s->ld, s->m0,
                        s->count);
}

static int model1d_model_advance(void *stepper, cohort_model_state *s, int64_t step, int64_t steps)
{
    (void)step;
    return model1d_advance(stepper, &s->u, &s->scratch, s->mean, s->member_param, s->ld, s->m0,
                           s->count, steps);
}

static int64_t model1d_model_steps_a_call(const void *stepper)
{
    return model1d_steps_a_call(stepper);
}

const char model1d_citation[] = "Carroll, Gloster, Bustamante, O Naraigh: A batched GPU "
                                "methodology for numerical solutions of PDEs (seed 003)";

const cohort_model_stepping model1d_stepping = {
    .step = model1d_model_step,
    .time_levels = 1,
    .evolves_deviation = 1,
};

const cohort_model_on_chip model1d_on_chip = {
    .advance = model1d_model_advance,
    .steps_a_call = model1d_model_steps_a_call,
};

/* ch1d's and ch1d_forced's implicit matrix (the same: the forced terms are explicit) */
static model1d_params members_params(const cohort_model *m, const cohort_model_values *v)
{
    const model1d_params p = {.kind = MODEL1D_CAHN_HILLIARD,
                              .n = v->nx,
                              .length = v->length,
                              .dt = v->dt,
                              .gamma = param_or_zero(m, v, "gamma")};
    return p;
}

static double model1d_model_members_bytes(const cohort_model *m, const cohort_model_values *v)
{
    const model1d_params p = members_params(m, v);
    return model1d_member_bytes(&p);
}

static int model1d_model_members_set(void *stepper, const double *values, int64_t count)
{
    return model1d_stepper_members(stepper, values, count);
}

/* ch1d's and ch1d_forced's gamma: only the implicit matrix reads it */
const cohort_model_member_factors model1d_member_gamma = {
    .key = "gamma",
    .where = "grid.n <= 576",
    .bytes = model1d_model_members_bytes,
    .set = model1d_model_members_set,
};

/* cohort init: sized to run in a few seconds on a laptop's CPU (ch1d_forced keeps its own) */
static const char *const model1d_starter[] = {"ensemble.members", "64", NULL};

/* time.dt = auto: 0.1 dx (seed 003, eq. 27) */
const cohort_model_defaults model1d_defaults = {
    .dt_auto = cohort_model_dt_tenth_dx,
    .starter = model1d_starter,
};

/* seed 003, eq. 27 and Sec. 5.3: ell = 1 / (1 - <C^2>) grows as ln t */
const cohort_model_statistics model1d_statistics = {
    .length_name = "ell",
    .length_meaning = "coarsening length 1/(1 - <C^2>)",
    .fit = COHORT_FIT_LINEAR_IN_LOG_T,
};

/* the same length where no coarsening law holds: diffusion and hyperdiffusion smooth the noise
 * away, and ell tends to 1 */
const cohort_model_statistics model1d_statistics_no_law = {
    .length_name = "ell",
    .length_meaning = "coarsening length 1/(1 - <C^2>)",
    .fit = COHORT_FIT_NONE,
};
