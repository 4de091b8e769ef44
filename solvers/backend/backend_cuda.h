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
 *            forward sweep writes every row and the backward sweep reads it again;
 *  TILED     a block stages a tile of systems (all n rows x a power of two of members) through
 *            shared memory with coalesced loads, sweeps it on chip and writes it once, the
 *            periodic correction folded into that store: one read and one write per element;
 *  AUTO      TILED where a full 32-member tile fits the default budget (small n), PORTABLE
 *            otherwise (see bench-banded's table for where each wins). */
typedef enum {
    COHORT_CUDA_BANDED_AUTO = 0,
    COHORT_CUDA_BANDED_PORTABLE = 1,
    COHORT_CUDA_BANDED_TILED = 2
} cohort_cuda_banded_path;

/* tile_bytes = 0 takes the default budget. TILED where the tile cannot be formed is an error
 * (COHORT_ERR_INVALID_ARGUMENT). */
int cohort_cuda_banded_solve_path(const struct banded_view *v, double *u, int64_t ld, int64_t m0,
                                  int64_t count, cohort_cuda_banded_path path, size_t tile_bytes);

/* The number of members per tile that the TILED path uses for systems of n unknowns (0 when the
 * path falls back to PORTABLE). */
int cohort_cuda_banded_tile_width(int64_t n, size_t tile_bytes);

#ifdef __cplusplus
}
#endif
#endif
