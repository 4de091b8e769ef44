/* The per-point arithmetic of the 2D stencil layer, shared by the OpenMP loops and the CUDA
 * kernels (COHORT_HD). Batched 2D fields are interleaved, member fastest (DESIGN.md): point
 * (i, j) of member m at u[(j * nx + i) * ld + m], i along x (0 .. nx-1), j along y. A stencil
 * reaches `left` points to smaller i, `right` to larger i, `top` rows to smaller j and `bottom`
 * to larger j (cuSten's numStenLeft/Right/Top/Bottom); its weights are row-major from the top-left
 * corner, weights[(dy + top) * (left + right + 1) + (dx + left)]. Periodic fields wrap; bounded
 * ones are computed only where the whole stencil lies inside, the rest of the output left to the
 * caller (cuSten's "np" variants).
 *
 * Point operators are fixed at compile time (cuSten's device function pointers, replaced by
 * inline functions): each reads a window of up to 5 x 5 points of up to STENCIL_MAX_INPUTS
 * fields around (i, j) and a few parameters, and returns the output value. The list is an
 * X-macro, so each backend instantiates one loop or kernel per operator. */
#ifndef COHORT_STENCIL_NUMERICS_H
#define COHORT_STENCIL_NUMERICS_H

#include <stdint.h>

#include "backend/cohort_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    STENCIL_MAX_INPUTS = 3,
    STENCIL_WINDOW = 5,
    STENCIL_MAX_PARAMS = 12,
    STENCIL_MAX_REACH = 8, /* weights stencils reach at most 8 points each way (17 x 17) */
    STENCIL_BOX = 2 * STENCIL_MAX_REACH + 1
};

/* A weights stencil, passed by value to the kernels: its shape and its weights placed in a
 * 17 x 17 box around the centre, box[(dy + 8) * 17 + (dx + 8)], zero outside the stencil. */
typedef struct stencil_view {
    int64_t nx, ny;
    int left, right, top, bottom;
    int periodic;
    double box[STENCIL_BOX * STENCIL_BOX];
} stencil_view;

/* Point operators: the arguments of one application. in[k] are the fields (NULL where an operator
 * reads fewer), p the parameters. */
typedef struct stencil_op_args {
    const double *in[STENCIL_MAX_INPUTS];
    double p[STENCIL_MAX_PARAMS];
} stencil_op_args;

/* The window of input k: w[k][dy + 2][dx + 2] = field k at (i + dx, j + dy). */
typedef double stencil_window[STENCIL_MAX_INPUTS][STENCIL_WINDOW][STENCIL_WINDOW];

/* The points (i, j) a stencil of these reaches writes, i in [i0, i1), j in [j0, j1): all where
 * periodic; where bounded, those whose stencil lies inside the field. */
typedef struct stencil_range {
    int64_t i0, i1, j0, j1;
} stencil_range;

COHORT_HD stencil_range stencil_written_range(int periodic, int64_t nx, int64_t ny, int left,
                                              int right, int top, int bottom)
{
    stencil_range r = {periodic ? 0 : left, periodic ? nx : nx - right, periodic ? 0 : top,
                       periodic ? ny : ny - bottom};
    return r;
}

/* Index k of a row's (point, member) pairs, member fastest: the point i and member m of
 * members [m0, m0 + count); 0 past the end. One member (a single large field): no division. */
COHORT_HD int stencil_range_point(const stencil_range *r, int64_t k, int64_t m0, int64_t count,
                                  int64_t *i, int64_t *m)
{
    if (k >= (r->i1 - r->i0) * count) return 0;
    *i = r->i0 + (count == 1 ? k : k / count);
    *m = m0 + (count == 1 ? 0 : k % count);
    return 1;
}

/* i + d on a periodic axis of n points (|d| < n). */
COHORT_HD int64_t stencil_wrap(int64_t i, int64_t d, int64_t n)
{
    int64_t k = i + d;
    return k < 0 ? k + n : k >= n ? k - n : k;
}

