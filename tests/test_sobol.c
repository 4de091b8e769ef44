/* analysis/sobol.c against the Ishigami function (Ishigami and Homma 1990), whose Sobol indices
 * are known in closed form (Sobol' and Levitan 1999): f = sin x1 + a sin^2 x2 + b x3^4 sin x1,
 * x uniform on [-pi, pi]^3, a = 7, b = 0.1. Also: the estimators against their formulas evaluated
 * directly over all base points, independence of the unit size, NaN without variance, and the
 * bootstrap intervals' coverage of the closed form. */
#include <math.h>
#include <stdlib.h>

#include "analysis/sobol.h"
#include "backend/philox.h"
#include "test_common.h"

enum { D = 3, BASE = 1 << 15 };
static const double pi = 3.14159265358979323846;

static double ishigami(const double *x)
{
    return sin(x[0]) + 7.0 * sin(x[1]) * sin(x[1]) + 0.1 * pow(x[2], 4) * sin(x[0]);
}

/* The closed form: V = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2, V1 = (1 + b pi^4/5)^2 / 2,
 * V2 = a^2/8, V3 = 0, VT1 = V1 + 8 b^2 pi^8 / 225, VT2 = V2, VT3 = 8 b^2 pi^8 / 225. */
static void closed_form(double *first, double *total)
{
    const double a = 7.0, b = 0.1, p4 = pow(pi, 4), p8 = pow(pi, 8);
    const double v = a * a / 8 + b * p4 / 5 + b * b * p8 / 18 + 0.5;
    const double v1 = 0.5 * (1 + b * p4 / 5) * (1 + b * p4 / 5), v2 = a * a / 8,
                 v13 = 8 * b * b * p8 / 225;
    first[0] = v1 / v, first[1] = v2 / v, first[2] = 0.0;
    total[0] = (v1 + v13) / v, total[1] = v2 / v, total[2] = v13 / v;
}

/* base point b's arms A, B, AB_j from independent Philox uniforms (plain Monte Carlo) */
static void arms_of(uint64_t seed, int64_t b, double *f)
{
    double a[D], bb[D], ab[D];
    for (int j = 0; j < D; ++j) {
        a[j] = pi * (2.0 * philox_uniform_value(seed, (uint64_t)b, (uint64_t)j) - 1.0);
        bb[j] = pi * (2.0 * philox_uniform_value(seed, (uint64_t)b, (uint64_t)(D + j)) - 1.0);
    }
    f[0] = ishigami(a), f[1] = ishigami(bb);
    for (int j = 0; j < D; ++j) {
        for (int c = 0; c < D; ++c) ab[c] = c == j ? bb[c] : a[c];
        f[2 + j] = ishigami(ab);
    }
}

/* Coverage over repeated seeds: 50 designs of 4,096 base points in 1,024 units (f: scratch). */
static void coverage_case(double *f, const double *exact_first, const double *exact_total)
{
    int covered = 0, intervals = 0;
    for (uint64_t seed = 100; seed < 150; ++seed) {
        sobol_units s;
        sobol_units_alloc(&s, D, 1024);
        for (int64_t b = 0; b < 4096; ++b) {
            arms_of(seed, b, f);
            sobol_units_add(&s, b / 4, f);
        }
        double first_ci[2 * D], total_ci[2 * D];
        sobol_intervals(&s, 200, seed, first_ci, total_ci);
        for (int j = 0; j < D; ++j, intervals += 2)
            covered +=
                (first_ci[2 * j] <= exact_first[j] && exact_first[j] <= first_ci[2 * j + 1]) +
                (total_ci[2 * j] <= exact_total[j] && exact_total[j] <= total_ci[2 * j + 1]);
        sobol_units_free(&s);
    }
    printf("coverage of the 95%% intervals over 50 seeds: %d of %d\n", covered, intervals);
    /* 95% of 300 is 285, its binomial standard deviation 3.8: 4 of them below is 270 */
    EXPECT(covered >= 270, "coverage %d of %d", covered, intervals);
}

