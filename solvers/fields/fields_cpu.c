/* The fields' kernels on the cpu backend: one member per OpenMP iteration. */
#include "backend/cohort_error.h"
#include "fields/fields.h"
#include "fields/fields_numerics.h"

static int cpu_moments(const double *u, const double *mean, int64_t n, int64_t ld, int64_t m0,
                       int64_t count, double *out)
{
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < count; ++k)
        field_member_moments(u + m0 + k, n, ld, mean != NULL, mean ? mean[m0 + k] : 0.0, &out[k],
                             &out[count + k]);
    return COHORT_OK;
}

static int cpu_values(const double *u, const double *mean, int64_t n, int64_t ld, int64_t m0,
                      int64_t count, double *out)
{
#pragma omp parallel for schedule(static)
    for (int64_t m = m0; m < m0 + count; ++m) field_member_values(u + m, n, ld, mean[m], out + m);
    return COHORT_OK;
}

const fields_kernels fields_kernels_cpu = {.moments = cpu_moments, .values = cpu_values};
