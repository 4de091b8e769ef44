/* The cpu backend: host memory, OpenMP fills and layout, the noise stream by Random123. The
 * modules' cpu kernels are in their own folders (<module>_cpu.c). */
#define _POSIX_C_SOURCE 200809L
#include "backend/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#    include <omp.h>
#endif

#include "backend/cohort_error.h"
#include "backend/cohort_hd.h"
#include "backend/layout_numerics.h"
#include "backend/philox.h"

static int cpu_describe(char *buf, size_t len)
{
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    snprintf(buf, len, "CPU, %d OpenMP thread%s", threads, threads == 1 ? "" : "s");
    return COHORT_OK;
}

/* the node's processors shared among its ranks (cohort_cpu_share_node) */
static int node_ranks = 1;

void cohort_cpu_share_node(int ranks)
{
    node_ranks = ranks > 1 ? ranks : 1;
}

/* The most threads this process may use: OMP_NUM_THREADS where given, else its share of the
 * processors. */
/* OMP_NUM_THREADS set to something (libgomp ignores it empty) */
static int threads_given(void)
{
    const char *given = getenv("OMP_NUM_THREADS");
    return given && *given;
}

static int cpu_threads_allowed(void)
{
#ifdef _OPENMP
    if (threads_given()) return omp_get_max_threads();
    const int share = omp_get_num_procs() / node_ranks;
    return share > 1 ? share : 1;
#else
    return 1;
#endif
}

int cohort_cpu_size(int64_t values)
{
    static int allowed = 0; /* the first call's allowance holds for the process */
    if (!allowed) allowed = cpu_threads_allowed();
    if (threads_given()) return allowed; /* the user's, as given */
    const int64_t wanted = (values + COHORT_CPU_GRAIN - 1) / COHORT_CPU_GRAIN;
    const int threads = wanted < 1 ? 1 : wanted < allowed ? (int)wanted : allowed;
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    return threads;
}

void cohort_cpu_describe_arithmetic(char *buf, size_t len)
{
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA)
    const char *fma_by = "the processor's FMA instructions";
#else
    const char *fma_by = "the C library's fma (built with COHORT_CPU_FMA=OFF, or without FMA)";
#endif
    snprintf(buf, len,
             "arithmetic: generation %d, the same bits on the cpu and cuda backends; the cpu "
             "backend's fused multiply-adds by %s",
             COHORT_ARITHMETIC, fma_by);
}

void cohort_cpu_describe_threads(char *buf, size_t len)
{
#ifdef _OPENMP
    const char *spin = getenv("GOMP_SPINCOUNT"), *policy = getenv("OMP_WAIT_POLICY");
    snprintf(buf, len,
             "cpu backend: %d processors, up to %d OpenMP threads a run%s (one for each %d values "
             "a step); waiting threads %s%s%s",
             omp_get_num_procs(), cpu_threads_allowed(),
             threads_given() ? " (OMP_NUM_THREADS)" : "", COHORT_CPU_GRAIN,
             policy ? "follow OMP_WAIT_POLICY = "
             : spin ? "spin GOMP_SPINCOUNT = "
                    : "spin, then sleep",
             policy ? policy
             : spin ? spin
                    : "",
             policy || spin ? ", then sleep" : "");
#else
    snprintf(buf, len, "cpu backend: one thread (built without OpenMP)");
#endif
}

static int cpu_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    long page = sysconf(_SC_PAGESIZE), avail = sysconf(_SC_AVPHYS_PAGES);
    long total = sysconf(_SC_PHYS_PAGES);
    if (page <= 0 || avail < 0 || total <= 0)
        return COHORT_FAIL(COHORT_ERR_IO, "sysconf cannot report the host memory");
    if (free_bytes) *free_bytes = (size_t)avail * (size_t)page;
    if (total_bytes) *total_bytes = (size_t)total * (size_t)page;
    return COHORT_OK;
}

static int cpu_alloc(void **ptr, size_t bytes)
{
    if (!ptr) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "ptr is NULL");
    *ptr = NULL;
    int rc = posix_memalign(ptr, 64, bytes ? bytes : 64);
    if (rc != 0)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "cannot allocate %zu bytes of host memory: %s",
                           bytes, strerror(rc));
    return COHORT_OK;
}

static int cpu_release(void *ptr)
{
    free(ptr);
    return COHORT_OK;
}

/* Copies of at least CPU_COPY_SPLIT_BYTES go in pieces of that size over the OpenMP threads: one
 * core's memcpy reaches a fraction of the host's memory bandwidth. */
enum { CPU_COPY_SPLIT_BYTES = 1 << 20 };

static int cpu_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes < 2 * (size_t)CPU_COPY_SPLIT_BYTES) {
        if (bytes) memcpy(dst, src, bytes);
        return COHORT_OK;
    }
    const long pieces = (long)((bytes + CPU_COPY_SPLIT_BYTES - 1) / CPU_COPY_SPLIT_BYTES);
#pragma omp parallel for schedule(static)
    for (long p = 0; p < pieces; ++p) {
        const size_t at = (size_t)p * CPU_COPY_SPLIT_BYTES;
        const size_t len = bytes - at < CPU_COPY_SPLIT_BYTES ? bytes - at : CPU_COPY_SPLIT_BYTES;
        memcpy((char *)dst + at, (const char *)src + at, len);
    }
    return COHORT_OK;
}

static int cpu_fill(double *dst, double value, size_t count)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; ++i) dst[i] = value;
    return COHORT_OK;
}

static int cpu_synchronize(void)
{
    return COHORT_OK;
}

static int cpu_uniform_members(double *out, int64_t n, int64_t first, int64_t count, uint64_t seed,
                               int64_t arms, int64_t replicates)
{
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < count; ++k) {
        const uint64_t stream = (uint64_t)layout_noise_stream(first + k, arms, replicates);
        for (int64_t i = 0; i < n; ++i)
            out[k * n + i] = philox_uniform_value(seed, stream, (uint64_t)i);
    }
    return COHORT_OK;
}

static int cpu_interleave(const double *src, int64_t member_stride, double scale, double shift,
                          int remove_mean, const double *member_scale, double *dst, int64_t n,
                          int64_t ld, int64_t m0, int64_t count)
{
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < count; ++k)
        layout_interleave_member(src + k * member_stride, scale, shift, remove_mean,
                                 member_scale ? member_scale[k] : 1.0, dst + m0 + k, n, ld);
    return COHORT_OK;
}

const cohort_backend cohort_backend_cpu = {
    .name = "cpu",
    .kind = COHORT_BACKEND_CPU,
    .describe = cpu_describe,
    .mem_info = cpu_mem_info,
    .alloc = cpu_alloc,
    .release = cpu_release,
    .copy_to_device = cpu_copy,
    .copy_to_host = cpu_copy,
    .copy_within = cpu_copy,
    .fill = cpu_fill,
    .synchronize = cpu_synchronize,
    .uniform_members = cpu_uniform_members,
    .interleave = cpu_interleave,
};
