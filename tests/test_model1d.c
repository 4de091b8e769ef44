/* The 1D model steppers on one backend: diffusion1d and hyperdiffusion1d on a single Fourier mode
 * against the exact Crank-Nicolson amplification factor after 1000 steps (several modes and N,
 * odd N included); ch1d conserves every member's mean; cuda agrees with cpu; bad parameters
 * are refused; ch1d_forced's stability estimate solves its swing equation; members with their
 * own gamma step as steppers of each gamma alone would, bit for bit. Usage: test_model1d
 * --backend cpu|cuda (exit 77 = skipped: no device). */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#ifdef COHORT_HAVE_CUDA
#    include "backend/backend_cuda.h"
#    include "models/model1d/model1d_cuda.h"
#endif
#include "banded_reference.h"
#include "fields/fields.h"
#include "models/model1d/model1d.h"
#include "models/model1d/model1d_kernels.h"
#include "models/model.h"
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
/* One arithmetic (issue 55): the cpu and cuda backends, and the cuda step's paths (the fused
 * kernel against the right-hand-side kernel and the portable solve), take the same operations in
 * the same order with no implicit contraction, so they agree bit for bit: after 200 ch1d steps,
 * and in one step on diagonally dominant systems (relative to the largest |x|: 0). */
#define AGREE_RTOL 0.0
#define PATHS_RTOL 0.0
#define STEP_CPU_RTOL 0.0

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

/* The recorded <C> of b's state (fields_moments) is each member's mean */
static void recorded_mean_check(const cohort_backend *be, batch *b, const double *mean,
                                const char *name)
{
    const int64_t n = b->n, members = b->m;
    double *moments = NULL, host_moments[2 * 64];
    EXPECT(be->alloc((void **)&moments, 2 * members * sizeof(double)) == COHORT_OK &&
               be->copy_to_device(b->state, b->host, (size_t)(n * members) * sizeof(double)) ==
                   COHORT_OK &&
               fields_moments(be, b->state, b->mean, n, members, 0, members, moments) ==
                   COHORT_OK &&
               be->copy_to_host(host_moments, moments, 2 * members * sizeof(double)) == COHORT_OK,
           "moments");
    double mass_error = 0.0;
    for (int64_t m = 0; m < members; ++m)
        mass_error = fmax(mass_error, fabs(host_moments[m] - mean[m]));
    EXPECT(mass_error <= MASS_ATOL, "%s: recorded <C> differs from the member's mean by %.3e", name,
           mass_error);
    be->release(moments);
}

/* 200 steps of s (cuda) from `initial` against as many of a cpu stepper of p: the same values */
static void cpu_agreement_check(const model1d_stepper *s, const model1d_params *p, batch *b,
                                const double *initial, const double *mean, const char *name)
{
    const int64_t n = b->n, members = b->m;
    model1d_stepper *s_cpu = NULL;
    batch c;
    EXPECT(model1d_stepper_alloc(&cohort_backend_cpu, p, &s_cpu) == COHORT_OK, "cpu stepper");
    if (s_cpu && batch_alloc(&c, &cohort_backend_cpu, n, members) == 0) {
        c.mean = malloc((size_t)members * sizeof(double));
        memcpy(c.mean, mean, (size_t)members * sizeof(double));
        memcpy(c.host, initial, (size_t)(n * members) * sizeof(double));
        memcpy(b->host, initial, (size_t)(n * members) * sizeof(double));
        EXPECT(run_steps(s_cpu, &c, 200) == COHORT_OK && run_steps(s, b, 200) == COHORT_OK,
               "200 steps");
        double diff = 0.0, scale = 0.0;
        for (int64_t k = 0; k < n * members; ++k) {
            diff = fmax(diff, fabs(b->host[k] - c.host[k]));
            scale = fmax(scale, fabs(c.host[k]));
        }
        EXPECT(diff / scale <= AGREE_RTOL, "%s cuda vs cpu after 200 steps: %.3e", name,
               diff / scale);
        batch_free(&c);
    }
    model1d_stepper_free(s_cpu);
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
    model1d_stepper *s = NULL;
    batch b;
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
    recorded_mean_check(be, &b, mean, name);
    double spread = 0.0; /* and it did evolve: phase separation sharpens the field */
    for (int64_t k = 0; k < n * members; ++k) spread = fmax(spread, fabs(b.host[k]));
    EXPECT(spread > 0.5 && spread > 3.0 * initial_spread,
           "%s separated phases (max |C - mean| = %g after %d steps, %g at start)", name, spread,
           MASS_STEPS, initial_spread);
    if (be->kind == COHORT_BACKEND_CUDA) cpu_agreement_check(s, &p, &b, initial, mean, name);
    free(initial);
    batch_free(&b);
    model1d_stepper_free(s);
}

/* Jiang and Peng's WENO5 derivative as Osher and Fedkiw print it (Sec. 3.4): four
 * divisions by the weights, written here independently of model1d_weno5's one-division form. */
static double textbook_weno5(const double d[5])
{
    const double phi[3] = {d[0] / 3.0 - 7.0 * d[1] / 6.0 + 11.0 * d[2] / 6.0,
                           -d[1] / 6.0 + 5.0 * d[2] / 6.0 + d[3] / 3.0,
                           d[2] / 3.0 + 5.0 * d[3] / 6.0 - d[4] / 6.0};
    const double s[3] = {13.0 / 12.0 * pow(d[0] - 2.0 * d[1] + d[2], 2) +
                             0.25 * pow(d[0] - 4.0 * d[1] + 3.0 * d[2], 2),
                         13.0 / 12.0 * pow(d[1] - 2.0 * d[2] + d[3], 2) +
                             0.25 * pow(d[1] - d[3], 2),
                         13.0 / 12.0 * pow(d[2] - 2.0 * d[3] + d[4], 2) +
                             0.25 * pow(3.0 * d[2] - 4.0 * d[3] + d[4], 2)};
    const double gamma[3] = {0.1, 0.6, 0.3};
    double big = 0.0, alpha[3], sum = 0.0;
    for (int k = 0; k < 5; ++k) big = fmax(big, d[k] * d[k]);
    for (int k = 0; k < 3; ++k) {
        alpha[k] = gamma[k] / pow(s[k] + 1e-6 * big + 1e-99, 2);
        sum += alpha[k];
    }
    return (alpha[0] / sum) * phi[0] + (alpha[1] / sum) * phi[1] + (alpha[2] / sum) * phi[2];
}

