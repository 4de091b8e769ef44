/* Members' fields as the models store them, shared by the OpenMP loops and the CUDA kernels
 * (COHORT_HD): either the field C itself, or its deviation from the member's conserved mean with
 * the deviation's own mean (its drift, the rounding a step adds) projected out. */
#ifndef COHORT_FIELDS_NUMERICS_H
#define COHORT_FIELDS_NUMERICS_H

#include <stdint.h>

#include "backend/cohort_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mean of member x[j * s], j = 0..n-1 (the drift of a deviation): its values summed in
 * order j = 0, 1, ..., n - 1 from 0, then field_mean_of_sum. A loop that sums several members
 * side by side (model1d_cpu.c) adds each member's values in that order and ends with the same
 * division, so it gives these bits. */
COHORT_HD double field_mean_of_sum(double sum, int64_t n)
{
    return sum / (double)n;
}

COHORT_HD double field_member_mean(const double *x, int64_t n, int64_t s)
{
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j) sum += x[j * s];
    return field_mean_of_sum(sum, n);
}

/* <C> and <C^2> of member x[j * s] (periodic trapezoid = plain mean on a periodic grid): with
 * `deviation`, the member is stored as its deviation from `mean`, with the deviation's own mean
 * projected out as the next step of a model would (model1d_rhs_point); without, x is the field C
 * itself (2D models) and mean is not used. The inputs of the coarsening length ell = 1 / (1 -
 * <C^2>) (seed 003, Sec. 5.3). NaN or Inf anywhere shows in both. */
COHORT_HD void field_member_moments(const double *x, int64_t n, int64_t s, int deviation,
                                    double mean, double *c_mean, double *c2_mean)
{
    const double drift = deviation ? field_member_mean(x, n, s) : 0.0;
    if (!deviation) mean = 0.0;
    double sum = 0.0, sum2 = 0.0;
    for (int64_t j = 0; j < n; ++j) {
        const double c = x[j * s] - drift + mean;
        sum += c;
        sum2 += c * c;
    }
    *c_mean = sum / (double)n;
    *c2_mean = sum2 / (double)n;
}

/* The order of the sums of a large field C (stored as itself, not as a deviation): fields of more
 * than FIELD_SUM_SEQUENTIAL_MAX points are summed in FIELD_SUM_LANES lanes, lane l taking points l,
 * l + LANES, l + 2 LANES, ... in sequence (field_lane_sums), the lanes then added by halving:
 * lane l += lane l + h for h = LANES / 2, ..., 1 (fields_member_moments_host, the cuda kernel's
 * reference). A block of LANES threads then sums a field at once, where one thread was slow for a
 * large member (solvers/banded/PERFORMANCE.md). Smaller fields and deviations are summed in
 * sequence (field_member_moments). The order depends on n alone: the bits are the same on either
 * backend. */
enum { FIELD_SUM_SEQUENTIAL_MAX = 65536, FIELD_SUM_LANES = 256 };

/* Lane `lane` of `lanes`: the sums of x[j * s] and of its square over j = lane, lane + lanes, ...
 */
COHORT_HD void field_lane_sums(const double *x, int64_t n, int64_t s, int64_t lane, int64_t lanes,
                               double *sum, double *sum2)
{
    double a = 0.0, b = 0.0;
    for (int64_t j = lane; j < n; j += lanes) {
        const double c = x[j * s];
        a += c;
        b += c * c;
    }
    *sum = a, *sum2 = b;
}

/* The field C_j = x_j - drift + mean of member x[j * s] stored as its deviation from `mean`, its
 * own mean (drift) projected out as the next step would: out[j * s]. */
COHORT_HD void field_member_values(const double *x, int64_t n, int64_t s, double mean, double *out)
{
    const double drift = field_member_mean(x, n, s);
    for (int64_t j = 0; j < n; ++j) out[j * s] = x[j * s] - drift + mean;
}

#ifdef __cplusplus
}
#endif
#endif
