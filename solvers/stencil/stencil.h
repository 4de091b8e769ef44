/* 2D finite-difference stencils on batched fields (cuSten's Create / Compute / Swap / Destroy,
 * with cohort's error model): members [m0, m0 + count) of interleaved nx x ny fields,
 * u[(j * nx + i) * ld + m] (stencil_numerics.h has the layout and the conventions).
 *
 * Two forms:
 *  - weights: any width and height, in direction x (one row: top = bottom = 0), y (one column:
 *    left = right = 0) or xy (a block, cross terms included), periodic or bounded;
 *  - point operators fixed at compile time (stencil_op, STENCIL_OPERATORS), which apply
 *    nonlinear terms such as the Laplacian of C^3 - C in one pass.
 * Any nx and ny (no divisibility rules); periodic stencils need reach < nx and < ny. */
#ifndef COHORT_STENCIL_H
#define COHORT_STENCIL_H

#include <stdint.h>

#include "backend/backend.h"
#include "stencil/stencil_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { STENCIL_X, STENCIL_Y, STENCIL_XY } stencil_direction;
typedef enum { STENCIL_PERIODIC, STENCIL_BOUNDED } stencil_boundary;

typedef struct stencil stencil;

/* weights: (top + bottom + 1) x (left + right + 1), row-major from the top-left, copied. Errors:
 * COHORT_ERR_INVALID_ARGUMENT (a reach below 0, a shape that the direction does not allow, a
 * periodic reach >= nx or ny, non-finite weights), COHORT_ERR_SIZE_TOO_SMALL (nx or ny < 1). */
int stencil_create(const cohort_backend *be, stencil_direction direction, stencil_boundary boundary,
                   int64_t nx, int64_t ny, int left, int right, int top, int bottom,
                   const double *weights, stencil **out);
/* out = the stencil of in for members [m0, m0 + count) (ld members per point); in and out do not
 * overlap. Bounded: the points whose stencil leaves the field keep out's values. */
int stencil_compute(const stencil *s, const double *in, double *out, int64_t ld, int64_t m0,
                    int64_t count);
void stencil_destroy(stencil *s);

/* Point operator op on the fields a->in (as many as the operator reads) into out. */
int stencil_operator_compute(const cohort_backend *be, stencil_op op, const stencil_op_args *a,
                             stencil_boundary boundary, double *out, int64_t nx, int64_t ny,
                             int64_t ld, int64_t m0, int64_t count);

/* Exchanges input and output for the next application (cuSten's Swap). */
void stencil_swap(double **in, double **out);

#ifdef __cplusplus
}
#endif
#endif
