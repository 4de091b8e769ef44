/* The registry and the capability tables (models/model.h): every registered model fills what it
 * must, a descriptor that lacks a required table or field is named by cohort_model_missing, and a
 * family's member delegates to the family's stepper with its own kind. */
#include <string.h>

#include "models/model.h"
#include "models/model1d/model1d.h"
#include "test_common.h"

static void every_model_is_complete(void)
{
    size_t n = 0;
    const cohort_model *const *models = cohort_models(&n);
    EXPECT(n >= 10, "%zu models", n);
    for (size_t i = 0; i < n; ++i) {
        const cohort_model *m = models[i];
        const char *missing = cohort_model_missing(m);
        EXPECT(!missing, "%s lacks %s", m->name, missing ? missing : "");
        EXPECT(cohort_model_find(m->name) == m, "%s is found by name", m->name);
        for (size_t j = 0; j < i; ++j)
            EXPECT(strcmp(models[j]->name, m->name), "%s is registered once", m->name);
        /* a table's presence is the capability: adaptive models step, steady ones do not */
        EXPECT(!m->adaptive || m->stepping, "%s: adaptive implies stepping", m->name);
        EXPECT(!m->steady || (!m->on_chip && !m->adaptive && !m->defaults),
               "%s: a steady model has no time tables", m->name);
    }
    EXPECT(cohort_model_find(cohort_model_default()) != NULL, "the default model is registered");
    EXPECT(cohort_model_find("no_such_model") == NULL, "unknown names are NULL");
}

/* Each required part, taken away from a complete descriptor, is named. */
static void missing_parts_are_named(void)
{
    const cohort_model *ch1d = cohort_model_find("ch1d"), *mcf2d = cohort_model_find("mcf2d");
    const cohort_model *convdiff = cohort_model_find("convdiff2d");
    cohort_model m = *ch1d;
    m.defaults = NULL;
    EXPECT(m.defaults == NULL && cohort_model_missing(&m) &&
               !strcmp(cohort_model_missing(&m), "defaults.dt_auto"),
           "no defaults: %s", cohort_model_missing(&m));
    m = *ch1d, m.stepping = NULL;
    EXPECT(!strcmp(cohort_model_missing(&m), "stepping or steady, one of them"), "neither: %s",
           cohort_model_missing(&m));
    m = *convdiff, m.stepping = ch1d->stepping;
    EXPECT(!strcmp(cohort_model_missing(&m), "stepping or steady, one of them"), "both: %s",
           cohort_model_missing(&m));
    m = *ch1d, m.stepper_free = NULL;
    EXPECT(!strcmp(cohort_model_missing(&m), "stepper_alloc, stepper_free"), "no free: %s",
           cohort_model_missing(&m));
    m = *ch1d, m.per_member_param = 1;
    EXPECT(!strcmp(cohort_model_missing(&m), "per_member_param"), "param 1 of 1: %s",
           cohort_model_missing(&m));
    cohort_model_adaptive adaptive = *mcf2d->adaptive;
    adaptive.carried_set = NULL;
    m = *mcf2d, m.adaptive = &adaptive;
    EXPECT(!strcmp(cohort_model_missing(&m), "adaptive.carried_bytes, carried_get, carried_set"),
           "adaptive without carried_set: %s", cohort_model_missing(&m));
    cohort_model_observing observing = *mcf2d->observing;
    observing.n_observables = COHORT_MODEL_MAX_OBSERVABLES + 1;
    m = *mcf2d, m.observing = &observing;
    EXPECT(!strcmp(cohort_model_missing(&m), "observing.observe, observables"),
           "too many observables: %s", cohort_model_missing(&m));
    cohort_model_statistics statistics = *ch1d->statistics;
    statistics.length_name = NULL;
    m = *ch1d, m.statistics = &statistics;
    EXPECT(!strcmp(cohort_model_missing(&m), "statistics.length_name, length_meaning"),
           "statistics without a length: %s", cohort_model_missing(&m));
}

/* The 1D family's members build the family's stepper of their own kind: the same right-hand side
 * (terms and stencil weights, which tell diffusion from hyperdiffusion) as model1d_stepper_alloc
 * given that kind. */
static void family_members_delegate_with_their_kind(void)
{
    static const struct {
        const char *name;
        model1d_kind kind;
    } members[] = {{"diffusion1d", MODEL1D_DIFFUSION},
                   {"hyperdiffusion1d", MODEL1D_HYPERDIFFUSION},
                   {"ch1d", MODEL1D_CAHN_HILLIARD},
                   {"ch1d_forced", MODEL1D_CAHN_HILLIARD_FORCED}};
    const cohort_backend *be = &cohort_backend_cpu;
    for (size_t i = 0; i < sizeof members / sizeof members[0]; ++i) {
        const cohort_model *m = cohort_model_find(members[i].name);
        cohort_model_values v = {.nx = 64, .ny = 1, .length = 10.0, .dt = 1e-3};
        for (int j = 0; j < m->n_params; ++j) v.param[j] = 0.5;
        model1d_params p = {.kind = members[i].kind, .n = 64, .length = 10.0, .dt = 1e-3};
        p.alpha = p.gamma = p.f0 = p.k = p.v = 0.5;
        void *via_model = NULL;
        model1d_stepper *direct = NULL;
        EXPECT(m->stepper_alloc(m, be, &v, &via_model) == COHORT_OK, "%s: %s", m->name,
               cohort_error_detail());
        EXPECT(model1d_stepper_alloc(be, &p, &direct) == COHORT_OK, "%s direct: %s", m->name,
               cohort_error_detail());
        if (via_model && direct) {
            const model1d_rhs *a = model1d_stepper_rhs(via_model), *b = model1d_stepper_rhs(direct);
            EXPECT(a->terms == b->terms && !memcmp(a->weight, b->weight, sizeof a->weight) &&
                       a->nonlinear == b->nonlinear && a->advection == b->advection,
                   "%s: terms %u, its kind's %u", m->name, a->terms, b->terms);
        }
        m->stepper_free(via_model);
        model1d_stepper_free(direct);
    }
}

int main(void)
{
    every_model_is_complete();
    missing_parts_are_named();
    family_members_delegate_with_their_kind();
    return test_summary();
}
