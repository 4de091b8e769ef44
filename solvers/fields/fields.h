/* Members' fields as the models store them (fields_numerics.h): their moments <C>, <C^2> and the
 * fields themselves, for a sub-batch of interleaved members on a backend. What every model's
 * observables and archives are computed from. */
#ifndef COHORT_FIELDS_H
#define COHORT_FIELDS_H

#include <stdint.h>

#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kernels per backend (fields_cpu.c, fields_cuda.cu), chosen by COHORT_KERNELS. */
typedef struct fields_kernels {
    int (*moments)(const double *u, const double *mean, int64_t n, int64_t ld, int64_t m0,
                   int64_t count, double *out);
    int (*values)(const double *u, const double *mean, int64_t n, int64_t ld, int64_t m0,
                  int64_t count, double *out);
} fields_kernels;
extern const fields_kernels fields_kernels_cpu, fields_kernels_cuda;

/* out[k] = <C> and out[count + k] = <C^2> of member m0 + k (field_member_moments), u holding
 * deviations from mean[m] (mean = NULL: u is the field itself); out in the backend's memory. */
int fields_moments(const cohort_backend *be, const double *u, const double *mean, int64_t n,
                   int64_t ld, int64_t m0, int64_t count, double *out);

/* <C> and <C^2> of the field x[j * s], j < n, stored as itself, in the order the backends sum
 * them (field_member_moments up to FIELD_SUM_SEQUENTIAL_MAX points, the lanes beyond): for checks
 * on the host that must agree with the run's bits. */
void fields_member_moments_host(const double *x, int64_t n, int64_t s, double *c_mean,
                                double *c2_mean);

/* out = the fields of members [m0, m0 + count) of u, stored as deviations from mean[m] with the
 * deviation's own mean projected out (field_member_values): what archives store. */
int fields_values(const cohort_backend *be, const double *u, const double *mean, int64_t n,
                  int64_t ld, int64_t m0, int64_t count, double *out);

#ifdef __cplusplus
}
#endif
#endif
