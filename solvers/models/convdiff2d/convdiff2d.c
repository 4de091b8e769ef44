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
    relax_problem problem;
    int kind; /* model.problem */
    double re;
    double *f, *g; /* one member's coefficients */
    double *u;     /* one member with its boundary */
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

static double no_dt(const cohort_model_values *v)
{
    (void)v;
    return 1.0; /* steady: no time step */
}

static int convdiff_alloc(const cohort_model *m, const cohort_backend *be,
                          const cohort_model_values *v, void **stepper)
{
    (void)m, (void)be;
    convdiff_stepper *s = calloc(1, sizeof *s);
    if (!s) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "convdiff2d stepper");
    s->problem = (relax_problem){v->nx,
                                 v->ny,
                                 (relax_method)v->solver_method,
                                 v->solver_tolerance,
                                 v->max_iterations,
                                 v->check_every,
                                 0};
    s->kind = (int)v->param[PARAM_PROBLEM];
    s->re = v->param[PARAM_RE];
    const size_t interior = (size_t)(v->nx * v->ny), ring = (size_t)((v->nx + 2) * (v->ny + 2));
    s->f = malloc(interior * sizeof *s->f);
    s->g = malloc(interior * sizeof *s->g);
    s->u = malloc(ring * sizeof *s->u);
    if (!s->f || !s->g || !s->u) {
        free(s->f), free(s->g), free(s->u), free(s);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "a member of %lld points", (long long)interior);
    }
    *stepper = s;
    return COHORT_OK;
}

static void convdiff_free(void *stepper)
{
    convdiff_stepper *s = stepper;
    if (!s) return;
    free(s->f), free(s->g), free(s->u), free(s);
}

static int no_step(void *stepper, cohort_model_state *st, int64_t step)
{
    (void)stepper, (void)st, (void)step;
    return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "convdiff2d is steady: it is solved, not "
                                                    "stepped");
}

/* seed 004, section 4: the coefficients of problem 1, 2 or 3 at Re, and u0 = x y (1 - x)(1 - y)
 * (zero on the boundary) */
static void member_setup(convdiff_stepper *s, double re)
{
    const int64_t m1 = s->problem.m1, m2 = s->problem.m2;
    const double h = 1.0 / (double)(m1 + 1), k = 1.0 / (double)(m2 + 1);
    for (int64_t j = 1; j <= m2; ++j)
        for (int64_t i = 1; i <= m1; ++i) {
            const double x = (double)i * h, y = (double)j * k, a = 2 * x - 10, b = 2 * y - 10;
            const int64_t v = (j - 1) * m1 + (i - 1);
            s->f[v] = s->kind == 1 ? re * a * a * a : s->kind == 2 ? re * a : re * 1e4;
            s->g[v] = s->kind == 1 ? re * b * b * b : s->kind == 2 ? re * b : re * 1e4;
        }
    for (int64_t j = 0; j <= m2 + 1; ++j)
        for (int64_t i = 0; i <= m1 + 1; ++i) {
            const double x = (double)i * h, y = (double)j * k;
            s->u[j * (m1 + 2) + i] = x * y * (1 - x) * (1 - y);
        }
}

/* Members one at a time on the host (relax_solve takes its threads over a member's sweeps
 * where there is one member, over members where there are many: see relax.c) */
static int convdiff_solve(void *stepper, const double *member_param, int64_t count, double *fields,
                          double *values, double *history)
{
    convdiff_stepper *s = stepper;
    const int64_t m1 = s->problem.m1, m2 = s->problem.m2, checks = relax_checks(&s->problem);
    for (int64_t k = 0; k < count; ++k) {
        member_setup(s, member_param ? member_param[k] : s->re);
        relax_member_result r;
        COHORT_CALL(relax_solve(&s->problem, s->f, s->g, s->u, 1, &r, history + k * checks));
        for (int64_t j = 1; j <= m2; ++j)
            memcpy(fields + k * m1 * m2 + (j - 1) * m1, s->u + j * (m1 + 2) + 1,
                   (size_t)m1 * sizeof(double));
        const double v[5] = {(double)r.iterations, (double)r.converged, (double)r.real_points,
                             (double)r.imaginary_points, (double)r.mixed_points};
        for (int q = 0; q < 5; ++q) values[q * count + k] = v[q];
    }
    return COHORT_OK;
}

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
    .evolves_deviation = 0,
    .time_levels = 1,
    .conserves_mean = 0,
    .length_name = NULL,
    .field_meaning = "converged iterate u",
    .fit = COHORT_FIT_POWER_LAW,
    .cpu_cuda_rtol = 0.0,
    .dt_auto = no_dt,
    .stepper_alloc = convdiff_alloc,
    .stepper_free = convdiff_free,
    .step = no_step,
    .check = convdiff_check,
    .solver_methods = "lmsor|lsor|sor",
    .member_values = member_values,
    .n_member_values = 5,
    .history_name = "residual_history",
    .history_meaning = "||u||_inf of the member after check (c + 1) solver.check_every iterations "
                       "(NaN once it has converged)",
    .solve = convdiff_solve,
};
