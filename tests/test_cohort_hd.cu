/* The device's branch-free reciprocal and inverse square root (backend/cohort_hd.h: the hardware's
 * approximation and two Newton steps) against long double references on the host, on fresh
 * random arguments over the range the curvature flows use them on (1 <= x < 2^1000), powers of
 * two and their neighbours, and non-finite arguments (NaN). The bound is the one the derivation
 * gives: after two Newton steps from 23 bits the iteration error is far below an ulp, so what is
 * left is the last step's rounding, under an ulp. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "backend/cohort_hd.h"
#include "test_common.h"

__global__ void reciprocals_kernel(const double *x, double *reciprocal, double *inverse_sqrt, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    reciprocal[k] = cohort_reciprocal(x[k]);
    inverse_sqrt[k] = cohort_inverse_sqrt(x[k]);
}

/* |got - want| in units of the last place of want rounded to double */
static double ulps(double got, long double want)
{
    const double w = (double)want;
    return (double)(fabsl((long double)got - want) / (long double)(nextafter(w, INFINITY) - w));
}

int main(int argc, char **argv)
{
    test_backend(argc, argv, "cuda"); /* exit 77 without a device */
    enum { RANDOM = 1 << 20, SPECIAL = 3 * 64 + 2, N = RANDOM + SPECIAL };
    double *x = (double *)malloc(N * sizeof(double)), *r = (double *)malloc(N * sizeof(double)),
           *s = (double *)malloc(N * sizeof(double));
    EXPECT(x && r && s, "host memory");
    if (!x || !r || !s) return test_summary();
    /* log-uniform over [1, 2^1000): a fresh seed each run (COHORT_TEST_SEED to repeat one),
     * printed so that a failure reproduces */
    const char *given = getenv("COHORT_TEST_SEED");
    const unsigned seed = given ? (unsigned)strtoul(given, NULL, 10) : (unsigned)time(NULL);
    srand(seed);
    for (int k = 0; k < RANDOM; ++k) {
        const double u = ((double)rand() + 0.5) / ((double)RAND_MAX + 1.0);
        const double v = ((double)rand() + 0.5) / ((double)RAND_MAX + 1.0);
        x[k] = ldexp(1.0 + v, (int)(u * 999.0));
    }
    int q = RANDOM;
    for (int e = 0; e < 64; ++e) { /* 2^e and the doubles either side */
        const double p = ldexp(1.0, e * 15);
        x[q++] = p, x[q++] = nextafter(p, INFINITY), x[q++] = e ? nextafter(p, 0.0) : 1.5;
    }
    x[q++] = INFINITY, x[q++] = NAN;
    double *dx = NULL, *dr = NULL, *ds = NULL;
    cudaError_t err = cudaMalloc(&dx, N * sizeof(double));
    if (err == cudaSuccess) err = cudaMalloc(&dr, N * sizeof(double));
    if (err == cudaSuccess) err = cudaMalloc(&ds, N * sizeof(double));
    if (err == cudaSuccess) err = cudaMemcpy(dx, x, N * sizeof(double), cudaMemcpyHostToDevice);
    /* poisoned outputs: a result the kernel did not write is not a number the check accepts */
    if (err == cudaSuccess) err = cudaMemset(dr, 0x7f, N * sizeof(double));
    if (err == cudaSuccess) err = cudaMemset(ds, 0x7f, N * sizeof(double));
    if (err == cudaSuccess) {
        reciprocals_kernel<<<(N + 255) / 256, 256>>>(dx, dr, ds, N);
        err = cudaGetLastError();
    }
    if (err == cudaSuccess) err = cudaMemcpy(r, dr, N * sizeof(double), cudaMemcpyDeviceToHost);
    if (err == cudaSuccess) err = cudaMemcpy(s, ds, N * sizeof(double), cudaMemcpyDeviceToHost);
    EXPECT(err == cudaSuccess, "%s", cudaGetErrorString(err));
    double worst_r = 0.0, worst_s = 0.0;
    int at_r = 0, at_s = 0;
    for (int k = 0; err == cudaSuccess && k < N - 2; ++k) {
        const long double xl = (long double)x[k];
        const double er = ulps(r[k], 1.0L / xl), es = ulps(s[k], 1.0L / sqrtl(xl));
        if (!(er <= worst_r)) worst_r = er, at_r = k;
        if (!(es <= worst_s)) worst_s = es, at_s = k;
    }
    EXPECT(worst_r < 1.0, "reciprocal: %.3f ulps at x = %.17g (seed %u)", worst_r, x[at_r], seed);
    EXPECT(worst_s < 1.0, "inverse square root: %.3f ulps at x = %.17g (seed %u)", worst_s, x[at_s],
           seed);
    printf("largest errors over %d arguments (seed %u): reciprocal %.3f ulps, inverse square root "
           "%.3f ulps\n",
           N - 2, seed, worst_r, worst_s);
    EXPECT(isnan(r[N - 2]) && isnan(s[N - 2]), "at infinity: %g, %g", r[N - 2], s[N - 2]);
    EXPECT(isnan(r[N - 1]) && isnan(s[N - 1]), "at NaN: %g, %g", r[N - 1], s[N - 1]);
    cudaFree(dx), cudaFree(dr), cudaFree(ds);
    free(x), free(r), free(s);
    return test_summary();
}
