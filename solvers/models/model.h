/* A model is one folder solvers/models/<name>/ that exports one `const cohort_model` descriptor,
 * listed once in registry.c. The descriptor says what the driver needs to know and nothing more:
 * the equation and its source, the grid it lives on, its parameters (key, default, range, units,
 * meaning: the configuration schema, `cohort models`, the sweepable keys and the files' parameter
 * attributes all come from this table), and the operations that set up a stepper (factor,
 * upload). What else it can do is grouped into capability tables, as SUNDIALS groups a vector's
 * required and optional operations: stepping, on-chip advances, adaptive steps, steady solves,
 * observables and exact solutions, coarsening statistics, defaults; each NULL where the model
 * lacks it. Initial conditions, moments, archived fields and statistics are the driver's, the same
 * for every model. The ensemble layer reaches a model only through this header. */
#ifndef COHORT_MODEL_H
#define COHORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { COHORT_MODEL_MAX_PARAMS = 8 };

/* A parameter model.<key>: a real number in [min, max] (min excluded with min_exclusive). Models
 * that share a key declare the same default, range and units (the configuration schema holds one
 * entry per key; test_config checks it); each keeps its own meaning. */
typedef struct cohort_model_param {
    const char *key;
    const char *default_value; /* as written in a configuration file */
    double min, max;
    int min_exclusive;
    const char *units, *meaning;
} cohort_model_param;

typedef enum {
    COHORT_BOUNDARY_PERIODIC = 0,
    COHORT_BOUNDARY_DIRICHLET = 1,
    COHORT_BOUNDARY_NEUMANN = 2
} cohort_boundary;

/* time.stepper, for models that offer several ways to take the same steps (model->steppers) */
typedef enum { COHORT_STEPPER_SWEPT = 0, COHORT_STEPPER_CLASSIC = 1 } cohort_stepper_kind;

/* What one stepper is built from: the parameters in the descriptor's order, the grid, the step,
 * and for bounded and adaptive models the keys they read besides. */
typedef struct cohort_model_values {
    double param[COHORT_MODEL_MAX_PARAMS];
    int64_t nx, ny; /* grid points along x and y (ny = 1 in 1D); cells of a bounded model */
    double length;  /* the periodic domain's side L, or the bounded square's */
    double dt;      /* the step; for an adaptive model the interval one step() covers */
    double origin;  /* grid.origin: a bounded model's lower-left corner */
    cohort_boundary boundary;    /* model.boundary */
    double tolerance, tau0;      /* adaptive: time.tolerance and the first trial step (time.dt) */
    const char *initial_kind;    /* initial.kind */
    double amplitude;            /* initial.amplitude (1 where swept per member) */
    int64_t mode;                /* initial.mode */
    cohort_stepper_kind stepper; /* time.stepper */
    int64_t block_width;         /* time.block_width; 0: auto */
    /* steady models: solver.method (its index in model->solver_methods), solver.tolerance,
     * solver.max_iterations, solver.check_every */
    int solver_method;
    double solver_tolerance;
    int64_t max_iterations, check_every;
} cohort_model_values;

/* A chunk's state in the backend's memory, interleaved: value v of member m at [v * ld + m]. */
typedef struct cohort_model_state {
    double *u;                  /* C^n: the field, or its deviation C - mean (evolves_deviation) */
    double *prev;               /* C^{n-1} where time_levels = 2, else NULL */
    double *scratch;            /* u's shape, free between steps */
    const double *mean;         /* ld values: each member's conserved mean */
    const double *member_param; /* ld values of params[per_member_param], or NULL: the stepper's */
    int64_t ld, m0, count;      /* members [m0, m0 + count) of ld */
} cohort_model_state;

/* The law the per-member length scale 1 / (1 - <C^2>) follows in t, fitted from
 * analysis.fit_from on; where none holds, the run stores the mean and its band alone. */
typedef enum {
    COHORT_FIT_LINEAR_IN_LOG_T = 0, /* <name>_mean = a + b ln t: <name>_vs_log_t_slope, ... */
    COHORT_FIT_POWER_LAW = 1,       /* <name>_mean = a t^b: <name>_exponent, ... (and 1/k1) */
    COHORT_FIT_NONE = 2             /* no coarsening law: no fit stored or printed */
} cohort_model_fit;