/* i + d clamped into [0, n): the box's taps beyond a bounded stencil read a valid point, which
 * their zero weight then leaves out. */
COHORT_HD int64_t stencil_clamp(int64_t i, int64_t d, int64_t n)
{
    const int64_t k = i + d;
    return k < 0 ? 0 : k >= n ? n - 1 : k;
}

/* Weights form from a window of reach (rx, ry) around the point (at least the stencil's reach),
 * win[(dy + ry) (2 rx + 1) + dx + rx] = the field at (i + dx, j + dy): the sum runs over dy, then
 * dx, and leaves taps of zero weight out (by a select, so no load has to wait on a branch, and a
 * NaN outside the stencil cannot leak in): every reach gives the same sum in the same order. The
 * CUDA kernels pass compile-time reaches, so the loops unroll and the weights are constants of
 * the launch. */
COHORT_HD double stencil_weights_window(const stencil_view *v, const double *win, int rx, int ry)
{
    double acc = 0.0;
    for (int dy = -ry; dy <= ry; ++dy)
        for (int dx = -rx; dx <= rx; ++dx) {
            const double w =
                v->box[(dy + STENCIL_MAX_REACH) * STENCIL_BOX + dx + STENCIL_MAX_REACH];
            const double x = win[(dy + ry) * (2 * rx + 1) + dx + rx];
            acc = w != 0.0 ? cohort_mul_add(w, x, acc) : acc;
        }
    return acc;
}

/* Row jj of a window: the field at (i + dx, jj), dx = -rx .. rx, periodic or clamped (the box's
 * taps beyond a bounded stencil read a valid point, which their zero weight then leaves out). */
COHORT_HD void stencil_window_row(const stencil_view *v, const double *u, int64_t ld, int64_t i,
                                  int64_t jj, int rx, double *row)
{
    for (int dx = -rx; dx <= rx; ++dx) {
        const int64_t ii = v->periodic ? stencil_wrap(i, dx, v->nx) : stencil_clamp(i, dx, v->nx);
        row[dx + rx] = u[(jj * v->nx + ii) * ld];
    }
}

/* The row index j + dy, periodic or clamped. */
COHORT_HD int64_t stencil_row(const stencil_view *v, int64_t j, int dy)
{
    return v->periodic ? stencil_wrap(j, dy, v->ny) : stencil_clamp(j, dy, v->ny);
}

/* Weights form at point (i, j) of the member whose first point is u[0]. */
COHORT_HD double stencil_weights_point(const stencil_view *v, const double *u, int64_t ld,
                                       int64_t i, int64_t j, int rx, int ry)
{
    double win[STENCIL_BOX * STENCIL_BOX];
    for (int dy = -ry; dy <= ry; ++dy)
        stencil_window_row(v, u, ld, i, stencil_row(v, j, dy), rx, win + (dy + ry) * (2 * rx + 1));
    return stencil_weights_window(v, win, rx, ry);
}

/* The window of radius (rx, ry) of every input at (i, j); u[k] points at the member's first
 * point of input k. */
COHORT_HD void stencil_gather(const stencil_op_args *a, int inputs, int rx, int ry, int periodic,
                              int64_t nx, int64_t ny, int64_t ld, int64_t member, int64_t i,
                              int64_t j, stencil_window w)
{
    for (int k = 0; k < inputs; ++k)
        for (int dy = -ry; dy <= ry; ++dy) {
            const int64_t jj = periodic ? stencil_wrap(j, dy, ny) : j + dy;
            for (int dx = -rx; dx <= rx; ++dx) {
                const int64_t ii = periodic ? stencil_wrap(i, dx, nx) : i + dx;
                w[k][dy + 2][dx + 2] = a->in[k][(jj * nx + ii) * ld + member];
            }
        }
}

