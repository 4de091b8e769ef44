/* cohort_hd.h's shared functions, on the host, against long double references (each backend
 * computes them with the same operations, and test_cohort_hd checks the device's bits against
 * these): the reciprocal and the inverse square root within an ulp, sin(pi x) and cos(pi x)
 * within two, the fifth root within two; NaN for a non-finite reciprocal argument; exact values
 * at the quarter points. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "arithmetic_cases.h"
#include "backend/cohort_hd.h"
#include "test_common.h"

/* |got - want| in units of the last place of want rounded to double (the ulp of the smallest
 * normal where want is 0) */
static double ulps(double got, long double want)
{
    const double w = fabs((double)want);
    const double ulp = w > 0x1p-1022 ? nextafter(w, INFINITY) - w : 0x1p-1074;
    return (double)(fabsl((long double)got - want) / (long double)ulp);
}

static double worst_over(const double *x, int n, double (*error)(double), int *at)
{
    double worst = 0.0;
    for (int k = 0; k < n; ++k) {
        const double e = error(x[k]);
        if (!(e <= worst)) worst = e, *at = k;
    }
    return worst;
}

static double reciprocal_error(double x)
{
    return ulps(cohort_reciprocal(x), 1.0L / (long double)x);
}

static double inverse_sqrt_error(double x)
{
    return ulps(cohort_inverse_sqrt(x), 1.0L / sqrtl((long double)x));
}

/* sin(pi x) and cos(pi x) in long double from x's exact reduction to g = |f| <= 1/2 or
 * 1/2 - g, so that the zeros are exact too: sin(pi g) = sin(pi (1 - g)), cos(pi g) = sin(pi
 * (1/2 - g)) */
static double sincospi_error(double x)
{
    static const long double pi = 3.141592653589793238462643383279502884L;
    const long double f = (long double)x - 2.0L * rintl((long double)x / 2.0L); /* exact */
    const long double g = fabsl(f), sign = f < 0 ? -1.0L : 1.0L;
    const long double want_s = sign * sinl(pi * (g <= 0.5L ? g : 1.0L - g));
    const long double want_c = g <= 0.5L ? sinl(pi * (0.5L - g)) : -sinl(pi * (g - 0.5L));
    double s, c;
    cohort_sincospi(x, &s, &c);
    const double es = ulps(s, want_s), ec = ulps(c, want_c);
    return es > ec ? es : ec;
}

static double fifth_root_error(double x)
{
    return ulps(cohort_fifth_root(x), powl((long double)x, 1.0L / 5.0L));
}

static void check(const char *what, void (*fill)(double *), int finite, double (*error)(double),
                  double bound, double *x, unsigned seed)
{
    fill(x);
    int at = 0;
    const double worst = worst_over(x, ARITHMETIC_CASES - (finite ? 0 : 2), error, &at);
    EXPECT(worst <= bound, "%s: %.3f ulps at x = %.17g (seed %u)", what, worst, x[at], seed);
    printf("%s: largest error %.3f ulps over %d arguments\n", what, worst,
           ARITHMETIC_CASES - (finite ? 0 : 2));
}

int main(void)
{
    double *x = malloc(ARITHMETIC_CASES * sizeof *x);
    EXPECT(x, "host memory");
    if (!x) return test_summary();
    const unsigned seed = arithmetic_seed();
    srand(seed);
    printf("seed %u\n", seed);
    check("reciprocal", arithmetic_positive, 0, reciprocal_error, 1.0, x, seed);
    check("inverse square root", arithmetic_positive, 0, inverse_sqrt_error, 1.0, x, seed);
    EXPECT(isnan(cohort_reciprocal(INFINITY)) && isnan(cohort_inverse_sqrt(INFINITY)),
           "at infinity: %g, %g", cohort_reciprocal(INFINITY), cohort_inverse_sqrt(INFINITY));
    EXPECT(isnan(cohort_reciprocal(NAN)) && isnan(cohort_inverse_sqrt(NAN)), "at NaN");
    check("sin and cos of pi x", arithmetic_angles, 1, sincospi_error, 2.0, x, seed);
    double s, c;
    for (int q = -8; q <= 8; ++q) { /* the quarter points are exact */
        cohort_sincospi(0.5 * q, &s, &c);
        const int r = ((q % 4) + 4) % 4;
        EXPECT(s == (r == 1   ? 1.0
                     : r == 3 ? -1.0
                              : 0.0) &&
                   c == (r == 0   ? 1.0
                         : r == 2 ? -1.0
                                  : 0.0),
               "x = %g: sin %g, cos %g", 0.5 * q, s, c);
    }
    check("fifth root", arithmetic_ratios, 1, fifth_root_error, 2.0, x, seed);
    EXPECT(cohort_fifth_root(32.0) == 2.0 && cohort_fifth_root(1.0) == 1.0, "32^(1/5) = %.17g",
           cohort_fifth_root(32.0));
    free(x);
    return test_summary();
}
