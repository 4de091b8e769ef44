#include "ode/rkm.h"

#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "ode/rkm_kernels.h"

enum { RKM_CHECK_EVERY = 8 };

struct rkm_integrator {
    const cohort_backend *be;
    const rkm_kernels *k;
    int64_t n, ld;
    rkm_member *members; /* ld, backend memory */
    double *t_stage;     /* ld */
    /* k2 is dead once stage 3's argument is formed, so k5 takes its place */
    double *arg, *k1, *k2_k5, *k3, *k4;
    /* the fused advance's second argument array, second state array and scratch, allocated at its
     * first use */
    double *arg_odd, *u_next;
    unsigned long long *flags; /* 2 ld + 2 */
};

int rkm_alloc(const cohort_backend *be, int64_t n, int64_t ld, rkm_integrator **out)
{
    if (!be || !out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "backend and out are required");
    if (n < 1 || ld < 1)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "n = %lld, ld = %lld", (long long)n,
                           (long long)ld);
    rkm_integrator *r = calloc(1, sizeof *r);
    if (!r) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "integrator");
    r->be = be, r->k = COHORT_KERNELS(be, rkm_kernels), r->n = n, r->ld = ld;
    const size_t state = (size_t)(n * ld) * sizeof(double);
    int rc = be->alloc((void **)&r->members, (size_t)ld * sizeof(rkm_member));
    if (rc == COHORT_OK) rc = be->alloc((void **)&r->t_stage, (size_t)ld * sizeof(double));
    double **states[] = {&r->arg, &r->k1, &r->k2_k5, &r->k3, &r->k4};
    for (size_t q = 0; q < sizeof states / sizeof *states && rc == COHORT_OK; ++q)
        rc = be->alloc((void **)states[q], state);
    if (rc != COHORT_OK) {
        rkm_free(r);
        return rc;
    }
    *out = r;
    return COHORT_OK;
}

void rkm_free(rkm_integrator *r)
{
    if (!r) return;
    const cohort_backend *be = r->be;
    be->release(r->members), be->release(r->t_stage), be->release(r->arg), be->release(r->k1);
    be->release(r->k2_k5), be->release(r->k3), be->release(r->k4);
    be->release(r->arg_odd), be->release(r->u_next), be->release(r->flags);
    free(r);
}

int rkm_start(rkm_integrator *r, double t0, double tau0, int64_t count)
{
    if (count < 1 || count > r->ld)
        return COHORT_FAIL(COHORT_ERR_SUBBATCH_RANGE, "%lld members of %lld", (long long)count,
                           (long long)r->ld);
    if (!(tau0 > 0.0)) return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "first step %g", tau0);
    rkm_member *host = malloc((size_t)count * sizeof *host);
    if (!host) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld members", (long long)count);
    for (int64_t m = 0; m < count; ++m)
        host[m] = (rkm_member){.t = t0, .tau = tau0, .h = 0.0, .e = 0.0};
    const int rc = r->be->copy_to_device(r->members, host, (size_t)count * sizeof *host);
    free(host);
    return rc;
}

int rkm_advance(rkm_integrator *r, const rkm_rhs *f, double *u, double t_to, double tolerance,
                int64_t count)
{
    return rkm_advance_on(r, f, u, t_to, tolerance, count, RKM_PATH_AUTO);
}

