/* The 1D step on the cpu backend: the right-hand side row by row across the members (unit
 * stride, vectorised), then the cpu banded solve in place. */
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "banded/banded_cpu.h"
#include "models/model1d/model1d_kernels.h"
#include "models/model1d/model1d_numerics.h"

enum { MEAN_BLOCK = 32 }; /* members summed side by side: four cache lines of each row */

/* drift[m - m0] = field_member_mean of each member of x: the same sums in the same row order,
 * but row by row across a block of members (a member at a time, at the interleaved stride, was a
 * cache and TLB miss a row: a quarter of a long system's step on the cpu). */
static void member_means(const double *x, int64_t n, int64_t ld, int64_t m0, int64_t count,
                         double *drift)
{
    const int64_t blocks = (count + MEAN_BLOCK - 1) / MEAN_BLOCK;
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t mb = m0 + b * MEAN_BLOCK;
        const int64_t width = m0 + count - mb < MEAN_BLOCK ? m0 + count - mb : MEAN_BLOCK;
        double sum[MEAN_BLOCK] = {0.0};
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < width; ++j) sum[j] += x[i * ld + mb + j];
        for (int64_t j = 0; j < width; ++j) drift[mb - m0 + j] = field_mean_of_sum(sum[j], n);
    }
}

/* The right-hand side into out, row by row across the members, then the banded solve in place. */
static int cpu_step(const model1d_rhs *r, const banded_view *v, const double *u, double *out,
                    const double *mean, const double *member_f0, const double *drift_in,
                    double *drift_out, int64_t ld, int64_t m0, int64_t count)
{
    const int64_t n = v->n;
    double *summed = NULL; /* each member's mean of u, projected out (model1d_rhs_point) */
    if (mean && !drift_in) {
        summed = calloc((size_t)count, sizeof *summed);
        if (!summed) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld drifts", (long long)count);
        member_means(u, n, ld, m0, count, summed);
    }
    const double *drift = drift_in ? drift_in + m0 : summed;
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
            f[m] = model1d_rhs_point(r, c, mean ? mean[m] : 0.0, mean ? drift[m - m0] : 0.0,
                                     forcing, member_f0 ? member_f0[m] : r->f0);
        }
    }
    free(summed);
    COHORT_CALL(banded_cpu_solve(v, out, ld, m0, count, 1, 0));
    if (drift_out) member_means(out, n, ld, m0, count, drift_out + m0);
    return COHORT_OK;
}

const model1d_kernels model1d_kernels_cpu = {.step = cpu_step};
