#include "results/analyze_fit.h"

#include <stdio.h>
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "io/cohort_file.h"
#include "results/uncertainty.h"

/* <l>_block_moments of the plan's shape, read into v (n_records x units x 3). */
static int read_units(int nc, const char *path, const run_plan *p, int64_t units, double *v,
                      int *bad)
{
    char name[64];
    snprintf(name, sizeof name, "%s_block_moments", p->model->statistics->length_name);
    int grp, var, ndims = 0;
    size_t len[3] = {0, 0, 0};
    const size_t want[3] = {(size_t)p->n_records, (size_t)units, 3};
    int shaped = cohort_file_variable(nc, NULL, name, &grp, &var) == 0 &&
                 cohort_file_shape(grp, var, 3, &ndims, len, NULL) == 0 && ndims == 3;
    for (int d = 0; shaped && d < 3; ++d) shaped = len[d] == want[d];
    if (!shaped) {
        *bad = 1;
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "%s has no %s(t = %zu, unit = %zu, moment = 3) (units of %lld "
                           "members), which --bootstrap resamples: a file of a cohort before "
                           "2026-11-29 or a part (--members A:B; merge the parts first)",
                           path, name, want[0], want[1], (long long)p->bootstrap_unit);
    }
    const int status = cohort_file_read_double(grp, var, NULL, NULL, v);
    if (status) {
        *bad = 1;
        return COHORT_FAIL(COHORT_ERR_IO, "%s: reading %s: %s", path, name,
                           cohort_file_strerror(status));
    }
    return COHORT_OK;
}

int analyze_fit(int nc, const char *path, const run_plan *p, int resamples, int quiet,
                cohort_output *out, int *bad)
{
    const int64_t n = p->n_records;
    moments_units *records = calloc((size_t)n, sizeof *records);
    int rc = records ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "records");
    for (int64_t r = 0; r < n && rc == COHORT_OK; ++r)
        rc = moments_units_alloc(&records[r], p->members, p->bootstrap_unit, 0, p->members);
    const int64_t units = rc == COHORT_OK ? records[0].n_units : 0;
    double *v = rc == COHORT_OK ? malloc((size_t)(n * units * 3) * sizeof *v) : NULL;
    if (rc == COHORT_OK && !v) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "unit moments");
    if (rc == COHORT_OK) rc = read_units(nc, path, p, units, v, bad);
    for (int64_t r = 0; r < n && rc == COHORT_OK; ++r)
        for (int64_t k = 0; k < units; ++k) {
            const double *d = v + (r * units + k) * 3;
            records[r].units[k] = (moments){d[0], d[1], d[2]};
        }
    /* the band is over the run's records, which an analysis file has no t for */
    const uncertainty_options opt = {resamples, 0, 0, quiet};
    if (rc == COHORT_OK) rc = uncertainty_fit_length(out, p, records, &opt);
    for (int64_t r = 0; records && r < n; ++r) moments_units_free(&records[r]);
    free(records), free(v);
    return rc;
}
