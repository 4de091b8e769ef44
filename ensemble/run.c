#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/moments.h"
#include "analysis/structure_factor.h"
#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "fields/fields.h"
#include "checkpoint.h"
#include "finish.h"
#include "initial.h"
#include "output.h"
#include "paths.h"
#include "plan.h"
#include "steady.h"

enum { EXIT_FAILURE_RUNNING = 1, EXIT_BAD_INPUT = 2 };

/* Members per chunk of a run of `members`: ensemble.chunk, or as many as fit in half the free
 * memory. */
static int64_t chunk_size(const cohort_config *c, const cohort_backend *be, const run_plan *p,
                          int64_t members)
{
    const config_value *chunk = config_get(c, "ensemble", "chunk");
    if (!chunk->is_auto) return chunk->integer < members ? chunk->integer : members;
    size_t free_bytes = 0;
    if (be->mem_info(&free_bytes, NULL) != COHORT_OK) free_bytes = (size_t)1 << 30;
    /* the time levels, scratch and noise, moments and mean per member, and the structure factor's
     * spectra */
    double per_member =
        ((double)(p->model->time_levels + 2 + p->model->working_states) * (double)p->n + 4.0) *
        sizeof(double);
    if (config_get(c, "analysis", "structure_factor")->integer)
        per_member += structure_factor_bytes_per_member(p->values.nx, p->values.ny);
    int64_t fit = (int64_t)(0.5 * (double)free_bytes / per_member);
    if (fit < 1) fit = 1;
    return fit < members ? fit : members;
}

typedef struct progress {
    int quiet, tty;
    double start, last;
    int64_t total_member_steps;
} progress;

static void progress_show(progress *pr, int64_t members_done, int64_t members, double t,
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
    fprintf(stderr,
            "%s%5.1f%% of the run (%lld of %lld members finished, the chunk at t = %.4g), %.3g "
            "member-steps/s, ETA %.0f s%s",
            pr->tty ? "\r" : "", 100.0 * fmin(done, 1.0), (long long)members_done,
            (long long)members, t, rate, eta, pr->tty && !final ? "   " : "\n");
    fflush(stderr);
}

/* The chunk's states as fields (model1d_field, into the scratch array, which is free between
 * steps; mean = NULL: the state is the field, as in 2D), member-major, on the host: what
 * archives, snapshots and k-means features hold. */
static int states_to_host(const cohort_backend *be, const double *state, double *scratch,
                          const double *mean, double *host_state, double *member_major, int64_t n,
                          int64_t chunk, int64_t count)
{
    if (mean) COHORT_CALL(fields_values(be, state, mean, n, chunk, 0, count, scratch));
    COHORT_CALL(
        be->copy_to_host(host_state, mean ? scratch : state, (size_t)(n * chunk) * sizeof(double)));
    for (int64_t k = 0; k < count; ++k)
        for (int64_t i = 0; i < n; ++i) member_major[k * n + i] = host_state[i * chunk + k];
    return COHORT_OK;
}

/* The per-member values of one record: ell, <C>, and whether the member is finite. */
static void member_values(const double *moments2, int64_t count, double *ell, double *mass,
                          unsigned char *finite)
{
    for (int64_t k = 0; k < count; ++k) {
        const double c = moments2[k], c2 = moments2[count + k];
        finite[k] = isfinite(c) && isfinite(c2);
        ell[k] = 1.0 / (1.0 - c2);
        mass[k] = c;
    }
}

/* ---- interruption: SIGINT, SIGTERM and SIGUSR1 (Slurm's warning) finish the step, checkpoint
 * and stop; the handler then restores the default, so a second signal ends the process at once */
static volatile sig_atomic_t run_signal = 0;

static void run_on_signal(int signo)
{
    run_signal = signo;
    signal(signo, SIG_DFL);
}

static void run_signals_install(void)
{
    run_signal = 0;
    /* a file-size limit (ulimit -f) then fails the write with EFBIG, reported like a full disk,
     * instead of killing the process */
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGINT, run_on_signal);
    signal(SIGTERM, run_on_signal);
    signal(SIGUSR1, run_on_signal);
}

static void run_signals_restore(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
}

/* ---- checkpoints (checkpoint.h): where the run stands and what it has accumulated ---- */
/* stored as it is in a checkpoint: int64_t fields only, no padding */
typedef struct run_position {
    int64_t first, end; /* the members the run covers (all, or --members A:B) */
    int64_t m0;         /* the first member of the chunk in flight, or of the next chunk */
    int64_t count;      /* the chunk in flight's members; 0 between chunks */
    int64_t step, r, q; /* in flight: its next step, record and snapshot */
    int64_t member_steps, n_chunks;
} run_position;

/* the chunk in flight: its states (leading dimension chunk), per-member values, and what the
 * stepper carries */
typedef struct run_flight {
    const cohort_backend *be;
    const cohort_model *model;
    void *stepper;
    double *state, *prev; /* backend */
    double *member_value; /* host, 5 x count */
    int64_t n, chunk;
} run_flight;

