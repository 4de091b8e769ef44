/* The Runge-Kutta-Merson integrator (ode/rkm.h) on scalar ODE batches with known solutions:
 *   (a) fourth order: one step of y' = lambda y and of y' = -2 t y (stage times) has a local error
 *       that falls by ~2^5 when the step halves;
 *   (b) the step-size control: accepted steps grow like tolerance^(-1/5), the global error stays
 *       within the tolerance times the steps, and the last step lands on the target time exactly;
 *   (c) per-member steps: a member's trajectory (state, steps, rejections) is bitwise the same
 *       alone and inside a batch of very different members, at any position.
 * The right-hand side goes through host copies, so the same callback serves both backends. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "ode/rkm.h"
#include "test_common.h"

/* member m: kind[m] = 0: y' = lambda[m] y; 1: y' = -2 t y; 2: y' = cos(t) y */
typedef struct scalar_batch {
    const cohort_backend *be;
    int kind[8];
    double lambda[8];
} scalar_batch;

static int scalar_rhs(void *ctx, const double *t, const double *u, double *f, int64_t ld,
                      int64_t count)
{
    const scalar_batch *b = ctx;
    double th[8], uh[8], fh[8];
    (void)ld;
    COHORT_CALL(b->be->synchronize());
    COHORT_CALL(b->be->copy_to_host(th, t, (size_t)count * sizeof(double)));
    COHORT_CALL(b->be->copy_to_host(uh, u, (size_t)count * sizeof(double)));
    for (int64_t m = 0; m < count; ++m)
        fh[m] = b->kind[m] == 1   ? -2.0 * th[m] * uh[m]
                : b->kind[m] == 2 ? cos(th[m]) * uh[m]
                                  : b->lambda[m] * uh[m];
    return b->be->copy_to_device(f, fh, (size_t)count * sizeof(double));
}

static double exact(const scalar_batch *b, int m, double t)
{
    return b->kind[m] == 1 ? exp(-t * t) : b->kind[m] == 2 ? exp(sin(t)) : exp(b->lambda[m] * t);
}

