/* Red-black local relaxation of the 5-point convection-diffusion operator (seed 004), per point:
 * the stencil of eq. 2-3, the local relaxation parameters of eq. 9-13, one update of eq. 6-8.
 * Shared by the OpenMP loops and the CUDA kernels (relax_cpu.c, relax_cuda.cu). */
#ifndef COHORT_RELAX_NUMERICS_H
#define COHORT_RELAX_NUMERICS_H

#include <math.h>
#include <stdint.h>

#include "backend/cohort_hd.h"

typedef enum { RELAX_LMSOR = 0, RELAX_LSOR = 1, RELAX_SOR = 2 } relax_method;

/* the local Jacobi operator's eigenvalues (seed 004, section 2) */
typedef enum { RELAX_REAL = 0, RELAX_IMAGINARY = 1, RELAX_MIXED = 2 } relax_case;

/* u_ij = l u_{i-1,j} + r u_{i+1,j} + t u_{i,j+1} + b u_{i,j-1} (eq. 2) */
typedef struct relax_stencil {
    double l, r, t, b;
} relax_stencil;

/* A member's grid: h = 1 / (M1 + 1), k = 1 / (M2 + 1), eq. 3's constant factors, and the
 * cosines of eq. 10-11 */
typedef struct relax_grid {
    double h, k;
    double cx, cy;         /* k^2 / (2 (h^2 + k^2)), h^2 / (2 (h^2 + k^2)) */
    double half_h, half_k; /* h / 2, k / 2 */
    /* cos(pi h), cos(pi k), cos(pi (1 - h) / 2), cos(pi (1 - k) / 2) */
    double cos_h, cos_k, cos_half_h, cos_half_k;
} relax_grid;

/* Host only: the cosines are taken once here, by the host's libm, so that a device that computes
 * omega from this grid gets the host's bits (the rest of the setup is +, *, / and sqrt, which
 * round the same on both when nothing is contracted). */
static inline relax_grid relax_grid_make(int64_t m1, int64_t m2)
{
    const double pi = 3.14159265358979323846;
    relax_grid g;
    g.h = 1.0 / (double)(m1 + 1), g.k = 1.0 / (double)(m2 + 1);
    const double d = 2.0 * (g.k * g.k + g.h * g.h);
    g.cx = g.k * g.k / d, g.cy = g.h * g.h / d;
    g.half_h = 0.5 * g.h, g.half_k = 0.5 * g.k;
    g.cos_h = cos(pi * g.h), g.cos_k = cos(pi * g.k);
    g.cos_half_h = cos(0.5 * pi * (1.0 - g.h)), g.cos_half_k = cos(0.5 * pi * (1.0 - g.k));
    return g;
}

/* Eq. 3 from the convection coefficients f, g at the point: the centred discretisation of u_xx +
 * u_yy - f u_x - g u_y = 0 divided by its diagonal 2 (1/h^2 + 1/k^2). */
/* Seed 004's initial iterate u0 = x y (1 - x)(1 - y) (zero on the boundary): products and
 * differences only, so every backend rounds it alike. */
COHORT_HD double relax_seed004_start(double x, double y)
{
    return x * y * (1.0 - x) * (1.0 - y);
}

COHORT_HD relax_stencil relax_stencil_at(double f, double g, const relax_grid *G)
{
    relax_stencil s;
    s.l = G->cx * (1.0 + G->half_h * f);
    s.r = G->cx * (1.0 - G->half_h * f);
    s.t = G->cy * (1.0 - G->half_k * g);
    s.b = G->cy * (1.0 + G->half_k * g);
    return s;
}

/* Seed 004's test coefficients (section 4) at (x, y): problem 1, f = Re (2x - 10)^3, g = Re (2y -
 * 10)^3; 2, f = Re (2x - 10), g = Re (2y - 10); 3, f = g = Re 10^4. */
COHORT_HD void relax_seed004_coefficients(int problem, double re, double x, double y, double *f,
                                          double *g)
{
    const double a = 2.0 * x - 10.0, b = 2.0 * y - 10.0;
    *f = problem == 1 ? re * a * a * a : problem == 2 ? re * a : re * 1e4;
    *g = problem == 1 ? re * b * b * b : problem == 2 ? re * b : re * 1e4;
}

