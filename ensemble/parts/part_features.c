#include "parts/part_features.h"

#include "backend/cohort_error.h"
#include "io/cohort_file.h"

void part_features_init(part_features *f, const char *const *paths, const int64_t *first, int count,
                        int64_t n)
{
    *f = (part_features){.count = count, .paths = paths, .first = first, .n = n, .open = -1};
}

void part_features_close(part_features *f)
{
    if (f->open >= 0) cohort_file_close(f->nc);
    f->open = -1;
}

/* Part i open, its features' variable found. */
static int part_open(part_features *f, int i)
{
    if (f->open == i) return COHORT_OK;
    part_features_close(f);
    if (cohort_file_open_data(f->paths[i], &f->nc))
        return COHORT_FAIL(COHORT_ERR_IO, "%s: cannot open the part", f->paths[i]);
    f->open = i;
    if (cohort_file_variable(f->nc, "merge", "features", &f->grp, &f->var))
        return COHORT_FAIL(COHORT_ERR_IO, "%s: merge/features missing", f->paths[i]);
    return COHORT_OK;
}

/* The part that holds member g (first[] ascending). */
static int part_of(const part_features *f, int64_t g)
{
    int lo = 0, hi = f->count - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (f->first[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int part_features_load(void *ctx, int64_t g0, int64_t count, double *dst)
{
    part_features *f = ctx;
    for (int64_t g = g0; g < g0 + count;) {
        const int i = part_of(f, g);
        const int64_t end = f->first[i + 1] < g0 + count ? f->first[i + 1] : g0 + count;
        COHORT_CALL(part_open(f, i));
        const size_t at[2] = {(size_t)(g - f->first[i]), 0},
                     size[2] = {(size_t)(end - g), (size_t)f->n};
        if (cohort_file_read_double(f->grp, f->var, at, size, dst + (g - g0) * f->n))
            return COHORT_FAIL(COHORT_ERR_IO,
                               "%s: merge/features of members [%lld, %lld) unreadable", f->paths[i],
                               (long long)g, (long long)end);
        g = end;
    }
    return COHORT_OK;
}
