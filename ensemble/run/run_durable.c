/* Durability (run_state.h): checkpoints of a run in progress, their restoration on --resume, and
 * the signals that stop a run after a checkpoint. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cohort_error.h"
#include "backend/cohort_hd.h"
#include "io/sidecar.h"
#include "report.h"
#include "run/run_state.h"

/* ---- interruption: SIGINT, SIGTERM and SIGUSR1 (Slurm's warning) finish the step, checkpoint
 * and stop; the handler then restores the default, so a second signal ends the process at once */
volatile sig_atomic_t run_signal = 0;

static void run_on_signal(int signo)
{
    run_signal = signo;
    signal(signo, SIG_DFL);
}

void run_signals_install(void)
{
    run_signal = 0;
    /* a file-size limit (ulimit -f) then fails the write with EFBIG, reported like a full disk,
     * instead of killing the process */
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGINT, run_on_signal);
    signal(SIGTERM, run_on_signal);
    signal(SIGUSR1, run_on_signal);
}

void run_signals_restore(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
}

/* OUT.checkpoint.<generation>.nc: the checkpoint's own copy of OUT.partial as it stood (a write
 * that fails or is killed can leave the live partial file unreadable to HDF5; --resume starts
 * again from the copy). */
void run_copy_name(const run_state *s, int64_t generation, char *name, size_t len)
{
    sidecar_copy_name(s->checkpoint_path, generation, name, len);
}

/* The Sobol sums of record r (put: into w; else from s->ck). */
static int run_checkpoint_sobol(run_state *s, checkpoint_writer *w, int64_t r)
{
    char name[48];
    snprintf(name, sizeof name, "sobol.%lld", (long long)r);
    const size_t bytes = (size_t)sobol_stream_values(s->acc.sobol) * sizeof(double);
    double *sums = malloc(bytes);
    if (!sums) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the Sobol sums");
    if (w) sobol_stream_save(s->acc.sobol, r, sums);
    int rc =
        w ? checkpoint_put(w, name, sums, bytes) : checkpoint_get_exact(s->ck, name, sums, bytes);
    if (rc == COHORT_OK && !w) rc = sobol_stream_load(s->acc.sobol, r, sums);
    free(sums);
    return rc;
}

/* The accumulators' moments and sums of record r (put: into w; else from s->ck). */
static int run_checkpoint_record(run_state *s, checkpoint_writer *w, int64_t r)
{
    const run_accumulators *a = &s->acc;
    char name[48];
    snprintf(name, sizeof name, "ell.%lld", (long long)r);
    COHORT_CALL(w ? checkpoint_put_moments(w, name, &a->ell[r])
                  : checkpoint_get_moments(s->ck, name, &a->ell[r]));
    snprintf(name, sizeof name, "mass.%lld", (long long)r);
    COHORT_CALL(w ? checkpoint_put_moments(w, name, &a->mass[r])
                  : checkpoint_get_moments(s->ck, name, &a->mass[r]));
    for (int q = 0; q < a->n_obs; ++q) {
        snprintf(name, sizeof name, "obs.%d.%lld", q, (long long)r);
        moments_units *m = &a->obs[q * a->n_records + r];
        COHORT_CALL(w ? checkpoint_put_moments(w, name, m)
                      : checkpoint_get_moments(s->ck, name, m));
    }
    if (a->sobol) COHORT_CALL(run_checkpoint_sobol(s, w, r));
    if (!a->sf) return COHORT_OK;
    snprintf(name, sizeof name, "sf.%lld", (long long)r);
    COHORT_CALL(w ? checkpoint_put_ordered_sum(w, name, &a->sf->sums[r])
                  : checkpoint_get_ordered_sum(s->ck, name, &a->sf->sums[r], s->be, a->members,
                                               a->sf->rows, ORDERED_SUM_BLOCK, s->chunk));
    snprintf(name, sizeof name, "k1_units.%lld", (long long)r);
    return w ? checkpoint_put_ordered_sum(w, name, &a->sf->k1_units[r])
             : checkpoint_get_ordered_sum(s->ck, name, &a->sf->k1_units[r], s->be, a->members,
                                          STRUCTURE_FACTOR_K1_TERMS, a->sf->unit, s->chunk);
}

/* The chunk in flight: its states, per-member values and what the stepper carries. */
static int run_checkpoint_put_flight(run_state *s, checkpoint_writer *w, const run_position *at)
{
    const run_buffers *b = &s->b;
    const size_t bytes = (size_t)(s->n * s->chunk) * sizeof(double);
    void *host = malloc(bytes);
    int rc = host ? s->be->synchronize() : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the chunk's states");
    if (rc == COHORT_OK) rc = s->be->copy_to_host(host, b->state, bytes);
    if (rc == COHORT_OK) rc = checkpoint_put(w, "state", host, bytes);
    if (rc == COHORT_OK && b->prev) rc = s->be->copy_to_host(host, b->prev, bytes);
    if (rc == COHORT_OK && b->prev) rc = checkpoint_put(w, "prev", host, bytes);
    free(host);
    if (rc == COHORT_OK)
        rc = checkpoint_put(w, "member_value", b->member_value,
                            (size_t)(5 * at->count) * sizeof(double));
    if (rc == COHORT_OK && s->model->adaptive) {
        const size_t carried = s->model->adaptive->carried_bytes(at->count);
        void *buf = malloc(carried ? carried : 1);
        if (!buf) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the stepper's carried state");
        if (rc == COHORT_OK) rc = s->model->adaptive->carried_get(s->stepper, at->count, buf);
        if (rc == COHORT_OK) rc = checkpoint_put(w, "carried", buf, carried);
        free(buf);
    }
    return rc;
}

