/* bench-stencil: the 2D stencil layer and the ch2d step on the GPU against the device-copy
 * roofline. Random inputs (cuRAND), outputs poisoned before the checked run and compared with the
 * cpu backend; CUDA events after warm-up, median of the repetitions.
 *
 *   stencils on one 4096 x 4096 double field (periodic): 5-point Laplacian (3 x 3 cross), 9-point
 *   8th-order d2/dx2 (1 x 9), 9-point box (3 x 3); bytes = 2 x 8 x points (each value read and
 *   written once), as a fraction of the copy bandwidth.
 *   one ch2d step (eq. 2) at 1 x 1024^2 and 4096 x 64^2: time, and bandwidth against the bytes a
 *   step must move at least (read C^n and C^{n-1}, write C^{n+1}: 3 x 8 x points) and against
 *   the passes this implementation makes (11: operator 3, two line solves 2 each, update 4). */
#include <cuda_runtime.h>
#include <curand.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "bench_common.h"
#include "models/ch2d/ch2d.h"
#include "stencil/stencil.h"

enum { WARMUP = 3, REPS = 21 };

static float median_ms(bench_fn run, void *arg)
{
    float times[REPS];
    return bench_median_ms(NULL, run, arg, WARMUP, REPS, times);
}

typedef struct copy_arg {
    double *dst;
    const double *src;
    size_t bytes;
} copy_arg;

static void run_copy(void *arg)
{
    copy_arg *a = (copy_arg *)arg;
    CHECK_CUDA(cudaMemcpyAsync(a->dst, a->src, a->bytes, cudaMemcpyDeviceToDevice));
}

typedef struct stencil_arg {
    const stencil *st;
    const double *in;
    double *out;
} stencil_arg;

static void run_stencil(void *arg)
{
    stencil_arg *a = (stencil_arg *)arg;
    CHECK_COHORT(stencil_compute(a->st, a->in, a->out, 1, 0, 1));
}

typedef struct op_arg {
    const cohort_backend *be;
    stencil_op_args a;
    double *out;
    int64_t n;
} op_arg;

static void run_operator(void *arg)
{
    op_arg *o = (op_arg *)arg;
    CHECK_COHORT(stencil_operator_compute(o->be, STENCIL_OP_LAPLACIAN_CUBIC, &o->a,
                                          STENCIL_PERIODIC, o->out, o->n, o->n, 1, 0, 1));
}

