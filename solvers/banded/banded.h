/* Batched solvers for many systems that share ONE banded left-hand side: tridiagonal (h = 1) and
 * pentadiagonal (h = 2), plain or periodic (cyclic). Factor once on the host (banded_factor_*),
 * upload the O(N) factor to a backend (banded_solver_alloc), then solve any number of
 * right-hand sides in place (banded_solver_solve), whole batches or sub-batches.
 *
 * Coefficients are arrays of length n and may vary along the diagonal. diagonal[o][i] holds
 * A(i, i + o - h) for o = 0..2h: for the tridiagonal case sub[i] = A(i, i-1), diag[i] = A(i, i),
 * super[i] = A(i, i+1). A periodic system wraps around: sub[0] = A(0, n-1) and super[n-1] =
 * A(n-1, 0) are its corners (pentadiagonal: sub2[0] = A(0, n-2), sub2[1] = A(1, n-1), super1[n-1]
 * = A(n-1, 0), super2[n-2] = A(n-2, 0), super2[n-1] = A(n-1, 1)). A plain system ignores those
 * entries (they are neither read for finiteness nor used).
 *
 * Sizes: n >= 3 (tridiagonal) and n >= 5 (pentadiagonal), plain and periodic alike (periodic needs
 * n >= 2h + 1 so that the corner entries do not fall on the band). No pivoting is done: the
 * factorisation is for the diagonally dominant (or otherwise pivot-safe) matrices of implicit
 * time stepping, and rejects a pivot below BANDED_PIVOT_RTOL times its row's largest entry.
 *
 * Right-hand sides are interleaved, member fastest: row i of member m is u[i * ld + m], with ld
 * = M, the number of members in the array. A solve works on members [m0, m0 + count) and leaves
 * every other member untouched. */
#ifndef COHORT_BANDED_H
#define COHORT_BANDED_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "banded/banded_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pivot p of row i is accepted when |p| > BANDED_PIVOT_RTOL * max_j |A(i, j)|. */
#define BANDED_PIVOT_RTOL 1e-12

typedef struct banded_factor banded_factor;
typedef struct banded_solver banded_solver;

/* General form: h = 1 or 2, diagonals[0..2h] as described above. Errors:
 * COHORT_ERR_NULL_POINTER, COHORT_ERR_BANDWIDTH, COHORT_ERR_SIZE_TOO_SMALL,
 * COHORT_ERR_NONFINITE_COEFF, COHORT_ERR_SINGULAR_PIVOT, COHORT_ERR_NO_MEMORY. */
int banded_factor_alloc(int64_t n, int h, const double *const *diagonals, int periodic,
                        banded_factor **out);
int banded_tri_factor_alloc(int64_t n, const double *sub, const double *diag, const double *super,
                            int periodic, banded_factor **out);
int banded_penta_factor_alloc(int64_t n, const double *sub2, const double *sub1, const double *diag,
                              const double *super1, const double *super2, int periodic,
                              banded_factor **out);
/* A matrix constant along each diagonal (Toeplitz; circulant when periodic): entries[o] =
 * A(i, i + o - h), o = 0..2h. The errors of banded_factor_alloc. */
int banded_constant_factor_alloc(int64_t n, int h, const double *entries, int periodic,
                                 banded_factor **out);
void banded_factor_free(banded_factor *f);

int64_t banded_factor_size(const banded_factor *f);
int banded_factor_half_bandwidth(const banded_factor *f);
/* ||A||_inf of the matrix as given (largest row sum of |entries|, corners included when
 * periodic): the scale of normwise backward errors ||Ax - d|| / (||A|| ||x|| + ||d||). */
double banded_factor_norm_inf(const banded_factor *f);
/* Bytes of factor data a solver uploads (O(N); never per system). */
size_t banded_factor_bytes(const banded_factor *f);
/* The host-memory view (for host-side solves of single vectors, e.g. in set-up code). */
const banded_view *banded_factor_view(const banded_factor *f);

/* y = A x for member m of an interleaved host array x (ld = M); y has n entries. Uses the
 * original coefficients, not the factor: for residual checks. */
void banded_factor_apply_member(const banded_factor *f, const double *x, int64_t ld, int64_t m,
                                double *y);

