/* The working memory of a run's chunks and the accumulators of its members (run_state.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "run/initial.h"
#include "run/run_state.h"

/* Host memory, a chunk's worth; the accumulators of every member. */
static int run_buffers_alloc_host(run_state *s)
{
    run_buffers *b = &s->b;
    const int64_t chunk = s->chunk, n = s->n;
    const int states = s->archive || s->p.n_snapshots > 0 || s->keep_features;
    b->host_moments = malloc((size_t)(2 * chunk) * sizeof(double));
    b->ell = malloc((size_t)chunk * sizeof(double));
    b->mass = malloc((size_t)chunk * sizeof(double));
    b->host_state = states ? malloc((size_t)(n * chunk) * sizeof(double)) : NULL;
    b->member_major = states ? malloc((size_t)(n * chunk) * sizeof(double)) : NULL;
    b->host_mean = malloc((size_t)chunk * sizeof(double));
    b->host_amplitude = malloc((size_t)chunk * sizeof(double));
    b->host_member_param = malloc((size_t)chunk * sizeof(double));
    b->host_factor_param = malloc((size_t)chunk * sizeof(double));
    b->finite = malloc((size_t)chunk);
    b->observed = malloc((size_t)((s->n_obs + 3) * chunk) * sizeof(double));
    b->member_value = malloc((size_t)(RUN_VALUES * chunk) * sizeof(double));
    b->counter = malloc((size_t)(2 * chunk) * sizeof(int64_t));
    if (!b->host_moments || !b->ell || !b->mass || !b->host_mean || !b->host_amplitude ||
        !b->host_member_param || !b->host_factor_param || !b->finite || !b->observed ||
        !b->member_value || !b->counter || (states && (!b->host_state || !b->member_major)))
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "host buffers for chunks of %lld members",
                           (long long)chunk);
    COHORT_CALL(run_accumulators_alloc(&s->acc, &s->p, s->n_obs, s->first, s->end));
    return COHORT_OK;
}

/* Backend memory, a chunk's worth, and the stepper where no swept key changes it. */
static int run_buffers_alloc_device(run_state *s)
{
    run_buffers *b = &s->b;
    const cohort_backend *be = s->be;
    const size_t chunk = (size_t)s->chunk, values = (size_t)s->n * chunk * sizeof(double);
    if (s->p.n_stepper_sweeps == 0)
        COHORT_CALL(s->model->stepper_alloc(s->model, be, &s->p.values, &s->stepper));
    COHORT_CALL(be->alloc((void **)&b->state, values));
    if (s->model->stepping->time_levels == 2) COHORT_CALL(be->alloc((void **)&b->prev, values));
    COHORT_CALL(be->alloc((void **)&b->scratch, values));
    COHORT_CALL(
        be->alloc((void **)&b->noise,
                  (size_t)initial1d_scratch_values(&s->p.ic, s->n, s->chunk) * sizeof(double)));
    COHORT_CALL(be->alloc((void **)&b->mean, chunk * sizeof(double)));
    COHORT_CALL(be->alloc((void **)&b->amplitude, chunk * sizeof(double)));
    COHORT_CALL(be->alloc((void **)&b->member_param, chunk * sizeof(double)));
    COHORT_CALL(be->alloc((void **)&b->moments_dev, 2 * chunk * sizeof(double)));
    return COHORT_OK;
}

int run_buffers_alloc(run_state *s)
{
    COHORT_CALL(run_buffers_alloc_host(s));
    COHORT_CALL(run_buffers_alloc_device(s));
    const run_plan *p = &s->p;
    if (s->spec.structure_factor) {
        COHORT_CALL(structure_factor_alloc(s->be, p->values.nx, p->values.ny, p->values.length,
                                           s->chunk, s->chunk, p->members, p->n_records,
                                           p->bootstrap_unit, &s->acc.sf));
        const int64_t k = structure_factor_k_count(s->acc.sf->nx, s->acc.sf->ny);
        if (!(s->b.spectrum = malloc((size_t)k * sizeof(double))))
            return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "spectrum");
    }
    /* k-means features: every member's final field as archived (rounded to float with
     * output.precision = float, so that `cohort analyze` of the archive finds the same labels) */
    if (s->keep_features &&
        !(s->acc.features = malloc((size_t)(s->end - s->first) * (size_t)s->n * sizeof(double))))
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means features of %lld members x %lld points",
                           (long long)(s->end - s->first), (long long)s->n);
    return COHORT_OK;
}

/* The chunk's backend arrays (the run's end frees them early to make room for k-means). */
void run_buffers_release_device(run_state *s)
{
    run_buffers *b = &s->b;
    const cohort_backend *be = s->be;
    be->release(b->state), be->release(b->prev), be->release(b->scratch), be->release(b->noise);
    be->release(b->mean), be->release(b->amplitude), be->release(b->member_param);
    be->release(b->moments_dev);
    b->state = b->prev = b->scratch = b->noise = b->mean = b->amplitude = b->member_param =
        b->moments_dev = NULL;
}

void run_buffers_free(run_state *s)
{
    run_buffers *b = &s->b;
    run_accumulators_free(&s->acc);
    if (s->be) run_buffers_release_device(s);
    if (s->stepper) s->model->stepper_free(s->stepper);
    free(b->host_moments), free(b->ell), free(b->mass), free(b->host_state), free(b->member_major);
    free(b->host_mean), free(b->host_amplitude), free(b->host_member_param),
        free(b->host_factor_param), free(b->observed);
    free(b->member_value), free(b->spectrum), free(b->finite), free(b->counter);
    *b = (run_buffers){0};
    s->stepper = NULL;
}
