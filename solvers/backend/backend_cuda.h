/* The cuda backend (built when nvcc is found): device memory on the current device, launches on
 * the default stream, CUDA errors translated to COHORT_ERR_CUDA with file:line and the runtime's
 * message. This header is plain C; no C file includes a CUDA header. */
#ifndef COHORT_BACKEND_CUDA_H
#define COHORT_BACKEND_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const cohort_backend cohort_backend_cuda;

/* 1 when a CUDA device can be used; otherwise 0 with the reason in `why`. */
int cohort_cuda_device_present(char *why, size_t len);

/* "CUDA runtime X.Y, driver X.Y" (driver "none" where no driver is installed). */
void cohort_cuda_runtime_versions(char *buf, size_t len);

/* The paths of the batched banded solve, for tests and benchmarks (the backend's banded_solve is
 * COHORT_CUDA_BANDED_AUTO):
 *  PORTABLE  one thread per system sweeping device memory in place (banded_system_solve): the
 *            forward sweep writes every row and the backward sweep reads it again, so each
 *            value crosses device memory four times;
 *  TILED     a block stages a tile (all n rows x a power of two of members) in shared memory with
 *            cp.async, solves it there through the partitioned form of the factor (one thread
 *            per segment; banded_partitioned_band_solve is its sequential reference) and writes
 *            it once, the periodic correction folded into that store: each value crosses device
 *            memory twice, the least possible;
 *  WARP      one thread per system: each warp of a persistent kernel stages all n rows of 32 (or
 *            16) systems in shared memory, beside the factor, and solves them there with
 *            banded_system_solve's arithmetic (the same bits as PORTABLE), writing each value
 *            once; the fused 1D step's kernel without a right-hand side;
 *  AUTO      WARP where a warp tile of >= 16 systems fits its default budget (n <= 576; for
 *            plain tridiagonal systems, of 32 systems: n <= 288), otherwise TILED where a tile
 *            of >= 16 h members fits the default budget, otherwise PORTABLE (measured to be where
 *            each wins: solvers/banded/PERFORMANCE.md). */
typedef enum {
    COHORT_CUDA_BANDED_AUTO = 0,
    COHORT_CUDA_BANDED_PORTABLE = 1,
    COHORT_CUDA_BANDED_TILED = 2,
    COHORT_CUDA_BANDED_WARP = 3
} cohort_cuda_banded_path;

/* tile_bytes = 0 takes the default budget (of the tile of TILED, of one warp's tile of WARP).
 * TILED or WARP where the tile cannot be formed is an error (COHORT_ERR_INVALID_ARGUMENT). */
int cohort_cuda_banded_solve_path(const struct banded_view *v, double *u, int64_t ld, int64_t m0,
                                  int64_t count, cohort_cuda_banded_path path, size_t tile_bytes);

/* The number of members per tile that the TILED path uses for v at tile_bytes (0 when the path
 * falls back to PORTABLE). */
int cohort_cuda_banded_tile_width(const struct banded_view *v, size_t tile_bytes);

/* The systems per warp tile that the WARP path uses for v at tile_bytes (0: none fits). */
int cohort_cuda_banded_warp_width(const struct banded_view *v, size_t tile_bytes);

/* The paths of the 1D model step (the backend's model1d_step is COHORT_CUDA_STEP_AUTO):
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

struct model1d_rhs;

/* The backend's model1d_step through a chosen path; tile_bytes = 0 takes the default budget.
 * FUSED where the tile cannot be formed is an error (COHORT_ERR_INVALID_ARGUMENT). */
int cohort_cuda_model1d_step_path(const struct model1d_rhs *r, const struct banded_view *v,
                                  const double *u, double *out, const double *mean,
                                  const double *member_f0, int64_t ld, int64_t m0, int64_t count,
                                  cohort_cuda_step_path path, size_t tile_bytes);

/* The members per tile of the FUSED path for r and v at tile_bytes (0: it falls back). */
int cohort_cuda_model1d_step_width(const struct model1d_rhs *r, const struct banded_view *v,
                                   size_t tile_bytes);

#ifdef __cplusplus
}
#endif
#endif
