/* The 1D model steppers on one backend: diffusion1d and hyperdiffusion1d on a single Fourier mode
 * against the exact Crank-Nicolson amplification factor after 1000 steps (several modes and N,
 * odd N included); ch1d conserves every member's mean; cuda agrees with cpu; bad parameters
 * are refused. Usage: test_model1d --backend cpu|cuda (exit 77 = skipped: no device). */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "banded_reference.h"
#include "models/model1d.h"
#include "test_common.h"

#define MODE_RTOL 1e-12 /* the bound on the amplification after 1000 steps */
/* A member's mean over MASS_STEPS steps (N = 256, dt = 0.1 dx, sigma = 68), the state held as the
 * deviation from the mean with the deviation's own mean projected out at every step
 * (model1d_rhs_point says why): ch1d keeps the deviation's mean below MASS_ATOL; ch1d_forced's
 * Hamilton-Jacobi WENO derivative is not conservative, so its deviation carries one step's
 * residual (about dt v mean(dC/deta)), bounded by FORCED_RESIDUAL and not accumulating, which the
 * moments (and archives) project out like the next step does. */
#define MASS_ATOL 1e-12
#define MASS_STEPS 2000
#define FORCED_RESIDUAL 1e-7
#define AGREE_RTOL 1e-11 /* cpu vs cuda after 200 ch1d steps (documented in README) */

typedef struct batch {
    const cohort_backend *be;
    int64_t n, m;
    double *host, *state, *scratch;
    double *mean; /* backend memory: each member's mean, or NULL to evolve the field itself */
} batch;

static int batch_alloc(batch *b, const cohort_backend *be, int64_t n, int64_t m)
{
    const size_t bytes = (size_t)(n * m) * sizeof(double);
    b->be = be, b->n = n, b->m = m;
    b->host = malloc(bytes);
    b->state = b->scratch = b->mean = NULL;
    if (!b->host || be->alloc((void **)&b->state, bytes) || be->alloc((void **)&b->scratch, bytes))
        return -1;
    return be->fill(b->scratch, NAN, (size_t)(n * m)); /* poison */
}

static void batch_free(batch *b)
{
    free(b->host);
    b->be->release(b->state);
    b->be->release(b->scratch);
    b->be->release(b->mean);
}

static int run_steps(const model1d_stepper *s, batch *b, int steps)
{
    int rc = b->be->copy_to_device(b->state, b->host, (size_t)(b->n * b->m) * sizeof(double));
    for (int k = 0; k < steps && rc == COHORT_OK; ++k)
        rc = model1d_step(s, &b->state, &b->scratch, b->mean, NULL, b->m, 0, b->m);
    if (rc == COHORT_OK) rc = b->be->synchronize();
    if (rc == COHORT_OK)
        rc = b->be->copy_to_host(b->host, b->state, (size_t)(b->n * b->m) * sizeof(double));
    return rc;
}

/* A single mode cos(theta i), theta = 2 pi k / n, amplitude m + 1 for member m; the exact
 * Crank-Nicolson solution is G^1000 cos(theta i) with G = (1 - a) / (1 + a), a = sigma *
 * symbol(theta). dt is chosen so that the mode decays to about a tenth in 1000 steps, with sigma
 * capped at SIGMA_MAX: the rounding of the matrix entries (1 + 6 sigma, -4 sigma, ...) moves the
 * discrete symbol by about eps (1 + 16 sigma) per step, so after 1000 steps the attainable
 * agreement is ~1000 eps (1 + 16 sigma), 5e-13 at sigma = 1/4 (measured 3e-12 at sigma = 2). A
 * wrong scheme moves G by O(a) per step, far above that. */
