/* The curvature flows' finite volumes (models/curvature2d) against the continuous operators:
 *   (a) with the forcing of tools/derive_curvature_exact.py (SymPy), the right-hand side at
 *       zeta(t) converges to zeta_t at second order at least: the mean-curvature flow at every
 *       node, the Willmore flow two nodes or more inside. Beside a Dirichlet boundary, the
 *       Willmore residual is O(1): the second difference there mixes the exact w of the boundary
 *       node with the O(h^2)-accurate discrete w of its neighbours (measured: 0.0127, 0.0095,
 *       0.0090 at 32^2, 64^2, 128^2). It does not spoil the solution's convergence (the EOC
 *       tests: error ~h^2 in all three norms);
 *   (b) a plane is at rest (both flows), and a paraboloid a (x^2 + y^2) has Q H = 4 a at its
 *       vertex (the scheme is exact there);
 *   (c) through the registry, with Neumann boundaries from eq. 35: the boundary nodes stay exact
 *       copies of their interior neighbours (eq. 19-20), the mean-curvature flow lowers the area
 *       and the Willmore flow the Willmore energy at every record;
 *   (d) a Dirichlet run's boundary nodes keep their values;
 *   (e) where the backend has the fused advance (cuda, ode/rkm_cuda.cuh), it gives the per-stage
 *       path's steps and state bit for bit at 16^2 and 20^2, with one block a member (block
 *       barriers; at 16^2 a thread a node and the arrays in shared memory, at 20^2 some threads
 *       own two nodes), with two and three (cluster barriers where the device has them, else
 *       grid barriers), with nine (grid barriers), as the launch chooses, and on the path
 *       rkm_advance chooses; and for 300 members of 8^2 (more than RKM_FUSED_MAX_MEMBERS, each
 *       one block), with one block a member and on rkm_advance's path. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "models/curvature2d/curvature2d.h"
#include "models/curvature2d/curvature_kernels.h"
#include "models/model.h"
#include "ode/rkm.h"
#include "ode/rkm_numerics.h"
#include "test_common.h"

/* zeta of eq. 30 with n = 2, r = 2, sigma = 1/4 in closed form, independent of the generated
 * curvature_exact.h (whose axis tables and jets the residual below then checks) */
static double zeta_closed(double t, double x, double y)
{
    return cos(3.14159265358979323846 * t) * (x * x - 4.0) * (y * y - 4.0) / 16.0 *
           exp(-0.25 * (x * x + y * y));
}

