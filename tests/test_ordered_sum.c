/* The fixed tree shared by a team (ordered_sum_team_total): rank 0's total equals the tree of
 * every block (ordered_sum_tree) bit for bit, for every number of blocks up to 70 and of ranks up
 * to 9 (ranks without a block included). The ranks are simulated in one process: the others'
 * gathers are recorded first, then rank 0 runs with them, which is all this collective needs
 * (only rank 0's result depends on the others). The values mix magnitudes so that another order
 * of the additions gives other bits (checked). */
#include <math.h>
#include <stdint.h>

#include "analysis/ordered_sum.h"
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

/* Rank 0's total of blocks over `size` simulated ranks. */
static void team_total(const double *blocks, int64_t n, int size, double *total)
{
    recorded r = {0};
    double *copy = malloc((size_t)n * WIDTH * sizeof *copy);
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
        EXPECT(ordered_sum_team_total(&t, copy, WIDTH, n, rank == 0 ? total : mine) == COHORT_OK,
               "%s", cohort_error_message());
    }
    for (int q = 0; q < MAX_RANKS; ++q) free(r.sent[q]);
    free(copy);
}

int main(void)
{
    double blocks[MAX_BLOCKS * WIDTH], tree[MAX_BLOCKS * WIDTH];
    for (int i = 0; i < MAX_BLOCKS * WIDTH; ++i) /* magnitudes 1e-8 .. 1e8, both signs */
        blocks[i] = (philox_uniform_value(7, 1, (uint64_t)i) - 0.5) *
                    pow(10.0, 16.0 * philox_uniform_value(7, 2, (uint64_t)i) - 8.0);
    int order_matters = 0, mismatches = 0;
    for (int64_t n = 1; n <= MAX_BLOCKS; ++n) {
        memcpy(tree, blocks, (size_t)n * WIDTH * sizeof *tree);
        ordered_sum_tree(tree, WIDTH, n);
        double sequential = 0.0;
        for (int64_t b = 0; b < n; ++b) sequential += blocks[b * WIDTH];
        order_matters += sequential != tree[0];
        for (int size = 1; size <= MAX_RANKS; ++size) {
            double total[WIDTH] = {NAN, NAN, NAN};
            team_total(blocks, n, size, total);
            if (memcmp(total, tree, sizeof total) != 0 && mismatches++ < 5)
                printf("n = %lld blocks over %d ranks: %.17g, the tree %.17g\n", (long long)n, size,
                       total[0], tree[0]);
        }
    }
    EXPECT(mismatches == 0, "%d of %d team totals differ from the tree", mismatches,
           MAX_BLOCKS * MAX_RANKS);
    EXPECT(order_matters > MAX_BLOCKS / 2, "the data is order-sensitive in %d of %d cases",
           order_matters, MAX_BLOCKS);
    return test_summary();
}
