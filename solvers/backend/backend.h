/* Backends: a static const table of operations per kind of hardware, chosen at run time
 * (SUNDIALS' ops-table pattern). `cpu` (OpenMP) is always built; `cuda` is built when nvcc is
 * found (COHORT_HAVE_CUDA) and is usable when a device is present. Every operation returns a
 * cohort status. Memory handed out by a backend lives where its batched operations run.
 *
 * This table holds only what every module needs: the device, memory, copies, fill,
 * synchronisation, the noise stream and the interleaved layout. Each module (banded, stencil,
 * fields, the models, the analyses) keeps its own kernels beside its interface, a table per
 * backend (<module>_kernels_cpu in <module>_cpu.c, <module>_kernels_cuda in <module>_cuda.cu),
 * and picks one by the backend's kind with COHORT_KERNELS. */
#ifndef COHORT_BACKEND_H
#define COHORT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { COHORT_BACKEND_CPU = 0, COHORT_BACKEND_CUDA = 1 } cohort_backend_kind;

typedef struct cohort_backend {
    const char *name;
    cohort_backend_kind kind;
    /* A one-line description of the hardware ("NVIDIA H100 80GB HBM3, 132 SMs, 79.1 GiB"). */
    int (*describe)(char *buf, size_t len);
    int (*mem_info)(size_t *free_bytes, size_t *total_bytes);
    int (*alloc)(void **ptr, size_t bytes);
    int (*release)(void *ptr); /* NULL is allowed */
    int (*copy_to_device)(void *dst, const void *src, size_t bytes);
    int (*copy_to_host)(void *dst, const void *src, size_t bytes);
    int (*copy_within)(void *dst, const void *src, size_t bytes);
    int (*fill)(double *dst, double value, size_t count);
    int (*synchronize)(void);
    /* out[k * n + i] = philox_uniform_value(seed, s, i) (backend/philox.h) for k < count and
     * i < n, s = layout_noise_stream(first + k, arms, replicates) (layout_numerics.h; arms = 1:
     * first + k): the noise of global members [first, first + count), member-major, uniform in
     * (0, 1]; Random123 on cpu, cuRAND's device API on cuda, the same bits on both. */
    int (*uniform_members)(double *out, int64_t n, int64_t first, int64_t count, uint64_t seed,
                           int64_t arms, int64_t replicates);
    /* dst[i * ld + m] = scale * src[(m - m0) * member_stride + i] + shift, for i < n and m in
     * [m0, m0 + count), then minus the member's mean over i when remove_mean, then times
     * member_scale[m - m0] (NULL: 1): member-major values (member_stride = n) or one column for
     * all (member_stride = 0) into the interleaved layout. */
    int (*interleave)(const double *src, int64_t member_stride, double scale, double shift,
                      int remove_mean, const double *member_scale, double *dst, int64_t n,
                      int64_t ld, int64_t m0, int64_t count);
} cohort_backend;

extern const cohort_backend cohort_backend_cpu;

/* The kernel table of a module for backend be: <table>_cuda on the cuda backend (built with
 * COHORT_HAVE_CUDA only), else <table>_cpu. */
#ifdef COHORT_HAVE_CUDA
#    define COHORT_KERNELS(be, table)                                                              \
        ((be)->kind == COHORT_BACKEND_CUDA ? &table##_cuda : &table##_cpu)
#else
#    define COHORT_KERNELS(be, table) ((void)(be), &table##_cpu)
#endif

/* name: "auto" (cuda when a device is present, else cpu), "cpu" or "cuda". Errors:
 * COHORT_ERR_UNKNOWN_BACKEND, COHORT_ERR_NO_DEVICE (cuda asked for but not built in, or no
 * device, with the reason in the error detail). */
int cohort_backend_get(const char *name, const cohort_backend **out);

/* The cpu backend's threads (OpenMP). cohort_cpu_share_node: this process is one of `ranks` on
 * its node (MPI), so that ranks x threads stay within the node's processors. cohort_cpu_size:
 * the threads for a run whose steps touch `values` values, one for each COHORT_CPU_GRAIN of them
 * (a starter's 64 members of 256 points run on one), at most the processors' share of this rank;
 * where OMP_NUM_THREADS is set, exactly that. Call before the run's buffers and plans are made:
 * they size per-thread scratch by the threads. Returns the threads. */
enum { COHORT_CPU_GRAIN = 65536 };
void cohort_cpu_share_node(int ranks);
int cohort_cpu_size(int64_t values);
/* "2 processors, up to 2 OpenMP threads (...)": what cohort --version says of them. */
void cohort_cpu_describe_threads(char *buf, size_t len);
/* "arithmetic: generation N, ...; the cpu backend's fused multiply-adds by ..." (cohort
 * --version): how this build's cpu backend forms cohort_mul_add (backend/cohort_hd.h). */
void cohort_cpu_describe_arithmetic(char *buf, size_t len);

/* 1 when this build has the cuda backend and a device is usable; `why` (may be NULL) receives
 * the reason when not. */
int cohort_cuda_usable(char *why, size_t len);

/* One process per GPU (MPI ranks on a node): makes device local_rank % (devices) the current one
 * before any other CUDA call, so that the node's ranks spread over its devices. Returns the
 * device chosen, or -1 where this build or machine has none. */
int cohort_cuda_select(int local_rank);

/* Seconds on the monotonic clock (wall time between two calls: progress, timings). */
double cohort_seconds(void);

/* "CUDA runtime 13.0, driver 13.0", or why there is none: for --version and file metadata. */
void cohort_cuda_versions(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
