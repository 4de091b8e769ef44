/* cohort_hd.h's shared functions on the device against the same functions on the host, bit for
 * bit (one arithmetic: tests/test_arithmetic.c holds the host's accuracy against long double), on
 * fresh random arguments over each function's range and its edges (tests/arithmetic_cases.h):
 * the reciprocal and inverse square root (NaN at infinity and NaN), sin(pi x) and cos(pi x), the
 * fifth root of the step-size control, and the fused multiply-add itself. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arithmetic_cases.h"
#include "backend/cohort_hd.h"
#include "test_common.h"

enum { FUNCTIONS = 6 }; /* reciprocal, inverse sqrt, sin pi, cos pi, fifth root, fma */

/* The functions of one argument triple a (positive, angle, ratio) into o, on either side. */
COHORT_HD void shared_functions(const double *a, double *o)
{
    o[0] = cohort_reciprocal(a[0]);
    o[1] = cohort_inverse_sqrt(a[0]);
    cohort_sincospi(a[1], &o[2], &o[3]);
    o[4] = cohort_fifth_root(a[2]);
    o[5] = cohort_mul_add(a[1], a[2], a[0]);
}

__global__ void shared_functions_kernel(const double *x, double *out, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) shared_functions(x + k * 3, out + k * FUNCTIONS);
}

int main(int argc, char **argv)
{
    test_backend(argc, argv, "cuda"); /* exit 77 without a device */
    const int n = ARITHMETIC_CASES;
    double *column = (double *)malloc(n * sizeof(double));
    double *x = (double *)malloc((size_t)n * 3 * sizeof(double));
    double *got = (double *)malloc((size_t)n * FUNCTIONS * sizeof(double));
    EXPECT(column && x && got, "host memory");
    if (!column || !x || !got) return test_summary();
    const unsigned seed = arithmetic_seed();
    srand(seed);
    void (*fill[3])(double *) = {arithmetic_positive, arithmetic_angles, arithmetic_ratios};
    for (int c = 0; c < 3; ++c) {
        fill[c](column);
        for (int k = 0; k < n; ++k) x[k * 3 + c] = column[k];
    }
    double *dx = NULL, *dout = NULL;
    const size_t out_bytes = (size_t)n * FUNCTIONS * sizeof(double);
    cudaError_t err = cudaMalloc(&dx, (size_t)n * 3 * sizeof(double));
    if (err == cudaSuccess) err = cudaMalloc(&dout, out_bytes);
    if (err == cudaSuccess)
        err = cudaMemcpy(dx, x, (size_t)n * 3 * sizeof(double), cudaMemcpyHostToDevice);
    /* poisoned outputs: a result the kernel did not write is not one the check accepts */
    if (err == cudaSuccess) err = cudaMemset(dout, 0x7f, out_bytes);
    if (err == cudaSuccess) {
        shared_functions_kernel<<<(n + 255) / 256, 256>>>(dx, dout, n);
        err = cudaGetLastError();
    }
    if (err == cudaSuccess) err = cudaMemcpy(got, dout, out_bytes, cudaMemcpyDeviceToHost);
    EXPECT(err == cudaSuccess, "%s", cudaGetErrorString(err));
    static const char *const names[FUNCTIONS] = {"reciprocal", "inverse square root", "sin pi",
                                                 "cos pi",     "fifth root",          "fma"};
    long differing[FUNCTIONS] = {0};
    int first[FUNCTIONS];
    for (int f = 0; f < FUNCTIONS; ++f) first[f] = -1;
    for (int k = 0; err == cudaSuccess && k < n; ++k) {
        double want[FUNCTIONS];
        shared_functions(x + k * 3, want);
        for (int f = 0; f < FUNCTIONS; ++f)
            if (memcmp(&want[f], &got[k * FUNCTIONS + f], sizeof(double)) != 0) {
                if (first[f] < 0) first[f] = k;
                ++differing[f];
            }
    }
    for (int f = 0; f < FUNCTIONS; ++f)
        EXPECT(differing[f] == 0,
               "%s: %ld of %d arguments differ from the host's, first at %.17g "
               "(seed %u)",
               names[f], differing[f], n, first[f] >= 0 ? x[first[f] * 3] : 0.0, seed);
    printf("%d arguments (seed %u): the device's bits are the host's for all %d functions unless "
           "a failure above says otherwise\n",
           n, seed, FUNCTIONS);
    cudaFree(dx), cudaFree(dout);
    free(column), free(x), free(got);
    return test_summary();
}
