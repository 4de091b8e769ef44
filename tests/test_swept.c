/* The explicit 1D models of seed 001 (heat1d, ks1d; models/swept1d), through the registry:
 *   (a) heat1d: a cosine mode of the insulated rod, cos(k pi i / (N - 1)), is an eigenvector of
 *       eq. 2 with the mirror ends; after S steps it is g^S times itself, g = 1 - 4 Fo sin^2(k pi
 *       / (2 (N - 1))), to 1e-12, for odd and even N, with either stepper;
 *   (a') heat1d's exact ramp solution (images for small t, the series for large t) against the
 *       cosine series summed directly, and the scheme's L2 error against it falling 4x when dx
 *       halves (through the model's initial_fill, advance and observe);
 *   (b) heat1d refuses Fo > 1/2 naming time.dt; a tile of more than 1024 points that is not a
 *       whole member is refused;
 *   (c) ks1d: the scheme's right-hand side against spectral derivatives (GSL's FFT) of the smooth
 *       periodic u = exp(sin x): the error falls 4x when dx halves (second order);
 *   (d) ks1d: the energy 1/2 <u^2> of a long chaotic run (L = 64) stays finite and bounded;
 *   (e) time.stepper = swept gives the bits of time.stepper = classic, and the cpu backend's bits,
 *       for N in {97, 1000, 2048, 4099, 8000, 65537}, tile widths from 32 points to a whole
 *       member, one member and a batch (leading dimension above the count), both models: the
 *       windows straddling the periodic seam, the mirrored ends, the tiles of unequal widths; a
 *       whole member whose two rows exceed a block's shared memory (N = 65537; N = 8000 under
 *       test_swept_small_shared_cuda's 99 KB) in tiles. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fft_complex.h>
#include <math.h>
#include <stdint.h>

#include "models/model.h"
#include "models/swept1d/swept1d.h"
#include "test_common.h"

static const double pi = 3.14159265358979323846;

typedef struct run {
    const cohort_model *m;
    cohort_model_values v;
    int64_t n; /* points per member */
} run;

static run run_make(const char *model, int64_t points, double length, double dt)
{
    run r;
    memset(&r, 0, sizeof r);
    r.m = cohort_model_find(model), r.n = points;
    const int ks = !strcmp(model, "ks1d");
    r.v.param[0] = 1.0; /* heat's alpha */
    r.v.nx = ks ? points : points - 1;
    r.v.ny = 1;
    r.v.length = length;
    r.v.boundary = ks ? COHORT_BOUNDARY_PERIODIC : COHORT_BOUNDARY_NEUMANN;
    r.v.initial_kind = ks ? "uniform" : "cosine";
    r.v.dt = dt > 0.0 ? dt : r.m->defaults->dt_auto(&r.v);
    return r;
}

/* Advances count members (host, interleaved with leading dimension ld) by `steps` steps on be with
 * the given stepper and tile width; the result replaces u. */
static int advance(const cohort_backend *be, const run *r, cohort_stepper_kind stepper,
                   int64_t width, double *u, int64_t ld, int64_t count, int64_t steps)
{
    cohort_model_values v = r->v;
    v.stepper = stepper, v.block_width = width;
    void *stp = NULL;
    double *d_u = NULL, *d_scratch = NULL;
    const size_t bytes = (size_t)(r->n * ld) * sizeof(double);
    int rc = r->m->stepper_alloc(r->m, be, &v, &stp);
    if (rc == COHORT_OK) rc = be->alloc((void **)&d_u, bytes);
    if (rc == COHORT_OK) rc = be->alloc((void **)&d_scratch, bytes);
    if (rc == COHORT_OK) rc = be->copy_to_device(d_u, u, bytes);
    /* the second row starts as garbage that no tier may read */
    if (rc == COHORT_OK) rc = be->fill(d_scratch, NAN, (size_t)(r->n * ld));
    cohort_model_state s = {d_u, NULL, d_scratch, NULL, NULL, ld, 0, count};
    if (rc == COHORT_OK) rc = r->m->on_chip->advance(stp, &s, 0, steps);
    if (rc == COHORT_OK) rc = be->synchronize();
    if (rc == COHORT_OK) rc = be->copy_to_host(u, s.u, bytes);
    be->release(s.u), be->release(s.scratch);
    if (stp) r->m->stepper_free(stp);
    return rc;
}

