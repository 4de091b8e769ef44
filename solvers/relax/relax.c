#include "relax/relax.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "backend/cohort_error.h"

int64_t relax_checks(const relax_problem *p)
{
    return p->max_iterations / p->check_every;
}

static double spacing(int64_t m)
{
    return 1.0 / (double)(m + 1);
}

double relax_global_omega(const relax_problem *p, const double *f, const double *g)
{
    const double h = spacing(p->m1), k = spacing(p->m2);
    double largest = 0.0;
    int real = 0, imaginary = 0;
    for (int64_t v = 0; v < p->m1 * p->m2; ++v) {
        const relax_stencil s = relax_stencil_at(f[v], g[v], h, k);
        const relax_case c = relax_classify(s);
        double upper, lower;
        relax_mu(s, h, k, &upper, &lower);
        largest = fmax(largest, upper);
        real += c == RELAX_REAL, imaginary += c == RELAX_IMAGINARY;
    }
    const int64_t n = p->m1 * p->m2;
    if (real == n) return 2.0 / (1.0 + sqrt(1.0 - largest * largest));
    if (imaginary == n) return 2.0 / (1.0 + sqrt(1.0 + largest * largest));
    return 1.0;
}

/* One member: its stencils and parameters once (they depend on f and g only), then red and black
 * sweeps until the criterion is met; the criterion's maximum is taken in the sweeps themselves
 * (a red point's value after the red sweep is its value after the iteration). */
static void solve_member(const relax_problem *p, const double *f, const double *g, double *u,
                         relax_stencil *stencil, double *omega, relax_member_result *result,
                         double *history, int threads_inside)
{
    const int64_t m1 = p->m1, m2 = p->m2, row = m1 + 2, checks = relax_checks(p);
    const double h = spacing(m1), k = spacing(m2);
    const double global = p->method == RELAX_SOR ? relax_global_omega(p, f, g) : 0.0;
    *result = (relax_member_result){p->max_iterations, 0, 0, 0, 0, global};
    for (int64_t j = 1; j <= m2; ++j)
        for (int64_t i = 1; i <= m1; ++i) {
            const int64_t v = (j - 1) * m1 + (i - 1);
            double red, black;
            stencil[v] = relax_stencil_at(f[v], g[v], h, k);
            const relax_case c = relax_local_parameters(stencil[v], h, k, p->method, &red, &black);
            omega[v] = p->method == RELAX_SOR ? global : ((i + j) % 2 == 0 ? red : black);
            result->real_points += c == RELAX_REAL;
            result->imaginary_points += c == RELAX_IMAGINARY;
            result->mixed_points += c == RELAX_MIXED;
        }
    for (int64_t c = 0; history && c < checks; ++c) history[c] = NAN;
    for (int64_t n = 1; n <= p->max_iterations; ++n) {
        double criterion = 0.0;
        /* a colour's points read only the other colour: any order, the same bits */
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

int relax_solve(const relax_problem *p, const double *f, const double *g, double *u, int64_t count,
                relax_member_result *results, double *history)
{
    if (!p || !f || !g || !u || !results)
        return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "problem, f, g, u and results are required");
    if (p->m1 < 1 || p->m2 < 1 || !(p->tolerance > 0.0) || p->max_iterations < 1 ||
        p->check_every < 1 || count < 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "m1 = %lld, m2 = %lld, tolerance = %g, max_iterations = %lld, "
                           "check_every = %lld, count = %lld",
                           (long long)p->m1, (long long)p->m2, p->tolerance,
                           (long long)p->max_iterations, (long long)p->check_every,
                           (long long)count);
    const int64_t interior = p->m1 * p->m2, ring = (p->m1 + 2) * (p->m2 + 2);
    int rc = COHORT_OK;
    /* threads over members where there are enough of them, else over each member's rows */
    if (count < omp_get_max_threads()) {
        relax_stencil *stencil = malloc((size_t)interior * sizeof *stencil);
        double *omega = malloc((size_t)interior * sizeof *omega);
        if (!stencil || !omega)
            rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "stencils of %lld points", (long long)interior);
        for (int64_t m = 0; m < count && rc == COHORT_OK; ++m)
            solve_member(p, f + m * interior, g + m * interior, u + m * ring, stencil, omega,
                         &results[m], history ? history + m * relax_checks(p) : NULL, 1);
        free(stencil), free(omega);
        return rc;
    }
#pragma omp parallel
    {
        relax_stencil *stencil = malloc((size_t)interior * sizeof *stencil);
        double *omega = malloc((size_t)interior * sizeof *omega);
        if (!stencil || !omega) {
#pragma omp critical
            rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "stencils of %lld points", (long long)interior);
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t m = 0; m < count; ++m)
            if (stencil && omega)
                solve_member(p, f + m * interior, g + m * interior, u + m * ring, stencil, omega,
                             &results[m], history ? history + m * relax_checks(p) : NULL, 0);
        free(stencil), free(omega);
    }
    return rc;
}
