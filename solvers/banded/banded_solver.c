/* A factor uploaded to a backend, and the argument checks of a batched solve. */
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "banded/banded_kernels.h"
#include "banded/banded.h"

struct banded_solver {
    const cohort_backend *backend;
    banded_view view; /* pointers into device_storage (and member_storage) */
    void *device_storage;
    void *member_storage; /* banded_solver_use_members' factors */
    size_t member_bytes;
};

/* A pointer into the host factor's storage, moved to the same place in the device copy. */
static const double *rebase(const double *p, const double *host_base, const double *device_base)
{
    return p ? device_base + (p - host_base) : NULL;
}

int banded_solver_alloc(const cohort_backend *backend, const banded_factor *f, banded_solver **out)
{
    if (!out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "out is NULL");
    *out = NULL;
    if (!backend || !f) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "backend and factor needed");
    banded_solver *s = calloc(1, sizeof *s);
    if (!s) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "banded_solver");
    s->backend = backend;
    s->view = *banded_factor_view(f);
    const size_t bytes = banded_factor_bytes(f);
    int rc;
    COHORT_CALL_GOTO(rc, fail, backend->alloc(&s->device_storage, bytes));
    COHORT_CALL_GOTO(rc, fail, backend->copy_to_device(s->device_storage, s->view.coef, bytes));
    const double *host = banded_factor_view(f)->coef, *device = (const double *)s->device_storage;
    s->view.coef = rebase(s->view.coef, host, device);
    s->view.spike = rebase(s->view.spike, host, device);
    s->view.seg_coef = rebase(s->view.seg_coef, host, device);
    s->view.seg_spike = rebase(s->view.seg_spike, host, device);
    s->view.red_coef = rebase(s->view.red_coef, host, device);
    s->view.chunk_fwd = rebase(s->view.chunk_fwd, host, device);
    s->view.chunk_back = rebase(s->view.chunk_back, host, device);
    *out = s;
    return COHORT_OK;
fail:
    banded_solver_free(s);
    return rc;
}

void banded_solver_free(banded_solver *s)
{
    if (!s) return;
    s->backend->release(s->device_storage);
    if (s->member_storage) s->backend->release(s->member_storage);
    free(s);
}

void banded_solver_prefer_partitioned(banded_solver *s)
{
    if (s && !s->view.member_factor) s->view.prefer_partitioned = 1;
}

int banded_solver_use_members(banded_solver *s, const banded_members *b)
{
    if (!s || !b) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "solver and members are required");
    int64_t count = 0;
    const banded_view *shape = NULL;
    const double *host = banded_members_host(b, &count, &shape);
    const banded_view *v = &s->view;
    if (!banded_same_shape(shape, v))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "members of n = %lld, h = %d, border %d for a solver of n = %lld, h = "
                           "%d, border %d",
                           (long long)shape->n, shape->h, shape->border, (long long)v->n, v->h,
                           v->border);
    if (v->prefer_partitioned)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "a solver that prefers the partitioned form holds no factor a member");
    const size_t bytes = (size_t)(banded_member_values(shape) * count) * sizeof(double);
    if (bytes > s->member_bytes) { /* grown only: a chunk's members are fewer or as many */
        if (s->member_storage) s->backend->release(s->member_storage);
        s->member_storage = NULL, s->member_bytes = 0;
        s->view.member_factor = NULL;
        COHORT_CALL(s->backend->alloc(&s->member_storage, bytes));
        s->member_bytes = bytes;
    }
    COHORT_CALL(s->backend->copy_to_device(s->member_storage, host, bytes));
    s->view.member_factor = (const double *)s->member_storage;
    s->view.member_ld = count;
    return COHORT_OK;
}

const banded_view *banded_solver_view(const banded_solver *s)
{
    return &s->view;
}

int banded_solver_solve(const banded_solver *s, double *u, int64_t ld, int64_t m0, int64_t count)
{
    return banded_solver_solve_groups(s, u, ld, m0, count, 1, 0);
}

int banded_solver_solve_groups(const banded_solver *s, double *u, int64_t ld, int64_t m0,
                               int64_t count, int64_t groups, int64_t group_stride)
{
    if (!s || !u) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "solver and u are required");
    COHORT_CALL(cohort_check_subbatch(ld, m0, count));
    if (groups < 1 || (groups > 1 && group_stride < count))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "groups = %lld, group_stride = %lld: groups >= 1, apart by at least "
                           "count = %lld",
                           (long long)groups, (long long)group_stride, (long long)count);
    if (s->view.member_factor && m0 + count > s->view.member_ld)
        return COHORT_FAIL(COHORT_ERR_SUBBATCH_RANGE,
                           "members [%lld, %lld) of a solver holding %lld members' factors",
                           (long long)m0, (long long)(m0 + count), (long long)s->view.member_ld);
    COHORT_CALL(COHORT_KERNELS(s->backend, banded_kernels)
                    ->solve(&s->view, u, ld, m0, count, groups, group_stride));
    return COHORT_OK;
}
