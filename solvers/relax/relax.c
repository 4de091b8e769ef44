#include "relax/relax.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "relax/relax_kernels.h"

int64_t relax_checks(const relax_problem *p)
{
    return p->max_iterations / p->check_every;
}

double relax_global_omega(const relax_problem *p, const relax_stencil *stencil)
{
    const relax_grid G = relax_grid_make(p->m1, p->m2);
    const int64_t n = p->m1 * p->m2;
    double largest = 0.0;
    int64_t real = 0, imaginary = 0;
    for (int64_t v = 0; v < n; ++v) {
        const relax_case c = relax_classify(stencil[v]);
        double upper, lower;
        relax_mu(stencil[v], G.h, G.k, &upper, &lower);
        largest = fmax(largest, upper);
        real += c == RELAX_REAL, imaginary += c == RELAX_IMAGINARY;
    }
    if (real == n) return 2.0 / (1.0 + sqrt(1.0 - largest * largest));
    if (imaginary == n) return 2.0 / (1.0 + sqrt(1.0 + largest * largest));
    return 1.0;
}

void relax_member_setup(const relax_problem *p, double *f, double *g, double re,
                        relax_stencil *stencil, double *omega, relax_member_result *result)
{
    const int64_t m1 = p->m1, m2 = p->m2;
    const relax_grid G = relax_grid_make(m1, m2);
    *result = (relax_member_result){p->max_iterations, 0, 0, 0, 0, 0.0};
    int64_t real = 0, imaginary = 0, mixed = 0;
    /* threads over the rows unless the caller already runs members in parallel */
#pragma omp parallel for schedule(static) reduction(+ : real, imaginary, mixed) if (!omp_in_parallel())
    for (int64_t j = 1; j <= m2; ++j)
        for (int64_t i = 1; i <= m1; ++i) {
            const int64_t v = (j - 1) * m1 + (i - 1);
            if (p->coefficients)
                relax_seed004_coefficients(p->coefficients, re, (double)i * G.h, (double)j * G.k,
                                           &f[v], &g[v]);
            stencil[v] = relax_stencil_at(f[v], g[v], &G);
            double red, black;
            const relax_case c =
                relax_local_parameters(stencil[v], G.h, G.k, p->method, &red, &black);
            omega[v] = (i + j) % 2 == 0 ? red : black;
            real += c == RELAX_REAL, imaginary += c == RELAX_IMAGINARY, mixed += c == RELAX_MIXED;
        }
    result->real_points = real, result->imaginary_points = imaginary, result->mixed_points = mixed;
    if (p->method == RELAX_SOR) {
        result->omega = relax_global_omega(p, stencil);
        for (int64_t v = 0; v < m1 * m2; ++v) omega[v] = result->omega;
    }
}

int relax_solve(const cohort_backend *be, const relax_problem *p, const double *f, const double *g,
                const double *re, double *u, int64_t count, relax_member_result *results,
                double *history)
{
    if (!be || !p || !u || !results || (!p->coefficients && (!f || !g)) || (p->coefficients && !re))
        return COHORT_FAIL(COHORT_ERR_NULL_POINTER,
                           "backend, problem, u, results and f, g (or re) are required");
    if (p->m1 < 1 || p->m2 < 1 || !(p->tolerance > 0.0) || p->max_iterations < 1 ||
        p->check_every < 1 || count < 0 || p->coefficients < 0 || p->coefficients > 3)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "m1 = %lld, m2 = %lld, tolerance = %g, max_iterations = %lld, "
                           "check_every = %lld, count = %lld, coefficients = %d",
                           (long long)p->m1, (long long)p->m2, p->tolerance,
                           (long long)p->max_iterations, (long long)p->check_every,
                           (long long)count, p->coefficients);
    return COHORT_KERNELS(be, relax_kernels)->solve(p, f, g, re, u, count, results, history);
}
