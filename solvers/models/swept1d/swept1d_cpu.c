/* The explicit 1D schemes on the cpu backend (swept1d_kernels.h): OpenMP over the points of a
 * tier. There is no swept variant here: a cpu thread's cache already holds the few rows a tier
 * reads, and the swept rule's point is the GPU's global memory, so time.stepper = swept runs this
 * same loop (and gives the same bits as the cuda steppers). */
#include "models/swept1d/swept1d_kernels.h"

#include <stddef.h>

#include "backend/cohort_error.h"

static int swept1d_classic_cpu(const swept1d_scheme *s, double *const rows[2], int64_t tiers,
                               int64_t width, int64_t ld, int64_t count)
{
    (void)width;
    const int64_t n = s->n;
    const int r = s->radius;
    for (int64_t t = 1; t <= tiers; ++t) {
        const double *in = rows[(t - 1) & 1];
        double *out = rows[t & 1];
#pragma omp parallel for schedule(static)
        for (int64_t x = 0; x < n; ++x) {
            int64_t at[5] = {0, 0, 0, 0, 0};
            for (int k = -r; k <= r; ++k) at[k + 2] = swept1d_neighbor(s, x, k) * ld;
            for (int64_t m = 0; m < count; ++m) {
                double v[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
                for (int k = -r; k <= r; ++k) v[k + 2] = in[at[k + 2] + m];
                out[x * ld + m] = swept1d_update(s, t, v, out[x * ld + m]);
            }
        }
    }
    return COHORT_OK;
}

const swept1d_kernels swept1d_kernels_cpu = {
    .classic = swept1d_classic_cpu,
    .swept = NULL,
};
