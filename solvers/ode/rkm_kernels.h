/* The per-backend loops of the Runge-Kutta-Merson integrator (rkm_cpu.c, rkm_cuda.cu), chosen by
 * COHORT_KERNELS in rkm.c. States are interleaved: value v of member m at [v * ld + m]; members
 * [0, count). */
#ifndef COHORT_RKM_KERNELS_H
#define COHORT_RKM_KERNELS_H

#include <stdint.h>

#include "ode/rkm_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rkm_kernels {
    /* rkm_member_begin on every member; where active is not NULL, *active (host) receives how
     * many still step (a synchronisation on cuda: rkm.c asks every RKM_CHECK_EVERY steps) */
    int (*begin)(rkm_member *s, double t_to, int64_t count, int64_t *active);
    /* the stage times t + c h into t_stage (per member) and the arguments into arg (stage 2..5;
     * members with h = 0 get arg = u) */
    int (*stage)(int stage, const rkm_member *s, const double *u, const double *k1,
                 const double *k2, const double *k3, const double *k4, double *t_stage, double *arg,
                 int64_t n, int64_t ld, int64_t count);
    /* each member's e (eq. 27), then rkm_member_control, then the update of the accepted */
    int (*finish)(rkm_member *s, double t_to, double tolerance, double *u, const double *k1,
                  const double *k3, const double *k4, const double *k5, int64_t n, int64_t ld,
                  int64_t count);
} rkm_kernels;
extern const rkm_kernels rkm_kernels_cpu, rkm_kernels_cuda;

#ifdef __cplusplus
}
#endif
#endif
