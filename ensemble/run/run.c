/* `cohort run`: the configuration checked into a plan, the output's lock taken, then the run of
 * the members as a pipeline of stages over one run_state (run_state.h lists them and their
 * files), and its end: stopped, failed or finished. */
#define _POSIX_C_SOURCE 200809L
#include "run/run.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/moments.h"
#include "analysis/structure_factor.h"
#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "exit_status.h"
#include "report.h"
#include "run/run_file.h"
#include "run/run_preflight.h"
#include "run/run_state.h"
#include "run/steady.h"

/* The working memory of an automatic chunk on the cpu backend: beyond the caches a larger chunk
 * gains nothing there, and a signal waits for a chunk's archive write and for its states'
 * checkpoint, whose times grow with it (docs/running.md, "Signals"). */
#define RUN_CPU_CHUNK_BYTES (256.0 * 1024 * 1024)

/* Members per chunk of a run of `members`: ensemble.chunk, or as many as fit in half the free
 * memory (on the cpu backend, in RUN_CPU_CHUNK_BYTES). */
static int64_t chunk_size(const cohort_backend *be, const run_plan *p, int64_t members)
{
    if (p->chunk_wanted) return p->chunk_wanted < members ? p->chunk_wanted : members;
    size_t free_bytes = 0;
    if (be->mem_info(&free_bytes, NULL) != COHORT_OK) free_bytes = (size_t)1 << 30;
    /* the time levels, scratch and noise, moments and mean per member, and the structure factor's
     * spectra */
    double per_member = ((double)(p->model->stepping->time_levels + 2 +
                                  (p->model->adaptive ? p->model->adaptive->working_states : 0)) *
                             (double)p->n +
                         4.0) *
                        sizeof(double);
    if (p->structure_factor)
        per_member += structure_factor_bytes_per_member(p->values.nx, p->values.ny);
    /* a factor a member (model.h's member_factors): on the backend, and a copy on the host */
    const double factor =
        p->member_factor_sweep >= 0 ? p->model->member_factors->bytes(p->model, &p->values) : 0.0;
    per_member += factor;
    double room = 0.5 * (double)free_bytes;
    if (be->kind == COHORT_BACKEND_CPU && room > RUN_CPU_CHUNK_BYTES) room = RUN_CPU_CHUNK_BYTES;
    int64_t fit = (int64_t)(room / per_member);
    const cohort_backend *host = NULL;
    size_t host_free = 0;
    if (factor > 0.0 && be->kind != COHORT_BACKEND_CPU && cohort_backend_get("cpu", &host) == 0 &&
        host->mem_info(&host_free, NULL) == COHORT_OK && fit > 0.5 * (double)host_free / factor)
        fit = (int64_t)(0.5 * (double)host_free / factor);
    if (fit < 1) fit = 1;
    return fit < members ? fit : members;
}

/* Where the run stands, as a checkpoint records it: in the chunk ch at member m0 (in flight), or
 * (ch NULL) before the chunk at member m0. By name: the fields' order is the checkpoint's
 * layout. */
static run_position run_position_of(const run_state *s, const run_chunk *ch, int64_t m0)
{
    run_position at = {.first = s->first,
                       .end = s->end,
                       .m0 = m0,
                       .member_steps = s->member_steps,
                       .n_chunks = s->n_chunks};
    if (ch) at.count = ch->count, at.step = ch->step, at.r = ch->r, at.q = ch->q;
    return at;
}

/* The chunk's events in turn: its steps to the next record or snapshot, the record or the
 * snapshot, and a checkpoint with the chunk in flight when one is due. */
static int run_chunk_events(run_state *s, run_chunk *ch)
{
    const run_plan *p = &s->p;
    while (!run_signal && (ch->r < p->n_records || ch->q < p->n_snapshots)) {
        int64_t next = ch->r < p->n_records ? p->record_step[ch->r] : p->steps;
        if (ch->q < p->n_snapshots && p->snapshot_step[ch->q] < next)
            next = p->snapshot_step[ch->q];
        COHORT_CALL(run_chunk_step_to(s, ch, next));
        if (ch->step < next) break; /* interrupted */
        if (ch->r < p->n_records && p->record_step[ch->r] == next)
            COHORT_CALL(run_record_take(s, ch));
        if (ch->q < p->n_snapshots && p->snapshot_step[ch->q] == next)
            COHORT_CALL(run_snapshot_take(s, ch, next));
        if (!run_signal && cohort_seconds() - s->last_checkpoint >= s->checkpoint_every &&
            (ch->r < p->n_records || ch->q < p->n_snapshots)) {
            const run_position at = run_position_of(s, ch, ch->m0);
            COHORT_CALL(run_checkpoint(s, &at));
        }
    }
    return COHORT_OK;
}