/* The one-division form as cohort 0.2.0 wrote it, point by point with the squares' maximum: the
 * sweep's parts and the largest |d_k| squared must give its bits. */
static double weno5_of_0_2_0(const double d[5])
{
    const double phi1 = fma(11.0, d[2], fma(-7.0, d[1], 2.0 * d[0]));
    const double phi2 = fma(2.0, d[3], fma(5.0, d[2], -d[1]));
    const double phi3 = fma(5.0, d[3], fma(2.0, d[2], -d[4]));
    const double a1 = fma(-2.0, d[1], d[0] + d[2]), b1 = fma(3.0, d[2], fma(-4.0, d[1], d[0]));
    const double a2 = fma(-2.0, d[2], d[1] + d[3]), b2 = d[1] - d[3];
    const double a3 = fma(-2.0, d[3], d[2] + d[4]), b3 = fma(3.0, d[2], fma(-4.0, d[3], d[4]));
    double big = 0.0;
    for (int k = 0; k < 5; ++k) big = d[k] * d[k] > big ? d[k] * d[k] : big;
    const double eps12 = fma(1.2e-5, big, 1e-50);
    const double s1 = fma(13.0 * a1, a1, fma(3.0 * b1, b1, eps12));
    const double s2 = fma(13.0 * a2, a2, fma(3.0 * b2, b2, eps12));
    const double s3 = fma(13.0 * a3, a3, fma(3.0 * b3, b3, eps12));
    const double q1 = s1 * s1, q2 = s2 * s2, q3 = s3 * s3;
    const double w1 = q2 * q3, w2 = 6.0 * q1 * q3, w3 = 3.0 * q1 * q2;
    return fma(w1, phi1, fma(w2, phi2, w3 * phi3)) / (6.0 * (w1 + w2 + w3));
}

/* WENO5 for Hamilton-Jacobi: the textbook form's value to rounding on random differences of every
 * scale a run meets (smooth, kinked, a jump in one of them), fifth order on a smooth field, 0 on a
 * flat one, and upwinded by the sign of v. */
/* ch1d_forced's stability estimate (ch1d_forced.c): 8 gamma / (3 c^2 - 1)^2 at c = max(|mean|, 1)
 * plus the forced swing s, the root of s = f0 / sqrt(v^2 + (k (3 c^2 + 3 s^2 / 2 - 1) +
 * gamma k^3)^2). The reference finds the root by a scan of 10^5 points and linear interpolation
 * (not the model's bisection); without forcing the limit is the unforced one exactly, and forcing
 * only lowers it. */
static double forced_limit_reference(double f0, double v, double gamma, double k, double mean)
{
    const double c = fmax(fabs(mean), 1.0);
    double s = 0.0;
    if (f0 > 0.0) {
        const double top = f0 / sqrt(v * v + pow(k * (3.0 * c * c - 1.0) + gamma * k * k * k, 2));
        double prev_s = 0.0, prev_g = -top;
        for (int j = 1; j <= 100000; ++j) {
            const double x = top * j / 100000.0;
            const double g =
                x - f0 / sqrt(v * v +
                              pow(k * (3.0 * c * c + 1.5 * x * x - 1.0) + gamma * k * k * k, 2));
            if (g >= 0.0) {
                s = prev_s + (x - prev_s) * (-prev_g) / (g - prev_g);
                break;
            }
            prev_s = x, prev_g = g;
        }
    }
    const double slope = 3.0 * (c + s) * (c + s) - 1.0;
    return 8.0 * gamma / (slope * slope);
}

static void forced_stability_limit(void)
{
    const cohort_model *m = cohort_model_find("ch1d_forced");
    EXPECT(m && m->dt_limit, "ch1d_forced has a stability estimate");
    if (!m || !m->dt_limit) return;
    cohort_model_values v;
    memset(&v, 0, sizeof v);
    const int i_gamma = cohort_model_param_index(m, "gamma"),
              i_f0 = cohort_model_param_index(m, "f0"), i_k = cohort_model_param_index(m, "k"),
              i_v = cohort_model_param_index(m, "v");
    static const double f0s[] = {0.0, 0.3, 2.0, 10.0}, vs[] = {0.0, 0.5, -1.0}, ks[] = {1.0, 2.0},
                        gammas[] = {0.01, 0.005}, means[] = {0.0, 0.4, -0.9, 1.5};
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 3; ++b)
            for (int c = 0; c < 2; ++c)
                for (int d = 0; d < 2; ++d)
                    for (int e = 0; e < 4; ++e) {
                        v.param[i_f0] = f0s[a], v.param[i_v] = vs[b], v.param[i_k] = ks[c];
                        v.param[i_gamma] = gammas[d];
                        const double limit = m->dt_limit(m, &v, means[e]);
                        const double ref =
                            forced_limit_reference(f0s[a], vs[b], gammas[d], ks[c], means[e]);
                        const double cm = fmax(fabs(means[e]), 1.0),
                                     unforced = 8.0 * gammas[d] / pow(3.0 * cm * cm - 1.0, 2);
                        EXPECT(fabs(limit - ref) <= 1e-8 * ref,
                               "ch1d_forced dt limit f0=%g v=%g k=%g gamma=%g mean=%g: %.12g, "
                               "reference %.12g",
                               f0s[a], vs[b], ks[c], gammas[d], means[e], limit, ref);
                        EXPECT(f0s[a] > 0.0 ? limit < unforced : limit == unforced,
                               "ch1d_forced dt limit f0=%g mean=%g: %.12g against unforced %.12g",
                               f0s[a], means[e], limit, unforced);
                    }
}

