#include "structure_factor.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/reduction_kernels.h"
#include "backend/cohort_error.h"
#include "analysis/reduction_numerics.h"

/* The signed frequency of index j of n (j <= n/2: j; above: j - n). */
static int64_t signed_index(int64_t j, int64_t n)
{
    return 2 * j <= n ? j : j - n;
}

/* The shell of mode (kx, ky): |(kx, signed ky)| rounded. */
static int64_t shell(int64_t kx, int64_t ky, int64_t ny)
{
    const double sy = (double)signed_index(ky, ny);
    return (int64_t)floor(sqrt((double)(kx * kx) + sy * sy) + 0.5);
}

/* The weight of half-spectrum column kx: its conjugate partner is not stored (2), or is (1). */
static double conjugate_weight(int64_t kx, int64_t nx)
{
    return kx == 0 || 2 * kx == nx ? 1.0 : 2.0;
}

/* |k| of half-spectrum row r = ky (nx/2 + 1) + kx, in units of 2 pi / L. */
static double mode_modulus(int64_t kx, int64_t ky, int64_t ny)
{
    const double sy = (double)signed_index(ky, ny);
    return sqrt((double)(kx * kx) + sy * sy);
}

/* Each row's weights in eq. 6's two sums (0 at k = 0), on the backend, and the scratch of the
 * members' sums and of their units. */
static int k1_terms_alloc(structure_factor *sf)
{
    const int64_t rows = sf->rows, cols = sf->nx / 2 + 1;
    const size_t bytes = (size_t)(STRUCTURE_FACTOR_K1_TERMS * rows) * sizeof(double);
    double *w = malloc(bytes);
    if (!w) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "k1's weights");
    for (int64_t ky = 0; ky < sf->ny; ++ky)
        for (int64_t kx = 0; kx < cols; ++kx) {
            const double kk = mode_modulus(kx, ky, sf->ny), k = 2.0 * acos(-1.0) * kk / sf->length;
            const double weight = kk > 0.0 ? conjugate_weight(kx, sf->nx) : 0.0;
            w[ky * cols + kx] = weight, w[rows + ky * cols + kx] = kk > 0.0 ? weight / k : 0.0;
        }
    int rc = sf->be->alloc((void **)&sf->k1_weights, bytes);
    if (rc == COHORT_OK) rc = sf->be->copy_to_device(sf->k1_weights, w, bytes);
    free(w);
    const size_t terms = (size_t)(STRUCTURE_FACTOR_K1_TERMS * sf->max_count) * sizeof(double);
    if (rc == COHORT_OK) rc = sf->be->alloc((void **)&sf->k1_terms, terms);
    if (rc == COHORT_OK)
        rc = sf->be->alloc((void **)&sf->unit_scratch,
                           ordered_sum_scratch_bytes(sf->members, STRUCTURE_FACTOR_K1_TERMS, 1,
                                                     sf->unit, sf->max_count));
    return rc;
}

