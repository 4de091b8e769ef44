#include "run/initial.h"

#include <math.h>
#include <stdlib.h>

#include "backend/cohort_error.h"

int64_t initial1d_scratch_values(const initial1d *ic, int64_t n, int64_t count)
{
    return ic->kind == INITIAL_UNIFORM ? n * count : n;
}

int initial1d_fill(const cohort_backend *be, const initial1d *ic, const double *amplitude,
                   double *state, double *scratch, int64_t n, int64_t ld, int64_t column,
                   int64_t first, int64_t count)
{
    if (!be || !ic || !state || !scratch)
        return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "backend, ic, state and scratch are required");
    if (n < 1 || ld < 1 || count < 1 || column < 0 || column > ld - count || first < 0)
        return COHORT_FAIL(
            COHORT_ERR_SUBBATCH_RANGE, "n = %lld, columns [%lld, +%lld) of %lld, first member %lld",
            (long long)n, (long long)column, (long long)count, (long long)ld, (long long)first);
    const double a = ic->amplitude;
    if (ic->kind == INITIAL_UNIFORM) {
        /* u in (0, 1] -> a (2u - 1), then each member's own mean removed */
        COHORT_CALL(be->uniform_members(scratch, n, first, count, ic->seed, ic->noise_arms,
                                        ic->noise_replicates));
        COHORT_CALL(
            be->interleave(scratch, n, 2.0 * a, -a, 1, amplitude, state, n, ld, column, count));
        return COHORT_OK;
    }
    if (ic->kind != INITIAL_COSINE && ic->kind != INITIAL_MODE)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "initial kind %d", (int)ic->kind);
    double *mode = malloc((size_t)n * sizeof *mode);
    if (!mode) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld values", (long long)n);
    const double two_pi = 6.283185307179586476925286766559;
    for (int64_t i = 0; i < n; ++i)
        mode[i] = a * cos(two_pi * (double)((ic->mode * i) % n) / (double)n);
    int rc = be->copy_to_device(scratch, mode, (size_t)n * sizeof *mode);
    free(mode);
    if (rc != COHORT_OK) return rc;
    COHORT_CALL(be->interleave(scratch, 0, 1.0, 0.0, 0, amplitude, state, n, ld, column, count));
    return COHORT_OK;
}