static void weno_checks(gsl_rng *rng)
{
    double worst = 0.0;
    int changed = 0;
    for (int trial = 0; trial < 100000; ++trial) {
        const double scale = pow(10.0, -6.0 + 7.0 * gsl_rng_uniform(rng));
        double d[5], size = 0.0;
        for (int k = 0; k < 5; ++k) d[k] = scale * (2.0 * gsl_rng_uniform(rng) - 1.0);
        if (trial % 3 == 1) d[trial % 5] *= 1e3; /* a jump */
        if (trial % 3 == 2)                      /* smooth: a slope and a small curvature */
            for (int k = 0; k < 5; ++k) d[k] = scale * (1.0 + 0.1 * k + 0.01 * k * k);
        for (int k = 0; k < 5; ++k) size = fmax(size, fabs(d[k]));
        worst = fmax(worst, fabs(model1d_weno5(d) - textbook_weno5(d)) / size);
        const double now = model1d_weno5(d), before = weno5_of_0_2_0(d);
        changed += memcmp(&now, &before, sizeof now) != 0;
        /* differences whose squares are subnormal or overflow */
        for (int k = 0; k < 5; ++k) d[k] *= trial % 2 ? 1e-150 : 1e150;
        const double now_scaled = model1d_weno5(d), before_scaled = weno5_of_0_2_0(d);
        changed += memcmp(&now_scaled, &before_scaled, sizeof now) != 0 &&
                   !(isnan(now_scaled) && isnan(before_scaled));
    }
    EXPECT(changed == 0, "WENO5: %d of 200000 values differ from cohort 0.2.0's", changed);
    EXPECT(worst < 1e-14, "WENO5: one division against the textbook's four: %.3e of max |d|",
           worst);
    const double flat[5] = {0.0}, tiny[5] = {1e-30, -2e-30, 3e-30, 0.0, 1e-30};
    EXPECT(model1d_weno5(flat) == 0.0, "WENO5 of a flat field: %g", model1d_weno5(flat));
    EXPECT(isfinite(model1d_weno5(tiny)) && fabs(model1d_weno5(tiny)) < 1e-29,
           "WENO5 of differences of 1e-30: %g", model1d_weno5(tiny));

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

/* The sweep along a member (model1d_sweep, the cuda right-hand side's form) against the point form
 * (model1d_rhs_at, the cpu backend's) at every point, bit for bit: random members of every scale
 * with a jump, the advection of either sign, each model's terms. */
static void sweep_checks(gsl_rng *rng)
{
    static const unsigned term_sets[] = {MODEL1D_TERM_STENCIL,
                                         MODEL1D_TERM_STENCIL | MODEL1D_TERM_NONLINEAR,
                                         MODEL1D_TERM_STENCIL | MODEL1D_TERM_NONLINEAR |
                                             MODEL1D_TERM_ADVECTION | MODEL1D_TERM_FORCING};
    static const int64_t sizes[] = {7, 11, 12, 40, 97};
    double x[97], forcing[97];
    int64_t differing = 0, points = 0;
    for (int trial = 0; trial < 60; ++trial) {
        const int64_t n = sizes[trial % 5];
        const double scale = pow(10.0, -8.0 + 9.0 * gsl_rng_uniform(rng));
        for (int64_t i = 0; i < n; ++i) {
            x[i] = scale * (2.0 * gsl_rng_uniform(rng) - 1.0);
            forcing[i] = 0.01 * (2.0 * gsl_rng_uniform(rng) - 1.0);
        }
        x[gsl_rng_uniform_int(rng, (unsigned long)n)] += 1e3 * scale; /* a jump */
        model1d_rhs r = {.terms = term_sets[(trial / 5) % 3],
                         .nonlinear = 0.05 + 0.1 * gsl_rng_uniform(rng),
                         .advection = (trial / 15) % 2 ? -0.03 : 0.03,
                         .forcing = forcing};
        for (int k = 0; k < 5; ++k) r.weight[k] = gsl_rng_uniform(rng) - 0.25;
        const double mean = 0.3 * gsl_rng_uniform(rng), drift = 1e-3 * gsl_rng_uniform(rng);
        const double f0 = 2.0 * gsl_rng_uniform(rng) - 1.0;
        const int right = r.advection > 0.0;
        model1d_sweep sweep;
        for (int k = 0; k < MODEL1D_WINDOW; ++k) sweep.c[k] = x[(k - MODEL1D_RADIUS + 2 * n) % n];
        model1d_sweep_start(&r, &sweep, mean, drift, right);
        for (int64_t i = 0; i < n; ++i) {
            const double swept = model1d_sweep_point(&r, &sweep, drift, forcing[i], f0);
            const double pointwise = model1d_rhs_at(&r, x, n, 1, i, mean, drift, f0);
            differing += memcmp(&swept, &pointwise, sizeof swept) != 0;
            ++points;
            model1d_sweep_advance(&r, &sweep, x[(i + MODEL1D_RADIUS + 1) % n], mean, drift, right);
        }
    }
    EXPECT(differing == 0, "sweep vs point form: %lld of %lld values differ", (long long)differing,
           (long long)points);
}

#ifdef COHORT_HAVE_CUDA
/* Three steps on chip in one launch against three launches of the FUSED step, from the inputs of
 * step_paths_case (dev: u, mean, f0, forcing and two outputs, u overwritten here): the same bits,
 * and nothing written outside the sub-batch. */
static void advance_check(const cohort_backend *be, const model1d_rhs *r, const banded_view *v,
                          double **dev, const double *mean, int64_t ld, int64_t n)
{
    const int64_t m0 = 3, count = 61, values = n * ld;
    double *host = malloc((size_t)(2 * values) * sizeof(double));
    int rc = host ? be->fill(dev[4], NAN, (size_t)values) : COHORT_ERR_NO_MEMORY;
    if (rc == COHORT_OK) rc = be->fill(dev[5], NAN, (size_t)values);
    if (rc == COHORT_OK)
        rc = cohort_cuda_model1d_advance_fused(r, v, dev[0], dev[5], mean, ld, m0, count, 3, 0);
    double *from = dev[0], *to = dev[4];
    for (int k = 0; k < 3 && rc == COHORT_OK; ++k) {
        rc = cohort_cuda_model1d_step_path(r, v, from, to, mean, NULL, NULL, NULL, ld, m0, count,
                                           COHORT_CUDA_STEP_FUSED, 0);
        double *t = from;
        from = to, to = t;
    }
    /* after three exchanges `from` (dev[4]) holds the third step */
    if (rc == COHORT_OK) rc = be->synchronize();
    if (rc == COHORT_OK) rc = be->copy_to_host(host, from, (size_t)values * sizeof(double));
    if (rc == COHORT_OK)
        rc = be->copy_to_host(host + values, dev[5], (size_t)values * sizeof(double));
    EXPECT(rc == COHORT_OK, "advance n=%lld: %s", (long long)n, cohort_error_detail());
    int64_t differ = 0, outside = 0, finite = 0;
    for (int64_t i = 0; rc == COHORT_OK && i < n; ++i)
        for (int64_t m = 0; m < ld; ++m) {
            const double stepped = host[i * ld + m], on_chip = host[values + i * ld + m];
            if (m < m0 || m >= m0 + count) {
                outside += !isnan(on_chip);
                continue;
            }
            finite += isfinite(on_chip) != 0;
            differ += memcmp(&stepped, &on_chip, sizeof(double)) != 0;
        }
    EXPECT(differ == 0 && finite == n * count && outside == 0,
           "n=%lld terms=%u: 3 steps on chip vs 3 fused launches: %lld differ, %lld finite of "
           "%lld, %lld written outside",
           (long long)n, r->terms, (long long)differ, (long long)finite, (long long)(n * count),
           (long long)outside);
    free(host);
}

/* The cuda step's paths: FUSED (AUTO for terms without a fused kernel) against PORTABLE and
 * against the cpu backend, one step from random inputs. Random periodic band matrices varying along
 * the diagonal; a right-hand side with the terms of a model (random linear weights, the cubic, the
 * WENO advection of either sign, a forcing); random states, means (or none) and member forcing
 * amplitudes; a sub-batch of an odd number of members (16-byte copies cut; members outside must
 * stay poisoned). */
static void step_paths_case(const cohort_backend *be, gsl_rng *rng, int h, unsigned terms,
                            int64_t n, int with_mean)
{
    const int64_t ld = 67, m0 = 3, count = 61, values = n * ld;
    double *diagonals[5] = {NULL}, *host[4] = {NULL}; /* u, mean and f0, forcing, out */
    double *dev[6] = {NULL};                          /* u, mean, f0, forcing, fused, portable */
    banded_factor *f = NULL;
    banded_solver *solver = NULL, *cpu_solver = NULL;
    for (int o = 0; o <= 2 * h; ++o) diagonals[o] = malloc((size_t)n * sizeof(double));
    reference_random_diagonals(rng, n, h, diagonals);
    const size_t sizes[4] = {(size_t)values, (size_t)(2 * ld), (size_t)n, (size_t)(3 * values)};
    for (int k = 0; k < 4; ++k) host[k] = malloc(sizes[k] * sizeof(double));
    for (int64_t k = 0; k < values; ++k) host[0][k] = gsl_rng_uniform(rng) - 0.5;
    for (int64_t m = 0; m < ld; ++m) {
        host[1][m] = 0.4 * gsl_rng_uniform(rng) - 0.2;      /* mean */
        host[1][ld + m] = 2.0 * gsl_rng_uniform(rng) - 1.0; /* f0 */
    }
    for (int64_t i = 0; i < n; ++i) host[2][i] = 0.01 * (2.0 * gsl_rng_uniform(rng) - 1.0);
    model1d_rhs r = {.terms = terms,
                     .nonlinear = 0.05 + 0.1 * gsl_rng_uniform(rng),
                     .advection = (gsl_rng_uniform(rng) < 0.5 ? -0.03 : 0.03),
                     .f0 = 0.5};
    for (int k = 0; k < 5; ++k) r.weight[k] = gsl_rng_uniform(rng) - 0.25;
    int rc = banded_factor_alloc(n, h, (const double *const *)diagonals, 1, &f);
    if (rc == COHORT_OK) rc = banded_solver_alloc(be, f, &solver);
    if (rc == COHORT_OK) rc = banded_solver_alloc(&cohort_backend_cpu, f, &cpu_solver);
    const size_t dev_sizes[6] = {(size_t)values, (size_t)ld,     (size_t)ld,
                                 (size_t)n,      (size_t)values, (size_t)values};
    for (int k = 0; k < 6 && rc == COHORT_OK; ++k)
        rc = be->alloc((void **)&dev[k], dev_sizes[k] * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dev[0], host[0], (size_t)values * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dev[1], host[1], (size_t)ld * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dev[2], host[1] + ld, (size_t)ld * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dev[3], host[2], (size_t)n * sizeof(double));
    if (rc == COHORT_OK) rc = be->fill(dev[4], NAN, (size_t)values);
    if (rc == COHORT_OK) rc = be->fill(dev[5], NAN, (size_t)values);
    EXPECT(rc == COHORT_OK, "set-up n=%lld h=%d: %s", (long long)n, h, cohort_error_detail());
    if (rc != COHORT_OK) goto done;
    r.forcing = dev[3];
    const double *mean = with_mean ? dev[1] : NULL;
    const banded_view *v = banded_solver_view(solver);
    /* ch1d_forced's terms have no fused kernel: AUTO's separate kernels take FUSED's place */
    const int has_fused = !(terms & (MODEL1D_TERM_ADVECTION | MODEL1D_TERM_FORCING));
    if (has_fused && cohort_cuda_model1d_step_width(&r, v, 0) == 0) { /* less shared memory */
        printf("note: n = %lld: no fused tile fits %zu bytes of shared memory; not checked\n",
               (long long)n, cohort_cuda_shared_limit_bytes());
        goto done;
    }
    rc = cohort_cuda_model1d_step_path(
        &r, v, dev[0], dev[4], mean, dev[2], NULL, NULL, ld, m0, count,
        has_fused ? COHORT_CUDA_STEP_FUSED : COHORT_CUDA_STEP_AUTO, 0);
    if (rc == COHORT_OK)
        rc = cohort_cuda_model1d_step_path(&r, v, dev[0], dev[5], mean, dev[2], NULL, NULL, ld, m0,
                                           count, COHORT_CUDA_STEP_PORTABLE, 0);
    if (rc == COHORT_OK) rc = be->synchronize();
    if (rc == COHORT_OK) rc = be->copy_to_host(host[3], dev[4], (size_t)values * sizeof(double));
    if (rc == COHORT_OK)
        rc = be->copy_to_host(host[3] + values, dev[5], (size_t)values * sizeof(double));
    EXPECT(rc == COHORT_OK, "steps n=%lld h=%d: %s", (long long)n, h, cohort_error_detail());
    if (rc != COHORT_OK) goto done;
    double *cpu_out = host[3] + 2 * values, cpu_f0[128];
    for (int64_t k = 0; k < values; ++k) cpu_out[k] = NAN;
    memcpy(cpu_f0, host[1] + ld, (size_t)ld * sizeof(double));
    model1d_rhs cpu_r = r;
    cpu_r.forcing = host[2];
    rc = model1d_kernels_cpu.step(&cpu_r, banded_solver_view(cpu_solver), host[0], cpu_out,
                                  with_mean ? host[1] : NULL, cpu_f0, NULL, NULL, ld, m0, count);
    EXPECT(rc == COHORT_OK, "cpu step: %s", cohort_error_detail());
    double scale = 0.0, paths = 0.0, cpu = 0.0;
    int64_t differing = 0, outside = 0;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t m = 0; m < ld; ++m) {
            const int64_t k = i * ld + m;
            const double fused = host[3][k], portable = host[3][values + k];
            if (m < m0 || m >= m0 + count) {
                outside += !isnan(fused) || !isnan(portable) || !isnan(cpu_out[k]);
                continue;
            }
            scale = fmax(scale, fabs(portable));
            paths = isfinite(fused) ? fmax(paths, fabs(fused - portable)) : INFINITY;
            cpu = isfinite(cpu_out[k]) ? fmax(cpu, fabs(cpu_out[k] - portable)) : INFINITY;
            differing += fused != portable;
        }
    EXPECT(outside == 0, "n=%lld h=%d: %lld values outside the sub-batch written", (long long)n, h,
           (long long)outside);
    EXPECT(paths <= PATHS_RTOL * scale && scale > 0.0,
           "n=%lld h=%d terms=%u mean=%d v=%g: %s vs portable %.3e of %.3e (%lld differ)",
           (long long)n, h, terms, with_mean, r.advection, has_fused ? "fused" : "auto", paths,
           scale, (long long)differing);
    EXPECT(cpu <= STEP_CPU_RTOL * scale,
           "n=%lld h=%d terms=%u mean=%d v=%g: cpu vs cuda %.3e of %.3e", (long long)n, h, terms,
           with_mean, r.advection, cpu, scale);
    if (differing)
        printf("note: n=%lld h=%d: fused and portable differ in %lld of %lld values\n",
               (long long)n, h, (long long)differing, (long long)(n * count));
    if (has_fused && cohort_cuda_model1d_step_width(&r, v, 0) > 0)
        advance_check(be, &r, v, dev, mean, ld, n);
done:
    for (int k = 0; k < 6; ++k) be->release(dev[k]);
    for (int k = 0; k < 4; ++k) free(host[k]);
    for (int o = 0; o <= 2 * h; ++o) free(diagonals[o]);
    banded_solver_free(cpu_solver);
    banded_solver_free(solver);
    banded_factor_free(f);
}