/* A per-member quantity a model reports at every record: its ensemble mean, variance and standard
 * error over t are stored as <name>_mean, <name>_var and <name>_sem. */
typedef struct cohort_model_observable {
    const char *name, *meaning, *units;
} cohort_model_observable;

enum { COHORT_MODEL_MAX_OBSERVABLES = 4 };

typedef struct cohort_model cohort_model;

/* ---- The capability tables. A model fills the tables of what it can do and leaves the others
 * NULL; each table is driven by one stage of the run (docs/design.md, "Adding a model"). A
 * family's members share its tables by pointing at them (models/model1d, swept1d, curvature2d)
 * and keep their own descriptor fields. ---- */

/* Time stepping (every model but a steady one; stage: run_chunk.c). */
typedef struct cohort_model_stepping {
    /* Advances the state by one step (step = 0: the first, for models that start differently);
     * the pointers of s may be exchanged, so that s->u holds the new state. */
    int (*step)(void *stepper, cohort_model_state *s, int64_t step);
    int time_levels;       /* 1, or 2 where a step needs C^{n-1} */
    int evolves_deviation; /* u is C - mean, each step projecting the deviation's drift out */
    /* "swept|classic": the values of time.stepper the model offers, the first the default (NULL:
     * the key does not apply); they take the same steps with the same arithmetic */
    const char *steppers;
} cohort_model_stepping;

/* Many steps in one call, which saves work between them: the state kept on chip, or what one step
 * hands the next (optional; stage: run_chunk.c). */
typedef struct cohort_model_on_chip {
    /* Advances the state by `steps` steps from step `step`, the same bits as `steps` calls of
     * step(); the pointers of s may be exchanged as by step() */
    int (*advance)(void *stepper, cohort_model_state *s, int64_t step, int64_t steps);
    /* The most steps one call of advance() is worth for this stepper (NULL or 0: no limit of its
     * own; the driver takes at most 4,096 a call): 1 where advance() would only loop over step(),
     * so the driver steps one at a time; a few where the saving comes within them, so that the
     * driver shows progress and sees signals between calls as often as between single steps */
    int64_t (*steps_a_call)(const void *stepper);
} cohort_model_on_chip;

/* Members that hold their own value of a parameter of the implicit matrix (optional; stages:
 * plan.c, run_chunk.c). A sweep of it would otherwise need a stepper a value, and so a chunk of
 * one member a value in a space-filling design; with this table the members of a chunk step
 * together, each with its own factor, the same bits as a stepper of its value. */
typedef struct cohort_model_member_factors {
    const char *key;   /* the parameter: model.<key> */
    const char *where; /* where a stepper takes them, in words (`cohort models`) */
    /* the bytes of one member's factor for a stepper of these values, held on the host and on the
     * backend (the run sizes its chunks with them); 0 where the stepper cannot take its members'
     * own values (the sweep then takes a stepper a value) */
    double (*bytes)(const cohort_model *m, const cohort_model_values *v);
    /* members [0, count) of the steps from now on take values[k] (host) as their parameter */
    int (*set)(void *stepper, const double *values, int64_t count);
} cohort_model_member_factors;

/* Adaptive in time (optional; stages: plan.c's plan_time, run_records.c, run_durable.c): step()
 * advances the members by the interval dt (time.output_every), each member with its own adaptive
 * steps to time.tolerance from the first trial step time.dt; each chunk starts at step 0. */
typedef struct cohort_model_adaptive {
    int working_states; /* states of n values per member the stepper keeps besides u, scratch */
    /* each member's accepted and rejected steps so far in this chunk (host) */
    int (*counters)(void *stepper, int64_t count, int64_t *accepted, int64_t *rejected);
    /* what a stepper carries from one step() to the next besides the states (the per-member
     * times, steps and counters), for checkpoints: its size for count members, a host copy of
     * it, and its restoration into a stepper about to continue members [0, count) at leading
     * dimension ld */
    size_t (*carried_bytes)(int64_t count);
    int (*carried_get)(void *stepper, int64_t count, void *bytes);
    int (*carried_set)(void *stepper, int64_t ld, int64_t count, const void *bytes);
} cohort_model_adaptive;

