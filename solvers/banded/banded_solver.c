/* A factor uploaded to a backend, and the argument checks of a batched solve. */
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "banded/banded_kernels.h"
#include "banded/banded.h"

struct banded_solver {
    const cohort_backend *backend;
    banded_view view; /* pointers into device_storage */
    void *device_storage;
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
    free(s);
}

void banded_solver_prefer_partitioned(banded_solver *s)
{
    if (s) s->view.prefer_partitioned = 1;
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
    COHORT_CALL(COHORT_KERNELS(s->backend, banded_kernels)
                    ->solve(&s->view, u, ld, m0, count, groups, group_stride));
    return COHORT_OK;
}
