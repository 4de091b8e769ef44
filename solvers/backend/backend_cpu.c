/* The cpu backend: host memory and OpenMP loops over blocks of members. Within a block the sweeps
 * run row by row across the block's members, so the inner loop is unit-stride in the
 * interleaved layout and vectorises; the arithmetic is banded_numerics.h's, as on the GPU. */
#define _POSIX_C_SOURCE 200809L
#include "backend/backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#    include <omp.h>
#endif

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_complex.h>
#include <gsl/gsl_fft_real.h>

#include "backend/cohort_error.h"
#include "backend/layout_numerics.h"
#include "backend/philox.h"
#include "backend/reduction_numerics.h"
#include "banded/banded_numerics.h"
#include "models/model1d/model1d_numerics.h"
#include "stencil/stencil_numerics.h"

/* 32 members = 256 bytes of each row: four cache lines, a whole vector loop. */
enum { CPU_MEMBER_BLOCK = 32 };

static int cpu_describe(char *buf, size_t len)
{
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    snprintf(buf, len, "CPU, %d OpenMP thread%s", threads, threads == 1 ? "" : "s");
    return COHORT_OK;
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

static int cpu_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes) memcpy(dst, src, bytes);
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

/* Members [mb, mb + width) of u, width <= CPU_MEMBER_BLOCK; h and border are literals at the call
 * sites below so that the branches on them fold away. */
static inline void cpu_banded_block(const banded_view *v, int h, int border, double *u, int64_t ld,
                                    int64_t mb, int64_t width)
{
    const int64_t nb = v->n_band;
    const int stride = 2 * h + 1;
    double *x = u + mb;
    /* rows outside [0, n_band) enter as 0 (their coefficients in the factor are 0 too) */
    static const double zeros[CPU_MEMBER_BLOCK];
    for (int64_t i = 0; i < nb; ++i) {
        const double *row = v->coef + i * stride;
        const double *y1 = i >= 1 ? x + (i - 1) * ld : zeros;
        const double *y2 = i >= 2 ? x + (i - 2) * ld : zeros;
        double *d = x + i * ld;
        for (int64_t j = 0; j < width; ++j) {
            const double prev[2] = {y1[j], y2[j]};
            d[j] = banded_forward_value(row, h, d[j], prev);
        }
    }
    for (int64_t i = nb - 1; i >= 0; --i) {
        const double *row = v->coef + i * stride;
        const double *x1 = i + 1 < nb ? x + (i + 1) * ld : zeros;
        const double *x2 = i + 2 < nb ? x + (i + 2) * ld : zeros;
        double *y = x + i * ld;
        for (int64_t j = 0; j < width; ++j) {
            const double next[2] = {x1[j], x2[j]};
            y[j] = banded_backward_value(row, h, y[j], next);
        }
    }
    if (border == 0) return;
    double xb[CPU_MEMBER_BLOCK][BANDED_MAX_HALF_BANDWIDTH];
    for (int64_t j = 0; j < width; ++j) banded_border_solve(v, border, x + j, ld, xb[j]);
    for (int64_t i = 0; i < nb; ++i)
        for (int64_t j = 0; j < width; ++j)
            x[i * ld + j] =
                banded_border_correct(v->spike + i * border, border, x[i * ld + j], xb[j]);
    for (int b = 0; b < border; ++b)
        for (int64_t j = 0; j < width; ++j) x[(nb + b) * ld + j] = xb[j][b];
}

static int cpu_banded_solve(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                            int64_t groups, int64_t group_stride)
{
    const int64_t blocks = (count + CPU_MEMBER_BLOCK - 1) / CPU_MEMBER_BLOCK;
    const int h = v->h, border = v->border;
#pragma omp parallel for schedule(static)
    for (int64_t gb = 0; gb < groups * blocks; ++gb) {
        const int64_t b = gb % blocks;
        double *u_group = u + (gb / blocks) * group_stride;
        const int64_t mb = m0 + b * CPU_MEMBER_BLOCK;
        const int64_t width =
            m0 + count - mb < CPU_MEMBER_BLOCK ? m0 + count - mb : CPU_MEMBER_BLOCK;
        if (h == 1 && border == 0)
            cpu_banded_block(v, 1, 0, u_group, ld, mb, width);
        else if (h == 1)
            cpu_banded_block(v, 1, 1, u_group, ld, mb, width);
        else if (border == 0)
            cpu_banded_block(v, 2, 0, u_group, ld, mb, width);
        else
            cpu_banded_block(v, 2, 2, u_group, ld, mb, width);
    }
    return COHORT_OK;
}