/* Algorithm 4.1 for every member at once, until each has reached t_to. */
int rkm_advance_on(rkm_integrator *r, const rkm_rhs *f, double *u, double t_to, double tolerance,
                   int64_t count, rkm_path path)
{
    if (!f || !f->eval || !u) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "rhs and u are required");
    if (count < 1 || count > r->ld)
        return COHORT_FAIL(COHORT_ERR_SUBBATCH_RANGE, "%lld members of %lld", (long long)count,
                           (long long)r->ld);
    if (!(tolerance > 0.0))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "tolerance %g", tolerance);
    const rkm_kernels *k = r->k;
    const int64_t n = r->n, ld = r->ld;
    if (path == RKM_PATH_FUSED && !f->advance_fused)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "the fused path needs advance_fused");
    if (path == RKM_PATH_AUTO) {
        const int one_block_batch =
            n <= RKM_FUSED_ONE_BLOCK_VALUES && n * count <= RKM_FUSED_MAX_ONE_BLOCK_BATCH;
        const int batch =
            count <= RKM_FUSED_MAX_MEMBERS &&
            (n * count <= RKM_FUSED_MAX_VALUES || (count == 1 && n <= RKM_FUSED_MAX_SINGLE));
        path = f->advance_fused && r->be->kind == COHORT_BACKEND_CUDA && (one_block_batch || batch)
                   ? RKM_PATH_FUSED
                   : RKM_PATH_PER_STAGE;
    }
    if (path == RKM_PATH_FUSED) {
        double **fused_arrays[] = {&r->arg_odd, &r->u_next};
        for (int q = 0; q < 2; ++q)
            if (!*fused_arrays[q])
                COHORT_CALL(
                    r->be->alloc((void **)fused_arrays[q], (size_t)(n * ld) * sizeof(double)));
        if (!r->flags)
            COHORT_CALL(r->be->alloc((void **)&r->flags, (size_t)(2 * ld + 2) * sizeof *r->flags));
        const rkm_fused_args a = {.members = r->members,
                                  .u = u,
                                  .arg = r->arg,
                                  .arg_odd = r->arg_odd,
                                  .k1 = r->k1,
                                  .k2_k5 = r->k2_k5,
                                  .k3 = r->k3,
                                  .k4 = r->k4,
                                  .u_next = r->u_next,
                                  .flags = r->flags,
                                  .n = n,
                                  .ld = ld,
                                  .count = count,
                                  .t_to = t_to,
                                  .tolerance = tolerance,
                                  .blocks_per_member = 0};
        return f->advance_fused(f->ctx, &a);
    }
    /* Asking how many members still step costs a synchronisation on cuda: where a step is as
     * short as a few launches (fewer than RKM_FUSED_MAX_VALUES values, the device not filled),
     * ask every RKM_CHECK_EVERY steps; else, and on the cpu, every step. A member at t_to
     * meanwhile has h = 0, and its steps change nothing (rkm_numerics.h), so the extra steps cost
     * time, not results; but they cost whole steps: 4,096 members of 64^2 (mcf2d, records every
     * 0.01, 3-4 steps a record) ran 8 steps a record when asked every 8. */
    const int64_t check_every =
        r->be->kind == COHORT_BACKEND_CUDA && n * count < RKM_FUSED_MAX_VALUES ? RKM_CHECK_EVERY
                                                                               : 1;
    for (int64_t step = 0;; ++step) {
        int64_t active = 1;
        COHORT_CALL(k->begin(r->members, t_to, count, step % check_every ? NULL : &active));
        if (active == 0) return COHORT_OK;
        /* stage 1 at the members' own times */
        COHORT_CALL(
            k->stage(1, r->members, u, NULL, NULL, NULL, NULL, r->t_stage, NULL, n, ld, count));
        COHORT_CALL(f->eval(f->ctx, r->t_stage, u, r->k1, ld, count));
        double *stage_out[] = {NULL, NULL, r->k2_k5, r->k3, r->k4, r->k2_k5};
        for (int s = 2; s <= 5; ++s) {
            COHORT_CALL(k->stage(s, r->members, u, r->k1, r->k2_k5, r->k3, r->k4, r->t_stage,
                                 r->arg, n, ld, count));
            COHORT_CALL(f->eval(f->ctx, r->t_stage, r->arg, stage_out[s], ld, count));
        }
        COHORT_CALL(
            k->finish(r->members, t_to, tolerance, u, r->k1, r->k3, r->k4, r->k2_k5, n, ld, count));
    }
}

int rkm_members(const rkm_integrator *r, int64_t count, int64_t *accepted, int64_t *rejected,
                double *t, double *tau)
{
    rkm_member *host = malloc((size_t)count * sizeof *host);
    if (!host) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld members", (long long)count);
    int rc = r->be->synchronize();
    if (rc == COHORT_OK) rc = r->be->copy_to_host(host, r->members, (size_t)count * sizeof *host);
    for (int64_t m = 0; m < count && rc == COHORT_OK; ++m) {
        if (accepted) accepted[m] = host[m].accepted;
        if (rejected) rejected[m] = host[m].rejected;
        if (t) t[m] = host[m].t;
        if (tau) tau[m] = host[m].tau;
    }
    free(host);
    return rc;
}

_Static_assert(sizeof(rkm_member) == rkm_state_bytes, "rkm_state_bytes is rkm_member's size");

int rkm_state_get(const rkm_integrator *r, int64_t count, void *bytes)
{
    if (count < 1 || count > r->ld)
        return COHORT_FAIL(COHORT_ERR_SUBBATCH_RANGE, "%lld members of %lld", (long long)count,
                           (long long)r->ld);
    COHORT_CALL(r->be->synchronize());
    return r->be->copy_to_host(bytes, r->members, (size_t)count * sizeof(rkm_member));
}

int rkm_state_set(rkm_integrator *r, int64_t count, const void *bytes)
{
    if (count < 1 || count > r->ld)
        return COHORT_FAIL(COHORT_ERR_SUBBATCH_RANGE, "%lld members of %lld", (long long)count,
                           (long long)r->ld);
    return r->be->copy_to_device(r->members, bytes, (size_t)count * sizeof(rkm_member));
}