static void random_fill(double *dev, size_t count, unsigned long long seed)
{
    curandGenerator_t g;
    CHECK_RAND(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CHECK_RAND(curandSetPseudoRandomGeneratorSeed(g, seed));
    CHECK_RAND(curandGenerateUniformDouble(g, dev, count));
    curandDestroyGenerator(g);
}

/* The stencils on one n x n field. */
static void bench_stencils(const cohort_backend *be, int64_t n, double copy_ms)
{
    const size_t points = (size_t)(n * n), bytes = points * sizeof(double);
    double *in, *out, *host_in = (double *)malloc(bytes), *got = (double *)malloc(bytes),
                      *ref = (double *)malloc(bytes);
    CHECK_COHORT(be->alloc((void **)&in, bytes));
    CHECK_COHORT(be->alloc((void **)&out, bytes));
    random_fill(in, points, 7);
    CHECK_COHORT(be->copy_to_host(host_in, in, bytes));
    struct {
        const char *name;
        stencil_direction d;
        int l, r, t, b;
        double w[9];
    } shapes[] = {
        {"5-point Laplacian (3x3 cross)", STENCIL_XY, 1, 1, 1, 1, {0, 1, 0, 1, -4, 1, 0, 1, 0}},
        {"9-point d2/dx2 8th order (1x9)",
         STENCIL_X,
         4,
         4,
         0,
         0,
         {-1.0 / 560, 8.0 / 315, -1.0 / 5, 8.0 / 5, -205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315,
          -1.0 / 560}},
        {"9-point box (3x3)", STENCIL_XY, 1, 1, 1, 1, {1, 4, 1, 4, -20, 4, 1, 4, 1}},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        stencil *st = NULL, *st_cpu = NULL;
        CHECK_COHORT(stencil_create(be, shapes[k].d, STENCIL_PERIODIC, n, n, shapes[k].l,
                                    shapes[k].r, shapes[k].t, shapes[k].b, shapes[k].w, &st));
        CHECK_COHORT(stencil_create(&cohort_backend_cpu, shapes[k].d, STENCIL_PERIODIC, n, n,
                                    shapes[k].l, shapes[k].r, shapes[k].t, shapes[k].b, shapes[k].w,
                                    &st_cpu));
        CHECK_COHORT(be->fill(out, NAN, points)); /* poison */
        CHECK_COHORT(stencil_compute(st, in, out, 1, 0, 1));
        CHECK_COHORT(be->copy_to_host(got, out, bytes));
        CHECK_COHORT(stencil_compute(st_cpu, host_in, ref, 1, 0, 1));
        double worst = 0.0;
        for (size_t v = 0; v < points; ++v)
            worst = isnan(got[v]) ? INFINITY : fmax(worst, fabs(got[v] - ref[v]));
        stencil_arg a = {st, in, out};
        const float ms = median_ms(run_stencil, &a);
        printf("%-32s %5lld^2: %8.3f ms  %7.1f GB/s  %.2f of copy  (max |gpu - cpu| %.1e)\n",
               shapes[k].name, (long long)n, ms, 2.0 * bytes / (ms * 1e6), copy_ms / ms, worst);
        char workload[96];
        snprintf(workload, sizeof workload, "stencil %s, %lld^2", shapes[k].name, (long long)n);
        bench_table_row("bench-stencil", workload, ms, copy_ms, "device copy of the field", NULL,
                        0.0);
        stencil_destroy(st), stencil_destroy(st_cpu);
    }
    /* the compile-time point operator: the 5-point Laplacian of C^3 - C */
    op_arg o = {be, {{in, NULL, NULL}, {1.0, 1.0}}, out, n};
    const float ms = median_ms(run_operator, &o);
    printf("%-32s %5lld^2: %8.3f ms  %7.1f GB/s  %.2f of copy\n", "point op: lap(C^3 - C)",
           (long long)n, ms, 2.0 * bytes / (ms * 1e6), copy_ms / ms);
    char workload[96];
    snprintf(workload, sizeof workload, "stencil point op lap(C^3 - C), %lld^2", (long long)n);
    bench_table_row("bench-stencil", workload, ms, copy_ms, "device copy of the field", NULL, 0.0);
    be->release(in), be->release(out);
    free(host_in), free(got), free(ref);
}

typedef struct step_arg {
    const ch2d_stepper *s;
    double *cur, *prev, *scratch;
    int64_t members;
    int steps;
} step_arg;

static void run_steps(void *arg)
{
    step_arg *a = (step_arg *)arg;
    for (int k = 0; k < a->steps; ++k)
        CHECK_COHORT(ch2d_step(a->s, &a->cur, &a->prev, a->scratch, a->members, 0, a->members));
}

/* steps timed together, as a run takes them: launches overlap the kernels before them */
enum { STEPS_IN_A_ROW = 256 };

static void bench_ch2d(const cohort_backend *be, int64_t n, int64_t members, double copy_gbs)
{
    const ch2d_params p = {n, n, 6.283185307179586, 0.6, 0.01, 0.1 * 6.283185307179586 / n};
    const size_t values = (size_t)(n * n * members), bytes = values * sizeof(double);
    ch2d_stepper *s = NULL;
    step_arg a = {NULL, NULL, NULL, NULL, members, 1};
    CHECK_COHORT(ch2d_stepper_alloc(be, &p, &s));
    a.s = s;
    CHECK_COHORT(be->alloc((void **)&a.cur, bytes));
    CHECK_COHORT(be->alloc((void **)&a.prev, bytes));
    CHECK_COHORT(be->alloc((void **)&a.scratch, bytes));
    random_fill(a.cur, values, 11); /* uniform (0, 1], then the seed's +-0.1 noise */
    double *host = (double *)malloc(bytes);
    CHECK_COHORT(be->copy_to_host(host, a.cur, bytes));
    for (size_t v = 0; v < values; ++v) host[v] = 0.2 * host[v] - 0.1;
    CHECK_COHORT(be->copy_to_device(a.cur, host, bytes));
    CHECK_COHORT(ch2d_start(s, &a.cur, &a.prev, a.scratch, members, 0, members));
    const float ms = median_ms(run_steps, &a);
    a.steps = STEPS_IN_A_ROW;
    const float row_ms = median_ms(run_steps, &a) / STEPS_IN_A_ROW;
    CHECK_COHORT(be->copy_to_host(host, a.cur, bytes));
    int finite = 1;
    for (size_t v = 0; v < values; ++v) finite &= isfinite(host[v]) != 0;
    const double least = 3.0 * bytes, made = 11.0 * bytes;
    printf("ch2d step %4lld x %4lld^2: %8.3f ms  %7.1f GB/s of the 3 passes a step needs (%.2f of "
           "copy), %7.1f GB/s of the 11 it makes%s\n",
           (long long)members, (long long)n, ms, least / (ms * 1e6), least / (ms * 1e6) / copy_gbs,
           made / (ms * 1e6), finite ? "" : "  NON-FINITE STATE");
    printf("ch2d step %4lld x %4lld^2: %8.3f ms a step in a row of %d\n", (long long)members,
           (long long)n, row_ms, STEPS_IN_A_ROW);
    char workload[96];
    snprintf(workload, sizeof workload, "ch2d step, %lld x %lld^2", (long long)members,
             (long long)n);
    bench_table_row("bench-stencil", workload, ms, least / (copy_gbs * 1e6),
                    "3 device-copy passes of the state", NULL, 0.0);
    snprintf(workload, sizeof workload, "ch2d step in a row of %d, %lld x %lld^2", STEPS_IN_A_ROW,
             (long long)members, (long long)n);
    bench_table_row("bench-stencil", workload, row_ms, least / (copy_gbs * 1e6),
                    "3 device-copy passes of the state", NULL, 0.0);
    ch2d_stepper_free(s);
    be->release(a.cur), be->release(a.prev), be->release(a.scratch);
    free(host);
}

int main(void)
{
    const cohort_backend *be = NULL;
    CHECK_COHORT(cohort_backend_get("cuda", &be));
    char device[256];
    be->describe(device, sizeof device);
    printf("device: %s\n", device);
    const int64_t n = 4096;
    const size_t bytes = (size_t)(n * n) * sizeof(double);
    copy_arg c = {NULL, NULL, bytes};
    CHECK_COHORT(be->alloc((void **)&c.dst, bytes));
    CHECK_COHORT(be->alloc((void **)&c.src, bytes));
    random_fill((double *)c.src, (size_t)(n * n), 3);
    const float copy_ms = median_ms(run_copy, &c);
    const double copy_gbs = 2.0 * bytes / (copy_ms * 1e6);
    printf("device copy of %lld^2 doubles: %.3f ms, %.1f GB/s (read + write)\n", (long long)n,
           copy_ms, copy_gbs);
    be->release(c.dst), be->release((void *)c.src);
    bench_stencils(be, n, copy_ms);
    bench_ch2d(be, 1024, 1, copy_gbs);
    bench_ch2d(be, 64, 4096, copy_gbs);
    return 0;
}
