/* bench-model1d: one time step of the 1D models on the GPU, each path against the device copy of
 * the state (the floor: a step must read and write every value once). Double precision; random
 * states (+-0.1 noise as the runs start, and a developed field of +-1 domains), random member
 * means and forcing amplitudes from cuRAND; the step is out of place, so every timed run starts
 * from the same state; CUDA events after warm-up, median reported. Each fused result is checked
 * against the portable path's on the same input, the outputs poisoned first.
 *
 *   bench-model1d [--reps R] [--case K] [--n N]   (K: one case only, 0 = the first; N: the
 *                                                  cases at N points, M scaled to the same state)
 *
 * Paths: portable = the right-hand-side kernel, then the portable banded solve; separate = the
 * right-hand-side kernel, then the AUTO banded solve (the seed's design: a stencil kernel, then
 * a solve); fused (w) = one pass with tiles of w members; auto = what cohort run uses; auto, drift
 * handed on = the step as a run takes it between records where the right-hand side stays a kernel
 * of its own and the solve sums what it stores (ch1d_forced). Columns:
 * median ms per step, the copy's time over it, and 40,744 steps at that rate (T = 100 at
 * dt = 0.1 dx, dx = 2 pi / 256, as bench-ch1d and coarsening-1d; T = 50 at dx = 2 pi / 512, as
 * the flow map). A last row per case: the step on the cpu backend of this host, for 1/16 of the
 * members. */
#include <cuda_runtime.h>
#include <curand.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_cuda.h"
#include "models/model1d/model1d_cuda.h"
#include "backend/cohort_error.h"
#include "bench_common.h"
#include "models/model1d/model1d.h"

static const double STEPS_T100 = 40744.0;

typedef struct bench_case {
    const char *label;
    model1d_kind kind;
    int64_t n, m;
    double length;
    int developed; /* 1: a field of +-1 domains (sign of the noise) instead of +-0.1 noise */
} bench_case;

static const bench_case cases[] = {
    {"ch1d L=2pi", MODEL1D_CAHN_HILLIARD, 256, 1 << 20, 2.0 * M_PI, 0},
    {"ch1d L=2pi developed", MODEL1D_CAHN_HILLIARD, 256, 1 << 20, 2.0 * M_PI, 1},
    {"ch1d L=4pi", MODEL1D_CAHN_HILLIARD, 512, 1 << 19, 4.0 * M_PI, 0},
    {"ch1d_forced (flow map)", MODEL1D_CAHN_HILLIARD_FORCED, 512, 589824, 2.0 * M_PI, 0},
    {"hyperdiffusion1d", MODEL1D_HYPERDIFFUSION, 1024, 1 << 18, 2.0 * M_PI, 0},
    {"diffusion1d", MODEL1D_DIFFUSION, 256, 1 << 20, 2.0 * M_PI, 0},
};

/* x = scale (x - 1/2) + shift; developed: the sign of that, +-1 */
__global__ void shape_kernel(double *x, int64_t count, double scale, double shift, int developed)
{
    const int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (k >= count) return;
    const double v = scale * (x[k] - 0.5) + shift;
    x[k] = developed ? (v < 0.0 ? -1.0 : 1.0) : v;
}

/* worst[0] = max |a - b|, worst[1] = max |b| (non-negative doubles order as their bits), worst[2]
 * = values where a != b, worst[3] = non-finite values of a */
__global__ void compare_kernel(const double *a, const double *b, int64_t count,
                               unsigned long long *worst)
{
    const int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (k >= count) return;
    const double d = fabs(a[k] - b[k]), s = fabs(b[k]);
    if (!isfinite(a[k])) atomicAdd(&worst[3], 1ull);
    if (a[k] != b[k]) atomicAdd(&worst[2], 1ull);
    if (isfinite(d)) atomicMax(&worst[0], (unsigned long long)__double_as_longlong(d));
    atomicMax(&worst[1], (unsigned long long)__double_as_longlong(s));
}

/* One timed thing: the step through a path, or (copy_src) the device copy of the state. */
typedef struct step_args {
    const model1d_rhs *r;
    const banded_view *v;
    const double *u, *mean, *f0, *copy_src, *drift_in;
    double *out, *drift_out;
    int64_t ld;
    cohort_cuda_step_path path;
    size_t tile_bytes;
    int on_chip_steps; /* > 0: that many FUSED steps in one launch, the states kept on chip */
} step_args;

