/* analysis/sobol_stream.c: the indices streamed record by record equal the estimators' formulas
 * over all base points; the units are bit for bit the same whatever the chunks the members
 * arrive in, across a save and load (a resume), and across parts joined (--members, ranks),
 * including a part that lies inside one group; and members out of order are refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/moments.h"
#include "analysis/sobol_stream.h"
#include "backend/philox.h"
#include "test_common.h"

enum { RECORDS = 2, STATS = 2 };

typedef struct layout {
    int d;
    int64_t reps, base, members, unit;
} layout;

/* member g's statistic q at record r: a response of its design-like inputs, NaN for one base
 * point (a diverged member) */
static double value_of(const layout *l, int64_t g, int64_t r, int q)
{
    const int64_t group = (l->d + 2) * l->reps;
    if (g / group == 3) return NAN;
    const double x = philox_uniform_value(11, (uint64_t)g, (uint64_t)(r * STATS + q));
    return (1.0 + (double)r) * x * x + 0.25 * (double)q * x + (double)(g % (l->d + 2)) * 0.01;
}

/* members [m0, end) fed in chunks of `chunk`, every record and statistic as a run feeds them */
static void feed(sobol_stream *s, const layout *l, int64_t m0, int64_t end, int64_t chunk)
{
    double *v = malloc((size_t)chunk * sizeof *v);
    for (int64_t c = m0; c < end; c += chunk) {
        const int64_t n = c + chunk <= end ? chunk : end - c;
        for (int64_t r = 0; r < RECORDS; ++r)
            for (int q = 0; q < STATS; ++q) {
                for (int64_t k = 0; k < n; ++k) v[k] = value_of(l, c + k, r, q);
                EXPECT(sobol_stream_add(s, r, q, c, n, v) == 0, "add [%lld, +%lld)", (long long)c,
                       (long long)n);
            }
    }
    free(v);
}

static int same_units(const sobol_stream *a, const sobol_stream *b)
{
    for (int64_t r = 0; r < RECORDS; ++r)
        for (int q = 0; q < STATS; ++q) {
            const sobol_units *x = sobol_stream_units(a, r, q), *y = sobol_stream_units(b, r, q);
            if (!x || !y || x->n_units != y->n_units) return 0;
            const size_t n = (size_t)x->n_units, d = (size_t)x->d;
            if (memcmp(x->outputs, y->outputs, n * sizeof *x->outputs) ||
                memcmp(x->points, y->points, n * sizeof *x->points) ||
                memcmp(x->first, y->first, n * d * sizeof *x->first) ||
                memcmp(x->total, y->total, n * d * sizeof *x->total))
                return 0;
        }
    return 1;
}

/* the estimators' formulas over every finite base point, against the stream's indices */
static void check_formulas(const sobol_stream *s, const layout *l)
{
    const int d = l->d;
    const int64_t group = (d + 2) * l->reps;
    for (int64_t r = 0; r < RECORDS; ++r)
        for (int q = 0; q < STATS; ++q) {
            double sum = 0.0, sum2 = 0.0, n = 0.0, sf[SOBOL_MAX_PARAMETERS] = {0},
                   st[SOBOL_MAX_PARAMETERS] = {0};
            for (int64_t g0 = 0; g0 < l->members; g0 += group)
                for (int64_t rep = 0; rep < l->reps; ++rep) {
                    double f[SOBOL_MAX_PARAMETERS + 2] = {0};
                    int finite = 1;
                    for (int arm = 0; arm < d + 2; ++arm)
                        finite &= isfinite(f[arm] = value_of(l, g0 + arm * l->reps + rep, r, q));
                    if (!finite) continue;
                    sum += f[0] + f[1], sum2 += f[0] * f[0] + f[1] * f[1], n += 1.0;
                    for (int j = 0; j < d; ++j)
                        sf[j] += f[1] * (f[2 + j] - f[0]),
                            st[j] += (f[0] - f[2 + j]) * (f[0] - f[2 + j]);
                }
            const double mean = sum / (2.0 * n), var = sum2 / (2.0 * n) - mean * mean;
            double first[SOBOL_MAX_PARAMETERS], total[SOBOL_MAX_PARAMETERS];
            const sobol_units *u = sobol_stream_units(s, r, q);
            sobol_indices(u, NULL, u->n_units, first, total);
            for (int j = 0; j < d; ++j)
                EXPECT(fabs(first[j] - sf[j] / n / var) <= 1e-10 &&
                           fabs(total[j] - st[j] / n / (2.0 * var)) <= 1e-10,
                       "reps %lld, record %lld, statistic %d, x%d: %.15g vs %.15g, %.15g vs %.15g",
                       (long long)l->reps, (long long)r, q, j + 1, first[j], sf[j] / n / var,
                       total[j], st[j] / n / (2.0 * var));
        }
}