/* Where FUSED cannot form a tile it says so, and AUTO falls back. */
static void step_paths_limits(void)
{
    banded_view v = {.n = 6, .h = 2, .border = 2};
    model1d_rhs r = {.terms = MODEL1D_TERM_NONLINEAR};
    EXPECT(cohort_cuda_model1d_step_width(&r, &v, 0) == 0, "n = 6 is below the window");
    v.n = 256;
    EXPECT(cohort_cuda_model1d_step_width(&r, &v, 0) == 32, "n = 256: a warp of members per tile");
    EXPECT(cohort_cuda_model1d_step_width(&r, &v, 16 * 256 * 8 - 1) == 0, "no tile of 16 members");
    v.n_band = 254; /* the factor's rows share the block's shared memory with the tiles */
    /* the widths on chip that 227 KB of shared memory a block gives (sm_90) */
    const int sm90_shared = cohort_cuda_shared_limit_bytes() >= 227 * 1024;
    if (!sm90_shared)
        printf("note: %zu bytes of shared memory a block: the widths of sm_90 not checked\n",
               cohort_cuda_shared_limit_bytes());
    EXPECT(!sm90_shared || cohort_cuda_model1d_advance_width(&r, &v, 0) == 26,
           "n = 256 on chip: four tiles of 26 an SM, where three of 32 leave a scheduler idle");
    EXPECT(cohort_cuda_model1d_advance_width(&r, &v, 26 * 256 * 8 - 1) == 16,
           "no tile of 26 in the budget: six of 16");
    EXPECT(cohort_cuda_model1d_advance_width(&r, &v, 16 * 256 * 8 - 1) == 0,
           "no tile of 16 members on chip");
    v.n = 512, v.n_band = 510;
    EXPECT(!sm90_shared || cohort_cuda_model1d_advance_width(&r, &v, 0) == 16,
           "n = 512 on chip: tiles of 16");
    v.n = 128, v.n_band = 126;
    EXPECT(!sm90_shared || cohort_cuda_model1d_advance_width(&r, &v, 0) == 32,
           "n = 128 on chip: six tiles of 32 fill the schedulers (eight of 26 would hold more)");
    v.n = 256, v.n_band = 254;
    r.terms = MODEL1D_TERM_STENCIL | MODEL1D_TERM_NONLINEAR;
    EXPECT(cohort_cuda_model1d_step_width(&r, &v, 0) == 0, "no kernel for terms no model has");
    r.terms = MODEL1D_TERM_NONLINEAR | MODEL1D_TERM_ADVECTION | MODEL1D_TERM_FORCING;
    EXPECT(cohort_cuda_model1d_step_width(&r, &v, 0) == 0, "ch1d_forced takes the separate path");
    r.terms = MODEL1D_TERM_NONLINEAR;
    v.border = 0;
    EXPECT(cohort_cuda_model1d_step_width(&r, &v, 0) == 0, "a plain system takes the fallback");
    EXPECT(cohort_cuda_model1d_step_path(&r, &v, NULL, NULL, NULL, NULL, NULL, NULL, 1, 0, 1,
                                         COHORT_CUDA_STEP_FUSED,
                                         1024) == COHORT_ERR_INVALID_ARGUMENT,
           "FUSED without a tile is refused");
}
#endif

