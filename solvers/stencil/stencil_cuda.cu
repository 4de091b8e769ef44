/* The stencils on the cuda backend (stencil_kernels.h), around the COHORT_HD arithmetic of
 * stencil_numerics.h. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "backend/cuda_check.cuh"
#include "stencil/stencil_kernels.h"
#include "stencil/stencil_numerics.h"

/* ---- 2D stencils: one thread per (point, member) of a row, member fastest, so a warp reads
 * consecutive addresses; neighbours come through L1/L2 ---- */

/* RX, RY: the reach of the box, fixed at compile time (0, 1, 2 or 4, at least the
 * stencil's). Each thread computes STENCIL_COLUMN rows of one (i, member) column, sliding its
 * window down one row at a time in registers: one new window row per output instead of
 * 2 RY + 1 (the specialised path; stencil_weights_window does the arithmetic of every path). */
enum { STENCIL_COLUMN = 8 };

template <int RX, int RY>
__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    stencil_weights_kernel(const __grid_constant__ stencil_view v, const double *__restrict__ in,
                           double *__restrict__ out, int64_t ld, int64_t m0, int64_t count,
                           stencil_range b, int64_t j_first)
{
    constexpr int W = 2 * RX + 1, H = 2 * RY + 1;
    int64_t i, m;
    if (!stencil_range_point(&b, blockIdx.x * (int64_t)blockDim.x + threadIdx.x, m0, count, &i, &m))
        return;
    const double *u = in + m;
    const int64_t j0 = j_first + (int64_t)blockIdx.y * STENCIL_COLUMN;
    const int64_t j1 = j0 + STENCIL_COLUMN < b.j1 ? j0 + STENCIL_COLUMN : b.j1;
    double win[H * W];
#pragma unroll
    for (int dy = -RY; dy < RY; ++dy) /* rows j0 - RY .. j0 + RY - 1; the last comes in the loop */
        stencil_window_row(&v, u, ld, i, stencil_row(&v, j0, dy), RX, win + (dy + RY + 1) * W);
    for (int64_t j = j0; j < j1; ++j) {
#pragma unroll
        for (int q = 0; q < (H - 1) * W; ++q) win[q] = win[q + W];
        stencil_window_row(&v, u, ld, i, stencil_row(&v, j, RY), RX, win + (H - 1) * W);
        out[(j * v.nx + i) * ld + m] = stencil_weights_window(&v, win, RX, RY);
    }
}

template <int OP>
__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    stencil_operator_kernel(stencil_op_args a, int periodic, double *out, int64_t nx, int64_t ny,
                            int64_t ld, int64_t m0, int64_t count, stencil_range b, int64_t j_first)
{
    const int64_t j = j_first + blockIdx.y;
    int64_t i, m;
    if (!stencil_range_point(&b, blockIdx.x * (int64_t)blockDim.x + threadIdx.x, m0, count, &i, &m))
        return;
    stencil_window w;
    switch (OP) { /* resolved when the template is instantiated */
#define CUDA_STENCIL_OP_CASE(name, fn, inputs, rx, ry)                                             \
    case name:                                                                                     \
        stencil_gather(&a, inputs, rx, ry, periodic, nx, ny, ld, m, i, j, w);                      \
        out[(j * nx + i) * ld + m] = fn(w, a.p);                                                   \
        break;
        STENCIL_OPERATORS(CUDA_STENCIL_OP_CASE)
#undef CUDA_STENCIL_OP_CASE
    }
}

