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
#include "fields/fields_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MODEL1D_RADIUS = 3, MODEL1D_WINDOW = 2 * MODEL1D_RADIUS + 1 };

/* The terms of f a model has (model1d_rhs.terms): a backend may build kernels for the sets the
 * models use, with the tests of the absent terms folded away. */
enum {
    MODEL1D_TERM_STENCIL = 1,   /* the five-point linear weights; without it the identity, f = C */
    MODEL1D_TERM_NONLINEAR = 2, /* dt delta_x^2 (C^3 - C) */
    MODEL1D_TERM_ADVECTION = 4, /* dt v dC/deta (WENO5, upwinded) */
    MODEL1D_TERM_FORCING = 8    /* f0 dt k cos(k eta_i) */
};

typedef struct model1d_rhs {
    unsigned terms;        /* MODEL1D_TERM_* */
    double weight[5];      /* linear stencil on C_{i-2} .. C_{i+2} */
    double nonlinear;      /* dt / dx^2 for Cahn-Hilliard's delta_x^2 (C^3 - C) */
    double advection;      /* dt v / dx for ch1d_forced's v dC/deta (WENO5, upwinded) */
    const double *forcing; /* n values dt k cos(k eta_i) in the backend's memory, or NULL */
    double f0;             /* forcing amplitude of members without their own (swept) value */
} model1d_rhs;

COHORT_HD double model1d_chemical(double c)
{
    return c * c * c - c;
}

/* The fifth-order WENO derivative for Hamilton-Jacobi equations (Jiang and Peng; Osher and Fedkiw,
 * Sec. 3.4) from five consecutive one-sided differences d[0..4], in units of 1/dx. */
COHORT_HD double model1d_weno5(const double d[5])
{
    const double p1 = d[0] / 3.0 - 7.0 * d[1] / 6.0 + 11.0 * d[2] / 6.0;
    const double p2 = -d[1] / 6.0 + 5.0 * d[2] / 6.0 + d[3] / 3.0;
    const double p3 = d[2] / 3.0 + 5.0 * d[3] / 6.0 - d[4] / 6.0;
    const double s1 = 13.0 / 12.0 * (d[0] - 2.0 * d[1] + d[2]) * (d[0] - 2.0 * d[1] + d[2]) +
                      0.25 * (d[0] - 4.0 * d[1] + 3.0 * d[2]) * (d[0] - 4.0 * d[1] + 3.0 * d[2]);
    const double s2 = 13.0 / 12.0 * (d[1] - 2.0 * d[2] + d[3]) * (d[1] - 2.0 * d[2] + d[3]) +
                      0.25 * (d[1] - d[3]) * (d[1] - d[3]);
    const double s3 = 13.0 / 12.0 * (d[2] - 2.0 * d[3] + d[4]) * (d[2] - 2.0 * d[3] + d[4]) +
                      0.25 * (3.0 * d[2] - 4.0 * d[3] + d[4]) * (3.0 * d[2] - 4.0 * d[3] + d[4]);
    double big = 0.0;
    for (int k = 0; k < 5; ++k) big = d[k] * d[k] > big ? d[k] * d[k] : big;
    const double eps = 1e-6 * big + 1e-99;
    const double a1 = 0.1 / ((s1 + eps) * (s1 + eps)), a2 = 0.6 / ((s2 + eps) * (s2 + eps));
    const double a3 = 0.3 / ((s3 + eps) * (s3 + eps));
    return (a1 * p1 + a2 * p2 + a3 * p3) / (a1 + a2 + a3);
}

/* dC/deta at the centre of c[0..6] = C_{i-3} .. C_{i+3}, times dx, upwinded for
 * C_t - v C_eta = ...: the characteristic speed is -v, so v > 0 takes the right-biased
 * derivative and v < 0 the left-biased one. */
COHORT_HD double model1d_upwind_derivative(const double c[MODEL1D_WINDOW], double v)
{
    double d[5];
    for (int k = 0; k < 5; ++k)
        d[k] = v > 0.0 ? c[6 - k] - c[5 - k] /* D+ C_{i+2} .. D+ C_{i-2} */
                       : c[k + 1] - c[k];    /* D- C_{i-2} .. D- C_{i+2} */
    return model1d_weno5(d);
}

/* f_i from the window c[0..6] = C'_{i-3} .. C'_{i+3} of a member stored as its deviation
 * C' = C - mean from its mean. The linear weights sum to 1, delta_x^2 and the forcing sum to 0
 * over a periodic domain, so the models conserve each member's mean (ch1d_forced's WENO
 * derivative to rounding) and C' keeps mean 0. In floating point the banded solve's rounding
 * weights the rows slightly unequally, and because a member's pattern (its domains) persists for
 * many steps, the mean of C' drifts linearly (measured: ~1.5e-15 per step for ch1d at N = 256,
 * 3e-12 after 2000 steps). The callers therefore pass `drift`, the mean of C' they read, and the
 * step uses C' - drift: a projection back onto the conserved mean that costs no extra write.
 * mean = drift = 0 evolves the field itself. forcing_i = the stepper's dt k cos(k eta_i), f0 the
 * member's forcing amplitude. */
COHORT_HD double model1d_rhs_point(const model1d_rhs *r, const double c[MODEL1D_WINDOW],
                                   double mean, double drift, double forcing_i, double f0)
{
    double acc = -drift; /* the weights sum to 1 */
    if (r->terms & MODEL1D_TERM_STENCIL)
        for (int k = 0; k < 5; ++k) acc += r->weight[k] * c[k + 1];
    else
        acc += c[3];
    mean -= drift;
    if (r->terms & MODEL1D_TERM_NONLINEAR)
        acc += r->nonlinear * (model1d_chemical(c[2] + mean) - 2.0 * model1d_chemical(c[3] + mean) +
                               model1d_chemical(c[4] + mean));
    if (r->terms & MODEL1D_TERM_ADVECTION)
        acc += r->advection * model1d_upwind_derivative(c, r->advection);
    if (r->terms & MODEL1D_TERM_FORCING) acc += f0 * forcing_i;
    return acc;
}

/* f for point i of a periodic member x[j * s], j = 0..n-1. */
COHORT_HD double model1d_rhs_at(const model1d_rhs *r, const double *x, int64_t n, int64_t s,
                                int64_t i, double mean, double drift, double f0)
{
    double c[MODEL1D_WINDOW];
    for (int k = 0; k < MODEL1D_WINDOW; ++k) {
        int64_t j = (i + k - MODEL1D_RADIUS) % n;
        c[k] = x[(j < 0 ? j + n : j) * s];
    }
    return model1d_rhs_point(r, c, mean, drift, r->forcing ? r->forcing[i] : 0.0, f0);
}

#ifdef __cplusplus
}
#endif
#endif
