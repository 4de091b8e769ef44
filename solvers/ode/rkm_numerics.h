/* The arithmetic of the Runge-Kutta-Merson integrator (seed 000, Algorithm 4.1), shared by the
 * OpenMP loops (rkm_cpu.c) and the CUDA kernels (rkm_cuda.cu, and a model's fused advance through
 * rkm_cuda.cuh). The stage values k_s are stored as f (not tau f as the seed writes them); every
 * combination multiplies by the member's step h. The per-point combinations spell out their
 * roundings (cohort_mul, cohort_mul_add), so that the per-stage kernels and every fused kernel
 * that inline them round alike: left to nvcc, it contracted stage 5's argument differently in a
 * fused kernel that holds its stage values in registers than in the per-stage kernel (they were
 * called functions until then; the calls cost the fused advance of willmore2d 16^2 5 %). */
#ifndef COHORT_RKM_NUMERICS_H
#define COHORT_RKM_NUMERICS_H

#include <math.h>
#include <stdint.h>

#include "backend/cohort_hd.h"

/* Algorithm 4.1, step 1: the stage times t + c_s h and arguments u + h sum_j a_sj k_j of stages
 * s = 2 .. 5 (stage 1 is f(t, u)). Thirds and sixths multiply by the rounded fraction: on the
 * device a division is some ten FP64 instructions and a branch, a product one (the coefficients
 * then differ from the seed's fractions by at most half an ulp). */
COHORT_HD double rkm_stage_time_fraction(int stage)
{
    return stage == 1   ? 0.0
           : stage == 2 ? 1.0 / 3.0
           : stage == 3 ? 1.0 / 3.0
           : stage == 4 ? 0.5
                        : 1.0;
}

COHORT_HD double rkm_stage_argument(int stage, double u, double h, double k1, double k2, double k3,
                                    double k4)
{
    switch (stage) {
    case 2: /* u + h k1 / 3 */
        return cohort_mul_add(h, cohort_mul(k1, 1.0 / 3.0), u);
    case 3: /* u + h (k1 + k2) / 6 */
        return cohort_mul_add(h, cohort_mul(k1 + k2, 1.0 / 6.0), u);
    case 4: /* u + h (k1 / 8 + 3 k3 / 8) */
        return cohort_mul_add(h, cohort_mul_add(k1, 0.125, cohort_mul(k3, 0.375)), u);
    default: /* u + h (k1 / 2 - 3 k3 / 2 + 2 k4) */
        return cohort_mul_add(h, cohort_mul_add(k4, 2.0, cohort_mul_add(k3, -1.5, 0.5 * k1)), u);
    }
}

/* eq. 27: the local error estimate at one point, |h/3 (k1/5 - 9 k3/10 + 4 k4/5 - k5/10)|; the
 * member's e is the maximum over its own grid. */
COHORT_HD double rkm_error_point(double h, double k1, double k3, double k4, double k5)
{
    const double sum = cohort_mul_add(
        k5, -0.1, cohort_mul_add(k4, 0.8, cohort_mul_add(k3, -0.9, cohort_mul(k1, 0.2))));
    return fabs(cohort_mul(cohort_mul(h, 1.0 / 3.0), sum));
}

/* eq. 28: the accepted update u + h/6 (k1 + 4 k4 + k5). */
COHORT_HD double rkm_update_value(double u, double h, double k1, double k4, double k5)
{
    return cohort_mul_add(cohort_mul(h, 1.0 / 6.0), cohort_mul_add(k4, 4.0, k1) + k5, u);
}

/* The factor by which eq. 29 grows a step is capped at RKM_MAX_GROWTH: the seed's rule alone
 * makes the next step infinite where e = 0 (a member at rest, a plane). */
#define RKM_MAX_GROWTH 5.0

/* One member's bookkeeping between steps. */
typedef struct rkm_member rkm_member;
struct rkm_member {
    double t;   /* the member's time */
    double tau; /* the step eq. 29 proposes next */
    double h;   /* the step taken now: min(tau, t_to - t), 0 when the member has reached t_to */
    double e;   /* eq. 27 for the step taken now */
    int64_t accepted, rejected;
    int update; /* the step taken now is to be applied to u (rkm_member_control's verdict) */
};

/* Start of a step towards t_to: the last step is shortened to hit t_to exactly (eq. 29's
 * min{., T - t}). Returns 1 while the member still has time to cover. */
COHORT_HD int rkm_member_begin(rkm_member *s, double t_to)
{
    s->e = 0.0;
    if (!(s->t < t_to)) {
        s->h = 0.0;
        return 0;
    }
    s->h = s->tau < t_to - s->t ? s->tau : t_to - s->t;
    return 1;
}

/* Steps 3-4 of Algorithm 4.1 for one member after its e is known: accept when e < tolerance
 * (advancing t, landing on t_to exactly when the step was shortened to it), and either way
 * tau = 4/5 h (tolerance / e)^(1/5) (eq. 29). A member whose e is not finite has diverged: it
 * takes its non-finite update (the driver flags it from its state) and stops at t_to. Returns
 * whether the update is to be applied. */
COHORT_HD int rkm_member_control(rkm_member *s, double t_to, double tolerance)
{
    s->update = 0;
    if (s->h == 0.0) return 0;
    if (!isfinite(s->e)) {
        s->t = t_to;
        ++s->accepted;
        return s->update = 1;
    }
    const int accept = s->e < tolerance;
    if (accept) {
        s->t = s->h == t_to - s->t ? t_to : s->t + s->h;
        ++s->accepted;
    } else {
        ++s->rejected;
    }
    /* (tolerance / e)^(1/5), the ratio clamped to [2^-120, 2^20] (past 9,537 the cap holds
     * anyway), by cohort_fifth_root: the same bits on both backends, where pow (or exp2f and
     * log2f) rounds differently on each, and a few FMAs and divisions where pow in double was a
     * large share of the fused advance of willmore2d 16^2, which forms the factor in every warp at
     * every step (solvers/banded/PERFORMANCE.md). */
    const double ratio = fmin(fmax(tolerance / s->e, 0x1p-120), 0x1p20);
    const double growth = s->e > 0.0 ? 0.8 * cohort_fifth_root(ratio) : RKM_MAX_GROWTH;
    s->tau = s->h * (growth < RKM_MAX_GROWTH ? growth : RKM_MAX_GROWTH);
    return s->update = accept;
}

#endif
