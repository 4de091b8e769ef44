/* The structure factor (analysis/structure_factor.h) on one backend, against a direct O(N^2) DFT
 * of random fields with random member means (even and odd N) to 1e-12 of the largest entry;
 * Parseval's identity; a unit cosine gives
 * |C^_1|^2 = 1/4; diverged members left out; bitwise the same for any chunking; the input is not
 * changed by the transform. Usage: test_structure_factor --backend cpu|cuda (77: no device). */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/structure_factor.h"
#include "backend/cohort_error.h"
#include "banded_reference.h"
#include "test_common.h"

#define DFT_RTOL 1e-12

/* The mean over included members of |(1/n) sum_j C_j e^{-2 pi i jk/n}|^2, C = u. */
static void reference_spectrum(const double *u, const unsigned char *include, int64_t n, int64_t m,
                               double *out)
{
    const double pi = acos(-1.0);
    int64_t active = 0;
    for (int64_t j = 0; j <= n / 2; ++j) out[j] = 0.0;
    for (int64_t g = 0; g < m; ++g) {
        if (include && !include[g]) continue;
        ++active;
        for (int64_t k = 0; k <= n / 2; ++k) {
            double re = 0.0, im = 0.0;
            for (int64_t j = 0; j < n; ++j) {
                const double a = 2.0 * pi * (double)((j * k) % n) / (double)n;
                re += u[j * m + g] * cos(a);
                im -= u[j * m + g] * sin(a);
            }
            re /= (double)n, im /= (double)n;
            out[k] += re * re + im * im;
        }
    }
    for (int64_t j = 0; j <= n / 2; ++j) out[j] /= (double)active;
}

/* S from the backend with members cut into chunks of `chunk`. */
static int backend_spectrum(const cohort_backend *be, const double *dev_u,
                            const unsigned char *include, int64_t n, int64_t m, int64_t chunk,
                            double *out, double *k1)
{
    structure_factor *sf = NULL;
    int rc = structure_factor_alloc(be, n, 1, 2.0 * acos(-1.0), m, chunk, m, 2, 1, &sf);
    int64_t active = 0;
    for (int64_t g = 0; g < m; ++g) active += include ? include[g] : 1;
    for (int64_t first = 0, count = 0; first < m && rc == COHORT_OK; first += count) {
        count = m - first < chunk ? m - first : chunk;
        rc = structure_factor_add(sf, 1, dev_u, first, count, first,
                                  include ? include + first : NULL);
    }
    if (rc == COHORT_OK) rc = structure_factor_result(sf, 1, active, out, k1);
    structure_factor_free(sf);
    return rc;
}