static int run_checkpoint_write(run_state *s, const run_position *at, int64_t generation)
{
    const run_accumulators *a = &s->acc;
    checkpoint_writer *w = NULL;
    COHORT_CALL(checkpoint_begin(s->checkpoint_path, &w));
    int rc = checkpoint_put(w, "config", s->config_text, strlen(s->config_text));
    if (rc == COHORT_OK) rc = checkpoint_put(w, "run_id", s->run_id, strlen(s->run_id));
    if (rc == COHORT_OK) rc = checkpoint_put_i64(w, "arithmetic", COHORT_ARITHMETIC);
    if (rc == COHORT_OK) rc = checkpoint_put(w, "position", at, sizeof *at);
    if (rc == COHORT_OK) rc = checkpoint_put_i64(w, "chunk", s->chunk);
    if (rc == COHORT_OK) rc = checkpoint_put_i64(w, "generation", generation);
    if (rc == COHORT_OK) rc = checkpoint_put(w, "diverged", a->diverged, (size_t)a->members);
    for (int64_t r = 0; r < a->n_records && rc == COHORT_OK; ++r)
        rc = run_checkpoint_record(s, w, r);
    if (rc == COHORT_OK && a->features)
        rc = checkpoint_put(w, "features", a->features,
                            (size_t)((at->m0 - a->first) * a->n) * sizeof(double));
    if (rc == COHORT_OK && at->count > 0) rc = run_checkpoint_put_flight(s, w, at);
    if (rc != COHORT_OK) {
        checkpoint_abort(w);
        return rc;
    }
    return checkpoint_commit(w);
}

/* OUT.partial synced and copied, then the checkpoint naming that copy, then the previous
 * generation's copy removed; unless quiet, a line saying its size and time. A checkpoint taken
 * because a signal stops the run closes OUT.partial and links it as the copy instead: nothing
 * writes it again, and a copy's time grows with the archive written so far. */
int run_checkpoint(run_state *s, const run_position *at)
{
    const double start = cohort_seconds();
    char copy[PATH_MAX + 64];
    run_copy_name(s, s->generation + 1, copy, sizeof copy);
    if (run_signal) {
        const int closed = output_close(s->out, OUTPUT_KEEP);
        s->out = NULL;
        COHORT_CALL(closed);
        COHORT_CALL(checkpoint_link_file(s->partial_path, copy));
    } else {
        COHORT_CALL(output_sync(s->out));
        COHORT_CALL(checkpoint_copy_file(s->partial_path, copy));
    }
    COHORT_CALL(run_checkpoint_write(s, at, s->generation + 1));
    run_copy_name(s, s->generation++, copy, sizeof copy);
    remove(copy);
    s->last_checkpoint = cohort_seconds(), s->checkpointed = 1;
    struct stat st;
    if (!s->opt->quiet && stat(s->checkpoint_path, &st) == 0)
        report(REPORT_NOTE, "checkpoint %s: %.3g MB in %.2f s (member %lld of %lld)",
               s->checkpoint_path, (double)st.st_size * 1e-6, cohort_seconds() - start,
               (long long)at->m0, (long long)s->acc.members);
    return COHORT_OK;
}

int run_checkpoint_restore(run_state *s)
{
    run_accumulators *a = &s->acc;
    run_position *at = &s->resume_at;
    COHORT_CALL(checkpoint_get_exact(s->ck, "position", at, sizeof *at));
    COHORT_CALL(checkpoint_get_exact(s->ck, "diverged", a->diverged, (size_t)a->members));
    for (int64_t r = 0; r < a->n_records; ++r) COHORT_CALL(run_checkpoint_record(s, NULL, r));
    if (a->features)
        COHORT_CALL(checkpoint_get_exact(s->ck, "features", a->features,
                                         (size_t)((at->m0 - a->first) * a->n) * sizeof(double)));
    s->member_steps = at->member_steps, s->n_chunks = at->n_chunks;
    return COHORT_OK;
}

