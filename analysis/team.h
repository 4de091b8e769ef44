/* A team: the processes that share one analysis (the ranks of an MPI run, or this process alone),
 * seen through two collective operations, so that analysis/ needs no MPI (ensemble/parts/comm.c
 * implements them over MPI). Every rank of a team calls the same collectives in the same order.
 * A team's members are shared out in whole ORDERED_SUM_BLOCK blocks (team_share), so that each
 * block's ordered sum is one rank's and the blocks meet only in the fixed tree on rank 0. */
#ifndef COHORT_TEAM_H
#define COHORT_TEAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct cohort_team {
    int rank, size;
    void *ctx;
    /* bytes of buf from rank `root` to every rank; returns a cohort status */
    int (*broadcast)(void *ctx, void *buf, size_t bytes, int root);
    /* rank r's bytes[r] bytes (mine) concatenated in rank order into all, at rank 0 (all is
     * unused elsewhere; rank 0's mine may be all itself); returns a cohort status */
    int (*gather)(void *ctx, const void *mine, void *all, const size_t *bytes);
    /* ends every rank with status: a rank that fails inside a collective would leave the others
     * waiting */
    void (*abort)(void *ctx, int status);
} cohort_team;

/* This process alone: size 1, the collectives copies. */
extern const cohort_team team_alone;

/* Rank `rank`'s share of `blocks` blocks among `size` ranks: blocks [*first, *end), consecutive
 * in rank order, as even as whole blocks allow (a rank may have none). */
void team_share(int64_t blocks, int size, int rank, int64_t *first, int64_t *end);
/* The rank whose share holds block b. */
int team_owner(int64_t blocks, int size, int64_t b);
/* The largest of the ranks' values, on every rank. */
int team_max_int(const cohort_team *t, int *value);
/* values[0 .. count): the sums over the ranks, on every rank, added in rank order (exact for
 * the counts it serves). */
int team_sum(const cohort_team *t, double *values, int count);

#endif