static int run_checkpoint_write(const char *path, const char *config_text, const run_position *at,
                                const run_accumulators *a, const run_flight *f, int64_t generation)
{
    checkpoint_writer *w = NULL;
    COHORT_CALL(checkpoint_begin(path, &w));
    int rc = checkpoint_put(w, "config", config_text, strlen(config_text));
    if (rc == COHORT_OK) rc = checkpoint_put(w, "position", at, sizeof *at);
    if (rc == COHORT_OK) rc = checkpoint_put_i64(w, "chunk", f->chunk);
    if (rc == COHORT_OK) rc = checkpoint_put_i64(w, "generation", generation);
    if (rc == COHORT_OK) rc = checkpoint_put(w, "diverged", a->diverged, (size_t)a->members);
    char name[48];
    for (int64_t r = 0; r < a->n_records && rc == COHORT_OK; ++r) {
        snprintf(name, sizeof name, "ell.%lld", (long long)r);
        rc = checkpoint_put_moments(w, name, &a->ell[r]);
        snprintf(name, sizeof name, "mass.%lld", (long long)r);
        if (rc == COHORT_OK) rc = checkpoint_put_moments(w, name, &a->mass[r]);
        for (int q = 0; q < a->n_obs && rc == COHORT_OK; ++q) {
            snprintf(name, sizeof name, "obs.%d.%lld", q, (long long)r);
            rc = checkpoint_put_moments(w, name, &a->obs[q * a->n_records + r]);
        }
        snprintf(name, sizeof name, "sf.%lld", (long long)r);
        if (rc == COHORT_OK && a->sf) rc = checkpoint_put_ordered_sum(w, name, &a->sf->sums[r]);
    }
    if (rc == COHORT_OK && a->features)
        rc = checkpoint_put(w, "features", a->features,
                            (size_t)((at->m0 - a->first) * a->n) * sizeof(double));
    if (rc == COHORT_OK && at->count > 0) { /* the chunk in flight */
        const size_t bytes = (size_t)(f->n * f->chunk) * sizeof(double);
        double *host = malloc(bytes);
        if (!host) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "a copy of the chunk's states");
        if (rc == COHORT_OK) rc = f->be->synchronize();
        if (rc == COHORT_OK) rc = f->be->copy_to_host(host, f->state, bytes);
        if (rc == COHORT_OK) rc = checkpoint_put(w, "state", host, bytes);
        if (rc == COHORT_OK && f->prev) rc = f->be->copy_to_host(host, f->prev, bytes);
        if (rc == COHORT_OK && f->prev) rc = checkpoint_put(w, "prev", host, bytes);
        free(host);
        if (rc == COHORT_OK)
            rc = checkpoint_put(w, "member_value", f->member_value,
                                (size_t)(5 * at->count) * sizeof(double));
        if (rc == COHORT_OK && f->model->carried_bytes) {
            const size_t carried = f->model->carried_bytes(at->count);
            void *buf = malloc(carried ? carried : 1);
            if (!buf) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the stepper's carried state");
            if (rc == COHORT_OK) rc = f->model->carried_get(f->stepper, at->count, buf);
            if (rc == COHORT_OK) rc = checkpoint_put(w, "carried", buf, carried);
            free(buf);
        }
    }
    if (rc != COHORT_OK) {
        checkpoint_abort(w);
        return rc;
    }
    return checkpoint_commit(w);
}

/* Where a run's checkpoints go: OUT.checkpoint, and beside it OUT.checkpoint.<generation>.nc, the
 * checkpoint's own copy of OUT.partial as it stood (a write that fails or is killed can leave the
 * live partial file unreadable to HDF5; --resume starts again from the copy). */
typedef struct run_durable {
    const char *partial, *checkpoint;
    int64_t generation; /* of the newest checkpoint (0: none yet) */
    int quiet;
} run_durable;

static void run_copy_name(const run_durable *d, int64_t generation, char *name, size_t len)
{
    checkpoint_copy_name(d->checkpoint, generation, name, len);
}

/* A checkpoint: OUT.partial synced and copied, then the checkpoint naming that copy, then the
 * previous generation's copy removed; unless quiet, a line saying its size and time. */
static int run_checkpoint(run_durable *d, cohort_output *out, const char *config_text,
                          const run_position *at, const run_accumulators *a, const run_flight *f)
{
    const double start = cohort_seconds();
    char copy[PATH_MAX + 64];
    COHORT_CALL(output_sync(out));
    run_copy_name(d, d->generation + 1, copy, sizeof copy);
    COHORT_CALL(checkpoint_copy_file(d->partial, copy));
    COHORT_CALL(run_checkpoint_write(d->checkpoint, config_text, at, a, f, d->generation + 1));
    run_copy_name(d, d->generation++, copy, sizeof copy);
    remove(copy);
    struct stat st;
    if (!d->quiet && stat(d->checkpoint, &st) == 0)
        fprintf(stderr, "%scohort run: checkpoint %s: %.3g MB in %.2f s (member %lld of %lld)\n",
                isatty(2) ? "\n" : "", d->checkpoint, (double)st.st_size * 1e-6,
                cohort_seconds() - start, (long long)at->m0, (long long)a->members);
    return COHORT_OK;
}

/* The accumulators and position of a checkpoint (the chunk in flight is restored in the loop). */
static int run_checkpoint_restore(const checkpoint *ck, run_position *at, run_accumulators *a,
                                  const cohort_backend *be, int64_t chunk)
{
    COHORT_CALL(checkpoint_get_exact(ck, "position", at, sizeof *at));
    COHORT_CALL(checkpoint_get_exact(ck, "diverged", a->diverged, (size_t)a->members));
    char name[48];
    for (int64_t r = 0; r < a->n_records; ++r) {
        snprintf(name, sizeof name, "ell.%lld", (long long)r);
        COHORT_CALL(checkpoint_get_moments(ck, name, &a->ell[r]));
        snprintf(name, sizeof name, "mass.%lld", (long long)r);
        COHORT_CALL(checkpoint_get_moments(ck, name, &a->mass[r]));
        for (int q = 0; q < a->n_obs; ++q) {
            snprintf(name, sizeof name, "obs.%d.%lld", q, (long long)r);
            COHORT_CALL(checkpoint_get_moments(ck, name, &a->obs[q * a->n_records + r]));
        }
        snprintf(name, sizeof name, "sf.%lld", (long long)r);
        if (a->sf)
            COHORT_CALL(checkpoint_get_ordered_sum(ck, name, &a->sf->sums[r], be, a->members,
                                                   a->sf->rows, chunk));
    }
    if (a->features)
        COHORT_CALL(checkpoint_get_exact(ck, "features", a->features,
                                         (size_t)((at->m0 - a->first) * a->n) * sizeof(double)));
    return COHORT_OK;
}