/* Solved to a tolerance rather than stepped in time (optional, instead of stepping; stage:
 * steady.c). A steady model reads [solver], not [time] or [initial]: each member iterates from
 * the model's own start until solver.tolerance or solver.max_iterations. */
typedef struct cohort_model_steady {
    /* "lmsor|lsor|sor": solver.method's values, the first the default */
    const char *solver_methods;
    /* the per-member integers it reports: name(member), and the history's name(member, check) */
    const cohort_model_observable *member_values;
    int n_member_values;
    const char *history_name, *history_meaning;
    /* Solves members [0, count) of a chunk: fields (host, member-major, n values each) the final
     * iterates, or NULL where the file keeps none (they then need not leave the device),
     * values[q * count + k] member k's q-th value, history[k * checks + c] its criterion at check
     * c (NaN once converged), diverged[k] 1 where member k's final iterate is not finite;
     * member_param (host, count values) each member's value of params[per_member_param], or NULL
     * (the stepper's) */
    int (*solve)(void *stepper, const double *member_param, int64_t count, double *fields,
                 double *values, double *history, unsigned char *diverged);
} cohort_model_steady;

/* The model's own per-member quantities at each record, and its exact solution (optional;
 * stage: run_records.c). */
typedef struct cohort_model_observing {
    const cohort_model_observable *observables;
    int n_observables;
    /* the initial kinds whose exact solution the model knows, "a|b" (NULL: none); runs from them
     * store the errors error_l1, error_l2, error_linf (member) (seed 000, eq. 31-33 over the
     * records) */
    const char *exact_kind;
    /* at a record at time t: host values[q * count + k], q < n_observables, then with the exact
     * solution sum |e| dA, sum e^2 dA and max |e| over the member's grid (q = n_observables + 0,
     * 1, 2) */
    int (*observe)(void *stepper, const double *u, double t, double *values, int64_t ld,
                   int64_t count);
} cohort_model_observing;

/* The coarsening statistics of a conserved field (optional; stages: run_records.c, finish.c,
 * clustering.c): the per-member length 1 / (1 - <C^2>) and its fit against t. */
typedef struct cohort_model_statistics {
    const char *length_name, *length_meaning; /* "ell", "s" */
    cohort_model_fit fit;
    /* k-means with three clusters names them by seed 003's flow-pattern regimes A0, A1, A2
     * (analysis/flow_pattern.h) rather than cluster_0 .. 2 */
    int flow_regimes;
} cohort_model_statistics;

/* The model's own defaults: config.c gives them to the keys a configuration leaves out,
 * `cohort init` writes them (required of a time-stepped model; stages: config.c, plan.c's
 * plan_time). */
typedef struct cohort_model_defaults {
    /* time.dt = auto (an adaptive model's first trial step) */
    double (*dt_auto)(const cohort_model_values *v);
    /* adaptive models: the records over [0, t_end] when time.output_every is not given (0: the
     * schema's output_every) */
    int default_records;
    /* `cohort init`'s starter: "section.key", "value" pairs ended by NULL that size the model's
     * configuration to run as written in a few seconds on a laptop's CPU (NULL: the defaults do) */
    const char *const *starter;
} cohort_model_defaults;

/* The descriptor: what the model is (its equation, grid, parameters and initial states), the
 * operations every model has (building a stepper, checking its keys), and its tables. */
