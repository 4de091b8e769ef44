/* Sobol indices accumulated as a run's records arrive (issue 54): each base point's estimator
 * terms (sobol.h) folded into units as soon as its arms' values of a record are in, so that no
 * member's history is kept.
 *
 * A base point's arms and replicates are a group of (d + 2) x replicates consecutive members
 * (config/design.h). Units are units of members: `unit` members, a power of two that divides
 * MOMENTS_BLOCK; a group belongs to the unit of its first member, and its terms are added to it
 * in group order. Chunks of a run arrive in member order, so a group cut by a chunk waits in the
 * pending values until its last member arrives: the same additions in the same order, whatever
 * the chunking or a resume. Parts of a run (`--members`, ranks) start at multiples of
 * MOMENTS_BLOCK, so a part boundary is a unit boundary, and a group cut by one is the last group
 * of its unit: a part keeps the values of its first, unfinished group (head) and of its last
 * (pending), and sobol_stream_join completes the cut group where the parts meet, adding it after
 * its unit's other groups, as the whole run does. */
#ifndef COHORT_SOBOL_STREAM_H
#define COHORT_SOBOL_STREAM_H

#include <stdint.h>

#include "analysis/sobol.h"

typedef struct sobol_stream {
    int d, n_stats;                /* parameters; statistics a record */
    int64_t n_records, replicates; /* records; replicates of a base point */
    int64_t group, unit;           /* members a base point's group; members a unit */
    int64_t members, first, end;   /* the run's members; those held, [first, end) */
    int64_t first_unit, n_units;   /* the units of [first, end) */
    sobol_units *units;            /* [r * n_stats + q] */
    double *pending, *head;        /* [(r * n_stats + q) * group + i]: member start + i */
    int64_t *next;                 /* [r * n_stats + q]: the next member expected */
} sobol_stream;

/* The unit of members for groups of `group` members: bootstrap_unit (a power of two dividing
 * MOMENTS_BLOCK), doubled while it is smaller than a group, MOMENTS_BLOCK at most. */
int64_t sobol_stream_unit(int64_t group, int64_t bootstrap_unit);

/* A stream of d parameters, `replicates` a base point, n_stats statistics at each of n_records
 * records, over members [first, end) of `members` (first a multiple of MOMENTS_BLOCK). Errors:
 * COHORT_ERR_INVALID_ARGUMENT, COHORT_ERR_NO_MEMORY. */
int sobol_stream_alloc(sobol_stream *s, int d, int64_t replicates, int64_t unit, int n_stats,
                       int64_t n_records, int64_t members, int64_t first, int64_t end);
void sobol_stream_free(sobol_stream *s);

/* Statistic q's values at record r of members [m0, m0 + count), the next members of that
 * statistic and record (COHORT_ERR_INVALID_ARGUMENT otherwise). */
int sobol_stream_add(sobol_stream *s, int64_t r, int q, int64_t m0, int64_t count,
                     const double *values);

/* The units of statistic q at record r where every member of the run has been added (a whole
 * run's or a merge's stream), else NULL. */
const sobol_units *sobol_stream_units(const sobol_stream *s, int64_t r, int q);

/* A record's state as doubles (a checkpoint's or a part's merge data): sobol_stream_values of
 * them, units then pending and head values then the next member, statistic after statistic. */
int64_t sobol_stream_values(const sobol_stream *s);
/* The same for a stream of these sizes (sobol_stream_alloc's arguments), before it exists. */
int64_t sobol_stream_values_of(int d, int64_t replicates, int64_t unit, int n_stats, int64_t first,
                               int64_t end);
void sobol_stream_save(const sobol_stream *s, int64_t r, double *out);
/* A record's state back from sobol_stream_save's of the same stream (COHORT_ERR_INVALID_ARGUMENT
 * where it is not one). */
int sobol_stream_load(sobol_stream *s, int64_t r, const double *in);
/* Record r of the part of members [first, end) whose state `in` was saved, into the whole run's
 * stream, parts in member order: its cut first group completed with the values before it, its
 * units, and its unfinished last group. COHORT_ERR_INVALID_ARGUMENT where the part does not
 * follow the members joined so far, or is unfinished. */
int sobol_stream_join(sobol_stream *whole, int64_t r, int64_t first, int64_t end, const double *in);

#endif
