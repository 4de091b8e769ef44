#include "structure_factor.h"

#include <math.h>
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "backend/reduction_numerics.h"

int structure_factor_alloc(const cohort_backend *be, int64_t n, double length, int64_t ld,
                           int64_t max_count, int64_t members, int64_t n_times,
                           structure_factor **out)
{
    if (n < 2 || !(length > 0.0) || max_count < 1 || members < 1 || n_times < 1)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "n = %lld, length = %g, max_count = %lld, members = %lld, times = %lld",
                           (long long)n, length, (long long)max_count, (long long)members,
                           (long long)n_times);
    structure_factor *sf = calloc(1, sizeof *sf);
    if (!sf) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "structure factor");
    sf->be = be, sf->n = n, sf->length = length, sf->members = members;
    sf->max_count = max_count, sf->n_times = n_times;
    int rc = COHORT_OK;
    sf->sums = calloc((size_t)n_times, sizeof *sf->sums);
    sf->host_cls = malloc((size_t)max_count);
    if (!sf->sums || !sf->host_cls) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "structure factor");
    if (rc == COHORT_OK) rc = be->spectrum_plan_alloc(n, ld, max_count, &sf->plan);
    if (rc == COHORT_OK)
        rc = be->alloc((void **)&sf->power,
                       (size_t)(n / 2 + 1) * (size_t)max_count * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&sf->cls, (size_t)max_count);
    if (rc != COHORT_OK) {
        structure_factor_free(sf);
        return rc;
    }
    *out = sf;
    return COHORT_OK;
}

void structure_factor_free(structure_factor *sf)
{
    if (!sf) return;
    for (int64_t t = 0; sf->sums && t < sf->n_times; ++t) ordered_sum_free(&sf->sums[t]);
    free(sf->sums);
    if (sf->plan) sf->be->spectrum_plan_free(sf->plan);
    sf->be->release(sf->power);
    sf->be->release(sf->cls);
    free(sf->host_cls);
    free(sf);
}

double structure_factor_bytes_per_member(int64_t n)
{
    /* cuFFT's complex output, the power, the class byte */
    return (double)(n / 2 + 1) * (16.0 + 8.0) + 1.0;
}

int structure_factor_add(structure_factor *sf, int64_t time, const double *u, int64_t m0,
                         int64_t count, int64_t first, const unsigned char *include)
{
    if (time < 0 || time >= sf->n_times || count < 1 || count > sf->max_count)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "time %lld of %lld, count %lld of %lld",
                           (long long)time, (long long)sf->n_times, (long long)count,
                           (long long)sf->max_count);
    ordered_sum *s = &sf->sums[time];
    if (!s->host)
        COHORT_CALL(ordered_sum_alloc(s, sf->be, sf->members, sf->n / 2 + 1, 1, sf->max_count));
    for (int64_t j = 0; j < count; ++j)
        sf->host_cls[j] = include && !include[j] ? REDUCTION_SKIP : 0;
    COHORT_CALL(sf->be->copy_to_device(sf->cls, sf->host_cls, (size_t)count));
    COHORT_CALL(sf->be->spectrum_power(sf->plan, u, m0, count, sf->power));
    return ordered_sum_add(s, sf->power, count, 0, count, first, sf->cls);
}

int structure_factor_result(const structure_factor *sf, int64_t time, int64_t n_active,
                            double *spectrum, double *k1)
{
    const int64_t rows = sf->n / 2 + 1;
    if (time < 0 || time >= sf->n_times || !sf->sums[time].host)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "no spectra at time index %lld",
                           (long long)time);
    COHORT_CALL(ordered_sum_total(&sf->sums[time], spectrum));
    for (int64_t j = 0; j < rows; ++j)
        spectrum[j] = n_active > 0 ? spectrum[j] / (double)n_active : NAN;
    *k1 = structure_factor_k1(spectrum, sf->n, sf->length);
    return COHORT_OK;
}

double structure_factor_k1(const double *spectrum, int64_t n, double length)
{
    double num = 0.0, den = 0.0;
    for (int64_t j = 1; j <= n / 2; ++j) {
        const double pairs = 2 * j == n ? 1.0 : 2.0, k = 2.0 * acos(-1.0) * (double)j / length;
        num += pairs * spectrum[j];
        den += pairs * spectrum[j] / k;
    }
    return num / den;
}
