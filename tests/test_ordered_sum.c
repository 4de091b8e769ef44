/* The fixed tree shared by a team (ordered_sum_team_total): rank 0's total equals the tree of
 * every block (ordered_sum_tree) bit for bit, for every number of blocks up to 70 and of ranks up
 * to 9 (ranks without a block included), with the blocks on the host and with each rank's share
 * in the backend's memory (ordered_sum_team_total_backend: the backend's block_tree). The ranks
 * are simulated in one process: the others' gathers are recorded first, then rank 0 runs with
 * them, which is all this collective needs (only rank 0's result depends on the others). The
 * values mix magnitudes so that another order of the additions gives other bits (checked).
 * The backend's block_fold, in calls cut anywhere, equals a plain loop over the members in
 * order, bit for bit, for one value a member and for many, one class and several, members left
 * out (REDUCTION_SKIP) or not.
 * Usage: test_ordered_sum --backend cpu|cuda (77: no device). */
#include <math.h>
#include <stdint.h>

#include "analysis/ordered_sum.h"
#include "analysis/reduction_kernels.h"
#include "analysis/reduction_numerics.h"
#include "backend/philox.h"
#include "test_common.h"

enum { MAX_RANKS = 9, WIDTH = 3, MAX_BLOCKS = 70 };

typedef struct recorded {
    int rank;
    unsigned char *sent[MAX_RANKS];
    size_t bytes[MAX_RANKS];
} recorded;

static int record_broadcast(void *ctx, void *buf, size_t bytes, int root)
{
    (void)ctx, (void)buf, (void)bytes, (void)root;
    return COHORT_OK;
}

static int record_gather(void *ctx, const void *mine, void *all, const size_t *bytes)
{
    recorded *r = ctx;
    if (r->rank != 0) { /* kept for rank 0's turn */
        r->sent[r->rank] = malloc(bytes[r->rank] + 1);
        memcpy(r->sent[r->rank], mine, bytes[r->rank]);
        r->bytes[r->rank] = bytes[r->rank];
        return COHORT_OK;
    }
    memmove(all, mine, bytes[0]);
    size_t at = bytes[0];
    for (int q = 1; q < MAX_RANKS && r->sent[q]; ++q) {
        memcpy((unsigned char *)all + at, r->sent[q], r->bytes[q]);
        at += r->bytes[q];
    }
    return COHORT_OK;
}

static void record_abort(void *ctx, int status)
{
    (void)ctx;
    exit(status);
}

/* Rank 0's total of blocks over `size` simulated ranks; be given: each rank's share in its
 * memory. */
static void team_total(const cohort_backend *be, const double *blocks, int64_t n, int size,
                       double *total)
{
    recorded r = {0};
    double *copy = malloc((size_t)n * WIDTH * sizeof *copy), *share = NULL;
    if (be)
        EXPECT(be->alloc((void **)&share, (size_t)n * WIDTH * sizeof *share) == COHORT_OK, "%s",
               cohort_error_message());
    for (int rank = size - 1; rank >= 0; --rank) {
        cohort_team t = {.rank = rank,
                         .size = size,
                         .ctx = &r,
                         .broadcast = record_broadcast,
                         .gather = record_gather,
                         .abort = record_abort};
        r.rank = rank;
        memcpy(copy, blocks, (size_t)n * WIDTH * sizeof *copy);
        double mine[WIDTH] = {0};
        int64_t first = 0, end = 0;
        team_share(n, size, rank, &first, &end);
        if (be && end > first)
            EXPECT(be->copy_to_device(share, copy + first * WIDTH,
                                      (size_t)(end - first) * WIDTH * sizeof *share) == COHORT_OK,
                   "%s", cohort_error_message());
        const int rc =
            be ? ordered_sum_team_total_backend(&t, be, share, WIDTH, n, rank == 0 ? total : mine)
               : ordered_sum_team_total(&t, copy, WIDTH, n, rank == 0 ? total : mine);
        EXPECT(rc == COHORT_OK, "%s", cohort_error_message());
    }
    for (int q = 0; q < MAX_RANKS; ++q) free(r.sent[q]);
    free(copy);
    if (be) be->release(share);
}

/* block_fold of `rows` values a member, `classes` classes (with skips where skip), over members
 * [0, members) in calls of `cut` members, against the plain loop, bit for bit. */