#define SIGMA_MAX 0.25
static void mode_case(const cohort_backend *be, model1d_kind kind, int64_t n, int64_t k)
{
    const int steps = 1000;
    const double length = 2.0 * M_PI, dx = length / (double)n, alpha = 0.7;
    const double theta = 2.0 * M_PI * (double)k / (double)n;
    const double symbol =
        kind == MODEL1D_DIFFUSION ? 2.0 * (1.0 - cos(theta)) : pow(2.0 - 2.0 * cos(theta), 2.0);
    const double a = log(10.0) / (2.0 * steps);
    const double sigma = fmin(a / symbol, SIGMA_MAX); /* alpha dt / (2 dx^2) or / (2 dx^4) */
    const double dt = sigma * 2.0 * pow(dx, kind == MODEL1D_DIFFUSION ? 2 : 4) / alpha;
    const double g = pow((1.0 - sigma * symbol) / (1.0 + sigma * symbol), steps);
    model1d_params p = {.kind = kind, .n = n, .length = length, .dt = dt, .alpha = alpha};
    model1d_stepper *s = NULL;
    batch b;
    int rc = model1d_stepper_alloc(be, &p, &s);
    EXPECT(rc == COHORT_OK, "stepper: %s", cohort_error_detail());
    if (rc || batch_alloc(&b, be, n, 7)) return;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t m = 0; m < b.m; ++m) b.host[i * b.m + m] = (double)(m + 1) * cos(theta * i);
    rc = run_steps(s, &b, steps);
    EXPECT(rc == COHORT_OK, "steps: %s", cohort_error_detail());
    double worst = 0.0;
    for (int64_t m = 0; m < b.m; ++m) {
        double diff = 0.0, scale = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            const double exact = (double)(m + 1) * g * cos(theta * i), got = b.host[i * b.m + m];
            diff = isnan(got) ? INFINITY : fmax(diff, fabs(got - exact));
            scale = fmax(scale, fabs(exact));
        }
        worst = fmax(worst, diff / scale);
    }
    EXPECT(worst <= MODE_RTOL,
           "%s n=%lld mode %lld: relative error %.3e after %d steps (G^%d = %g)",
           kind == MODEL1D_DIFFUSION ? "diffusion1d" : "hyperdiffusion1d", (long long)n,
           (long long)k, worst, steps, steps, g);
    batch_free(&b);
    model1d_stepper_free(s);
}

static double member_mean(const batch *b, int64_t m)
{
    double sum = 0.0;
    for (int64_t i = 0; i < b->n; ++i) sum += b->host[i * b->m + m];
    return sum / (double)b->n;
}

/* ch1d and ch1d_forced (f0 = 1, k = 1, v = 0.5) from random initial conditions: the mean of
 * every member is conserved and the phases separate; on cuda, the result agrees with the cpu
 * backend. */
