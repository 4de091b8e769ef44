/* The fields' kernels on the cpu backend: one member per OpenMP iteration. */
#include "backend/cohort_error.h"
#include "fields/fields.h"
#include "fields/fields_numerics.h"

void fields_member_moments_host(const double *x, int64_t n, int64_t s, double *c_mean,
                                double *c2_mean)
{
    if (n <= FIELD_SUM_SEQUENTIAL_MAX) {
        field_member_moments(x, n, s, 0, 0.0, c_mean, c2_mean);
        return;
    }
    double sum[FIELD_SUM_LANES], sum2[FIELD_SUM_LANES];
    for (int l = 0; l < FIELD_SUM_LANES; ++l)
        field_lane_sums(x, n, s, l, FIELD_SUM_LANES, &sum[l], &sum2[l]);
    for (int h = FIELD_SUM_LANES / 2; h >= 1; h /= 2)
        for (int l = 0; l < h; ++l) sum[l] += sum[l + h], sum2[l] += sum2[l + h];
    *c_mean = sum[0] / (double)n;
    *c2_mean = sum2[0] / (double)n;
}

static int cpu_moments(const double *u, const double *mean, int64_t n, int64_t ld, int64_t m0,
                       int64_t count, double *out)
{
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < count; ++k) {
        if (mean)
            field_member_moments(u + m0 + k, n, ld, 1, mean[m0 + k], &out[k], &out[count + k]);
        else
            fields_member_moments_host(u + m0 + k, n, ld, &out[k], &out[count + k]);
    }
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
