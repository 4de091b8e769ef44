/* Records (run_state.h): at a record, each member's moments, observables and errors into the
 * run's accumulators (and the file, once the last chunk completes the record); snapshots; and
 * what a finished chunk leaves: its per-member values, its archive and its k-means features. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "backend/cohort_error.h"
#include "fields/fields.h"
#include "run/run_state.h"

/* The chunk's states as fields (fields_values: a deviation plus its member's mean, into the
 * scratch array, which is free between steps; mean = NULL: the state is the field, as in 2D),
 * member-major, on the host: what archives, snapshots and k-means features hold. */
static int states_to_host(run_state *s, const run_chunk *ch)
{
    const run_buffers *b = &s->b;
    const int64_t n = s->n, chunk = s->chunk;
    if (ch->field_mean)
        COHORT_CALL(
            fields_values(s->be, b->state, ch->field_mean, n, chunk, 0, ch->count, b->scratch));
    COHORT_CALL(s->be->copy_to_host(b->host_state, ch->field_mean ? b->scratch : b->state,
                                    (size_t)(n * chunk) * sizeof(double)));
    for (int64_t k = 0; k < ch->count; ++k)
        for (int64_t i = 0; i < n; ++i) b->member_major[k * n + i] = b->host_state[i * chunk + k];
    return COHORT_OK;
}

/* The record's per-member values ell = 1 / (1 - <C^2>), <C> and whether finite; divergence. */
static int run_record_moments(run_state *s, const run_chunk *ch)
{
    run_buffers *b = &s->b;
    const int64_t count = ch->count;
    COHORT_CALL(
        fields_moments(s->be, b->state, ch->field_mean, s->n, s->chunk, 0, count, b->moments_dev));
    COHORT_CALL(s->be->synchronize());
    COHORT_CALL(
        s->be->copy_to_host(b->host_moments, b->moments_dev, (size_t)(2 * count) * sizeof(double)));
    for (int64_t k = 0; k < count; ++k) {
        const double c = b->host_moments[k], c2 = b->host_moments[count + k];
        b->finite[k] = isfinite(c) && isfinite(c2);
        b->ell[k] = 1.0 / (1.0 - c2);
        b->mass[k] = c;
        s->acc.diverged[ch->m0 + k] |= !b->finite[k];
    }
    return COHORT_OK;
}

/* The Sobol sums (results/analyze_sensitivity.h's statistics, in its order): the length and the
 * variance (host_moments + count by now) at every record, the mean <C> at the last. */
static int run_record_sobol(run_state *s, const run_chunk *ch)
{
    const run_buffers *b = &s->b;
    const int64_t r = ch->r, m0 = ch->m0, count = ch->count;
    int q = 0;
    if (s->model->statistics)
        COHORT_CALL(sobol_stream_add(s->acc.sobol, r, q++, m0, count, b->ell));
    COHORT_CALL(sobol_stream_add(s->acc.sobol, r, q++, m0, count, b->host_moments + count));
    if (!s->model->conserves_mean && r == s->p.n_records - 1)
        COHORT_CALL(sobol_stream_add(s->acc.sobol, r, q, m0, count, b->mass));
    return COHORT_OK;
}

/* eq. 31-33: theta times the sums at t = k theta, k = 0 .. M (the records of an adaptive model
 * are its steps, theta = T / M apart) */
static void run_record_errors(run_state *s, const run_chunk *ch)
{
    const int64_t count = ch->count;
    double *v = s->b.member_value;
    const double *e = s->b.observed + s->n_obs * count, dt = s->p.values.dt;
    for (int64_t k = 0; k < count; ++k) {
        v[RUN_VALUE_L1 * count + k] += dt * e[k];
        v[RUN_VALUE_L2 * count + k] += dt * e[count + k];
        const double linf = v[RUN_VALUE_LINF * count + k], ek = e[2 * count + k];
        v[RUN_VALUE_LINF * count + k] = ek > linf || ek != ek ? ek : linf;
    }
}

