#include "models/swept1d/swept1d.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"

typedef struct swept1d_stepper {
    const cohort_backend *be;
    const swept1d_kernels *k;
    swept1d_scheme scheme;
    int swept;     /* time.stepper = swept */
    int64_t width; /* time.block_width (0: auto) */
    int *reached;  /* the swept rule's tier per point and a counter (backend memory, n + 1) */
    /* heat1d's exact solution: the initial kind, mode, alpha, the rod, and the members' amplitude
     * and mean as filled (host) */
    int ramp;
    double mode, alpha, length, amplitude;
    double *member_amplitude, *member_mean, *host_u, *exact;
    int64_t ld;
} swept1d_stepper;

swept1d_scheme swept1d_scheme_make(int ks, int64_t n, double dx, double dt, double alpha)
{
    swept1d_scheme s = {.n = n, .ks = ks, .radius = ks ? 2 : 1, .tiers_per_step = ks ? 2 : 1};
    s.dt = dt, s.half_dt = 0.5 * dt;
    if (!ks) {
        s.fo = alpha * dt / (dx * dx);
        s.one_minus_2fo = 1.0 - 2.0 * s.fo;
        return s;
    }
    const double c2 = 1.0 / (dx * dx);
    s.c1 = 0.25 / dx;
    s.c4 = c2 * c2;
    s.k1 = c2 - 4.0 * s.c4;
    s.k2 = 6.0 * s.c4 - 2.0 * c2;
    return s;
}

/* heat1d's grid.n counts cells of the rod (n + 1 nodes); ks1d's, periodic points */
static double grid_dx(const cohort_model_values *v)
{
    return v->length / (double)v->nx;
}

static int is_ks(const cohort_model_values *v)
{
    return v->boundary == COHORT_BOUNDARY_PERIODIC;
}

/* The KS limit 2 / (16/dx^4 - 4/dx^2) (swept1d.h); where dx^2 >= 4 the linear terms damp no mode
 * and do not limit dt (INFINITY). */
static double ks_linear_limit(double dx)
{
    const double c2 = 1.0 / (dx * dx), lambda = 16.0 * c2 * c2 - 4.0 * c2;
    return lambda > 0.0 ? 2.0 / lambda : INFINITY;
}

double swept1d_dt_auto(const cohort_model_values *v)
{
    const double dx = grid_dx(v);
    if (!is_ks(v)) return 0.4 * dx * dx / v->param[0];
    /* a grid too coarse for the linear limit to bind: 0.1 dx^2, bounded like heat */
    const double limit = ks_linear_limit(dx);
    return isfinite(limit) ? 0.5 * limit : 0.1 * dx * dx;
}

double swept1d_dt_limit(const cohort_model *m, const cohort_model_values *v, double mean)
{
    (void)m, (void)mean;
    const double dx = grid_dx(v);
    return is_ks(v) ? ks_linear_limit(dx) : 0.5 * dx * dx / v->param[0];
}

int swept1d_check(const cohort_model *m, const cohort_model_values *v, const char **key, char *why,
                  size_t len)
{
    (void)m;
    const double dx = grid_dx(v);
    if (!is_ks(v)) {
        const double fo = v->param[0] * v->dt / (dx * dx);
        if (!(fo <= 0.5)) {
            *key = "time.dt";
            snprintf(why, len,
                     "the Fourier number Fo = alpha dt / dx^2 = %g (alpha = %g, dx = L / grid.n = "
                     "%g) exceeds 1/2, the stability bound of eq. 2: take time.dt <= %.17g, or "
                     "time.dt = auto (Fo = 0.4)",
                     fo, v->param[0], dx, 0.5 * dx * dx / v->param[0]);
            return 2;
        }
    }
    const int64_t n = is_ks(v) ? v->nx : v->nx + 1;
    if (v->block_width > 1024 && v->block_width < n) {
        *key = "time.block_width";
        snprintf(why, len,
                 "a tile of the swept rule is one block, one thread per point, so at most 1024 "
                 "points; a width above that must hold the whole member of %lld points (it then "
                 "stays on chip where a block's shared memory holds its two rows, else takes "
                 "tiles, with the same bits)",
                 (long long)n);
        return 2;
    }
    return COHORT_OK;
}

