/* Members and stepping (run_state.h): a chunk's stepper, per-member values and initial states,
 * then its steps to each record and snapshot. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "backend/cohort_error.h"
#include "fields/fields.h"
#include "report.h"
#include "run/initial.h"
#include "run/run_state.h"

void progress_show(progress *pr, int64_t members_done, int64_t members, double t,
                   int64_t member_steps, int final)
{
    if (pr->quiet) return;
    const double now = cohort_seconds();
    if (!final && now - pr->last < (pr->tty ? 0.2 : 10.0)) return;
    pr->last = now;
    /* the whole run's fraction: member-steps done of all, across chunks */
    const double done =
        pr->total_member_steps > 0 ? (double)member_steps / (double)pr->total_member_steps : 1.0;
    const double rate = member_steps / fmax(now - pr->start, 1e-9);
    const double eta = (double)(pr->total_member_steps - member_steps) / fmax(rate, 1e-9);
    report(REPORT_PROGRESS,
           "%s%5.1f%% of the run (%lld of %lld members finished, the chunk at t = %.4g), %.3g "
           "member-steps/s, ETA %.0f s%s",
           pr->tty ? "\r" : "", 100.0 * fmin(done, 1.0), (long long)members_done,
           (long long)members, t, rate, eta, pr->tty && !final ? "   " : "\n");
    fflush(stderr);
}

/* A chunk never spans two steppers: it ends where a swept stepper key changes, and the stepper
 * is rebuilt where it is not the chunk's. */
static int run_chunk_stepper(run_state *s, run_chunk *ch)
{
    const run_plan *p = &s->p;
    int64_t k = 1;
    while (k < ch->count && run_plan_same_stepper(p, ch->m0, ch->m0 + k)) ++k;
    ch->count = k;
    if (s->stepper && run_plan_same_stepper(p, ch->m0, s->stepper_member)) return COHORT_OK;
    if (s->stepper) s->model->stepper_free(s->stepper);
    s->stepper = NULL;
    const cohort_model_values values = run_plan_stepper_values(p, ch->m0);
    s->stepper_member = ch->m0;
    return s->model->stepper_alloc(s->model, s->be, &values, &s->stepper);
}

/* The chunk's per-member means, amplitudes and parameter, on the backend, columns [0, count);
 * and the stepper's factor a member where the model holds one (model.h's member_factors). */
static int run_chunk_member_values(run_state *s, const run_chunk *ch)
{
    const run_plan *p = &s->p;
    run_buffers *b = &s->b;
    for (int64_t k = 0; k < ch->count; ++k) {
        const int64_t g = ch->m0 + k;
        b->host_mean[k] = p->mean_sweep >= 0 ? run_plan_swept_value(p, p->mean_sweep, g) : p->mean;
        if (p->amplitude_sweep >= 0)
            b->host_amplitude[k] = run_plan_swept_value(p, p->amplitude_sweep, g);
        if (p->member_param_sweep >= 0)
            b->host_member_param[k] = run_plan_swept_value(p, p->member_param_sweep, g);
        if (p->member_factor_sweep >= 0)
            b->host_factor_param[k] = run_plan_swept_value(p, p->member_factor_sweep, g);
    }
    if (p->member_factor_sweep >= 0)
        COHORT_CALL(s->model->member_factors->set(s->stepper, b->host_factor_param, ch->count));
    const size_t bytes = (size_t)ch->count * sizeof(double);
    COHORT_CALL(s->be->copy_to_device(b->mean, b->host_mean, bytes));
    if (p->amplitude_sweep >= 0)
        COHORT_CALL(s->be->copy_to_device(b->amplitude, b->host_amplitude, bytes));
    if (p->member_param_sweep >= 0)
        COHORT_CALL(s->be->copy_to_device(b->member_param, b->host_member_param, bytes));
    return COHORT_OK;
}

