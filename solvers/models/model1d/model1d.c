#include "models/model1d/model1d.h"

#include <math.h>
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "models/model1d/model1d_kernels.h"

struct model1d_stepper {
    const cohort_backend *backend;
    model1d_params params;
    model1d_rhs rhs;
    banded_factor *factor;
    banded_solver *solver;
    double *forcing; /* ch1d_forced: dt k cos(k eta_i), in the backend's memory */
};

static int positive(double v)
{
    return isfinite(v) && v > 0.0;
}

/* sigma = coefficient dt / (divisor dx^4) of the fourth-order kinds (hyperdiffusion: alpha, 2;
 * Cahn-Hilliard: gamma, 1) */
static double fourth_order_sigma(const model1d_params *p, double coefficient, double divisor)
{
    const double dx = p->length / (double)p->n;
    const double dx4 = dx * dx * dx * dx;
    return coefficient * p->dt / (divisor * dx4);
}

/* 1 + sigma delta_x^4 (seed 003, eq. 17-19 and 24-26; the centre weight +6, eq. 25b prints +1) */
static void fourth_order_lhs(double sigma, double lhs[5])
{
    lhs[0] = lhs[4] = sigma;
    lhs[1] = lhs[3] = -4.0 * sigma;
    lhs[2] = 1.0 + 6.0 * sigma;
}

int model1d_stepper_alloc(const cohort_backend *backend, const model1d_params *p,
                          model1d_stepper **out)
{
    if (!out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "out is NULL");
    *out = NULL;
    if (!backend || !p) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "backend and params needed");
    if (!positive(p->dt) || !positive(p->length))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "dt = %g and length = %g must be > 0",
                           p->dt, p->length);
    const int forced = p->kind == MODEL1D_CAHN_HILLIARD_FORCED;
    const int cahn_hilliard = p->kind == MODEL1D_CAHN_HILLIARD || forced;
    if (p->kind != MODEL1D_DIFFUSION && p->kind != MODEL1D_HYPERDIFFUSION && !cahn_hilliard)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "unknown 1D model kind %d", (int)p->kind);
    if (!positive(cahn_hilliard ? p->gamma : p->alpha))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "%s = %g must be > 0",
                           cahn_hilliard ? "gamma" : "alpha", cahn_hilliard ? p->gamma : p->alpha);
    if (p->n < 1) return COHORT_FAIL(COHORT_ERR_SIZE_TOO_SMALL, "n = %lld", (long long)p->n);
    if (forced && !(isfinite(p->f0) && isfinite(p->v) && positive(p->k)))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "f0 = %g, v = %g (finite), k = %g (> 0)",
                           p->f0, p->v, p->k);

    model1d_stepper *s = calloc(1, sizeof *s);
    if (!s) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "model1d_stepper");
    s->backend = backend;
    s->params = *p;
    const int64_t n = p->n;
    const double dx = p->length / (double)n;
    double *forcing = NULL; /* ch1d_forced: dt k cos(k eta_i) on the host */
    int rc = COHORT_OK;
    if (p->kind == MODEL1D_DIFFUSION) {
        /* eq. 9-11 with alpha: sigma = alpha dt / (2 dx^2) */
        const double sigma = p->alpha * p->dt / (2.0 * dx * dx);
        const double lhs[3] = {-sigma, 1.0 + 2.0 * sigma, -sigma};
        const double w[5] = {0.0, sigma, 1.0 - 2.0 * sigma, sigma, 0.0};
        for (int k = 0; k < 5; ++k) s->rhs.weight[k] = w[k];
        s->rhs.terms = MODEL1D_TERM_STENCIL;
        COHORT_CALL_GOTO(rc, done, banded_constant_factor_alloc(n, 1, lhs, 1, &s->factor));
    } else {
        /* hyperdiffusion: eq. 17-19, sigma = alpha dt / (2 dx^4), both sides of Crank-Nicolson;
         * ch1d: eq. 24-26, sigma = gamma dt / dx^4 implicit, dt delta_x^2 (C^3 - C) explicit */
        const double sigma = cahn_hilliard ? fourth_order_sigma(p, p->gamma, 1.0)
                                           : fourth_order_sigma(p, p->alpha, 2.0);
        double lhs[5];
        fourth_order_lhs(sigma, lhs);
        const double cn[5] = {-sigma, 4.0 * sigma, 1.0 - 6.0 * sigma, 4.0 * sigma, -sigma};
        for (int k = 0; k < 5; ++k) s->rhs.weight[k] = cn[k];
        s->rhs.terms = cahn_hilliard ? MODEL1D_TERM_NONLINEAR : MODEL1D_TERM_STENCIL;
        s->rhs.nonlinear = p->dt / (dx * dx);
        COHORT_CALL_GOTO(rc, done, banded_constant_factor_alloc(n, 2, lhs, 1, &s->factor));
    }
    if (forced) { /* eq. 34: dt [v dC/deta + f0 k cos(k eta)], eta_i = i dx in the wave's frame */
        s->rhs.terms |= MODEL1D_TERM_ADVECTION | MODEL1D_TERM_FORCING;
        s->rhs.advection = p->dt * p->v / dx;
        s->rhs.f0 = p->f0;
        if (!(forcing = malloc((size_t)n * sizeof(double)))) {
            rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "forcing of n = %lld", (long long)n);
            goto done;
        }
        for (int64_t i = 0; i < n; ++i) forcing[i] = p->dt * p->k * cos(p->k * (double)i * dx);
        COHORT_CALL_GOTO(rc, done,
                         backend->alloc((void **)&s->forcing, (size_t)n * sizeof(double)));
        COHORT_CALL_GOTO(rc, done,
                         backend->copy_to_device(s->forcing, forcing, (size_t)n * sizeof(double)));
        s->rhs.forcing = s->forcing;
    }
    COHORT_CALL_GOTO(rc, done, banded_solver_alloc(backend, s->factor, &s->solver));