/* The chunk in flight of a checkpoint into the run's arrays and stepper. */
static int run_checkpoint_restore_flight(const checkpoint *ck, const run_position *at,
                                         run_flight *f)
{
    const size_t bytes = (size_t)(f->n * f->chunk) * sizeof(double);
    size_t have = 0;
    const void *state = checkpoint_get(ck, "state", &have);
    if (!state || have != bytes)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "the checkpoint's states do not fit");
    COHORT_CALL(f->be->copy_to_device(f->state, state, bytes));
    if (f->prev) {
        const void *prev = checkpoint_get(ck, "prev", &have);
        if (!prev || have != bytes)
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "the checkpoint has no C^{n-1}");
        COHORT_CALL(f->be->copy_to_device(f->prev, prev, bytes));
    }
    COHORT_CALL(checkpoint_get_exact(ck, "member_value", f->member_value,
                                     (size_t)(5 * at->count) * sizeof(double)));
    if (f->model->carried_bytes) {
        const void *carried = checkpoint_get(ck, "carried", &have);
        if (!carried || have != f->model->carried_bytes(at->count))
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                               "the checkpoint lacks the stepper's carried state");
        COHORT_CALL(f->model->carried_set(f->stepper, f->chunk, at->count, carried));
    }
    return COHORT_OK;
}

/* --resume after a stop between the file's final rename (output_close) and the checkpoint's
 * removal: OUT and OUT.checkpoint both there, OUT written last. OUT is then complete and the
 * checkpoint stale: it goes, and the run has nothing left to do. (An OUT older than its checkpoint
 * is an earlier run's file that an interrupted --overwrite run was to replace: resumed as usual,
 * which refuses it without --overwrite.) */
static int run_resume_found_complete(const char *path, const char *checkpoint_path, int quiet)
{
    struct stat out, ck;
    const int complete =
        stat(path, &out) == 0 && S_ISREG(out.st_mode) && stat(checkpoint_path, &ck) == 0 &&
        (out.st_mtim.tv_sec > ck.st_mtim.tv_sec ||
         (out.st_mtim.tv_sec == ck.st_mtim.tv_sec && out.st_mtim.tv_nsec >= ck.st_mtim.tv_nsec));
    if (complete) {
        checkpoint_remove(checkpoint_path);
        if (!quiet)
            fprintf(stderr,
                    "cohort run: --resume: %s is complete (the run stopped after writing it, "
                    "before removing its checkpoint); removed %s\n",
                    path, checkpoint_path);
    }
    return complete;
}

/* The run's output path: -o, else output.path. */
static const char *run_output_name(const cohort_config *c, const run_options *opt)
{
    return opt->output_path ? opt->output_path : config_get(c, "output", "path")->text;
}

/* Where the output path came from, for messages: "-o" or "run.ini:9: output.path =". */
static void run_output_option(const cohort_config *c, const run_options *opt, char *option,
                              size_t len)
{
    if (opt->output_path)
        snprintf(option, len, "-o");
    else
        snprintf(option, len, "%s: output.path =", config_get(c, "output", "path")->origin);
}

int run_output_lock(const cohort_config *c, const run_options *opt, output_lock **lock)
{
    char option[CONFIG_ORIGIN + 32], err[2048];
    run_output_option(c, opt, option, sizeof option);
    if (!output_lock_acquire(run_output_name(c, opt), option, "cohort run", lock, err, sizeof err))
        return 0;
    fprintf(stderr, "cohort run: %s\n", err);
    return EXIT_BAD_INPUT;
}

int run_output_path(const cohort_config *c, const run_options *opt, const char **path)
{
    *path = run_output_name(c, opt);
    char option[CONFIG_ORIGIN + 32], err[1024];
    run_output_option(c, opt, option, sizeof option);
    if (!paths_check_output(*path, option, &opt->config_path, 1, opt->overwrite, err, sizeof err))
        return 0;
    fprintf(stderr, "cohort run: %s\n", err);
    return EXIT_BAD_INPUT;
}

/* The run of members [first, end) under the output's lock, to its file: the plan's arrays are
 * its own (freed here). Exit statuses as run_ensemble's. */