/* parts [cut[i], cut[i + 1]) run on their own (chunks of 7), saved, and joined in order */
static void check_parts(const sobol_stream *whole, const layout *l, const int64_t *cut, int n)
{
    sobol_stream joined;
    EXPECT(sobol_stream_alloc(&joined, l->d, l->reps, l->unit, STATS, RECORDS, l->members, 0,
                              l->members) == 0,
           "alloc joined");
    for (int i = 0; i < n; ++i) {
        sobol_stream part;
        EXPECT(sobol_stream_alloc(&part, l->d, l->reps, l->unit, STATS, RECORDS, l->members, cut[i],
                                  cut[i + 1]) == 0,
               "alloc part");
        feed(&part, l, cut[i], cut[i + 1], 7);
        double *v = malloc((size_t)sobol_stream_values(&part) * sizeof *v);
        for (int64_t r = 0; r < RECORDS; ++r) {
            sobol_stream_save(&part, r, v);
            EXPECT(sobol_stream_join(&joined, r, cut[i], cut[i + 1], v) == 0, "join part %d", i);
        }
        free(v);
        sobol_stream_free(&part);
    }
    EXPECT(same_units(whole, &joined), "reps %lld: %d parts joined = the whole run, bitwise",
           (long long)l->reps, n);
    sobol_stream_free(&joined);
}

static void check_layout(const layout *l, const int64_t *cut, int n_parts)
{
    sobol_stream whole, chunked, resumed;
    EXPECT(sobol_stream_alloc(&whole, l->d, l->reps, l->unit, STATS, RECORDS, l->members, 0,
                              l->members) == 0,
           "alloc");
    feed(&whole, l, 0, l->members, l->members);
    check_formulas(&whole, l);
    const int64_t chunks[] = {1, 7, 300};
    for (int c = 0; c < 3; ++c) {
        sobol_stream_alloc(&chunked, l->d, l->reps, l->unit, STATS, RECORDS, l->members, 0,
                           l->members);
        feed(&chunked, l, 0, l->members, chunks[c]);
        EXPECT(same_units(&whole, &chunked), "reps %lld, chunks of %lld: bitwise",
               (long long)l->reps, (long long)chunks[c]);
        sobol_stream_free(&chunked);
    }
    /* a resume: the state after 1,001 members saved and loaded into a fresh stream */
    sobol_stream_alloc(&chunked, l->d, l->reps, l->unit, STATS, RECORDS, l->members, 0, l->members);
    sobol_stream_alloc(&resumed, l->d, l->reps, l->unit, STATS, RECORDS, l->members, 0, l->members);
    feed(&chunked, l, 0, 1001, 13);
    double *v = malloc((size_t)sobol_stream_values(&chunked) * sizeof *v);
    for (int64_t r = 0; r < RECORDS; ++r) {
        sobol_stream_save(&chunked, r, v);
        EXPECT(sobol_stream_load(&resumed, r, v) == 0, "load");
    }
    free(v);
    feed(&resumed, l, 1001, l->members, 64);
    EXPECT(same_units(&whole, &resumed), "reps %lld: saved at 1,001 and resumed: bitwise",
           (long long)l->reps);
    sobol_stream_free(&chunked), sobol_stream_free(&resumed);
    check_parts(&whole, l, cut, n_parts);
    sobol_stream_free(&whole);
}

int main(void)
{
    /* groups of 10 members, cut by chunks and by the parts at 1,024 and 3,072 */
    const layout small = {3, 2, 500, 5000, sobol_stream_unit(10, 1)};
    const int64_t small_cut[] = {0, 1024, 3072, 5000};
    EXPECT(small.unit == 16, "groups of 10: units of 16 members, not %lld", (long long)small.unit);
    check_layout(&small, small_cut, 3);
    /* groups of 2,400 members: a part, [1,024, 2,048), inside the first group */
    const layout large = {2, 600, 2, 4800, sobol_stream_unit(2400, 8)};
    const int64_t large_cut[] = {0, 1024, 2048, 3072, 4800};
    EXPECT(large.unit == MOMENTS_BLOCK, "groups of 2,400: units of 1,024");
    check_layout(&large, large_cut, 4);

    /* refusals: members out of order; a part that does not follow the members joined */
    sobol_stream s;
    sobol_stream_alloc(&s, 3, 2, 16, STATS, RECORDS, 5000, 0, 5000);
    const double one[2] = {1.0, 2.0};
    EXPECT(sobol_stream_add(&s, 0, 0, 5, 2, one) != 0, "members out of order refused");
    EXPECT(sobol_stream_add(&s, 0, 0, 0, 2, one) == 0, "members in order");
    EXPECT(sobol_stream_add(&s, 0, 0, 0, 2, one) != 0, "members twice refused");
    EXPECT(sobol_stream_add(&s, RECORDS, 0, 2, 2, one) != 0, "a record past the last refused");
    sobol_stream part;
    sobol_stream_alloc(&part, 3, 2, 16, STATS, RECORDS, 5000, 1024, 3072);
    feed(&part, &small, 1024, 3072, 512);
    double *v = malloc((size_t)sobol_stream_values(&part) * sizeof *v);
    sobol_stream_save(&part, 1, v);
    EXPECT(sobol_stream_join(&s, 1, 1024, 3072, v) != 0, "a part after a gap refused");
    free(v);
    sobol_stream_free(&part), sobol_stream_free(&s);
    EXPECT(sobol_stream_alloc(&s, 3, 2, 16, STATS, RECORDS, 5001, 0, 5001) != 0,
           "members not whole groups refused");
    return test_summary();
}
