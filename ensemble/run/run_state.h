/* The state a run of members carries from stage to stage (docs/design.md, "The run's
 * pipeline"): run.c checks the configuration into a plan and takes the output's lock; then
 *   run_open.c      output: the checkpoint's checks on --resume, the file created or reopened;
 *   run_buffers.c   the working memory of a chunk and the accumulators of the run;
 *   run_chunk.c     members and stepping: a chunk's stepper, per-member values, initial states,
 *                   and its steps to the next record or snapshot;
 *   run_records.c   records (moments, observables, errors, structure factor), snapshots, and a
 *                   finished chunk's values, archive and k-means features;
 *   run_durable.c   durability: checkpoints, their restoration, signals;
 *   run_identity.c  the run id its checkpoints and file share, and --resume on an existing OUT;
 * and run.c again ends the run: stopped, failed or finished (finish.c) and closed. The stages
 * read the plan, never the configuration's keys, except run_open.c for the output's path. */
#ifndef COHORT_RUN_STATE_H
#define COHORT_RUN_STATE_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>

#include "config/plan.h"
#include "io/checkpoint.h"
#include "io/output.h"
#include "results/finish.h"
#include "run/run.h"
#include "run/run_file.h"

/* stored as it is in a checkpoint: int64_t fields only, no padding */
typedef struct run_position {
    int64_t first, end; /* the members the run covers (all, or --members A:B) */
    int64_t m0;         /* the first member of the chunk in flight, or of the next chunk */
    int64_t count;      /* the chunk in flight's members; 0 between chunks */
    int64_t step, r, q; /* in flight: its next step, record and snapshot */
    int64_t member_steps, n_chunks;
} run_position;

enum { RUN_ID_LEN = 33 }; /* 32 hex digits and the NUL */

/* A chunk's working memory: backend arrays of leading dimension chunk, and their host side. */
typedef struct run_buffers {
    double *state, *prev, *scratch, *noise; /* prev: C^{n-1} of models with two time levels */
    double *mean, *amplitude, *member_param, *moments_dev;
    double *host_moments, *ell, *mass, *host_state, *member_major;
    double *host_mean, *host_amplitude, *host_member_param;
    double *host_factor_param; /* each member's value of the model's member_factors key */
    double *observed;          /* a record's observables per member, then the exact errors */
    double *member_value;      /* RUN_VALUES x count: step counts, errors */
    double *spectrum;          /* the structure factor of one record */
    unsigned char *finite;
    int64_t *counter;
} run_buffers;

/* The chunk being run: members [m0, m0 + count), at its next step, record r and snapshot q. */
typedef struct run_chunk {
    int64_t m0, count, step, r, q;
    int in_flight;        /* continued from a checkpoint's chunk in flight */
    int last;             /* the run's last chunk, which completes each record as it reaches it */
    int64_t steps_a_call; /* the most steps a call of the model's advance (1: step by step) */
    const double *field_mean; /* the members' means where the state is their deviation */
} run_chunk;

typedef struct progress {
    int quiet, tty;
    double start, last;
    int64_t total_member_steps;
} progress;

typedef struct run_state {
    const cohort_config *c;
    const run_options *opt;
    run_plan p;
    const cohort_backend *be;
    const cohort_model *model;
    int64_t first, end, n, chunk; /* members [first, end) of p.members, in chunks of chunk */
    int part;                     /* a member subset: --members A:B, or an MPI segment */
    /* output */
    const char *path;
    char *config_text, *checkpoint_path;
    char partial_path[PATH_MAX + 16];
    char run_id[RUN_ID_LEN]; /* new, or the checkpoint's on --resume */
    output_spec spec;
    file_provenance provenance;
    int value_slot[RUN_VALUES];
    cohort_output *out;
    int archive, n_obs, n_values, exact, keep_features;
    /* durability */
    checkpoint *ck; /* --resume: the checkpoint, until its chunk in flight is restored */
    int64_t generation;
    run_position resume_at;
    double checkpoint_every, last_checkpoint;
    int checkpointed; /* OUT.partial and OUT.checkpoint stand for the run */
    /* what the members accumulate, and their working memory */
    run_accumulators acc;
    run_buffers b;
    void *stepper;
    int64_t stepper_member; /* a member whose swept stepper keys the stepper has */
    progress pr;
    int64_t member_steps, n_chunks;
} run_state;

/* run_open.c: 0 with s->out open (and s->ck on --resume), or an exit status with the message on
 * stderr: 2 (a bad output or checkpoint; -1: the run was complete, exit 0). */
int run_open(run_state *s);

/* run_buffers.c */
int run_buffers_alloc(run_state *s);
void run_buffers_release_device(run_state *s); /* the chunk's backend arrays, early */
void run_buffers_free(run_state *s);

/* run_chunk.c: the chunk at ch->m0 (count at most s->chunk, cut where the swept stepper changes)
 * made ready to step: stepper, per-member values, initial states or the checkpoint's */
int run_chunk_begin(run_state *s, run_chunk *ch);
/* its steps up to `next`; stops early on a signal */
int run_chunk_step_to(run_state *s, run_chunk *ch, int64_t next);
/* The timed probe: the first chunk's members from their initial states, a few steps on a stepper
 * of the probe's own (so that no state of the run's, an adaptive step size or a first step's
 * start, is touched), timed after a warm-up round: member-steps a second (NAN where none ran),
 * and the seconds a member's values took to set up (its factor, where it holds one). The chunks
 * that follow start from their initial states again, so the probe changes no bit. */
int run_chunk_probe(run_state *s, double *member_steps_per_second, double *setup_per_member);

/* run_records.c */
int run_record_take(run_state *s, run_chunk *ch);
int run_snapshot_take(run_state *s, run_chunk *ch, int64_t next);
int run_chunk_end(run_state *s, const run_chunk *ch);

/* run_durable.c */
extern volatile sig_atomic_t run_signal; /* the signal that stops the run, 0 while none */
void run_signals_install(void);
void run_signals_restore(void);
void run_copy_name(const run_state *s, int64_t generation, char *name, size_t len);
/* a checkpoint at position `at` (count > 0: with the chunk in flight in the buffers) */
int run_checkpoint(run_state *s, const run_position *at);
/* the accumulators and position of s->ck */
int run_checkpoint_restore(run_state *s);
/* the chunk in flight of s->ck into the buffers and stepper */
int run_checkpoint_restore_flight(run_state *s);
/* --resume: the checkpoint is of this configuration and these members (messages on stderr) */
int run_checkpoint_matches(run_state *s);

/* run_identity.c: a new random run id (32 hex digits) */
int run_identity_new(char id[RUN_ID_LEN]);
/* --resume where OUT exists (s->path, checkpoint_path and config_text set): -1 where OUT is this
 * run's finished file (said; a checkpoint of the same run id removed), 0 to resume (OUT absent,
 * or to be replaced with --overwrite), 2 where OUT is another run's (said; nothing removed). */
int run_resume_existing(const run_state *s);

void progress_show(progress *pr, int64_t members_done, int64_t members, double t,
                   int64_t member_steps, int final);

#endif
