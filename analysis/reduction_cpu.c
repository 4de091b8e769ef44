/* The analyses' kernels on the cpu backend: spectra by GSL's FFTs, the ordered block fold and
 * the nearest centroids by OpenMP loops; the arithmetic is reduction_numerics.h's, as on the
 * GPU. */
#include <stdlib.h>
#ifdef _OPENMP
#    include <omp.h>
#endif

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_complex.h>
#include <gsl/gsl_fft_real.h>

#include "analysis/reduction_kernels.h"
#include "backend/cohort_error.h"
#include "analysis/reduction_numerics.h"

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

static int cpu_weighted_sums(const double *x, int64_t rows, int64_t count, const double *weights,
                             int n_weights, double *out)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (int q = 0; q < n_weights; ++q)
        for (int64_t j = 0; j < count; ++j)
            out[q * count + j] = reduction_weighted_sum(x, rows, count, j, weights + q * rows);
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

static int cpu_block_tree(double *blocks, int64_t width, int64_t n)
{
    for (int64_t stride = 1; stride < n; stride *= 2) {
        const int64_t pairs = reduction_tree_pairs(n, stride);
#pragma omp parallel for collapse(2) schedule(static) if (pairs * width > 65536)
        for (int64_t p = 0; p < pairs; ++p)
            for (int64_t i = 0; i < width; ++i)
                blocks[2 * stride * p * width + i] += blocks[(2 * stride * p + stride) * width + i];
    }
    return COHORT_OK;
}

static int cpu_label_tally(const unsigned char *labels, const unsigned char *previous,
                           int64_t count, int k, int64_t *tally)
{
    for (int c = 0; c <= k; ++c) tally[c] = 0;
#pragma omp parallel for schedule(static) reduction(+ : tally[:k + 1])
    for (int64_t j = 0; j < count; ++j) {
        if (labels[j] < k) ++tally[labels[j]];
        tally[k] += labels[j] != previous[j];
    }
    return COHORT_OK;
}

const reduction_kernels reduction_kernels_cpu = {.spectrum_plan_alloc = cpu_spectrum_plan_alloc,
                                                 .spectrum_plan_free = cpu_spectrum_plan_free,
                                                 .spectrum_power = cpu_spectrum_power,
                                                 .block_fold = cpu_block_fold,
                                                 .weighted_sums = cpu_weighted_sums,
                                                 .nearest_centroid = cpu_nearest_centroid,
                                                 .block_tree = cpu_block_tree,
                                                 .label_tally = cpu_label_tally};
