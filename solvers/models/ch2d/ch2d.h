/* ch2d: the 2D Cahn-Hilliard equation C_t = D lap(C^3 - C - gamma lap C) on the periodic square
 * (0, L)^2, nx x ny points, batched over members (u[(j * nx + i) * ld + m]), by the ADI scheme
 * of cuSten (seed 002) eq. 2, derived from BDF2 for the implicit hyperdiffusion with the
 * approximate factorisation I + (2/3) D gamma dt lap^2 ~ L_x L_y:
 *   L_x w = -(2/3)(C^n - C^{n-1}) - (2/3) D gamma dt lap_h^2 Cbar + (2/3) D dt lap_h (C^3 - C)^n,
 *   L_y v = w,   C^{n+1} = Cbar + v,   Cbar = 2 C^n - C^{n-1},
 *   L_x = I + (2/3) D gamma dt delta_x^4 / dx^4 (periodic pentadiagonal; L_y alike).
 * The seed starts with the standard ADI step of its eq. 3 (two half steps, the mixed term and the
 * other direction's fourth difference explicit); that step is only conditionally stable: at
 * 512^2 with dt = 0.1 dx it multiplied +-0.1 noise to 1.75e10 in one step (measured on the cpu
 * backend), and a 1024^2 run diverged. cohort takes the first step instead as the BDF1 form of
 * the same factorisation, unconditionally stable for the linear part like eq. 2:
 *   (I + dt D gamma delta_x^4/dx^4)(I + dt D gamma delta_y^4/dy^4) v
 *       = -dt D gamma lap_h^2 C^0 + dt D lap_h (C^3 - C)^0,   C^1 = C^0 + v.
 * The seed prints eq. 2
 * and 3 without some coefficients (the D gamma of the lap^2 term, the 1/dx^4 and 1/dx^2 of the
 * differences); they follow from the BDF2 derivation above. The nonlinear term at t^n, as eq. 2
 * has it, makes the scheme first order in time (test_ch2d measures orders 0.91 and 0.95 against
 * an RK4 reference). Taking it at the extrapolation Cbar instead (IMEX BDF2) was measured second
 * order (1.91, 1.96) but unstable at dt = 0.1 dx (64^2, +-0.1 noise: NaN within 200 steps, where
 * eq. 2 as printed coarsens normally), so cohort keeps the seed's choice.
 *
 * Lines along x are solved in place as groups (banded_solver_solve_groups: one group per row j,
 * ld = members), lines along y as one batch (ld = nx members): no transposes. The x lines of a
 * single large member are then single systems per group: lines of 512 points or more are solved
 * through the partitioned form, many threads a line (banded_solver_prefer_partitioned), the same
 * for every chunk.
 * The explicit parts are point operators of the stencil layer (stencil_op_ch2d_explicit). */
#ifndef COHORT_CH2D_H
#define COHORT_CH2D_H

#include <stdint.h>

#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ch2d_params {
    int64_t nx, ny; /* >= 5 each (periodic pentadiagonal lines) */
    double length;  /* the square (0, L)^2 */
    double D, gamma, dt;
} ch2d_params;

typedef struct ch2d_stepper ch2d_stepper;

int ch2d_stepper_alloc(const cohort_backend *be, const ch2d_params *p, ch2d_stepper **out);
void ch2d_stepper_free(ch2d_stepper *s);

/* The first step (the BDF1 form above): *cur holds C^0; on return *cur holds C^1 and *prev C^0 (the
 * pointers are exchanged). scratch: ld x nx x ny values. */
int ch2d_start(const ch2d_stepper *s, double **cur, double **prev, double *scratch, int64_t ld,
               int64_t m0, int64_t count);
/* One step of eq. 2: (*cur, *prev) = (C^n, C^{n-1}) becomes (C^{n+1}, C^n). */
int ch2d_step(const ch2d_stepper *s, double **cur, double **prev, double *scratch, int64_t ld,
              int64_t m0, int64_t count);

#ifdef __cplusplus
}
#endif
#endif
