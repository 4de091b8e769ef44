/* The complementary finite volumes of the curvature flows of graphs (seed 000, Schemes 3.1 and
 * 3.2, appendix eq. 36-53), per node, shared by the OpenMP loops (curvature_cpu.c) and the CUDA
 * kernels (curvature_cuda.cu).
 *
 * Nodes (i, j), i = 0 .. nx, j = 0 .. ny, at x = x0 + i h1, y = y0 + j h2; value v = j (nx + 1) + i
 * of a member at [v * ld] from the member's base pointer. The dual volume of an interior node has
 * four edges, east (i + 1/2, j), north, west and south; on each, the gradient p of phi is the
 * normal difference of the two nodes (eq. 40-41) and the tangential difference of the two corner
 * values (eq. 42-43), a corner value being the mean of its four nodes (eq. 44-47), and
 * Q = sqrt(1 + |p|^2) (eq. 36-39).
 *
 *   mean curvature (eq. 48):  H = sum over edges of +-(normal difference) / (h^2 Q_edge)
 *   Q at the node (eq. 49):   the mean of the four edge values
 *   MCF (eq. 17):             phi_t = Q H  (= w, eq. 22 and 50)
 *   Willmore (eq. 10, 21):    phi_t = -Q div_h(E grad w - w^2 / (2 Q^3) p), on each edge
 *                             E = (I - p p^T / Q^2) / Q (eq. 53), w the mean of its two nodes
 *                             (eq. 51-52), grad w as p (eq. 40-47 with w for phi).
 * The extraction prints Scheme 3.2 with the opposite overall sign to eq. 10: that sign makes the
 * linearised scheme phi_t = +lap^2 phi, backward parabolic, so cohort follows eq. 10
 * (tools/derive_curvature_exact.py checks that eq. 10 is the gradient flow of the Willmore
 * energy). Boundary nodes: Dirichlet values phi = g and w = 0 (eq. 8, 13; the manufactured
 * solution's own g and w), or Neumann copies of the nearest interior node (eq. 19-20, 24-25). */
#ifndef COHORT_CURVATURE_NUMERICS_H
#define COHORT_CURVATURE_NUMERICS_H

#include <math.h>
#include <stdint.h>

#include "backend/cohort_hd.h"
#include "models/curvature2d/curvature_exact.h"

typedef struct curvature_grid {
    int64_t nx, ny;        /* cells along x and y: (nx + 1)(ny + 1) nodes */
    double h1, h2;         /* L / nx, L / ny */
    double inv_h1, inv_h2; /* 1 / h1, 1 / h2: a node multiplies, a division costing ~10 FP64
                            * instructions on the device */
    double x0, y0;         /* the lower-left corner, grid.origin */
    int neumann;           /* model.boundary = neumann, else Dirichlet */
    int manufactured;      /* initial.kind = manufactured: forcing F and Dirichlet data from zeta */
    /* zeta's factors along x at x_i (nx + 1) and along y at y_j (ny + 1), and for the Willmore
     * flow F_W's table, an entry a node laid out as a member's values (else NULL); backend memory
     * (curvature_grid_make) */
    const curvature_axis *axis_x, *axis_y;
    const curvature_willmore_forcing *forcing_willmore;
} curvature_grid;

/* phi's (or w's) 3 x 3 neighbourhood of interior node (i, j): f[dj + 1][di + 1] (at constant
 * offsets from the node's value once its row's stride is known). */
COHORT_HD void curvature_window(const double *u, int64_t ld, int64_t nx, int64_t i, int64_t j,
                                double f[3][3])
{
    const double *centre = u + (j * (nx + 1) + i) * ld;
    const int64_t row = (nx + 1) * ld;
    for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) f[dj + 1][di + 1] = centre[dj * row + di * ld];
}

/* The gradients of f on the four edges E, N, W, S (eq. 40-47): gx[e], gy[e]; r1, r2 = 1 / h1,
 * 1 / h2. */
COHORT_HD void curvature_edge_gradients(const double f[3][3], double r1, double r2, double gx[4],
                                        double gy[4])
{
    const double ne = 0.25 * (f[1][1] + f[1][2] + f[2][1] + f[2][2]); /* eq. 44 */
    const double se = 0.25 * (f[1][1] + f[1][2] + f[0][1] + f[0][2]); /* eq. 45 */
    const double nw = 0.25 * (f[1][1] + f[1][0] + f[2][1] + f[2][0]); /* eq. 46 */
    const double sw = 0.25 * (f[1][1] + f[1][0] + f[0][1] + f[0][0]); /* eq. 47 */
    gx[0] = (f[1][2] - f[1][1]) * r1, gy[0] = (ne - se) * r2;         /* east */
    gx[1] = (ne - nw) * r1, gy[1] = (f[2][1] - f[1][1]) * r2;         /* north */
    gx[2] = (f[1][1] - f[1][0]) * r1, gy[2] = (nw - sw) * r2;         /* west */
    gx[3] = (se - sw) * r1, gy[3] = (f[1][1] - f[0][1]) * r2;         /* south */
}