static void spectrum_case(const cohort_backend *be, gsl_rng *rng, int64_t n, int64_t m)
{
    const size_t values = (size_t)(n * m);
    double *u = malloc(values * sizeof(double)), *back = malloc(values * sizeof(double));
    unsigned char *include = malloc((size_t)m);
    double *ref = malloc((size_t)(n / 2 + 1) * sizeof(double));
    double *got = malloc((size_t)(n / 2 + 1) * sizeof(double)), *first_got = NULL;
    double *dev_u = NULL;
    for (int64_t g = 0; g < m; ++g) {
        const double mean = gsl_rng_uniform(rng) - 0.5;
        for (int64_t i = 0; i < n; ++i) u[i * m + g] = mean + gsl_rng_uniform(rng) * 2.0 - 1.0;
        include[g] = g % 17 != 3; /* some members "diverged" */
    }
    int rc = be->alloc((void **)&dev_u, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dev_u, u, values * sizeof(double));
    EXPECT(rc == COHORT_OK, "setup: %s", cohort_error_detail());
    reference_spectrum(u, include, n, m, ref);
    double scale = 0.0;
    for (int64_t j = 0; j <= n / 2; ++j) scale = fmax(scale, ref[j]);
    /* every chunking on its own (a failure does not hide the next); odd chunks start columns at
     * odd offsets, which cuFFT's alignment rule makes a case of their own */
    const int64_t chunks[] = {m, 1, 7, 333};
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0] && rc == COHORT_OK; ++c) {
        if (chunks[c] > m || (c > 0 && chunks[c] == m)) continue;
        double k1 = 0.0;
        for (int64_t j = 0; j <= n / 2; ++j) got[j] = NAN;
        const int chunk_rc = backend_spectrum(be, dev_u, include, n, m, chunks[c], got, &k1);
        EXPECT(chunk_rc == COHORT_OK, "n = %lld m = %lld chunk %lld: %s", (long long)n,
               (long long)m, (long long)chunks[c], cohort_error_detail());
        if (chunk_rc != COHORT_OK) continue;
        if (c == 0) {
            double worst = 0.0;
            for (int64_t j = 0; j <= n / 2; ++j)
                worst = isnan(got[j]) ? INFINITY : fmax(worst, fabs(got[j] - ref[j]) / scale);
            EXPECT(worst <= DFT_RTOL, "n = %lld: |S - DFT| / max S = %.3e", (long long)n, worst);
            const double k1_ref = structure_factor_k1(ref, n, 1, 2.0 * acos(-1.0));
            EXPECT(fabs(k1 - k1_ref) <= 1e-12 * k1_ref, "k1 %.17g vs %.17g", k1, k1_ref);
            first_got = malloc((size_t)(n / 2 + 1) * sizeof(double));
            if (first_got) memcpy(first_got, got, (size_t)(n / 2 + 1) * sizeof(double));
        } else if (first_got) {
            EXPECT(!memcmp(first_got, got, (size_t)(n / 2 + 1) * sizeof(double)),
                   "n = %lld: chunk %lld differs from one chunk", (long long)n,
                   (long long)chunks[c]);
        }
    }
    if (first_got) { /* Parseval: sum over all k of |C^|^2 = <C^2> */
        double lhs = first_got[0], rhs = 0.0;
        for (int64_t j = 1; j <= n / 2; ++j) lhs += (2 * j == n ? 1.0 : 2.0) * first_got[j];
        int64_t active = 0;
        for (int64_t g = 0; g < m; ++g)
            if (include[g]) {
                ++active;
                for (int64_t i = 0; i < n; ++i) rhs += u[i * m + g] * u[i * m + g] / (double)n;
            }
        rhs /= (double)active;
        EXPECT(fabs(lhs - rhs) <= 1e-12 * rhs, "Parseval n = %lld: %.17g vs %.17g", (long long)n,
               lhs, rhs);
    }
    if (rc == COHORT_OK) rc = be->copy_to_host(back, dev_u, values * sizeof(double));
    EXPECT(rc == COHORT_OK && !memcmp(back, u, values * sizeof(double)),
           "n = %lld: the transform changed its input", (long long)n);
    be->release(dev_u);
    free(u), free(back), free(include), free(ref), free(got), free(first_got);
}

/* C = cos(2 pi x / L): |C^_1|^2 = 1/4, all else 0 (to rounding), k1 = 2 pi / L. */
static void cosine_case(const cohort_backend *be)
{
    const int64_t n = 64, m = 3;
    double u[64 * 3], out[33], k1 = 0.0, *dev = NULL;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t g = 0; g < m; ++g) u[i * m + g] = cos(2.0 * acos(-1.0) * (double)i / n);
    int rc = be->alloc((void **)&dev, sizeof u);
    if (rc == COHORT_OK) rc = be->copy_to_device(dev, u, sizeof u);
    if (rc == COHORT_OK) rc = backend_spectrum(be, dev, NULL, n, m, m, out, &k1);
    EXPECT(rc == COHORT_OK, "cosine: %s", cohort_error_detail());
    EXPECT(fabs(out[1] - 0.25) < 1e-15, "|C^_1|^2 = %.17g, want 1/4", out[1]);
    double rest = 0.0;
    for (int j = 0; j <= 32; ++j) rest += j == 1 ? 0.0 : out[j];
    EXPECT(rest < 1e-28, "other modes hold %.3e", rest);
    EXPECT(fabs(k1 - 1.0) < 1e-14, "k1 = %.17g, want 1 (L = 2 pi)", k1);
    be->release(dev);
}

