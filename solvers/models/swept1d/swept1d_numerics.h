/* The explicit schemes of seed 001 for one point of one tier, shared by the OpenMP loops, the
 * classic kernels and the swept kernels (swept1d_cpu.c, swept1d_cuda.cu): every stepper computes
 * each (point, tier) with these functions from the same inputs, so `classic` and `swept` give the
 * same bits.
 *
 * A tier is one explicit stage: a step of the heat equation (eq. 2), or half a step of the
 * Kuramoto-Sivashinsky midpoint method (eq. 15-16: odd tiers are the predictor u^{m+1/2}, even
 * tiers the new u^{m+1}). A tier reads the tier before it within `radius` points (1: the 3-point
 * Laplacian; 2: the 5-point fourth derivative) and, for the KS corrector, the point's own value two
 * tiers back (u^m). Tiers are counted from the state an advance starts from (tier 0), so a KS
 * advance always starts at a whole step. */
#ifndef COHORT_SWEPT1D_NUMERICS_H
#define COHORT_SWEPT1D_NUMERICS_H

#include <math.h>
#include <stdint.h>

#include "backend/cohort_hd.h"

typedef struct swept1d_scheme {
    int64_t n;  /* points of a member: heat's nodes 0 .. n - 1 (both ends on the rod), KS's
                 * periodic points */
    int ks;     /* 0: heat1d (insulated ends), 1: ks1d (periodic) */
    int radius; /* of the stencil a tier reads: 1 (heat), 2 (KS) */
    int tiers_per_step;
    /* heat (eq. 2): T' = fo (T_{i-1} + T_{i+1}) + one_minus_2fo T_i */
    double fo, one_minus_2fo;
    /* KS (eq. 4, derived below): -f = a (d c1 + k1) + b c4 + u k2 */
    double c1, c4, k1, k2;
    double half_dt, dt;
} swept1d_scheme;

/* The point that stands for x + k (|k| <= radius) in the stencil of x.
 * heat: the insulated ends are the mirror images T_{-1} = T_1 and T_n = T_{n-2} (the second-order
 * zero-flux condition at the end nodes; seed 001's appendix prints eq. 9 as "T_0 = T_1 and
 * T_{n+1} = T_{n-1}", which mixes a cell-centred and a node-centred end: we take the node-centred
 * mirror at both ends, under which the discrete scheme keeps sum_i w_i T_i, w = 1/2 at the ends).
 * KS: periodic, "the stencil at point 0 includes points n and n - 1" (seed 001, IV.A). */
COHORT_HD int64_t swept1d_neighbor(const swept1d_scheme *s, int64_t x, int k)
{
    const int64_t y = x + k;
    if (s->ks) return y < 0 ? y + s->n : y >= s->n ? y - s->n : y;
    return y < 0 ? -y : y >= s->n ? 2 * (s->n - 1) - y : y;
}

/* -f(u) of eq. 4 at a point from u_{i-2} .. u_{i+2}. With a = u_{i+1} + u_{i-1}, d = u_{i+1} -
 * u_{i-1}, b = u_{i+2} + u_{i-2}:
 *   (u_{i+1}^2 - u_{i-1}^2) / (4 dx) = a d / (4 dx),
 *   (u_{i+1} + u_{i-1} - 2 u_i) / dx^2 + (u_{i+2} - 4 u_{i+1} + 6 u_i - 4 u_{i-1} + u_{i-2}) / dx^4
 *     = a (1/dx^2 - 4/dx^4) + b / dx^4 + u_i (6/dx^4 - 2/dx^2),
 * so -f = a (d c1 + k1) + b c4 + u_i k2 with c1 = 1/(4 dx), c4 = 1/dx^4, k1 = 1/dx^2 - 4/dx^4,
 * k2 = 6/dx^4 - 2/dx^2: three multiply-adds and one multiply, no division (seed 001, Fig. 7:
 * reciprocals stored, not divided by). The seed's eq. 4 prints "+ 2 u_i" in the second difference
 * and eq. 7 "+ 2 T_i" in the heat equation's: both are -2, as their own eq. 2 and 12 say. */
COHORT_HD double swept1d_ks_minus_f(const swept1d_scheme *s, const double v[5])
{
    const double a = v[1] + v[3], d = v[3] - v[1], b = v[0] + v[4];
    return fma(a, fma(d, s->c1, s->k1), fma(v[2], s->k2, b * s->c4));
}

/* The value of a point at tier `tier` >= 1 from v[j] = its stencil's values x - 2 + j at tier - 1
 * (heat reads v[1..3]) and `older`, its own value at tier - 2 (read by the KS corrector only). */
COHORT_HD double swept1d_update(const swept1d_scheme *s, int64_t tier, const double v[5],
                                double older)
{
    if (!s->ks) return fma(s->one_minus_2fo, v[2], s->fo * (v[1] + v[3]));
    const double minus_f = swept1d_ks_minus_f(s, v);
    /* eq. 15: u^{m+1/2} = u^m + dt/2 f(u^m); eq. 16: u^{m+1} = u^m + dt f(u^{m+1/2}) */
    return (tier & 1) ? fma(-s->half_dt, minus_f, v[2]) : fma(-s->dt, minus_f, older);
}

#endif