/* ch1d_forced's steps handing each member's drift to the next (model1d_kernels.step), on a
 * sub-batch of members with their own means and forcing amplitudes; n = 64 and 512 take the cuda
 * warp solve, which sums the result as it stores it, n = 1000 the chunked solve, after which a
 * kernel of its own sums it. */
typedef struct drift_case {
    const cohort_backend *be;
    model1d_stepper *s;
    int64_t n, ld, m0, count;
    double *host;   /* u, then three results */
    double *dev[6]; /* u, three results, means and forcing amplitudes, drifts */
} drift_case;

/* How many values of the sub-batch's members differ in their bits between x and y. */
static int64_t members_differ(const drift_case *c, const double *x, const double *y)
{
    int64_t differ = 0;
    for (int64_t i = 0; i < c->n; ++i)
        for (int64_t m = c->m0; m < c->m0 + c->count; ++m)
            differ += memcmp(&x[i * c->ld + m], &y[i * c->ld + m], sizeof(double)) != 0;
    return differ;
}

/* drift_out is each member's mean of its result, summed in row order (the right-hand side's own
 * sum, so the same bits), and a step given it as drift_in gives the bits of one that sums. */
static void drift_kernel_check(drift_case *c)
{
    const int64_t values = c->n * c->ld, ld = c->ld, m0 = c->m0, count = c->count;
    const model1d_kernels *k = COHORT_KERNELS(c->be, model1d_kernels);
    const model1d_rhs *r = model1d_stepper_rhs(c->s);
    const banded_view *v = model1d_stepper_view(c->s);
    double **dev = c->dev, *mean = dev[4], *f0 = dev[4] + ld, drift[64]; /* ld <= 64 */
    /* out = step(u) with its drift; out2 = step(out) given it; out3 = step(out) summing out */
    int rc = k->step(r, v, dev[0], dev[1], mean, f0, NULL, dev[5], ld, m0, count);
    if (rc == COHORT_OK) rc = k->step(r, v, dev[1], dev[2], mean, f0, dev[5], NULL, ld, m0, count);
    if (rc == COHORT_OK) rc = k->step(r, v, dev[1], dev[3], mean, f0, NULL, NULL, ld, m0, count);
    if (rc == COHORT_OK) rc = c->be->synchronize();
    for (int j = 1; j < 4 && rc == COHORT_OK; ++j)
        rc = c->be->copy_to_host(c->host + j * values, dev[j], (size_t)values * sizeof(double));
    if (rc == COHORT_OK) rc = c->be->copy_to_host(drift, dev[5], (size_t)ld * sizeof(double));
    EXPECT(rc == COHORT_OK, "drift n=%lld steps: %s", (long long)c->n, cohort_error_detail());
    if (rc != COHORT_OK) return;
    int64_t drifts_differ = 0;
    for (int64_t m = m0; m < m0 + count; ++m) {
        double sum = 0.0;
        for (int64_t i = 0; i < c->n; ++i) sum += c->host[values + i * ld + m];
        const double want = sum / (double)c->n;
        drifts_differ += memcmp(&want, &drift[m], sizeof want) != 0;
    }
    EXPECT(drifts_differ == 0, "n=%lld: %lld of %lld drifts handed on are not the result's mean",
           (long long)c->n, (long long)drifts_differ, (long long)count);
    const int64_t differ = members_differ(c, c->host + 2 * values, c->host + 3 * values);
    EXPECT(differ == 0, "n=%lld: a step given the drift differs in %lld of %lld values",
           (long long)c->n, (long long)differ, (long long)(c->n * count));
}

