/* The stencils per backend (stencil_cpu.c, stencil_cuda.cu), chosen by COHORT_KERNELS in
 * stencil.c. */
#ifndef COHORT_STENCIL_KERNELS_H
#define COHORT_STENCIL_KERNELS_H

#include <stdint.h>

#include "stencil/stencil_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stencil_kernels {
    /* On members [m0, m0 + count) of interleaved nx x ny fields: out = the weights stencil of in,
     * or point operator `op` (a stencil_op) of a->in; periodic, or bounded (points whose stencil
     * leaves the field are not written). out must not overlap an input that the operator reads
     * at neighbouring points. */
    int (*weights)(const stencil_view *v, const double *in, double *out, int64_t ld, int64_t m0,
                   int64_t count);
    int (*point_operator)(int op, const stencil_op_args *a, int periodic, double *out, int64_t nx,
                          int64_t ny, int64_t ld, int64_t m0, int64_t count);
} stencil_kernels;
extern const stencil_kernels stencil_kernels_cpu, stencil_kernels_cuda;

#ifdef __cplusplus
}
#endif
#endif