COHORT_HD double stencil_cubic(double c)
{
    return c * c * c - c;
}

/* p[0] delta_x^2 (C^3 - C) + p[1] delta_y^2 (C^3 - C) of input 0 (with p = 1/dx^2, 1/dy^2: the
 * Laplacian of the Cahn-Hilliard chemical potential's bulk part, cuSten Sec. IV B). */
COHORT_HD double stencil_op_laplacian_cubic(stencil_window w, const double *p)
{
    const double c = stencil_cubic(w[0][2][2]);
    return p[0] * (stencil_cubic(w[0][2][1]) - 2.0 * c + stencil_cubic(w[0][2][3])) +
           p[1] * (stencil_cubic(w[0][1][2]) - 2.0 * c + stencil_cubic(w[0][3][2]));
}

/* The explicit part of a 2D Cahn-Hilliard step (ch2d.h), A = input 0, B = input 1:
 *   p[0] A + p[1] B
 *   - [p[4] delta_x^4 + p[5] delta_x^2 delta_y^2 + p[6] delta_y^4] (p[2] A + p[3] B)
 *   + [p[7] delta_x^2 + p[8] delta_y^2] (A^3 - A),
 * delta_x^2 phi_i = phi_{i+1} - 2 phi_i + phi_{i-1}, delta_x^4 its square (cuSten eq. 4). */
COHORT_HD double stencil_op_ch2d_explicit(stencil_window w, const double *p)
{
    double e[STENCIL_WINDOW][STENCIL_WINDOW];
    for (int y = 0; y < STENCIL_WINDOW; ++y)
        for (int x = 0; x < STENCIL_WINDOW; ++x) e[y][x] = p[2] * w[0][y][x] + p[3] * w[1][y][x];
    const double d4x = e[2][0] - 4.0 * e[2][1] + 6.0 * e[2][2] - 4.0 * e[2][3] + e[2][4];
    const double d4y = e[0][2] - 4.0 * e[1][2] + 6.0 * e[2][2] - 4.0 * e[3][2] + e[4][2];
    double dxy = 0.0; /* delta_x^2 delta_y^2: the 3 x 3 product of (1, -2, 1) */
    const double d2[3] = {1.0, -2.0, 1.0};
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) dxy += d2[y] * d2[x] * e[y + 1][x + 1];
    const double c = stencil_cubic(w[0][2][2]);
    const double lap = p[7] * (stencil_cubic(w[0][2][1]) - 2.0 * c + stencil_cubic(w[0][2][3])) +
                       p[8] * (stencil_cubic(w[0][1][2]) - 2.0 * c + stencil_cubic(w[0][3][2]));
    return p[0] * w[0][2][2] + p[1] * w[1][2][2] - (p[4] * d4x + p[5] * dxy + p[6] * d4y) + lap;
}

/* p[0] A + p[1] B + p[2] C of inputs 0, 1, 2 at the point (no neighbours). */
COHORT_HD double stencil_op_combine(stencil_window w, const double *p)
{
    return p[0] * w[0][2][2] + p[1] * w[1][2][2] + p[2] * w[2][2][2];
}

/* X(NAME, function, inputs, radius x, radius y) */
#define STENCIL_OPERATORS(X)                                                                       \
    X(STENCIL_OP_LAPLACIAN_CUBIC, stencil_op_laplacian_cubic, 1, 1, 1)                             \
    X(STENCIL_OP_CH2D_EXPLICIT, stencil_op_ch2d_explicit, 2, 2, 2)                                 \
    X(STENCIL_OP_COMBINE, stencil_op_combine, 3, 0, 0)

typedef enum {
#define STENCIL_OP_ENUM(name, fn, inputs, rx, ry) name,
    STENCIL_OPERATORS(STENCIL_OP_ENUM)
#undef STENCIL_OP_ENUM
        STENCIL_OP_COUNT
} stencil_op;

#ifdef __cplusplus
}
#endif
#endif
