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

/* The required part of each table; a table is optional as a whole, not field by field. */
static const char *missing_in_tables(const cohort_model *m)
{
    if (m->stepping && !m->stepping->step) return "stepping.step";
    if (m->stepping && m->stepping->time_levels != 1 && m->stepping->time_levels != 2)
        return "stepping.time_levels";
    if (m->stepping && (!m->defaults || !m->defaults->dt_auto)) return "defaults.dt_auto";
    if (m->on_chip && !m->on_chip->advance) return "on_chip.advance";
    const cohort_model_member_factors *mf = m->member_factors;
    if (mf && (!m->stepping || !mf->key || !mf->where || !mf->bytes || !mf->set ||
               cohort_model_param_index(m, mf->key) < 0 ||
               cohort_model_param_index(m, mf->key) == m->per_member_param))
        return "member_factors.key (a parameter of its own), where, bytes, set; stepping";
    const cohort_model_adaptive *a = m->adaptive;
    if (a && (!m->stepping || !a->counters)) return a->counters ? "stepping" : "adaptive.counters";
    if (a && (!a->carried_bytes || !a->carried_get || !a->carried_set))
        return "adaptive.carried_bytes, carried_get, carried_set";
    const cohort_model_steady *st = m->steady;
    if (st && (!st->solver_methods || !st->solve)) return "steady.solver_methods, steady.solve";
    if (st && (st->n_member_values < 0 || (st->n_member_values && !st->member_values)))
        return "steady.member_values";
    const cohort_model_observing *o = m->observing;
    if (o &&
        (!o->observe || o->n_observables < 0 || o->n_observables > COHORT_MODEL_MAX_OBSERVABLES ||
         (o->n_observables && !o->observables)))
        return "observing.observe, observables";
    if (m->statistics && (!m->statistics->length_name || !m->statistics->length_meaning))
        return "statistics.length_name, length_meaning";
    return NULL;
}

const char *cohort_model_missing(const cohort_model *m)
{
    if (!m->name || !m->summary || !m->equation || !m->scheme || !m->citation)
        return "name, summary, equation, scheme, citation";
    if (m->dimension != 1 && m->dimension != 2) return "dimension";
    if (!m->initial_kinds) return "initial_kinds";
    if (m->n_params < 0 || m->n_params > COHORT_MODEL_MAX_PARAMS || (m->n_params && !m->params))
        return "params";
    if (m->per_member_param < -1 || m->per_member_param >= m->n_params) return "per_member_param";
    if (!m->stepper_alloc || !m->stepper_free) return "stepper_alloc, stepper_free";
    if (!m->stepping == !m->steady) return "stepping or steady, one of them";
    return missing_in_tables(m);
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
