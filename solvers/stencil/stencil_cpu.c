/* The stencils on the cpu backend: OpenMP over the rows of points, members innermost (unit
 * stride); the arithmetic is stencil_numerics.h's, as on the GPU. */
#include "backend/cohort_error.h"
#include "stencil/stencil_kernels.h"

static int cpu_stencil_weights(const stencil_view *v, const double *in, double *out, int64_t ld,
                               int64_t m0, int64_t count)
{
    const stencil_range r =
        stencil_written_range(v->periodic, v->nx, v->ny, v->left, v->right, v->top, v->bottom);
    const int rx = v->left > v->right ? v->left : v->right;
    const int ry = v->top > v->bottom ? v->top : v->bottom;
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t j = r.j0; j < r.j1; ++j)
        for (int64_t i = r.i0; i < r.i1; ++i)
            for (int64_t m = m0; m < m0 + count; ++m)
                out[(j * v->nx + i) * ld + m] = stencil_weights_point(v, in + m, ld, i, j, rx, ry);
    return COHORT_OK;
}

/* The loop of one point operator; called with constant fn, inputs and radii, which the
 * compiler propagates into a loop per operator. */
static void cpu_stencil_loop(double (*fn)(stencil_window, const double *), int inputs, int rx,
                             int ry, const stencil_op_args *a, int periodic, double *out,
                             int64_t nx, int64_t ny, int64_t ld, int64_t m0, int64_t count)
{
    const stencil_range r = stencil_written_range(periodic, nx, ny, rx, rx, ry, ry);
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t j = r.j0; j < r.j1; ++j)
        for (int64_t i = r.i0; i < r.i1; ++i)
            for (int64_t m = m0; m < m0 + count; ++m) {
                stencil_window w;
                stencil_gather(a, inputs, rx, ry, periodic, nx, ny, ld, m, i, j, w);
                out[(j * nx + i) * ld + m] = fn(w, a->p);
            }
}

#define CPU_STENCIL_OP_CASE(name, fn, inputs, rx, ry)                                              \
    case name:                                                                                     \
        cpu_stencil_loop(fn, inputs, rx, ry, a, periodic, out, nx, ny, ld, m0, count);             \
        return COHORT_OK;

static int cpu_stencil_operator(int op, const stencil_op_args *a, int periodic, double *out,
                                int64_t nx, int64_t ny, int64_t ld, int64_t m0, int64_t count)
{
    switch (op) {
        STENCIL_OPERATORS(CPU_STENCIL_OP_CASE)
    default:
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "unknown stencil operator %d", (int)op);
    }
}

const stencil_kernels stencil_kernels_cpu = {.weights = cpu_stencil_weights,
                                             .point_operator = cpu_stencil_operator};