static int run_members(const cohort_config *c, const run_options *opt, run_plan p,
                       const cohort_backend *be, int64_t first, int64_t end)
{
    const cohort_model *model = p.model;
    const int64_t n = p.n, members = p.members;
    const int part = first > 0 || end < members; /* --members 0:M is the whole run */
    /* the file first: an unwritable path is the user's to fix, before any work is done */
    const char *path = run_output_name(c, opt);
    char *config_text = config_render(c);
    /* --resume: the checkpoint of the same configuration, whose chunk the run keeps */
    char *checkpoint_path = malloc(strlen(path) + sizeof ".checkpoint");
    checkpoint *ck = NULL;
    if (!config_text || !checkpoint_path) {
        fprintf(stderr, "cohort run: out of memory\n");
        free(config_text), free(checkpoint_path);
        run_plan_free(&p);
        return EXIT_FAILURE_RUNNING;
    }
    sprintf(checkpoint_path, "%s.checkpoint", path);
    const int finished =
        opt->resume && run_resume_found_complete(path, checkpoint_path, opt->quiet);
    if (finished || run_output_path(c, opt, &path)) {
        free(config_text), free(checkpoint_path);
        run_plan_free(&p);
        return finished ? 0 : EXIT_BAD_INPUT;
    }
    struct stat interrupted;
    if (!opt->resume && stat(checkpoint_path, &interrupted) == 0) {
        /* an interrupted run's checkpoint: continued with --resume, or given up with --overwrite
         * (then it and its copy of the partial file go) */
        if (!opt->overwrite) {
            fprintf(stderr,
                    "cohort run: %s exists: an interrupted run of this output; continue it with "
                    "--resume, or start over with --overwrite\n",
                    checkpoint_path);
            free(config_text), free(checkpoint_path);
            run_plan_free(&p);
            return EXIT_BAD_INPUT;
        }
        checkpoint_remove(checkpoint_path);
    }
    if (opt->resume) {
        size_t config_bytes = 0;
        const char *saved = NULL;
        int64_t saved_chunk = 0;
        int resumable = 0;
        char key[128] = "(the configuration)";
        struct stat none;
        if (stat(checkpoint_path, &none) != 0) {
            fprintf(stderr,
                    "cohort run: --resume: there is no checkpoint of %s (%s): the run was never "
                    "started, finished, or stopped before its first checkpoint; run it without "
                    "--resume\n",
                    path, checkpoint_path);
        } else if (checkpoint_load(checkpoint_path, &ck) != COHORT_OK) {
            fprintf(stderr, "cohort run: --resume: %s\n", cohort_error_message());
        } else if (!(saved = checkpoint_get(ck, "config", &config_bytes)) ||
                   checkpoint_get_i64(ck, "chunk", &saved_chunk) != COHORT_OK) {
            fprintf(stderr, "cohort run: --resume: %s lacks the run's configuration\n",
                    checkpoint_path);
        } else {
            char *saved_text = strndup(saved, config_bytes);
            const int same =
                saved_text && !config_rendered_difference(saved_text, config_text, key, sizeof key);
            if (!same)
                fprintf(stderr,
                        "cohort run: --resume: %s differs from the interrupted run's "
                        "configuration (%s); resume with the same file and --set options\n",
                        key, checkpoint_path);
            free(saved_text);
            run_position saved_at;
            if (same &&
                checkpoint_get_exact(ck, "position", &saved_at, sizeof saved_at) != COHORT_OK)
                fprintf(stderr, "cohort run: --resume: %s\n", cohort_error_message());
            else if (same && (saved_at.first != first || saved_at.end != end))
                fprintf(stderr,
                        "cohort run: --resume: the interrupted run covered members [%lld, %lld), "
                        "this one [%lld, %lld) (%s); resume with the same --members\n",
                        (long long)saved_at.first, (long long)saved_at.end, (long long)first,
                        (long long)end, checkpoint_path);
            else if (same)
                p.chunk = saved_chunk, resumable = 1;
        }
        if (!resumable) {
            checkpoint_free(ck);
            free(config_text), free(checkpoint_path);
            run_plan_free(&p);
            return EXIT_BAD_INPUT;
        }
    }
    run_provenance provenance;
    char *history = output_history(opt->command_line, NULL);
    output_spec spec;
    int value_slot[RUN_VALUES];
    run_output_spec(c, &p, be, first, end, path, &provenance, &spec, value_slot);
    spec.history = history, spec.source = opt->version, spec.config = config_text;
    /* what the spec decided: the archive, the observables, the exact errors, and whether the
     * k-means features are kept (for the run's clustering, or a part's merge data) */
    const int archive = spec.archive_final, n_obs = spec.n_series;
    const int n_values = spec.n_member_values;
    const int exact = n_values > 0 && value_slot[n_values - 1] == RUN_VALUE_LINF;
    const int keep_features = spec.kmeans_k > 0 || spec.merge_features;
    cohort_output *out = NULL;
    char partial_path[PATH_MAX + 16], copy[PATH_MAX + 64];
    snprintf(partial_path, sizeof partial_path, "%s.partial", path);
    run_durable durable = {partial_path, checkpoint_path, 0, opt->quiet};
    int created = !history ? COHORT_FAIL(COHORT_ERR_NO_MEMORY, "history") : COHORT_OK;
    /* --resume: the partial file as the checkpoint saw it, from the checkpoint's copy */
    if (created == COHORT_OK && ck) {
        created = checkpoint_get_i64(ck, "generation", &durable.generation);
        run_copy_name(&durable, durable.generation, copy, sizeof copy);
        if (created == COHORT_OK) created = checkpoint_copy_file(copy, partial_path);
    }
    if (created == COHORT_OK)
        created = ck ? output_reopen(&spec, &out) : output_create(&spec, &out);
    free(history);
    if (created != COHORT_OK) {
        fprintf(stderr, "cohort run: %s%s (from %s)\n", ck ? "--resume: " : "",
                cohort_error_message(),
                opt->output_path ? "-o" : config_get(c, "output", "path")->origin);
        checkpoint_free(ck);
        free(config_text), free(checkpoint_path);
        run_plan_free(&p);
        return EXIT_BAD_INPUT;
    }

    /* working memory */
    const int64_t chunk = p.chunk;
    void *stepper = NULL;
    double *prev = NULL; /* C^{n-1} of models with two time levels */
    double *state = NULL, *scratch = NULL, *noise = NULL, *mean = NULL, *moments_dev = NULL;
    double *host_moments = malloc((size_t)(2 * chunk) * sizeof(double));
    double *ell = malloc((size_t)chunk * sizeof(double)),
           *mass = malloc((size_t)chunk * sizeof(double));
    const int states = archive || p.n_snapshots > 0 || keep_features;
    double *host_state = states ? malloc((size_t)(n * chunk) * sizeof(double)) : NULL;
    double *member_major = states ? malloc((size_t)(n * chunk) * sizeof(double)) : NULL;
    double *host_mean = malloc((size_t)chunk * sizeof(double));
    double *host_amplitude = malloc((size_t)chunk * sizeof(double)), *amplitude = NULL;
    /* each member's value of the model's per-member parameter, where it is swept */
    double *host_member_param = malloc((size_t)chunk * sizeof(double)), *member_param = NULL;
    unsigned char *finite = malloc((size_t)chunk), *diverged = calloc((size_t)members, 1);
    moments_blocks *ell_stats = calloc((size_t)p.n_records, sizeof *ell_stats);
    moments_blocks *mass_stats = calloc((size_t)p.n_records, sizeof *mass_stats);
    /* observable q at record r: obs_stats[q * n_records + r]; a record's values per member, then
     * each member's values of the chunk (errors accumulated over its records) */
    moments_blocks *obs_stats = calloc((size_t)(n_obs * p.n_records) + 1, sizeof *obs_stats);
    double *observed = malloc((size_t)((n_obs + 3) * chunk) * sizeof(double));
    double *member_value = malloc((size_t)(5 * chunk) * sizeof(double));
    int64_t *counter = malloc((size_t)(2 * chunk) * sizeof(int64_t));
    int rc = COHORT_OK;
    if (!host_moments || !ell || !mass || !host_mean || !host_amplitude || !host_member_param ||
        !finite || !diverged || !ell_stats || !mass_stats || !obs_stats || !observed ||
        !member_value || !counter || (states && (!host_state || !member_major)))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "host buffers for chunks of %lld members",
                         (long long)chunk);
    for (int64_t r = 0; r < p.n_records && rc == COHORT_OK; ++r) {
        rc = moments_blocks_alloc(&ell_stats[r], members);
        if (rc == COHORT_OK) rc = moments_blocks_alloc(&mass_stats[r], members);
        for (int q = 0; q < n_obs && rc == COHORT_OK; ++q)
            rc = moments_blocks_alloc(&obs_stats[q * p.n_records + r], members);
    }
    if (rc == COHORT_OK && p.n_stepper_sweeps == 0)
        rc = model->stepper_alloc(model, be, &p.values, &stepper);
    if (rc == COHORT_OK) rc = be->alloc((void **)&state, (size_t)(n * chunk) * sizeof(double));
    if (rc == COHORT_OK && model->time_levels == 2)
        rc = be->alloc((void **)&prev, (size_t)(n * chunk) * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&scratch, (size_t)(n * chunk) * sizeof(double));
    if (rc == COHORT_OK)
        rc = be->alloc((void **)&noise,
                       (size_t)initial1d_scratch_values(&p.ic, n, chunk) * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&mean, (size_t)chunk * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&amplitude, (size_t)chunk * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&member_param, (size_t)chunk * sizeof(double));
    if (rc == COHORT_OK)
        rc = be->alloc((void **)&moments_dev, (size_t)(2 * chunk) * sizeof(double));
    structure_factor *sf = NULL;
    if (rc == COHORT_OK && spec.structure_factor)
        rc = structure_factor_alloc(be, p.values.nx, p.values.ny, p.values.length, chunk, chunk,
                                    members, p.n_records, &sf);
    /* k-means features: every member's final field as archived (rounded to float with
     * output.precision = float, so that `cohort analyze` of the archive finds the same labels) */
    double *features = NULL;
    if (rc == COHORT_OK && keep_features &&
        !(features = malloc((size_t)(end - first) * (size_t)n * sizeof(double))))
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k-means features of %lld members x %lld points",
                         (long long)(end - first), (long long)n);

    double *spectrum =
        sf ? malloc((size_t)structure_factor_k_count(sf->nx, sf->ny) * sizeof(double)) : NULL;
    if (sf && !spectrum && rc == COHORT_OK) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "spectrum");
    progress pr = {opt->quiet, isatty(2), cohort_seconds(), 0.0, (end - first) * p.steps};
    int64_t member_steps = 0;
    int64_t stepper_member = -1; /* a member whose swept stepper keys the stepper has */
    int64_t n_chunks = 0;
    /* checkpoints: what the run has accumulated, restored on --resume */
    run_accumulators acc = {members,   n,        p.n_records, n_obs, ell_stats, mass_stats,
                            obs_stats, diverged, sf,          first, features};
    run_position resume_at = {first, end, first, 0, 0, 0, 0, 0, 0};
    if (rc == COHORT_OK && ck) {
        rc = run_checkpoint_restore(ck, &resume_at, &acc, be, chunk);
        member_steps = resume_at.member_steps, n_chunks = resume_at.n_chunks;
        if (rc == COHORT_OK && !opt->quiet)
            fprintf(stderr, "cohort run: resuming at member %lld of [%lld, %lld)%s\n",
                    (long long)resume_at.m0, (long long)first, (long long)end,
                    resume_at.count ? " (a chunk in flight)" : "");
    }
    const double checkpoint_every = config_real(c, "output", "checkpoint_every");
    double last_checkpoint = cohort_seconds();
    int checkpointed = ck != NULL; /* OUT.partial and OUT.checkpoint then stand for the run */
    run_signals_install();
    for (int64_t m0 = resume_at.m0, count = 0; m0 < end && rc == COHORT_OK && !run_signal;
         m0 += count) {
        count = m0 + chunk <= end ? chunk : end - m0;
        const int in_flight = ck && resume_at.count > 0 && m0 == resume_at.m0;
        if (!in_flight) ++n_chunks;
        if (p.n_stepper_sweeps > 0) { /* a chunk never spans two steppers */
            int64_t k = 1;
            while (k < count && run_plan_same_stepper(&p, m0, m0 + k)) ++k;
            count = k;
            if (!stepper || !run_plan_same_stepper(&p, m0, stepper_member)) {
                if (stepper) model->stepper_free(stepper);
                stepper = NULL;
                const cohort_model_values values = run_plan_stepper_values(&p, m0);
                rc = model->stepper_alloc(model, be, &values, &stepper);
                stepper_member = m0;
                if (rc != COHORT_OK) break;
            }
        }
        /* the chunk's arrays hold its members at columns [0, count), leading dimension chunk */
        for (int64_t k = 0; k < count; ++k) {
            host_mean[k] =
                p.mean_sweep >= 0 ? run_plan_swept_value(&p, p.mean_sweep, m0 + k) : p.mean;
            if (p.amplitude_sweep >= 0)
                host_amplitude[k] = run_plan_swept_value(&p, p.amplitude_sweep, m0 + k);
            if (p.member_param_sweep >= 0)
                host_member_param[k] = run_plan_swept_value(&p, p.member_param_sweep, m0 + k);
        }
        rc = be->copy_to_device(mean, host_mean, (size_t)count * sizeof(double));
        if (rc == COHORT_OK && p.amplitude_sweep >= 0)
            rc = be->copy_to_device(amplitude, host_amplitude, (size_t)count * sizeof(double));
        if (rc == COHORT_OK && p.member_param_sweep >= 0)
            rc =
                be->copy_to_device(member_param, host_member_param, (size_t)count * sizeof(double));
        if (rc == COHORT_OK && in_flight && resume_at.count != count)
            rc = COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                             "the checkpoint's chunk in flight has %lld members, the run %lld",
                             (long long)resume_at.count, (long long)count);
        if (in_flight) {
            /* the chunk continues where the checkpoint left it */
        } else if (rc == COHORT_OK && model->initial_fill)
            rc = model->initial_fill(stepper, state, p.amplitude_sweep >= 0 ? amplitude : NULL,
                                     mean, chunk, count);
        else if (rc == COHORT_OK)
            rc = initial1d_fill(be, &p.ic, p.amplitude_sweep >= 0 ? amplitude : NULL, state, noise,
                                n, chunk, 0, m0, count);
        /* a model that evolves the field itself starts from mean + the mean-free noise */
        const double *field_mean = model->evolves_deviation ? mean : NULL;
        for (int64_t k = 0; k < 5 * count; ++k) member_value[k] = 0.0;
        if (rc == COHORT_OK && !in_flight && !model->evolves_deviation && !model->initial_fill) {
            rc = fields_values(be, state, mean, n, chunk, 0, count, scratch);
            double *t = state;
            state = scratch, scratch = t;
        }
        run_flight flight = {be, model, stepper, state, prev, member_value, n, chunk};
        const int many = model->advance && (!model->advance_pays || model->advance_pays(stepper));
        if (rc == COHORT_OK && in_flight)
            rc = run_checkpoint_restore_flight(ck, &resume_at, &flight);
        /* step to each record and snapshot time in turn */
        int64_t step = in_flight ? resume_at.step : 0, r = in_flight ? resume_at.r : 0,
                q = in_flight ? resume_at.q : 0;
        /* the last chunk completes each record as it reaches it: written at once */
        const int last_chunk = m0 + count == end;
        while (rc == COHORT_OK && !run_signal && (r < p.n_records || q < p.n_snapshots)) {
            int64_t next = r < p.n_records ? p.record_step[r] : p.steps;
            if (q < p.n_snapshots && p.snapshot_step[q] < next) next = p.snapshot_step[q];
            while (step < next && rc == COHORT_OK && !run_signal) {
                cohort_model_state ms = {
                    state, prev, scratch, mean, p.member_param_sweep >= 0 ? member_param : NULL,
                    chunk, 0,    count};
                /* a model that advances many steps in one call (the swept rule; the 1D models,
                 * on chip between records on cuda) takes up to 4096 at a time, so that the
                 * progress line still moves */
                const int64_t steps = many ? (next - step < 4096 ? next - step : 4096) : 1;
                rc = many ? model->advance(stepper, &ms, step, steps)
                          : model->step(stepper, &ms, step);
                state = ms.u, prev = ms.prev, scratch = ms.scratch;
                member_steps += steps * count;
                if (many || (step & 63) == 0)
                    progress_show(&pr, m0 - first, end - first, (step + steps) * p.values.dt,
                                  member_steps, 0);
                step += steps;
            }
            if (step < next) break; /* interrupted */
            if (rc == COHORT_OK && r < p.n_records && p.record_step[r] == next) {
                rc = fields_moments(be, state, field_mean, n, chunk, 0, count, moments_dev);
                if (rc == COHORT_OK) rc = be->synchronize();
                if (rc == COHORT_OK)
                    rc = be->copy_to_host(host_moments, moments_dev,
                                          (size_t)(2 * count) * sizeof(double));
                if (rc != COHORT_OK) break;
                member_values(host_moments, count, ell, mass, finite);
                for (int64_t k = 0; k < count; ++k) diverged[m0 + k] |= !finite[k];
                rc = moments_blocks_add(&ell_stats[r], m0, count, ell, finite);
                if (rc == COHORT_OK)
                    rc = moments_blocks_add(&mass_stats[r], m0, count, mass, finite);
                if (rc == COHORT_OK && spec.member_series && model->length_name)
                    rc = output_write_member_ell(out, r, m0, count, ell);
                if (rc == COHORT_OK && model->observe)
                    rc = model->observe(stepper, state, p.record_step[r] * p.values.dt, observed,
                                        chunk, count);
                for (int o = 0; o < n_obs && rc == COHORT_OK; ++o)
                    rc = moments_blocks_add(&obs_stats[o * p.n_records + r], m0, count,
                                            observed + o * count, finite);
                /* eq. 31-33: theta times the sums at t = k theta, k = 0 .. M (the records of an
                 * adaptive model are its steps, theta = T / M apart) */
                for (int64_t k = 0; exact && rc == COHORT_OK && k < count; ++k) {
                    const double *e = observed + n_obs * count;
                    member_value[RUN_VALUE_L1 * count + k] += p.values.dt * e[k];
                    member_value[RUN_VALUE_L2 * count + k] += p.values.dt * e[count + k];
                    const double linf = member_value[RUN_VALUE_LINF * count + k],
                                 ek = e[2 * count + k];
                    member_value[RUN_VALUE_LINF * count + k] = ek > linf || ek != ek ? ek : linf;
                }
                /* the field as archived: a deviation's in the scratch array, or the state */
                if (rc == COHORT_OK && sf && model->evolves_deviation)
                    rc = fields_values(be, state, mean, n, chunk, 0, count, scratch);
                if (rc == COHORT_OK && sf)
                    rc = structure_factor_add(sf, r, model->evolves_deviation ? scratch : state, 0,
                                              count, m0, finite);
                if (rc == COHORT_OK && last_chunk)
                    rc = run_write_record(out, &p, &acc, spectrum, r);
                ++r;
            }
            if (rc == COHORT_OK && q < p.n_snapshots && p.snapshot_step[q] == next) {
                rc = states_to_host(be, state, scratch, field_mean, host_state, member_major, n,
                                    chunk, count);
                if (rc == COHORT_OK)
                    rc = output_write_snapshot(out, q, next * p.values.dt, m0, count, member_major);
                ++q;
            }
            /* a checkpoint when one is due, with the chunk in flight at this step */
            if (rc == COHORT_OK && !run_signal &&
                cohort_seconds() - last_checkpoint >= checkpoint_every &&
                (r < p.n_records || q < p.n_snapshots)) {
                const run_position at = {first, end, m0, count, step, r, q, member_steps, n_chunks};
                flight.state = state, flight.prev = prev;
                rc = run_checkpoint(&durable, out, config_text, &at, &acc, &flight);
                last_checkpoint = cohort_seconds(), checkpointed |= rc == COHORT_OK;
            }
        }
        if (run_signal && rc == COHORT_OK) { /* stopped within the chunk: checkpoint it */
            const run_position at = {first, end, m0, count, step, r, q, member_steps, n_chunks};
            flight.state = state, flight.prev = prev;
            rc = run_checkpoint(&durable, out, config_text, &at, &acc, &flight);
            checkpointed |= rc == COHORT_OK;
            break;
        }
        if (rc == COHORT_OK && model->counters && model->adaptive) {
            rc = model->counters(stepper, count, counter, counter + count);
            for (int64_t k = 0; k < count; ++k) {
                member_value[RUN_VALUE_ACCEPTED * count + k] = (double)counter[k];
                member_value[RUN_VALUE_REJECTED * count + k] = (double)counter[count + k];
            }
        }
        for (int64_t k = 0; exact && k < count; ++k)
            member_value[RUN_VALUE_L2 * count + k] = sqrt(member_value[RUN_VALUE_L2 * count + k]);
        for (int v = 0; v < n_values && rc == COHORT_OK; ++v)
            rc = output_write_member_value(out, v, m0, count, member_value + value_slot[v] * count);
        if (rc == COHORT_OK && (archive || features))
            rc = states_to_host(be, state, scratch, field_mean, host_state, member_major, n, chunk,
                                count);
        if (rc == COHORT_OK && archive) rc = output_write_state(out, m0, count, member_major);
        if (rc == COHORT_OK && features)
            for (int64_t v = 0; v < count * n; ++v)
                features[(m0 - first) * n + v] =
                    spec.archive_float ? (double)(float)member_major[v] : member_major[v];
        progress_show(&pr, m0 + count - first, end - first, p.t_end, member_steps,
                      m0 + count == end);
        /* between chunks: a checkpoint when one is due, or when a signal came */
        if (rc == COHORT_OK && m0 + count < end &&
            (run_signal || cohort_seconds() - last_checkpoint >= checkpoint_every)) {
            const run_position at = {first, end, m0 + count, 0, 0, 0, 0, member_steps, n_chunks};
            rc = run_checkpoint(&durable, out, config_text, &at, &acc, &flight);
            last_checkpoint = cohort_seconds(), checkpointed |= rc == COHORT_OK;
        }
    }
    run_signals_restore();
    checkpoint_free(ck);
    ck = NULL;

    int64_t n_diverged = 0;
    int closed = COHORT_OK, ok = 0;
    /* an interrupted run: the checkpoint is written, the partial file stays */
    const int signo = (int)run_signal;
    if (signo) {
        const int kept = checkpointed; /* a failed last write leaves the one before */
        output_close(out, kept ? OUTPUT_KEEP : 0);
        out = NULL;
        run_copy_name(&durable, durable.generation, copy, sizeof copy);
        if (!kept) remove(checkpoint_path), remove(copy);
        if (rc != COHORT_OK) fprintf(stderr, "\ncohort run: %s\n", cohort_error_message());
        if (kept && !opt->segment)
            fprintf(stderr,
                    "\ncohort run: stopped by signal %d; %s.partial holds the records so far and "
                    "%s the rest of the run.\nResume with: %s%s\n",
                    signo, path, checkpoint_path, opt->command_line,
                    opt->resume ? "" : " --resume");
        else if (!kept)
            fprintf(stderr, "\ncohort run: stopped by signal %d before a checkpoint: %s\n", signo,
                    cohort_error_message());
        goto release;
    }
    /* the run's device arrays make room for the features' clustering */
    be->release(state), be->release(scratch), be->release(noise), be->release(prev);
    state = scratch = noise = prev = NULL;
    /* a segment's fit is of its members alone: the join reports the whole run's */
    const run_finish_options fo = {c, be, first, end, part, 0, opt->quiet || opt->segment};
    if (rc == COHORT_OK) rc = run_finish(out, &p, &acc, &fo, &n_diverged);
    sf = acc.sf;
    ok = rc == COHORT_OK;
    if (!ok) fprintf(stderr, "cohort run: %s\n", cohort_error_message());
    /* a failed run keeps what a checkpoint stands for (a full disk: free space and --resume) */
    closed = output_close(out, ok ? 1 : checkpointed ? OUTPUT_KEEP : 0);
    if (ok && closed != COHORT_OK) fprintf(stderr, "cohort run: %s\n", cohort_error_message());
    if (ok && closed == COHORT_OK && durable.generation > 0) {
        run_copy_name(&durable, durable.generation, copy, sizeof copy);
        remove(checkpoint_path), remove(copy);
    }
    if (!ok && checkpointed && !opt->segment)
        fprintf(stderr, "cohort run: %s.partial and %s are kept: resume with %s%s\n", path,
                checkpoint_path, opt->command_line, opt->resume ? "" : " --resume");
    if (ok && closed == COHORT_OK && !opt->quiet)
        fprintf(stderr,
                "wrote %s: %lld members x %lld points in %lld chunks of up to %lld, %lld %s "
                "of %.6g to t = %g, %lld records, %lld diverged, backend %s (%s), %.2f s\n",
                path, (long long)(end - first), (long long)n, (long long)n_chunks, (long long)chunk,
                (long long)p.steps, model->adaptive ? "adaptive intervals" : "steps of dt",
                p.values.dt, p.t_end, (long long)p.n_records, (long long)n_diverged, be->name,
                provenance.device, cohort_seconds() - pr.start);