int run_record_take(run_state *s, run_chunk *ch)
{
    run_buffers *b = &s->b;
    run_accumulators *a = &s->acc;
    const int64_t r = ch->r, m0 = ch->m0, count = ch->count;
    COHORT_CALL(run_record_moments(s, ch));
    COHORT_CALL(moments_units_add(&a->ell[r], m0, count, b->ell, b->finite));
    COHORT_CALL(moments_units_add(&a->mass[r], m0, count, b->mass, b->finite));
    if (s->spec.member_series && s->model->statistics)
        COHORT_CALL(output_write_member_series(s->out, OUTPUT_SERIES_LENGTH, r, m0, count, b->ell));
    if (s->spec.member_series || a->sobol) /* the variances, over <C^2>, which is used by now */
        for (int64_t k = 0; k < count; ++k)
            b->host_moments[count + k] -= b->host_moments[k] * b->host_moments[k];
    if (s->spec.member_series)
        COHORT_CALL(output_write_member_series(s->out, OUTPUT_SERIES_VARIANCE, r, m0, count,
                                               b->host_moments + count));
    if (a->sobol) COHORT_CALL(run_record_sobol(s, ch));
    if (s->model->observing)
        COHORT_CALL(s->model->observing->observe(s->stepper, b->state,
                                                 s->p.record_step[r] * s->p.values.dt, b->observed,
                                                 s->chunk, count));
    for (int o = 0; o < s->n_obs; ++o)
        COHORT_CALL(moments_units_add(&a->obs[o * s->p.n_records + r], m0, count,
                                      b->observed + o * count, b->finite));
    if (s->exact) run_record_errors(s, ch);
    /* the field as archived: a deviation's in the scratch array, or the state */
    if (a->sf && s->model->stepping->evolves_deviation)
        COHORT_CALL(fields_values(s->be, b->state, b->mean, s->n, s->chunk, 0, count, b->scratch));
    if (a->sf)
        COHORT_CALL(structure_factor_add(
            a->sf, r, s->model->stepping->evolves_deviation ? b->scratch : b->state, 0, count, m0,
            b->finite));
    if (ch->last) COHORT_CALL(run_write_record(s->out, &s->p, a, b->spectrum, r));
    ++ch->r;
    return COHORT_OK;
}

int run_snapshot_take(run_state *s, run_chunk *ch, int64_t next)
{
    COHORT_CALL(states_to_host(s, ch));
    COHORT_CALL(output_write_snapshot(s->out, ch->q, next * s->p.values.dt, ch->m0, ch->count,
                                      s->b.member_major));
    ++ch->q;
    return COHORT_OK;
}

int run_chunk_end(run_state *s, const run_chunk *ch)
{
    run_buffers *b = &s->b;
    const int64_t count = ch->count, m0 = ch->m0, n = s->n;
    if (s->model->adaptive) {
        COHORT_CALL(
            s->model->adaptive->counters(s->stepper, count, b->counter, b->counter + count));
        for (int64_t k = 0; k < count; ++k) {
            b->member_value[RUN_VALUE_ACCEPTED * count + k] = (double)b->counter[k];
            b->member_value[RUN_VALUE_REJECTED * count + k] = (double)b->counter[count + k];
        }
    }
    for (int64_t k = 0; s->exact && k < count; ++k)
        b->member_value[RUN_VALUE_L2 * count + k] = sqrt(b->member_value[RUN_VALUE_L2 * count + k]);
    for (int v = 0; v < s->n_values; ++v)
        COHORT_CALL(output_write_member_value(s->out, v, m0, count,
                                              b->member_value + s->value_slot[v] * count));
    double *features = s->acc.features;
    if (s->archive || features) COHORT_CALL(states_to_host(s, ch));
    if (s->archive) COHORT_CALL(output_write_state(s->out, m0, count, b->member_major));
    for (int64_t v = 0; features && v < count * n; ++v)
        features[(m0 - s->first) * n + v] =
            s->spec.archive_float ? (double)(float)b->member_major[v] : b->member_major[v];
    return COHORT_OK;
}