/* The chunks in turn; a signal stops the run after a checkpoint (within a chunk, with it in
 * flight), and between chunks one is taken when due. */
static int run_chunks(run_state *s)
{
    int rc = COHORT_OK;
    for (int64_t m0 = s->resume_at.m0, count = 0; m0 < s->end && rc == COHORT_OK && !run_signal;
         m0 += count) {
        run_chunk ch = {.m0 = m0};
        rc = run_chunk_begin(s, &ch);
        count = ch.count;
        if (rc == COHORT_OK) rc = run_chunk_events(s, &ch);
        if (run_signal && rc == COHORT_OK) { /* stopped within the chunk: checkpoint it */
            const run_position at = run_position_of(s, &ch, m0);
            return run_checkpoint(s, &at);
        }
        if (rc == COHORT_OK) rc = run_chunk_end(s, &ch);
        progress_show(&s->pr, m0 + count - s->first, s->end - s->first, s->p.t_end, s->member_steps,
                      m0 + count == s->end);
        if (rc == COHORT_OK && m0 + count < s->end &&
            (run_signal || cohort_seconds() - s->last_checkpoint >= s->checkpoint_every)) {
            const run_position at = run_position_of(s, NULL, m0 + count);
            rc = run_checkpoint(s, &at);
        }
    }
    return rc;
}

/* A run a signal stopped: the last checkpoint and the partial file stand (none written: both
 * go). Exit 128 + the signal. */
static int run_stopped(run_state *s, int rc, int signo)
{
    const run_options *opt = s->opt;
    const int kept = s->checkpointed; /* a failed last write leaves the one before */
    output_close(s->out, kept ? OUTPUT_KEEP : 0);
    s->out = NULL;
    char copy[PATH_MAX + 64];
    run_copy_name(s, s->generation, copy, sizeof copy);
    if (!kept) remove(s->checkpoint_path), remove(copy), remove(s->partial_path);
    if (rc != COHORT_OK) report(REPORT_ERROR, "%s", cohort_error_message());
    if (kept && !opt->segment)
        report(REPORT_ERROR,
               "stopped by signal %d; %s.partial holds the records so far and %s "
               "the rest of the run.\nResume with: %s%s",
               signo, s->path, s->checkpoint_path, opt->command_line,
               opt->resume ? "" : " --resume");
    else if (!kept)
        report(REPORT_ERROR, "stopped by signal %d before a checkpoint: %s", signo,
               cohort_error_message());
    return EXIT_SIGNAL_BASE + signo;
}

/* The run's end: what needs every member (finish.c), the file closed and renamed into place, the
 * checkpoint removed; a failure keeps what a checkpoint stands for (a full disk: free space and
 * --resume). Exit 0 or 1. */
static int run_finished(run_state *s, int rc)
{
    const run_options *opt = s->opt;
    const run_plan *p = &s->p;
    run_buffers_release_device(s); /* room for the features' clustering */
    const run_finish_options fo = {.be = s->be,
                                   .first = s->first,
                                   .end = s->end,
                                   .part = s->part,
                                   .quiet = opt->quiet || opt->segment};
    int64_t n_diverged = 0;
    if (rc == COHORT_OK) rc = run_finish(s->out, p, &s->acc, &fo, &n_diverged);
    const int ok = rc == COHORT_OK;
    if (!ok) report(REPORT_ERROR, "%s", cohort_error_message());
    const int closed = output_close(s->out, ok ? 1 : s->checkpointed ? OUTPUT_KEEP : 0);
    s->out = NULL;
    if (ok && closed != COHORT_OK) report(REPORT_ERROR, "%s", cohort_error_message());
    if (ok && closed == COHORT_OK && s->generation > 0) {
        char copy[PATH_MAX + 64];
        run_copy_name(s, s->generation, copy, sizeof copy);
        remove(s->checkpoint_path), remove(copy);
    }
    if (!ok && s->checkpointed && !opt->segment)
        report(REPORT_ERROR, "%s.partial and %s are kept: resume with %s%s", s->path,
               s->checkpoint_path, opt->command_line, opt->resume ? "" : " --resume");
    if (!ok && !s->checkpointed && !opt->segment)
        report(REPORT_ERROR,
               "nothing of this run was kept: it failed after %.0f s, before its "
               "first checkpoint (one is taken every output.checkpoint_every = %g s and when a "
               "signal stops the run); its work is lost",
               cohort_seconds() - s->pr.start, s->checkpoint_every);
    if (ok && closed == COHORT_OK && !opt->quiet)
        report(REPORT_RESULT,
               "wrote %s: %lld members x %lld points in %lld chunks of up to %lld, %lld %s "
               "of %.6g to t = %g, %lld records, %lld diverged, backend %s (%s), %.2f s",
               s->path, (long long)(s->end - s->first), (long long)s->n, (long long)s->n_chunks,
               (long long)s->chunk, (long long)p->steps,
               s->model->adaptive ? "adaptive intervals" : "steps of dt", p->values.dt, p->t_end,
               (long long)p->n_records, (long long)n_diverged, s->be->name, s->provenance.device,
               cohort_seconds() - s->pr.start);
    return ok && closed == COHORT_OK ? 0 : EXIT_FAILURE_RUNNING;
}