/* model1d_advance of several steps, which hands the drift on where the kernels can (and says so:
 * ch1d_forced's flow map, N = 512 on cuda; there in parts, an even or odd count of steps), gives
 * the bits of as many model1d_step calls. */
static void drift_advance_check(drift_case *c, int steps)
{
    const int64_t values = c->n * c->ld;
    const size_t bytes = (size_t)values * sizeof(double);
    double **dev = c->dev, *mean = dev[4], *f0 = dev[4] + c->ld;
    double *state = dev[1], *scratch = dev[2], *chained = dev[3], *chained_scratch = dev[0];
    int rc = c->be->copy_to_device(state, c->host, bytes);
    for (int j = 0; j < steps && rc == COHORT_OK; ++j)
        rc = model1d_step(c->s, &state, &scratch, mean, f0, c->ld, c->m0, c->count);
    if (rc == COHORT_OK) rc = c->be->copy_to_device(chained, c->host, bytes);
    if (rc == COHORT_OK)
        rc = model1d_advance(c->s, &chained, &chained_scratch, mean, f0, c->ld, c->m0, c->count,
                             steps);
    if (rc == COHORT_OK) rc = c->be->synchronize();
    if (rc == COHORT_OK) rc = c->be->copy_to_host(c->host + values, state, bytes);
    if (rc == COHORT_OK) rc = c->be->copy_to_host(c->host + 2 * values, chained, bytes);
    EXPECT(rc == COHORT_OK, "drift n=%lld advance: %s", (long long)c->n, cohort_error_detail());
    if (rc != COHORT_OK) return;
    const int64_t differ = members_differ(c, c->host + values, c->host + 2 * values);
    EXPECT(differ == 0, "n=%lld: %d steps in one advance differ from %d steps in %lld values",
           (long long)c->n, steps, steps, (long long)differ);
    /* on cuda the warp solve forms a tile up to n = 576 and sums as it stores */
    const int64_t per_call = model1d_steps_a_call(c->s);
    const int64_t want =
        c->be->kind == COHORT_BACKEND_CUDA && c->n <= 576 ? MODEL1D_DRIFT_STEPS : 1;
    EXPECT(per_call == want, "n=%lld: %lld steps a call on %s, not %lld", (long long)c->n,
           (long long)per_call, c->be->kind == COHORT_BACKEND_CUDA ? "cuda" : "cpu",
           (long long)want);
    /* and there its steps go in parts (the advance above took them) */
    const model1d_kernels *k = COHORT_KERNELS(c->be, model1d_kernels);
    const int in_parts = k->advances_in_parts && k->advances_in_parts(model1d_stepper_rhs(c->s),
                                                                      model1d_stepper_view(c->s));
    EXPECT(in_parts == (want > 1), "n=%lld: steps in parts on %s: %d", (long long)c->n,
           c->be->kind == COHORT_BACKEND_CUDA ? "cuda" : "cpu", in_parts);
}

