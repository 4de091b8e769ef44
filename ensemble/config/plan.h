/* The plan of a run, resolved from its configuration and the model's descriptor
 * (models/model.h): the model's parameters, the initial condition, the steps, the record and
 * snapshot steps, and how the members map onto the points of the [sweep]. `cohort run` follows it;
 * `cohort analyze` rebuilds it from the configuration stored in a file to find the members'
 * parameters again. */
#ifndef COHORT_PLAN_H
#define COHORT_PLAN_H

#include <stdint.h>

#include "backend/backend.h"
#include "config/config.h"
#include "config/design.h"
#include "config/initial_spec.h"
#include "models/model.h"

/* ensemble.target: the statistics of the accumulators (finish.h) in the order merge data holds them
 */
enum { RUN_TARGET_LENGTH = 0, RUN_TARGET_OBSERVABLE = 2 };

typedef struct run_plan {
    const cohort_model *model;
    cohort_model_values values; /* the parameters (before sweeps), the grid and dt */
    int64_t n;                  /* points per member: nx ny */
    initial1d ic;
    double mean; /* initial.mean: every member's conserved mean */
    int64_t members, chunk, steps;
    /* ensemble.target_sem (0: none): run blocks of members until the relative standard error of
     * statistic `target` (RUN_TARGET_LENGTH, or RUN_TARGET_OBSERVABLE + q) at the last record is
     * at most target_sem, up to max_members (target_name: as a message names it) */
    double target_sem;
    int64_t max_members;
    int target;
    const char *target_name;
    double t_end;
    /* the period the records, the snapshots and t_end are whole multiples of (0: none), and
     * whether every record and snapshot falls on its nominal time k * every (to rounding) */
    double event_period;
    int events_on_time;
    double checkpoint_every; /* output.checkpoint_every: wall-clock seconds between checkpoints */
    int64_t chunk_wanted;    /* ensemble.chunk, 0 for auto (chunk: what the run then uses) */
    /* [output] and [analysis], as the later stages read them */
    int archive_final, archive_float, member_series; /* output.archive = final, precision, ... */
    int structure_factor;                            /* analysis.structure_factor */
    double fit_from;                                 /* analysis.fit_from */
    int bootstrap;                                   /* analysis.bootstrap: resamples */
    int sensitivity; /* analysis.sensitivity = sobol: Sobol indices at the end of the run */
    /* analysis.bootstrap_unit: the members of each unit the moments are folded into and the
     * bootstrap resamples (moments.h; auto: moments_unit_size of the members, of a target run's
     * first round) */
    int64_t bootstrap_unit;
    int kmeans_k, kmeans_restarts, kmeans_max_iter; /* analysis.kmeans* */
    int kmeans_auto;                                /* analysis.kmeans = auto (kmeans_k 0) */
    double kmeans_tol;
    int64_t n_records;
    int64_t *record_step; /* step after which record r is taken (0 = the initial state) */
    int64_t n_snapshots;  /* output.archive = snapshots */
    int64_t *snapshot_step;
    /* [sweep]: member g is replicate g % replicates of point g / replicates; in a grid design
     * the first swept key varies slowest; a space-filling design (design.h) has `points` points
     * (a Saltelli design: base points x arms) */
    int n_sweeps;
    design_kind design;
    int64_t points;
    const config_sweep *sweep[CONFIG_MAX_SWEEPS];
    int64_t stride[CONFIG_MAX_SWEEPS], replicates;
    /* per-member values: index into sweep, or -1 (member_param_sweep: of the model's
     * per_member_param) */
    int mean_sweep, amplitude_sweep, member_param_sweep;
    /* the sweep of the model's member_factors key where its members hold their own factors
     * (-1: none; else it is no stepper sweep), and that parameter's index */
    int member_factor_sweep, member_factor_param;
    /* swept parameters the stepper holds: sweep stepper_sweep[q] sets param stepper_param[q] */
    int n_stepper_sweeps, stepper_sweep[CONFIG_MAX_SWEEPS], stepper_param[CONFIG_MAX_SWEEPS];
} run_plan;

/* Checks what the schema cannot (relations between keys, what this version can run) and derives
 * the plan. Returns 0, or 2 (bad configuration) or 1 (out of memory) with the message in err,
 * which names the key and where its value came from. run_plan_free releases it either way. */
int run_plan_make(const cohort_config *c, run_plan *p, char *err, size_t len);
void run_plan_free(run_plan *p);

/* Record r's time, and whether the fits take it (t > 0 and t >= analysis.fit_from, to
 * rounding). */
double run_plan_record_time(const run_plan *p, int64_t r);
int run_plan_record_fitted(const run_plan *p, int64_t r);
/* The time of the first record the fits take (NAN: none), as messages state the window. */
double run_plan_fit_start(const run_plan *p);

/* The value of swept key j for global member g. */
double run_plan_swept_value(const run_plan *p, int j, int64_t g);

/* Whether members g and h share every swept value the stepper holds. */
int run_plan_same_stepper(const run_plan *p, int64_t g, int64_t h);

/* The values member g's stepper is built from: the plan's, with g's swept stepper parameters. */
cohort_model_values run_plan_stepper_values(const run_plan *p, int64_t g);

/* The values member g steps with: the stepper's, with g's own per-member parameters. */
cohort_model_values run_plan_member_values(const run_plan *p, int64_t g);

/* The members whose dt exceeds the model's stability limit (model->dt_limit, for each member's
 * mean and parameters), 0 where the model knows none; *worst_limit the smallest limit
 * among them and [*mean_lo, *mean_hi] their means. Sweeps of more than 2^28 points are not
 * scanned (0). */
int64_t run_plan_unstable_members(const run_plan *p, double *worst_limit, double *mean_lo,
                                  double *mean_hi);

#endif
