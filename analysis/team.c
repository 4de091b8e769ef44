#include "team.h"

#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"

static int alone_broadcast(void *ctx, void *buf, size_t bytes, int root)
{
    (void)ctx, (void)buf, (void)bytes, (void)root;
    return COHORT_OK;
}

static int alone_gather(void *ctx, const void *mine, void *all, const size_t *bytes)
{
    (void)ctx;
    if (mine != all) memmove(all, mine, bytes[0]);
    return COHORT_OK;
}

static void alone_abort(void *ctx, int status)
{
    (void)ctx;
    exit(status);
}

const cohort_team team_alone = {.rank = 0,
                                .size = 1,
                                .broadcast = alone_broadcast,
                                .gather = alone_gather,
                                .abort = alone_abort};

void team_share(int64_t blocks, int size, int rank, int64_t *first, int64_t *end)
{
    *first = blocks * rank / size;
    *end = blocks * (rank + 1) / size;
}

int team_owner(int64_t blocks, int size, int64_t b)
{
    int r = (int)((b * size) / (blocks > 0 ? blocks : 1));
    int64_t first, end;
    for (;; r += first > b ? -1 : 1) { /* the estimate, then its neighbours */
        team_share(blocks, size, r, &first, &end);
        if (b >= first && b < end) return r;
    }
}

/* every rank's `count` doubles gathered at rank 0 (all: size x count there) */
static int gather_each(const cohort_team *t, const double *mine, double *all, int count)
{
    size_t *bytes = malloc((size_t)t->size * sizeof *bytes);
    if (!bytes) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "a team's gather");
    for (int r = 0; r < t->size; ++r) bytes[r] = (size_t)count * sizeof(double);
    const int rc = t->gather(t->ctx, mine, all, bytes);
    free(bytes);
    return rc;
}

int team_sum(const cohort_team *t, double *values, int count)
{
    if (t->size == 1) return COHORT_OK;
    double *all = t->rank == 0 ? malloc((size_t)t->size * (size_t)count * sizeof *all) : NULL;
    if (t->rank == 0 && !all) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "a team's sum");
    int rc = gather_each(t, values, all, count);
    for (int r = 1; rc == COHORT_OK && all && r < t->size; ++r)
        for (int i = 0; i < count; ++i) all[i] += all[(size_t)r * (size_t)count + i];
    if (rc == COHORT_OK && all) memcpy(values, all, (size_t)count * sizeof *values);
    free(all);
    return rc == COHORT_OK ? t->broadcast(t->ctx, values, (size_t)count * sizeof *values, 0) : rc;
}

int team_max_int(const cohort_team *t, int *value)
{
    double v = (double)*value;
    if (t->size == 1) return COHORT_OK;
    double *all = t->rank == 0 ? malloc((size_t)t->size * sizeof *all) : NULL;
    if (t->rank == 0 && !all) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "a team's maximum");
    int rc = gather_each(t, &v, all, 1);
    for (int r = 1; rc == COHORT_OK && all && r < t->size; ++r)
        if (all[r] > all[0]) all[0] = all[r];
    if (all) v = all[0];
    free(all);
    if (rc == COHORT_OK) rc = t->broadcast(t->ctx, &v, sizeof v, 0);
    *value = (int)v;
    return rc;
}
