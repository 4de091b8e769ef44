/* convdiff2d: the steady convection-diffusion equation of seed 004, u_xx + u_yy - f u_x - g u_y =
 * 0 on the unit square with u = 0 on the boundary, solved per member by red-black local modified
 * SOR (solvers/relax) from u0 = x y (1 - x)(1 - y) until ||u||_inf <= solver.tolerance (the exact
 * solution is 0). grid.nx, grid.ny count interior points (seed 004's M1, M2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "models/model.h"
#include "relax/relax.h"

enum { PARAM_PROBLEM, PARAM_RE, N_PARAMS };

static const cohort_model_param params[N_PARAMS] = {
    [PARAM_PROBLEM] = {"problem", "1", 1, 3, 0, "1",
                       "seed 004's coefficients: 1, f = Re (2x - 10)^3, g = Re (2y - 10)^3; 2, f = "
                       "Re (2x - 10), g = Re (2y - 10); 3, f = g = Re 10^4"},
    [PARAM_RE] = {"re", "10", 0, INFINITY, 1, "1", "the Reynolds number Re of the coefficients"},
};

static const cohort_model_observable member_values[] = {
    {"iterations",
     "red-black iterations until ||u||_inf <= solver.tolerance (solver.max_iterations "
     "where it did not converge)",
     "1"},
    {"converged", "1 where the member met solver.tolerance within solver.max_iterations", "1"},
    {"real_points", "interior points whose local Jacobi eigenvalues are real (seed 004's R)", "1"},
    {"imaginary_points",
     "interior points whose local Jacobi eigenvalues are imaginary (seed "
     "004's I)",
     "1"},
    {"mixed_points", "interior points with l r and t b of opposite signs (relaxed with omega = 1)",
     "1"},
};

typedef struct convdiff_stepper {
    const cohort_backend *be;
    relax_problem problem; /* coefficients = model.problem */
    double re;
    double *re_members, *u;      /* members' Re and iterates (with their boundary) */
    relax_member_result *result; /* per member */
    int64_t capacity;            /* members the buffers hold */
} convdiff_stepper;

static int convdiff_check(const cohort_model *m, const cohort_model_values *v, const char **key,
                          char *why, size_t len)
{
    (void)m;
    const double problem = v->param[PARAM_PROBLEM];
    if (problem != floor(problem)) {
        *key = "model.problem";
        snprintf(why, len, "the problem is one of seed 004's three: 1, 2 or 3");
        return 2;
    }
    return 0;
}

static int convdiff_alloc(const cohort_model *m, const cohort_backend *be,
                          const cohort_model_values *v, void **stepper)
{
    (void)m;
    convdiff_stepper *s = calloc(1, sizeof *s);
    if (!s) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "convdiff2d stepper");
    s->problem = (relax_problem){v->nx,
                                 v->ny,
                                 (relax_method)v->solver_method,
                                 v->solver_tolerance,
                                 v->max_iterations,
                                 v->check_every,
                                 0,
                                 (int)v->param[PARAM_PROBLEM]};
    s->be = be;
    s->re = v->param[PARAM_RE];
    *stepper = s;
    return COHORT_OK;
}

static void convdiff_free(void *stepper)
{
    convdiff_stepper *s = stepper;
    if (!s) return;
    free(s->re_members), free(s->u), free(s->result), free(s);
}

/* Buffers for count members, kept while chunks fit. */
static int ensure_capacity(convdiff_stepper *s, int64_t count)
{
    if (count <= s->capacity) return COHORT_OK;
    const size_t ring = (size_t)((s->problem.m1 + 2) * (s->problem.m2 + 2));
    free(s->re_members), free(s->u), free(s->result);
    s->re_members = malloc((size_t)count * sizeof *s->re_members);
    s->u = malloc((size_t)count * ring * sizeof *s->u);
    s->result = malloc((size_t)count * sizeof *s->result);
    s->capacity = s->re_members && s->u && s->result ? count : 0;
    return s->capacity ? COHORT_OK
                       : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld members of %lld points",
                                     (long long)count, (long long)ring);
}

/* The chunk's members in one relax_solve, each from seed 004's u0 = x y (1 - x)(1 - y) (zero on
 * the boundary, formed where the solve runs), the coefficients of model.problem at the member's
 * Re; the iterates brought back only where fields are wanted */
static int convdiff_solve(void *stepper, const double *member_param, int64_t count, double *fields,
                          double *values, double *history, unsigned char *diverged)
{
    convdiff_stepper *s = stepper;
    COHORT_CALL(ensure_capacity(s, count));
    const relax_problem *p = &s->problem;
    const int64_t m1 = p->m1, m2 = p->m2, interior = m1 * m2, ring = (m1 + 2) * (m2 + 2);
    for (int64_t k = 0; k < count; ++k) s->re_members[k] = member_param ? member_param[k] : s->re;
    COHORT_CALL(relax_solve(s->be, p, NULL, NULL, s->re_members, NULL, fields ? s->u : NULL, count,
                            s->result, history));
    for (int64_t k = 0; k < count; ++k) {
        for (int64_t j = 1; fields && j <= m2; ++j)
            memcpy(fields + k * interior + (j - 1) * m1, s->u + k * ring + j * (m1 + 2) + 1,
                   (size_t)m1 * sizeof(double));
        diverged[k] = !s->result[k].finite;
        const relax_member_result *r = &s->result[k];
        const double v[5] = {(double)r->iterations, (double)r->converged, (double)r->real_points,
                             (double)r->imaginary_points, (double)r->mixed_points};
        for (int q = 0; q < 5; ++q) values[q * count + k] = v[q];
    }
    return COHORT_OK;
}

static const cohort_model_steady steady = {
    .solver_methods = "lmsor|lsor|sor",
    .member_values = member_values,
    .n_member_values = 5,
    .history_name = "residual_history",
    .history_meaning = "||u||_inf of the member after check (c + 1) solver.check_every iterations "
                       "(NaN once it has converged)",
    .solve = convdiff_solve,
};

const cohort_model cohort_model_convdiff2d = {
    .name = "convdiff2d",
    .summary = "steady convection-diffusion on the unit square by red-black local modified SOR",
    .equation = "u_xx + u_yy - f(x, y) u_x - g(x, y) u_y = 0 on [0, 1]^2, u = 0 on the boundary",
    .scheme = "5-point centred differences (seed 004, eq. 2-3), red-black LMSOR with the local "
              "parameters of eq. 9-13 (or LSOR, or global-omega SOR: solver.method)",
    .citation = "Cotronis, Konstantinidis, Louka, Missirlis: Parallel SOR for solving the "
                "convection diffusion equation using GPUs with CUDA (seed 004)",
    .dimension = 2,
    .min_points = 3,
    .min_points_reason = "seed 004's grids are at least 3 x 3 interior points",
    .params = params,
    .n_params = N_PARAMS,
    .per_member_param = PARAM_RE,
    .initial_kinds = "uniform", /* not read: a steady model starts from its own u0 */
    .field_meaning = "converged iterate u",
    .cpu_cuda_rtol = 0.0,
    .stepper_alloc = convdiff_alloc,
    .stepper_free = convdiff_free,
    .check = convdiff_check,
    .steady = &steady,
};
