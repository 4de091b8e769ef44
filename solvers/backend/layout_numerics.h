/* Data-layout arithmetic shared by the backends (COHORT_HD). */
#ifndef COHORT_LAYOUT_NUMERICS_H
#define COHORT_LAYOUT_NUMERICS_H

#include <stdint.h>

#include "backend/cohort_hd.h"

/* One member of the `interleave` operation (backend.h): src is that member's n values (stride 1),
 * dst its first row in the interleaved array (stride ld). */
COHORT_HD void layout_interleave_member(const double *src, double scale, double shift,
                                        int remove_mean, double member_scale, double *dst,
                                        int64_t n, int64_t ld)
{
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        const double v = scale * src[i] + shift;
        dst[i * ld] = v;
        sum += v;
    }
    const double mean = remove_mean ? sum / (double)n : 0.0;
    if (mean == 0.0 && member_scale == 1.0) return;
    for (int64_t i = 0; i < n; ++i) dst[i * ld] = (dst[i * ld] - mean) * member_scale;
}

/* The Philox stream of global member g's noise: g itself, except where members come in base points
 * of `arms` > 2 arms of `replicates` consecutive members each (a Saltelli design: A, B, AB_1, ..),
 * whose arms from 2 on draw arm 0's noise. */
COHORT_HD int64_t layout_noise_stream(int64_t g, int64_t arms, int64_t replicates)
{
    if (arms <= 2) return g;
    const int64_t arm = (g / replicates) % arms;
    return arm >= 2 ? g - arm * replicates : g;
}

#endif
