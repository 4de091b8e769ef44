/* What the GPU benchmarks share: checks that end the program on a failed CUDA, cuRAND or cohort
 * call (file:line and the library's message, exit 1), and the median of CUDA-event timings taken
 * after warm-up (METHOD: time with events after warm-up, report medians). */
#ifndef COHORT_BENCH_COMMON_H
#define COHORT_BENCH_COMMON_H

#include <cuda_runtime.h>
#include <curand.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "bench_check.h"

#define CHECK_CUDA(expr)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_RAND(expr)                                                                           \
    do {                                                                                           \
        curandStatus_t e_ = (expr);                                                                \
        if (e_ != CURAND_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #expr, (int)e_);         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef void (*bench_fn)(void *arg);

static inline int bench_compare_floats(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* restore(arg) untimed (NULL: nothing to restore), then run(arg) timed by CUDA events; warmup
 * times untimed, then reps times; the median in ms. times: scratch for reps floats. */
static inline float bench_median_ms(bench_fn restore, bench_fn run, void *arg, int warmup, int reps,
                                    float *times)
{
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    for (int r = 0; r < warmup; ++r) {
        if (restore) restore(arg);
        run(arg);
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
        if (restore) restore(arg);
        CHECK_CUDA(cudaEventRecord(start));
        run(arg);
        CHECK_CUDA(cudaEventRecord(stop));
        CHECK_CUDA(cudaEventSynchronize(stop));
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaEventElapsedTime(&times[r], start, stop));
    }
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
    qsort(times, (size_t)reps, sizeof(float), bench_compare_floats);
    return times[reps / 2];
}

#endif
