/* An adaptive Runge-Kutta-Merson integrator for method-of-lines systems u' = f(t, u) of a batch
 * of independent members (seed 000, Algorithm 4.1, eq. 27-29), on either backend.
 *
 * Each member has its own time, step and error: e (eq. 27) is the maximum over that member's own
 * values, the accept/reject decision and the next step (eq. 29) are the member's, and a member
 * that reaches the target time waits there while the others finish. A member's trajectory
 * therefore does not depend on which members share its batch (test_rkm checks it bitwise).
 * Interleaved states: value v of member m at u[v * ld + m], members [0, count). */
#ifndef COHORT_RKM_H
#define COHORT_RKM_H

#include <stdint.h>

#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a fused advance works on (backend memory): the members' bookkeeping, the state and the
 * stage arrays (k5 shares k2's; the stage arguments alternate between arg and arg_odd), a second
 * state array (u_next), 2 ld + 2 words of scratch, the sizes, the target time and the tolerance,
 * and the blocks per member (0: the launch chooses; rkm_cuda.cuh). */
typedef struct rkm_fused_args {
    struct rkm_member *members;
    double *u, *arg, *arg_odd, *k1, *k2_k5, *k3, *k4, *u_next;
    unsigned long long *flags;
    int64_t n, ld, count;
    double t_to, tolerance;
    int64_t blocks_per_member;
} rkm_fused_args;

/* Batches the fused advance takes: at most RKM_FUSED_MAX_MEMBERS members, and at most
 * RKM_FUSED_MAX_VALUES values in all or a single member of at most RKM_FUSED_MAX_SINGLE; or
 * members of at most RKM_FUSED_ONE_BLOCK_VALUES values (each one block, its arrays in shared
 * memory; rkm_cuda.cuh), any number of them, up to RKM_FUSED_MAX_ONE_BLOCK_BATCH values in all.
 * The limits are bench-rkm-paths' crossovers: beyond them the per-stage kernels, which fill the
 * device, are faster (the figures: solvers/banded/PERFORMANCE.md, "Figures behind the source's
 * choices"). */
enum {
    RKM_FUSED_MAX_MEMBERS = 264,
    RKM_FUSED_MAX_VALUES = 1 << 18,
    RKM_FUSED_MAX_SINGLE = 1025 * 1025,
    RKM_FUSED_ONE_BLOCK_VALUES = 320,
    RKM_FUSED_MAX_ONE_BLOCK_BATCH = 1 << 19
};

/* The right-hand side: f[v * ld + m] = f(t[m], u)_v for members [0, count); t in backend memory.
 * advance_fused (optional, cuda): Algorithm 4.1 for the whole advance in one launch
 * (rkm_cuda.cuh instantiated with the model's right-hand side); the same arithmetic as the
 * per-stage path, so the same bits. */
typedef struct rkm_rhs {
    int (*eval)(void *ctx, const double *t, const double *u, double *f, int64_t ld, int64_t count);
    void *ctx;
    int (*advance_fused)(void *ctx, const rkm_fused_args *a);
} rkm_rhs;

typedef struct rkm_integrator rkm_integrator;

/* Working memory for up to `ld` members of n values (six states' worth). */
int rkm_alloc(const cohort_backend *be, int64_t n, int64_t ld, rkm_integrator **out);
void rkm_free(rkm_integrator *r);

/* Members [0, count) start at time t0 with a first trial step tau0 and no steps counted. */
int rkm_start(rkm_integrator *r, double t0, double tau0, int64_t count);

/* Advances members [0, count) of u from their times to t_to (reached exactly), each with its own
 * steps, e < tolerance per accepted step: fused where f has it, the backend is cuda and the batch
 * is within RKM_FUSED_MAX_*, else per stage. */
int rkm_advance(rkm_integrator *r, const rkm_rhs *f, double *u, double t_to, double tolerance,
                int64_t count);

/* rkm_advance on a path of the caller's choice (tests and benchmarks; the same bits on each):
 * RKM_PATH_FUSED needs f->advance_fused. */
typedef enum rkm_path { RKM_PATH_AUTO, RKM_PATH_PER_STAGE, RKM_PATH_FUSED } rkm_path;
int rkm_advance_on(rkm_integrator *r, const rkm_rhs *f, double *u, double t_to, double tolerance,
                   int64_t count, rkm_path path);

/* Host copies of each member's accepted and rejected steps, time and next step (any may be NULL).
 */
int rkm_members(const rkm_integrator *r, int64_t count, int64_t *accepted, int64_t *rejected,
                double *t, double *tau);

/* The whole per-member state of members [0, count) (times, steps, errors, counters) as opaque
 * bytes, count * rkm_state_bytes, and its restoration: a checkpoint of an advance in progress. */
enum { rkm_state_bytes = 56 };
int rkm_state_get(const rkm_integrator *r, int64_t count, void *bytes);
int rkm_state_set(rkm_integrator *r, int64_t count, const void *bytes);

#ifdef __cplusplus
}
#endif
#endif