/* Uploads the factor to `backend`. */
int banded_solver_alloc(const cohort_backend *backend, const banded_factor *f, banded_solver **out);
void banded_solver_free(banded_solver *s);
/* From now on, s solves through the partitioned form (many threads a system) on the backends that
 * have it (cuda), whatever the batch: for callers whose batches are few long systems, such as the
 * lines of one large 2D field, where a thread per system would leave the GPU idle. Decide it from
 * the problem, never from a batch, before the first solve: the partitioned form rounds
 * differently, and a member's bits must not depend on the batch it is solved in. */
void banded_solver_prefer_partitioned(banded_solver *s);
/* The view whose pointers are in the backend's memory (for a backend's specialised paths). */
const banded_view *banded_solver_view(const banded_solver *s);

/* Solves members [m0, m0 + count) of u (in the backend's memory, ld = M members) in place.
 * Errors: COHORT_ERR_NULL_POINTER, COHORT_ERR_EMPTY_BATCH (ld or count < 1),
 * COHORT_ERR_SUBBATCH_RANGE (m0 < 0 or m0 + count > ld), COHORT_ERR_CUDA. Asynchronous on the
 * cuda backend (stream order); call backend->synchronize before reading u on the host. */
int banded_solver_solve(const banded_solver *s, double *u, int64_t ld, int64_t m0, int64_t count);

/* The same for `groups` batches at once, batch g at u + g * group_stride; the batches must not
 * share elements (the caller's to ensure; group_stride >= count is checked). The lines of a batch
 * of 2D members u[(j * nx + i) * M + m]: along x, groups j of members m with ld = M and
 * group_stride = nx M; along y, groups i with ld = nx M and group_stride = M. */
int banded_solver_solve_groups(const banded_solver *s, double *u, int64_t ld, int64_t m0,
                               int64_t count, int64_t groups, int64_t group_stride);

/* ---- A factor a member: members whose matrices differ (a parameter of the implicit matrix
 * swept per member) solve in one batch, member m with factor m. The factors share one shape (n,
 * h, periodic, and so the border columns) and are held interleaved, member fastest
 * (banded_view.member_factor), in the sequential form only: a shape whose shared factor would
 * take the chunked form is refused. Each member's solve is banded_system_solve's with its factor,
 * so its bits are those of a solver of that factor alone. ---- */
typedef struct banded_members banded_members;

/* Room for `count` factors of shape's shape, on the host. Errors: COHORT_ERR_NULL_POINTER,
 * COHORT_ERR_EMPTY_BATCH (count < 1), COHORT_ERR_INVALID_ARGUMENT (a shape whose form is not the
 * sequential one), COHORT_ERR_NO_MEMORY. */
int banded_members_alloc(const banded_factor *shape, int64_t count, banded_members **out);
void banded_members_free(banded_members *b);
/* Member m's factor f (of the shape's n, h and periodicity; COHORT_ERR_INVALID_ARGUMENT if not;
 * COHORT_ERR_SUBBATCH_RANGE for m outside [0, count)). Members may be set from several threads. */
int banded_members_set(banded_members *b, int64_t m, const banded_factor *f);
/* Whether a factor of f's shape can be held a member (its form is the sequential one). */
int banded_members_fit(const banded_factor *f);
/* A member's Toeplitz (circulant) factor for banded_members_set: banded_constant_factor_alloc's
 * LU, spike and border blocks, the same bits, without its chunked and partitioned forms (their
 * cost is most of a short system's factoring). Its own form is the sequential one whatever n, so
 * a solver of it alone solves as a member would. The errors of banded_factor_alloc. */
int banded_member_factor_alloc(int64_t n, int h, const double *entries, int periodic,
                               banded_factor **out);

/* Uploads b's factors to the solver's backend: from now on member m of every solve (m < b's
 * count) takes factor m instead of the shared one. Errors: COHORT_ERR_NULL_POINTER,
 * COHORT_ERR_INVALID_ARGUMENT (another shape; a solver that prefers the partitioned form), those
 * of the backend's alloc and copy. */
int banded_solver_use_members(banded_solver *s, const banded_members *b);

#ifdef __cplusplus
}
#endif
#endif