int swept1d_stepper_alloc(int ks, const cohort_model *m, const cohort_backend *be,
                          const cohort_model_values *v, void **stepper)
{
    (void)m;
    swept1d_stepper *s = calloc(1, sizeof *s);
    if (!s) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "swept1d stepper");
    const int64_t n = ks ? v->nx : v->nx + 1;
    s->be = be, s->k = COHORT_KERNELS(be, swept1d_kernels);
    s->scheme = swept1d_scheme_make(ks, n, grid_dx(v), v->dt, ks ? 0.0 : v->param[0]);
    s->swept = v->stepper == COHORT_STEPPER_SWEPT && s->k->swept;
    s->width = v->block_width;
    s->ramp = v->initial_kind && !strcmp(v->initial_kind, "ramp");
    s->mode = (double)v->mode, s->alpha = ks ? 0.0 : v->param[0];
    s->length = v->length, s->amplitude = v->amplitude;
    const int rc =
        s->swept ? be->alloc((void **)&s->reached, (size_t)(n + 1) * sizeof(int)) : COHORT_OK;
    if (rc != COHORT_OK) {
        free(s);
        return rc;
    }
    *stepper = s;
    return COHORT_OK;
}

static void release_buffers(swept1d_stepper *s)
{
    free(s->member_amplitude), free(s->member_mean), free(s->host_u), free(s->exact);
    s->member_amplitude = s->member_mean = s->host_u = s->exact = NULL;
    s->ld = 0;
}

void swept1d_stepper_free(void *stepper)
{
    swept1d_stepper *s = stepper;
    if (!s) return;
    release_buffers(s);
    s->be->release(s->reached);
    free(s);
}

/* host buffers for chunks of ld members: a copy of the state, the exact solution, and the
 * members' amplitudes and means */
static int ensure_buffers(swept1d_stepper *s, int64_t ld)
{
    if (s->ld == ld) return COHORT_OK;
    release_buffers(s);
    const size_t n = (size_t)s->scheme.n;
    s->host_u = malloc(n * (size_t)ld * sizeof(double));
    s->exact = malloc(n * sizeof(double));
    s->member_amplitude = malloc((size_t)ld * sizeof(double));
    s->member_mean = malloc((size_t)ld * sizeof(double));
    if (!s->host_u || !s->exact || !s->member_amplitude || !s->member_mean) {
        release_buffers(s);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "host copies of %lld members of %lld points",
                           (long long)ld, (long long)n);
    }
    s->ld = ld;
    return COHORT_OK;
}

static int swept1d_advance(void *stepper, cohort_model_state *st, int64_t step, int64_t steps)
{
    (void)step;
    swept1d_stepper *s = stepper;
    if (steps <= 0) return COHORT_OK;
    double *const rows[2] = {st->u + st->m0, st->scratch + st->m0};
    const int64_t tiers = steps * s->scheme.tiers_per_step;
    const int64_t width =
        s->width ? s->width : swept1d_auto_width(s->be, s->scheme.ks, s->scheme.n, st->count);
    COHORT_CALL(s->swept
                    ? s->k->swept(&s->scheme, rows, s->reached, tiers, width, st->ld, st->count)
                    : s->k->classic(&s->scheme, rows, tiers, width, st->ld, st->count));
    if (tiers & 1) { /* the last tier is in the second row */
        double *t = st->u;
        st->u = st->scratch, st->scratch = t;
    }
    return COHORT_OK;
}

static int swept1d_step(void *stepper, cohort_model_state *s, int64_t step)
{
    return swept1d_advance(stepper, s, step, 1);
}

/* The insulated rod's exact solution, as a multiple of the amplitude, at xi = x / L in [0, 1]:
 * T_t = alpha T_xx with T_x = 0 at both ends is solved by the cosine series of the initial state.
 * cosine: cos(mode pi xi), decaying as exp(-alpha (mode pi / L)^2 t).
 * ramp (the rod "with an initial temperature gradient" of seed 001, IV.A): 2 xi - 1 =
 *   -sum_{k odd} 8 / (k pi)^2 cos(k pi xi), each term decaying as exp(-alpha (k pi / L)^2 t).
 * The series converges slowly while t is small, so there the even 2-periodic extension of the
 * ramp, the triangle wave -1 + 2 sum_j (-1)^j |xi - j| (kinks at the integers), is smoothed by the
 * heat kernel of variance s^2 = 2 alpha t / L^2 instead: a kink |d| becomes E|d + s Z| = |d| +
 * phi(d), phi(d) = s sqrt(2/pi) exp(-d^2 / 2 s^2) - |d| erfc(|d| / (s sqrt 2)), which is below
 * 1e-40 beyond |d| = 13.5 s, so only the kinks at -1, 0, 1, 2 count while s <= 0.07. */