static void cahn_hilliard_case(const cohort_backend *be, gsl_rng *rng, model1d_kind kind)
{
    const int64_t n = 256, members = 33;
    const double length = 2.0 * M_PI;
    model1d_params p = {.kind = kind,
                        .n = n,
                        .length = length,
                        .dt = 0.1 * length / (double)n,
                        .gamma = 0.01,
                        .f0 = 1.0,
                        .k = 1.0,
                        .v = 0.5};
    const char *name = kind == MODEL1D_CAHN_HILLIARD ? "ch1d" : "ch1d_forced";
    model1d_stepper *s = NULL, *s_cpu = NULL;
    batch b, c;
    EXPECT(model1d_stepper_alloc(be, &p, &s) == COHORT_OK, "%s: %s", name, cohort_error_detail());
    if (!s || batch_alloc(&b, be, n, members)) return;
    for (int64_t k = 0; k < n * members; ++k) b.host[k] = 0.1 * (2.0 * gsl_rng_uniform(rng) - 1.0);
    for (int64_t m = 0; m < members; ++m)
        for (int64_t i = 0; i < n; ++i) b.host[i * members + m] += 0.05 * (double)(m % 5);
    /* the state is each member's deviation from its mean, which the stepper keeps exactly */
    double mean[64], initial_spread = 0.0;
    for (int64_t m = 0; m < members; ++m) mean[m] = member_mean(&b, m);
    for (int64_t m = 0; m < members; ++m)
        for (int64_t i = 0; i < n; ++i) b.host[i * members + m] -= mean[m];
    for (int64_t k = 0; k < n * members; ++k)
        initial_spread = fmax(initial_spread, fabs(b.host[k]));
    EXPECT(be->alloc((void **)&b.mean, (size_t)members * sizeof(double)) == COHORT_OK &&
               be->copy_to_device(b.mean, mean, (size_t)members * sizeof(double)) == COHORT_OK,
           "means");
    double *initial = malloc((size_t)(n * members) * sizeof(double));
    memcpy(initial, b.host, (size_t)(n * members) * sizeof(double));
    EXPECT(run_steps(s, &b, MASS_STEPS) == COHORT_OK, "%s steps: %s", name, cohort_error_detail());
    double drift = 0.0;
    for (int64_t m = 0; m < members; ++m) drift = fmax(drift, fabs(member_mean(&b, m)));
    EXPECT(drift <= (kind == MODEL1D_CAHN_HILLIARD ? MASS_ATOL : FORCED_RESIDUAL),
           "%s: mean of the deviation %.3e after %d steps", name, drift, MASS_STEPS);
    /* the recorded <C> is the member's mean */
    double *moments = NULL, host_moments[2 * 64];
    EXPECT(be->alloc((void **)&moments, 2 * members * sizeof(double)) == COHORT_OK &&
               be->copy_to_device(b.state, b.host, (size_t)(n * members) * sizeof(double)) ==
                   COHORT_OK &&
               be->model1d_moments(b.state, b.mean, n, members, 0, members, moments) == COHORT_OK &&
               be->copy_to_host(host_moments, moments, 2 * members * sizeof(double)) == COHORT_OK,
           "moments");
    double mass_error = 0.0;
    for (int64_t m = 0; m < members; ++m)
        mass_error = fmax(mass_error, fabs(host_moments[m] - mean[m]));
    EXPECT(mass_error <= MASS_ATOL, "%s: recorded <C> differs from the member's mean by %.3e", name,
           mass_error);
    be->release(moments);
    double spread = 0.0; /* and it did evolve: phase separation sharpens the field */
    for (int64_t k = 0; k < n * members; ++k) spread = fmax(spread, fabs(b.host[k]));
    EXPECT(spread > 0.5 && spread > 3.0 * initial_spread,
           "%s separated phases (max |C - mean| = %g after %d steps, %g at start)", name, spread,
           MASS_STEPS, initial_spread);
    if (be->kind == COHORT_BACKEND_CUDA) {
        EXPECT(model1d_stepper_alloc(&cohort_backend_cpu, &p, &s_cpu) == COHORT_OK, "cpu stepper");
        if (s_cpu && batch_alloc(&c, &cohort_backend_cpu, n, members) == 0) {
            c.mean = malloc((size_t)members * sizeof(double));
            memcpy(c.mean, mean, (size_t)members * sizeof(double));
            memcpy(c.host, initial, (size_t)(n * members) * sizeof(double));
            memcpy(b.host, initial, (size_t)(n * members) * sizeof(double));
            EXPECT(run_steps(s_cpu, &c, 200) == COHORT_OK && run_steps(s, &b, 200) == COHORT_OK,
                   "200 steps");
            double diff = 0.0, scale = 0.0;
            for (int64_t k = 0; k < n * members; ++k) {
                diff = fmax(diff, fabs(b.host[k] - c.host[k]));
                scale = fmax(scale, fabs(c.host[k]));
            }
            EXPECT(diff / scale <= AGREE_RTOL, "%s cuda vs cpu after 200 steps: %.3e", name,
                   diff / scale);
            batch_free(&c);
        }
        model1d_stepper_free(s_cpu);
    }
    free(initial);
    batch_free(&b);
    model1d_stepper_free(s);
}

