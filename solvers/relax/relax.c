#include "relax/relax.h"

#include "backend/cohort_error.h"
#include "relax/relax_kernels.h"

int64_t relax_checks(const relax_problem *p)
{
    return p->max_iterations / p->check_every;
}

int relax_solve(const cohort_backend *be, const relax_problem *p, const double *f, const double *g,
                const double *re, const double *u0, double *u, int64_t count,
                relax_member_result *results, double *history)
{
    if (!be || !p || !results || (!p->coefficients && (!f || !g)) || (p->coefficients && !re))
        return COHORT_FAIL(COHORT_ERR_NULL_POINTER,
                           "backend, problem, results and f, g (or re) are required");
    if (p->m1 < 1 || p->m2 < 1 || !(p->tolerance > 0.0) || p->max_iterations < 1 ||
        p->check_every < 1 || count < 0 || p->coefficients < 0 || p->coefficients > 3)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "m1 = %lld, m2 = %lld, tolerance = %g, max_iterations = %lld, "
                           "check_every = %lld, count = %lld, coefficients = %d",
                           (long long)p->m1, (long long)p->m2, p->tolerance,
                           (long long)p->max_iterations, (long long)p->check_every,
                           (long long)count, p->coefficients);
    return COHORT_KERNELS(be, relax_kernels)->solve(p, f, g, re, u0, u, count, results, history);
}
