/* The relaxation's solvers per backend (relax_cpu.c, relax_cuda.cu), chosen by COHORT_KERNELS in
 * relax.c; arguments as relax_solve's, already checked. */
#ifndef COHORT_RELAX_KERNELS_H
#define COHORT_RELAX_KERNELS_H

#include "relax/relax.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct relax_kernels {
    int (*solve)(const relax_problem *p, const double *f, const double *g, const double *re,
                 const double *u0, double *u, int64_t count, relax_member_result *results,
                 double *history);
} relax_kernels;
extern const relax_kernels relax_kernels_cpu, relax_kernels_cuda;

#ifdef __cplusplus
}
#endif
#endif
