/* The end of an ensemble run, shared by `cohort run` and `cohort merge`: what has been
 * accumulated over the members (the statistics' units in their fixed merge order, the
 * structure factor's block sums, the divergence flags, the k-means features), and what is written
 * from it once every member is done: the records, the fits, the swept parameters, k-means, and a
 * part's merge data. A run of a member subset (`cohort run --members A:B`) accumulates only its
 * members, which start at a block boundary; `cohort merge` rebuilds the whole run's accumulators
 * from its parts' blocks, so the merged file's statistics are the whole run's, bit for bit. */
#ifndef COHORT_FINISH_H
#define COHORT_FINISH_H

#include <stdint.h>

#include "analysis/moments.h"
#include "analysis/sobol_stream.h"
#include "analysis/structure_factor.h"
#include "backend/backend.h"
#include "config/config.h"
#include "config/plan.h"
#include "io/output.h"
#include "results/clustering.h"
#include "results/file_spec.h"

typedef struct run_accumulators {
    int64_t members, n, n_records; /* members: the whole run's */
    int n_obs;
    moments_units *ell, *mass, *obs; /* obs[q * n_records + r] */
    unsigned char *diverged;         /* global members */
    structure_factor *sf;
    sobol_stream *sobol; /* analysis.sensitivity: the Sobol sums, streamed (else NULL) */
    int64_t first;       /* the first member run (a part's first; else 0) */
    double *features;    /* members [first, ...) x n, filled below the run's position */
} run_accumulators;

/* The statistics' accumulators of a run of plan p (the units of members [first, end), at every
 * record, of the length, the mass and the n_obs observables; with analysis.sensitivity, the
 * Sobol sums of results/analyze_sensitivity.h's statistics) and the divergence flags; the
 * structure factor and the features are the caller's. Freed by run_accumulators_free (the
 * structure factor and features too), also after a failure. */
int run_accumulators_alloc(run_accumulators *a, const run_plan *p, int n_obs, int64_t first,
                           int64_t end);
void run_accumulators_free(run_accumulators *a);

/* Record r's statistics over the members accumulated: t, the length and mass, the model's series
 * and the structure factor (spectrum: scratch for structure_factor_k_count values). */
int run_write_record(cohort_output *out, const run_plan *p, const run_accumulators *a,
                     double *spectrum, int64_t r);

typedef struct run_finish_options {
    const cohort_backend *be; /* for k-means */
    int64_t first, end;       /* the file's members [first, end) */
    int part;                 /* a member subset: its merge data, no k-means */
    int write_records;        /* merge: the records too (a run wrote each as it completed) */
    int quiet;
    /* k-means's features where they are not the accumulators' (a->features): a merge's parts,
     * read by the ranks of team (NULL: this process alone) */
    member_fields_fn fields;
    void *fields_ctx;
    const cohort_team *team;
} run_finish_options;

/* Writes everything that needs all members: the records (write_records), the divergence flags and
 * swept parameters of [first, end), dt (record_interval for an adaptive model), a part's merge data
 * or else k-means over the features (a->features, or o->fields where given; the structure factor
 * is released first, a->sf = NULL, to make room), and the fits of the model's length and of 1/k1
 * against t. *n_diverged: the members of [first, end) that diverged. */
int run_finish(cohort_output *out, const run_plan *p, run_accumulators *a,
               const run_finish_options *o, int64_t *n_diverged);

#endif