/* Integrates the batch from the exact y(t0) to t_end; y, accepted and rejected per member. */
static int integrate(scalar_batch *b, int64_t count, double t0, double tau0, double tolerance,
                     double t_end, double *y, int64_t *accepted, int64_t *rejected, double *t)
{
    for (int64_t m = 0; m < count; ++m) y[m] = exact(b, (int)m, t0);
    rkm_integrator *r = NULL;
    double *u = NULL;
    int rc = rkm_alloc(b->be, 1, count, &r);
    if (rc == COHORT_OK) rc = b->be->alloc((void **)&u, (size_t)count * sizeof(double));
    if (rc == COHORT_OK) rc = b->be->copy_to_device(u, y, (size_t)count * sizeof(double));
    if (rc == COHORT_OK) rc = rkm_start(r, t0, tau0, count);
    const rkm_rhs f = {scalar_rhs, b, NULL};
    if (rc == COHORT_OK) rc = rkm_advance(r, &f, u, t_end, tolerance, count);
    if (rc == COHORT_OK) rc = b->be->copy_to_host(y, u, (size_t)count * sizeof(double));
    if (rc == COHORT_OK) rc = rkm_members(r, count, accepted, rejected, t, NULL);
    b->be->release(u);
    rkm_free(r);
    return rc;
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    double y[8], y2[8], t[8];
    int64_t acc[8], rej[8], acc2[8], rej2[8];

    /* (a) one step of size tau from t0 = 0.5, accepted whatever its error (tolerance huge) */
    scalar_batch b = {be, {0, 1, 2}, {-3.0, 0.0, 0.0}};
    for (int m = 0; m < 3; ++m) {
        double err[2];
        for (int k = 0; k < 2; ++k) {
            const double tau = 0.05 / (double)(1 << k);
            scalar_batch one = {be, {b.kind[m]}, {b.lambda[m]}};
            EXPECT(integrate(&one, 1, 0.5, tau, 1e300, 0.5 + tau, y, acc, rej, t) == COHORT_OK,
                   "%s", cohort_error_detail());
            EXPECT(acc[0] == 1 && rej[0] == 0, "one step: %lld accepted, %lld rejected",
                   (long long)acc[0], (long long)rej[0]);
            err[k] = fabs(y[0] - exact(&one, 0, 0.5 + tau));
        }
        const double ratio = err[0] / err[1];
        EXPECT(ratio > 24.0 && ratio < 40.0, "member kind %d: local error ratio %.3g (2^5 = 32)",
               b.kind[m], ratio);
    }

    /* (b) adaptive at two tolerances 10^5 apart. Merson's estimate is asymptotically exact,
     * e ~ tau^5, only for linear problems with constant coefficients, where the steps then grow
     * like tolerance^(-1/5) (10x); otherwise it is O(tau^4) (Lambert, Computational methods in
     * ODEs, 1973, sec. 5.10) and they grow like tolerance^(-1/4) (18x). y' = y over [0, 3] from
     * 1e-6, y' = cos(t) y over [0, 20] from 1e-4. */
    for (int kind = 0; kind <= 2; kind += 2) {
        scalar_batch c = {be, {kind}, {1.0}};
        const double t_end = kind ? 20.0 : 3.0, tol = kind ? 1e-4 : 1e-6;
        EXPECT(integrate(&c, 1, 0.0, 0.05, tol, t_end, y, acc, rej, t) == COHORT_OK, "%s",
               cohort_error_detail());
        EXPECT(integrate(&c, 1, 0.0, 0.05, tol * 1e-5, t_end, y2, acc2, rej2, t) == COHORT_OK, "%s",
               cohort_error_detail());
        const double growth = (double)acc2[0] / (double)acc[0], expected = kind ? 17.8 : 10.0;
        EXPECT(growth > 0.7 * expected && growth < 1.3 * expected,
               "%s: steps %lld, then %lld: ratio %.3g (%.3g)", kind ? "y' = cos(t) y" : "y' = y",
               (long long)acc[0], (long long)acc2[0], growth, expected);
        /* each local error below the tolerance, then carried by the flow, which amplifies by at
         * most exp(int |df/dy| dt): e^3 for y' = y on [0, 3], e^2 for cos(t) y */
        const double amplification = exp(kind ? 2.0 : 3.0);
        EXPECT(fabs(y2[0] - exact(&c, 0, t_end)) < tol * 1e-5 * (double)acc2[0] * amplification,
               "global error %.3g after %lld steps", fabs(y2[0] - exact(&c, 0, t_end)),
               (long long)acc2[0]);
        EXPECT(t[0] == t_end, "time reached %.17g", t[0]);
    }

    /* (c) member 0 alone, then at position 2 among stiff, slow and time-dependent members */
    scalar_batch alone = {be, {0}, {-2.0}};
    EXPECT(integrate(&alone, 1, 0.0, 1e-2, 1e-8, 2.0, y, acc, rej, t) == COHORT_OK, "%s",
           cohort_error_detail());
    scalar_batch mixed = {be, {0, 1, 0, 0, 2}, {-400.0, 0.0, -2.0, -1e-3, 0.0}};
    EXPECT(integrate(&mixed, 5, 0.0, 1e-2, 1e-8, 2.0, y2, acc2, rej2, t) == COHORT_OK, "%s",
           cohort_error_detail());
    EXPECT(y2[2] == y[0] && acc2[2] == acc[0] && rej2[2] == rej[0],
           "alone: y %.17g, %lld/%lld steps; in the batch: y %.17g, %lld/%lld", y[0],
           (long long)acc[0], (long long)rej[0], y2[2], (long long)acc2[2], (long long)rej2[2]);
    EXPECT(acc2[0] > 5 * acc[0], "the stiff member took %lld steps, the member %lld",
           (long long)acc2[0], (long long)acc[0]);
    for (int m = 0; m < 5; ++m)
        EXPECT(t[m] == 2.0 && fabs(y2[m] - exact(&mixed, m, 2.0)) < 1e-6,
               "member %d: t %.17g, y %.17g, exact %.17g", m, t[m], y2[m], exact(&mixed, m, 2.0));
    return test_summary();
}
