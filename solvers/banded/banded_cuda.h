/* The cuda banded solve's paths, for tests and benchmarks (built with the cuda backend). This
 * header is plain C. */
#ifndef COHORT_BANDED_CUDA_H
#define COHORT_BANDED_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "banded/banded_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The paths of the batched banded solve, for tests and benchmarks (banded_kernels_cuda.solve is
 * COHORT_CUDA_BANDED_AUTO):
 *  PORTABLE  one thread per system sweeping device memory in place (banded_system_solve): the
 *            forward sweep writes every row and the backward sweep reads it again, so each
 *            value crosses device memory four times;
 *  TILED     a block stages a tile (all n rows x a power of two of members) in shared memory with
 *            cp.async, solves it there through the partitioned form of the factor (one thread
 *            per segment; banded_partitioned_band_solve is its sequential reference) and writes
 *            it once, the periodic correction folded into that store: each value crosses device
 *            memory twice, the least possible; the factor is read through the read-only path;
 *  TILED_SHARED  the same tiles and arithmetic (the same bits), with the factor copied into each
 *            block's shared memory and several tile groups a block, each with its own barrier,
 *            taking tile after tile (where a tile fits beside the factor);
 *  WARP      one thread per system: each warp of a persistent kernel stages all n rows of 32 (or
 *            16) systems in shared memory, beside the factor, and solves them there with
 *            banded_system_solve's arithmetic (the same bits as PORTABLE), writing each value
 *            once; the fused 1D step's kernel without a right-hand side;
 *  CHUNKED   a thread a chunk of BANDED_CHUNK_ROWS rows of one system, held in registers, a block
 *            every chunk of a few systems: the chunks' first pass gives the carries of the
 *            chunked form (banded_numerics.h), one thread a system forms them in shared memory,
 *            and each chunk finishes from its registers: each value crosses device memory twice,
 *            the factor is read through L1; other round-off than the paths above (a solve through
 *            T's LU, summed in another order);
 *  AUTO      the kernels of the system's form (banded_form_of, the same on the cpu backend, so
 *            both give the same bits): partitioned (a solver that prefers it and whose tile fits
 *            its budget) by TILED_SHARED where two tile groups fit beside the factor, else
 *            TILED, the tile narrowed to the batch (one member a tile for the x lines of one 2D
 *            field); chunked (no warp tile of 16 fits, n > 576, and a block of the chunked
 *            kernel holds enough systems) by CHUNKED; sequential by WARP where a warp tile of
 *            >= 16 systems fits its default budget (n <= 576), else PORTABLE.
 * Members with factors of their own (banded_view.member_factor) take WARP or PORTABLE alone, their
 * factors read from device memory, the warp's members' values of a row side by side.
 * AUTO decides by the solver alone, never by the batch, so a member's bits do not depend on the
 * batch it is solved in; TILED's tile width follows the batch (at least two blocks an SM), which
 * changes no bits. */
typedef enum {
    COHORT_CUDA_BANDED_AUTO = 0,
    COHORT_CUDA_BANDED_PORTABLE = 1,
    COHORT_CUDA_BANDED_TILED = 2,
    COHORT_CUDA_BANDED_WARP = 3,
    COHORT_CUDA_BANDED_TILED_SHARED = 4,
    COHORT_CUDA_BANDED_CHUNKED = 5
} cohort_cuda_banded_path;

/* tile_bytes = 0 takes the default budget (of the tile of TILED, of one warp's tile of WARP).
 * TILED, TILED_SHARED or WARP where the tile cannot be formed is an error
 * (COHORT_ERR_INVALID_ARGUMENT). */
int cohort_cuda_banded_solve_path(const struct banded_view *v, double *u, int64_t ld, int64_t m0,
                                  int64_t count, cohort_cuda_banded_path path, size_t tile_bytes);

/* The widest tile, in members, that the TILED path forms for v at tile_bytes (0 when none fits and
 * the path falls back to PORTABLE); a launch narrows it to the batch. */
int cohort_cuda_banded_tile_width(const struct banded_view *v, size_t tile_bytes);

/* The tile groups a block of TILED_SHARED runs for v at the widest tile of tile_bytes (0 when no
 * tile fits beside the factor in a block's shared memory). */
int cohort_cuda_banded_tile_groups(const struct banded_view *v, size_t tile_bytes);

/* The members TILED (shared = 0) or TILED_SHARED (1) keeps resident on an SM of the current device
 * at tile_bytes, by the occupancy calculator (0 when no tile fits). */
int cohort_cuda_banded_resident_members(const struct banded_view *v, size_t tile_bytes, int shared);

/* The systems per warp tile that the WARP path uses for v at tile_bytes (0: none fits). */
int cohort_cuda_banded_warp_width(const struct banded_view *v, size_t tile_bytes);

/* Whether AUTO solves v on the WARP path, whose store can sum each solution as it writes it. */
int cohort_cuda_banded_auto_stores_mean(const struct banded_view *v);

/* The AUTO solve in place (batches of one group) that also leaves member m's mean of its solution
 * in member_mean[m] (device memory), summed in row order as field_member_mean sums it, so the
 * same bits, without reading the solution again. Only where cohort_cuda_banded_auto_stores_mean
 * (else COHORT_ERR_INVALID_ARGUMENT). On `stream`, a cudaStream_t (NULL: the default stream). */
int cohort_cuda_banded_solve_mean(const struct banded_view *v, double *u, int64_t ld, int64_t m0,
                                  int64_t count, double *member_mean, void *stream);

#ifdef __cplusplus
}
#endif
#endif
