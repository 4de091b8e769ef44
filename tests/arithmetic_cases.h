/* The arguments on which test_arithmetic (host, against long double) and test_cohort_hd (device
 * against host, bit for bit) check cohort_hd.h's shared functions: fresh random ones over each
 * function's range (COHORT_TEST_SEED repeats a run), and the edges. */
#ifndef COHORT_ARITHMETIC_CASES_H
#define COHORT_ARITHMETIC_CASES_H

#include <math.h>
#include <stdlib.h>
#include <time.h>

enum { ARITHMETIC_RANDOM = 1 << 20, ARITHMETIC_EDGES = 3 * 64 + 2 };
enum { ARITHMETIC_CASES = ARITHMETIC_RANDOM + ARITHMETIC_EDGES };

static inline unsigned arithmetic_seed(void)
{
    const char *given = getenv("COHORT_TEST_SEED");
    return given ? (unsigned)strtoul(given, NULL, 10) : (unsigned)time(NULL);
}

static inline double arithmetic_uniform(void)
{
    return ((double)rand() + 0.5) / ((double)RAND_MAX + 1.0);
}

/* reciprocal and inverse square root: log-uniform over [1, 2^1000), powers of two and their
 * neighbours, infinity and NaN (the last two) */
static inline void arithmetic_positive(double *x)
{
    for (int k = 0; k < ARITHMETIC_RANDOM; ++k) {
        const double u = arithmetic_uniform();
        x[k] = ldexp(1.0 + arithmetic_uniform(), (int)(u * 999.0));
    }
    int q = ARITHMETIC_RANDOM;
    for (int e = 0; e < 64; ++e) {
        const double p = ldexp(1.0, e * 15);
        x[q++] = p, x[q++] = nextafter(p, INFINITY), x[q++] = e ? nextafter(p, 0.0) : 1.5;
    }
    x[q++] = INFINITY, x[q++] = NAN;
}

/* sin(pi x), cos(pi x): uniform over [-4, 4], then over [-1e6, 1e6] (times t of long runs); the
 * quarter points and their neighbours; 2^52 + 0.5 and 2^60 */
static inline void arithmetic_angles(double *x)
{
    for (int k = 0; k < ARITHMETIC_RANDOM; ++k)
        x[k] = (2.0 * arithmetic_uniform() - 1.0) * (k % 2 ? 4.0 : 1e6);
    int q = ARITHMETIC_RANDOM;
    for (int e = 0; e < 64; ++e) {
        const double p = 0.25 * (e - 32);
        x[q++] = p, x[q++] = nextafter(p, INFINITY), x[q++] = nextafter(p, -INFINITY);
    }
    x[q++] = 0x1p52 + 0.5, x[q++] = 0x1p60;
}

/* the fifth root's range [2^-120, 2^20]: log-uniform, powers of two, and the two ends */
static inline void arithmetic_ratios(double *x)
{
    for (int k = 0; k < ARITHMETIC_RANDOM; ++k)
        x[k] = ldexp(1.0 + arithmetic_uniform(), (int)(arithmetic_uniform() * 140.0) - 120);
    int q = ARITHMETIC_RANDOM;
    for (int e = 0; e < 64; ++e) {
        const double p = ldexp(1.0, 20 - 2 * e);
        x[q++] = p, x[q++] = nextafter(p, INFINITY), x[q++] = nextafter(p, 0.0);
    }
    x[q++] = 0x1p-120, x[q++] = 0x1p20;
}

#endif