/* What the mean curvature's pass learns of phi at a node and the Willmore flux reuses: the
 * gradient p on the four edges E, N, W, S, 1 / Q on each, and the node's Q (eq. 49). */
typedef struct curvature_edges {
    double px[4], py[4], inv_q[4], q_node;
} curvature_edges;

/* w = Q H at an interior node (eq. 48-50, the right-hand side of eq. 17), and its edge data. */
COHORT_HD double curvature_w_point(const double f[3][3], double r1, double r2, curvature_edges *d)
{
    double q[4];
    curvature_edge_gradients(f, r1, r2, d->px, d->py);
    for (int e = 0; e < 4; ++e) {
        const double q2 = 1.0 + d->px[e] * d->px[e] + d->py[e] * d->py[e];
        d->inv_q[e] = cohort_inverse_sqrt(q2);
        q[e] = q2 * d->inv_q[e];
    }
    /* the outward normal gradient on E, N is +px, +py; on W, S the inward -px, -py */
    const double h = (d->px[0] * d->inv_q[0] - d->px[2] * d->inv_q[2]) * r1 +
                     (d->py[1] * d->inv_q[1] - d->py[3] * d->inv_q[3]) * r2;
    d->q_node = 0.25 * (q[0] + q[1] + q[2] + q[3]);
    /* spelled out (cohort_hd.h): the mean-curvature flow adds F to this product, which nvcc
     * fused into an FMA in one kernel and not in another */
    return cohort_mul(d->q_node, h);
}

/* The Willmore right-hand side at an interior node from phi's edge data and w's neighbourhood
 * (eq. 10 discretised as eq. 21 with eq. 51-53). */
COHORT_HD double curvature_willmore_point(const curvature_edges *d, const double w[3][3], double r1,
                                          double r2)
{
    double wx[4], wy[4];
    curvature_edge_gradients(w, r1, r2, wx, wy);
    const double w_edge[4] = {0.5 * (w[1][1] + w[1][2]), 0.5 * (w[1][1] + w[2][1]),
                              0.5 * (w[1][1] + w[1][0]), 0.5 * (w[1][1] + w[0][1])};
    double flux[4]; /* the edge's normal component of E grad w - w^2 / (2 Q^3) p */
    for (int e = 0; e < 4; ++e) {
        const double px = d->px[e], py = d->py[e], inv_q = d->inv_q[e];
        const double pw = px * wx[e] + py * wy[e], inv_q2 = inv_q * inv_q;
        const double c = 0.5 * w_edge[e] * w_edge[e] * inv_q2 * inv_q;
        const double fx = (wx[e] - px * pw * inv_q2) * inv_q - c * px;
        const double fy = (wy[e] - py * pw * inv_q2) * inv_q - c * py;
        flux[e] = (e == 0 || e == 2) ? fx : fy;
    }
    /* spelled out, as curvature_w_point's: F is added to it */
    return cohort_mul(-d->q_node, (flux[0] - flux[2]) * r1 + (flux[1] - flux[3]) * r2);
}

COHORT_HD int curvature_is_boundary(const curvature_grid *g, int64_t i, int64_t j)
{
    return i == 0 || j == 0 || i == g->nx || j == g->ny;
}

/* The interior node whose value a Neumann boundary node copies (eq. 19-20): the nearest. */
COHORT_HD int64_t curvature_clamp(int64_t i, int64_t n)
{
    return i < 1 ? 1 : i > n - 1 ? n - 1 : i;
}

/* What node (i, j) is to the scheme: inside, or on the boundary with Dirichlet data (eq. 8, 13)
 * or a copy of the nearest inner node (Neumann, eq. 19-20). Formed by the callers of the node
 * functions below: the fused advance forms it once an advance for a thread's node, instead of
 * four 64-bit comparisons and the grid's flags in each of a stage's three node functions. */
enum curvature_node_kind {
    CURVATURE_INSIDE,
    CURVATURE_DIRICHLET_BOUNDARY,
    CURVATURE_NEUMANN_BOUNDARY
};