/* WENO5 for Hamilton-Jacobi: fifth order on a smooth field, and upwinded by the sign of v. */
static void weno_checks(void)
{
    double err[2];
    for (int level = 0; level < 2; ++level) {
        const int n = 32 << level;
        const double dx = 2.0 * M_PI / n;
        err[level] = 0.0;
        for (int i = 0; i < n; ++i) {
            double c[MODEL1D_WINDOW];
            for (int k = 0; k < MODEL1D_WINDOW; ++k) c[k] = sin((i + k - MODEL1D_RADIUS) * dx);
            for (int side = -1; side <= 1; side += 2) {
                const double d = model1d_upwind_derivative(c, side) / dx;
                err[level] = fmax(err[level], fabs(d - cos(i * dx)));
            }
        }
    }
    EXPECT(err[0] / err[1] > 20.0,
           "WENO5 on sin: error %.3e at N = 32, %.3e at N = 64 (fifth order: ratio ~32)", err[0],
           err[1]);
    double c[MODEL1D_WINDOW] = {0.3, -0.2, 0.5, 0.1, 0.7, -0.4, 0.2}, d[MODEL1D_WINDOW];
    memcpy(d, c, sizeof c);
    d[0] += 10.0; /* C_{i-3}: outside the right-biased stencil */
    EXPECT(model1d_upwind_derivative(c, 0.5) == model1d_upwind_derivative(d, 0.5) &&
               model1d_upwind_derivative(c, -0.5) != model1d_upwind_derivative(d, -0.5),
           "v > 0 uses the right-biased stencil, v < 0 the left-biased one");
    memcpy(d, c, sizeof c);
    d[6] += 10.0; /* C_{i+3}: outside the left-biased stencil */
    EXPECT(model1d_upwind_derivative(c, -0.5) == model1d_upwind_derivative(d, -0.5) &&
               model1d_upwind_derivative(c, 0.5) != model1d_upwind_derivative(d, 0.5),
           "v < 0 does not read C_{i+3}");
}

static void bad_parameters(const cohort_backend *be)
{
    model1d_stepper *s = NULL;
    model1d_params p = {.kind = MODEL1D_DIFFUSION, .n = 64, .length = 1.0, .dt = 0.0, .alpha = 1};
    EXPECT(model1d_stepper_alloc(be, &p, &s) == COHORT_ERR_INVALID_ARGUMENT && !s, "dt = 0");
    p.dt = 1e-3, p.alpha = -1.0;
    EXPECT(model1d_stepper_alloc(be, &p, &s) == COHORT_ERR_INVALID_ARGUMENT, "alpha < 0");
    p.alpha = 1.0, p.kind = MODEL1D_HYPERDIFFUSION, p.n = 4;
    EXPECT(model1d_stepper_alloc(be, &p, &s) == COHORT_ERR_SIZE_TOO_SMALL, "n = 4 penta");
    p.kind = MODEL1D_CAHN_HILLIARD, p.n = 64, p.gamma = 0.0;
    EXPECT(model1d_stepper_alloc(be, &p, &s) == COHORT_ERR_INVALID_ARGUMENT, "gamma = 0");
    p.kind = (model1d_kind)7;
    EXPECT(model1d_stepper_alloc(be, &p, &s) == COHORT_ERR_INVALID_ARGUMENT, "unknown kind");
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    gsl_rng *rng = reference_rng_alloc("test_model1d");
    bad_parameters(be);
    static const int64_t sizes[] = {5, 31, 64, 97, 256};
    for (int kind = MODEL1D_DIFFUSION; kind <= MODEL1D_HYPERDIFFUSION; ++kind)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
            const int64_t n = sizes[i], modes[3] = {1, 3, n / 4 > 0 ? n / 4 : 1};
            for (int k = 0; k < 3; ++k) mode_case(be, (model1d_kind)kind, n, modes[k]);
        }
    weno_checks();
    cahn_hilliard_case(be, rng, MODEL1D_CAHN_HILLIARD);
    cahn_hilliard_case(be, rng, MODEL1D_CAHN_HILLIARD_FORCED);
    gsl_rng_free(rng);
    return test_summary();
}
