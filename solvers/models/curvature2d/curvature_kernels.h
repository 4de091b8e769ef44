/* The curvature flows' loops per backend (curvature_cpu.c, curvature_cuda.cu), chosen by
 * COHORT_KERNELS in curvature2d.c; interleaved members [0, count) of (nx + 1)(ny + 1) nodes. */
#ifndef COHORT_CURVATURE_KERNELS_H
#define COHORT_CURVATURE_KERNELS_H

#include <stdint.h>

#include "models/curvature2d/curvature_numerics.h"
#include "ode/rkm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct curvature_kernels {
    /* w = curvature_w_node at every node (Willmore's first pass), member m at its time t[m] */
    int (*w)(const curvature_grid *g, const double *t, const double *u, double *w, int64_t ld,
             int64_t count);
    /* f = curvature_rhs_node at every node (w = NULL: mean curvature) */
    int (*rhs)(const curvature_grid *g, const double *t, const double *u, const double *w,
               double *f, int64_t ld, int64_t count);
    /* u = curvature_initial_node, amplitude per member (backend memory) or the scalar */
    int (*initial)(const curvature_grid *g, double amplitude, const double *amplitudes, double mode,
                   double *u, int64_t ld, int64_t count);
    /* rows[(m * CURVATURE_OBSERVED + q) * (ny + 1) + j] = curvature_observe_row's q of row j of
     * member m, then out[q * count + m] their combination (backend memory) */
    int (*observe)(const curvature_grid *g, const double *u, double t, double *rows, double *out,
                   int64_t ld, int64_t count);
    /* the fused advance (ode/rkm_cuda.cuh) of the flow (w: Willmore's w array, else NULL), or NULL
     * where the backend has none */
    int (*advance_fused)(const curvature_grid *g, double *w, const rkm_fused_args *a);
} curvature_kernels;
extern const curvature_kernels curvature_kernels_cpu, curvature_kernels_cuda;

#ifdef __cplusplus
}
#endif
#endif
