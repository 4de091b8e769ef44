#include "fields/fields.h"

int fields_moments(const cohort_backend *be, const double *u, const double *mean, int64_t n,
                   int64_t ld, int64_t m0, int64_t count, double *out)
{
    return COHORT_KERNELS(be, fields_kernels)->moments(u, mean, n, ld, m0, count, out);
}

int fields_values(const cohort_backend *be, const double *u, const double *mean, int64_t n,
                  int64_t ld, int64_t m0, int64_t count, double *out)
{
    return COHORT_KERNELS(be, fields_kernels)->values(u, mean, n, ld, m0, count, out);
}
