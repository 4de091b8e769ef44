/* Sums over an ensemble's members that do not depend on how the members were cut into calls
 * (chunks): the backend's block_fold adds members one at a time, in member order, into fixed
 * blocks of ORDERED_SUM_BLOCK global member indices, each block's sum carried from one call to
 * the next on the host; the blocks are then added in a fixed pairwise tree. The same members give
 * bitwise the same sums on any chunking, and on either backend given the same values. */
#ifndef COHORT_ORDERED_SUM_H
#define COHORT_ORDERED_SUM_H

#include <stdint.h>

#include "analysis/team.h"
#include "backend/backend.h"

enum { ORDERED_SUM_BLOCK = 1024 };

typedef struct ordered_sum {
    const cohort_backend *be;
    int64_t members, rows, block, n_blocks, next; /* next: the next global member expected */
    int classes;
    double *host;       /* n_blocks x classes x rows */
    int64_t max_blocks; /* the blocks one call touches, at most */
} ordered_sum;

/* rows values per member, `classes` classes, blocks of `block` members (ORDERED_SUM_BLOCK, or
 * the bootstrap's units, which divide it), calls of at most max_count members. The sums live
 * on the host; the blocks a call touches pass through a backend scratch the caller owns
 * (ordered_sum_scratch_bytes), so that one scratch serves many sums (a structure factor keeps a
 * sum per output time). Errors: COHORT_ERR_INVALID_ARGUMENT, COHORT_ERR_NO_MEMORY. */
int ordered_sum_alloc(ordered_sum *s, const cohort_backend *be, int64_t members, int64_t rows,
                      int classes, int64_t block, int64_t max_count);
/* The backend bytes ordered_sum_add needs as scratch for sums of these sizes. */
size_t ordered_sum_scratch_bytes(int64_t members, int64_t rows, int classes, int64_t block,
                                 int64_t max_count);
void ordered_sum_free(ordered_sum *s);
/* Starts again from zero (members from 0 again). */
void ordered_sum_reset(ordered_sum *s);
/* Adds global members [first, first + count): row r of member first + j at x[r * ld + m0 + j],
 * class cls[j] (backend memory; NULL: class 0; REDUCTION_SKIP: left out). Members must come in
 * increasing order, each at most once (COHORT_ERR_INVALID_ARGUMENT otherwise); members passed
 * over are absent (another part's, in a run split by `--members`). */
int ordered_sum_add(ordered_sum *s, double *scratch, const double *x, int64_t ld, int64_t m0,
                    int64_t count, int64_t first, const unsigned char *cls);
/* total[c * rows + r]: the sum over all blocks (a fixed pairwise tree). COHORT_ERR_NO_MEMORY. */
int ordered_sum_total(const ordered_sum *s, double *total);

/* blocks[0 .. width) <- the sum of blocks[0 .. n), each `width` values, by the fixed pairwise
 * tree (adjacent pairs, level by level: the tree depends only on n). */
void ordered_sum_tree(double *blocks, size_t width, int64_t n);
/* The total of n_blocks blocks of width values (blocks: n_blocks x width) over a team, each rank
 * holding its team_share's blocks: every rank adds the largest subtrees of the fixed tree that lie
 * in its share, rank 0 gathers them (O(log n_blocks) a rank) and finishes the tree; every rank
 * gets total, the bits ordered_sum_total's tree gives. COHORT_ERR_NO_MEMORY, the team's. */
int ordered_sum_team_total(const cohort_team *t, double *blocks, size_t width, int64_t n_blocks,
                           double *total);
/* As ordered_sum_team_total, the blocks in backend memory: blocks holds only this rank's
 * team_share of them (its first share block at blocks[0]), and is overwritten. Each node of the
 * rank's part of the tree is formed there (the backend's block_tree), and only the nodes' roots
 * come to the host, so that a pass's block sums never leave the device. */
int ordered_sum_team_total_backend(const cohort_team *t, const cohort_backend *be, double *blocks,
                                   size_t width, int64_t n_blocks, double *total);

/* The same order for values already on the host: sum of v[j], j < count, skipping j where
 * include[j] == 0 (include = NULL: all), sequential within ORDERED_SUM_BLOCK blocks of j, blocks
 * in the same pairwise tree. COHORT_ERR_NO_MEMORY. */
int ordered_sum_host(const double *v, int64_t count, const unsigned char *include, double *total);

#endif
