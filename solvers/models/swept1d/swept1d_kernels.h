/* The explicit 1D schemes' loops per backend (swept1d_cpu.c, swept1d_cuda.cu), chosen by
 * COHORT_KERNELS in swept1d.c. An advance takes members [0, count) (interleaved, leading dimension
 * ld) from tier 0 in rows[0] to tier `tiers`, which it leaves in rows[tiers & 1]: even tiers live
 * in rows[0], odd tiers in rows[1] (the two-row storage of seed 001, IV.B). */
#ifndef COHORT_SWEPT1D_KERNELS_H
#define COHORT_SWEPT1D_KERNELS_H

#include <stdint.h>

#include "models/swept1d/swept1d_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct swept1d_kernels {
    /* one pass over the members per tier (seed 001's GPUClassic: a launch per tier on cuda),
     * `width` threads per block */
    int (*classic)(const swept1d_scheme *s, double *const rows[2], int64_t tiers, int64_t width,
                   int64_t ld, int64_t count);
    /* the swept rule (seed 001's GPUShared) with tiles of `width` points; `reached` holds n + 1
     * ints of the backend's memory. NULL where the backend has none (cpu). */
    int (*swept)(const swept1d_scheme *s, double *const rows[2], int *reached, int64_t tiers,
                 int64_t width, int64_t ld, int64_t count);
} swept1d_kernels;
extern const swept1d_kernels swept1d_kernels_cpu, swept1d_kernels_cuda;

/* The swept rule's tile for members of n points that do not stay on chip: bench-swept's fastest,
 * the same for heat and KS (solvers/banded/PERFORMANCE.md, "Figures behind the source's
 * choices"). */
static inline int64_t swept1d_tile_width(int64_t n)
{
    return n < (1 << 17) ? 256 : n < (1 << 18) ? 512 : 1024;
}

#ifdef __cplusplus
}
#endif
#endif