static void heat_amplification(const cohort_backend *be, int64_t N, int k, int64_t steps,
                               cohort_stepper_kind stepper, int64_t width)
{
    run r = run_make("heat1d", N, 1.0, 0.0);
    const double fo = r.v.dt * (N - 1) * (N - 1), s = sin(k * pi / (2.0 * (N - 1)));
    const double g = pow(1.0 - 4.0 * fo * s * s, (double)steps);
    double *u = malloc((size_t)N * sizeof *u);
    for (int64_t i = 0; i < N; ++i) u[i] = cos(k * pi * (double)i / (double)(N - 1));
    const int rc = advance(be, &r, stepper, width, u, 1, 1, steps);
    EXPECT(rc == COHORT_OK, "%s", cohort_error_detail());
    double worst = 0.0;
    for (int64_t i = 0; i < N; ++i)
        worst = fmax(worst, fabs(u[i] - g * cos(k * pi * (double)i / (double)(N - 1))));
    EXPECT(worst <= 1e-12,
           "N = %lld, mode %d, %lld steps of Fo = %g, stepper %d, width %lld: "
           "max |T - g^S cos| = %.3g (g^S = %.6g)",
           (long long)N, k, (long long)steps, fo, (int)stepper, (long long)width, worst, g);
    free(u);
}

/* heat1d's exact ramp solution: the image sum (small t) and the series (large t) against the
 * cosine series summed directly to 20,000 terms, on both sides of the switch (s = 0.07) */
static void heat_exact_solution(void)
{
    const double taus[] = {1e-4, 0.002, 0.0024, 0.0026, 0.01, 0.2};
    for (size_t j = 0; j < sizeof taus / sizeof taus[0]; ++j) {
        double worst = 0.0;
        for (int i = 0; i <= 40; ++i) {
            const double xi = i / 40.0;
            double series = 0.0;
            for (int k = 1; k <= 40000; k += 2)
                series -= 8.0 / (k * k * pi * pi) * cos(k * pi * xi) *
                          exp(-(double)k * k * pi * pi * taus[j]);
            /* alpha = 2, L = 3: tau = alpha t / L^2 */
            worst =
                fmax(worst, fabs(heat1d_exact(1, 0.0, 2.0, 3.0, xi, taus[j] * 9.0 / 2.0) - series));
        }
        /* the direct sum's own truncation is below 8 / (pi^2 40000) = 2e-5 only at tau = 0 */
        const double truncation =
            8.0 / (pi * pi * 40000.0) * exp(-40000.0 * 40000.0 * pi * pi * taus[j]);
        EXPECT(worst <= 1e-13 + truncation,
               "ramp at tau = alpha t / L^2 = %g: max |exact - series| "
               "= %.3g",
               taus[j], worst);
    }
    /* the cosine: one decaying mode */
    const double c = heat1d_exact(0, 3.0, 0.5, 2.0, 0.25, 0.1);
    EXPECT(fabs(c - cos(0.75 * pi) * exp(-0.5 * 9.0 * pi * pi / 4.0 * 0.1)) < 1e-15,
           "cosine mode 3: %.17g", c);
}

/* the scheme converges to it at second order: the L2 error at t = 0.02 through the model's own
 * observe (ramp, Fo = 0.4 so that dt falls with dx^2), 32 -> 64 -> 128 cells */
static void heat_converges(const cohort_backend *be)
{
    double error[3];
    for (int j = 0; j < 3; ++j) {
        const int64_t cells = 32 << j;
        run r = run_make("heat1d", cells + 1, 1.0, 0.0);
        r.v.initial_kind = "ramp", r.v.amplitude = 1.0;
        const int64_t steps = (int64_t)ceil(0.02 / r.v.dt);
        r.v.dt = 0.02 / (double)steps;
        void *stp = NULL;
        double *u = NULL, *scratch = NULL, *mean = NULL, values[4];
        const double zero = 0.25;
        const size_t bytes = (size_t)(cells + 1) * sizeof(double);
        int rc = r.m->stepper_alloc(r.m, be, &r.v, &stp);
        if (rc == COHORT_OK) rc = be->alloc((void **)&u, bytes);
        if (rc == COHORT_OK) rc = be->alloc((void **)&scratch, bytes);
        if (rc == COHORT_OK) rc = be->alloc((void **)&mean, sizeof(double));
        if (rc == COHORT_OK) rc = be->copy_to_device(mean, &zero, sizeof(double));
        if (rc == COHORT_OK) rc = r.m->initial_fill(stp, u, NULL, mean, 1, 1);
        cohort_model_state st = {u, NULL, scratch, mean, NULL, 1, 0, 1};
        if (rc == COHORT_OK) rc = r.m->on_chip->advance(stp, &st, 0, steps);
        if (rc == COHORT_OK) rc = r.m->observing->observe(stp, st.u, 0.02, values, 1, 1);
        EXPECT(rc == COHORT_OK, "%s", cohort_error_detail());
        error[j] = values[0];
        be->release(st.u), be->release(st.scratch), be->release(mean);
        r.m->stepper_free(stp);
    }
    for (int j = 0; j < 2; ++j)
        EXPECT(error[j] / error[j + 1] > 3.7 && error[j] / error[j + 1] < 4.3,
               "heat1d ramp: L2 error %.3g -> %.3g from %d to %d cells (ratio %.3f, 4 expected)",
               error[j], error[j + 1], 32 << j, 64 << j, error[j] / error[j + 1]);
}

