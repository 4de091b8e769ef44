/* The ch2d stepper (solvers/models/ch2d.h) on one backend:
 *  - against an independent reference: the same semi-discrete equation
 *    dC/dt = D [-gamma lap_h^2 C + lap_h (C^3 - C)] (lap_h the 5-point Laplacian, written here
 *    directly) integrated by classical RK4 with a step far below the ADI's, on a non-square grid;
 *    the ADI error at three steps gives the scheme's observed order in time;
 *  - each member's mean conserved to 1e-12 over hundreds of steps;
 *  - sub-batches (the run's chunks) give bitwise the same fields as the whole batch;
 *  - on cuda, the same steps on the cpu backend give the same bits (one arithmetic).
 * Usage: test_ch2d --backend cpu|cuda (77: no device). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/ch2d/ch2d.h"
#include "test_common.h"

static const double TWO_PI = 6.283185307179586;

/* lap_h u of one field (nx x ny, row-major, periodic) into out. */
static void laplacian(const double *u, int64_t nx, int64_t ny, double dx, double dy, double *out)
{
    for (int64_t j = 0; j < ny; ++j)
        for (int64_t i = 0; i < nx; ++i) {
            const int64_t ip = (i + 1) % nx, im = (i + nx - 1) % nx;
            const int64_t jp = (j + 1) % ny, jm = (j + ny - 1) % ny;
            const double c = u[j * nx + i];
            out[j * nx + i] = (u[j * nx + ip] - 2.0 * c + u[j * nx + im]) / (dx * dx) +
                              (u[jp * nx + i] - 2.0 * c + u[jm * nx + i]) / (dy * dy);
        }
}

/* dC/dt of the semi-discrete equation. */
static void semi_discrete(const ch2d_params *p, const double *u, double *du, double *t1, double *t2)
{
    const int64_t n = p->nx * p->ny;
    const double dx = p->length / (double)p->nx, dy = p->length / (double)p->ny;
    for (int64_t k = 0; k < n; ++k) t1[k] = u[k] * u[k] * u[k] - u[k];
    laplacian(t1, p->nx, p->ny, dx, dy, du); /* lap (C^3 - C) */
    laplacian(u, p->nx, p->ny, dx, dy, t1);
    laplacian(t1, p->nx, p->ny, dx, dy, t2); /* lap^2 C */
    for (int64_t k = 0; k < n; ++k) du[k] = p->D * (du[k] - p->gamma * t2[k]);
}

/* RK4 from u to time t_end in `steps` steps. */
static void rk4(const ch2d_params *p, double *u, double t_end, int steps)
{
    const int64_t n = p->nx * p->ny;
    double *k[4], *y = malloc((size_t)n * sizeof(double)), *t1 = malloc((size_t)n * sizeof(double)),
                  *t2 = malloc((size_t)n * sizeof(double));
    for (int s = 0; s < 4; ++s) k[s] = malloc((size_t)n * sizeof(double));
    const double h = t_end / steps, stage[4] = {0.0, 0.5, 0.5, 1.0};
    for (int step = 0; step < steps; ++step) {
        for (int s = 0; s < 4; ++s) {
            for (int64_t q = 0; q < n; ++q) y[q] = u[q] + (s ? stage[s] * h * k[s - 1][q] : 0.0);
            semi_discrete(p, y, k[s], t1, t2);
        }
        for (int64_t q = 0; q < n; ++q)
            u[q] += h / 6.0 * (k[0][q] + 2.0 * k[1][q] + 2.0 * k[2][q] + k[3][q]);
    }
    for (int s = 0; s < 4; ++s) free(k[s]);
    free(y), free(t1), free(t2);
}

/* `steps` ADI steps (the start-up step, then eq. 2) of the interleaved host fields u (ld
 * members), in sub-batches of `chunk` members; u receives the result. Every sub-batch takes the
 * same number of steps, so its result lies in the same one of the two buffers. */