/* The accumulators and position of a --resume's checkpoint, said unless quiet. */
static int run_resume(run_state *s)
{
    COHORT_CALL(run_checkpoint_restore(s));
    if (!s->opt->quiet)
        report(REPORT_NOTE, "resuming at member %lld of [%lld, %lld)%s", (long long)s->resume_at.m0,
               (long long)s->first, (long long)s->end,
               s->resume_at.count ? " (a chunk in flight)" : "");
    return COHORT_OK;
}

/* The run of members [first, end) under the output's lock, to its file: the stages of
 * run_state.h in turn. The plan's arrays are its own (freed here). Exit statuses as
 * run_ensemble's. */
static int run_members(const cohort_config *c, const run_options *opt, run_plan p,
                       const cohort_backend *be, int64_t first, int64_t end)
{
    run_state s = {.c = c,
                   .opt = opt,
                   .p = p,
                   .be = be,
                   .model = p.model,
                   .first = first,
                   .end = end,
                   .n = p.n,
                   .chunk = p.chunk,
                   /* --members 0:M is the whole run; a segment is a part even where it is
                    * all of it (a run to ensemble.target_sem whose first round is the whole) */
                   .part = first > 0 || end < p.members || opt->segment,
                   .path = run_file_name(c, opt),
                   .stepper_member = -1,
                   .checkpoint_every = p.checkpoint_every};
    /* the host's threads sized to a chunk's step, before the file names them and before any
     * per-thread scratch is made */
    if (be->kind == COHORT_BACKEND_CPU) cohort_cpu_size(s.chunk * s.n);
    run_signals_install(); /* a signal while the file is made stops the run before its chunks */
    int status = run_open(&s);
    if (status != 0) run_signals_restore();
    if (status == 0) {
        int rc = run_buffers_alloc(&s);
        s.pr = (progress){opt->quiet, isatty(2), cohort_seconds(), 0.0, (end - first) * s.p.steps};
        s.resume_at = (run_position){.first = first, .end = end, .m0 = first};
        /* the probe where the line that quotes it is said: not --quiet, not on --resume */
        double rate = NAN, setup = NAN;
        if (rc == COHORT_OK && !opt->quiet && !opt->segment && !s.ck)
            rc = run_chunk_probe(&s, &rate, &setup);
        if (rc == COHORT_OK && !s.ck)
            run_preflight_report(c, opt, &s.p, first, end, s.part, rate, setup);
        s.pr.start = cohort_seconds();
        if (rc == COHORT_OK && s.ck) rc = run_resume(&s);
        s.last_checkpoint = cohort_seconds();
        s.checkpointed = s.ck != NULL; /* OUT.partial and OUT.checkpoint then stand for the run */
        if (rc == COHORT_OK) rc = run_chunks(&s);
        run_signals_restore();
        checkpoint_free(s.ck);
        s.ck = NULL;
        const int signo = (int)run_signal;
        status = signo ? run_stopped(&s, rc, signo) : run_finished(&s, rc);
    }
    run_buffers_free(&s);
    checkpoint_free(s.ck);
    free(s.config_text), free(s.checkpoint_path);
    run_plan_free(&s.p);
    return status < 0 ? 0 : status; /* -1: a --resume found the run complete */
}