static void refusals(void)
{
    const cohort_model *m = cohort_model_find("heat1d");
    run r = run_make("heat1d", 101, 1.0, 0.0);
    const char *key = NULL;
    char why[512] = "";
    EXPECT(m->check(m, &r.v, &key, why, sizeof why) == 0, "Fo = 0.4 accepted: %s", why);
    r.v.dt = 0.51 / (100.0 * 100.0);
    EXPECT(m->check(m, &r.v, &key, why, sizeof why) == 2 && !strcmp(key, "time.dt") &&
               strstr(why, "1/2"),
           "Fo = 0.51 refused naming time.dt: %s", why);
    r.v.dt = 0.5 / (100.0 * 100.0);
    EXPECT(m->check(m, &r.v, &key, why, sizeof why) == 0, "Fo = 1/2 accepted: %s", why);
    const cohort_model *ks = cohort_model_find("ks1d");
    run q;
    q = run_make("ks1d", 4096, 2048.0, 0.0);
    q.v.block_width = 2000;
    EXPECT(ks->check(ks, &q.v, &key, why, sizeof why) == 2 && !strcmp(key, "time.block_width"),
           "a 2000-point tile of a 4096-point member refused (1024 threads at most): %s", why);
    q.v.block_width = 4096;
    EXPECT(ks->check(ks, &q.v, &key, why, sizeof why) == 0, "a whole member of 4096 on chip: %s",
           why);
}

/* max |(-f)_h - (-f)| over the grid of n points of [0, 2 pi) for u = exp(sin x), -f = u u_x + u_xx
 * + u_xxxx from spectral derivatives */
static double ks_rhs_error(int n)
{
    double *z = calloc((size_t)(2 * n), sizeof *z), *d[5];
    for (int p = 1; p <= 4; ++p) d[p] = calloc((size_t)(2 * n), sizeof(double));
    double *u = malloc((size_t)n * sizeof *u);
    for (int i = 0; i < n; ++i) u[i] = z[2 * i] = exp(sin(2.0 * pi * i / n));
    gsl_fft_complex_radix2_forward(z, 1, (size_t)n);
    for (int p = 1; p <= 4; ++p) {
        for (int j = 0; j < n; ++j) {
            const double kw = j < n / 2 ? j : j == n / 2 ? 0.0 : j - n; /* Nyquist dropped */
            /* (i k)^p times (re, im) */
            double re = z[2 * j], im = z[2 * j + 1];
            for (int q = 0; q < p; ++q) {
                const double t = re;
                re = -kw * im, im = kw * t;
            }
            d[p][2 * j] = re, d[p][2 * j + 1] = im;
        }
        gsl_fft_complex_radix2_inverse(d[p], 1, (size_t)n);
    }
    const swept1d_scheme s = swept1d_scheme_make(1, n, 2.0 * pi / n, 0.0, 0.0);
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
        double v[5];
        for (int k = -2; k <= 2; ++k) v[k + 2] = u[swept1d_neighbor(&s, i, k)];
        const double exact = u[i] * d[1][2 * i] + d[2][2 * i] + d[4][2 * i];
        worst = fmax(worst, fabs(swept1d_ks_minus_f(&s, v) - exact));
    }
    free(z), free(u);
    for (int p = 1; p <= 4; ++p) free(d[p]);
    return worst;
}

static void ks_rhs_order(void)
{
    double e[3];
    for (int j = 0; j < 3; ++j) e[j] = ks_rhs_error(64 << j);
    for (int j = 0; j < 2; ++j)
        EXPECT(e[j] / e[j + 1] > 3.8 && e[j] / e[j + 1] < 4.2,
               "second order: n = %d -> %d, errors %.3g -> %.3g (ratio %.3f)", 64 << j, 128 << j,
               e[j], e[j + 1], e[j] / e[j + 1]);
}

static void ks_energy_bounded(const cohort_backend *be)
{
    run r = run_make("ks1d", 128, 64.0, 0.0);
    double *u = malloc(128 * sizeof *u);
    for (int i = 0; i < 128; ++i) u[i] = 0.1 * sin(2.0 * pi * 3 * i / 128.0) + 0.05 * cos(i);
    double lowest = INFINITY, highest = 0.0;
    const int64_t steps = (int64_t)(50.0 / r.v.dt);
    for (int record = 0; record < 20; ++record) { /* t to 1000 */
        EXPECT(advance(be, &r, COHORT_STEPPER_SWEPT, 0, u, 1, 1, steps) == COHORT_OK, "%s",
               cohort_error_detail());
        double energy = 0.0;
        for (int i = 0; i < 128; ++i) energy += 0.5 * u[i] * u[i] / 128.0;
        if (record >= 4) lowest = fmin(lowest, energy);
        highest = isfinite(energy) ? fmax(highest, energy) : INFINITY;
    }
    EXPECT(highest < 10.0 && lowest > 0.1,
           "KS on L = 64 to t = 1000: energy within [%.3g, %.3g] after t = 250 (chaotic, bounded)",
           lowest, highest);
    free(u);
}