int structure_factor_alloc(const cohort_backend *be, int64_t nx, int64_t ny, double length,
                           int64_t ld, int64_t max_count, int64_t members, int64_t n_times,
                           int64_t unit, structure_factor **out)
{
    if (nx < 2 || ny < 1 || !(length > 0.0) || max_count < 1 || members < 1 || n_times < 1 ||
        !moments_unit_valid(unit))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "nx = %lld, ny = %lld, length = %g, max_count = %lld, members = %lld, "
                           "times = %lld, unit = %lld",
                           (long long)nx, (long long)ny, length, (long long)max_count,
                           (long long)members, (long long)n_times, (long long)unit);
    structure_factor *sf = calloc(1, sizeof *sf);
    if (!sf) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "structure factor");
    sf->be = be, sf->nx = nx, sf->ny = ny, sf->rows = structure_factor_sum_rows(nx, ny);
    sf->length = length;
    sf->members = members, sf->max_count = max_count, sf->n_times = n_times, sf->unit = unit;
    int rc = COHORT_OK;
    sf->sums = calloc((size_t)n_times, sizeof *sf->sums);
    sf->k1_units = calloc((size_t)n_times, sizeof *sf->k1_units);
    sf->host_cls = malloc((size_t)max_count);
    sf->mean_power = malloc((size_t)sf->rows * sizeof(double));
    if (!sf->sums || !sf->k1_units || !sf->host_cls || !sf->mean_power)
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "structure factor");
    if (rc == COHORT_OK)
        rc = COHORT_KERNELS(be, reduction_kernels)
                 ->spectrum_plan_alloc(nx, ny, ld, max_count, &sf->plan);
    if (rc == COHORT_OK)
        rc = be->alloc((void **)&sf->power, (size_t)sf->rows * (size_t)max_count * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&sf->cls, (size_t)max_count);
    if (rc == COHORT_OK)
        rc = be->alloc(
            (void **)&sf->fold_scratch,
            ordered_sum_scratch_bytes(members, sf->rows, 1, ORDERED_SUM_BLOCK, max_count));
    if (rc == COHORT_OK) rc = k1_terms_alloc(sf);
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
    for (int64_t t = 0; sf->k1_units && t < sf->n_times; ++t) ordered_sum_free(&sf->k1_units[t]);
    free(sf->sums), free(sf->k1_units);
    sf->be->release(sf->k1_weights);
    sf->be->release(sf->k1_terms);
    sf->be->release(sf->unit_scratch);
    if (sf->plan) COHORT_KERNELS(sf->be, reduction_kernels)->spectrum_plan_free(sf->plan);
    sf->be->release(sf->power);
    sf->be->release(sf->cls);
    sf->be->release(sf->fold_scratch);
    free(sf->host_cls), free(sf->mean_power);
    free(sf);
}

int64_t structure_factor_sum_rows(int64_t nx, int64_t ny)
{
    return ny * (nx / 2 + 1);
}

double structure_factor_bytes_per_member(int64_t nx, int64_t ny)
{
    /* cuFFT's complex output, the power, the class byte */
    return (double)(ny * (nx / 2 + 1)) * (16.0 + 8.0) + 1.0;
}

int64_t structure_factor_k_count(int64_t nx, int64_t ny)
{
    if (ny == 1) return nx / 2 + 1;
    return shell(nx / 2, ny / 2, ny) + 1;
}

void structure_factor_k_values(int64_t nx, int64_t ny, double length, double *k)
{
    const int64_t n_k = structure_factor_k_count(nx, ny);
    for (int64_t b = 0; b < n_k; ++b) k[b] = 2.0 * acos(-1.0) * (double)b / length;
}

int structure_factor_add(structure_factor *sf, int64_t time, const double *u, int64_t m0,
                         int64_t count, int64_t first, const unsigned char *include)
{
    if (time < 0 || time >= sf->n_times || count < 1 || count > sf->max_count)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "time %lld of %lld, count %lld of %lld",
                           (long long)time, (long long)sf->n_times, (long long)count,
                           (long long)sf->max_count);
    ordered_sum *s = &sf->sums[time], *units = &sf->k1_units[time];
    if (!s->host)
        COHORT_CALL(ordered_sum_alloc(s, sf->be, sf->members, sf->rows, 1, ORDERED_SUM_BLOCK,
                                      sf->max_count));
    if (!units->host)
        COHORT_CALL(ordered_sum_alloc(units, sf->be, sf->members, STRUCTURE_FACTOR_K1_TERMS, 1,
                                      sf->unit, sf->max_count));
    for (int64_t j = 0; j < count; ++j)
        sf->host_cls[j] = include && !include[j] ? REDUCTION_SKIP : 0;
    COHORT_CALL(sf->be->copy_to_device(sf->cls, sf->host_cls, (size_t)count));
    const reduction_kernels *kernels = COHORT_KERNELS(sf->be, reduction_kernels);
    COHORT_CALL(kernels->spectrum_power(sf->plan, u, m0, count, sf->power));
    COHORT_CALL(ordered_sum_add(s, sf->fold_scratch, sf->power, count, 0, count, first, sf->cls));
    COHORT_CALL(kernels->weighted_sums(sf->power, sf->rows, count, sf->k1_weights,
                                       STRUCTURE_FACTOR_K1_TERMS, sf->k1_terms));
    return ordered_sum_add(units, sf->unit_scratch, sf->k1_terms, count, 0, count, first, sf->cls);
}