COHORT_HD int curvature_node_kind_at(const curvature_grid *g, int64_t i, int64_t j)
{
    return !curvature_is_boundary(g, i, j) ? CURVATURE_INSIDE
           : g->neumann                    ? CURVATURE_NEUMANN_BOUNDARY
                                           : CURVATURE_DIRICHLET_BOUNDARY;
}

/* w at node (i, j) (of kind curvature_node_kind_at) of the member at u at the time whose factors
 * are tf: Q H inside, the boundary condition on the boundary. (tf is formed once for all of a
 * thread's nodes: formed here for the boundary only, its sine and cosine ran apart from the
 * interior's Q H in every warp that holds both.) Where it forms a Q H (inside, and at the node a
 * Neumann boundary node copies) it leaves that node's edge data in d, for curvature_rhs_node at the
 * same node and phi. */
COHORT_HD double curvature_w_node(const curvature_grid *g, const double *u, int64_t ld, int64_t i,
                                  int64_t j, int kind, curvature_time_factors tf,
                                  curvature_edges *d)
{
    if (kind == CURVATURE_DIRICHLET_BOUNDARY)
        return g->manufactured ? curvature_exact_w(tf, &g->axis_x[i], &g->axis_y[j]) : 0.0;
    if (kind == CURVATURE_NEUMANN_BOUNDARY)
        i = curvature_clamp(i, g->nx), j = curvature_clamp(j, g->ny);
    double f[3][3];
    curvature_window(u, ld, g->nx, i, j, f);
    return curvature_w_point(f, g->inv_h1, g->inv_h2, d);
}

/* F_W's table entry at node (i, j) where the flow is Willmore with the manufactured solution;
 * else zeros, which nothing reads. */
COHORT_HD curvature_willmore_forcing curvature_forcing_entry(const curvature_grid *g, int64_t i,
                                                             int64_t j)
{
    curvature_willmore_forcing k = {{0.0}, 0.0, 0.0};
    if (g->forcing_willmore) k = g->forcing_willmore[j * (g->nx + 1) + i];
    return k;
}

/* The forcing F at node (i, j) at the time whose factors are tf: F_W (willmore; fw its table
 * entry, curvature_forcing_entry) or F_MC inside with the manufactured solution, else 0 (the
 * manufactured solution is Dirichlet's only: no boundary node copies another's phi_t). Apart from
 * curvature_rhs_node, which takes its value, so that the fused advance can form it while the w
 * pass's latencies leave the FP64 units idle: it depends on neither phi nor w. */
COHORT_HD double curvature_forcing_node(const curvature_grid *g, int willmore, int64_t i, int64_t j,
                                        int kind, curvature_time_factors tf,
                                        curvature_willmore_forcing fw)
{
    if (!g->manufactured || kind != CURVATURE_INSIDE) return 0.0;
    return willmore ? curvature_exact_forcing_willmore(tf, fw)
                    : curvature_exact_forcing_mcf(tf, &g->axis_x[i], &g->axis_y[j]);
}

/* phi_t at node (i, j): the flow (w_all = NULL: mean curvature; else Willmore with every node's
 * w in w_all, laid out as u) plus the forcing (curvature_forcing_node's value) inside; on a
 * Dirichlet boundary g_t, on a Neumann boundary the copied node's phi_t (so the copies stay exact
 * copies). For Willmore, known (else NULL) is the edge data curvature_w_node left at this node
 * from the same phi (the values it would form again), read only where a Q H is formed; else it is
 * formed here. (Copied, not read through: a pointer that may point at either of two local
 * structures puts both in local memory on the device.) */
COHORT_HD double curvature_rhs_node(const curvature_grid *g, const double *u, const double *w_all,
                                    int64_t ld, int64_t i, int64_t j, int kind,
                                    curvature_time_factors tf, const curvature_edges *known,
                                    double forcing)
{
    if (kind == CURVATURE_DIRICHLET_BOUNDARY) {
        /* zeta = cos(pi t) zeta(0): g_t = -pi sin(pi t) zeta(0) */
        const curvature_time_factors start = {1.0, 0.0};
        return g->manufactured ? -3.14159265358979323846 * tf.sin_pi_t *
                                     curvature_exact_zeta(start, &g->axis_x[i], &g->axis_y[j])
                               : 0.0;
    }
    if (kind == CURVATURE_NEUMANN_BOUNDARY)
        i = curvature_clamp(i, g->nx), j = curvature_clamp(j, g->ny);
    double f[3][3], rhs;
    curvature_edges d;
    if (known)
        d = *known;
    else
        curvature_window(u, ld, g->nx, i, j, f);
    if (w_all) {
        double w[3][3];
        curvature_window(w_all, ld, g->nx, i, j, w);
        if (!known) curvature_w_point(f, g->inv_h1, g->inv_h2, &d);
        rhs = curvature_willmore_point(&d, w, g->inv_h1, g->inv_h2);
    } else {
        rhs = curvature_w_point(f, g->inv_h1, g->inv_h2, &d);
    }
    if (g->manufactured) rhs += forcing;
    return rhs;
}

