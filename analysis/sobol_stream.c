#include "analysis/sobol_stream.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/moments.h"
#include "backend/cohort_error.h"

int64_t sobol_stream_unit(int64_t group, int64_t bootstrap_unit)
{
    int64_t unit = bootstrap_unit;
    while (unit < group && unit < MOMENTS_BLOCK) unit *= 2;
    return unit;
}

int sobol_stream_alloc(sobol_stream *s, int d, int64_t replicates, int64_t unit, int n_stats,
                       int64_t n_records, int64_t members, int64_t first, int64_t end)
{
    memset(s, 0, sizeof *s);
    const int64_t group = (int64_t)(d + 2) * replicates;
    if (d < 1 || d > SOBOL_MAX_PARAMETERS || replicates < 1 || !moments_unit_valid(unit) ||
        n_stats < 1 || n_records < 1 || members < 1 || members % group || first < 0 ||
        first % MOMENTS_BLOCK || end <= first || end > members)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "%d parameters x %lld replicates, unit %lld, members [%lld, %lld) of "
                           "%lld",
                           d, (long long)replicates, (long long)unit, (long long)first,
                           (long long)end, (long long)members);
    *s = (sobol_stream){.d = d,
                        .n_stats = n_stats,
                        .n_records = n_records,
                        .replicates = replicates,
                        .group = group,
                        .unit = unit,
                        .members = members,
                        .first = first,
                        .end = end,
                        .first_unit = first / unit,
                        .n_units = (end + unit - 1) / unit - first / unit};
    const size_t slots = (size_t)(n_records * n_stats);
    s->units = calloc(slots, sizeof *s->units);
    s->pending = calloc(slots * (size_t)group, sizeof *s->pending);
    s->head = calloc(slots * (size_t)group, sizeof *s->head);
    s->next = malloc(slots * sizeof *s->next);
    int rc = s->units && s->pending && s->head && s->next
                 ? COHORT_OK
                 : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "Sobol units of %lld records",
                               (long long)n_records);
    for (size_t k = 0; rc == COHORT_OK && k < slots; ++k) {
        s->next[k] = first;
        rc = sobol_units_alloc(&s->units[k], d, s->n_units);
    }
    if (rc != COHORT_OK) sobol_stream_free(s);
    return rc;
}

void sobol_stream_free(sobol_stream *s)
{
    for (int64_t k = 0; s->units && k < s->n_records * s->n_stats; ++k)
        sobol_units_free(&s->units[k]);
    free(s->units), free(s->pending), free(s->head), free(s->next);
    memset(s, 0, sizeof *s);
}

/* The group of members [start, start + group) complete in v: each replicate's arms into the
 * unit of its first member. */
static void group_complete(const sobol_stream *s, sobol_units *u, int64_t start, const double *v)
{
    const int64_t unit = start / s->unit - s->first_unit, reps = s->replicates;
    double f[SOBOL_MAX_PARAMETERS + 2];
    for (int64_t rep = 0; rep < reps; ++rep) {
        for (int arm = 0; arm < s->d + 2; ++arm) f[arm] = v[arm * reps + rep];
        sobol_units_add(u, unit, f);
    }
}

/* record r and statistic q as a slot, or -1 */
static int64_t slot_of(const sobol_stream *s, int64_t r, int q)
{
    return r >= 0 && r < s->n_records && q >= 0 && q < s->n_stats ? r * s->n_stats + q : -1;
}

int sobol_stream_add(sobol_stream *s, int64_t r, int q, int64_t m0, int64_t count,
                     const double *values)
{
    const int64_t k = slot_of(s, r, q), group = s->group;
    if (k < 0 || m0 != s->next[k] || count < 0 || m0 + count > s->end)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "statistic %d at record %lld: members [%lld, %lld) where %lld is next",
                           q, (long long)r, (long long)m0, (long long)(m0 + count),
                           k < 0 ? -1LL : (long long)s->next[k]);
    double *pending = s->pending + k * group, *head = s->head + k * group;
    for (int64_t i = 0; i < count; ++i) {
        const int64_t g = m0 + i, start = g / group * group;
        if (start < s->first) { /* a group that began in the part before */
            head[g - start] = values[i];
            continue;
        }
        pending[g - start] = values[i];
        if (g - start == group - 1) group_complete(s, &s->units[k], start, pending);
    }
    s->next[k] = m0 + count;
    return COHORT_OK;
}

const sobol_units *sobol_stream_units(const sobol_stream *s, int64_t r, int q)
{
    const int64_t k = slot_of(s, r, q);
    return k >= 0 && s->first == 0 && s->next[k] == s->members ? &s->units[k] : NULL;
}

/* doubles a unit takes: count, mean, m2, base points, then the d first-order and d total sums */
static int64_t unit_values(const sobol_stream *s)
{
    return 4 + 2 * (int64_t)s->d;
}

static int64_t slot_values(const sobol_stream *s, int64_t n_units)
{
    return n_units * unit_values(s) + 2 * s->group + 1;
}

int64_t sobol_stream_values(const sobol_stream *s)
{
    return s->n_stats * slot_values(s, s->n_units);
}

