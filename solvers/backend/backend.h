/* Backends: a static const table of operations per kind of hardware, chosen at run time
 * (SUNDIALS' ops-table pattern). `cpu` (OpenMP) is always built; `cuda` is built when nvcc is
 * found (COHORT_HAVE_CUDA) and is usable when a device is present. Every operation returns a
 * cohort status. Memory handed out by a backend lives where its batched operations run. */
#ifndef COHORT_BACKEND_H
#define COHORT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct banded_view;
struct model1d_rhs;
struct stencil_view;
struct stencil_op_args;

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
    /* out[k * n + i] = philox_uniform_value(seed, first + k, i) (backend/philox.h) for k < count
     * and i < n: the noise of global members [first, first + count), member-major, uniform in
     * (0, 1]; Random123 on cpu, cuRAND's device API on cuda, the same bits on both. */
    int (*uniform_members)(double *out, int64_t n, int64_t first, int64_t count, uint64_t seed);
    /* dst[i * ld + m] = scale * src[(m - m0) * member_stride + i] + shift, for i < n and m in
     * [m0, m0 + count), then minus the member's mean over i when remove_mean, then times
     * member_scale[m - m0] (NULL: 1): member-major values (member_stride = n) or one column for
     * all (member_stride = 0) into the interleaved layout. */
    int (*interleave)(const double *src, int64_t member_stride, double scale, double shift,
                      int remove_mean, const double *member_scale, double *dst, int64_t n,
                      int64_t ld, int64_t m0, int64_t count);
    /* Batched operations. Arguments are validated by the caller (banded_solver_solve): members
     * [m0, m0 + count) of `groups` batches, batch g at u + g * group_stride (the x lines of 2D
     * members: one batch per y row). */
    int (*banded_solve)(const struct banded_view *v, double *u, int64_t ld, int64_t m0,
                        int64_t count, int64_t groups, int64_t group_stride);
    /* One step of a 1D periodic model (model1d_numerics.h), out of place: out = A^{-1} f(u) for
     * members [m0, m0 + count), f the explicit right-hand side r of u and A the shared banded
     * left-hand side whose factor v is in the backend's memory (n = v->n points per member). u
     * holds each member's deviation from mean[m], the deviation's own mean projected out (mean =
     * NULL: u is the field, nothing projected); member_f0[m] (NULL: r->f0) is each member's
     * forcing amplitude; u and out do not overlap. */
    int (*model1d_step)(const struct model1d_rhs *r, const struct banded_view *v, const double *u,
                        double *out, const double *mean, const double *member_f0, int64_t ld,
                        int64_t m0, int64_t count);
    /* out[k] = <C> and out[count + k] = <C^2> of member m0 + k (model1d_member_moments), u holding
     * deviations from mean[m] (NULL: u is the field); out in the backend's memory. */
    int (*model1d_moments)(const double *u, const double *mean, int64_t n, int64_t ld, int64_t m0,
                           int64_t count, double *out);
    /* Power spectra of periodic members of nx x ny points (1D: ny = 1): a plan for batches of up
     * to max_count members at leading dimension ld (cuFFT D2Z over the interleaved layout on
     * cuda, GSL's mixed-radix FFTs on cpu); then power[r * count + j] = |C^|^2 (reduction_power,
     * normalised by nx ny) of member m0 + j of the field u at the half-spectrum row
     * r = ky (nx/2 + 1) + kx, kx = 0 .. nx/2, ky = 0 .. ny-1, in the backend's memory. */
    int (*spectrum_plan_alloc)(int64_t nx, int64_t ny, int64_t ld, int64_t max_count, void **plan);
    void (*spectrum_plan_free)(void *plan);
    int (*spectrum_power)(void *plan, const double *u, int64_t m0, int64_t count, double *power);
    /* out = the fields of members [m0, m0 + count) of u (deviations from mean[m], the
     * deviation's own mean projected out, as model1d_member_moments): what archives store. */
    int (*model1d_field)(const double *u, const double *mean, int64_t n, int64_t ld, int64_t m0,
                         int64_t count, double *out);
    /* The ordered block fold: for each row r < rows, each local block b of the global members
     * [first, first + count) cut at multiples of `block` (reduction_block_range), and each class
     * c < classes: sums[(b * classes + c) * rows + r] += x[r * ld + m0 + j] over the members j of
     * the block with cls[j] == c, one at a time in member order (cls = NULL: all class 0;
     * REDUCTION_SKIP: left out). Because a sum carried over from the previous call continues in
     * the same order, the result does not depend on where calls cut the members. x, cls and sums
     * in the backend's memory; classes <= REDUCTION_MAX_CLASSES. */
    int (*block_fold)(const double *x, int64_t rows, int64_t ld, int64_t m0, int64_t count,
                      int64_t first, int64_t block, int classes, const unsigned char *cls,
                      double *sums);
    /* labels[j] and dist2[j]: the nearest of k centroids (k x n, row-major, backend memory) to
     * member m0 + j of x and its squared distance (reduction_nearest_centroid). */
    int (*nearest_centroid)(const double *x, int64_t n, int64_t ld, int64_t m0, int64_t count,
                            const double *centroids, int k, unsigned char *labels, double *dist2);
    /* 2D stencils (stencil/stencil_numerics.h) on members [m0, m0 + count) of interleaved
     * nx x ny fields: out = the weights stencil of in, or point operator `op` (a stencil_op) of
     * a->in; periodic, or bounded (points whose stencil leaves the field are not written). out
     * must not overlap an input that the operator reads at neighbouring points. */
    int (*stencil_weights)(const struct stencil_view *v, const double *in, double *out, int64_t ld,
                           int64_t m0, int64_t count);
    int (*stencil_operator)(int op, const struct stencil_op_args *a, int periodic, double *out,
                            int64_t nx, int64_t ny, int64_t ld, int64_t m0, int64_t count);
} cohort_backend;

extern const cohort_backend cohort_backend_cpu;

/* name: "auto" (cuda when a device is present, else cpu), "cpu" or "cuda". Errors:
 * COHORT_ERR_UNKNOWN_BACKEND, COHORT_ERR_NO_DEVICE (cuda asked for but not built in, or no
 * device, with the reason in the error detail). */
int cohort_backend_get(const char *name, const cohort_backend **out);

/* 1 when this build has the cuda backend and a device is usable; `why` (may be NULL) receives
 * the reason when not. */
int cohort_cuda_usable(char *why, size_t len);

/* Seconds on the monotonic clock (wall time between two calls: progress, timings). */
double cohort_seconds(void);

/* "CUDA runtime 13.0, driver 13.0", or why there is none: for --version and file metadata. */
void cohort_cuda_versions(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