static void fold_case(const cohort_backend *be, int64_t rows, int classes, int skip, int64_t cut)
{
    enum { MEMBERS = 2500, BLOCK = 1024 };
    const int64_t n_blocks = (MEMBERS + BLOCK - 1) / BLOCK;
    const size_t sums_count = (size_t)(n_blocks * classes * rows);
    double *x = malloc((size_t)(rows * MEMBERS) * sizeof *x), *expected = calloc(sums_count, 8);
    double *got = malloc(sums_count * sizeof *got), *x_dev = NULL, *sums_dev = NULL;
    unsigned char *cls = malloc(MEMBERS), *cls_dev = NULL;
    for (int64_t j = 0; j < MEMBERS; ++j) {
        const double u = philox_uniform_value(9, 3, (uint64_t)j);
        cls[j] = skip && u < 0.1 ? REDUCTION_SKIP : (unsigned char)(j * 7 % classes);
        for (int64_t r = 0; r < rows; ++r)
            x[r * MEMBERS + j] = (philox_uniform_value(9, 4, (uint64_t)(r * MEMBERS + j)) - 0.5) *
                                 pow(10.0, 8.0 * u - 4.0);
    }
    for (int64_t j = 0; j < MEMBERS; ++j)
        for (int64_t r = 0; r < rows; ++r)
            if (cls[j] != REDUCTION_SKIP)
                expected[((j / BLOCK) * classes + cls[j]) * rows + r] += x[r * MEMBERS + j];
    int rc = be->alloc((void **)&x_dev, (size_t)(rows * MEMBERS) * sizeof *x);
    if (rc == COHORT_OK) rc = be->alloc((void **)&sums_dev, sums_count * sizeof *got);
    if (rc == COHORT_OK) rc = be->alloc((void **)&cls_dev, MEMBERS);
    if (rc == COHORT_OK) rc = be->copy_to_device(x_dev, x, (size_t)(rows * MEMBERS) * sizeof *x);
    if (rc == COHORT_OK) rc = be->copy_to_device(cls_dev, cls, MEMBERS);
    if (rc == COHORT_OK) rc = be->fill(sums_dev, 0.0, sums_count);
    for (int64_t first = 0; rc == COHORT_OK && first < MEMBERS; first += cut) {
        const int64_t count = MEMBERS - first < cut ? MEMBERS - first : cut;
        rc = COHORT_KERNELS(be, reduction_kernels)
                 ->block_fold(x_dev, rows, MEMBERS, first, count, first, BLOCK, classes,
                              cls_dev + first, sums_dev + (first / BLOCK) * classes * rows);
    }
    if (rc == COHORT_OK) rc = be->copy_to_host(got, sums_dev, sums_count * sizeof *got);
    EXPECT(rc == COHORT_OK, "%s", cohort_error_message());
    EXPECT(rc != COHORT_OK || !memcmp(got, expected, sums_count * sizeof *got),
           "block_fold of %lld rows, %d classes%s, calls of %lld: not the plain loop's bits",
           (long long)rows, classes, skip ? " and skips" : "", (long long)cut);
    be->release(x_dev), be->release(sums_dev), be->release(cls_dev);
    free(x), free(expected), free(got), free(cls);
}

/* The fixed tree by its definition, value 0: the node over [b, b + 2^level) is its left half's
 * sum plus its right half's, a right half at or beyond n absent. */
static double tree_node(const double *blocks, int64_t n, int64_t b, int level)
{
    if (level == 0) return blocks[b * WIDTH];
    const int64_t half = (int64_t)1 << (level - 1);
    const double left = tree_node(blocks, n, b, level - 1);
    return b + half < n ? left + tree_node(blocks, n, b + half, level - 1) : left;
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    double blocks[MAX_BLOCKS * WIDTH], tree[MAX_BLOCKS * WIDTH];
    for (int i = 0; i < MAX_BLOCKS * WIDTH; ++i) /* magnitudes 1e-8 .. 1e8, both signs */
        blocks[i] = (philox_uniform_value(7, 1, (uint64_t)i) - 0.5) *
                    pow(10.0, 16.0 * philox_uniform_value(7, 2, (uint64_t)i) - 8.0);
    int order_matters = 0, mismatches = 0;
    for (int64_t n = 1; n <= MAX_BLOCKS; ++n) {
        memcpy(tree, blocks, (size_t)n * WIDTH * sizeof *tree);
        ordered_sum_tree(tree, WIDTH, n);
        int levels = 0;
        while (((int64_t)1 << levels) < n) ++levels;
        const double defined = tree_node(blocks, n, 0, levels);
        EXPECT(tree[0] == defined, "n = %lld: the tree %.17g, by its definition %.17g",
               (long long)n, tree[0], defined);
        double sequential = 0.0;
        for (int64_t b = 0; b < n; ++b) sequential += blocks[b * WIDTH];
        order_matters += sequential != tree[0];
        for (int size = 1; size <= MAX_RANKS; ++size)
            for (int on_backend = 0; on_backend < 2; ++on_backend) {
                double total[WIDTH] = {NAN, NAN, NAN};
                team_total(on_backend ? be : NULL, blocks, n, size, total);
                if (memcmp(total, tree, sizeof total) != 0 && mismatches++ < 5)
                    printf("n = %lld blocks over %d ranks%s: %.17g, the tree %.17g\n", (long long)n,
                           size, on_backend ? " (backend memory)" : "", total[0], tree[0]);
            }
    }
    EXPECT(mismatches == 0, "%d of %d team totals differ from the tree", mismatches,
           2 * MAX_BLOCKS * MAX_RANKS);
    static const int64_t fold_rows[] = {1, 3, 200}, cuts[] = {2500, 1000, 333};
    for (int a = 0; a < 3; ++a)
        for (int classes = 1; classes <= 3; classes += 2)
            for (int skip = 0; skip < 2; ++skip)
                for (int c = 0; c < 3; ++c) fold_case(be, fold_rows[a], classes, skip, cuts[c]);
    EXPECT(order_matters > MAX_BLOCKS / 2, "the data is order-sensitive in %d of %d cases",
           order_matters, MAX_BLOCKS);
    return test_summary();
}
