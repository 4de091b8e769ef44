/* The curvature flows on the cpu backend (curvature_kernels.h): OpenMP over rows of nodes. */
#include "models/curvature2d/curvature_kernels.h"

#include <stddef.h>

#include "backend/cohort_error.h"

static int curvature_w_cpu(const curvature_grid *g, const double *t, const double *u, double *w,
                           int64_t ld, int64_t count)
{
    const int64_t nx1 = g->nx + 1;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j <= g->ny; ++j)
        for (int64_t i = 0; i <= g->nx; ++i)
            for (int64_t m = 0; m < count; ++m)
                w[(j * nx1 + i) * ld + m] = curvature_w_node(g, u + m, ld, i, j, t[m]);
    return COHORT_OK;
}

static int curvature_rhs_cpu(const curvature_grid *g, const double *t, const double *u,
                             const double *w, double *f, int64_t ld, int64_t count)
{
    const int64_t nx1 = g->nx + 1;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j <= g->ny; ++j)
        for (int64_t i = 0; i <= g->nx; ++i)
            for (int64_t m = 0; m < count; ++m)
                f[(j * nx1 + i) * ld + m] =
                    curvature_rhs_node(g, u + m, w ? w + m : NULL, ld, i, j, t[m]);
    return COHORT_OK;
}

static int curvature_initial_cpu(const curvature_grid *g, double amplitude,
                                 const double *amplitudes, double mode, double *u, int64_t ld,
                                 int64_t count)
{
    const int64_t nx1 = g->nx + 1;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j <= g->ny; ++j)
        for (int64_t i = 0; i <= g->nx; ++i)
            for (int64_t m = 0; m < count; ++m)
                u[(j * nx1 + i) * ld + m] =
                    curvature_initial_node(g, amplitudes ? amplitudes[m] : amplitude, mode, i, j);
    return COHORT_OK;
}

static int curvature_observe_cpu(const curvature_grid *g, const double *u, double t, double *rows,
                                 double *out, int64_t ld, int64_t count)
{
    const int64_t n_rows = g->ny + 1;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < count * n_rows; ++r) {
        const int64_t m = r / n_rows, j = r % n_rows;
        double row[CURVATURE_OBSERVED];
        curvature_observe_row(g, u + m, ld, t, j, row);
        for (int q = 0; q < CURVATURE_OBSERVED; ++q)
            rows[(m * CURVATURE_OBSERVED + q) * n_rows + j] = row[q];
    }
    for (int64_t m = 0; m < count; ++m) {
        double member[CURVATURE_OBSERVED];
        curvature_observe_combine(rows + m * CURVATURE_OBSERVED * n_rows, n_rows, n_rows, member);
        for (int q = 0; q < CURVATURE_OBSERVED; ++q) out[q * count + m] = member[q];
    }
    return COHORT_OK;
}

const curvature_kernels curvature_kernels_cpu = {
    curvature_w_cpu, curvature_rhs_cpu, curvature_initial_cpu, curvature_observe_cpu, NULL};