/* The right-hand side into out, row by row across the members, then the banded solve in place. */
static int cpu_model1d_step(const model1d_rhs *r, const banded_view *v, const double *u,
                            double *out, const double *mean, const double *member_f0, int64_t ld,
                            int64_t m0, int64_t count)
{
    const int64_t n = v->n;
    double *drift = NULL; /* each member's mean of u, projected out (model1d_rhs_point) */
    if (mean) {
        drift = calloc((size_t)count, sizeof *drift);
        if (!drift) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld drifts", (long long)count);
#pragma omp parallel for schedule(static)
        for (int64_t m = m0; m < m0 + count; ++m) drift[m - m0] = model1d_member_mean(u + m, n, ld);
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        const double *row[MODEL1D_WINDOW];
        for (int k = 0; k < MODEL1D_WINDOW; ++k) {
            int64_t j = (i + k - MODEL1D_RADIUS) % n;
            row[k] = u + (j < 0 ? j + n : j) * ld;
        }
        const double forcing = r->forcing ? r->forcing[i] : 0.0;
        double *f = out + i * ld;
        for (int64_t m = m0; m < m0 + count; ++m) {
            double c[MODEL1D_WINDOW];
            for (int k = 0; k < MODEL1D_WINDOW; ++k) c[k] = row[k][m];
            f[m] = model1d_rhs_point(r, c, mean ? mean[m] : 0.0, drift ? drift[m - m0] : 0.0,
                                     forcing, member_f0 ? member_f0[m] : r->f0);
        }
    }
    free(drift);
    return cpu_banded_solve(v, out, ld, m0, count, 1, 0);
}

static int cpu_model1d_moments(const double *u, const double *mean, int64_t n, int64_t ld,
                               int64_t m0, int64_t count, double *out)
{
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < count; ++k)
        model1d_member_moments(u + m0 + k, n, ld, mean != NULL, mean ? mean[m0 + k] : 0.0, &out[k],
                               &out[count + k]);
    return COHORT_OK;
}

static int cpu_uniform_members(double *out, int64_t n, int64_t first, int64_t count, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < count; ++k)
        for (int64_t i = 0; i < n; ++i)
            out[k * n + i] = philox_uniform_value(seed, (uint64_t)(first + k), (uint64_t)i);
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

/* ---- spectra, folds and centroids ---- */

/* Spectra by GSL's mixed-radix FFTs (any n): 1D, the real transform of each member; 2D, the
 * real transform of each row along x, then the complex transform along y of each of the
 * nx/2 + 1 columns kept. */
typedef struct cpu_spectrum_plan {
    int64_t nx, ny, ld;
    int threads;
    gsl_fft_real_wavetable *table;
    gsl_fft_real_workspace **work;     /* one per thread */
    gsl_fft_complex_wavetable *ytable; /* 2D */
    gsl_fft_complex_workspace **ywork; /* 2D, one per thread */
    double *buffer;                    /* per thread: nx ny reals, then 2 ny for a column */
} cpu_spectrum_plan;

static void cpu_spectrum_plan_free(void *plan)
{
    cpu_spectrum_plan *p = plan;
    if (!p) return;
    for (int t = 0; p->work && t < p->threads; ++t) gsl_fft_real_workspace_free(p->work[t]);
    for (int t = 0; p->ywork && t < p->threads; ++t)
        if (p->ywork[t]) gsl_fft_complex_workspace_free(p->ywork[t]);
    free(p->work), free(p->ywork);
    gsl_fft_real_wavetable_free(p->table);
    if (p->ytable) gsl_fft_complex_wavetable_free(p->ytable);
    free(p->buffer);
    free(p);
}

