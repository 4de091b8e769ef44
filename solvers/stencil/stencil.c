#include "stencil/stencil.h"

#include <math.h>
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "stencil/stencil_kernels.h"

struct stencil {
    const cohort_backend *be;
    stencil_view view;
};

int stencil_create(const cohort_backend *be, stencil_direction direction, stencil_boundary boundary,
                   int64_t nx, int64_t ny, int left, int right, int top, int bottom,
                   const double *weights, stencil **out)
{
    if (!out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "out is NULL");
    *out = NULL;
    if (!be || !weights) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "backend and weights needed");
    if (nx < 1 || ny < 1)
        return COHORT_FAIL(COHORT_ERR_SIZE_TOO_SMALL, "nx = %lld, ny = %lld", (long long)nx,
                           (long long)ny);
    if (left < 0 || right < 0 || top < 0 || bottom < 0 || left > STENCIL_MAX_REACH ||
        right > STENCIL_MAX_REACH || top > STENCIL_MAX_REACH || bottom > STENCIL_MAX_REACH ||
        (direction == STENCIL_X && (top || bottom)) || (direction == STENCIL_Y && (left || right)))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "reach left %d right %d top %d bottom %d: each in [0, %d]; direction "
                           "x has no top or bottom, y no left or right",
                           left, right, top, bottom, STENCIL_MAX_REACH);
    if (boundary == STENCIL_PERIODIC && (left >= nx || right >= nx || top >= ny || bottom >= ny))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "a periodic stencil reaches less than the field: nx = %lld, ny = %lld",
                           (long long)nx, (long long)ny);
    const size_t taps = (size_t)(left + right + 1) * (size_t)(top + bottom + 1);
    for (size_t k = 0; k < taps; ++k)
        if (!isfinite(weights[k]))
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "weight %zu is not finite", k);
    stencil *s = calloc(1, sizeof *s);
    if (!s) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "stencil");
    s->be = be;
    stencil_view *v = &s->view;
    v->nx = nx, v->ny = ny, v->periodic = boundary == STENCIL_PERIODIC;
    v->left = left, v->right = right, v->top = top, v->bottom = bottom;
    const int width = left + right + 1;
    for (int dy = -top; dy <= bottom; ++dy)
        for (int dx = -left; dx <= right; ++dx)
            v->box[(dy + STENCIL_MAX_REACH) * STENCIL_BOX + dx + STENCIL_MAX_REACH] =
                weights[(dy + top) * width + dx + left];
    *out = s;
    return COHORT_OK;
}

int stencil_compute(const stencil *s, const double *in, double *out, int64_t ld, int64_t m0,
                    int64_t count)
{
    if (!s || !in || !out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "stencil, in and out");
    COHORT_CALL(cohort_check_subbatch(ld, m0, count));
    return COHORT_KERNELS(s->be, stencil_kernels)->weights(&s->view, in, out, ld, m0, count);
}

void stencil_destroy(stencil *s)
{
    free(s);
}

int stencil_operator_compute(const cohort_backend *be, stencil_op op, const stencil_op_args *a,
                             stencil_boundary boundary, double *out, int64_t nx, int64_t ny,
                             int64_t ld, int64_t m0, int64_t count)
{
    static const int inputs[] = {
#define STENCIL_OP_INPUTS(name, fn, n_in, rx, ry) n_in,
        STENCIL_OPERATORS(STENCIL_OP_INPUTS)
#undef STENCIL_OP_INPUTS
    };
    static const int reach[][2] = {
#define STENCIL_OP_REACH(name, fn, n_in, rx, ry) {rx, ry},
        STENCIL_OPERATORS(STENCIL_OP_REACH)
#undef STENCIL_OP_REACH
    };
    if (!be || !a || !out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "backend, args and out");
    if ((int)op < 0 || op >= STENCIL_OP_COUNT)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "unknown stencil operator %d", (int)op);
    for (int k = 0; k < inputs[op]; ++k)
        if (!a->in[k])
            return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "operator %d reads input %d", (int)op, k);
    if (nx < 1 || ny < 1 ||
        (boundary == STENCIL_PERIODIC && (reach[op][0] >= nx || reach[op][1] >= ny)))
        return COHORT_FAIL(COHORT_ERR_SIZE_TOO_SMALL, "nx = %lld, ny = %lld for operator %d",
                           (long long)nx, (long long)ny, (int)op);
    COHORT_CALL(cohort_check_subbatch(ld, m0, count));
    return COHORT_KERNELS(be, stencil_kernels)
        ->point_operator((int)op, a, boundary == STENCIL_PERIODIC, out, nx, ny, ld, m0, count);
}

void stencil_swap(double **in, double **out)
{
    double *t = *in;
    *in = *out;
    *out = t;
}
