/* The k-means features that the parts of a run keep (group merge, variable features: each
 * member's final field, written by run_finish for a part), read by global member from whichever
 * part holds it: what the joining of parts (cohort merge, an MPI run's join) clusters, each rank
 * reading only the members it clusters, so that no process holds every member's field. One part
 * is open at a time: a rank's members lie in few parts, and rank 0's silhouette subsample may
 * touch every part of a run of thousands of ranks. */
#ifndef COHORT_PART_FEATURES_H
#define COHORT_PART_FEATURES_H

#include <stdint.h>

typedef struct part_features {
    int count;
    const char *const *paths; /* by first member */
    const int64_t *first;     /* count + 1: part i holds members [first[i], first[i + 1]) */
    int64_t n;                /* values a member */
    int open, nc, grp, var;   /* the open part (-1: none), its file, group and features */
} part_features;

/* Parts paths[0 .. count), part i holding global members [first[i], first[i + 1]), of n values a
 * member. Opens nothing yet. */
void part_features_init(part_features *f, const char *const *paths, const int64_t *first, int count,
                        int64_t n);
/* member_fields_fn (clustering.h): the features of global members [g0, g0 + count), member-major.
 * COHORT_ERR_IO where a part lacks them. */
int part_features_load(void *ctx, int64_t g0, int64_t count, double *dst);
void part_features_close(part_features *f);

#endif