static int cpu_spectrum_plan_alloc(int64_t nx, int64_t ny, int64_t ld, int64_t max_count,
                                   void **plan)
{
    (void)max_count;
    if (nx < 1 || ny < 1 || ld < 1)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "nx = %lld, ny = %lld, ld = %lld",
                           (long long)nx, (long long)ny, (long long)ld);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    cpu_spectrum_plan *p = calloc(1, sizeof *p);
    if (!p) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "spectrum plan");
    p->nx = nx, p->ny = ny, p->ld = ld, p->threads = threads;
    const size_t per_thread = (size_t)(nx * ny + 2 * ny);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    p->table = gsl_fft_real_wavetable_alloc((size_t)nx);
    p->work = calloc((size_t)threads, sizeof *p->work);
    p->buffer = malloc((size_t)threads * per_thread * sizeof(double));
    int ok = p->table && p->work && p->buffer;
    for (int t = 0; ok && t < threads; ++t)
        ok = (p->work[t] = gsl_fft_real_workspace_alloc((size_t)nx)) != NULL;
    if (ok && ny > 1) {
        p->ytable = gsl_fft_complex_wavetable_alloc((size_t)ny);
        p->ywork = calloc((size_t)threads, sizeof *p->ywork);
        ok = p->ytable && p->ywork;
        for (int t = 0; ok && t < threads; ++t)
            ok = (p->ywork[t] = gsl_fft_complex_workspace_alloc((size_t)ny)) != NULL;
    }
    gsl_set_error_handler(old);
    if (!ok) {
        cpu_spectrum_plan_free(p);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "GSL FFT tables for %lld x %lld", (long long)nx,
                           (long long)ny);
    }
    *plan = p;
    return COHORT_OK;
}

static int cpu_spectrum_power(void *plan, const double *u, int64_t m0, int64_t count, double *power)
{
    const cpu_spectrum_plan *p = plan;
    const int64_t nx = p->nx, ny = p->ny, half = nx / 2, cols = half + 1;
    const size_t per_thread = (size_t)(nx * ny + 2 * ny);
    int failed = 0;
#pragma omp parallel for schedule(static) reduction(| : failed)
    for (int64_t j = 0; j < count; ++j) {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        double *buf = p->buffer + (size_t)t * per_thread, *col = buf + nx * ny;
        for (int64_t v = 0; v < nx * ny; ++v) buf[v] = u[v * p->ld + m0 + j];
        /* each row: halfcomplex, buf[0] = X_0, buf[2k - 1], buf[2k] = Re, Im X_k (Im X_{n/2} = 0)
         */
        for (int64_t y = 0; y < ny; ++y)
            failed |= gsl_fft_real_transform(buf + y * nx, 1, (size_t)nx, p->table, p->work[t]) !=
                      GSL_SUCCESS;
        for (int64_t kx = 0; kx < cols; ++kx) {
            for (int64_t y = 0; y < ny; ++y) { /* column kx of the row transforms */
                const double *row = buf + y * nx;
                col[2 * y] = kx == 0 ? row[0] : row[2 * kx - 1];
                col[2 * y + 1] = kx == 0 || 2 * kx == nx ? 0.0 : row[2 * kx];
            }
            if (ny > 1)
                failed |= gsl_fft_complex_forward(col, 1, (size_t)ny, p->ytable, p->ywork[t]) !=
                          GSL_SUCCESS;
            for (int64_t ky = 0; ky < ny; ++ky) {
                const int self = spectrum_self_conjugate(kx, ky, nx, ny);
                power[(ky * cols + kx) * count + j] =
                    reduction_power(col[2 * ky], self ? 0.0 : col[2 * ky + 1], nx * ny);
            }
        }
    }
    if (failed)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "GSL FFT of %lld x %lld failed",
                           (long long)nx, (long long)ny);
    return COHORT_OK;
}

static int cpu_model1d_field(const double *u, const double *mean, int64_t n, int64_t ld, int64_t m0,
                             int64_t count, double *out)
{
#pragma omp parallel for schedule(static)
    for (int64_t m = m0; m < m0 + count; ++m) model1d_member_field(u + m, n, ld, mean[m], out + m);
    return COHORT_OK;
}

