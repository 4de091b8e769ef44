/* Streaming ensemble moments that do not depend on how the ensemble was cut into chunks.
 *
 * Welford's update adds one value at a time; Chan, Golub and LeVeque's pairwise formula merges two
 * partial results. Floating-point merges depend on where the parts were cut, so members are
 * folded into fixed blocks of MOMENTS_BLOCK consecutive global member indices (Welford, in member
 * order) and the blocks are merged in a fixed pairwise tree: the same members in the same order
 * give bitwise the same moments whatever the chunk size, the number of devices, or a resume. */
#ifndef COHORT_MOMENTS_H
#define COHORT_MOMENTS_H

#include <stddef.h>
#include <stdint.h>

enum { MOMENTS_BLOCK = 1024 };

typedef struct moments {
    double count; /* values included */
    double mean;
    double m2; /* sum of squared deviations from the mean */
} moments;

void moments_add(moments *a, double x);
/* a <- a merged with b (Chan et al.). */
void moments_merge(moments *a, const moments *b);
/* Sample variance (count - 1 in the denominator; NaN below two values). */
double moments_variance(const moments *a);
/* Standard error of the mean, sqrt(variance / count). */
double moments_sem(const moments *a);

/* The block-ordered accumulator of one statistic over `members` members. */
typedef struct moments_blocks {
    int64_t members, next; /* the next global member index expected */
    int64_t n_blocks;
    moments *blocks;
} moments_blocks;

/* Errors: COHORT_ERR_EMPTY_BATCH (members < 1), COHORT_ERR_NO_MEMORY. */
int moments_blocks_alloc(moments_blocks *b, int64_t members);
void moments_blocks_free(moments_blocks *b);
/* Adds the values of members [first, first + count) in order; values whose include flag is 0
 * (diverged members; include = NULL: all) are skipped. Members must arrive in increasing order,
 * each at most once (COHORT_ERR_INVALID_ARGUMENT otherwise); members passed over (those of other
 * parts of a run split by `--members`, which start at block boundaries) are simply absent. */
int moments_blocks_add(moments_blocks *b, int64_t first, int64_t count, const double *values,
                       const unsigned char *include);
/* The merged moments over all blocks (fixed pairwise tree). */
moments moments_blocks_total(const moments_blocks *b);

#endif
