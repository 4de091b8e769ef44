/* The explicit right-hand side of the 1D periodic models, one point at a time, shared by the
 * OpenMP loop and the CUDA kernel (COHORT_HD). Every 1D model in cohort is
 *     A C^{n+1} = f(C^n),   A a shared periodic tri- or pentadiagonal matrix,
 * with f a five-point linear stencil plus, for Cahn-Hilliard, dt * delta_x^2 (C^3 - C):
 *   diffusion1d       C_t =  alpha C_xx     Crank-Nicolson (seed 003, eq. 9-11)
 *   hyperdiffusion1d  C_t = -alpha C_xxxx   Crank-Nicolson (eq. 17-19)
 *   ch1d              C_t = (C^3 - C - gamma C_xx)_xx, implicit hyperdiffusion, explicit
 *                     nonlinearity (eq. 24-26; the centre weight of delta_x^4 is +6, eq. 25b
 *                     prints +1). */
#ifndef COHORT_MODEL1D_NUMERICS_H
#define COHORT_MODEL1D_NUMERICS_H

#include <stdint.h>

#include "backend/cohort_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct model1d_rhs {
    double weight[5]; /* linear stencil on C_{i-2} .. C_{i+2} */
    double nonlinear; /* dt / dx^2 for Cahn-Hilliard's delta_x^2 (C^3 - C); 0 otherwise */
} model1d_rhs;

COHORT_HD double model1d_chemical(double c)
{
    return c * c * c - c;
}

/* f_i from the five neighbours c[0..4] = C'_{i-2} .. C'_{i+2} of a member stored as its deviation
 * C' = C - mean from its mean. The linear weights sum to 1 and delta_x^2 sums to 0 over a
 * periodic domain, so every model conserves each member's mean exactly and C' keeps mean 0. In
 * floating point the banded solve's rounding weights the rows slightly unequally, and because a
 * member's pattern (its domains) persists for many steps, the mean of C' drifts linearly (measured:
 * ~1.5e-15 per step for ch1d at N = 256, 3e-12 after 2000 steps). The callers therefore pass
 * `drift`, the mean of C' they read, and the step uses C' - drift: a projection back onto the
 * conserved mean that costs no extra write. mean = drift = 0 evolves the field itself. */
COHORT_HD double model1d_rhs_point(const model1d_rhs *r, const double c[5], double mean,
                                   double drift)
{
    double acc = -drift; /* the weights sum to 1 */
    for (int k = 0; k < 5; ++k) acc += r->weight[k] * c[k];
    mean -= drift;
    if (r->nonlinear != 0.0)
        acc += r->nonlinear * (model1d_chemical(c[1] + mean) - 2.0 * model1d_chemical(c[2] + mean) +
                               model1d_chemical(c[3] + mean));
    return acc;
}

/* f for point i of a periodic member x[j * s], j = 0..n-1. */
COHORT_HD double model1d_rhs_at(const model1d_rhs *r, const double *x, int64_t n, int64_t s,
                                int64_t i, double mean, double drift)
{
    double c[5];
    for (int k = 0; k < 5; ++k) {
        int64_t j = i + k - 2;
        j = j < 0 ? j + n : (j >= n ? j - n : j);
        c[k] = x[j * s];
    }
    return model1d_rhs_point(r, c, mean, drift);
}

/* The mean of member x[j * s], j = 0..n-1 (the drift of a deviation). */
COHORT_HD double model1d_member_mean(const double *x, int64_t n, int64_t s)
{
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j) sum += x[j * s];
    return sum / (double)n;
}

/* <C> and <C^2> of member x[j * s] (periodic trapezoid = plain mean on a periodic grid), the
 * member stored as its deviation from `mean`: the inputs of the coarsening length
 * ell = 1 / (1 - <C^2>) (seed 003, Sec. 5.3). NaN or Inf anywhere shows in both. */
COHORT_HD void model1d_member_moments(const double *x, int64_t n, int64_t s, double mean,
                                      double *c_mean, double *c2_mean)
{
    double sum = 0.0, sum2 = 0.0;
    for (int64_t j = 0; j < n; ++j) {
        const double c = x[j * s] + mean;
        sum += c;
        sum2 += c * c;
    }
    *c_mean = sum / (double)n;
    *c2_mean = sum2 / (double)n;
}

#ifdef __cplusplus
}
#endif
#endif
