/* Ensemble moments: Welford and Chan against a two-pass reference, bitwise independence of the
 * chunking, skipped members, order errors; the per-member <C>, <C^2> of the backends (deviations
 * from the member's mean, their own mean projected out) against a direct long-double sum, and of
 * large fields in their lane order, bit for bit. Usage:
 * test_moments [--backend cpu|cuda] (exit 77 = skipped: no device). */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/moments.h"
#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "banded_reference.h"
#include "models/model1d/model1d_numerics.h"
#include "fields/fields.h"
#include "fields/fields_numerics.h"
#include "test_common.h"

static void reference(const double *x, int64_t n, double *mean, double *var)
{
    long double s = 0.0L, q = 0.0L;
    for (int64_t i = 0; i < n; ++i) s += x[i];
    const long double m = s / n;
    for (int64_t i = 0; i < n; ++i) q += (x[i] - m) * (x[i] - m);
    *mean = (double)m;
    *var = (double)(q / (n - 1));
}

static void units_chunked(const double *x, int64_t n, int64_t unit, int64_t chunk,
                          const unsigned char *inc, moments *total)
{
    moments_units b;
    EXPECT(moments_units_alloc(&b, n, unit, 0, n) == COHORT_OK, "alloc");
    for (int64_t first = 0; first < n; first += chunk) {
        const int64_t count = first + chunk <= n ? chunk : n - first;
        EXPECT(moments_units_add(&b, first, count, x + first, inc ? inc + first : NULL) ==
                   COHORT_OK,
               "add [%lld, +%lld)", (long long)first, (long long)count);
    }
    *total = moments_units_total(&b);
    moments_units_free(&b);
}

/* The bootstrap's unit sizes, and the unit accumulator: bitwise the same for every chunking and
 * unit size, a part's units the whole run's. */
static void units_cases(const double *x, int64_t N, double rm, double rv)
{
    /* the units the bootstrap resamples: members alone up to 1024, at least 513 units above,
     * a power of two dividing MOMENTS_BLOCK */
    const int64_t sizes[][2] = {{1, 1},    {64, 1},   {1000, 1},       {1024, 1},      {1025, 2},
                                {4096, 4}, {5000, 8}, {1 << 20, 1024}, {1 << 22, 1024}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        const int64_t u = moments_unit_size(sizes[k][0]), units = (sizes[k][0] + u - 1) / u;
        EXPECT(u == sizes[k][1] && moments_unit_valid(u) && (sizes[k][0] < 64 || units >= 64) &&
                   (sizes[k][0] <= 1024 || units > 512),
               "%lld members: units of %lld (want %lld), %lld of them", (long long)sizes[k][0],
               (long long)u, (long long)sizes[k][1], (long long)units);
    }
    EXPECT(!moments_unit_valid(0) && !moments_unit_valid(3) && !moments_unit_valid(2048),
           "units of 0, 3 or 2048 members refused");

    /* the unit accumulator: bitwise the same for every chunking, for several unit sizes */
    moments ref_total, t;
    const int64_t unit_sizes[] = {1, 8, 1024};
    for (size_t k = 0; k < sizeof unit_sizes / sizeof unit_sizes[0]; ++k) {
        units_chunked(x, N, unit_sizes[k], N, NULL, &ref_total);
        EXPECT(fabs(ref_total.mean - rm) <= 1e-14 * fabs(rm) &&
                   fabs(moments_variance(&ref_total) - rv) <= 1e-12 * rv,
               "units of %lld agree with the reference", (long long)unit_sizes[k]);
        const int64_t chunks[] = {1, 7, 1000, 1024, 4999};
        for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; ++c) {
            units_chunked(x, N, unit_sizes[k], chunks[c], NULL, &t);
            EXPECT(!memcmp(&t, &ref_total, sizeof t),
                   "units of %lld, chunk %lld: bitwise identical moments", (long long)unit_sizes[k],
                   (long long)chunks[c]);
        }
    }
    /* a part's units [1024, 5000) hold the same units as the whole run's */
    moments_units whole, part;
    EXPECT(moments_units_alloc(&whole, N, 8, 0, N) == COHORT_OK &&
               moments_units_alloc(&part, N, 8, 1024, N) == COHORT_OK && part.first_unit == 128 &&
               part.n_units == whole.n_units - 128,
           "a part's units");
    EXPECT(moments_units_add(&whole, 0, N, x, NULL) == COHORT_OK &&
               moments_units_add(&part, 1024, N - 1024, x + 1024, NULL) == COHORT_OK,
           "adds");
    EXPECT(!memcmp(whole.units + 128, part.units, (size_t)part.n_units * sizeof *part.units),
           "a part's units are the whole run's, bit for bit");
    EXPECT(moments_units_add(&part, 0, 1, x, NULL) == COHORT_ERR_INVALID_ARGUMENT,
           "a member before the part refused");
    moments_units_free(&whole), moments_units_free(&part);
    EXPECT(moments_units_alloc(&part, N, 8, 1020, N) == COHORT_ERR_INVALID_ARGUMENT,
           "a part that cuts a unit refused");
}

