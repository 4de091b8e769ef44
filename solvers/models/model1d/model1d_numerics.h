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
    return cohort_mul_add(c * c, c, -c);
}

/* The parts of the derivative that belong to one difference or to three consecutive ones, not to
 * the point: the differences d_k and the smoothness indicators' second
 * differences a_k = d_{k-1} - 2 d_k + d_{k+1} and 13 a_k. Along a member each difference serves
 * five points and each a_k three, so a sweep along the member computes them once
 * (model1d_weno_parts_advance) where the point form computes them for every point: the same
 * operations on the same values, so the same bits. */
typedef struct model1d_weno_parts {
    double d[5], a[3], a13[3];
} model1d_weno_parts;

/* a_k of the differences dl, dc, dr; dl + dr = dr + dl exactly, so a sweep in either direction
 * gives the bend the point form gives */
COHORT_HD double model1d_weno_bend(double dl, double dc, double dr)
{
    return cohort_mul_add(-2.0, dc, dl + dr);
}

COHORT_HD void model1d_weno_parts_of(const double d[5], model1d_weno_parts *p)
{
    for (int k = 0; k < 5; ++k) p->d[k] = d[k];
    for (int k = 0; k < 3; ++k) {
        p->a[k] = model1d_weno_bend(d[k], d[k + 1], d[k + 2]);
        p->a13[k] = 13.0 * p->a[k];
    }
}

/* The fifth-order WENO derivative for Hamilton-Jacobi equations (Jiang and Peng; Osher and Fedkiw,
 * Sec. 3.4) from the parts of five consecutive one-sided differences d[0..4], in units of 1/dx:
 *     sum_k alpha_k phi_k / sum_k alpha_k,   alpha_k = gamma_k / (S_k + eps)^2,
 * gamma = (0.1, 0.6, 0.3), phi_k the three third-order stencils and S_k their smoothness.
 * Written with one division: phi_k = Phi_k / 6 and S_k = S12_k / 12 with integer weights, and
 * numerator and denominator multiplied by q_1 q_2 q_3 / 14.4, q_k = (S12_k + 12 eps)^2, so that
 *     result = (q2 q3 Phi_1 + 6 q1 q3 Phi_2 + 3 q1 q2 Phi_3) / (6 (q2 q3 + 6 q1 q3 + 3 q1 q2)).
 * The textbook form divides thirteen times (nine by the constants 3 and 6, which are not powers of
 * two, so no compiler may turn them into products): on the GPU those divisions were most of the
 * ch1d_forced right-hand side's time (the profile: solvers/banded/PERFORMANCE.md). The value
 * differs from the textbook form's by rounding only (test_model1d: within 1e-14 of max |d_k| of an
 * independent transcription of the textbook form). eps = 1e-6 max_k d_k^2 keeps the weights
 * scale-free. Its floor (12 eps >= 1e-50, where the textbook form had eps >= 1e-99) keeps q_k >=
 * 1e-100, so the products q q and q q Phi stay normal numbers wherever |Phi| > 1e-108; it takes
 * over from the relative term for differences below ~3e-23, far below the rounding of a field of
 * order one, where the weights become the linear ones, gamma. The products overflow only for
 * differences beyond ~1e32: such a field has diverged already. */
COHORT_HD double model1d_weno5_of_parts(const model1d_weno_parts *p)
{
    const double *d = p->d;
    const double phi1 = cohort_mul_add(11.0, d[2], cohort_mul_add(-7.0, d[1], 2.0 * d[0]));
    const double phi2 = cohort_mul_add(2.0, d[3], cohort_mul_add(5.0, d[2], -d[1])); /* 6 phi_k */
    const double phi3 = cohort_mul_add(5.0, d[3], cohort_mul_add(2.0, d[2], -d[4]));
    const double b1 = cohort_mul_add(3.0, d[2], cohort_mul_add(-4.0, d[1], d[0]));
    const double b2 = d[1] - d[3];
    const double b3 = cohort_mul_add(3.0, d[2], cohort_mul_add(-4.0, d[3], d[4]));
    /* max_k d_k^2 as (max_k |d_k|)^2: rounding is monotone, so the square of the largest is the
     * largest square, bit for bit */
    double top = 0.0;
    for (int k = 0; k < 5; ++k) top = fabs(d[k]) > top ? fabs(d[k]) : top;
    const double big = top * top;
    const double eps12 = cohort_mul_add(1.2e-5, big, 1e-50); /* 12 eps */
    /* 12 (S_k + eps) */
    const double s1 = cohort_mul_add(p->a13[0], p->a[0], cohort_mul_add(3.0 * b1, b1, eps12));
    const double s2 = cohort_mul_add(p->a13[1], p->a[1], cohort_mul_add(3.0 * b2, b2, eps12));
    const double s3 = cohort_mul_add(p->a13[2], p->a[2], cohort_mul_add(3.0 * b3, b3, eps12));
    const double q1 = s1 * s1, q2 = s2 * s2, q3 = s3 * s3;
    const double w1 = q2 * q3, w2 = 6.0 * q1 * q3, w3 = 3.0 * q1 * q2; /* alpha_k, rescaled */
    return cohort_mul_add(w1, phi1, cohort_mul_add(w2, phi2, w3 * phi3)) / (6.0 * (w1 + w2 + w3));
}