static int cpu_block_fold(const double *x, int64_t rows, int64_t ld, int64_t m0, int64_t count,
                          int64_t first, int64_t block, int classes, const unsigned char *cls,
                          double *sums)
{
    const int64_t blocks = (first + count - 1) / block - first / block + 1;
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t b = 0; b < blocks; ++b)
        for (int64_t r = 0; r < rows; ++r) {
            int64_t lo, hi;
            reduction_block_range(first, count, block, b, &lo, &hi);
            const double *row = x + r * ld + m0;
            for (int64_t j = lo; j < hi; ++j) {
                const int c = cls ? cls[j] : 0;
                if (c != REDUCTION_SKIP) sums[(b * classes + c) * rows + r] += row[j];
            }
        }
    return COHORT_OK;
}

static int cpu_nearest_centroid(const double *x, int64_t n, int64_t ld, int64_t m0, int64_t count,
                                const double *centroids, int k, unsigned char *labels,
                                double *dist2)
{
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < count; ++j)
        labels[j] =
            (unsigned char)reduction_nearest_centroid(x + m0 + j, n, ld, centroids, k, &dist2[j]);
    return COHORT_OK;
}

static int cpu_stencil_weights(const stencil_view *v, const double *in, double *out, int64_t ld,
                               int64_t m0, int64_t count)
{
    const stencil_range r =
        stencil_written_range(v->periodic, v->nx, v->ny, v->left, v->right, v->top, v->bottom);
    const int rx = v->left > v->right ? v->left : v->right;
    const int ry = v->top > v->bottom ? v->top : v->bottom;
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t j = r.j0; j < r.j1; ++j)
        for (int64_t i = r.i0; i < r.i1; ++i)
            for (int64_t m = m0; m < m0 + count; ++m)
                out[(j * v->nx + i) * ld + m] = stencil_weights_point(v, in + m, ld, i, j, rx, ry);
    return COHORT_OK;
}

/* The loop of one point operator; called with constant fn, inputs and radii, which the
 * compiler propagates into a loop per operator. */
static void cpu_stencil_loop(double (*fn)(stencil_window, const double *), int inputs, int rx,
                             int ry, const stencil_op_args *a, int periodic, double *out,
                             int64_t nx, int64_t ny, int64_t ld, int64_t m0, int64_t count)
{
    const stencil_range r = stencil_written_range(periodic, nx, ny, rx, rx, ry, ry);
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t j = r.j0; j < r.j1; ++j)
        for (int64_t i = r.i0; i < r.i1; ++i)
            for (int64_t m = m0; m < m0 + count; ++m) {
                stencil_window w;
                stencil_gather(a, inputs, rx, ry, periodic, nx, ny, ld, m, i, j, w);
                out[(j * nx + i) * ld + m] = fn(w, a->p);
            }
}

#define CPU_STENCIL_OP_CASE(name, fn, inputs, rx, ry)                                              \
    case name:                                                                                     \
        cpu_stencil_loop(fn, inputs, rx, ry, a, periodic, out, nx, ny, ld, m0, count);             \
        return COHORT_OK;

static int cpu_stencil_operator(int op, const stencil_op_args *a, int periodic, double *out,
                                int64_t nx, int64_t ny, int64_t ld, int64_t m0, int64_t count)
{
    switch (op) {
        STENCIL_OPERATORS(CPU_STENCIL_OP_CASE)
    default:
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "unknown stencil operator %d", (int)op);
    }
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
    .banded_solve = cpu_banded_solve,
    .model1d_step = cpu_model1d_step,
    .model1d_moments = cpu_model1d_moments,
    .spectrum_plan_alloc = cpu_spectrum_plan_alloc,
    .spectrum_plan_free = cpu_spectrum_plan_free,
    .spectrum_power = cpu_spectrum_power,
    .model1d_field = cpu_model1d_field,
    .block_fold = cpu_block_fold,
    .nearest_centroid = cpu_nearest_centroid,
    .stencil_weights = cpu_stencil_weights,
    .stencil_operator = cpu_stencil_operator,
};