static void drift_handing_case(const cohort_backend *be, gsl_rng *rng, int64_t n)
{
    enum { LD = 45 };
    drift_case c = {.be = be, .n = n, .ld = LD, .m0 = 2, .count = 41};
    const int64_t values = n * c.ld;
    const model1d_params p = {.kind = MODEL1D_CAHN_HILLIARD_FORCED,
                              .n = n,
                              .length = 2.0 * M_PI,
                              .dt = 0.1 * 2.0 * M_PI / (double)n,
                              .gamma = 0.01,
                              .f0 = 1.0,
                              .k = 1.0,
                              .v = -0.5};
    c.host = malloc(4 * (size_t)values * sizeof(double));
    int rc = c.host ? model1d_stepper_alloc(be, &p, &c.s) : COHORT_ERR_NO_MEMORY;
    for (int k = 0; k < 6 && rc == COHORT_OK; ++k)
        rc = be->alloc((void **)&c.dev[k], (size_t)(k < 4 ? values : 2 * c.ld) * sizeof(double));
    if (rc == COHORT_OK) {
        double means[2 * LD];
        for (int64_t k = 0; k < values; ++k) c.host[k] = gsl_rng_uniform(rng) - 0.5;
        for (int64_t m = 0; m < c.ld; ++m) means[m] = 0.4 * gsl_rng_uniform(rng) - 0.2;
        for (int64_t m = 0; m < c.ld; ++m) means[c.ld + m] = 2.0 * gsl_rng_uniform(rng) - 1.0;
        rc = be->copy_to_device(c.dev[0], c.host, (size_t)values * sizeof(double));
        if (rc == COHORT_OK) rc = be->copy_to_device(c.dev[4], means, sizeof means);
    }
    EXPECT(rc == COHORT_OK, "drift n=%lld set-up: %s", (long long)n, cohort_error_detail());
    if (rc == COHORT_OK) drift_kernel_check(&c);
    for (int steps = 4; steps <= 5 && rc == COHORT_OK; ++steps) drift_advance_check(&c, steps);
    for (int k = 0; k < 6; ++k) be->release(c.dev[k]);
    free(c.host);
    model1d_stepper_free(c.s);
}

/* Members [0, m) of a batch from u0 (host), `steps` steps of s (model1d_advance, 7 a call) with
 * each member's f0; the result into out (host). */
static int step_members(const cohort_backend *be, const model1d_stepper *s, const double *u0,
                        const double *mean, const double *f0, int64_t n, int64_t m, int steps,
                        double *out)
{
    const size_t bytes = (size_t)(n * m) * sizeof(double);
    double *dev[4] = {NULL, NULL, NULL, NULL}; /* state, scratch, mean, f0 */
    int rc = COHORT_OK;
    for (int k = 0; k < 4 && rc == COHORT_OK; ++k)
        rc = be->alloc((void **)&dev[k], k < 2 ? bytes : (size_t)m * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dev[0], u0, bytes);
    if (rc == COHORT_OK) rc = be->copy_to_device(dev[2], mean, (size_t)m * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dev[3], f0, (size_t)m * sizeof(double));
    for (int done = 0; rc == COHORT_OK && done < steps; done += 7)
        rc = model1d_advance(s, &dev[0], &dev[1], dev[2], dev[3], m, 0, m,
                             steps - done < 7 ? steps - done : 7);
    if (rc == COHORT_OK) rc = be->synchronize();
    if (rc == COHORT_OK) rc = be->copy_to_host(out, dev[0], bytes);
    for (int k = 0; k < 4; ++k)
        if (dev[k]) be->release(dev[k]);
    return rc;
}

/* ch1d and ch1d_forced with each member's own gamma (model1d_stepper_members): every member ends
 * bit for bit where a stepper of its gamma alone takes it, from random states, means, f0 and
 * gamma in [0.005, 0.02]; on cuda also bit for bit the cpu backend's. */
static void member_gamma_case(const cohort_backend *be, gsl_rng *rng, model1d_kind kind, int64_t n)
{
    enum { M = 37, STEPS = 60 };
    const double length = 2.0 * M_PI, dx = length / (double)n;
    model1d_params p = {.kind = kind,
                        .n = n,
                        .length = length,
                        .dt = 0.1 * dx,
                        .gamma = 0.01,
                        .f0 = 0.5,
                        .k = 1.0,
                        .v = 0.5};
    double *u0 = malloc((size_t)(n * M) * sizeof(double)), *got = malloc(n * M * sizeof(double));
    double *alone = malloc((size_t)n * sizeof(double)), *col = malloc((size_t)n * sizeof(double));
    double mean[M], f0[M], gamma[M];
    for (int64_t m = 0; m < M; ++m) {
        mean[m] = 0.6 * gsl_rng_uniform(rng) - 0.3;
        f0[m] = 2.0 * gsl_rng_uniform(rng);
        gamma[m] = 0.005 * pow(4.0, gsl_rng_uniform(rng));
    }
    for (int64_t v = 0; v < n * M; ++v) u0[v] = 0.1 * (2.0 * gsl_rng_uniform(rng) - 1.0);
    model1d_stepper *s = NULL;
    int rc = model1d_stepper_alloc(be, &p, &s);
    if (rc == COHORT_OK) rc = model1d_stepper_members(s, gamma, M);
    if (rc == COHORT_OK) rc = step_members(be, s, u0, mean, f0, n, M, STEPS, got);
    EXPECT(rc == COHORT_OK && model1d_member_bytes(&p) > 0.0, "kind %d n = %lld: %s", (int)kind,
           (long long)n, cohort_error_detail());
    model1d_stepper_free(s);
    int64_t differ = 0;
    for (int64_t m = 0; rc == COHORT_OK && m < M; ++m) {
        model1d_params q = p;
        q.gamma = gamma[m];
        model1d_stepper *one = NULL;
        for (int64_t i = 0; i < n; ++i) col[i] = u0[i * M + m];
        rc = model1d_stepper_alloc(be, &q, &one);
        if (rc == COHORT_OK) rc = step_members(be, one, col, &mean[m], &f0[m], n, 1, STEPS, alone);
        model1d_stepper_free(one);
        for (int64_t i = 0; rc == COHORT_OK && i < n; ++i)
            differ += memcmp(&alone[i], &got[i * M + m], sizeof(double)) != 0;
    }
    EXPECT(rc == COHORT_OK && differ == 0,
           "kind %d n = %lld: %lld values differ from steppers of each gamma alone (%s)", (int)kind,
           (long long)n, (long long)differ, cohort_error_detail());
    const cohort_backend *cpu = NULL;
    if (rc == COHORT_OK && be->kind != COHORT_BACKEND_CPU && cohort_backend_get("cpu", &cpu) == 0) {
        double *ref = malloc((size_t)(n * M) * sizeof(double));
        rc = model1d_stepper_alloc(cpu, &p, &s);
        if (rc == COHORT_OK) rc = model1d_stepper_members(s, gamma, M);
        if (rc == COHORT_OK) rc = step_members(cpu, s, u0, mean, f0, n, M, STEPS, ref);
        model1d_stepper_free(s);
        EXPECT(rc == COHORT_OK && !memcmp(ref, got, (size_t)(n * M) * sizeof(double)),
               "kind %d n = %lld: cuda's members differ from cpu's", (int)kind, (long long)n);
        free(ref);
    }
    free(u0), free(got), free(alone), free(col);
}