static void run_step(void *arg)
{
    const step_args *a = (const step_args *)arg;
    if (a->copy_src)
        CHECK_CUDA(cudaMemcpyAsync(a->out, a->copy_src, (size_t)(a->v->n * a->ld) * sizeof(double),
                                   cudaMemcpyDeviceToDevice));
    else if (a->on_chip_steps > 0)
        CHECK_COHORT(cohort_cuda_model1d_advance_fused(a->r, a->v, a->u, a->out, a->mean, a->ld, 0,
                                                       a->ld, a->on_chip_steps, 0));
    else
        CHECK_COHORT(cohort_cuda_model1d_step_path(a->r, a->v, a->u, a->out, a->mean, a->f0,
                                                   a->drift_in, a->drift_out, a->ld, 0, a->ld,
                                                   a->path, a->tile_bytes));
}

/* The fused output (in out) against the portable one (reference), both from poisoned arrays. */
static void check_fused(const step_args *a, double *reference, size_t tile_bytes,
                        unsigned long long *worst_dev)
{
    const int64_t values = a->v->n * a->ld;
    step_args fused = *a, ref = *a;
    fused.path = COHORT_CUDA_STEP_FUSED;
    fused.tile_bytes = tile_bytes;
    ref.out = reference;
    ref.path = COHORT_CUDA_STEP_PORTABLE;
    ref.tile_bytes = 0;
    CHECK_COHORT(cohort_backend_cuda.fill(a->out, NAN, (size_t)values));
    CHECK_COHORT(cohort_backend_cuda.fill(reference, NAN, (size_t)values));
    run_step(&fused);
    run_step(&ref);
    unsigned long long worst[4] = {0, 0, 0, 0};
    CHECK_CUDA(cudaMemcpy(worst_dev, worst, sizeof worst, cudaMemcpyHostToDevice));
    compare_kernel<<<(unsigned)((values + 255) / 256), 256>>>(a->out, reference, values, worst_dev);
    CHECK_CUDA(cudaMemcpy(worst, worst_dev, sizeof worst, cudaMemcpyDeviceToHost));
    double diff, scale;
    memcpy(&diff, &worst[0], sizeof diff);
    memcpy(&scale, &worst[1], sizeof scale);
    printf("    check: fused vs portable max |diff| %.3e of max |x| %.3e, %llu of %lld values "
           "differ, %llu non-finite\n",
           diff, scale, worst[2], (long long)values, worst[3]);
    if (worst[3] != 0 || !(diff <= 1e-14 * scale)) {
        fprintf(stderr, "bench-model1d: the fused step disagrees with the portable one\n");
        exit(1);
    }
}

/* ON_CHIP_STEPS steps in one launch, the states kept on chip (as a run takes the steps between
 * two records): the time a step, then the check over the whole stretch, which uses u: the state
 * after as many single FUSED launches (u and reference in turn) must be out's bit for bit. */
enum { ON_CHIP_STEPS = 64 };
static void bench_on_chip(step_args *a, double *reference, const bench_case *k, float auto_ms,
                          float copy, int reps, float *times, unsigned long long *worst_dev)
{
    const int64_t values = a->v->n * a->ld;
    step_args chip = *a;
    chip.on_chip_steps = ON_CHIP_STEPS;
    const float ms = bench_median_ms(NULL, run_step, &chip, 1, reps, times) / ON_CHIP_STEPS;
    char label[32];
    snprintf(label, sizeof label, "on chip (w = %d)",
             cohort_cuda_model1d_advance_width(a->r, a->v, 0));
    printf("  %-22s %8.3f ms  %5.2f of copy  40,744 steps: %6.1f s  (a step of %d a launch; "
           "%.2fx the one-pass step)\n",
           label, ms, copy / ms, ms * STEPS_T100 / 1000.0, ON_CHIP_STEPS, auto_ms / ms);
    char workload[128];
    snprintf(workload, sizeof workload, "%s step, N = %lld, M = %lld, %d steps on chip a launch",
             k->label, (long long)k->n, (long long)k->m, ON_CHIP_STEPS);
    bench_table_row("bench-model1d", workload, ms, 0.0, NULL, "the one-pass step (auto)", auto_ms);
    CHECK_COHORT(cohort_backend_cuda.fill(a->out, NAN, (size_t)values));
    run_step(&chip);
    step_args one = *a;
    one.path = COHORT_CUDA_STEP_FUSED;
    one.tile_bytes = 0;
    double *from = (double *)a->u, *to = reference;
    for (int j = 0; j < ON_CHIP_STEPS; ++j) {
        one.u = from, one.out = to;
        run_step(&one);
        double *t = from;
        from = to, to = t;
    }
    unsigned long long worst[4] = {0, 0, 0, 0};
    CHECK_CUDA(cudaMemcpy(worst_dev, worst, sizeof worst, cudaMemcpyHostToDevice));
    compare_kernel<<<(unsigned)((values + 255) / 256), 256>>>(a->out, from, values, worst_dev);
    CHECK_CUDA(cudaMemcpy(worst, worst_dev, sizeof worst, cudaMemcpyDeviceToHost));
    printf("    check: %d steps on chip vs %d launches: %llu of %lld values differ, %llu "
           "non-finite\n",
           ON_CHIP_STEPS, ON_CHIP_STEPS, worst[2], (long long)values, worst[3]);
    if (worst[2] != 0 || worst[3] != 0) {
        fprintf(stderr, "bench-model1d: the steps on chip differ from the single steps\n");
        exit(1);
    }
}