/* The chunk's initial states: the model's own kinds, or the driver's (initial.h); a model that
 * evolves the field itself starts from mean + the mean-free noise. */
static int run_chunk_initial(run_state *s, const run_chunk *ch)
{
    const run_plan *p = &s->p;
    run_buffers *b = &s->b;
    const double *amplitude = p->amplitude_sweep >= 0 ? b->amplitude : NULL;
    if (s->model->initial_fill)
        return s->model->initial_fill(s->stepper, b->state, amplitude, b->mean, s->chunk,
                                      ch->count);
    COHORT_CALL(initial1d_fill(s->be, &p->ic, amplitude, b->state, b->noise, s->n, s->chunk, 0,
                               ch->m0, ch->count));
    if (!s->model->stepping->evolves_deviation) {
        COHORT_CALL(
            fields_values(s->be, b->state, b->mean, s->n, s->chunk, 0, ch->count, b->scratch));
        double *t = b->state;
        b->state = b->scratch, b->scratch = t;
    }
    return COHORT_OK;
}

/* The most steps a call of the model's advance takes: a model that advances many steps in one
 * call (the swept rule; the 1D models, on chip between records on cuda) takes up to
 * RUN_ADVANCE_MAX at a time, so that the progress line still moves, or fewer where it says so;
 * 1: step() one step at a time. */
enum { RUN_ADVANCE_MAX = 4096 };
static int64_t run_chunk_steps_a_call(const run_state *s)
{
    const cohort_model_on_chip *on_chip = s->model->on_chip;
    if (!on_chip) return 1;
    const int64_t most = on_chip->steps_a_call ? on_chip->steps_a_call(s->stepper) : 0;
    return most <= 0 || most > RUN_ADVANCE_MAX ? RUN_ADVANCE_MAX : most;
}

int run_chunk_begin(run_state *s, run_chunk *ch)
{
    const run_position *at = &s->resume_at;
    ch->count = ch->m0 + s->chunk <= s->end ? s->chunk : s->end - ch->m0;
    ch->in_flight = s->ck && at->count > 0 && ch->m0 == at->m0;
    if (!ch->in_flight) ++s->n_chunks;
    if (s->p.n_stepper_sweeps > 0) COHORT_CALL(run_chunk_stepper(s, ch));
    COHORT_CALL(run_chunk_member_values(s, ch));
    if (ch->in_flight && at->count != ch->count)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "the checkpoint's chunk in flight has %lld members, the run %lld",
                           (long long)at->count, (long long)ch->count);
    ch->field_mean = s->model->stepping->evolves_deviation ? s->b.mean : NULL;
    for (int64_t k = 0; k < RUN_VALUES * ch->count; ++k) s->b.member_value[k] = 0.0;
    /* an in-flight chunk continues where the checkpoint left it */
    COHORT_CALL(ch->in_flight ? run_checkpoint_restore_flight(s) : run_chunk_initial(s, ch));
    ch->steps_a_call = run_chunk_steps_a_call(s);
    ch->step = ch->in_flight ? at->step : 0;
    ch->r = ch->in_flight ? at->r : 0;
    ch->q = ch->in_flight ? at->q : 0;
    ch->last = ch->m0 + ch->count == s->end;
    return COHORT_OK;
}

int run_chunk_step_to(run_state *s, run_chunk *ch, int64_t next)
{
    run_buffers *b = &s->b;
    const run_plan *p = &s->p;
    while (ch->step < next && !run_signal) {
        cohort_model_state ms = {b->state,
                                 b->prev,
                                 b->scratch,
                                 b->mean,
                                 p->member_param_sweep >= 0 ? b->member_param : NULL,
                                 s->chunk,
                                 0,
                                 ch->count};
        const int many = ch->steps_a_call > 1;
        const int64_t steps =
            next - ch->step < ch->steps_a_call ? next - ch->step : ch->steps_a_call;
        const int rc = many ? s->model->on_chip->advance(s->stepper, &ms, ch->step, steps)
                            : s->model->stepping->step(s->stepper, &ms, ch->step);
        b->state = ms.u, b->prev = ms.prev, b->scratch = ms.scratch;
        if (rc != COHORT_OK) return rc;
        s->member_steps += steps * ch->count;
        if (many || (ch->step & 63) == 0)
            progress_show(&s->pr, ch->m0 - s->first, s->end - s->first,
                          (ch->step + steps) * p->values.dt, s->member_steps, 0);
        ch->step += steps;
    }
    return COHORT_OK;
}