/* What a factor a member refuses: a kind without gamma, a gamma <= 0, a system too long. */
static void member_gamma_refusals(const cohort_backend *be)
{
    model1d_params p = {.kind = MODEL1D_HYPERDIFFUSION,
                        .n = 64,
                        .length = 1.0,
                        .dt = 1e-3,
                        .alpha = 1.0,
                        .gamma = 0.01};
    model1d_stepper *s = NULL;
    const double gamma[2] = {0.01, -1.0};
    EXPECT(model1d_stepper_alloc(be, &p, &s) == COHORT_OK &&
               model1d_stepper_members(s, gamma, 1) == COHORT_ERR_INVALID_ARGUMENT &&
               model1d_member_bytes(&p) == 0.0,
           "hyperdiffusion1d has no gamma");
    model1d_stepper_free(s);
    p.kind = MODEL1D_CAHN_HILLIARD;
    EXPECT(model1d_stepper_alloc(be, &p, &s) == COHORT_OK &&
               model1d_stepper_members(s, gamma, 2) == COHORT_ERR_INVALID_ARGUMENT &&
               strstr(cohort_error_detail(), "member 1: gamma = -1"),
           "gamma = -1: %s", cohort_error_detail());
    model1d_stepper_free(s);
    /* a member's factor: 7 values a row of the n - 2 band rows (5 of the LU, 2 of the spike) and
     * 12 of the border blocks, as docs/design.md states the cost */
    p.n = 64;
    EXPECT(model1d_member_bytes(&p) == 8.0 * (7 * 62 + 12), "n = 64: %g bytes a member",
           model1d_member_bytes(&p));
    p.n = 577; /* periodic penta of 577 rows, one past the largest that fits (576, tested above):
                * the chunked form */
    EXPECT(model1d_member_bytes(&p) == 0.0, "n = 577: %g bytes", model1d_member_bytes(&p));
    EXPECT(model1d_stepper_alloc(be, &p, &s) == COHORT_OK && model1d_member_bytes(&p) == 0.0 &&
               model1d_stepper_members(s, gamma, 1) == COHORT_ERR_INVALID_ARGUMENT,
           "n = 577: %s", cohort_error_detail());
    model1d_stepper_free(s);
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
    weno_checks(rng);
    sweep_checks(rng);
    forced_stability_limit();
    cahn_hilliard_case(be, rng, MODEL1D_CAHN_HILLIARD);
    cahn_hilliard_case(be, rng, MODEL1D_CAHN_HILLIARD_FORCED);
    static const int64_t member_sizes[] = {7, 64, 256, 576};
    for (size_t i = 0; i < sizeof member_sizes / sizeof member_sizes[0]; ++i) {
        member_gamma_case(be, rng, MODEL1D_CAHN_HILLIARD, member_sizes[i]);
        member_gamma_case(be, rng, MODEL1D_CAHN_HILLIARD_FORCED, member_sizes[i]);
    }
    member_gamma_refusals(be);
    static const int64_t drift_sizes[] = {64, 512, 1000};
    for (size_t i = 0; i < sizeof drift_sizes / sizeof drift_sizes[0]; ++i)
        drift_handing_case(be, rng, drift_sizes[i]);
#ifdef COHORT_HAVE_CUDA
    if (be->kind == COHORT_BACKEND_CUDA) {
        step_paths_limits();
        static const int64_t path_sizes[] = {7, 8, 31, 256, 257, 555};
        /* the (half-bandwidth, terms) of the models for which the fused kernel is built, and
         * ch1d_forced's, which steps by the separate kernels */
        static const struct {
            int h;
            unsigned terms;
        } variants[] = {{1, MODEL1D_TERM_STENCIL},
                        {2, MODEL1D_TERM_STENCIL},
                        {2, MODEL1D_TERM_NONLINEAR},
                        {2, MODEL1D_TERM_STENCIL | MODEL1D_TERM_NONLINEAR | MODEL1D_TERM_ADVECTION |
                                MODEL1D_TERM_FORCING}};
        for (size_t i = 0; i < sizeof path_sizes / sizeof path_sizes[0]; ++i)
            for (size_t k = 0; k < sizeof variants / sizeof variants[0]; ++k)
                for (int with_mean = 0; with_mean <= 1; ++with_mean)
                    step_paths_case(be, rng, variants[k].h, variants[k].terms, path_sizes[i],
                                    with_mean);
    }
#endif
    gsl_rng_free(rng);
    return test_summary();
}
