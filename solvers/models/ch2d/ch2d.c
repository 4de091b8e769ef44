#include "models/ch2d/ch2d.h"

#include <math.h>
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "banded/banded.h"
#include "stencil/stencil.h"

enum { CH2D_LONG_LINE = 512 };

/* The factors of the main step (L_x, L_y) and of the first step (I + dt D gamma delta^4). */
enum { MAIN_X, MAIN_Y, FIRST_X, FIRST_Y, N_FACTORS };

struct ch2d_stepper {
    const cohort_backend *be;
    ch2d_params p;
    banded_factor *factor[N_FACTORS];
    banded_solver *solver[N_FACTORS];
};

/* I + a delta^4: the periodic pentadiagonal (a, -4a, 1 + 6a, -4a, a) of n points. */
static int hyperdiffusion_factor(int64_t n, double a, banded_factor **out)
{
    const double entries[5] = {a, -4.0 * a, 1.0 + 6.0 * a, -4.0 * a, a};
    return banded_constant_factor_alloc(n, 2, entries, 1, out);
}

int ch2d_stepper_alloc(const cohort_backend *be, const ch2d_params *p, ch2d_stepper **out)
{
    if (!out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "out is NULL");
    *out = NULL;
    if (!be || !p) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "backend and params needed");
    if (p->nx < 5 || p->ny < 5)
        return COHORT_FAIL(COHORT_ERR_SIZE_TOO_SMALL, "nx = %lld, ny = %lld (>= 5 each)",
                           (long long)p->nx, (long long)p->ny);
    if (!(p->length > 0.0) || !(p->D > 0.0) || !(p->gamma > 0.0) || !(p->dt > 0.0) ||
        !isfinite(p->length * p->D * p->gamma * p->dt))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "length = %g, D = %g, gamma = %g, dt = %g must be finite and > 0",
                           p->length, p->D, p->gamma, p->dt);
    ch2d_stepper *s = calloc(1, sizeof *s);
    if (!s) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "ch2d_stepper");
    s->be = be;
    s->p = *p;
    const double dx = p->length / (double)p->nx, dy = p->length / (double)p->ny;
    const double main = 2.0 / 3.0 * p->D * p->gamma * p->dt, first = p->D * p->gamma * p->dt;
    const double a[N_FACTORS] = {main / pow(dx, 4), main / pow(dy, 4), first / pow(dx, 4),
                                 first / pow(dy, 4)};
    const int64_t n[N_FACTORS] = {p->nx, p->ny, p->nx, p->ny};
    int rc = COHORT_OK;
    for (int f = 0; f < N_FACTORS && rc == COHORT_OK; ++f) {
        rc = hyperdiffusion_factor(n[f], a[f], &s->factor[f]);
        if (rc == COHORT_OK) rc = banded_solver_alloc(be, s->factor[f], &s->solver[f]);
        /* lines of CH2D_LONG_LINE points or more: a field that large has few lines a member for
         * its size (1,024 of 1,024 at 1024^2), so each line is solved by many threads */
        if (rc == COHORT_OK && n[f] >= CH2D_LONG_LINE)
            banded_solver_prefer_partitioned(s->solver[f]);
    }
    if (rc != COHORT_OK) {
        ch2d_stepper_free(s);
        return rc;
    }
    *out = s;
    return COHORT_OK;
}

void ch2d_stepper_free(ch2d_stepper *s)
{
    if (!s) return;
    for (int f = 0; f < N_FACTORS; ++f) {
        banded_solver_free(s->solver[f]);
        banded_factor_free(s->factor[f]);
    }
    free(s);
}

/* Lines along x (factor MAIN_X or FIRST_X) or y of members [m0, m0 + count), in place. */
static int solve_lines(const ch2d_stepper *s, int factor, double *u, int64_t ld, int64_t m0,
                       int64_t count)
{
    const int64_t nx = s->p.nx, ny = s->p.ny;
    if (factor == MAIN_X || factor == FIRST_X)
        return banded_solver_solve_groups(s->solver[factor], u, ld, m0, count, ny, nx * ld);
    if (m0 == 0 && count == ld) /* whole batch: the y lines are one contiguous batch */
        return banded_solver_solve(s->solver[factor], u, nx * ld, 0, nx * ld);
    return banded_solver_solve_groups(s->solver[factor], u, nx * ld, m0, count, nx, ld);
}