static int adi(const cohort_backend *be, const ch2d_params *p, double *u, int64_t ld, int steps,
               int64_t chunk)
{
    const size_t values = (size_t)(p->nx * p->ny * ld);
    double *cur = NULL, *prev = NULL, *scratch = NULL, *result = NULL;
    ch2d_stepper *s = NULL;
    int rc = ch2d_stepper_alloc(be, p, &s);
    if (rc == COHORT_OK) rc = be->alloc((void **)&cur, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&prev, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&scratch, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(cur, u, values * sizeof(double));
    for (int64_t m0 = 0, count; rc == COHORT_OK && m0 < ld; m0 += count) {
        count = ld - m0 < chunk ? ld - m0 : chunk;
        double *c = cur, *q = prev;
        rc = ch2d_start(s, &c, &q, scratch, ld, m0, count);
        for (int n = 1; rc == COHORT_OK && n < steps; ++n)
            rc = ch2d_step(s, &c, &q, scratch, ld, m0, count);
        result = c;
    }
    if (rc == COHORT_OK) rc = be->copy_to_host(u, result, values * sizeof(double));
    ch2d_stepper_free(s);
    be->release(cur), be->release(prev), be->release(scratch);
    return rc;
}

/* One member's field on the grid: a smooth pattern with mean 0.1 (interleaved at member m of ld,
 * scaled per member). */
static void smooth_field(const ch2d_params *p, double *u, int64_t ld, int64_t m, double scale)
{
    const double dx = p->length / (double)p->nx, dy = p->length / (double)p->ny;
    for (int64_t j = 0; j < p->ny; ++j)
        for (int64_t i = 0; i < p->nx; ++i) {
            const double x = (double)i * dx, y = (double)j * dy;
            u[(j * p->nx + i) * ld + m] =
                0.1 + scale * (0.4 * sin(x) * cos(2.0 * y) + 0.3 * cos(3.0 * x + 0.5));
        }
}

/* The error at T against RK4 for dt = T/20, T/40, T/80: observed orders. */
static void order_case(const cohort_backend *be)
{
    ch2d_params p = {16, 20, TWO_PI, 0.6, 0.05, 0.0};
    const int64_t n = p.nx * p.ny;
    const double t_end = 0.5;
    double *ref = malloc((size_t)n * sizeof(double)), *u = malloc((size_t)n * sizeof(double));
    smooth_field(&p, ref, 1, 0, 1.0);
    rk4(&p, ref, t_end, 8000);
    double err[3];
    for (int r = 0; r < 3; ++r) {
        const int steps = 20 << r;
        p.dt = t_end / steps;
        smooth_field(&p, u, 1, 0, 1.0);
        const int rc = adi(be, &p, u, 1, steps, 1);
        EXPECT(rc == COHORT_OK, "ADI: %s", cohort_error_detail());
        err[r] = 0.0;
        for (int64_t k = 0; k < n; ++k) err[r] = fmax(err[r], fabs(u[k] - ref[k]));
    }
    const double o1 = log2(err[0] / err[1]), o2 = log2(err[1] / err[2]);
    printf("ADI vs RK4 at T = %g on 16 x 20: max errors %.3e %.3e %.3e (dt = T/20, /40, /80), "
           "orders %.2f %.2f\n",
           t_end, err[0], err[1], err[2], o1, o2);
    /* the nonlinear term at t^n (eq. 2; ch2d.h) makes the scheme first order in time */
    EXPECT(o1 >= 0.85 && o1 <= 1.3 && o2 >= 0.85 && o2 <= 1.3, "orders %.2f %.2f, expected 1", o1,
           o2);
    free(ref), free(u);
}

/* Means conserved; sub-batches of `chunk` bitwise equal to the whole; cuda against cpu. */
static void batch_case(const cohort_backend *be, ch2d_params p, int64_t members, int steps,
                       int64_t chunk)
{
    const int64_t n = p.nx * p.ny, values = n * members;
    double *u0 = malloc((size_t)values * sizeof(double)),
           *whole = malloc((size_t)values * sizeof(double));
    double *parts = malloc((size_t)values * sizeof(double)),
           *cpu = malloc((size_t)values * sizeof(double));
    unsigned state = 12345u;
    for (int64_t m = 0; m < members; ++m) {
        smooth_field(&p, u0, members, m, 0.0); /* the mean 0.1 */
        for (int64_t k = 0; k < n; ++k) {      /* plus noise in [-0.1, 0.1] */
            state = state * 1664525u + 1013904223u;
            u0[k * members + m] += 0.2 * ((double)state / 4294967296.0 - 0.5);
        }
    }
    memcpy(whole, u0, (size_t)values * sizeof(double));
    memcpy(parts, u0, (size_t)values * sizeof(double));
    memcpy(cpu, u0, (size_t)values * sizeof(double));
    int rc = adi(be, &p, whole, members, steps, members);
    if (rc == COHORT_OK) rc = adi(be, &p, parts, members, steps, chunk);
    EXPECT(rc == COHORT_OK, "batch: %s", cohort_error_detail());
    EXPECT(!memcmp(whole, parts, (size_t)values * sizeof(double)),
           "sub-batches of %lld differ from the whole batch", (long long)chunk);
    double drift = 0.0, moved = 0.0;
    for (int64_t m = 0; m < members; ++m) {
        double before = 0.0, after = 0.0;
        for (int64_t k = 0; k < n; ++k) {
            before += u0[k * members + m];
            after += whole[k * members + m];
            moved = fmax(moved, fabs(whole[k * members + m] - u0[k * members + m]));
        }
        drift = fmax(drift, fabs(after - before) / (double)n);
    }
    printf("%d steps of %lld members on %lld x %lld: largest change of a mean %.3e, of a value "
           "%.3e\n",
           steps, (long long)members, (long long)p.nx, (long long)p.ny, drift, moved);
    EXPECT(drift <= 1e-12, "mean drift %.3e", drift);
    EXPECT(moved > 0.05, "the fields barely evolved (%.3e): the test would prove nothing", moved);
    if (be->kind == COHORT_BACKEND_CUDA) {
        rc = adi(&cohort_backend_cpu, &p, cpu, members, steps, members);
        double worst = 0.0, scale = 0.0;
        for (int64_t v = 0; v < values; ++v) {
            worst = fmax(worst, fabs(cpu[v] - whole[v]));
            scale = fmax(scale, fabs(cpu[v]));
        }
        printf("cuda vs cpu on %lld x %lld: largest difference %.3e of values up to %.3e\n",
               (long long)p.nx, (long long)p.ny, worst, scale);
        EXPECT(rc == COHORT_OK && worst == 0.0, "cuda vs cpu: %.3e of %.3e", worst, scale);
    }
    free(u0), free(whole), free(parts), free(cpu);
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    order_case(be);
    batch_case(be, (ch2d_params){33, 24, TWO_PI, 0.6, 0.01, 0.004}, 5, 300, 2);
    /* lines longer than the cuda warp tile (n > 576): the partitioned solve, one member a chunk
     * as for a single large field */
    batch_case(be, (ch2d_params){640, 600, TWO_PI, 0.6, 0.01, 0.001}, 3, 40, 1);
    return test_summary();
}