/* max over nodes of |f - zeta_t(t)| for the flow at N x N cells of [-4, 4]^2, phi = zeta(t) */
static double residual(const cohort_backend *be, int willmore, int64_t N, double t, int interior)
{
    const curvature_kernels *k = COHORT_KERNELS(be, curvature_kernels);
    /* zeta with r = 2, sigma = 1/4: resolved at these grids up to the boundary (sigma = 1 has a
     * tail varying on a scale of 1/8 at |x| = 4, where 128^2 is still pre-asymptotic) */
    const curvature_exact_params zeta = curvature_exact_params_make(2.0, 2.0, 0.25);
    curvature_grid g;
    int rc = curvature_grid_make(be, N, N, 8.0, -4.0, 0, 1, willmore, zeta, &g);
    const int64_t n = (N + 1) * (N + 1);
    double *host = malloc((size_t)n * sizeof *host), *u = NULL, *w = NULL, *f = NULL, *tt = NULL;
    for (int64_t j = 0; j <= N; ++j)
        for (int64_t i = 0; i <= N; ++i)
            host[j * (N + 1) + i] = zeta_closed(t, -4.0 + i * g.h1, -4.0 + j * g.h2);
    if (rc == COHORT_OK) rc = be->alloc((void **)&u, (size_t)n * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&w, (size_t)n * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&f, (size_t)n * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&tt, sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(u, host, (size_t)n * sizeof(double));
    if (rc == COHORT_OK) rc = be->fill(tt, t, 1);
    if (rc == COHORT_OK && willmore) rc = k->w(&g, tt, u, w, 1, 1);
    if (rc == COHORT_OK) rc = k->rhs(&g, tt, u, willmore ? w : NULL, f, 1, 1);
    if (rc == COHORT_OK) rc = be->synchronize();
    if (rc == COHORT_OK) rc = be->copy_to_host(host, f, (size_t)n * sizeof(double));
    EXPECT(rc == COHORT_OK, "%s", cohort_error_detail());
    double worst = 0.0;
    for (int64_t j = 1; j < N; ++j)
        for (int64_t i = 1; i < N; ++i) {
            const int near = i == 1 || j == 1 || i == N - 1 || j == N - 1;
            if (near == interior) continue;
            const double zt = -3.14159265358979323846 * sin(3.14159265358979323846 * t) *
                              zeta_closed(0.0, -4.0 + i * g.h1, -4.0 + j * g.h2);
            worst = fmax(worst, fabs(host[j * (N + 1) + i] - zt));
        }
    be->release(u), be->release(w), be->release(f), be->release(tt);
    curvature_grid_release(be, &g);
    free(host);
    return worst;
}

/* f of the flow at every node of phi given on the host (Dirichlet, no forcing) */
static int flow_of(const cohort_backend *be, int willmore, const curvature_grid *g, double *phi)
{
    const curvature_kernels *k = COHORT_KERNELS(be, curvature_kernels);
    const int64_t n = (g->nx + 1) * (g->ny + 1);
    double *u = NULL, *w = NULL, *f = NULL, *tt = NULL;
    int rc = be->alloc((void **)&u, (size_t)n * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&w, (size_t)n * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&f, (size_t)n * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&tt, sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(u, phi, (size_t)n * sizeof(double));
    if (rc == COHORT_OK) rc = be->fill(tt, 0.0, 1);
    if (rc == COHORT_OK && willmore) rc = k->w(g, tt, u, w, 1, 1);
    if (rc == COHORT_OK) rc = k->rhs(g, tt, u, willmore ? w : NULL, f, 1, 1);
    if (rc == COHORT_OK) rc = be->synchronize();
    if (rc == COHORT_OK) rc = be->copy_to_host(phi, f, (size_t)n * sizeof(double));
    be->release(u), be->release(w), be->release(f), be->release(tt);
    return rc;
}

/* (c), (d): `count` members of the model through its descriptor, records every dt to t_end;
 * observable q must fall at every record (q < 0: none), Neumann copies exact */
static void registry_run(const cohort_backend *be, const char *name, const char *boundary,
                         int64_t N, double dt, int records, int q)
{
    const cohort_model *m = cohort_model_find(name);
    EXPECT(m != NULL, "%s registered", name);
    if (!m) return;
    cohort_model_values v = {.nx = N,
                             .ny = N,
                             .length = 4.0,
                             .dt = dt,
                             .origin = -2.0,
                             .boundary = boundary[0] == 'n' ? COHORT_BOUNDARY_NEUMANN
                                                            : COHORT_BOUNDARY_DIRICHLET,
                             .tolerance = 1e-7,
                             .initial_kind = "radial_sine",
                             .amplitude = 0.5,
                             .mode = 3};
    for (int j = 0; j < m->n_params; ++j) v.param[j] = strtod(m->params[j].default_value, NULL);
    v.tau0 = m->defaults->dt_auto(&v);
    const int64_t count = 3, n = (N + 1) * (N + 1);
    void *stepper = NULL;
    double *u = NULL, *amp = NULL, *host = malloc((size_t)(n * count) * sizeof *host),
           *first = malloc((size_t)(n * count) * sizeof *first);
    double values[3 * 8], previous[3] = {INFINITY, INFINITY, INFINITY};
    const double amplitudes[3] = {0.5, 0.25, 0.1};
    int rc = m->stepper_alloc(m, be, &v, &stepper);
    if (rc == COHORT_OK) rc = be->alloc((void **)&u, (size_t)(n * count) * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&amp, (size_t)count * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(amp, amplitudes, sizeof amplitudes);
    if (rc == COHORT_OK) rc = m->initial_fill(stepper, u, amp, NULL, count, count);
    if (rc == COHORT_OK) rc = be->copy_to_host(first, u, (size_t)(n * count) * sizeof(double));
    for (int r = 0; r <= records && rc == COHORT_OK; ++r) {
        if (r > 0) {
            cohort_model_state s = {u, NULL, NULL, NULL, NULL, count, 0, count};
            rc = m->stepping->step(stepper, &s, r - 1);
            u = s.u;
        }
        if (rc == COHORT_OK) rc = m->observing->observe(stepper, u, r * dt, values, count, count);
        for (int64_t k = 0; q >= 0 && k < count && rc == COHORT_OK; ++k) {
            EXPECT(values[q * count + k] < previous[k],
                   "%s member %lld record %d: %s %.17g after %.17g", name, (long long)k, r,
                   m->observing->observables[q].name, values[q * count + k], previous[k]);
            previous[k] = values[q * count + k];
        }
    }
    if (rc == COHORT_OK) rc = be->synchronize();
    if (rc == COHORT_OK) rc = be->copy_to_host(host, u, (size_t)(n * count) * sizeof(double));
    EXPECT(rc == COHORT_OK, "%s", cohort_error_detail());
    int64_t copies_broken = 0, boundary_moved = 0, changed = 0;
    for (int64_t j = 0; j <= N && rc == COHORT_OK; ++j)
        for (int64_t i = 0; i <= N; ++i)
            for (int64_t k = 0; k < count; ++k) {
                const int64_t at = (j * (N + 1) + i) * count + k;
                const int64_t ci = i < 1       ? 1
                                   : i > N - 1 ? N - 1
                                               : i,
                              cj = j < 1       ? 1
                                   : j > N - 1 ? N - 1
                                               : j;
                const int on_boundary = ci != i || cj != j;
                changed += host[at] != first[at];
                if (on_boundary && boundary[0] == 'n')
                    copies_broken += host[at] != host[(cj * (N + 1) + ci) * count + k];
                if (on_boundary && boundary[0] == 'd') boundary_moved += host[at] != first[at];
            }
    EXPECT(copies_broken == 0, "%s: %lld Neumann boundary values differ from their copies", name,
           (long long)copies_broken);
    EXPECT(boundary_moved == 0, "%s: %lld Dirichlet boundary values moved", name,
           (long long)boundary_moved);
    EXPECT(changed > n, "%s: only %lld values changed", name, (long long)changed);
    int64_t accepted[3], rejected[3];
    EXPECT(m->adaptive->counters(stepper, count, accepted, rejected) == COHORT_OK, "%s",
           cohort_error_detail());
    EXPECT(accepted[0] >= records, "%s: %lld steps", name, (long long)accepted[0]);
    be->release(u), be->release(amp);
    m->stepper_free(stepper);
    free(host), free(first);
}

/* (e): the per-stage and the fused advance of `count` members (amplitudes differ) to t = 0.02 */
typedef struct flow_ctx {
    const curvature_kernels *k;
    curvature_grid g;
    double *w;
    int64_t blocks_per_member; /* of the fused advance, 0: its own choice */
} flow_ctx;

static int flow_rhs(void *ctx, const double *t, const double *u, double *f, int64_t ld,
                    int64_t count)
{
    flow_ctx *c = ctx;
    if (c->w) COHORT_CALL(c->k->w(&c->g, t, u, c->w, ld, count));
    return c->k->rhs(&c->g, t, u, c->w, f, ld, count);
}

static int flow_fused(void *ctx, const rkm_fused_args *a)
{
    flow_ctx *c = ctx;
    rkm_fused_args b = *a;
    b.blocks_per_member = c->blocks_per_member;
    return c->k->advance_fused(&c->g, c->w, &b);
}

static void fused_against_per_stage(const cohort_backend *be, int willmore, int neumann, int64_t N,
                                    int64_t count)
{
    const curvature_kernels *k = COHORT_KERNELS(be, curvature_kernels);
    if (!k->advance_fused) return;
    /* fused with 1 block a member (the block's barrier; at 8^2 and 16^2 a thread a node and the
     * arrays in shared memory, at 20^2 not), 2 and 3 (a cluster's on compute capability 9.0, else
     * the grid's), 9 (the grid's) and the launch's choice (8^2, 16^2: one block, 20^2: a cluster of
     * 2); last rkm_advance's own choice of path. More members than RKM_FUSED_MAX_MEMBERS take only
     * the one-block launches (the others need their blocks resident together). */
    enum { PATHS = 7 };
    const int64_t n = (N + 1) * (N + 1), blocks[PATHS] = {0, 1, 2, 3, 9, 0, 0};
    const rkm_path paths[PATHS] = {RKM_PATH_PER_STAGE, RKM_PATH_FUSED, RKM_PATH_FUSED,
                                   RKM_PATH_FUSED,     RKM_PATH_FUSED, RKM_PATH_FUSED,
                                   RKM_PATH_AUTO};
    flow_ctx c = {k, {0}, NULL, 0};
    EXPECT(curvature_grid_make(be, N, N, 4.0, -2.0, neumann, !neumann, willmore,
                               curvature_exact_params_make(2, 1, 1), &c.g) == COHORT_OK,
           "%s", cohort_error_detail());
    double *u = NULL, *amp = NULL, *out[PATHS] = {NULL};
    int64_t *acc[PATHS] = {NULL}, *rej[PATHS] = {NULL};
    double *amplitudes = malloc((size_t)count * sizeof *amplitudes);
    for (int64_t m = 0; m < count; ++m)
        amplitudes[m] = (double[]){1.0, 0.5, 0.25, 0.75, 0.1}[m % 5];
    int rc = be->alloc((void **)&u, (size_t)(n * count) * sizeof(double));
    if (rc == COHORT_OK && willmore)
        rc = be->alloc((void **)&c.w, (size_t)(n * count) * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&amp, (size_t)count * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(amp, amplitudes, (size_t)count * sizeof(double));
    for (int path = 0; path < PATHS && rc == COHORT_OK; ++path) {
        if (count > RKM_FUSED_MAX_MEMBERS && blocks[path] > 1) continue;
        rkm_integrator *r = NULL;
        const rkm_rhs f = {flow_rhs, &c, path ? flow_fused : NULL};
        c.blocks_per_member = blocks[path];
        out[path] = malloc((size_t)(n * count) * sizeof(double));
        acc[path] = malloc((size_t)count * sizeof(int64_t));
        rej[path] = malloc((size_t)count * sizeof(int64_t));
        rc = rkm_alloc(be, n, count, &r);
        if (rc == COHORT_OK) rc = k->initial(&c.g, 1.0, amp, 3.0, u, count, count);
        if (rc == COHORT_OK) rc = rkm_start(r, 0.0, willmore ? 1e-6 : 1e-4, count);
        for (int q = 1; q <= 2 && rc == COHORT_OK; ++q)
            rc = rkm_advance_on(r, &f, u, 0.01 * q, 1e-7, count, paths[path]);
        if (rc == COHORT_OK) rc = rkm_members(r, count, acc[path], rej[path], NULL, NULL);
        if (rc == COHORT_OK)
            rc = be->copy_to_host(out[path], u, (size_t)(n * count) * sizeof(double));
        rkm_free(r);
    }
    EXPECT(rc == COHORT_OK, "%s", cohort_error_detail());
    for (int path = 1; path < PATHS && rc == COHORT_OK; ++path) {
        if (!out[path]) continue;
        int64_t differ = 0;
        for (int64_t q = 0; q < n * count; ++q) differ += out[0][q] != out[path][q];
        const size_t counters = (size_t)count * sizeof(int64_t);
        EXPECT(differ == 0 && !memcmp(acc[0], acc[path], counters) &&
                   !memcmp(rej[0], rej[path], counters),
               "%s, %s, %lld^2 x %lld, %s with %lld blocks a member: %lld values differ; member "
               "0 steps %lld/%lld per stage, %lld/%lld fused",
               willmore ? "Willmore" : "mean curvature", neumann ? "Neumann" : "Dirichlet",
               (long long)N, (long long)count,
               paths[path] == RKM_PATH_AUTO ? "the automatic path" : "fused",
               (long long)blocks[path], (long long)differ, (long long)acc[0][0],
               (long long)rej[0][0], (long long)acc[path][0], (long long)rej[path][0]);
    }
    for (int path = 0; path < PATHS; ++path) free(out[path]), free(acc[path]), free(rej[path]);
    free(amplitudes);
    be->release(u), be->release(amp), be->release(c.w);
    curvature_grid_release(be, &c.g);
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");

    /* (a) second order towards the continuous operators */
    for (int willmore = 0; willmore <= 1; ++willmore)
        for (int interior = willmore; interior <= 1; ++interior) {
            const double e32 = residual(be, willmore, 32, 0.3, interior),
                         e64 = residual(be, willmore, 64, 0.3, interior),
                         e128 = residual(be, willmore, 128, 0.3, interior);
            const double order = log2(e64 / e128);
            EXPECT(order > 1.8 && log2(e32 / e64) > 1.5,
                   "%s, %s nodes: residual %.3g, %.3g, %.3g at 32^2, 64^2, 128^2 (orders %.2f, "
                   "%.2f)",
                   willmore ? "Willmore" : "mean curvature",
                   interior ? "inner" : "boundary-adjacent", e32, e64, e128, log2(e32 / e64),
                   order);
        }

    /* (b) a plane and a paraboloid */
    enum { N = 16 };
    curvature_grid g;
    EXPECT(curvature_grid_make(be, N, N, 4.0, -2.0, 0, 0, 0, curvature_exact_params_make(2, 1, 1),
                               &g) == COHORT_OK,
           "%s", cohort_error_detail());
    double phi[(N + 1) * (N + 1)];
    for (int willmore = 0; willmore <= 1; ++willmore) {
        for (int j = 0; j <= N; ++j)
            for (int i = 0; i <= N; ++i)
                phi[j * (N + 1) + i] = 0.3 * (-2.0 + i * g.h1) - 0.7 * (-2.0 + j * g.h2) + 2.0;
        EXPECT(flow_of(be, willmore, &g, phi) == COHORT_OK, "%s", cohort_error_detail());
        double worst = 0.0;
        for (int q = 0; q < (N + 1) * (N + 1); ++q) worst = fmax(worst, fabs(phi[q]));
        EXPECT(worst < (willmore ? 1e-9 : 1e-12), "%s flow of a plane: |f| up to %.3g",
               willmore ? "Willmore" : "mean-curvature", worst);
    }
    const double a = 0.7;
    for (int j = 0; j <= N; ++j)
        for (int i = 0; i <= N; ++i) {
            const double x = -2.0 + i * g.h1, y = -2.0 + j * g.h2;
            phi[j * (N + 1) + i] = a * (x * x + y * y);
        }
    EXPECT(flow_of(be, 0, &g, phi) == COHORT_OK, "%s", cohort_error_detail());
    EXPECT(fabs(phi[(N / 2) * (N + 1) + N / 2] - 4.0 * a) < 1e-13,
           "paraboloid vertex: Q H = %.17g, 4 a = %.17g", phi[(N / 2) * (N + 1) + N / 2], 4.0 * a);

    curvature_grid_release(be, &g);

    /* (c), (d) */
    registry_run(be, "mcf2d", "neumann", 32, 0.01, 5, 0);
    registry_run(be, "willmore2d", "neumann", 24, 0.0005, 4, 1);
    registry_run(be, "mcf2d", "dirichlet", 20, 0.01, 3, -1);
    registry_run(be, "willmore2d", "dirichlet", 16, 0.001, 2, -1);

    /* (e) */
    for (int willmore = 0; willmore <= 1; ++willmore)
        for (int neumann = 0; neumann <= 1; ++neumann)
            for (int64_t size = 16; size <= 20; size += 4) {
                fused_against_per_stage(be, willmore, neumann, size, 5);
                /* more members than RKM_FUSED_MAX_MEMBERS, each one block */
                if (size == 16) fused_against_per_stage(be, willmore, neumann, 8, 300);
            }
    return test_summary();
}
