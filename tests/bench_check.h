/* What every benchmark shares, CUDA-free (bench_common.h adds the CUDA and cuRAND ones): a failed
 * cohort call ends the program with file:line and the error detail, exit 1; medians; the
 * backend's copy bandwidth, the floor the benchmarks compare against; the rows of the one table
 * that `make -f Makefile.workflow bench` builds from every benchmark (workflows/bench_table.py). */
#ifndef COHORT_BENCH_CHECK_H
#define COHORT_BENCH_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "backend/cohort_error.h"

#define CHECK_COHORT(expr)                                                                         \
    do {                                                                                           \
        int e_ = (expr);                                                                           \
        if (e_ != COHORT_OK) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cohort_error_detail());  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static inline int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef void (*bench_host_fn)(void *arg);

/* run(arg) on the host's clock, each of 5 times after restore(arg) (untimed; NULL: none): the
 * median, ms. For cpu work that takes too long to warm up and repeat as the GPU timings do. */
static inline double bench_host_median_ms(bench_host_fn restore, bench_host_fn run, void *arg)
{
    double times[5];
    for (int k = 0; k < 5; ++k) {
        if (restore) restore(arg);
        const double start = cohort_seconds();
        run(arg);
        times[k] = cohort_seconds() - start;
    }
    qsort(times, 5, sizeof *times, compare_doubles);
    return 1e3 * times[2];
}

/* One copy of bench_copy_ms, timed by bench_host_median_ms: the backend's queue drained first. */
typedef struct bench_copy {
    const cohort_backend *be;
    void *dst;
    const void *src;
    size_t bytes;
} bench_copy;

static inline void bench_copy_drain(void *arg)
{
    CHECK_COHORT(((const bench_copy *)arg)->be->synchronize());
}

static inline void bench_copy_run(void *arg)
{
    const bench_copy *c = (const bench_copy *)arg;
    CHECK_COHORT(c->be->copy_within(c->dst, c->src, c->bytes));
    CHECK_COHORT(c->be->synchronize());
}

/* be's copy of `bytes` from src to dst within its memory, median of 5 after one warm-up, ms: the
 * floor of a pass over data of that size, in the caches where it fits as the pass finds it */
static inline double bench_copy_ms(const cohort_backend *be, void *dst, const void *src,
                                   size_t bytes)
{
    bench_copy c = {be, dst, src, bytes};
    CHECK_COHORT(be->copy_within(dst, src, bytes));
    return bench_host_median_ms(bench_copy_drain, bench_copy_run, &c);
}

/* be's copy of 1 GiB within its memory (read + write counted), median of 5, GB/s */
static inline double bench_copy_bandwidth(const cohort_backend *be)
{
    const size_t bytes = (size_t)1 << 30;
    double *a = NULL, *b = NULL;
    CHECK_COHORT(be->alloc((void **)&a, bytes));
    CHECK_COHORT(be->alloc((void **)&b, bytes));
    CHECK_COHORT(be->fill(a, 1.0, bytes / sizeof(double)));
    const double ms = bench_copy_ms(be, b, a, bytes);
    be->release(a), be->release(b);
    return 2.0 * (double)bytes / ms * 1e-6;
}

static inline void bench_csv_text(FILE *f, const char *text)
{
    fputc('"', f);
    for (const char *c = text ? text : ""; *c; ++c) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

/* One row of the benchmark table, appended to the CSV file $COHORT_BENCH_TABLE names (nothing
 * where it is unset): `workload` took `ms`, against the floor floor_ms (what bounds it from below,
 * said by `basis`: a copy of the bytes it must move, the FP64 rate; floor_ms <= 0: none stated)
 * and a peer (cuSPARSE, the seed paper's figure; NULL or peer_ms <= 0: none). */
static inline void bench_table_row(const char *program, const char *workload, double ms,
                                   double floor_ms, const char *basis, const char *peer,
                                   double peer_ms)
{
    const char *path = getenv("COHORT_BENCH_TABLE");
    if (!path || !*path) return;
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "%s: cannot append to %s (COHORT_BENCH_TABLE)\n", program, path);
        exit(1);
    }
    bench_csv_text(f, program), fputc(',', f), bench_csv_text(f, workload);
    fprintf(f, ",%.6g,", ms);
    if (floor_ms > 0.0) fprintf(f, "%.6g", floor_ms);
    fputc(',', f), bench_csv_text(f, floor_ms > 0.0 ? basis : ""), fputc(',', f);
    bench_csv_text(f, peer && peer_ms > 0.0 ? peer : ""), fputc(',', f);
    if (peer && peer_ms > 0.0) fprintf(f, "%.6g", peer_ms);
    fputc('\n', f);
    if (fclose(f) != 0) {
        fprintf(stderr, "%s: cannot write %s (COHORT_BENCH_TABLE)\n", program, path);
        exit(1);
    }
}

#endif
