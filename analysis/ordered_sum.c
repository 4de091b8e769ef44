#include "ordered_sum.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/reduction_kernels.h"
#include "backend/cohort_error.h"
#include "analysis/reduction_numerics.h"

/* A call of max_count members starting anywhere spans at most this many blocks. */
static int64_t blocks_per_call(int64_t members, int64_t max_count)
{
    const int64_t n_blocks = (members + ORDERED_SUM_BLOCK - 1) / ORDERED_SUM_BLOCK,
                  spanned = (max_count + ORDERED_SUM_BLOCK - 1) / ORDERED_SUM_BLOCK + 1;
    return spanned < n_blocks ? spanned : n_blocks;
}

int ordered_sum_alloc(ordered_sum *s, const cohort_backend *be, int64_t members, int64_t rows,
                      int classes, int64_t max_count)
{
    memset(s, 0, sizeof *s);
    if (members < 1 || rows < 1 || classes < 1 || classes > REDUCTION_MAX_CLASSES || max_count < 1)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "members = %lld, rows = %lld, classes = %d, max_count = %lld",
                           (long long)members, (long long)rows, classes, (long long)max_count);
    s->be = be, s->members = members, s->rows = rows, s->classes = classes;
    s->n_blocks = (members + ORDERED_SUM_BLOCK - 1) / ORDERED_SUM_BLOCK;
    s->max_blocks = blocks_per_call(members, max_count);
    const size_t per_block = (size_t)classes * (size_t)rows;
    s->host = calloc((size_t)s->n_blocks * per_block, sizeof(double));
    if (!s->host)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld blocks of %zu sums", (long long)s->n_blocks,
                           per_block);
    return COHORT_OK;
}

size_t ordered_sum_scratch_bytes(int64_t members, int64_t rows, int classes, int64_t max_count)
{
    return (size_t)blocks_per_call(members, max_count) * (size_t)classes * (size_t)rows *
           sizeof(double);
}

void ordered_sum_free(ordered_sum *s)
{
    free(s->host);
    s->host = NULL;
}

void ordered_sum_reset(ordered_sum *s)
{
    memset(s->host, 0, (size_t)s->n_blocks * (size_t)s->classes * (size_t)s->rows * sizeof(double));
    s->next = 0;
}

int ordered_sum_add(ordered_sum *s, double *scratch, const double *x, int64_t ld, int64_t m0,
                    int64_t count, int64_t first, const unsigned char *cls)
{
    if (first < s->next || count < 1 || first + count > s->members)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "members [%lld, +%lld) out of order: member %lld of %lld or a later "
                           "one comes next",
                           (long long)first, (long long)count, (long long)s->next,
                           (long long)s->members);
    const int64_t b0 = first / ORDERED_SUM_BLOCK, b1 = (first + count - 1) / ORDERED_SUM_BLOCK;
    if (b1 - b0 + 1 > s->max_blocks)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "%lld members exceed the allocated calls",
                           (long long)count);
    const size_t per_block = (size_t)s->classes * (size_t)s->rows, blocks = (size_t)(b1 - b0 + 1),
                 bytes = blocks * per_block * sizeof(double);
    double *host = s->host + (size_t)b0 * per_block;
    /* the carried block sums: only block b0 can hold members already (those before `first`);
     * the later blocks start from zero */
    const size_t carried = s->next > b0 * ORDERED_SUM_BLOCK;
    if (carried) COHORT_CALL(s->be->copy_to_device(scratch, host, per_block * sizeof(double)));
    if (blocks > carried)
        COHORT_CALL(
            s->be->fill(scratch + carried * per_block, 0.0, (blocks - carried) * per_block));
    COHORT_CALL(COHORT_KERNELS(s->be, reduction_kernels)
                    ->block_fold(x, s->rows, ld, m0, count, first, ORDERED_SUM_BLOCK, s->classes,
                                 cls, scratch));
    COHORT_CALL(s->be->copy_to_host(host, scratch, bytes));
    s->next = first + count;
    return COHORT_OK;
}

/* blocks[0] <- the sum of blocks[0 .. n) (each `width` values) by adjacent pairs, level by level:
 * the tree depends only on n. */
static void pairwise_sum(double *blocks, size_t width, int64_t n)
{
    for (int64_t stride = 1; stride < n; stride *= 2)
        for (int64_t b = 0; b + stride < n; b += 2 * stride)
            for (size_t i = 0; i < width; ++i)
                blocks[(size_t)b * width + i] += blocks[(size_t)(b + stride) * width + i];
}

int ordered_sum_total(const ordered_sum *s, double *total)
{
    const size_t width = (size_t)s->classes * (size_t)s->rows;
    if (s->n_blocks == 1) { /* the tree of one block is the block */
        memcpy(total, s->host, width * sizeof(double));
        return COHORT_OK;
    }
    double *work = malloc((size_t)s->n_blocks * width * sizeof(double));
    if (!work)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "ordered sum of %lld blocks",
                           (long long)s->n_blocks);
    memcpy(work, s->host, (size_t)s->n_blocks * width * sizeof(double));
    pairwise_sum(work, width, s->n_blocks);
    memcpy(total, work, width * sizeof(double));
    free(work);
    return COHORT_OK;
}

int ordered_sum_host(const double *v, int64_t count, const unsigned char *include, double *total)
{
    const int64_t n_blocks = (count + ORDERED_SUM_BLOCK - 1) / ORDERED_SUM_BLOCK;
    *total = 0.0;
    if (n_blocks == 0) return COHORT_OK;
    double *blocks = calloc((size_t)n_blocks, sizeof(double));
    if (!blocks)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "ordered sum of %lld values", (long long)count);
    for (int64_t j = 0; j < count; ++j)
        if (!include || include[j]) blocks[j / ORDERED_SUM_BLOCK] += v[j];
    pairwise_sum(blocks, 1, n_blocks);
    *total = blocks[0];
    free(blocks);
    return COHORT_OK;
}