COHORT_HD double model1d_weno5(const double d[5])
{
    model1d_weno_parts p;
    model1d_weno_parts_of(d, &p);
    return model1d_weno5_of_parts(&p);
}

/* The one-sided differences of the centre of c[0..6] = C_{i-3} .. C_{i+3}, upwinded for
 * C_t - v C_eta = ...: the characteristic speed is -v, so v > 0 (right) takes the right-biased
 * differences and v < 0 the left-biased ones. */
COHORT_HD void model1d_upwind_parts(const double c[MODEL1D_WINDOW], int right,
                                    model1d_weno_parts *p)
{
    double d[5];
    for (int k = 0; k < 5; ++k)
        d[k] = right ? c[6 - k] - c[5 - k] /* D+ C_{i+2} .. D+ C_{i-2} */
                     : c[k + 1] - c[k];    /* D- C_{i-2} .. D- C_{i+2} */
    model1d_weno_parts_of(d, p);
}

/* dC/deta at the centre of c[0..6], times dx */
COHORT_HD double model1d_upwind_derivative(const double c[MODEL1D_WINDOW], double v)
{
    model1d_weno_parts p;
    model1d_upwind_parts(c, v > 0.0, &p);
    return model1d_weno5_of_parts(&p);
}

/* The parts moved one point on, to i + 1, with delta the one difference the point takes up: the
 * right-biased D+ C_{i+3} enters at d[0], the left-biased D- C_{i+3} at d[4]. */
COHORT_HD void model1d_weno_parts_advance(model1d_weno_parts *p, double delta, int right)
{
    if (right) {
        for (int k = 4; k > 0; --k) p->d[k] = p->d[k - 1];
        for (int k = 2; k > 0; --k) p->a[k] = p->a[k - 1], p->a13[k] = p->a13[k - 1];
        p->d[0] = delta;
        p->a[0] = model1d_weno_bend(p->d[0], p->d[1], p->d[2]);
        p->a13[0] = 13.0 * p->a[0];
    } else {
        for (int k = 0; k < 4; ++k) p->d[k] = p->d[k + 1];
        for (int k = 0; k < 2; ++k) p->a[k] = p->a[k + 1], p->a13[k] = p->a13[k + 1];
        p->d[4] = delta;
        p->a[2] = model1d_weno_bend(p->d[2], p->d[3], p->d[4]);
        p->a13[2] = 13.0 * p->a[2];
    }
}

/* The cubic of one row of the window, f(C) = C^3 - C of the field C = C' - drift + mean, as
 * model1d_rhs_point_cubic takes it (0 where the model has no cubic). */
COHORT_HD double model1d_rhs_cubic(const model1d_rhs *r, double c, double mean, double drift)
{
    return (r->terms & MODEL1D_TERM_NONLINEAR) ? model1d_chemical(c + (mean - drift)) : 0.0;
}

/* f_i in two steps, the operations of one in the same order: first the terms but the advection
 * and the forcing, from the window c and the cubic's values of its rows, cubic[k] =
 * model1d_rhs_cubic of c[k] (k = 2 .. 4; the others unused) ... */
COHORT_HD double model1d_rhs_point_local(const model1d_rhs *r, const double c[MODEL1D_WINDOW],
                                         const double cubic[MODEL1D_WINDOW], double drift)
{
    double acc = -drift; /* the weights sum to 1 */
    if (r->terms & MODEL1D_TERM_STENCIL)
        for (int k = 0; k < 5; ++k) acc = cohort_mul_add(r->weight[k], c[k + 1], acc);
    else
        acc += c[3];
    if (r->terms & MODEL1D_TERM_NONLINEAR)
        acc =
            cohort_mul_add(r->nonlinear, cohort_mul_add(-2.0, cubic[3], cubic[2] + cubic[4]), acc);
    return acc;
}