/* Rows j0 .. j1-1 in launches of at most 65535 (grid.y). */
#define STENCIL_LAUNCH_ROWS(b, count, ...)                                                         \
    for (int64_t j_first = (b).j0; j_first < (b).j1; j_first += 65535) {                           \
        const unsigned rows_ = (unsigned)((b).j1 - j_first < 65535 ? (b).j1 - j_first : 65535);    \
        const int64_t points_ = ((b).i1 - (b).i0) * (count);                                       \
        const dim3 grid_((unsigned)((points_ + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS),    \
                         rows_);                                                                   \
        __VA_ARGS__;                                                                               \
    }

/* The smallest compile-time reach of 0, 1, 2, 4 that covers r, or -1: beyond 4, the generic
 * kernel (runtime reach, the window in local memory; kept out of the templates, whose unrolled
 * windows would grow every binary for rare stencils). */
static int box_reach(int r)
{
    return r <= 2 ? r : r <= 4 ? 4 : -1;
}

__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    stencil_weights_generic_kernel(const __grid_constant__ stencil_view v,
                                   const double *__restrict__ in, double *__restrict__ out,
                                   int64_t ld, int64_t m0, int64_t count, stencil_range b,
                                   int64_t j_first)
{
    const int64_t j = j_first + blockIdx.y;
    int64_t i, m;
    if (!stencil_range_point(&b, blockIdx.x * (int64_t)blockDim.x + threadIdx.x, m0, count, &i, &m))
        return;
    const int rx = v.left > v.right ? v.left : v.right, ry = v.top > v.bottom ? v.top : v.bottom;
    out[(j * v.nx + i) * ld + m] = stencil_weights_point(&v, in + m, ld, i, j, rx, ry);
}

template <int RX>
static void launch_weights_rx(int ry, const stencil_view *v, const double *in, double *out,
                              int64_t ld, int64_t m0, int64_t count, const stencil_range &b)
{
    const int64_t columns = (b.j1 - b.j0 + STENCIL_COLUMN - 1) / STENCIL_COLUMN;
    const int64_t points = (b.i1 - b.i0) * count;
    for (int64_t c0 = 0; c0 < columns; c0 += 65535) { /* grid.y: at most 65535 per launch */
        const dim3 grid((unsigned)((points + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS),
                        (unsigned)(columns - c0 < 65535 ? columns - c0 : 65535));
        const int64_t j_first = b.j0 + c0 * STENCIL_COLUMN;
        switch (ry) {
        case 0:
            stencil_weights_kernel<RX, 0>
                <<<grid, COHORT_CUDA_THREADS>>>(*v, in, out, ld, m0, count, b, j_first);
            break;
        case 1:
            stencil_weights_kernel<RX, 1>
                <<<grid, COHORT_CUDA_THREADS>>>(*v, in, out, ld, m0, count, b, j_first);
            break;
        case 2:
            stencil_weights_kernel<RX, 2>
                <<<grid, COHORT_CUDA_THREADS>>>(*v, in, out, ld, m0, count, b, j_first);
            break;
        default:
            stencil_weights_kernel<RX, 4>
                <<<grid, COHORT_CUDA_THREADS>>>(*v, in, out, ld, m0, count, b, j_first);
        }
    }
}

static int cuda_stencil_weights(const stencil_view *v, const double *in, double *out, int64_t ld,
                                int64_t m0, int64_t count)
{
    const stencil_range b =
        stencil_written_range(v->periodic, v->nx, v->ny, v->left, v->right, v->top, v->bottom);
    if (b.i1 <= b.i0 || b.j1 <= b.j0) return COHORT_OK;
    const int rx = box_reach(v->left > v->right ? v->left : v->right);
    const int ry = box_reach(v->top > v->bottom ? v->top : v->bottom);
    if (rx < 0 || ry < 0) {
        STENCIL_LAUNCH_ROWS(b, count,
                            stencil_weights_generic_kernel<<<grid_, COHORT_CUDA_THREADS>>>(
                                *v, in, out, ld, m0, count, b, j_first));
        COHORT_CUDA_CHECK_LAUNCH("stencil_weights_generic_kernel");
        return COHORT_OK;
    }
    switch (rx) {
    case 0:
        launch_weights_rx<0>(ry, v, in, out, ld, m0, count, b);
        break;
    case 1:
        launch_weights_rx<1>(ry, v, in, out, ld, m0, count, b);
        break;
    case 2:
        launch_weights_rx<2>(ry, v, in, out, ld, m0, count, b);
        break;
    default:
        launch_weights_rx<4>(ry, v, in, out, ld, m0, count, b);
    }
    COHORT_CUDA_CHECK_LAUNCH("stencil_weights_kernel");
    return COHORT_OK;
}

static int cuda_stencil_operator(int op, const stencil_op_args *a, int periodic, double *out,
                                 int64_t nx, int64_t ny, int64_t ld, int64_t m0, int64_t count)
{
    switch (op) {
#define CUDA_STENCIL_OP_LAUNCH(name, fn, inputs, rx, ry)                                           \
    case name: {                                                                                   \
        const stencil_range b = stencil_written_range(periodic, nx, ny, rx, rx, ry, ry);           \
        if (b.i1 <= b.i0 || b.j1 <= b.j0) return COHORT_OK;                                        \
        STENCIL_LAUNCH_ROWS(b, count,                                                              \
                            stencil_operator_kernel<name><<<grid_, COHORT_CUDA_THREADS>>>(         \
                                *a, periodic, out, nx, ny, ld, m0, count, b, j_first));            \
        COHORT_CUDA_CHECK_LAUNCH(#fn);                                                             \
        return COHORT_OK;                                                                          \
    }
        STENCIL_OPERATORS(CUDA_STENCIL_OP_LAUNCH)
#undef CUDA_STENCIL_OP_LAUNCH
    default:
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "unknown stencil operator %d", op);
    }
}

extern "C" const stencil_kernels stencil_kernels_cuda = {.weights = cuda_stencil_weights,
                                                         .point_operator = cuda_stencil_operator};
