#define _POSIX_C_SOURCE 200809L /* PATH_MAX */
#include "parts/target.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "parts/merge.h"
#include "report.h"

/* The relative standard error of the first n units, as the fixed-size run of them folds them. */
static double relative_sem(const moments *units, int64_t n, int64_t members)
{
    const moments_units prefix = {
        .members = members, .next = members, .n_units = n, .units = (moments *)units};
    const moments total = moments_units_total(&prefix);
    return moments_sem(&total) / fabs(total.mean);
}

target_result target_assess(const moments *units, int64_t n, int64_t covered, double target)
{
    target_result r = {0, relative_sem(units, n, covered), 0};
    /* sem ~ M^-1/2: M = covered (sem / target)^2, at least a block more */
    const double want = (double)covered * (r.reached / target) * (r.reached / target);
    r.estimate = isfinite(want) && want < 9e18 ? (int64_t)ceil(want) : INT64_MAX;
    if (r.estimate < covered + MOMENTS_BLOCK) r.estimate = covered + MOMENTS_BLOCK;
    return r;
}

int target_read(const run_plan *p, const char *const *parts, const int64_t *bounds, int count,
                target_result *r)
{
    const int64_t unit = p->bootstrap_unit, covered = bounds[count];
    const int64_t n = (covered + unit - 1) / unit;
    moments *units = malloc((size_t)n * sizeof *units);
    if (!units) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld units", (long long)n);
    int rc = COHORT_OK;
    for (int s = 0; s < count && rc == COHORT_OK; ++s) {
        const int64_t u0 = bounds[s] / unit, u1 = (bounds[s + 1] + unit - 1) / unit;
        rc = merge_part_moments(parts[s], p->n_records - 1, p->target, u1 - u0, units + u0);
    }
    if (rc == COHORT_OK) *r = target_assess(units, n, covered, p->target_sem);
    free(units);
    return rc;
}

int target_round(const cohort_config *c, const char *out, int ranks, int quiet, segments *g,
                 target_result *t, int *done)
{
    char err[1024], manifest[PATH_MAX];
    run_plan p;
    if (run_plan_make(c, &p, err, sizeof err)) { /* it was made before: out of memory */
        report(REPORT_ERROR, "%s", err);
        run_plan_free(&p);
        return 1;
    }
    const char **parts = segments_part_names(out, g);
    int status = parts && target_read(&p, parts, g->bounds, g->count, t) == COHORT_OK ? 0 : 1;
    const int64_t covered = g->bounds[g->count];
    if (status) {
        report(REPORT_ERROR, "%s", parts ? cohort_error_message() : "out of memory");
    } else if (t->reached <= p.target_sem || covered >= p.max_members) {
        /* every member computed is kept: the file is the fixed-size run of all of them */
        *done = 1;
        t->members = covered;
        const int reached = t->reached <= p.target_sem;
        if (!quiet || !reached) /* a target missed is a warning, --quiet or not */
            report(REPORT_NOTE, "%s%s's relative standard error %.4g at %lld members: %s",
                   reached ? "" : "warning: ", p.target_name, t->reached, (long long)t->members,
                   reached ? "ensemble.target_sem reached"
                           : "ensemble.target_sem not reached by ensemble.max_members");
        if (!quiet)
            report(REPORT_NOTE,
                   "the bootstrap resamples units of %lld members, fixed by the first round: the "
                   "file is the fixed-size run of %lld members with analysis.bootstrap_unit = %lld",
                   (long long)p.bootstrap_unit, (long long)t->members, (long long)p.bootstrap_unit);
    } else { /* sem ~ M^-1/2, and a quarter more at least */
        int64_t next = t->estimate > covered + covered / 4 ? t->estimate : covered + covered / 4;
        next = (next + MOMENTS_BLOCK - 1) / MOMENTS_BLOCK * MOMENTS_BLOCK;
        if (next > p.max_members) next = p.max_members;
        segments_extend(g, next, ranks);
        segments_list_name(out, manifest, sizeof manifest);
        if (!segments_list_write(manifest, g))
            status = 1, report(REPORT_ERROR, "cannot write %s", manifest);
        if (!quiet)
            report(REPORT_NOTE,
                   "%s's relative standard error %.4g at %lld members, target %g: "
                   "running to %lld",
                   p.target_name, t->reached, (long long)covered, p.target_sem, (long long)next);
    }
    if (parts) free((void *)parts[0]);
    free(parts);
    run_plan_free(&p);
    return status;
}