double heat1d_exact(int ramp, double mode, double alpha, double length, double xi, double t)
{
    const double pi = 3.14159265358979323846, tau = alpha * t / (length * length);
    if (!ramp) return cos(mode * pi * xi) * exp(-mode * mode * pi * pi * tau);
    if (t <= 0.0) return 2.0 * xi - 1.0;
    const double s = sqrt(2.0 * tau);
    if (s <= 0.07) {
        double value = 2.0 * xi - 1.0;
        for (int j = -1; j <= 2; ++j) {
            const double d = fabs(xi - j);
            const double phi =
                s * sqrt(2.0 / pi) * exp(-d * d / (2.0 * s * s)) - d * erfc(d / (s * sqrt(2.0)));
            value += (j & 1 ? -2.0 : 2.0) * phi;
        }
        return value;
    }
    /* s > 0.07: the k-th term is below 1e-19 once k^2 pi^2 tau > 44 (k > 43) */
    double value = 0.0;
    for (int k = 1; k <= 45; k += 2)
        value -= 8.0 / (k * k * pi * pi) * cos(k * pi * xi) * exp(-(double)k * k * pi * pi * tau);
    return value;
}

/* heat1d's own initial kinds: mean + amplitude times the ramp or the cosine on the rod's nodes */
int swept1d_initial_fill(void *stepper, double *u, const double *amplitude, const double *mean,
                         int64_t ld, int64_t count)
{
    swept1d_stepper *s = stepper;
    COHORT_CALL(ensure_buffers(s, ld));
    const int64_t n = s->scheme.n;
    COHORT_CALL(s->be->copy_to_host(s->member_mean, mean, (size_t)count * sizeof(double)));
    if (amplitude)
        COHORT_CALL(
            s->be->copy_to_host(s->member_amplitude, amplitude, (size_t)count * sizeof(double)));
    else
        for (int64_t m = 0; m < count; ++m) s->member_amplitude[m] = s->amplitude;
    for (int64_t i = 0; i < n; ++i)
        s->exact[i] =
            heat1d_exact(s->ramp, s->mode, s->alpha, s->length, (double)i / (double)(n - 1), 0.0);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t m = 0; m < ld; ++m)
            s->host_u[i * ld + m] =
                m < count ? s->member_mean[m] + s->member_amplitude[m] * s->exact[i] : 0.0;
    return s->be->copy_to_device(u, s->host_u, (size_t)(n * ld) * sizeof(double));
}

/* ks1d: the energy 1/2 <u^2> (the mean over the periodic points). heat1d: the L2 error at t,
 * sqrt(sum_i w_i e_i^2 dx) with the trapezoid weights w (1/2 at the ends), then the error sums of
 * models/model.h over the rod: sum w_i |e_i| dx, sum w_i e_i^2 dx, max |e_i|. */
int swept1d_observe(void *stepper, const double *u, double t, double *values, int64_t ld,
                    int64_t count)
{
    swept1d_stepper *s = stepper;
    COHORT_CALL(ensure_buffers(s, ld));
    const int64_t n = s->scheme.n;
    COHORT_CALL(s->be->synchronize());
    COHORT_CALL(s->be->copy_to_host(s->host_u, u, (size_t)(n * ld) * sizeof(double)));
    if (s->scheme.ks) {
        for (int64_t m = 0; m < count; ++m) {
            double sum = 0.0;
            for (int64_t i = 0; i < n; ++i) sum += s->host_u[i * ld + m] * s->host_u[i * ld + m];
            values[m] = 0.5 * sum / (double)n;
        }
        return COHORT_OK;
    }
    const double dx = s->length / (double)(n - 1);
    for (int64_t i = 0; i < n; ++i)
        s->exact[i] =
            heat1d_exact(s->ramp, s->mode, s->alpha, s->length, (double)i / (double)(n - 1), t);
    for (int64_t m = 0; m < count; ++m) {
        double l1 = 0.0, l2 = 0.0, linf = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            const double w = (i == 0 || i == n - 1) ? 0.5 * dx : dx;
            const double e =
                s->host_u[i * ld + m] - (s->member_mean[m] + s->member_amplitude[m] * s->exact[i]);
            l1 += w * fabs(e), l2 += w * e * e;
            linf = fabs(e) > linf || e != e ? fabs(e) : linf;
        }
        values[m] = sqrt(l2);
        values[count + m] = l1, values[2 * count + m] = l2, values[3 * count + m] = linf;
    }
    return COHORT_OK;
}

int64_t swept1d_auto_width(const cohort_backend *be, int ks, int64_t n, int64_t count)
{
    (void)ks;
    if (be->kind != COHORT_BACKEND_CUDA) return n;
    /* a member that fits on chip stays there, one warp or block each, where the members fill the
     * device; otherwise tiles */
    if (n <= 4096 && count >= 64) return n;
    return swept1d_tile_width(n);
}

const cohort_model_stepping swept1d_stepping = {
    .step = swept1d_step,
    .time_levels = 1,
    .evolves_deviation = 0,
    .steppers = "swept|classic",
};

const cohort_model_on_chip swept1d_on_chip = {
    .advance = swept1d_advance,
};