/* drift[m] = the mean of member m of x, summed in row order: the reference of a drift handed on
 * (model1d_kernels.step) */
__global__ void member_mean_kernel(const double *x, double *drift, int64_t n, int64_t ld)
{
    const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m >= ld) return;
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += x[i * ld + m];
    drift[m] = sum / (double)n;
}

/* The separate step as a run takes it between records where the solve sums what it stores
 * (model1d_advance): the drift of u handed in, that of out handed on. Timed, then checked: the
 * same bits as the step that sums u itself (reference), and the drift handed on that of out. */
static float bench_handed(step_args *a, double *reference, double *drifts, const bench_case *k,
                          float auto_ms, float copy, int reps, float *times,
                          unsigned long long *worst_dev)
{
    const int64_t values = a->v->n * a->ld;
    const unsigned blocks = (unsigned)((a->ld + 255) / 256);
    member_mean_kernel<<<blocks, 256>>>(a->u, drifts, a->v->n, a->ld);
    step_args handed = *a;
    handed.path = COHORT_CUDA_STEP_AUTO, handed.tile_bytes = 0;
    handed.drift_in = drifts, handed.drift_out = drifts + a->ld;
    const float ms = bench_median_ms(NULL, run_step, &handed, 3, reps, times);
    printf("  %-22s %8.3f ms  %5.2f of copy  40,744 steps: %6.1f s  (%.2fx the step that sums "
           "its state)\n",
           "auto, drift handed on", ms, copy / ms, ms * STEPS_T100 / 1000.0, auto_ms / ms);
    char workload[128];
    snprintf(workload, sizeof workload, "%s step, N = %lld, M = %lld, drift handed on", k->label,
             (long long)k->n, (long long)k->m);
    bench_table_row("bench-model1d", workload, ms, copy, "device copy of the state",
                    "the step that sums its state", auto_ms);
    step_args ref = handed;
    ref.out = reference, ref.drift_in = NULL, ref.drift_out = NULL;
    CHECK_COHORT(cohort_backend_cuda.fill(a->out, NAN, (size_t)values));
    CHECK_COHORT(cohort_backend_cuda.fill(reference, NAN, (size_t)values));
    run_step(&handed);
    run_step(&ref);
    member_mean_kernel<<<blocks, 256>>>(a->out, drifts, a->v->n, a->ld);
    unsigned long long worst[4] = {0, 0, 0, 0};
    CHECK_CUDA(cudaMemcpy(worst_dev, worst, sizeof worst, cudaMemcpyHostToDevice));
    compare_kernel<<<(unsigned)((values + 255) / 256), 256>>>(a->out, reference, values, worst_dev);
    compare_kernel<<<blocks, 256>>>(drifts + a->ld, drifts, a->ld, worst_dev);
    CHECK_CUDA(cudaMemcpy(worst, worst_dev, sizeof worst, cudaMemcpyDeviceToHost));
    printf("    check: vs the step that sums its state, and the drifts handed on: %llu of %lld "
           "values differ, %llu non-finite\n",
           worst[2], (long long)(values + a->ld), worst[3]);
    if (worst[2] != 0 || worst[3] != 0) {
        fprintf(stderr, "bench-model1d: the step handing its drift on differs\n");
        exit(1);
    }
    return ms;
}