/* (e): fresh random states; classic on the cpu is the reference */
static void steppers_agree(const cohort_backend *be, const char *model, int64_t N, int64_t count,
                           int64_t ld, int64_t steps)
{
    const cohort_backend *cpu = &cohort_backend_cpu;
    run r = run_make(model, N, !strcmp(model, "ks1d") ? 0.5 * (double)N : 1.0, 0.0);
    const size_t values = (size_t)(N * ld);
    double *start = malloc(values * sizeof(double)), *ref = malloc(values * sizeof(double)),
           *got = malloc(values * sizeof(double));
    srand((unsigned)(N * 7 + count));
    for (size_t i = 0; i < values; ++i) start[i] = 2.0 * rand() / (double)RAND_MAX - 1.0;
    memcpy(ref, start, values * sizeof(double));
    EXPECT(advance(cpu, &r, COHORT_STEPPER_CLASSIC, 0, ref, ld, count, steps) == COHORT_OK, "%s",
           cohort_error_detail());
    /* the last: the whole member however long, in tiles where its rows exceed a block */
    const int64_t widths[] = {32, 100, 1024, 8192, INT64_C(1) << 20};
    for (int stepper = 0; stepper < 2; ++stepper)
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; ++w) {
            if (be->kind != COHORT_BACKEND_CUDA && w > 0) break; /* one loop on the cpu */
            if (widths[w] > 1024 && N > widths[w]) continue;     /* tiles hold 1024 at most */
            memcpy(got, start, values * sizeof(double));
            const int rc =
                advance(be, &r, (cohort_stepper_kind)stepper, widths[w], got, ld, count, steps);
            EXPECT(rc == COHORT_OK, "%s", cohort_error_detail());
            int64_t differ = 0, first = -1;
            for (int64_t i = 0; i < N; ++i)
                for (int64_t m = 0; m < count; ++m)
                    if (memcmp(&got[i * ld + m], &ref[i * ld + m], sizeof(double))) {
                        if (first < 0) first = i;
                        ++differ;
                    }
            EXPECT(differ == 0,
                   "%s N = %lld, %lld members (ld %lld), %lld steps, %s width %lld: %lld values "
                   "differ from the cpu's classic bits (first at point %lld: %.17g vs %.17g)",
                   model, (long long)N, (long long)count, (long long)ld, (long long)steps,
                   stepper == COHORT_STEPPER_SWEPT ? "swept" : "classic", (long long)widths[w],
                   (long long)differ, (long long)first, first >= 0 ? got[first * ld] : 0.0,
                   first >= 0 ? ref[first * ld] : 0.0);
        }
    free(start), free(ref), free(got);
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    gsl_set_error_handler_off();
    const int64_t sizes[] = {97, 1000, 2048, 4099, 8000, 65537};
    for (int stepper = 0; stepper < 2; ++stepper) {
        heat_amplification(be, 64, 3, 2000, (cohort_stepper_kind)stepper, 0);
        heat_amplification(be, 65, 5, 2000, (cohort_stepper_kind)stepper, 0);
        heat_amplification(be, 1000, 7, 3000, (cohort_stepper_kind)stepper, 128);
        heat_amplification(be, 1001, 2, 3000, (cohort_stepper_kind)stepper, 96);
    }
    refusals();
    heat_exact_solution();
    heat_converges(be);
    ks_rhs_order();
    ks_energy_bounded(be);
    /* members of 32 P points, on chip one warp each (P = 2 .. 16), and of 1024, one block */
    const int64_t warp_sizes[] = {64, 256, 512, 1024};
    for (size_t j = 0; j < sizeof warp_sizes / sizeof warp_sizes[0]; ++j) {
        steppers_agree(be, "heat1d", warp_sizes[j], 5, 7, 1001);
        steppers_agree(be, "ks1d", warp_sizes[j], 5, 7, 501);
    }
    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; ++j) {
        const int64_t N = sizes[j], steps = N > 10000 ? 400 : 1500;
        steppers_agree(be, "heat1d", N, 1, 1, steps);
        steppers_agree(be, "ks1d", N, 1, 1, steps / 2);
        if (N <= 4099) {
            steppers_agree(be, "heat1d", N, 3, 4, steps);
            steppers_agree(be, "ks1d", N, 3, 4, steps / 2);
        }
    }
    return test_summary();
}