release:
    for (int64_t r = 0; r < p.n_records; ++r) {
        if (ell_stats) moments_blocks_free(&ell_stats[r]);
        if (mass_stats) moments_blocks_free(&mass_stats[r]);
        for (int q = 0; q < n_obs && obs_stats; ++q)
            moments_blocks_free(&obs_stats[q * p.n_records + r]);
    }
    be->release(state);
    be->release(prev);
    be->release(scratch);
    be->release(noise);
    be->release(mean);
    be->release(amplitude);
    be->release(member_param);
    be->release(moments_dev);
    structure_factor_free(sf);
    free(features), free(spectrum);
    if (stepper) model->stepper_free(stepper);
    free(obs_stats), free(observed), free(member_value), free(counter);
    free(ell_stats), free(mass_stats), free(host_moments), free(ell), free(mass);
    free(host_state), free(member_major), free(host_mean), free(host_amplitude),
        free(host_member_param), free(finite), free(diverged);
    free(config_text), free(checkpoint_path);
    run_plan_free(&p);
    if (signo) return 128 + signo;
    return ok && closed == COHORT_OK ? 0 : EXIT_FAILURE_RUNNING;
}

/* A note where the members (or a swept point's replicates) are all alike: what makes them so,
 * and the key that asked for them. */
static void run_note_identical(const cohort_config *c, const run_plan *p)
{
    if (!config_members_identical(c)) return;
    const config_value *kind = config_get(c, "initial", "kind"),
                       *members = config_get(c, "ensemble", "members");
    char why[CONFIG_TEXT + CONFIG_ORIGIN + 64];
    if (p->model->solver_methods)
        snprintf(why, sizeof why, "%s starts every member from the same state", p->model->name);
    else
        snprintf(why, sizeof why, "initial.kind = %s (from %s) adds no noise%s", kind->text,
                 kind->origin, strcmp(kind->text, "uniform") ? "" : " at amplitude 0");
    if (c->n_sweeps == 0 && p->members > 1)
        fprintf(stderr,
                "cohort run: note: the %lld members are identical (%s, and nothing is swept): "
                "ensemble.members = %lld (from %s) runs one member's run %lld times\n",
                (long long)p->members, why, (long long)members->integer, members->origin,
                (long long)p->members);
    else if (c->n_sweeps > 0 && c->replicates > 1)
        fprintf(stderr,
                "cohort run: note: each swept point's %lld replicates are identical (%s): "
                "sweep.replicates = %lld runs each point %lld times\n",
                (long long)c->replicates, why, (long long)c->replicates, (long long)c->replicates);
}

