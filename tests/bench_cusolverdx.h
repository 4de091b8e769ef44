/* bench-banded's device-side peer for tridiagonal systems: cuSolverDx's gtsv_no_pivot, a block
 * function of NVIDIA MathDx, generated at run time by libmathdx (PyPI: nvidia-libmathdx-cu13,
 * which `make -f Makefile.workflow setup` fetches into .venv; nothing of it is vendored) and
 * linked with a kernel of ours by nvJitLink. The kernel gives each block k systems of the batch as
 * the k right-hand sides of one solve with the shared matrix, loaded and stored a row at a time
 * (k consecutive values of the interleaved batch). Built only where CMake found libmathdx
 * (COHORT_HAVE_MATHDX); elsewhere the peer says why it is absent and bench-banded skips its row.
 */
#ifndef COHORT_BENCH_CUSOLVERDX_H
#define COHORT_BENCH_CUSOLVERDX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cusolverdx_peer cusolverdx_peer;

/* The peer for systems of n rows (the function is generated and linked here, seconds). NULL where
 * it cannot be had, with the reason in why. */
cusolverdx_peer *cusolverdx_peer_alloc(int n, char *why, size_t why_size);
/* Solves the m systems of u in place (row i of system j at u[i * m + j]) with the matrix (dl, d,
 * du), n values each in device memory (dl[i] = A(i, i-1), du[i] = A(i, i+1); dl[0] and du[n-1]
 * unused); nonzero on a failed launch, with the reason in why. */
int cusolverdx_peer_solve(const cusolverdx_peer *p, const double *dl, const double *d,
                          const double *du, double *u, int64_t m, char *why, size_t why_size);
/* The rows of the systems it solves. */
int cusolverdx_peer_rows(const cusolverdx_peer *p);
/* The right-hand sides a block takes. */
int cusolverdx_peer_width(const cusolverdx_peer *p);
void cusolverdx_peer_free(cusolverdx_peer *p);

#ifdef __cplusplus
}
#endif
#endif