/* Per-member <C>, <C^2> on the backend, members stored as deviations from their means, against
 * a long-double sum. */
static void member_moments_case(const cohort_backend *be, gsl_rng *rng)
{
    const int64_t n = 97, ld = 300, m0 = 17, count = 250;
    double *u = malloc(n * ld * sizeof *u), *mean = malloc(ld * sizeof *mean);
    double *out = malloc(2 * count * sizeof *out);
    for (int64_t k = 0; k < n * ld; ++k) u[k] = 2.0 * gsl_rng_uniform(rng) - 1.0;
    for (int64_t m = 0; m < ld; ++m) mean[m] = 0.1 * (double)(m % 7);
    void *du = NULL, *dmean = NULL, *dout = NULL;
    if (be && !be->alloc(&du, n * ld * sizeof *u) && !be->alloc(&dmean, ld * sizeof *mean) &&
        !be->alloc(&dout, 2 * count * sizeof *out)) {
        be->copy_to_device(du, u, n * ld * sizeof *u);
        be->copy_to_device(dmean, mean, ld * sizeof *mean);
        be->fill((double *)dout, NAN, 2 * count);
        EXPECT(fields_moments(be, (const double *)du, (const double *)dmean, n, ld, m0, count,
                              (double *)dout) == COHORT_OK,
               "moments op");
        be->synchronize();
        be->copy_to_host(out, dout, 2 * count * sizeof *out);
        double worst = 0.0;
        for (int64_t k = 0; k < count; ++k) {
            /* the member is a deviation from mean[m]; its own mean is projected out */
            long double drift = 0.0L, s = 0.0L, q = 0.0L;
            for (int64_t i = 0; i < n; ++i) drift += u[i * ld + m0 + k];
            drift /= n;
            for (int64_t i = 0; i < n; ++i) {
                const long double c = (long double)u[i * ld + m0 + k] - drift + mean[m0 + k];
                s += c;
                q += c * c;
            }
            worst = fmax(worst,
                         fabs(out[k] - (double)(s / n)) + fabs(out[count + k] - (double)(q / n)));
        }
        EXPECT(worst <= 1e-14, "per-member moments on %s: error %.3e", be->name, worst);
    }
    if (be) {
        be->release(du);
        be->release(dmean);
        be->release(dout);
    }
    free(u);
    free(mean);
    free(out);
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    gsl_rng *rng = reference_rng_alloc("test_moments");
    enum { N = 5000 };
    double *x = malloc(N * sizeof *x);
    unsigned char *inc = malloc(N);
    for (int i = 0; i < N; ++i) x[i] = 3.0 + 0.01 * (2.0 * gsl_rng_uniform(rng) - 1.0) + (i % 3);

    /* Welford, Chan: against a two-pass long-double reference */
    double rm, rv;
    reference(x, N, &rm, &rv);
    moments all = {0, 0, 0}, left = {0, 0, 0}, right = {0, 0, 0};
    for (int i = 0; i < N; ++i) moments_add(&all, x[i]);
    for (int i = 0; i < 1234; ++i) moments_add(&left, x[i]);
    for (int i = 1234; i < N; ++i) moments_add(&right, x[i]);
    moments_merge(&left, &right);
    EXPECT(fabs(all.mean - rm) <= 1e-14 * fabs(rm) &&
               fabs(moments_variance(&all) - rv) <= 1e-12 * rv,
           "Welford: mean %.17g vs %.17g, variance %.17g vs %.17g", all.mean, rm,
           moments_variance(&all), rv);
    EXPECT(fabs(left.mean - rm) <= 1e-14 * fabs(rm) &&
               fabs(moments_variance(&left) - rv) <= 1e-12 * rv,
           "Chan merge: variance %.17g vs %.17g", moments_variance(&left), rv);
    EXPECT(fabs(moments_sem(&all) - sqrt(rv / N)) <= 1e-12 * sqrt(rv / N), "sem");
    moments one = {0, 0, 0};
    moments_add(&one, 1.0);
    EXPECT(isnan(moments_variance(&one)) && isnan(moments_sem(&one)), "one value: no variance");

    units_cases(x, N, rm, rv);
    moments t;
    /* diverged members are skipped, whatever the chunking */
    for (int i = 0; i < N; ++i) inc[i] = (i % 11) != 3;
    moments skip_ref = {0, 0, 0};
    for (int i = 0; i < N; ++i)
        if (inc[i]) moments_add(&skip_ref, x[i]);
    units_chunked(x, N, 1, 7, inc, &t);
    EXPECT(t.count == skip_ref.count && fabs(t.mean - skip_ref.mean) <= 1e-14 * fabs(rm),
           "include flags: %g of %d counted", t.count, N);
    moments_units b;
    EXPECT(moments_units_alloc(&b, 10, 1, 0, 10) == COHORT_OK, "alloc");
    EXPECT(moments_units_add(&b, 3, 2, x, NULL) == COHORT_OK, "members 0..2 passed over");
    EXPECT(moments_units_add(&b, 4, 1, x, NULL) == COHORT_ERR_INVALID_ARGUMENT, "member 4 again");
    EXPECT(moments_units_add(&b, 2, 1, x, NULL) == COHORT_ERR_INVALID_ARGUMENT, "out of order");
    EXPECT(moments_units_add(&b, 0, 11, x, NULL) == COHORT_ERR_INVALID_ARGUMENT, "past the end");
    moments_units_free(&b);
    EXPECT(moments_units_alloc(&b, 0, 1, 0, 1) == COHORT_ERR_EMPTY_BATCH, "no members");

    member_moments_case(be, rng);

    /* fields stored as themselves and larger than FIELD_SUM_SEQUENTIAL_MAX points: summed in
     * lanes, the lanes added by halving (fields_numerics.h), the same bits on every backend; the
     * order is written out again here, and the values checked against a long-double sum */
    {
        const int64_t big_n = 3 * FIELD_SUM_SEQUENTIAL_MAX + 17, big_ld = 5, big_m0 = 1,
                      big_count = 3;
        double *big = malloc(big_n * big_ld * sizeof *big), big_out[6];
        for (int64_t k = 0; k < big_n * big_ld; ++k) big[k] = 0.3 + gsl_rng_uniform(rng);
        void *dbig = NULL, *dbig_out = NULL;
        if (be && !be->alloc(&dbig, big_n * big_ld * sizeof *big) &&
            !be->alloc(&dbig_out, sizeof big_out)) {
            be->copy_to_device(dbig, big, big_n * big_ld * sizeof *big);
            be->fill((double *)dbig_out, NAN, 6);
            EXPECT(fields_moments(be, (const double *)dbig, NULL, big_n, big_ld, big_m0, big_count,
                                  (double *)dbig_out) == COHORT_OK,
                   "moments of large fields");
            be->synchronize();
            be->copy_to_host(big_out, dbig_out, sizeof big_out);
            for (int64_t k = 0; k < big_count; ++k) {
                double lane[FIELD_SUM_LANES], lane2[FIELD_SUM_LANES];
                long double s = 0.0L, q = 0.0L;
                for (int l = 0; l < FIELD_SUM_LANES; ++l) lane[l] = lane2[l] = 0.0;
                for (int64_t j = 0; j < big_n; ++j) {
                    const double c = big[j * big_ld + big_m0 + k];
                    lane[j % FIELD_SUM_LANES] += c;
                    lane2[j % FIELD_SUM_LANES] += c * c;
                    s += c;
                    q += (long double)c * c;
                }
                for (int h = FIELD_SUM_LANES / 2; h >= 1; h /= 2)
                    for (int l = 0; l < h; ++l) lane[l] += lane[l + h], lane2[l] += lane2[l + h];
                const double m1 = lane[0] / (double)big_n, m2 = lane2[0] / (double)big_n;
                EXPECT(big_out[k] == m1 && big_out[big_count + k] == m2,
                       "large field %lld on %s: <C> %.17g, <C^2> %.17g, in lane order %.17g, %.17g",
                       (long long)k, be->name, big_out[k], big_out[big_count + k], m1, m2);
                EXPECT(fabs(big_out[k] - (double)(s / big_n)) <= 1e-14 * fabs(m1) &&
                           fabs(big_out[big_count + k] - (double)(q / big_n)) <= 1e-14 * m2,
                       "large field %lld on %s: against the long-double sums", (long long)k,
                       be->name);
            }
        }
        if (be) be->release(dbig), be->release(dbig_out);
        free(big);
    }
    free(x);
    free(inc);
    gsl_rng_free(rng);
    return test_summary();
}
