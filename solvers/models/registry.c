/* The registry: every model, one line each. Adding a model is its folder plus one line here
 * (docs/design.md, "Adding a model"). */
#include <math.h>
#include <string.h>

#include "models/model.h"

#define COHORT_MODEL_LIST(X)                                                                       \
    X(diffusion1d)                                                                                 \
    X(hyperdiffusion1d)                                                                            \
    X(ch1d)                                                                                        \
    X(ch1d_forced)                                                                                 \
    X(ch2d)                                                                                        \
    X(mcf2d)                                                                                       \
    X(willmore2d)                                                                                  \
    X(heat1d)                                                                                      \
    X(ks1d)                                                                                        \
    X(convdiff2d)

#define COHORT_MODEL_DECLARE(name) extern const cohort_model cohort_model_##name;
#define COHORT_MODEL_ENTRY(name) &cohort_model_##name,
COHORT_MODEL_LIST(COHORT_MODEL_DECLARE)
static const cohort_model *const registry[] = {COHORT_MODEL_LIST(COHORT_MODEL_ENTRY)};

const cohort_model *const *cohort_models(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const char *cohort_model_default(void)
{
    return "ch1d";
}

const cohort_model *cohort_model_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof registry / sizeof registry[0]; ++i)
        if (!strcmp(registry[i]->name, name)) return registry[i];
    return NULL;
}

int cohort_model_param_index(const cohort_model *m, const char *key)
{
    for (int j = 0; j < m->n_params; ++j)
        if (!strcmp(m->params[j].key, key)) return j;
    return -1;
}

double cohort_model_dt_tenth_dx(const cohort_model_values *v)
{
    return 0.1 * v->length / (double)v->nx;
}

/* Linearised about a uniform state C, the step (1 + gamma dt k^4) c^{n+1} = (1 - dt k^2 f') c^n,
 * f' = 3 C^2 - 1, is stable where |1 - dt k^2 f'| <= 1 + gamma dt k^4; for f' > 0 that is
 * dt (k^2 f' - gamma k^4) <= 2, and the left side peaks at k^2 = f' / (2 gamma), which gives
 * dt <= 8 gamma / f'^2. Inside the spinodal (f' < 0) the growth is the physical instability, so
 * the state to bound is the one the member coarsens to: C of magnitude max(|mean|, 1). */
double cohort_model_dt_limit_cahn_hilliard(const cohort_model *m, const cohort_model_values *v,
                                           double mean)
{
    const double c = fmax(fabs(mean), 1.0), slope = 3.0 * c * c - 1.0;
    return 8.0 * v->param[cohort_model_param_index(m, "gamma")] / (slope * slope);
}
