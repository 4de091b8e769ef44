/* The cuda 1D step's paths, for tests and benchmarks (built with the cuda backend). This header
 * is plain C. */
#ifndef COHORT_MODEL1D_CUDA_H
#define COHORT_MODEL1D_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "banded/banded_numerics.h"
#include "models/model1d/model1d_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The paths of the 1D model step (model1d_kernels_cuda.step is COHORT_CUDA_STEP_AUTO):
 *  PORTABLE  the right-hand-side kernel (one thread per member, a register window), then the
 *            portable banded solve: the reference of the fused path;
 *  FUSED     one pass: each warp of a persistent kernel stages all n rows of a tile of members
 *            in shared memory, one thread per member computes the right-hand side inside its
 *            forward sweep, solves in shared memory and writes the result once (the same
 *            arithmetic in the same order as PORTABLE, so the same bits);
 *  AUTO      FUSED where a tile of >= 16 members fits the default budget, n >= 7, the system is
 *            periodic and the half-bandwidth and terms are those of diffusion1d,
 *            hyperdiffusion1d or ch1d (the kernels built); otherwise the right-hand-side kernel
 *            and the AUTO banded solve. */
typedef enum {
    COHORT_CUDA_STEP_AUTO = 0,
    COHORT_CUDA_STEP_PORTABLE = 1,
    COHORT_CUDA_STEP_FUSED = 2
} cohort_cuda_step_path;

/* model1d_kernels_cuda.step through a chosen path; tile_bytes = 0 takes the default budget.
 * FUSED where the tile cannot be formed is an error (COHORT_ERR_INVALID_ARGUMENT). drift_in and
 * drift_out as model1d_kernels.step's; FUSED sums u in its tile and does not read drift_in. */
int cohort_cuda_model1d_step_path(const struct model1d_rhs *r, const struct banded_view *v,
                                  const double *u, double *out, const double *mean,
                                  const double *member_f0, const double *drift_in,
                                  double *drift_out, int64_t ld, int64_t m0, int64_t count,
                                  cohort_cuda_step_path path, size_t tile_bytes);

/* `steps` FUSED steps in one launch, each member's state kept in its tile between them: out holds
 * the state after them, the same bits as `steps` FUSED steps (tests/test_model1d.c); u is read
 * once. Where the tile cannot be formed, or steps < 1: COHORT_ERR_INVALID_ARGUMENT. */
int cohort_cuda_model1d_advance_fused(const struct model1d_rhs *r, const struct banded_view *v,
                                      const double *u, double *out, const double *mean, int64_t ld,
                                      int64_t m0, int64_t count, int steps, size_t tile_bytes);
/* The members per tile of the FUSED path for r and v at tile_bytes (0: it falls back). */
int cohort_cuda_model1d_step_width(const struct model1d_rhs *r, const struct banded_view *v,
                                   size_t tile_bytes);
/* The members per tile of cohort_cuda_model1d_advance_fused for r and v at tile_bytes: the width
 * that keeps the most members on an SM, which may differ from the single step's (0: none). */
int cohort_cuda_model1d_advance_width(const struct model1d_rhs *r, const struct banded_view *v,
                                      size_t tile_bytes);

#ifdef __cplusplus
}
#endif
#endif