/* The steps as a run takes them between records (model1d_advance, PARTS_STEPS a call), where the
 * members go in parts on streams of their own (model1d_kernels.advance_in_parts): the time a
 * step, then the check: the same bits as as many single steps (model1d_step). */
enum { PARTS_STEPS = 64 };
typedef struct parts_args {
    const model1d_stepper *s;
    double *x, *y;
    const double *mean, *f0;
    int64_t ld;
} parts_args;

static void run_parts(void *arg)
{
    parts_args *p = (parts_args *)arg;
    CHECK_COHORT(model1d_advance(p->s, &p->x, &p->y, p->mean, p->f0, p->ld, 0, p->ld, PARTS_STEPS));
}

static void bench_parts(const model1d_stepper *s, const step_args *a, double *reference,
                        const bench_case *k, float handed_ms, float copy, int reps, float *times,
                        unsigned long long *worst_dev)
{
    const int64_t values = a->v->n * a->ld;
    const size_t bytes = (size_t)values * sizeof(double);
    parts_args p = {s, reference, a->out, a->mean, a->f0, a->ld};
    CHECK_CUDA(cudaMemcpy(p.x, a->u, bytes, cudaMemcpyDeviceToDevice));
    const float ms = bench_median_ms(NULL, run_parts, &p, 1, reps, times) / PARTS_STEPS;
    printf("  %-22s %8.3f ms  %5.2f of copy  40,744 steps: %6.1f s  (%d a call; %.2fx the step "
           "handing its drift on)\n",
           "auto, in parts", ms, copy / ms, ms * STEPS_T100 / 1000.0, PARTS_STEPS, handed_ms / ms);
    char workload[128];
    snprintf(workload, sizeof workload, "%s step, N = %lld, M = %lld, in parts, %d a call",
             k->label, (long long)k->n, (long long)k->m, PARTS_STEPS);
    bench_table_row("bench-model1d", workload, ms, copy, "device copy of the state",
                    "the step handing its drift on", handed_ms);
    double *x = NULL, *y = NULL;
    CHECK_CUDA(cudaMalloc(&x, bytes));
    CHECK_CUDA(cudaMalloc(&y, bytes));
    CHECK_CUDA(cudaMemcpy(x, a->u, bytes, cudaMemcpyDeviceToDevice));
    CHECK_CUDA(cudaMemcpy(p.x, a->u, bytes, cudaMemcpyDeviceToDevice));
    run_parts(&p);
    double *x0 = x, *y0 = y;
    for (int j = 0; j < PARTS_STEPS; ++j)
        CHECK_COHORT(model1d_step(s, &x, &y, a->mean, a->f0, a->ld, 0, a->ld));
    unsigned long long worst[4] = {0, 0, 0, 0};
    CHECK_CUDA(cudaMemcpy(worst_dev, worst, sizeof worst, cudaMemcpyHostToDevice));
    compare_kernel<<<(unsigned)((values + 255) / 256), 256>>>(p.x, x, values, worst_dev);
    CHECK_CUDA(cudaMemcpy(worst, worst_dev, sizeof worst, cudaMemcpyDeviceToHost));
    printf("    check: %d steps in parts vs %d single steps: %llu of %lld values differ, %llu "
           "non-finite\n",
           PARTS_STEPS, PARTS_STEPS, worst[2], (long long)values, worst[3]);
    CHECK_CUDA(cudaFree(x0));
    CHECK_CUDA(cudaFree(y0));
    if (worst[2] != 0 || worst[3] != 0) {
        fprintf(stderr, "bench-model1d: the steps in parts differ from the single steps\n");
        exit(1);
    }
}

/* One cpu step of mc members, timed by bench_host_median_ms: the state restored to start in x,
 * then stepped (model1d_step may leave it in y: state says where). */
typedef struct cpu_step {
    model1d_stepper *s;
    double *x, *y, *state, *scratch;
    const double *start;
    size_t bytes;
    const double *mean, *f0;
    int64_t mc;
} cpu_step;