/* The probe's chunk stepped n more steps, timed to the backend's completion (seconds). */
static int run_probe_round(run_state *s, run_chunk *ch, int64_t n, double *seconds)
{
    const double start = cohort_seconds();
    COHORT_CALL(run_chunk_step_to(s, ch, ch->step + n));
    COHORT_CALL(s->be->synchronize());
    *seconds = cohort_seconds() - start;
    return COHORT_OK;
}

/* The timed rounds: 1, 2, 4, ... steps until one takes PROBE_ROUND_S or the probe PROBE_MOST_S
 * (or the run's steps are done); the rate of the last round, the first being the warm-up. */
enum { PROBE_STEPS_MAX = 1 << 20 };
#define PROBE_ROUND_S 0.1
#define PROBE_MOST_S 0.5
static int run_probe_rounds(run_state *s, run_chunk *ch, double *rate)
{
    double spent = 0.0, seconds = 0.0;
    int64_t n = 1;
    for (;;) {
        if (ch->step + n > s->p.steps) n = s->p.steps - ch->step;
        if (n < 1) break;
        COHORT_CALL(run_probe_round(s, ch, n, &seconds));
        spent += seconds;
        *rate = (double)(n * ch->count) / fmax(seconds, 1e-9);
        if (run_signal || seconds >= PROBE_ROUND_S || spent >= PROBE_MOST_S || n >= PROBE_STEPS_MAX)
            break;
        n *= 2;
    }
    return COHORT_OK;
}

int run_chunk_probe(run_state *s, double *member_steps_per_second, double *setup_per_member)
{
    *member_steps_per_second = *setup_per_member = NAN;
    run_chunk ch = {.m0 = s->first,
                    .count = s->end - s->first < s->chunk ? s->end - s->first : s->chunk};
    /* a stepper of its own: the run's keeps nothing of the probe */
    void *const run_stepper = s->stepper;
    const int64_t run_stepper_member = s->stepper_member, member_steps = s->member_steps;
    const int quiet = s->pr.quiet;
    const cohort_model_values values = run_plan_stepper_values(&s->p, ch.m0);
    s->stepper = NULL, s->stepper_member = ch.m0; /* the probe's stepper has m0's values */
    int rc = s->model->stepper_alloc(s->model, s->be, &values, &s->stepper);
    if (rc == COHORT_OK && s->p.n_stepper_sweeps > 0) rc = run_chunk_stepper(s, &ch);
    const double setup = cohort_seconds();
    if (rc == COHORT_OK) rc = run_chunk_member_values(s, &ch);
    *setup_per_member = (cohort_seconds() - setup) / (double)ch.count;
    if (rc == COHORT_OK) rc = run_chunk_initial(s, &ch);
    ch.field_mean = s->model->stepping->evolves_deviation ? s->b.mean : NULL;
    ch.steps_a_call = rc == COHORT_OK ? run_chunk_steps_a_call(s) : 1;
    s->pr.quiet = 1;
    if (rc == COHORT_OK) rc = run_probe_rounds(s, &ch, member_steps_per_second);
    s->pr.quiet = quiet;
    if (s->stepper) s->model->stepper_free(s->stepper);
    s->stepper = run_stepper, s->stepper_member = run_stepper_member;
    s->member_steps = member_steps;
    return rc;
}