int structure_factor_result(const structure_factor *sf, int64_t time, int64_t n_active,
                            double *spectrum, double *k1)
{
    if (time < 0 || time >= sf->n_times || !sf->sums[time].host)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "no spectra at time index %lld",
                           (long long)time);
    double *power = sf->ny == 1 ? spectrum : sf->mean_power;
    COHORT_CALL(ordered_sum_total(&sf->sums[time], power));
    for (int64_t r = 0; r < sf->rows; ++r)
        power[r] = n_active > 0 ? power[r] / (double)n_active : NAN;
    *k1 = structure_factor_k1(power, sf->nx, sf->ny, sf->length);
    if (sf->ny == 1) return COHORT_OK;
    const int64_t n_k = structure_factor_k_count(sf->nx, sf->ny), cols = sf->nx / 2 + 1;
    double *modes = calloc((size_t)n_k, sizeof *modes);
    if (!modes) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "shells");
    for (int64_t b = 0; b < n_k; ++b) spectrum[b] = 0.0;
    for (int64_t ky = 0; ky < sf->ny; ++ky) /* the radial average, mode by mode */
        for (int64_t kx = 0; kx < cols; ++kx) {
            const int64_t b = shell(kx, ky, sf->ny);
            const double w = conjugate_weight(kx, sf->nx);
            spectrum[b] += w * power[ky * cols + kx];
            modes[b] += w;
        }
    for (int64_t b = 0; b < n_k; ++b) spectrum[b] = modes[b] > 0.0 ? spectrum[b] / modes[b] : NAN;
    free(modes);
    return COHORT_OK;
}

double structure_factor_k1(const double *power, int64_t nx, int64_t ny, double length)
{
    const int64_t cols = nx / 2 + 1;
    double num = 0.0, den = 0.0;
    for (int64_t ky = 0; ky < ny; ++ky)
        for (int64_t kx = 0; kx < cols; ++kx) {
            const double kk = mode_modulus(kx, ky, ny);
            if (kk == 0.0) continue;
            const double w = conjugate_weight(kx, nx), k = 2.0 * acos(-1.0) * kk / length;
            num += w * power[ky * cols + kx];
            den += w * power[ky * cols + kx] / k;
        }
    return num / den;
}

/* 1/k1 over the drawn units: sum S / |k| over sum S (eq. 6 inverted), the members' counts
 * cancelling. */
static double resampled_inverse_k1(void *ctx, int64_t record, const int64_t *draw, int64_t units)
{
    const structure_factor *sf = ctx;
    const ordered_sum *sums = &sf->k1_units[record];
    if (!sums->host) return NAN;
    double power = 0.0, weighted = 0.0;
    for (int64_t j = 0; j < units; ++j) {
        const double *unit = sums->host + (size_t)draw[j] * STRUCTURE_FACTOR_K1_TERMS;
        power += unit[0], weighted += unit[1];
    }
    return power > 0.0 ? weighted / power : NAN;
}

bootstrap_series structure_factor_series_inverse_k1(const structure_factor *sf)
{
    const int64_t units = (sf->members + sf->unit - 1) / sf->unit;
    const bootstrap_series s = {sf->n_times, units, resampled_inverse_k1, (void *)sf};
    return s;
}