/* The initial value at node (i, j): zeta(0) (manufactured), or amplitude sin(mode pi r),
 * r = |(x, y)| (seed 000, eq. 35), taken at the copied node on a Neumann boundary. */
COHORT_HD double curvature_initial_node(const curvature_grid *g, double amplitude, double mode,
                                        int64_t i, int64_t j)
{
    if (g->neumann) i = curvature_clamp(i, g->nx), j = curvature_clamp(j, g->ny);
    const double x = g->x0 + i * g->h1, y = g->y0 + j * g->h2;
    const curvature_time_factors start = {1.0, 0.0};
    if (g->manufactured) return curvature_exact_zeta(start, &g->axis_x[i], &g->axis_y[j]);
    double sin_pi, cos_pi; /* sin(pi mode r), the same bits on both backends */
    cohort_sincospi(mode * sqrt(x * x + y * y), &sin_pi, &cos_pi);
    return amplitude * sin_pi;
}

/* What a record reports of one member, as sums over rows j = 0 .. ny of row sums (each backend and
 * chunking adds the same terms in the same order, in parallel over rows):
 *   [0] the area functional int Q dx (eq. 1), by cells: Q of the cell's centred gradient (row j:
 *       the cells above it);
 *   [1] the Willmore energy int H^2 dS = int w^2 / Q dx (eq. 3) over the interior nodes' dual
 *       volumes;
 *   [2 .. 4] with the exact solution: sum |phi - zeta| h1 h2, sum (phi - zeta)^2 h1 h2 and
 *       max |phi - zeta| over all nodes (the inner sums of eq. 31-33). */
enum { CURVATURE_OBSERVED = 5 };

COHORT_HD void curvature_observe_row(const curvature_grid *g, const double *u, int64_t ld, double t,
                                     int64_t j, double out[CURVATURE_OBSERVED])
{
    const double cell = g->h1 * g->h2;
    const int64_t nx1 = g->nx + 1;
    double area = 0.0, energy = 0.0, l1 = 0.0, l2 = 0.0, linf = 0.0;
    for (int64_t i = 0; j < g->ny && i < g->nx; ++i) {
        const double a = u[(j * nx1 + i) * ld], b = u[(j * nx1 + i + 1) * ld],
                     c = u[((j + 1) * nx1 + i) * ld], d = u[((j + 1) * nx1 + i + 1) * ld];
        const double gx = (b + d - a - c) / (2.0 * g->h1), gy = (c + d - a - b) / (2.0 * g->h2);
        area += sqrt(1.0 + gx * gx + gy * gy) * cell;
    }
    for (int64_t i = 1; j > 0 && j < g->ny && i < g->nx; ++i) {
        double f[3][3];
        curvature_edges d;
        curvature_window(u, ld, g->nx, i, j, f);
        const double w = curvature_w_point(f, g->inv_h1, g->inv_h2, &d);
        energy += w * w / d.q_node * cell;
    }
    const curvature_time_factors tf = curvature_time_factors_at(t);
    for (int64_t i = 0; g->manufactured && i <= g->nx; ++i) {
        const double e =
            fabs(u[(j * nx1 + i) * ld] - curvature_exact_zeta(tf, &g->axis_x[i], &g->axis_y[j]));
        l1 += e * cell, l2 += e * e * cell;
        linf = e > linf || e != e ? e : linf;
    }
    out[0] = area, out[1] = energy, out[2] = l1, out[3] = l2, out[4] = linf;
}

/* The member's values from its rows' (row j's at rows[q * stride + j]), in row order. */
COHORT_HD void curvature_observe_combine(const double *rows, int64_t stride, int64_t n_rows,
                                         double out[CURVATURE_OBSERVED])
{
    for (int q = 0; q < CURVATURE_OBSERVED; ++q) {
        double s = 0.0;
        for (int64_t j = 0; j < n_rows; ++j) {
            const double r = rows[q * stride + j];
            s = q == CURVATURE_OBSERVED - 1 ? (r > s || r != r ? r : s) : s + r;
        }
        out[q] = s;
    }
}

#endif