int run_checkpoint_restore_flight(run_state *s)
{
    const run_buffers *b = &s->b;
    const run_position *at = &s->resume_at;
    const size_t bytes = (size_t)(s->n * s->chunk) * sizeof(double);
    size_t have = 0;
    const void *state = checkpoint_get(s->ck, "state", &have);
    if (!state || have != bytes)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "the checkpoint's states do not fit");
    COHORT_CALL(s->be->copy_to_device(b->state, state, bytes));
    if (b->prev) {
        const void *prev = checkpoint_get(s->ck, "prev", &have);
        if (!prev || have != bytes)
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "the checkpoint has no C^{n-1}");
        COHORT_CALL(s->be->copy_to_device(b->prev, prev, bytes));
    }
    COHORT_CALL(checkpoint_get_exact(s->ck, "member_value", b->member_value,
                                     (size_t)(5 * at->count) * sizeof(double)));
    if (s->model->adaptive) {
        const void *carried = checkpoint_get(s->ck, "carried", &have);
        if (!carried || have != s->model->adaptive->carried_bytes(at->count))
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                               "the checkpoint lacks the stepper's carried state");
        COHORT_CALL(s->model->adaptive->carried_set(s->stepper, s->chunk, at->count, carried));
    }
    return COHORT_OK;
}

/* The saved configuration against this run's, and the chunk the run keeps: 1 where the same, else
 * 0 (said on stderr). */
static int run_checkpoint_same_config(const run_state *s, int64_t *saved_chunk)
{
    size_t config_bytes = 0;
    const char *saved = checkpoint_get(s->ck, "config", &config_bytes);
    if (!saved || checkpoint_get_i64(s->ck, "chunk", saved_chunk) != COHORT_OK) {
        report(REPORT_ERROR, "--resume: %s lacks the run's configuration", s->checkpoint_path);
        return 0;
    }
    char key[128] = "(the configuration)";
    char *saved_text = strndup(saved, config_bytes);
    const int same =
        saved_text && !config_rendered_difference(saved_text, s->config_text, key, sizeof key);
    if (!same)
        report(REPORT_ERROR,
               "--resume: %s differs from the interrupted run's configuration (%s); "
               "resume with the same file and --set options",
               key, s->checkpoint_path);
    free(saved_text);
    return same;
}

/* --resume: the checkpoint was written by a cohort that computes what this one does: the same
 * arithmetic, and the Sobol sums streamed (a cohort before them read the member series at the
 * end, and its checkpoints hold none). 1, or 0 with the message on stderr. */
static int run_checkpoint_same_cohort(const run_state *s)
{
    int64_t arithmetic = 0;
    size_t bytes = 0;
    if (checkpoint_get_i64(s->ck, "arithmetic", &arithmetic) != COHORT_OK)
        arithmetic = 1; /* a checkpoint of cohort 0.1 has none */
    if (arithmetic != COHORT_ARITHMETIC) {
        report(REPORT_ERROR,
               "--resume: %s was written by a cohort of another arithmetic (generation %lld, this "
               "one %d: %s), whose results differ in their last bits; run it again without "
               "--resume, with --overwrite",
               s->checkpoint_path, (long long)arithmetic, COHORT_ARITHMETIC, s->opt->version);
        return 0;
    }
    if (s->p.sensitivity && !checkpoint_get(s->ck, "sobol.0", &bytes)) {
        report(REPORT_ERROR,
               "--resume: %s was written by a cohort that did not stream the Sobol indices "
               "(analysis.sensitivity; it computed them from the member series at the end), so it "
               "holds none of their sums; run it again without --resume, with --overwrite",
               s->checkpoint_path);
        return 0;
    }
    return 1;
}

int run_checkpoint_matches(run_state *s)
{
    struct stat none;
    if (stat(s->checkpoint_path, &none) != 0) {
        /* an orphan partial file: a run stopped before its first checkpoint, whose work is lost */
        const int orphan = stat(s->partial_path, &none) == 0;
        report(REPORT_ERROR, "--resume: there is no checkpoint of %s (%s): %s", s->path,
               s->checkpoint_path,
               orphan ? "the run stopped before its first checkpoint, and its work is lost; run "
                        "it again without --resume, with --overwrite to discard its partial file"
                      : "the run was never started, finished, or stopped before its first "
                        "checkpoint; run it without --resume");
        return 0;
    }
    if (checkpoint_load(s->checkpoint_path, &s->ck) != COHORT_OK) {
        report(REPORT_ERROR, "--resume: %s", cohort_error_message());
        return 0;
    }
    int64_t saved_chunk = 0;
    if (!run_checkpoint_same_config(s, &saved_chunk) || !run_checkpoint_same_cohort(s)) return 0;
    run_position saved;
    if (checkpoint_get_exact(s->ck, "position", &saved, sizeof saved) != COHORT_OK) {
        report(REPORT_ERROR, "--resume: %s", cohort_error_message());
        return 0;
    }
    if (saved.first != s->first || saved.end != s->end) {
        report(REPORT_ERROR,
               "--resume: the interrupted run covered members [%lld, %lld), this one "
               "[%lld, %lld) (%s); resume with the same --members",
               (long long)saved.first, (long long)saved.end, (long long)s->first, (long long)s->end,
               s->checkpoint_path);
        return 0;
    }
    s->chunk = s->p.chunk = saved_chunk; /* the run keeps the checkpoint's chunk */
    return 1;
}