int run_ensemble(const cohort_config *c, const run_options *opt)
{
    char err[1024] = "";
    run_plan p;
    int status = run_plan_make(c, &p, err, sizeof err);
    if (status) {
        fprintf(stderr, "cohort run: %s\n", err);
        run_plan_free(&p);
        return status;
    }
    const cohort_backend *be = NULL;
    if (cohort_backend_get(opt->backend, &be) != COHORT_OK) {
        fprintf(stderr, "cohort run: --backend %s: %s\n", opt->backend, cohort_error_message());
        run_plan_free(&p);
        return EXIT_BAD_INPUT;
    }
    const cohort_model *model = p.model;
    if (model->solver_methods && opt->resume) {
        fprintf(stderr,
                "cohort run: --resume: %s is a steady model, whose runs do not "
                "checkpoint; run it again\n",
                model->name);
        run_plan_free(&p);
        return EXIT_BAD_INPUT;
    }
    const int64_t members = p.members;
    /* --members A:B: a part of the run, cut at the statistics' blocks so that `cohort merge` joins
     * the parts' accumulators exactly */
    const int subset = opt->members_end > 0;
    const int64_t first = subset ? opt->members_first : 0,
                  end = subset ? opt->members_end : members;
    const char *why = !subset                 ? NULL
                      : model->solver_methods ? "a steady model's run is not split"
                      : end > members         ? "B is past the ensemble's last member"
                      : first % MOMENTS_BLOCK ? "A is not a multiple of the statistics' block"
                      : end % MOMENTS_BLOCK && end != members
                          ? "B is neither a multiple of the statistics' block nor the last member"
                          : NULL;
    if (why) {
        fprintf(stderr,
                "cohort run: --members %lld:%lld: %s (the run has %lld members; a part starts "
                "at a multiple of %d and ends at one or at %lld)\n",
                (long long)opt->members_first, (long long)opt->members_end, why, (long long)members,
                MOMENTS_BLOCK, (long long)members);
        run_plan_free(&p);
        return EXIT_BAD_INPUT;
    }
    if (!opt->quiet && !opt->segment) run_note_identical(c, &p);
    /* one writer per output, from here on: output_lock.h */
    output_lock *lock = NULL;
    if (!opt->output_locked && run_output_lock(c, opt, &lock)) {
        run_plan_free(&p);
        return EXIT_BAD_INPUT;
    }
    if (model->solver_methods) {
        status = run_steady(c, opt, &p, be);
        output_lock_release(lock);
        return status;
    }
    double worst_limit, mean_lo, mean_hi;
    const int64_t unstable = run_plan_unstable_members(&p, &worst_limit, &mean_lo, &mean_hi);
    if (unstable > 0 && !opt->quiet)
        fprintf(stderr,
                "cohort run: warning: time.dt = %.4g (from %s) is above %s's stability limit "
                "for %lld of %lld members (initial.mean in [%g, %g]; their smallest limit is dt "
                "= %.4g): expect them to diverge, or set time.dt below it\n",
                p.values.dt, config_get(c, "time", "dt")->origin, model->name, (long long)unstable,
                (long long)members, mean_lo, mean_hi, worst_limit);
    /* time.dt = auto says what it chose (an adaptive model's is the first trial step) */
    if (config_get(c, "time", "dt")->is_auto && !opt->quiet)
        fprintf(stderr, "cohort run: time.dt = auto: %s %.6g (%s)\n",
                model->adaptive ? "first trial step" : "dt =",
                model->adaptive ? p.values.tau0 : p.values.dt, model->name);
    p.chunk = chunk_size(c, be, &p, end - first);

    status = run_members(c, opt, p, be, first, end);
    output_lock_release(lock);
    return status;
}
