#include "run/selfcheck.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "banded/banded.h"

/* Normwise backward error ||A x - d|| / (||A|| ||x|| + ||d||) (infinity norms) that a stable
 * solve of a well-scaled system reaches: a few units of rounding. */
#define SELFCHECK_TOLERANCE 1e-13

/* Diagonally dominant, non-symmetric, varying along the diagonal. */
static void random_diagonals(gsl_rng *rng, int64_t n, int h, double *diagonals[5])
{
    for (int64_t i = 0; i < n; ++i) {
        double off = 0.0;
        for (int o = 0; o <= 2 * h; ++o) {
            if (o == h) continue;
            diagonals[o][i] = 2.0 * gsl_rng_uniform(rng) - 1.0;
            off += fabs(diagonals[o][i]);
        }
        diagonals[h][i] = off + 0.5 + gsl_rng_uniform(rng);
    }
}

static double max_backward_error(const banded_factor *f, const double *x, const double *d,
                                 int64_t members, double norm_a)
{
    const int64_t n = banded_factor_size(f);
    double worst = 0.0;
#pragma omp parallel reduction(max : worst)
    {
        double *y = malloc((size_t)n * sizeof *y);
#pragma omp for schedule(static)
        for (int64_t m = 0; m < members; ++m) {
            if (!y) continue;
            banded_factor_apply_member(f, x, members, m, y);
            double r = 0.0, xn = 0.0, dn = 0.0;
            for (int64_t i = 0; i < n; ++i) {
                r = fmax(r, fabs(y[i] - d[i * members + m]));
                xn = fmax(xn, fabs(x[i * members + m]));
                dn = fmax(dn, fabs(d[i * members + m]));
            }
            const double e = r / (norm_a * xn + dn);
            if (isnan(e))
                worst = INFINITY;
            else if (e > worst)
                worst = e;
        }
        if (!y) worst = INFINITY;
        free(y);
    }
    return worst;
}

static int check_kind(const cohort_backend *be, const selfcheck_options *opt, gsl_rng *rng, int h,
                      int periodic, FILE *out, int *passed)
{
    const int64_t n = opt->n, members = opt->members;
    const size_t count = (size_t)n * (size_t)members;
    double *diagonals[5] = {NULL}, *d = malloc(count * sizeof *d), *x = malloc(count * sizeof *x);
    void *u = NULL;
    banded_factor *f = NULL;
    banded_solver *s = NULL;
    int rc = COHORT_OK;
    for (int o = 0; o <= 2 * h; ++o) diagonals[o] = malloc((size_t)n * sizeof(double));
    for (int o = 0; o <= 2 * h; ++o)
        if (!diagonals[o])
            rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "diagonals of n = %lld", (long long)n);
    if (!d || !x) rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%zu right-hand-side values", count);
    if (rc) goto done;
    random_diagonals(rng, n, h, diagonals);
    for (size_t k = 0; k < count; ++k) d[k] = 2.0 * gsl_rng_uniform(rng) - 1.0;
    COHORT_CALL_GOTO(rc, done,
                     banded_factor_alloc(n, h, (const double *const *)diagonals, periodic, &f));
    COHORT_CALL_GOTO(rc, done, banded_solver_alloc(be, f, &s));
    COHORT_CALL_GOTO(rc, done, be->alloc(&u, count * sizeof(double)));
    COHORT_CALL_GOTO(rc, done, be->copy_to_device(u, d, count * sizeof(double)));
    const double t0 = cohort_seconds();
    COHORT_CALL_GOTO(rc, done, banded_solver_solve(s, u, members, 0, members));
    COHORT_CALL_GOTO(rc, done, be->synchronize());
    const double elapsed = cohort_seconds() - t0;
    COHORT_CALL_GOTO(rc, done, be->copy_to_host(x, u, count * sizeof(double)));
    const double err = max_backward_error(f, x, d, members, banded_factor_norm_inf(f));
    const int ok = err <= SELFCHECK_TOLERANCE;
    if (!ok) *passed = 0;
    fprintf(out, "  %-13s %-8s  solve %9.3f ms  max backward error %8.2e  %s\n",
            h == 1 ? "tridiagonal" : "pentadiagonal", periodic ? "periodic" : "plain",
            1e3 * elapsed, err, ok ? "ok" : "FAILED");
done:
    if (u) be->release(u);
    banded_solver_free(s);
    banded_factor_free(f);
    for (int o = 0; o < 5; ++o) free(diagonals[o]);
    free(d);
    free(x);
    return rc;
}

int selfcheck_run(const selfcheck_options *opt, FILE *out, int *passed)
{
    const cohort_backend *be = NULL;
    COHORT_CALL(cohort_backend_get(opt->backend, &be));
    char device[256];
    COHORT_CALL(be->describe(device, sizeof device));
    fprintf(out,
            "selfcheck: %lld random systems of n = %lld per kind, one shared left-hand "
            "side each, on backend %s: %s\n",
            (long long)opt->members, (long long)opt->n, be->name, device);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "gsl_rng_alloc");
    gsl_rng_set(rng, opt->seed);
    *passed = 1;
    int rc = COHORT_OK;
    for (int h = 1; h <= 2 && rc == COHORT_OK; ++h)
        for (int periodic = 0; periodic <= 1 && rc == COHORT_OK; ++periodic)
            rc = check_kind(be, opt, rng, h, periodic, out, passed);
    gsl_rng_free(rng);
    if (rc == COHORT_OK)
        fprintf(out, "%s: every member's backward error %s %.0e\n",
                *passed ? "selfcheck passed" : "selfcheck FAILED",
                *passed ? "<=" : "must be <=", SELFCHECK_TOLERANCE);
    return rc;
}
