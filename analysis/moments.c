#include "moments.h"

#include <math.h>
#include <stdlib.h>

#include "backend/cohort_error.h"

void moments_add(moments *a, double x)
{
    a->count += 1.0;
    const double delta = x - a->mean;
    a->mean += delta / a->count;
    a->m2 += delta * (x - a->mean);
}

void moments_merge(moments *a, const moments *b)
{
    if (b->count == 0.0) return;
    if (a->count == 0.0) {
        *a = *b;
        return;
    }
    const double n = a->count + b->count, delta = b->mean - a->mean;
    a->mean += delta * (b->count / n);
    a->m2 += b->m2 + delta * delta * (a->count * b->count / n);
    a->count = n;
}

double moments_variance(const moments *a)
{
    return a->count >= 2.0 ? a->m2 / (a->count - 1.0) : NAN;
}

double moments_sem(const moments *a)
{
    return a->count >= 2.0 ? sqrt(moments_variance(a) / a->count) : NAN;
}

int moments_blocks_alloc(moments_blocks *b, int64_t members)
{
    b->blocks = NULL;
    if (members < 1)
        return COHORT_FAIL(COHORT_ERR_EMPTY_BATCH, "members = %lld", (long long)members);
    b->members = members;
    b->next = 0;
    b->n_blocks = (members + MOMENTS_BLOCK - 1) / MOMENTS_BLOCK;
    b->blocks = calloc((size_t)b->n_blocks, sizeof *b->blocks);
    if (!b->blocks)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld moment blocks", (long long)b->n_blocks);
    return COHORT_OK;
}

void moments_blocks_free(moments_blocks *b)
{
    free(b->blocks);
    b->blocks = NULL;
}

int moments_blocks_add(moments_blocks *b, int64_t first, int64_t count, const double *values,
                       const unsigned char *include)
{
    if (first < b->next || count < 0 || first + count > b->members)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "members [%lld, +%lld) out of order: member %lld of %lld or a later "
                           "one comes next",
                           (long long)first, (long long)count, (long long)b->next,
                           (long long)b->members);
    for (int64_t k = 0; k < count; ++k)
        if (!include || include[k]) moments_add(&b->blocks[(first + k) / MOMENTS_BLOCK], values[k]);
    b->next = first + count;
    return COHORT_OK;
}

/* Blocks [lo, hi) merged by halves: the tree depends only on the number of blocks. */
static moments merge_range(const moments *blocks, int64_t lo, int64_t hi)
{
    if (hi - lo == 1) return blocks[lo];
    const int64_t mid = lo + (hi - lo) / 2;
    moments left = merge_range(blocks, lo, mid);
    const moments right = merge_range(blocks, mid, hi);
    moments_merge(&left, &right);
    return left;
}

moments moments_blocks_total(const moments_blocks *b)
{
    return merge_range(b->blocks, 0, b->n_blocks);
}
