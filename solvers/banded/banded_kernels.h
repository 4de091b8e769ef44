/* The batched banded solve per backend (banded_cpu.c, banded_cuda.cu), chosen by COHORT_KERNELS
 * in banded_solver.c. Not part of the public interface (banded.h). */
#ifndef COHORT_BANDED_KERNELS_H
#define COHORT_BANDED_KERNELS_H

#include <stdint.h>

#include "banded/banded.h"
#include "banded/banded_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct banded_kernels {
    /* Members [m0, m0 + count) of `groups` batches, batch g at u + g * group_stride (the x lines
     * of 2D members: one batch per y row), solved in place; arguments validated by the caller
     * (banded_solver_solve_groups). */
    int (*solve)(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                 int64_t groups, int64_t group_stride);
} banded_kernels;
extern const banded_kernels banded_kernels_cpu, banded_kernels_cuda;

/* Whether two views have one shape: the sizes and the border columns (the factors a member's may
 * be of, and the solver that takes them). */
static inline int banded_same_shape(const banded_view *a, const banded_view *b)
{
    if (a->n != b->n || a->h != b->h || a->border != b->border ||
        a->n_border_cols != b->n_border_cols)
        return 0;
    for (int c = 0; c < a->n_border_cols; ++c)
        if (a->border_col[c] != b->border_col[c]) return 0;
    return 1;
}

/* banded_members.c's host array for banded_solver.c: value j of member m at host[j * count + m],
 * banded_member_values(shape) values a member. */
const double *banded_members_host(const banded_members *b, int64_t *count,
                                  const banded_view **shape);

#ifdef __cplusplus
}
#endif
#endif