/* The explicit operator's parameters (stencil_op_ch2d_explicit) for
 * s0 A + s1 B - [c4x dx^-4 delta_x^4 + c4y dy^-4 delta_y^4 + 2 cm (dx dy)^-2 delta_x^2 delta_y^2]
 * (e0 A + e1 B) + cl [dx^-2 delta_x^2 + dy^-2 delta_y^2] (A^3 - A). */
static stencil_op_args explicit_args(const ch2d_stepper *s, const double *a, const double *b,
                                     double s0, double s1, double e0, double e1, double c4x,
                                     double c4y, double cm, double cl)
{
    const double dx = s->p.length / (double)s->p.nx, dy = s->p.length / (double)s->p.ny;
    stencil_op_args args = {{a, b, NULL},
                            {s0, s1, e0, e1, c4x / pow(dx, 4), 2.0 * cm / (dx * dx * dy * dy),
                             c4y / pow(dy, 4), cl / (dx * dx), cl / (dy * dy)}};
    return args;
}

int ch2d_start(const ch2d_stepper *s, double **cur, double **prev, double *scratch, int64_t ld,
               int64_t m0, int64_t count)
{
    if (!s || !cur || !prev || !*cur || !*prev || !scratch)
        return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "stepper, fields and scratch are required");
    const int64_t nx = s->p.nx, ny = s->p.ny;
    const double a = s->p.dt * s->p.D * s->p.gamma, b = s->p.dt * s->p.D;
    /* (I + a delta_x^4)(I + a delta_y^4) v = -a lap_h^2 C^0 + b lap_h (C^3 - C)^0 (ch2d.h) */
    stencil_op_args args = explicit_args(s, *cur, *cur, 0.0, 0.0, 1.0, 0.0, a, a, a, b);
    COHORT_CALL(stencil_operator_compute(s->be, STENCIL_OP_CH2D_EXPLICIT, &args, STENCIL_PERIODIC,
                                         scratch, nx, ny, ld, m0, count));
    COHORT_CALL(solve_lines(s, FIRST_X, scratch, ld, m0, count));
    COHORT_CALL(solve_lines(s, FIRST_Y, scratch, ld, m0, count));
    /* C^1 = C^0 + v into the other buffer, which then holds C^1 while *cur keeps C^0 */
    const stencil_op_args update = {{*cur, *cur, scratch}, {1.0, 0.0, 1.0}};
    COHORT_CALL(stencil_operator_compute(s->be, STENCIL_OP_COMBINE, &update, STENCIL_PERIODIC,
                                         *prev, nx, ny, ld, m0, count));
    stencil_swap(cur, prev);
    return COHORT_OK;
}

int ch2d_step(const ch2d_stepper *s, double **cur, double **prev, double *scratch, int64_t ld,
              int64_t m0, int64_t count)
{
    if (!s || !cur || !prev || !*cur || !*prev || !scratch)
        return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "stepper, fields and scratch are required");
    const int64_t nx = s->p.nx, ny = s->p.ny;
    const double a = 2.0 / 3.0 * s->p.D * s->p.gamma * s->p.dt, b = 2.0 / 3.0 * s->p.D * s->p.dt;
    /* eq. 2a right-hand side, A = C^n, B = C^{n-1} */
    stencil_op_args args =
        explicit_args(s, *cur, *prev, -2.0 / 3.0, 2.0 / 3.0, 2.0, -1.0, a, a, a, b);
    COHORT_CALL(stencil_operator_compute(s->be, STENCIL_OP_CH2D_EXPLICIT, &args, STENCIL_PERIODIC,
                                         scratch, nx, ny, ld, m0, count));
    COHORT_CALL(solve_lines(s, MAIN_X, scratch, ld, m0, count)); /* eq. 2a: w */
    COHORT_CALL(solve_lines(s, MAIN_Y, scratch, ld, m0, count)); /* eq. 2b: v */
    /* eq. 2c: C^{n+1} = 2 C^n - C^{n-1} + v, over C^{n-1} (each point reads only itself) */
    const stencil_op_args update = {{*cur, *prev, scratch}, {2.0, -1.0, 1.0}};
    COHORT_CALL(stencil_operator_compute(s->be, STENCIL_OP_COMBINE, &update, STENCIL_PERIODIC,
                                         *prev, nx, ny, ld, m0, count));
    stencil_swap(cur, prev);
    return COHORT_OK;
}