done:
    free(forcing);
    if (rc != COHORT_OK) {
        model1d_stepper_free(s);
        return rc;
    }
    *out = s;
    return COHORT_OK;
}

void model1d_stepper_free(model1d_stepper *s)
{
    if (!s) return;
    banded_solver_free(s->solver);
    banded_factor_free(s->factor);
    if (s->forcing) s->backend->release(s->forcing);
    free(s);
}

/* The Cahn-Hilliard kinds' factor for interface parameter gamma: a stepper's (all its forms), or a
 * member's (banded_member_factor_alloc: the same LU, spike and border blocks). */
static int cahn_hilliard_factor(const model1d_params *p, double gamma, int member,
                                banded_factor **f)
{
    double lhs[5];
    fourth_order_lhs(fourth_order_sigma(p, gamma, 1.0), lhs);
    return member ? banded_member_factor_alloc(p->n, 2, lhs, 1, f)
                  : banded_constant_factor_alloc(p->n, 2, lhs, 1, f);
}

double model1d_member_bytes(const model1d_params *p)
{
    banded_factor *f = NULL;
    if (p->kind != MODEL1D_CAHN_HILLIARD && p->kind != MODEL1D_CAHN_HILLIARD_FORCED) return 0.0;
    if (!positive(p->gamma) || cahn_hilliard_factor(p, p->gamma, 0, &f) != COHORT_OK) {
        cohort_error_clear();
        return 0.0;
    }
    const double bytes = banded_members_fit(f)
                             ? (double)banded_member_values(banded_factor_view(f)) * sizeof(double)
                             : 0.0;
    banded_factor_free(f);
    return bytes;
}

/* Member m's factor into b. */
static int member_factor(const model1d_stepper *s, double gamma, banded_members *b, int64_t m)
{
    if (!positive(gamma))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "member %lld: gamma = %g must be > 0",
                           (long long)m, gamma);
    banded_factor *f = NULL;
    COHORT_CALL(cahn_hilliard_factor(&s->params, gamma, 1, &f));
    const int rc = banded_members_set(b, m, f);
    banded_factor_free(f);
    return rc;
}

/* Every member's factor into b, in parallel; a failure is redone on the calling thread, whose
 * error message is the one the caller reads. */
static int member_factors(const model1d_stepper *s, const double *gamma, banded_members *b,
                          int64_t count)
{
    int64_t failed = -1;
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t m = 0; m < count; ++m) {
        int64_t seen;
#pragma omp atomic read
        seen = failed;
        if (seen >= 0 || member_factor(s, gamma[m], b, m) == COHORT_OK) continue;
#pragma omp critical(model1d_member_factors)
        if (failed < 0) failed = m;
    }
    return failed < 0 ? COHORT_OK : member_factor(s, gamma[failed], b, failed);
}

