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

int64_t moments_unit_size(int64_t members)
{
    int64_t unit = 1;
    while (unit < MOMENTS_BLOCK && (members + unit - 1) / unit > MOMENTS_UNITS_WANTED) unit *= 2;
    return unit;
}

int moments_unit_valid(int64_t unit)
{
    return unit >= 1 && unit <= MOMENTS_BLOCK && MOMENTS_BLOCK % unit == 0 && !(unit & (unit - 1));
}

int moments_units_alloc(moments_units *b, int64_t members, int64_t unit, int64_t first, int64_t end)
{
    b->units = NULL;
    if (members < 1)
        return COHORT_FAIL(COHORT_ERR_EMPTY_BATCH, "members = %lld", (long long)members);
    if (!moments_unit_valid(unit) || first < 0 || first % unit || end <= first || end > members)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "units of %lld over members [%lld, %lld) of %lld", (long long)unit,
                           (long long)first, (long long)end, (long long)members);
    b->members = members;
    b->next = first;
    b->unit = unit;
    b->first_unit = first / unit;
    b->n_units = (end + unit - 1) / unit - b->first_unit;
    b->units = calloc((size_t)b->n_units, sizeof *b->units);
    if (!b->units)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld moment units", (long long)b->n_units);
    return COHORT_OK;
}

void moments_units_free(moments_units *b)
{
    free(b->units);
    b->units = NULL;
}

int moments_units_add(moments_units *b, int64_t first, int64_t count, const double *values,
                      const unsigned char *include)
{
    const int64_t end = (b->first_unit + b->n_units) * b->unit;
    if (first < b->next || count < 0 || first + count > b->members || first + count > end)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "members [%lld, +%lld) out of order: member %lld of %lld or a later "
                           "one comes next",
                           (long long)first, (long long)count, (long long)b->next,
                           (long long)b->members);
    for (int64_t k = 0; k < count; ++k)
        if (!include || include[k])
            moments_add(&b->units[(first + k) / b->unit - b->first_unit], values[k]);
    b->next = first + count;
    return COHORT_OK;
}

/* Units [lo, hi) merged by halves: the tree depends only on the number of units. */
static moments merge_range(const moments *units, int64_t lo, int64_t hi)
{
    if (hi - lo == 1) return units[lo];
    const int64_t mid = lo + (hi - lo) / 2;
    moments left = merge_range(units, lo, mid);
    const moments right = merge_range(units, mid, hi);
    moments_merge(&left, &right);
    return left;
}

moments moments_units_total(const moments_units *b)
{
    return merge_range(b->units, 0, b->n_units);
}
