/* The relaxation on the cpu backend (relax_kernels.h): OpenMP over members where there are enough
 * of them, else over a lone member's rows (a colour's points read only the other colour, so any
 * order gives the same bits). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "relax/relax_kernels.h"

/* A member's setup: its coefficients (into f, g where p->coefficients, else read from them),
 * stencils and omega at each interior point ((j - 1) M1 + (i - 1): omega for its colour), and
 * the result's case counts and SOR omega */
static void member_setup(const relax_problem *p, double *f, double *g, double re,
                         relax_stencil *stencil, double *omega, relax_member_result *result)
{
    const int64_t m1 = p->m1, m2 = p->m2;
    const relax_grid G = relax_grid_make(m1, m2);
    *result = (relax_member_result){p->max_iterations, 0, 0, 0, 0, 0.0, 0};
    int64_t real = 0, imaginary = 0, mixed = 0;
    double largest = 0.0;
    /* threads over the rows unless the caller already runs members in parallel */
#pragma omp parallel for schedule(static) reduction(+ : real, imaginary, mixed) \
    reduction(max : largest) if (!omp_in_parallel())
    for (int64_t j = 1; j <= m2; ++j)
        for (int64_t i = 1; i <= m1; ++i) {
            const int64_t v = (j - 1) * m1 + (i - 1);
            if (p->coefficients)
                relax_seed004_coefficients(p->coefficients, re, (double)i * G.h, (double)j * G.k,
                                           &f[v], &g[v]);
            stencil[v] = relax_stencil_at(f[v], g[v], &G);
            double red, black, upper, lower;
            const relax_case c = relax_local_parameters(stencil[v], &G, p->method, &red, &black);
            omega[v] = (i + j) % 2 == 0 ? red : black;
            real += c == RELAX_REAL, imaginary += c == RELAX_IMAGINARY, mixed += c == RELAX_MIXED;
            if (p->method == RELAX_SOR) {
                relax_mu(stencil[v], &G, &upper, &lower);
                largest = fmax(largest, upper);
            }
        }
    result->real_points = real, result->imaginary_points = imaginary, result->mixed_points = mixed;
    if (p->method == RELAX_SOR) {
        result->omega = relax_global_omega(m1 * m2, real, imaginary, largest);
        for (int64_t v = 0; v < m1 * m2; ++v) omega[v] = result->omega;
    }
}

/* One member: its setup, then red and black sweeps until the criterion is met; the criterion's
 * maximum is taken in the sweeps themselves (a red point's value after the red sweep is its value
 * after the iteration). */
static void solve_member(const relax_problem *p, double *f, double *g, double re, double *u,
                         relax_stencil *stencil, double *omega, relax_member_result *result,
                         double *history, int threads_inside)
{
    const int64_t m1 = p->m1, m2 = p->m2, row = m1 + 2, checks = relax_checks(p);
    member_setup(p, f, g, re, stencil, omega, result);
    for (int64_t c = 0; history && c < checks; ++c) history[c] = NAN;
    for (int64_t n = 1; n <= p->max_iterations; ++n) {
        double criterion = 0.0;
        for (int colour = 0; colour < 2; ++colour)
#pragma omp parallel for schedule(static) reduction(max : criterion) if (threads_inside)
            for (int64_t j = 1; j <= m2; ++j)
                for (int64_t i = 1 + (j + 1 + colour) % 2; i <= m1; i += 2) {
                    const int64_t v = (j - 1) * m1 + (i - 1), at = j * row + i;
                    const double old = u[at];
                    u[at] = relax_update(old, omega[v], stencil[v], u[at - 1], u[at + 1],
                                         u[at + row], u[at - row]);
                    criterion = fmax(criterion, fabs(p->change_criterion ? u[at] - old : u[at]));
                }
        if (history && n % p->check_every == 0) history[n / p->check_every - 1] = criterion;
        if (criterion <= p->tolerance) {
            result->iterations = n, result->converged = 1;
            return;
        }
    }
}