int64_t sobol_stream_values_of(int d, int64_t replicates, int64_t unit, int n_stats, int64_t first,
                               int64_t end)
{
    const sobol_stream s = {.d = d, .group = (int64_t)(d + 2) * replicates};
    return n_stats * slot_values(&s, (end + unit - 1) / unit - first / unit);
}

/* units [u0, u0 + n) of u into v */
static void units_save(const sobol_units *u, int64_t u0, int64_t n, double *v)
{
    const int d = u->d;
    for (int64_t k = u0; k < u0 + n; ++k, v += 4 + 2 * d) {
        v[0] = u->outputs[k].count, v[1] = u->outputs[k].mean, v[2] = u->outputs[k].m2;
        v[3] = u->points[k];
        memcpy(v + 4, u->first + k * d, (size_t)d * sizeof *v);
        memcpy(v + 4 + d, u->total + k * d, (size_t)d * sizeof *v);
    }
}

/* units [u0, u0 + n) of u from v */
static void units_load(sobol_units *u, int64_t u0, int64_t n, const double *v)
{
    const int d = u->d;
    for (int64_t k = u0; k < u0 + n; ++k, v += 4 + 2 * d) {
        u->outputs[k] = (moments){v[0], v[1], v[2]};
        u->points[k] = v[3];
        memcpy(u->first + k * d, v + 4, (size_t)d * sizeof *v);
        memcpy(u->total + k * d, v + 4 + d, (size_t)d * sizeof *v);
    }
}

void sobol_stream_save(const sobol_stream *s, int64_t r, double *out)
{
    const int64_t group = s->group;
    for (int q = 0; q < s->n_stats; ++q, out += slot_values(s, s->n_units)) {
        const int64_t k = r * s->n_stats + q;
        units_save(&s->units[k], 0, s->n_units, out);
        double *tail = out + s->n_units * unit_values(s);
        memcpy(tail, s->pending + k * group, (size_t)group * sizeof *tail);
        memcpy(tail + group, s->head + k * group, (size_t)group * sizeof *tail);
        tail[2 * group] = (double)s->next[k];
    }
}

int sobol_stream_load(sobol_stream *s, int64_t r, const double *in)
{
    const int64_t group = s->group;
    for (int q = 0; q < s->n_stats; ++q, in += slot_values(s, s->n_units)) {
        const int64_t k = slot_of(s, r, q);
        const double *tail = in + s->n_units * unit_values(s);
        const double next = tail[2 * group];
        if (k < 0 || !(next >= (double)s->first && next <= (double)s->end))
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                               "Sobol sums of record %lld: next member %g outside [%lld, %lld]",
                               (long long)r, next, (long long)s->first, (long long)s->end);
        units_load(&s->units[k], 0, s->n_units, in);
        memcpy(s->pending + k * group, tail, (size_t)group * sizeof *tail);
        memcpy(s->head + k * group, tail + group, (size_t)group * sizeof *tail);
        s->next[k] = (int64_t)next;
    }
    return COHORT_OK;
}

/* One statistic's slot k of a part [first, end) holding n_units units (in) into the whole run. */
static int join_slot(sobol_stream *w, int64_t k, int64_t first, int64_t end, int64_t n_units,
                     const double *in)
{
    const int64_t group = w->group;
    const double *tail = in + n_units * unit_values(w);
    const double *pending = tail, *head = tail + group, next = tail[2 * group];
    if (next == (double)first) return COHORT_OK; /* a statistic of another record only */
    if (next != (double)end || w->next[k] != first)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "Sobol sums of members [%lld, %lld) at member %g, after %lld joined",
                           (long long)first, (long long)end, next, (long long)w->next[k]);
    double *whole = w->pending + k * group;
    const int64_t cut = first / group * group; /* the group the part began in */
    if (cut < first) {
        const int64_t stop = cut + group < end ? cut + group : end;
        memcpy(whole + (first - cut), head + (first - cut), (size_t)(stop - first) * sizeof *head);
        if (cut + group <= end) group_complete(w, &w->units[k], cut, whole);
    }
    units_load(&w->units[k], first / w->unit, n_units, in);
    const int64_t last = (end - 1) / group * group; /* the group the part ended in */
    if (last >= first && end - last < group)
        memcpy(whole, pending, (size_t)(end - last) * sizeof *pending);
    w->next[k] = end;
    return COHORT_OK;
}

int sobol_stream_join(sobol_stream *whole, int64_t r, int64_t first, int64_t end, const double *in)
{
    if (whole->first != 0 || whole->end != whole->members || first < 0 || first % MOMENTS_BLOCK ||
        end <= first || end > whole->members || r < 0 || r >= whole->n_records)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "Sobol sums of members [%lld, %lld) at record %lld into %lld members",
                           (long long)first, (long long)end, (long long)r,
                           (long long)whole->members);
    const int64_t n_units = (end + whole->unit - 1) / whole->unit - first / whole->unit;
    for (int q = 0; q < whole->n_stats; ++q, in += slot_values(whole, n_units))
        COHORT_CALL(join_slot(whole, r * whole->n_stats + q, first, end, n_units, in));
    return COHORT_OK;
}