static void cpu_step_restore(void *arg)
{
    cpu_step *a = (cpu_step *)arg;
    memcpy(a->x, a->start, a->bytes);
    a->state = a->x, a->scratch = a->y;
}

static void cpu_step_run(void *arg)
{
    cpu_step *a = (cpu_step *)arg;
    CHECK_COHORT(model1d_step(a->s, &a->state, &a->scratch, a->mean, a->f0, a->mc, 0, a->mc));
}

/* The cpu backend (OpenMP, this host's cores) takes the same step for the first m / CPU_SHARE
 * members (a whole batch takes seconds a step there): the median of 5, against the host's copy of
 * that state, checked against the GPU's portable step on the same members. */
enum { CPU_SHARE = 16 };
static void bench_cpu(const bench_case *k, const model1d_params *p, const step_args *a,
                      double *reference)
{
    const int64_t mc = k->m / CPU_SHARE;
    const size_t bytes = (size_t)(k->n * mc) * sizeof(double), row = (size_t)mc * sizeof(double);
    step_args ref = *a;
    ref.out = reference, ref.path = COHORT_CUDA_STEP_PORTABLE, ref.tile_bytes = 0;
    run_step(&ref);
    double *start = (double *)malloc(bytes), *want = (double *)malloc(bytes);
    double *x = (double *)malloc(bytes), *y = (double *)malloc(bytes);
    double *mean = (double *)malloc(row), *f0 = (double *)malloc(row);
    if (!start || !want || !x || !y || !mean || !f0) {
        fprintf(stderr, "bench-model1d: no host memory for the cpu step (%zu bytes)\n", bytes);
        exit(1);
    }
    const size_t pitch = (size_t)k->m * sizeof(double);
    CHECK_CUDA(cudaMemcpy2D(start, row, a->u, pitch, row, (size_t)k->n, cudaMemcpyDeviceToHost));
    CHECK_CUDA(
        cudaMemcpy2D(want, row, reference, pitch, row, (size_t)k->n, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(mean, a->mean, row, cudaMemcpyDeviceToHost));
    if (a->f0) CHECK_CUDA(cudaMemcpy(f0, a->f0, row, cudaMemcpyDeviceToHost));
    model1d_stepper *s = NULL;
    CHECK_COHORT(model1d_stepper_alloc(&cohort_backend_cpu, p, &s));
    const double host_copy_ms = bench_copy_ms(&cohort_backend_cpu, x, start, bytes);
    cpu_step step = {s, x, y, x, y, start, bytes, mean, a->f0 ? f0 : NULL, mc};
    const double ms = bench_host_median_ms(cpu_step_restore, cpu_step_run, &step);
    const double *state = step.state;
    double diff = 0.0, scale = 0.0;
    int64_t bad = 0;
    for (size_t i = 0; i < bytes / sizeof(double); ++i) {
        bad += !isfinite(state[i]);
        diff = fmax(diff, fabs(state[i] - want[i])), scale = fmax(scale, fabs(want[i]));
    }
    printf("  %-22s %8.3f ms  %5.2f of the host's copy, M = %lld (cpu); vs the GPU's portable "
           "step: max |diff| %.3e of %.3e, %lld non-finite\n",
           "cpu", ms, host_copy_ms / ms, (long long)mc, diff, scale, (long long)bad);
    if (bad != 0 || !(diff <= 1e-12 * scale)) {
        fprintf(stderr, "bench-model1d: the cpu step disagrees with the GPU's portable step\n");
        exit(1);
    }
    char workload[128];
    snprintf(workload, sizeof workload, "%s step, N = %lld, M = %lld (cpu)", k->label,
             (long long)k->n, (long long)mc);
    bench_table_row("bench-model1d", workload, ms, host_copy_ms, "host copy of the state", NULL,
                    0.0);
    model1d_stepper_free(s);
    free(start), free(want), free(x), free(y), free(mean), free(f0);
}

/* The step through each path of a (portable, separate, fused where its tiles fit, auto), timed;
 * returns auto's time */
static float bench_paths(step_args *a, double *reference, const bench_case *k, float copy, int reps,
                         float *times, unsigned long long *worst_dev)
{
    struct {
        const char *name;
        cohort_cuda_step_path path;
        size_t tile_bytes;
    } runs[8];
    int n_runs = 0;
    runs[n_runs++] = {"portable", COHORT_CUDA_STEP_PORTABLE, 0};
    runs[n_runs++] = {"separate", COHORT_CUDA_STEP_AUTO, 1}; /* no tile fits: the fallback */
    static const int widths[] = {16, 32};
    static char names[2][32];
    for (int w = 0; w < 2; ++w) {
        const size_t bytes = (size_t)k->n * (size_t)widths[w] * sizeof(double);
        if (cohort_cuda_model1d_step_width(a->r, a->v, bytes) != widths[w]) continue;
        snprintf(names[w], sizeof names[w], "fused (w = %d)", widths[w]);
        runs[n_runs++] = {names[w], COHORT_CUDA_STEP_FUSED, bytes};
    }
    runs[n_runs++] = {"auto", COHORT_CUDA_STEP_AUTO, 0};
    float auto_ms = 0.0f;
    for (int r = 0; r < n_runs; ++r) {
        if (runs[r].path == COHORT_CUDA_STEP_FUSED)
            check_fused(a, reference, runs[r].tile_bytes, worst_dev);
        a->path = runs[r].path;
        a->tile_bytes = runs[r].tile_bytes;
        const float ms = bench_median_ms(NULL, run_step, a, 3, reps, times);
        printf("  %-22s %8.3f ms  %5.2f of copy  40,744 steps: %6.1f s\n", runs[r].name, ms,
               copy / ms, ms * STEPS_T100 / 1000.0);
        if (runs[r].path == COHORT_CUDA_STEP_AUTO && runs[r].tile_bytes == 0) {
            auto_ms = ms;
            char workload[128];
            snprintf(workload, sizeof workload, "%s step, N = %lld, M = %lld", k->label,
                     (long long)k->n, (long long)k->m);
            bench_table_row("bench-model1d", workload, ms, copy, "device copy of the state", NULL,
                            0.0);
        }
    }
    return auto_ms;
}

/* The device buffers of the largest case, the repetitions and the generator */
typedef struct bench_buffers {
    double *u, *out, *reference, *mean, *f0, *drifts;
    unsigned long long *worst_dev;
    float *times;
    int reps;
    curandGenerator_t rng;
} bench_buffers;

/* One case: its stepper on random states, means and amplitudes; the copy, the paths, the steps
 * on chip or handing their drift on (and in parts), and the cpu row */
static void bench_case_run(const bench_case *k, const bench_buffers *b)
{
    const int64_t values = k->n * k->m;
    const double dx = k->length / (double)k->n;
    model1d_params p = {.kind = k->kind,
                        .n = k->n,
                        .length = k->length,
                        .dt = 0.1 * dx,
                        .alpha = 1.0,
                        .gamma = 0.01,
                        .f0 = 1.0,
                        .k = 1.0,
                        .v = 0.5};
    if (k->kind == MODEL1D_DIFFUSION || k->kind == MODEL1D_HYPERDIFFUSION)
        p.dt = k->kind == MODEL1D_DIFFUSION ? dx * dx : dx * dx * dx * dx;
    model1d_stepper *s = NULL;
    CHECK_COHORT(model1d_stepper_alloc(&cohort_backend_cuda, &p, &s));
    CHECK_RAND(curandGenerateUniformDouble(b->rng, b->u, (size_t)values));
    shape_kernel<<<(unsigned)((values + 255) / 256), 256>>>(b->u, values, 0.2, 0.0, k->developed);
    CHECK_RAND(curandGenerateUniformDouble(b->rng, b->mean, (size_t)k->m));
    shape_kernel<<<(unsigned)((k->m + 255) / 256), 256>>>(b->mean, k->m, 0.6, 0.0, 0);
    CHECK_RAND(curandGenerateUniformDouble(b->rng, b->f0, (size_t)k->m));
    shape_kernel<<<(unsigned)((k->m + 255) / 256), 256>>>(b->f0, k->m, 2.0, 1.0, 0);
    CHECK_CUDA(cudaGetLastError());
    step_args a = {.r = model1d_stepper_rhs(s),
                   .v = model1d_stepper_view(s),
                   .u = b->u,
                   .mean = b->mean,
                   .f0 = k->kind == MODEL1D_CAHN_HILLIARD_FORCED ? b->f0 : NULL,
                   .copy_src = NULL,
                   .drift_in = NULL,
                   .out = b->out,
                   .drift_out = NULL,
                   .ld = k->m,
                   .path = COHORT_CUDA_STEP_AUTO,
                   .tile_bytes = 0,
                   .on_chip_steps = 0};
    const size_t state_bytes = (size_t)values * sizeof(double);
    printf("\n%s: N = %lld, M = %lld (%.2f GB of state), %s\n", k->label, (long long)k->n,
           (long long)k->m, (double)state_bytes / 1e9,
           k->developed ? "a developed +-1 field" : "+-0.1 noise about random means");
    step_args copy_args = a;
    copy_args.copy_src = b->u;
    const float copy = bench_median_ms(NULL, run_step, &copy_args, 3, b->reps, b->times);
    printf("  %-22s %8.3f ms  %5.1f GB/s (read + write)\n", "device copy", copy,
           2.0 * (double)state_bytes / (copy * 1e6));
    const float auto_ms = bench_paths(&a, b->reference, k, copy, b->reps, b->times, b->worst_dev);
    if (cohort_cuda_model1d_step_width(a.r, a.v, 0) > 0)
        bench_on_chip(&a, b->reference, k, auto_ms, copy, b->reps, b->times, b->worst_dev);
    else if (model1d_steps_a_call(s) > 1) {
        const float handed_ms = bench_handed(&a, b->reference, b->drifts, k, auto_ms, copy, b->reps,
                                             b->times, b->worst_dev);
        bench_parts(s, &a, b->reference, k, handed_ms, copy, b->reps, b->times, b->worst_dev);
    }
    bench_cpu(k, &p, &a, b->reference);
    model1d_stepper_free(s);
}

int main(int argc, char **argv)
{
    int reps = 15, only = -1;
    int64_t points = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            only = atoi(argv[++i]);
        else if (strcmp(argv[i], "--n") == 0 && i + 1 < argc && atoll(argv[i + 1]) >= 8)
            points = atoll(argv[++i]);
        else {
            fprintf(stderr, "usage: bench-model1d [--reps R] [--case K] [--n N >= 8]\n");
            return 2;
        }
    }
    bench_buffers b;
    memset(&b, 0, sizeof b);
    b.reps = reps < 1 ? 1 : reps;
    b.times = (float *)malloc((size_t)b.reps * sizeof(float));
    char why[256];
    if (!cohort_cuda_device_present(why, sizeof why)) {
        fprintf(stderr, "bench-model1d: %s\n", why);
        return 77;
    }
    char device[256];
    CHECK_COHORT(cohort_backend_cuda.describe(device, sizeof device));
    printf("bench-model1d on %s; median of %d after 3 warm-ups\n", device, b.reps);
    char host[256];
    CHECK_COHORT(cohort_backend_cpu.describe(host, sizeof host));
    printf("cpu rows on %s (1/%d of the members), median of 5, against the host's copy of that "
           "state\n",
           host, CPU_SHARE);
    CHECK_RAND(curandCreateGenerator(&b.rng, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CHECK_RAND(curandSetPseudoRandomGeneratorSeed(b.rng, 20261122ull));
    int64_t max_values = 0, max_m = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const int64_t m = points > 0 ? cases[c].m * cases[c].n / points : cases[c].m;
        max_values = cases[c].n * cases[c].m > max_values ? cases[c].n * cases[c].m : max_values;
        max_m = m > max_m ? m : max_m;
    }
    CHECK_CUDA(cudaMalloc(&b.u, (size_t)max_values * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&b.out, (size_t)max_values * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&b.reference, (size_t)max_values * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&b.mean, (size_t)max_m * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&b.f0, (size_t)max_m * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&b.drifts, 2 * (size_t)max_m * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&b.worst_dev, 4 * sizeof(unsigned long long)));
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        if (only >= 0 && (size_t)only != c) continue;
        bench_case at_n = cases[c];
        if (points > 0) at_n.m = at_n.m * at_n.n / points, at_n.n = points;
        bench_case_run(&at_n, &b);
    }
    double *buffers[] = {b.u, b.out, b.reference, b.mean, b.f0, b.drifts};
    for (size_t k = 0; k < sizeof buffers / sizeof buffers[0]; ++k)
        CHECK_CUDA(cudaFree(buffers[k]));
    CHECK_CUDA(cudaFree(b.worst_dev));
    curandDestroyGenerator(b.rng);
    free(b.times);
    return 0;
}
