/* Red-black local modified SOR (seed 004) for batches of independent steady convection-diffusion
 * members, u_xx + u_yy - f u_x - g u_y = 0 on the unit square with u given on the boundary, each
 * member with its own f, g and its own iteration count (a converged member is frozen).
 *
 * A member of M1 x M2 interior points is stored with its boundary ring: (M1 + 2)(M2 + 2) values,
 * row-major, u[j * (M1 + 2) + i] at (x, y) = (i h, j k), h = 1 / (M1 + 1), k = 1 / (M2 + 1); f and
 * g hold the M1 M2 interior values, f[(j - 1) M1 + (i - 1)]. Members follow each other. */
#ifndef COHORT_RELAX_H
#define COHORT_RELAX_H

#include <stdint.h>

#include "backend/backend.h"
#include "relax/relax_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct relax_problem {
    int64_t m1, m2; /* interior points along x and y (>= 1) */
    relax_method method;
    double tolerance;       /* stop when the criterion falls to it (> 0) */
    int64_t max_iterations; /* a member not converged by then is reported so, not an error */
    int64_t check_every;    /* the history's cadence, in iterations (>= 1) */
    /* the criterion: 0, ||u^(n)||_inf (seed 004: the exact solution is 0); 1, the largest change
     * ||u^(n) - u^(n-1)||_inf (for a non-zero solution) */
    int change_criterion;
    /* the convection coefficients: 0, f and g given at every interior point of every member;
     * 1, 2 or 3, seed 004's problem (relax_seed004_coefficients) at each member's Re, computed
     * where needed (the GPU kernels then read no f, g) */
    int coefficients;
} relax_problem;

typedef struct relax_member_result {
    int64_t iterations; /* the iteration at which the criterion was met, else max_iterations */
    int converged;
    int64_t real_points, imaginary_points, mixed_points; /* seed 004's "(R, I)" and the rest */
    double omega;                                        /* SOR's global omega (SOR only) */
    int finite; /* every value of the final iterate is finite (else the member diverged) */
} relax_member_result;

/* The checks a run of p records: floor(max_iterations / check_every). */
int64_t relax_checks(const relax_problem *p);

/* Solves members [0, count) on be from the initial iterates u0 (host, as above, with their
 * boundary; NULL: seed 004's start relax_seed004_start everywhere, formed where the solve runs,
 * so that nothing is sent), into u (host, the final iterates with their boundary; NULL: not
 * brought back; u may be u0): f and g per member (coefficients = 0) or re per member
 * (coefficients = 1, 2, 3), results per member, and history[m * relax_checks(p) + c] = the
 * criterion after iteration (c + 1) check_every (NaN once the member has converged), or history
 * = NULL. Every backend gives the same bits (the same point arithmetic, and a colour's points
 * read only the other's). */
int relax_solve(const cohort_backend *be, const relax_problem *p, const double *f, const double *g,
                const double *re, const double *u0, double *u, int64_t count,
                relax_member_result *results, double *history);

#ifdef __cplusplus
}
#endif
#endif