/* Chunking c's units' sums of eq. 6 against the DFT's (c == 0, kept in first) or, bitwise,
 * against chunking 0's. */
static void check_units(const structure_factor *sf, int64_t nx, int64_t ny, int64_t m, int64_t unit,
                        size_t c, const double *ref, double *first)
{
    const int64_t values = 2 * ((m + unit - 1) / unit);
    const double *got = sf->k1_units[0].host;
    if (c == 0) {
        double worst = 0.0;
        for (int64_t e = 0; e < values; ++e) worst = fmax(worst, fabs(got[e] - ref[e]) / ref[e]);
        EXPECT(worst <= DFT_RTOL, "2D %lldx%lld: units' sums of eq. 6 vs DFT: %.3e", (long long)nx,
               (long long)ny, worst);
        memcpy(first, got, (size_t)values * sizeof(double));
    } else {
        EXPECT(!memcmp(first, got, (size_t)values * sizeof(double)),
               "2D %lldx%lld: chunk %zu: the units' sums differ from one chunk's", (long long)nx,
               (long long)ny, c);
    }
}

/* 2D: the radial average and k1 against a direct DFT over every mode of the full spectrum, and
 * each unit's sums of eq. 6 (the bootstrap's) against the same DFT, member by member; chunkings
 * bitwise equal. */