/* Members [m0, m0 + count) in turn with one thread's scratch (threads_inside: each member's sweeps
 * take the threads) */
static int solve_members(const relax_problem *p, const double *f, const double *g, const double *re,
                         double *u, int64_t m0, int64_t count, relax_member_result *results,
                         double *history, int threads_inside)
{
    const int64_t interior = p->m1 * p->m2, ring = (p->m1 + 2) * (p->m2 + 2);
    relax_stencil *stencil = malloc((size_t)interior * sizeof *stencil);
    double *omega = malloc((size_t)interior * sizeof *omega);
    double *fm = malloc((size_t)interior * sizeof *fm), *gm = malloc((size_t)interior * sizeof *gm);
    int rc = COHORT_OK;
    if (!stencil || !omega || !fm || !gm)
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "stencils of %lld points", (long long)interior);
    for (int64_t m = m0; m < m0 + count && rc == COHORT_OK; ++m) {
        for (int64_t v = 0; v < interior && !p->coefficients; ++v)
            fm[v] = f[m * interior + v], gm[v] = g[m * interior + v];
        solve_member(p, fm, gm, p->coefficients ? re[m] : 0.0, u + m * ring, stencil, omega,
                     &results[m], history ? history + m * relax_checks(p) : NULL, threads_inside);
    }
    free(stencil), free(omega), free(fm), free(gm);
    return rc;
}

/* The members' initial iterates in work: u0's, or seed 004's start. */
static void start_members(const relax_problem *p, const double *u0, double *work, int64_t count)
{
    const int64_t ring = (p->m1 + 2) * (p->m2 + 2);
    if (u0) {
        if (u0 != work) memcpy(work, u0, (size_t)(count * ring) * sizeof *work);
        return;
    }
    const relax_grid G = relax_grid_make(p->m1, p->m2);
#pragma omp parallel for schedule(static)
    for (int64_t m = 0; m < count; ++m)
        for (int64_t j = 0; j <= p->m2 + 1; ++j)
            for (int64_t i = 0; i <= p->m1 + 1; ++i)
                work[m * ring + j * (p->m1 + 2) + i] =
                    relax_seed004_start((double)i * G.h, (double)j * G.k);
}

/* Each member's result.finite: every value of its final iterate finite. */
static void mark_finite(const relax_problem *p, const double *work, int64_t count,
                        relax_member_result *results)
{
    const int64_t ring = (p->m1 + 2) * (p->m2 + 2);
    for (int64_t m = 0; m < count; ++m) {
        int finite = 1;
        for (int64_t v = 0; v < ring; ++v) finite &= isfinite(work[m * ring + v]) != 0;
        results[m].finite = finite;
    }
}

static int relax_solve_cpu(const relax_problem *p, const double *f, const double *g,
                           const double *re, const double *u0, double *u, int64_t count,
                           relax_member_result *results, double *history)
{
    const int64_t ring = (p->m1 + 2) * (p->m2 + 2);
    double *work = u ? u : malloc((size_t)(count * ring) * sizeof *work);
    if (!work) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld members", (long long)count);
    start_members(p, u0, work, count);
    /* threads over members where there are enough of them, else over each member's rows (not
     * nested: a parallel region inside another would make new threads every sweep) */
    int rc = COHORT_OK;
    if (count < omp_get_max_threads()) {
        rc = solve_members(p, f, g, re, work, 0, count, results, history, 1);
    } else {
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t m = 0; m < count; ++m) {
            const int member_rc = solve_members(p, f, g, re, work, m, 1, results, history, 0);
            if (member_rc != COHORT_OK) {
#pragma omp critical
                rc = member_rc;
            }
        }
    }
    if (rc == COHORT_OK) mark_finite(p, work, count, results);
    if (work != u) free(work);
    return rc;
}

const relax_kernels relax_kernels_cpu = {.solve = relax_solve_cpu};
