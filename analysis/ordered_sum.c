#include "ordered_sum.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/reduction_kernels.h"
#include "backend/cohort_error.h"
#include "analysis/reduction_numerics.h"

/* A call of max_count members starting anywhere spans at most this many blocks. */
static int64_t blocks_per_call(int64_t members, int64_t block, int64_t max_count)
{
    const int64_t n_blocks = (members + block - 1) / block,
                  spanned = (max_count + block - 1) / block + 1;
    return spanned < n_blocks ? spanned : n_blocks;
}

int ordered_sum_alloc(ordered_sum *s, const cohort_backend *be, int64_t members, int64_t rows,
                      int classes, int64_t block, int64_t max_count)
{
    memset(s, 0, sizeof *s);
    if (members < 1 || rows < 1 || classes < 1 || classes > REDUCTION_MAX_CLASSES ||
        max_count < 1 || block < 1 || ORDERED_SUM_BLOCK % block)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "members = %lld, rows = %lld, classes = %d, block = %lld, max_count = "
                           "%lld",
                           (long long)members, (long long)rows, classes, (long long)block,
                           (long long)max_count);
    s->be = be, s->members = members, s->rows = rows, s->classes = classes, s->block = block;
    s->n_blocks = (members + block - 1) / block;
    s->max_blocks = blocks_per_call(members, block, max_count);
    const size_t per_block = (size_t)classes * (size_t)rows;
    s->host = calloc((size_t)s->n_blocks * per_block, sizeof(double));
    if (!s->host)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld blocks of %zu sums", (long long)s->n_blocks,
                           per_block);
    return COHORT_OK;
}

size_t ordered_sum_scratch_bytes(int64_t members, int64_t rows, int classes, int64_t block,
                                 int64_t max_count)
{
    return (size_t)blocks_per_call(members, block, max_count) * (size_t)classes * (size_t)rows *
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
    const int64_t b0 = first / s->block, b1 = (first + count - 1) / s->block;
    if (b1 - b0 + 1 > s->max_blocks)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "%lld members exceed the allocated calls",
                           (long long)count);
    const size_t per_block = (size_t)s->classes * (size_t)s->rows, blocks = (size_t)(b1 - b0 + 1),
                 bytes = blocks * per_block * sizeof(double);
    double *host = s->host + (size_t)b0 * per_block;
    /* the carried block sums: only block b0 can hold members already (those before `first`);
     * the later blocks start from zero */
    const size_t carried = s->next > b0 * s->block;
    if (carried) COHORT_CALL(s->be->copy_to_device(scratch, host, per_block * sizeof(double)));
    if (blocks > carried)
        COHORT_CALL(
            s->be->fill(scratch + carried * per_block, 0.0, (blocks - carried) * per_block));
    COHORT_CALL(
        COHORT_KERNELS(s->be, reduction_kernels)
            ->block_fold(x, s->rows, ld, m0, count, first, s->block, s->classes, cls, scratch));
    COHORT_CALL(s->be->copy_to_host(host, scratch, bytes));
    s->next = first + count;
    return COHORT_OK;
}

void ordered_sum_tree(double *blocks, size_t width, int64_t n)
{
    reduction_kernels_cpu.block_tree(blocks, (int64_t)width, n);
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
    ordered_sum_tree(work, width, s->n_blocks);
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
    ordered_sum_tree(blocks, 1, n_blocks);
    *total = blocks[0];
    free(blocks);
    return COHORT_OK;
}

/* A rank's part of the fixed tree: the largest nodes inside its blocks [first, end), each node
 * (b, level) the tree over blocks [b, min(b + 2^level, n)), b a multiple of 2^level: the value
 * the in-place tree holds at b once its strides below 2^level are done. Calls node(b, level) for
 * each, in order; returns their number. */
static int64_t tree_nodes(int64_t first, int64_t end, int64_t n, void (*node)(void *, int64_t, int),
                          void *ctx)
{
    int64_t count = 0;
    for (int64_t b = first; b < end; ++count) {
        int level = 0;
        for (;;) {
            const int64_t size = (int64_t)1 << (level + 1), stop = b + size < n ? b + size : n;
            if ((int64_t)1 << level >= n || b % size != 0 || stop > end) break;
            ++level;
        }
        if (node) node(ctx, b, level);
        const int64_t stop = b + ((int64_t)1 << level);
        b = stop < n ? stop : n;
    }
    return count;
}

/* This rank's nodes, each [b, level, width values] as doubles, into out. Block b at
 * blocks + (b - base) width in be's memory: each node's tree formed in place by the backend
 * (overwriting the blocks), only its root brought back. */
typedef struct tree_part {
    const cohort_backend *be;
    double *blocks;
    int64_t base;
    size_t width;
    int64_t n;
    double *out;
    int rc;
} tree_part;

