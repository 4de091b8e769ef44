/* The curvature flows on the cpu backend (curvature_kernels.h): OpenMP over rows of nodes. */
#include "models/curvature2d/curvature_kernels.h"

#include <stddef.h>

#include "backend/cohort_error.h"

enum { CURVATURE_CPU_MEMBERS = 64 }; /* the members whose time factors a row forms at once */

/* w (w_pass) or phi_t (w_all = NULL: mean curvature) at every node, rows in parallel; the time
 * factors once per row and member, not per node. */
static void curvature_nodes_cpu(const curvature_grid *g, const double *t, const double *u,
                                const double *w_all, int w_pass, double *out, int64_t ld,
                                int64_t count)
{
    const int64_t nx1 = g->nx + 1;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j <= g->ny; ++j)
        for (int64_t m0 = 0; m0 < count; m0 += CURVATURE_CPU_MEMBERS) {
            const int64_t m1 =
                m0 + CURVATURE_CPU_MEMBERS < count ? m0 + CURVATURE_CPU_MEMBERS : count;
            curvature_time_factors tf[CURVATURE_CPU_MEMBERS];
            for (int64_t m = m0; m < m1; ++m) tf[m - m0] = curvature_time_factors_at(t[m]);
            /* the w pass's edge data, which the flux pass here forms again */
            curvature_edges edges;
            for (int64_t i = 0; i <= g->nx; ++i) {
                const int kind = curvature_node_kind_at(g, i, j);
                for (int64_t m = m0; m < m1; ++m)
                    out[(j * nx1 + i) * ld + m] =
                        w_pass ? curvature_w_node(g, u + m, ld, i, j, kind, tf[m - m0], &edges)
                               : curvature_rhs_node(g, u + m, w_all ? w_all + m : NULL, ld, i, j,
                                                    kind, tf[m - m0], NULL,
                                                    curvature_forcing_node(
                                                        g, w_all != NULL, i, j, kind, tf[m - m0],
                                                        curvature_forcing_entry(g, i, j)));
            }
        }
}

static int curvature_w_cpu(const curvature_grid *g, const double *t, const double *u, double *w,
                           int64_t ld, int64_t count)
{
    curvature_nodes_cpu(g, t, u, NULL, 1, w, ld, count);
    return COHORT_OK;
}

static int curvature_rhs_cpu(const curvature_grid *g, const double *t, const double *u,
                             const double *w, double *f, int64_t ld, int64_t count)
{
    curvature_nodes_cpu(g, t, u, w, 0, f, ld, count);
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