int model1d_stepper_members(model1d_stepper *s, const double *gamma, int64_t count)
{
    if (!s || !gamma) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "stepper and gamma are required");
    if (s->params.kind != MODEL1D_CAHN_HILLIARD && s->params.kind != MODEL1D_CAHN_HILLIARD_FORCED)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "kind %d has no gamma: only the Cahn-Hilliard kinds' is per member",
                           (int)s->params.kind);
    banded_members *b = NULL;
    COHORT_CALL(banded_members_alloc(s->factor, count, &b));
    int rc = member_factors(s, gamma, b, count);
    if (rc == COHORT_OK) rc = banded_solver_use_members(s->solver, b);
    banded_members_free(b);
    return rc;
}

const model1d_rhs *model1d_stepper_rhs(const model1d_stepper *s)
{
    return &s->rhs;
}

const banded_view *model1d_stepper_view(const model1d_stepper *s)
{
    return banded_solver_view(s->solver);
}

/* After a kernel wrote the new state into *scratch: *state holds it, *scratch the old one. */
static void exchange(double **state, double **scratch)
{
    double *t = *state;
    *state = *scratch;
    *scratch = t;
}

int model1d_step(const model1d_stepper *s, double **state, double **scratch, const double *mean,
                 const double *member_f0, int64_t ld, int64_t m0, int64_t count)
{
    return model1d_advance(s, state, scratch, mean, member_f0, ld, m0, count, 1);
}

int model1d_advances_on_chip(const model1d_stepper *s)
{
    const model1d_kernels *k = COHORT_KERNELS(s->backend, model1d_kernels);
    return k->advance_on_chip && k->advance_on_chip(&s->rhs, model1d_stepper_view(s));
}

/* Whether each step hands its drift to the next as it stores the state (model1d_kernels.step). */
static int hands_on_drift(const model1d_stepper *s)
{
    const model1d_kernels *k = COHORT_KERNELS(s->backend, model1d_kernels);
    return k->hands_on_drift && k->hands_on_drift(&s->rhs, model1d_stepper_view(s));
}

int64_t model1d_steps_a_call(const model1d_stepper *s)
{
    return model1d_advances_on_chip(s) ? 0 : hands_on_drift(s) ? MODEL1D_DRIFT_STEPS : 1;
}

/* `steps` steps one at a time; where the kernels hand each member's drift on, the state is read
 * once a step instead of twice (members m0 .. m0 + count - 1 of a buffer of m0 + count drifts). */
static int advance_by_steps(const model1d_stepper *s, double **state, double **scratch,
                            const double *mean, const double *member_f0, int64_t ld, int64_t m0,
                            int64_t count, int64_t steps)
{
    const model1d_kernels *k = COHORT_KERNELS(s->backend, model1d_kernels);
    const banded_view *v = model1d_stepper_view(s);
    double *drift = NULL;
    if (steps > 1 && mean && hands_on_drift(s))
        COHORT_CALL(s->backend->alloc((void **)&drift, (size_t)(m0 + count) * sizeof(double)));
    int rc = COHORT_OK;
    if (drift && k->advances_in_parts && k->advances_in_parts(&s->rhs, v)) {
        rc = k->advance_in_parts(&s->rhs, v, *state, *scratch, mean, member_f0, drift, ld, m0,
                                 count, steps);
        if (rc == COHORT_OK && steps % 2) exchange(state, scratch);
    } else {
        for (int64_t j = 0; j < steps && rc == COHORT_OK; ++j) {
            rc = k->step(&s->rhs, v, *state, *scratch, mean, member_f0, j > 0 ? drift : NULL,
                         j + 1 < steps ? drift : NULL, ld, m0, count);
            if (rc == COHORT_OK) exchange(state, scratch);
        }
    }
    if (drift) s->backend->release(drift);
    return rc;
}

int model1d_advance(const model1d_stepper *s, double **state, double **scratch, const double *mean,
                    const double *member_f0, int64_t ld, int64_t m0, int64_t count, int64_t steps)
{
    if (!s || !state || !scratch || !*state || !*scratch)
        return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "stepper, state and scratch are required");
    if (steps < 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "steps = %lld", (long long)steps);
    COHORT_CALL(cohort_check_subbatch(ld, m0, count));
    if (steps > 1 && model1d_advances_on_chip(s)) {
        const model1d_kernels *k = COHORT_KERNELS(s->backend, model1d_kernels);
        COHORT_CALL(k->advance(&s->rhs, model1d_stepper_view(s), *state, *scratch, mean, ld, m0,
                               count, steps));
        exchange(state, scratch);
        return COHORT_OK;
    }
    return advance_by_steps(s, state, scratch, mean, member_f0, ld, m0, count, steps);
}