/* ... then the advection, with the WENO derivative of the window's centre (where the model has
 * the advection), and the forcing added to those terms, acc */
COHORT_HD double model1d_rhs_point_finish(const model1d_rhs *r, double acc, double derivative,
                                          double forcing_i, double f0)
{
    if (r->terms & MODEL1D_TERM_ADVECTION) acc = cohort_mul_add(r->advection, derivative, acc);
    if (r->terms & MODEL1D_TERM_FORCING) acc = cohort_mul_add(f0, forcing_i, acc);
    return acc;
}

/* f_i from the window and the cubic's values, the window's WENO derivative formed after the other
 * terms, so that the window and the cubic's values are dead while it is formed (formed first,
 * they stayed live across it, and the cpu backend spilled them: docs/performance.md) */
COHORT_HD double model1d_rhs_point_cubic(const model1d_rhs *r, const double c[MODEL1D_WINDOW],
                                         const double cubic[MODEL1D_WINDOW], double drift,
                                         double forcing_i, double f0)
{
    const double acc = model1d_rhs_point_local(r, c, cubic, drift);
    const double derivative =
        (r->terms & MODEL1D_TERM_ADVECTION) ? model1d_upwind_derivative(c, r->advection) : 0.0;
    return model1d_rhs_point_finish(r, acc, derivative, forcing_i, f0);
}

/* A sweep along a member, point i to i + 1: the window c[0..6] = C'_{i-3} .. C'_{i+3}, the cubic's
 * values of its rows 2 .. 4 and its WENO parts. right = the advection's v > 0, given by the caller
 * so that a kernel may fix it when it is built. */
typedef struct model1d_sweep {
    double c[MODEL1D_WINDOW], cubic[MODEL1D_WINDOW];
    model1d_weno_parts weno;
} model1d_sweep;

/* The sweep at the point whose window the caller put in s->c */
COHORT_HD void model1d_sweep_start(const model1d_rhs *r, model1d_sweep *s, double mean,
                                   double drift, int right)
{
    for (int k = 2; k <= 4; ++k) s->cubic[k] = model1d_rhs_cubic(r, s->c[k], mean, drift);
    const double flat[MODEL1D_WINDOW] = {0.0}; /* parts that no point reads, but defined */
    model1d_upwind_parts((r->terms & MODEL1D_TERM_ADVECTION) ? s->c : flat, right, &s->weno);
}

/* f_i at the sweep's point: the point form's terms (model1d_rhs_point_local, _finish) with the
 * cubic's values and the WENO parts the sweep carries instead of computing them again at every
 * point */
COHORT_HD double model1d_sweep_point(const model1d_rhs *r, const model1d_sweep *s, double drift,
                                     double forcing_i, double f0)
{
    const double derivative =
        (r->terms & MODEL1D_TERM_ADVECTION) ? model1d_weno5_of_parts(&s->weno) : 0.0;
    return model1d_rhs_point_finish(r, model1d_rhs_point_local(r, s->c, s->cubic, drift),
                                    derivative, forcing_i, f0);
}

/* The sweep moved on one point, `next` the row that enters the window */
COHORT_HD void model1d_sweep_advance(const model1d_rhs *r, model1d_sweep *s, double next,
                                     double mean, double drift, int right)
{
    for (int k = 0; k < MODEL1D_WINDOW - 1; ++k) s->c[k] = s->c[k + 1];
    s->c[MODEL1D_WINDOW - 1] = next;
    s->cubic[2] = s->cubic[3], s->cubic[3] = s->cubic[4];
    s->cubic[4] = model1d_rhs_cubic(r, s->c[4], mean, drift);
    if (r->terms & MODEL1D_TERM_ADVECTION) /* the point form's d[0], or d[4] */
        model1d_weno_parts_advance(&s->weno, right ? s->c[6] - s->c[5] : s->c[5] - s->c[4], right);
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
    double cubic[MODEL1D_WINDOW] = {0.0};
    for (int k = 2; k <= 4; ++k) cubic[k] = model1d_rhs_cubic(r, c[k], mean, drift);
    return model1d_rhs_point_cubic(r, c, cubic, drift, forcing_i, f0);
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
