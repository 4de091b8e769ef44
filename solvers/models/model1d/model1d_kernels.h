/* The 1D step per backend (model1d_cpu.c, model1d_cuda.cu), chosen by COHORT_KERNELS in
 * model1d.c. */
#ifndef COHORT_MODEL1D_KERNELS_H
#define COHORT_MODEL1D_KERNELS_H

#include <stdint.h>

#include "banded/banded_numerics.h"
#include "models/model1d/model1d_numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct model1d_kernels {
    /* One step, out of place: out = A^{-1} f(u) for members [m0, m0 + count), f the explicit
     * right-hand side r of u and A the shared banded left-hand side whose factor v is in the
     * backend's memory (n = v->n points per member). u holds each member's deviation from
     * mean[m], the deviation's own mean projected out (mean = NULL: u is the field, nothing
     * projected); member_f0[m] (NULL: r->f0) is each member's forcing amplitude; u and out do not
     * overlap. With a mean, drift_in[m] (NULL: none) is each member's drift of u, as drift_out
     * gave it, read instead of summing u; drift_out[m] (NULL: none) receives the drift of out for
     * the next step: field_member_mean of each member's out, bit for bit (the two may be the same
     * array; both in the backend's memory). */
    int (*step)(const model1d_rhs *r, const banded_view *v, const double *u, double *out,
                const double *mean, const double *member_f0, const double *drift_in,
                double *drift_out, int64_t ld, int64_t m0, int64_t count);
    /* Optional (NULL: never): whether step forms drift_out as it stores out, without reading out
     * again, so that steps which hand the drift on read the state once a step, not twice. */
    int (*hands_on_drift)(const model1d_rhs *r, const banded_view *v);
    /* Optional (NULL: none): whether advance takes r and v's steps, and `steps` steps in one
     * operation, out of place as step, with the states kept on chip between them (r has no
     * per-member forcing there); the same bits as `steps` calls of step. */
    int (*advance_on_chip)(const model1d_rhs *r, const banded_view *v);
    int (*advance)(const model1d_rhs *r, const banded_view *v, const double *u, double *out,
                   const double *mean, int64_t ld, int64_t m0, int64_t count, int64_t steps);
    /* Optional (NULL: none): whether advance_in_parts takes r and v's steps; and `steps` steps
     * (mean given) with the drift handed on through drift[m] (a buffer of m0 + count), as `steps`
     * calls of step would take them: step j reads u and writes out where j is even, the other
     * way round where odd, and leaves the drift of what it wrote in drift. The members go in
     * parts that proceed independently, so that one part's kernels run beside another's; the
     * same bits as the calls of step. */
    int (*advances_in_parts)(const model1d_rhs *r, const banded_view *v);
    int (*advance_in_parts)(const model1d_rhs *r, const banded_view *v, double *u, double *out,
                            const double *mean, const double *member_f0, double *drift, int64_t ld,
                            int64_t m0, int64_t count, int64_t steps);
} model1d_kernels;
extern const model1d_kernels model1d_kernels_cpu, model1d_kernels_cuda;

#ifdef __cplusplus
}
#endif
#endif