struct cohort_model {
    const char *name, *summary, *equation, *scheme, *citation;
    int dimension;      /* 1: grid.n points; 2: grid.nx x grid.ny points, C(member, y, x) */
    int64_t min_points; /* along each direction */
    const char *min_points_reason; /* why min_points, for the message (NULL: none given) */
    /* "dirichlet|neumann": the model lives on the closed square [origin, origin + L]^2 of
     * (nx + 1)(ny + 1) nodes x_i = origin + i L / nx, model.boundary picks the condition; NULL:
     * the periodic grid of nx ny points x_i = i L / nx */
    const char *boundaries;
    const cohort_model_param *params;
    int n_params;
    int per_member_param;      /* the index of the parameter each member may hold itself (a sweep
                                * of it needs no new stepper), or -1 */
    const char *initial_kinds; /* the initial.kind values it starts from, "a|b"; the first is
                                * the model's default */
    /* the model's own initial kinds (a model with initial_fill fills every kind it lists):
     * writes members [0, count) of u from v's initial keys, with amplitude per member (backend
     * memory, count values) or NULL (v->amplitude), and each member's initial.mean (backend
     * memory, count values) where the kind has one (NULL: the driver's initial states) */
    int (*initial_fill)(void *stepper, double *u, const double *amplitude, const double *mean,
                        int64_t ld, int64_t count);
    const char *field_meaning; /* long_name of the archived field C */
    int conserves_mean;        /* <C> is constant in exact arithmetic */
    /* the backends' results agree within this difference (|a - b| <= rtol max(1, |a|, |b|)):
     * the largest that the cuda tests that check it measured (test_backend_tolerance.sh: the
     * model's example at t_end and 10 t_end; test_models.sh's small run; test_backends_adaptive.sh
     * on the adaptive flows' ensemble), rounded up to a power of ten; 0: bit for bit
     * (docs/performance.md) */
    double cpu_cuda_rtol;

    /* Builds what the steps or solves share (factors in the backend's memory); errors as
     * COHORT_ERR_*. A family's member names its kind here and delegates to the family's. */
    int (*stepper_alloc)(const cohort_model *m, const cohort_backend *be,
                         const cohort_model_values *v, void **stepper);
    void (*stepper_free)(void *stepper);
    /* relations between keys the schema cannot check (NULL: none): 0, or 2 with *key the
     * offending key ("grid.origin") and the reason in why */
    int (*check)(const cohort_model *m, const cohort_model_values *v, const char **key, char *why,
                 size_t len);
    /* The largest stable dt for a member of conserved mean `mean` where the model knows one
     * (NULL: none known; INFINITY: unconditionally stable there). A dt above it is a warning at
     * plan time, not an error: users explore unstable regimes on purpose. */
    double (*dt_limit)(const cohort_model *m, const cohort_model_values *v, double mean);

    const cohort_model_stepping *stepping;             /* NULL for a steady model */
    const cohort_model_on_chip *on_chip;               /* optional */
    const cohort_model_member_factors *member_factors; /* optional */
    const cohort_model_adaptive *adaptive;             /* optional */
    const cohort_model_steady *steady;                 /* instead of stepping */
    const cohort_model_observing *observing;           /* optional */
    const cohort_model_statistics *statistics;         /* optional */
    const cohort_model_defaults *defaults;             /* required where stepping is */
};

/* Every registered model, in the order `cohort models` lists them. */
const cohort_model *const *cohort_models(size_t *count);
/* The model a configuration without model.name runs. */
const char *cohort_model_default(void);
/* What a descriptor lacks of the fields and tables model.h requires of it (its identity and
 * stepper; stepping or steady, one of them; defaults with dt_auto where it steps; each table it
 * has, complete), as "table.field", or NULL where it lacks nothing. */
const char *cohort_model_missing(const cohort_model *m);
/* The model called `name`, or NULL. */
const cohort_model *cohort_model_find(const char *name);
/* The index of model.<key> in m's parameters, or -1. */
int cohort_model_param_index(const cohort_model *m, const char *key);
/* The explicit C^3 - C term's limit of the semi-implicit Cahn-Hilliard step, dt <= 8 gamma /
 * (3 C^2 - 1)^2 (derived in registry.c), gamma being m's parameter "gamma": a dt_limit. */
double cohort_model_dt_limit_cahn_hilliard(const cohort_model *m, const cohort_model_values *v,
                                           double mean);
/* 0.1 dx with dx = L / nx (seed 003, eq. 27): the time.dt = auto of the Cahn-Hilliard models. */
double cohort_model_dt_tenth_dx(const cohort_model_values *v);

#ifdef __cplusplus
}
#endif
#endif
