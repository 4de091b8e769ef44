#define _POSIX_C_SOURCE 200809L
#include "parts/distributed.h"

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "analysis/moments.h"
#include "backend/cohort_error.h"
#include "config/plan.h"
#include "exit_status.h"
#include "io/sidecar.h"
#include "parts/merge.h"
#include "parts/part_features.h"
#include "parts/segments.h"
#include "parts/target.h"
#include "report.h"
#include "results/clustering.h"
#include "run/run_file.h"

/* What the segments cover: the run's members, or a target run's max_members of which its first
 * round runs first_round (0: no target); unit: the bootstrap's, fixed by the first round. */
typedef struct run_shape {
    int64_t members, first_round, unit;
    int steady;
} run_shape;

static const char *output_of(const cohort_config *c, const run_options *opt)
{
    return opt->output_path ? opt->output_path : config_get(c, "output", "path")->text;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int run_distributed_pending(const cohort_config *c, const run_options *opt)
{
    char name[PATH_MAX];
    segments_list_name(output_of(c, opt), name, sizeof name);
    return exists(name);
}

/* A rank outside a segment (done with its own, waiting for the others, or idle) takes SIGINT,
 * SIGTERM and SIGUSR1 as the stop its segments' runs would make: its work is saved, so it only
 * notes the signal; the default action would end it and, with it, the job. */
static volatile sig_atomic_t stop_signal = 0;

static void note_signal(int signo)
{
    stop_signal = signo;
}

static void signals_note(int on)
{
    signal(SIGINT, on ? note_signal : SIG_DFL);
    signal(SIGTERM, on ? note_signal : SIG_DFL);
    signal(SIGUSR1, on ? note_signal : SIG_DFL);
}

/* Rank 0 alone decides; every rank gets the status. */
static int decided_by_root(const cohort_comm *comm, int status)
{
    comm_broadcast(comm, &status, sizeof status);
    return status;
}

/* run_distributed, with rank 0 holding OUT's lock */
/* Rank 0's new segment list: the output checked, an interrupted run's list refused without
 * --overwrite (with it, its parts go), the members cut over the ranks and the list written
 * unless one process runs it all (*serial). 0, or 2 with err. */
static int distributed_start(const cohort_config *c, const run_options *opt,
                             const cohort_comm *comm, const run_shape *shape, segments *g,
                             int *serial, char *err, size_t len)
{
    const char *out = output_of(c, opt), *path = NULL;
    char manifest[PATH_MAX];
    segments_list_name(out, manifest, sizeof manifest);
    int status = run_file_prepare(c, opt, &path);
    if (!status && exists(manifest) && !opt->overwrite) {
        snprintf(err, len,
                 "%s exists: an interrupted run of this output over several processes; continue "
                 "it with --resume (any number of ranks), or start over with --overwrite",
                 manifest);
        status = EXIT_BAD_INPUT;
    }
    if (!status && exists(manifest)) { /* --overwrite: the old segments' files go */
        segments old;
        char part[PATH_MAX + 64], ignored[256];
        if (segments_list_read(manifest, shape->members, shape->first_round > 0, &old, ignored,
                               sizeof ignored) == 0)
            for (int s = 0; s < old.count; ++s) {
                segments_part_name(out, &old, s, part, sizeof part);
                segments_part_remove(part);
            }
        remove(manifest);
    }
    g->members = shape->members, g->count = 0, g->bounds[0] = 0;
    segments_extend(g, shape->first_round > 0 ? shape->first_round : shape->members, comm->size);
    *serial = shape->first_round == 0 && (shape->steady || g->count == 1);
    if (!status && !*serial && !segments_list_write(manifest, g)) {
        snprintf(err, len, "cannot write %s", manifest);
        status = EXIT_BAD_INPUT;
    }
    return status;
}

/* Rank 0 decides, every rank learns: the segments (read back on --resume, else cut) and whether
 * rank 0 runs it all as one process (*serial: a steady model, one segment, or the resume of a run
 * that had one). 0, or the exit status, said once. */
static int distributed_decide(const cohort_config *c, const run_options *opt,
                              const cohort_comm *comm, segments *g, run_shape *shape_out,
                              int *serial)
{
    char err[PATH_MAX + 1024] = "", manifest[PATH_MAX];
    run_plan p;
    int status = run_plan_make(c, &p, err, sizeof err);
    run_shape shape = {p.members, 0, p.bootstrap_unit, status == 0 && p.model->steady != NULL};
    if (status == 0 && p.target_sem > 0.0) { /* the first round: whole blocks */
        const int64_t first = (p.members + MOMENTS_BLOCK - 1) / MOMENTS_BLOCK * MOMENTS_BLOCK;
        shape.members = p.max_members;
        shape.first_round = first < p.max_members ? first : p.max_members;
    }
    run_plan_free(&p);
    *shape_out = shape;
    if (status) { /* the same on every rank: rank 0 says it */
        report(REPORT_ERROR, "%s", err);
        return status;
    }
    if (opt->members_end > 0) {
        report(REPORT_ERROR, "--members: %s; run the part without %s",
               shape.first_round > 0
                   ? "a run to ensemble.target_sem splits the members itself, in rounds"
                   : "a run over several processes splits the members itself",
               shape.first_round > 0 ? "ensemble.target_sem" : "mpirun");
        return EXIT_BAD_INPUT;
    }
    segments_list_name(output_of(c, opt), manifest, sizeof manifest);
    *serial = 0;
    if (comm->rank == 0) {
        if (opt->resume && exists(manifest))
            status = segments_list_read(manifest, shape.members, shape.first_round > 0, g, err,
                                        sizeof err);
        else if (opt->resume && shape.first_round > 0) {
            snprintf(err, sizeof err,
                     "--resume: %s does not exist: no run to ensemble.target_sem of this output "
                     "was interrupted; run it without --resume",
                     manifest);
            status = EXIT_BAD_INPUT;
        } else if (opt->resume)
            *serial = 1; /* OUT.checkpoint, or run_ensemble says there is none */
        else
            status = distributed_start(c, opt, comm, &shape, g, serial, err, sizeof err);
        if (status && *err) report(REPORT_ERROR, "%s", err);
    }
    status = decided_by_root(comm, status);
    *serial = decided_by_root(comm, *serial);
    if (!status && !*serial) comm_broadcast(comm, g, sizeof *g);
    return status;
}

/* Rank 0 runs it all, under the lock it holds; the others wait for its status. */
static int run_serial(const cohort_config *c, const run_options *opt, const cohort_comm *comm)
{
    run_options locked = *opt;
    locked.output_locked = 1;
    int status = comm->rank == 0 ? run_ensemble(c, &locked) : 0;
    signals_note(1);
    if (comm->rank == 0 && status != 0 && status < 128 && status != EXIT_BAD_INPUT) {
        report(REPORT_ERROR, "rank 0 on %s failed (exit %d)", comm->host, status);
        comm_abort(comm, status);
    }
    return decided_by_root(comm, status);
}

/* This rank's segments, round-robin over the ranks, each a part under its own lock; a finished
 * part is kept. A rank that fails stops every rank; 128 + a signal where one came. */
static int run_segments(const cohort_config *c, const run_options *opt, const cohort_comm *comm,
                        const segments *g)
{
    const char *out = output_of(c, opt);
    int status = 0;
    for (int s = comm->rank; s < g->count && status == 0 && !stop_signal; s += comm->size) {
        char part[PATH_MAX + 64], ck[PATH_MAX + 80];
        segments_part_name(out, g, s, part, sizeof part);
        if (segments_part_done(part)) continue;
        sidecar_name(part, SIDECAR_CHECKPOINT, ck, sizeof ck);
        run_options o = *opt;
        o.output_path = part;
        o.members_first = g->bounds[s], o.members_end = g->bounds[s + 1];
        o.overwrite = 1, o.segment = 1;
        o.resume = exists(ck);
        o.quiet = opt->quiet || comm->rank != 0;
        status = run_ensemble(c, &o);      /* under the part's own lock */
        signals_note(1);                   /* run_ensemble restored the defaults */
        if (status != 0 && status < 128) { /* this rank failed: every rank stops */
            report(REPORT_ERROR,
                   "rank %d on %s failed (exit %d) on members [%lld, %lld); every "
                   "rank stops; the last checkpoints stand: resume with %s%s",
                   comm->rank, comm->host, status, (long long)g->bounds[s],
                   (long long)g->bounds[s + 1], opt->command_line, opt->resume ? "" : " --resume");
            comm_report_stderr(comm);
            comm_abort(comm, status);
        }
    }
    if (status == 0 && stop_signal) status = EXIT_SIGNAL_BASE + stop_signal;
    return comm_max(comm, status);
}

/* A rank other than 0 while rank 0 joins: its share of the k-means (clustering.h), its members'
 * features read from the parts. The plan is the one every rank made already. */
static int distributed_follow(const cohort_config *c, const run_options *opt, const segments *g,
                              const cohort_team *team)
{
    char err[1024];
    run_plan p;
    const cohort_backend *be = NULL;
    const char **parts = segments_part_names(output_of(c, opt), g);
    if (!parts || run_plan_make(c, &p, err, sizeof err) != 0 ||
        cohort_backend_get(opt->backend, &be) != COHORT_OK) {
        report(REPORT_ERROR, "rank %d cannot take part in the k-means", team->rank);
        team->abort(team->ctx, EXIT_FAILURE_RUNNING);
        return EXIT_FAILURE_RUNNING;
    }
    part_features features;
    part_features_init(&features, parts, g->bounds, g->count, p.n);
    clustering_options copt = clustering_options_from_plan(&p);
    copt.quiet = 1, copt.team = team;
    const int rc = clustering_follow(be, &p, &copt, part_features_load, &features);
    part_features_close(&features);
    run_plan_free(&p);
    free((void *)parts[0]), free(parts);
    return rc == COHORT_OK ? 0 : 1;
}

/* Rank 0 joins the parts into OUT (merge.h), the team sharing the k-means, and removes them and
 * the segment list. */
static int distributed_join(const run_options *opt, const cohort_comm *comm, const char *out,
                            const segments *g, const target_result *target, const cohort_team *team)
{
    char manifest[PATH_MAX];
    segments_list_name(out, manifest, sizeof manifest);
    const char **parts = segments_part_names(out, g);
    int joined = g->count; /* a target run: the parts of its first target->members */
    while (target && joined > 1 && g->bounds[joined - 1] >= target->members) --joined;
    merge_options mo = {.inputs = parts,
                        .n_inputs = joined,
                        .members = target ? target->members : 0,
                        .target_reached = target ? target->reached : 0.0,
                        .output_path = out,
                        .overwrite = opt->overwrite,
                        .backend = opt->backend,
                        .quiet = opt->quiet,
                        .joining = 1,
                        .team = team,
                        .version = opt->version};
    const int status = parts ? merge_parts(&mo) : 1;
    clustering_team_done(team); /* the other ranks leave clustering_follow */
    if (status == 0) {
        for (int s = 0; s < g->count; ++s) segments_part_remove(parts[s]);
        remove(manifest);
        if (!opt->quiet)
            report(REPORT_RESULT, "wrote %s: %lld members, %d segments over %d ranks", out,
                   (long long)(target ? target->members : g->members), joined, comm->size);
    } else {
        report(REPORT_ERROR, "joining the parts failed; they are kept beside %s", out);
    }
    if (parts) free((void *)parts[0]);
    free(parts);
    return status;
}

/* A target run's next step, decided by rank 0, learnt by every rank: done, or another round. */
static int target_next(const cohort_config *c, const run_options *opt, const cohort_comm *comm,
                       segments *g, target_result *t, int *done)
{
    int status = 0;
    *done = 0;
    if (comm->rank == 0)
        status = target_round(c, output_of(c, opt), comm->size, opt->quiet, g, t, done);
    status = decided_by_root(comm, status);
    *done = decided_by_root(comm, *done);
    comm_broadcast(comm, t, sizeof *t);
    if (!status && !*done) comm_broadcast(comm, g, sizeof *g);
    return status;
}

/* The segments' runs, round after round for a target run (pc: the parts' configuration); 0 with
 * *t where a target run is done, or the exit status (128 + a signal: each part checkpointed). */
static int run_rounds(const cohort_config *c, const cohort_config *pc, const run_options *opt,
                      const cohort_comm *comm, const run_shape *shape, segments *g,
                      target_result *t)
{
    for (int done = 0;;) {
        int status = run_segments(pc, opt, comm, g);
        if (status || shape->first_round == 0) return status;
        if ((status = target_next(c, opt, comm, g, t, &done)) || done) return status;
    }
}

/* run_distributed, with rank 0 holding OUT's lock; pc: the configuration of the parts (a target
 * run's: of max_members members) */
static int run_distributed_locked(const cohort_config *c, cohort_config *pc, const run_options *opt,
                                  const cohort_comm *comm, segments *g, const run_shape *shape)
{
    target_result t = {0};
    int status = run_rounds(c, pc, opt, comm, shape, g, &t);
    if (status) { /* a signal: every rank checkpointed its segment */
        char manifest[PATH_MAX];
        segments_list_name(output_of(c, opt), manifest, sizeof manifest);
        if (comm->rank == 0 && status > 128)
            report(REPORT_ERROR,
                   "stopped by signal %d; %s lists the segments, each with its "
                   "part or checkpoint.\nResume with (any number of ranks): %s%s",
                   status - 128, manifest, opt->command_line, opt->resume ? "" : " --resume");
        return status;
    }
    if (shape->first_round > 0) /* the join's plan: the run of the members the target took */
        config_set_integer(pc, "ensemble", "members", t.members, "ensemble.target_sem");
    cohort_team team;
    comm_team(comm, &team);
    if (comm->rank == 0)
        status = distributed_join(opt, comm, output_of(c, opt), g,
                                  shape->first_round > 0 ? &t : NULL, &team);
    else
        distributed_follow(pc, opt, g, &team);
    return decided_by_root(comm, status);
}

/* The configuration of a target run's parts: members and max_members its max_members, and the
 * bootstrap's unit its first round's, which every round and the join keep. */
static int parts_configuration(const cohort_config *c, const run_shape *shape, cohort_config *pc)
{
    if (config_copy(c, pc) != COHORT_OK) return 1;
    if (shape->first_round > 0) {
        config_set_integer(pc, "ensemble", "members", shape->members, "ensemble.max_members");
        config_set_integer(pc, "ensemble", "max_members", shape->members, "ensemble.max_members");
        config_set_integer(pc, "analysis", "bootstrap_unit", shape->unit, "ensemble.target_sem");
    }
    return 0;
}

/* The segments decided, then run (rank 0 alone where serial) and joined. */
static int run_decided(const cohort_config *c, const run_options *opt, const cohort_comm *comm,
                       segments *g)
{
    int serial = 0;
    run_shape shape;
    int status = distributed_decide(c, opt, comm, g, &shape, &serial);
    if (status) return status;
    stop_signal = 0;
    signals_note(1);
    cohort_config pc;
    if (serial)
        status = run_serial(c, opt, comm);
    else if (!(status = parts_configuration(c, &shape, &pc))) {
        status = run_distributed_locked(c, &pc, opt, comm, g, &shape);
        config_free(&pc);
    }
    signals_note(0);
    return status;
}

int run_distributed(const cohort_config *c, const run_options *opt, const cohort_comm *comm)
{
    output_lock *lock = NULL; /* rank 0 holds OUT's, from the segment list to the join */
    int status = comm->rank == 0 ? run_file_lock(c, opt, &lock) : 0;
    status = decided_by_root(comm, status);
    segments *g = status ? NULL : calloc(1, sizeof *g);
    if (!status) status = g ? run_decided(c, opt, comm, g) : 1;
    free(g);
    output_lock_release(lock);
    return status;
}