/* Real where l r >= 0 and t b >= 0, imaginary where both are <= 0, else mixed. */
COHORT_HD relax_case relax_classify(relax_stencil s)
{
    const double lr = s.l * s.r, tb = s.t * s.b;
    if (lr >= 0.0 && tb >= 0.0) return RELAX_REAL;
    if (lr <= 0.0 && tb <= 0.0) return RELAX_IMAGINARY;
    return RELAX_MIXED;
}

/* The magnitudes of the extreme local Jacobi eigenvalues, eq. 10 (upper) and eq. 11 (lower):
 * 2 (sqrt|l r| cos(pi h) + sqrt|t b| cos(pi k)) and the same with cos(pi (1 - h) / 2),
 * cos(pi (1 - k) / 2). In the imaginary case the eigenvalues are i times these. */
COHORT_HD void relax_mu(relax_stencil s, const relax_grid *G, double *upper, double *lower)
{
    const double x = sqrt(fabs(s.l * s.r)), y = sqrt(fabs(s.t * s.b));
    *upper = 2.0 * (x * G->cos_h + y * G->cos_k);
    *lower = 2.0 * (x * G->cos_half_h + y * G->cos_half_k);
}

/* The local parameters of a point: omega for its red (i + j even) role, omega' for black.
 * LMSOR: eq. 9 (real) and eq. 13 (imaginary), omega = omega_1, omega' = omega_2.
 * LSOR (omega = omega', Kuo, Levy and Musicus; seed 004's ref. 11): the optimum of SOR for the
 * local Jacobi radius, 2 / (1 + sqrt(1 - mu^2)) (real) and 2 / (1 + sqrt(1 + mu^2)) (imaginary).
 * Mixed points (l r and t b of opposite signs; none in seed 004's tests) take omega = omega' = 1,
 * Gauss-Seidel: eq. 9-13 do not cover them, and no relaxation is the choice that cannot make a
 * point's local iteration diverge. SOR's global omega is the member's (relax_global_omega). */
COHORT_HD relax_case relax_local_parameters(relax_stencil s, const relax_grid *G,
                                            relax_method method, double *omega_red,
                                            double *omega_black)
{
    const relax_case c = relax_classify(s);
    double upper, lower;
    relax_mu(s, G, &upper, &lower);
    const double sign = c == RELAX_REAL ? -1.0 : 1.0; /* 1 - mu^2 or 1 + mu^2 */
    if (c == RELAX_MIXED) {
        *omega_red = *omega_black = 1.0;
    } else if (method == RELAX_LMSOR) {
        const double root = sqrt((1.0 + sign * upper * upper) * (1.0 + sign * lower * lower));
        *omega_red = 2.0 / (1.0 - upper * lower + root);
        *omega_black = 2.0 / (1.0 + upper * lower + root);
    } else {
        *omega_red = *omega_black = 2.0 / (1.0 + sqrt(1.0 + sign * upper * upper));
    }
    return c;
}

/* SOR's global omega for a member from its case counts over n points and its largest upper mu:
 * the optimum for that radius, 2 / (1 + sqrt(1 - mu^2)) where every point is real,
 * 2 / (1 + sqrt(1 + mu^2)) where every point is imaginary, 1 otherwise */
COHORT_HD double relax_global_omega(int64_t n, int64_t real, int64_t imaginary, double largest)
{
    if (real == n) return 2.0 / (1.0 + sqrt(1.0 - largest * largest));
    if (imaginary == n) return 2.0 / (1.0 + sqrt(1.0 + largest * largest));
    return 1.0;
}

/* One point of a colour sweep, eq. 6-7: (1 - omega) u + omega J u with J of eq. 8 */
COHORT_HD double relax_update(double u, double omega, relax_stencil s, double west, double east,
                              double north, double south)
{
    const double jacobi = s.l * west + s.r * east + s.t * north + s.b * south;
    return (1.0 - omega) * u + omega * jacobi;
}

#endif