static void spectrum2d_case(const cohort_backend *be, gsl_rng *rng, int64_t nx, int64_t ny)
{
    const int64_t m = 40, n = nx * ny, n_k = structure_factor_k_count(nx, ny);
    const double two_pi = 2.0 * acos(-1.0), length = 3.0;
    double *u = malloc((size_t)(n * m) * sizeof(double)),
           *power = calloc((size_t)n, sizeof(double));
    double *ref = calloc((size_t)n_k, sizeof(double)), *modes = calloc((size_t)n_k, sizeof(double));
    double *got = malloc((size_t)n_k * sizeof(double)),
           *first = malloc((size_t)n_k * sizeof(double));
    unsigned char *include = malloc((size_t)m);
    enum { UNIT = 4 };
    double unit_ref[2 * 40] = {0}, first_units[2 * 40];
    int64_t active = 0;
    for (int64_t g = 0; g < m; ++g) {
        const double mean = gsl_rng_uniform(rng) - 0.5;
        for (int64_t v = 0; v < n; ++v) u[v * m + g] = mean + gsl_rng_uniform(rng) * 2.0 - 1.0;
        include[g] = g % 7 != 2;
        active += include[g];
    }
    for (int64_t g = 0; g < m; ++g) /* direct DFT, every (jx, jy) */
        for (int64_t jy = 0; include[g] && jy < ny; ++jy)
            for (int64_t jx = 0; jx < nx; ++jx) {
                double re = 0.0, im = 0.0;
                for (int64_t y = 0; y < ny; ++y)
                    for (int64_t x = 0; x < nx; ++x) {
                        const double ph = -two_pi * ((double)(jx * x) / (double)nx +
                                                     (double)(jy * y) / (double)ny);
                        re += u[(y * nx + x) * m + g] * cos(ph);
                        im += u[(y * nx + x) * m + g] * sin(ph);
                    }
                const double p = (re * re + im * im) / ((double)n * (double)n);
                power[jy * nx + jx] += p / (double)active;
                const double sx = (double)(2 * jx <= nx ? jx : jx - nx),
                             sy = (double)(2 * jy <= ny ? jy : jy - ny), kk = hypot(sx, sy);
                if (kk > 0.0) /* member g's unit's sums of S and S / |k| */
                    unit_ref[2 * (g / UNIT)] += p,
                        unit_ref[2 * (g / UNIT) + 1] += p / (two_pi * kk / length);
            }
    double num = 0.0, den = 0.0, scale = 0.0;
    for (int64_t jy = 0; jy < ny; ++jy)
        for (int64_t jx = 0; jx < nx; ++jx) {
            const double sx = (double)(2 * jx <= nx ? jx : jx - nx);
            const double sy = (double)(2 * jy <= ny ? jy : jy - ny), kk = sqrt(sx * sx + sy * sy);
            const int64_t b = (int64_t)floor(kk + 0.5);
            ref[b] += power[jy * nx + jx];
            modes[b] += 1.0;
            if (kk > 0.0) {
                num += power[jy * nx + jx];
                den += power[jy * nx + jx] / (two_pi * kk / length);
            }
        }
    for (int64_t b = 0; b < n_k; ++b) {
        ref[b] /= modes[b];
        scale = fmax(scale, ref[b]);
    }
    double *dev = NULL;
    int rc = be->alloc((void **)&dev, (size_t)(n * m) * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dev, u, (size_t)(n * m) * sizeof(double));
    static const int64_t chunks[] = {40, 1, 7};
    for (size_t c = 0; c < 3 && rc == COHORT_OK; ++c) {
        structure_factor *sf = NULL;
        double k1 = 0.0;
        int crc = structure_factor_alloc(be, nx, ny, length, m, chunks[c], m, 1, UNIT, &sf);
        for (int64_t g0 = 0, count; crc == COHORT_OK && g0 < m; g0 += count) {
            count = m - g0 < chunks[c] ? m - g0 : chunks[c];
            crc = structure_factor_add(sf, 0, dev, g0, count, g0, include + g0);
        }
        if (crc == COHORT_OK) crc = structure_factor_result(sf, 0, active, got, &k1);
        if (crc == COHORT_OK) check_units(sf, nx, ny, m, UNIT, c, unit_ref, first_units);
        structure_factor_free(sf);
        EXPECT(crc == COHORT_OK, "2D %lldx%lld chunk %lld: %s", (long long)nx, (long long)ny,
               (long long)chunks[c], cohort_error_detail());
        if (crc != COHORT_OK) continue;
        if (c == 0) {
            double worst = 0.0;
            for (int64_t b = 0; b < n_k; ++b) worst = fmax(worst, fabs(got[b] - ref[b]) / scale);
            EXPECT(worst <= DFT_RTOL, "2D %lldx%lld: |S - DFT| / max S = %.3e", (long long)nx,
                   (long long)ny, worst);
            EXPECT(fabs(k1 - num / den) <= 1e-12 * k1, "2D k1 %.17g vs %.17g", k1, num / den);
            memcpy(first, got, (size_t)n_k * sizeof(double));
        } else {
            EXPECT(!memcmp(first, got, (size_t)n_k * sizeof(double)),
                   "2D %lldx%lld: chunk %lld differs from one chunk", (long long)nx, (long long)ny,
                   (long long)chunks[c]);
        }
    }
    be->release(dev);
    free(u), free(power), free(ref), free(modes), free(got), free(first), free(include);
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    gsl_rng *rng = reference_rng_alloc("test_structure_factor");
    static const int64_t sizes[] = {64, 63, 7, 256};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i)
        spectrum_case(be, rng, sizes[i], 1000);
    spectrum_case(be, rng, 64, 1); /* one member in all (ld = 1) */
    spectrum2d_case(be, rng, 12, 10);
    spectrum2d_case(be, rng, 9, 7); /* odd: no Nyquist rows or columns */
    spectrum2d_case(be, rng, 16, 5);
    cosine_case(be);
    gsl_rng_free(rng);
    return test_summary();
}
