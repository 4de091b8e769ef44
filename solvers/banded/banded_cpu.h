/* The cpu banded solve, for modules that fuse it with their own cpu kernels (the 1D model step):
 * the arguments of banded_kernels.solve. */
#ifndef COHORT_BANDED_CPU_H
#define COHORT_BANDED_CPU_H

#include <stdint.h>

#include "banded/banded_numerics.h"

int banded_cpu_solve(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                     int64_t groups, int64_t group_stride);

#endif
