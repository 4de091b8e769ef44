/* Seed 004's initial iterate u0 = x y (1 - x)(1 - y) on a member of m1 x m2 interior points with
 * its boundary ring ((m1 + 2)(m2 + 2) values, row-major; relax.h's layout), shared by the
 * relaxation's tests and bench-lmsor. */
#ifndef COHORT_TEST_RELAX_PAPER_H
#define COHORT_TEST_RELAX_PAPER_H

#include <stdint.h>

static inline void relax_paper_initial(int64_t m1, int64_t m2, double *u)
{
    const double h = 1.0 / (double)(m1 + 1), k = 1.0 / (double)(m2 + 1);
    for (int64_t j = 0; j <= m2 + 1; ++j)
        for (int64_t i = 0; i <= m1 + 1; ++i) {
            const double x = (double)i * h, y = (double)j * k;
            u[j * (m1 + 2) + i] = x * y * (1 - x) * (1 - y);
        }
}

#endif