static void tree_part_node(void *ctx, int64_t b, int level)
{
    tree_part *t = ctx;
    const int64_t span = (int64_t)1 << level, count = b + span < t->n ? span : t->n - b;
    double *node = t->blocks + (size_t)(b - t->base) * t->width;
    t->out[0] = (double)b, t->out[1] = (double)level;
    if (t->rc != COHORT_OK) return;
    /* b is aligned: the global tree's pairs */
    t->rc = COHORT_KERNELS(t->be, reduction_kernels)->block_tree(node, (int64_t)t->width, count);
    if (t->rc == COHORT_OK)
        t->rc = t->be->copy_to_host(t->out + 2, node, t->width * sizeof(double));
    t->out += 2 + t->width;
}

/* Rank 0: the ranks' nodes (ascending b, covering every block) joined in the fixed tree, as the
 * in-place tree joins them: siblings (b, l) and (b + 2^l, l), b a multiple of 2^(l+1), add into
 * (b, l + 1); a node without a right sibling (b + 2^l >= n) is its parent. */
static void tree_join(double *nodes, int64_t count, size_t width, int64_t n, double *total)
{
    const size_t stride = 2 + width;
    int64_t top = -1; /* the stack of unfinished nodes, in place */
    for (int64_t i = 0; i < count; ++i) {
        double *slot = nodes + (size_t)(++top) * stride;
        if (slot != nodes + (size_t)i * stride)
            memmove(slot, nodes + (size_t)i * stride, stride * sizeof(double));
        for (;;) {
            double *t = nodes + (size_t)top * stride, *s = t - stride;
            const int64_t b = (int64_t)t[0], level = (int64_t)t[1], span = (int64_t)1 << level;
            if (b != 0 && b % (2 * span) == 0 && b + span >= n) {
                t[1] += 1.0; /* no right sibling */
            } else if (top > 0 && (int64_t)s[1] == level && (int64_t)s[0] + span == b &&
                       (int64_t)s[0] % (2 * span) == 0) {
                for (size_t j = 0; j < width; ++j) s[2 + j] += t[2 + j];
                s[1] += 1.0, --top;
            } else {
                break;
            }
        }
    }
    memcpy(total, nodes + 2, width * sizeof(double));
}

/* The team's total of tree_part p's blocks: each rank's nodes, gathered and joined by rank 0,
 * broadcast. */
static int team_total(const cohort_team *t, tree_part *p, double *total)
{
    const size_t width = p->width;
    const int64_t n_blocks = p->n;
    size_t *bytes = malloc((size_t)t->size * sizeof *bytes), all_bytes = 0;
    int64_t first = 0, end = 0;
    for (int r = 0; bytes && r < t->size; ++r) {
        team_share(n_blocks, t->size, r, &first, &end);
        bytes[r] =
            (size_t)tree_nodes(first, end, n_blocks, NULL, NULL) * (2 + width) * sizeof(double);
        all_bytes += bytes[r];
    }
    team_share(n_blocks, t->size, t->rank, &first, &end);
    double *mine = bytes ? malloc(bytes[t->rank] + sizeof(double)) : NULL;
    double *all = t->rank == 0 && bytes ? malloc(all_bytes) : NULL;
    p->out = mine;
    int rc =
        bytes && mine && (t->rank != 0 || all)
            ? COHORT_OK
            : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "a team's sum of %lld blocks", (long long)n_blocks);
    if (rc == COHORT_OK) tree_nodes(first, end, n_blocks, tree_part_node, p);
    if (rc == COHORT_OK) rc = p->rc;
    if (rc == COHORT_OK) rc = t->gather(t->ctx, mine, all, bytes);
    if (rc == COHORT_OK && all)
        tree_join(all, (int64_t)(all_bytes / ((2 + width) * sizeof(double))), width, n_blocks,
                  total);
    if (rc == COHORT_OK) rc = t->broadcast(t->ctx, total, width * sizeof(double), 0);
    free(bytes), free(mine), free(all);
    return rc;
}

int ordered_sum_team_total_backend(const cohort_team *t, const cohort_backend *be, double *blocks,
                                   size_t width, int64_t n_blocks, double *total)
{
    int64_t first = 0, end = 0;
    team_share(n_blocks, t->size, t->rank, &first, &end);
    tree_part p = {.be = be, .blocks = blocks, .base = first, .width = width, .n = n_blocks};
    return team_total(t, &p, total);
}

/* The host's blocks: this rank's share copied (the tree overwrites what it adds) and summed as
 * the cpu backend would in its memory. */
int ordered_sum_team_total(const cohort_team *t, double *blocks, size_t width, int64_t n_blocks,
                           double *total)
{
    int64_t first = 0, end = 0;
    team_share(n_blocks, t->size, t->rank, &first, &end);
    const size_t values = (size_t)(end - first) * width;
    double *share = malloc((values > 0 ? values : 1) * sizeof(double));
    if (!share)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "a team's sum of %lld blocks",
                           (long long)n_blocks);
    memcpy(share, blocks + (size_t)first * width, values * sizeof(double));
    const int rc =
        ordered_sum_team_total_backend(t, &cohort_backend_cpu, share, width, n_blocks, total);
    free(share);
    return rc;
}