/* No variance: NaN, not a division by zero; a diverged base point left out. */
static void degenerate_case(void)
{
    sobol_units flat;
    sobol_units_alloc(&flat, 1, 4);
    const double same[3] = {2.0, 2.0, 2.0}, diverged[3] = {1.0, NAN, 3.0};
    for (int b = 0; b < 4; ++b) sobol_units_add(&flat, b, b == 3 ? diverged : same);
    double first, total;
    sobol_indices(&flat, NULL, flat.n_units, &first, &total);
    EXPECT(isnan(first) && isnan(total) && flat.points[3] == 0.0,
           "no variance: NaN; a diverged base point left out");
    sobol_units_free(&flat);
}

int main(void)
{
    double exact_first[D], exact_total[D];
    closed_form(exact_first, exact_total);
    double *f = malloc((size_t)BASE * (D + 2) * sizeof *f);
    for (int64_t b = 0; b < BASE; ++b) arms_of(2026, b, f + b * (D + 2));

    /* the formulas directly: V of f_A and f_B together (divided by the count) */
    double mean = 0.0, var = 0.0, direct_first[D] = {0}, direct_total[D] = {0};
    for (int64_t b = 0; b < BASE; ++b) mean += f[b * (D + 2)] + f[b * (D + 2) + 1];
    mean /= 2.0 * BASE;
    for (int64_t b = 0; b < BASE; ++b)
        for (int arm = 0; arm < 2; ++arm)
            var += (f[b * (D + 2) + arm] - mean) * (f[b * (D + 2) + arm] - mean);
    var /= 2.0 * BASE;
    for (int64_t b = 0; b < BASE; ++b)
        for (int j = 0; j < D; ++j) {
            const double *p = f + b * (D + 2), change = p[2 + j] - p[0];
            direct_first[j] += p[1] * change / BASE, direct_total[j] += change * change / BASE;
        }
    for (int j = 0; j < D; ++j) direct_first[j] /= var, direct_total[j] /= 2.0 * var;

    const int64_t units[] = {1, 32, 1024};
    for (int u = 0; u < 3; ++u) {
        sobol_units s;
        EXPECT(sobol_units_alloc(&s, D, BASE / units[u]) == 0, "alloc");
        for (int64_t b = 0; b < BASE; ++b) sobol_units_add(&s, b / units[u], f + b * (D + 2));
        double first[D], total[D], first_ci[2 * D], total_ci[2 * D];
        sobol_indices(&s, NULL, s.n_units, first, total);
        for (int j = 0; j < D; ++j) {
            EXPECT(fabs(first[j] - direct_first[j]) <= 1e-12 &&
                       fabs(total[j] - direct_total[j]) <= 1e-12,
                   "unit %lld, x%d: first %.15g vs %.15g, total %.15g vs %.15g",
                   (long long)units[u], j + 1, first[j], direct_first[j], total[j],
                   direct_total[j]);
        }
        if (units[u] == 32) { /* 1,024 units: intervals that cover the closed form */
            EXPECT(sobol_intervals(&s, 400, 7, first_ci, total_ci) == 0, "intervals");
            for (int j = 0; j < D; ++j) {
                printf("x%d: first %.4f [%.4f, %.4f] (exact %.4f), total %.4f [%.4f, %.4f] "
                       "(exact %.4f)\n",
                       j + 1, first[j], first_ci[2 * j], first_ci[2 * j + 1], exact_first[j],
                       total[j], total_ci[2 * j], total_ci[2 * j + 1], exact_total[j]);
                EXPECT(first_ci[2 * j] <= exact_first[j] && exact_first[j] <= first_ci[2 * j + 1],
                       "x%d's first-order interval covers %.4f", j + 1, exact_first[j]);
                EXPECT(total_ci[2 * j] <= exact_total[j] && exact_total[j] <= total_ci[2 * j + 1],
                       "x%d's total interval covers %.4f", j + 1, exact_total[j]);
            }
        }
        sobol_units_free(&s);
    }

    coverage_case(f, exact_first, exact_total);
    degenerate_case();
    free(f);
    return test_summary();
}