/* A note where the members (or a swept point's replicates) are all alike: what makes them so,
 * and the key that asked for them. */
static void run_note_identical(const cohort_config *c, const run_plan *p)
{
    if (!config_members_identical(c)) return;
    const config_value *kind = config_get(c, "initial", "kind"),
                       *members = config_get(c, "ensemble", "members");
    char why[CONFIG_TEXT + CONFIG_ORIGIN + 64];
    if (p->model->steady)
        snprintf(why, sizeof why, "%s starts every member from the same state", p->model->name);
    else
        snprintf(why, sizeof why, "initial.kind = %s (from %s) adds no noise%s", kind->text,
                 kind->origin, strcmp(kind->text, "uniform") ? "" : " at amplitude 0");
    if (c->n_sweeps == 0 && p->members > 1)
        report(REPORT_NOTE,
               "note: the %lld members are identical (%s, and nothing is swept): "
               "ensemble.members = %lld (from %s) runs one member's run %lld times",
               (long long)p->members, why, (long long)members->integer, members->origin,
               (long long)p->members);
    else if (c->n_sweeps > 0 && c->replicates > 1)
        report(REPORT_NOTE,
               "note: each swept point's %lld replicates are identical (%s): "
               "sweep.replicates = %lld runs each point %lld times",
               (long long)c->replicates, why, (long long)c->replicates, (long long)c->replicates);
}

/* --members A:B: a part of the run, cut at the statistics' blocks so that `cohort merge` joins
 * the parts' accumulators exactly; [first, end) the members to run. 0, or 2 reported. */
static int run_member_range(const run_options *opt, const run_plan *p, int64_t *first, int64_t *end)
{
    const int64_t members = p->members;
    const int subset = opt->members_end > 0;
    *first = subset ? opt->members_first : 0;
    *end = subset ? opt->members_end : members;
    const char *why = !subset                  ? NULL
                      : p->model->steady       ? "a steady model's run is not split"
                      : *end > members         ? "B is past the ensemble's last member"
                      : *first % MOMENTS_BLOCK ? "A is not a multiple of the statistics' block"
                      : *end % MOMENTS_BLOCK && *end != members
                          ? "B is neither a multiple of the statistics' block nor the last member"
                          : NULL;
    if (!why) return 0;
    report(REPORT_ERROR,
           "--members %lld:%lld: %s (the run has %lld members; a part starts "
           "at a multiple of %d and ends at one or at %lld)",
           (long long)opt->members_first, (long long)opt->members_end, why, (long long)members,
           MOMENTS_BLOCK, (long long)members);
    return EXIT_BAD_INPUT;
}

int run_ensemble(const cohort_config *c, const run_options *opt)
{
    char err[1024] = "";
    run_plan p;
    int status = run_plan_make(c, &p, err, sizeof err);
    if (status) {
        report(REPORT_ERROR, "%s", err);
        run_plan_free(&p);
        return status;
    }
    const cohort_backend *be = NULL;
    int64_t first = 0, end = 0;
    if (cohort_backend_get(opt->backend, &be) != COHORT_OK) {
        report(REPORT_ERROR, "--backend %s: %s", opt->backend, cohort_error_message());
        status = EXIT_BAD_INPUT;
    } else if (p.model->steady && opt->resume) {
        report(REPORT_ERROR,
               "--resume: %s is a steady model, whose runs do not checkpoint; run it again",
               p.model->name);
        status = EXIT_BAD_INPUT;
    } else {
        status = run_member_range(opt, &p, &first, &end);
    }
    if (status) {
        run_plan_free(&p);
        return status;
    }
    if (!opt->quiet && !opt->segment) {
        run_note_identical(c, &p);
        if (c->ignored[0])
            report(REPORT_NOTE, "note: model.name = %s (from %s) does not read %s: ignored",
                   p.model->name, config_get(c, "model", "name")->origin, c->ignored);
    }
    /* one writer per output, from here on: output_lock.h */
    output_lock *lock = NULL;
    if (!opt->output_locked && run_file_lock(c, opt, &lock)) {
        run_plan_free(&p);
        return EXIT_BAD_INPUT;
    }
    if (p.model->steady) {
        status = run_steady(c, opt, &p, be);
    } else {
        p.chunk = chunk_size(be, &p, end - first);
        status = run_members(c, opt, p, be, first, end);
    }
    output_lock_release(lock);
    return status;
}
