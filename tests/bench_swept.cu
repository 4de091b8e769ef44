/* bench-swept: seed 001's Figs. 8-9 as ratios measured side by side. For heat1d and ks1d, one
 * member of N points (2^11 .. 2^20 and sizes that are not powers of two), the time per time step
 * of time.stepper = classic and swept at tile widths 32 .. 1024 (and a whole member where it fits
 * a block), the best width of each, and the swept rule's speed-up; then the batched regime,
 * 65,536 KS members of 256 points advanced on chip, per member-step, against one device-copy
 * pass over the state and against the FP64 rate measured here.
 *
 * Usage: bench-swept [CSV] [--quick]. The table goes to stdout, the measurements to CSV
 * (default bench-swept.csv). Each timing is the median of 5 after a warm-up (CUDA events), on
 * random states (fresh for every size; never zeros). */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "models/model.h"
#include "models/swept1d/swept1d.h"

typedef struct job {
    const cohort_model *m;
    void *stepper;
    double *u, *scratch, *start;
    int64_t n, count, steps;
} job;

static void job_restore(void *arg)
{
    job *j = (job *)arg;
    CHECK_CUDA(cudaMemcpyAsync(j->u, j->start, (size_t)(j->n * j->count) * sizeof(double),
                               cudaMemcpyDeviceToDevice));
}

static void job_run(void *arg)
{
    job *j = (job *)arg;
    cohort_model_state s = {j->u, NULL, j->scratch, NULL, NULL, j->count, 0, j->count};
    CHECK_COHORT(j->m->on_chip->advance(j->stepper, &s, 0, j->steps));
    j->u = s.u, j->scratch = s.scratch; /* an odd tier count swaps the rows */
}

__global__ void random_state(double *u, int64_t n, double amplitude, uint64_t seed)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        u[i] = amplitude * (2.0 * (double)(z >> 11) * 0x1.0p-53 - 1.0);
    }
}

/* ms per step of `model` for one configuration */
static double time_per_step(const char *model, int64_t n, int64_t count, cohort_stepper_kind kind,
                            int64_t width, int64_t steps, double *start)
{
    const cohort_model *m = cohort_model_find(model);
    const cohort_backend *be = NULL;
    CHECK_COHORT(cohort_backend_get("cuda", &be));
    const int ks = !strcmp(model, "ks1d");
    cohort_model_values v;
    memset(&v, 0, sizeof v);
    v.param[0] = 1.0, v.nx = ks ? n : n - 1, v.ny = 1;
    v.length = ks ? 0.5 * (double)n : 1.0; /* KS at seed 001's dx = 0.5 */
    v.boundary = ks ? COHORT_BOUNDARY_PERIODIC : COHORT_BOUNDARY_NEUMANN;
    v.initial_kind = ks ? "uniform" : "cosine";
    v.dt = m->defaults->dt_auto(&v);
    v.stepper = kind, v.block_width = width;
    job j = {m, NULL, NULL, NULL, start, n, count, steps};
    CHECK_COHORT(m->stepper_alloc(m, be, &v, &j.stepper));
    CHECK_CUDA(cudaMalloc((void **)&j.u, (size_t)(n * count) * sizeof(double)));
    CHECK_CUDA(cudaMalloc((void **)&j.scratch, (size_t)(n * count) * sizeof(double)));
    float times[5];
    const float ms = bench_median_ms(job_restore, job_run, &j, 1, 5, times);
    CHECK_CUDA(cudaFree(j.u));
    CHECK_CUDA(cudaFree(j.scratch));
    m->stepper_free(j.stepper);
    return ms / (double)steps;
}

typedef struct copy_job {
    double *dst, *src;
    size_t bytes;
} copy_job;

static void copy_run(void *arg)
{
    copy_job *c = (copy_job *)arg;
    CHECK_CUDA(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice));
}

/* independent FMA chains: the FP64 rate this device reaches */
__global__ void fma_chains(double *out, int iterations)
{
    double a = threadIdx.x * 1e-9, b = 1.0 - a, c = 0.5 + a, d = 0.25 - a;
    for (int i = 0; i < iterations; ++i) {
        a = fma(a, 0.999999, 1e-7), b = fma(b, 0.999999, 1e-7);
        c = fma(c, 0.999999, 1e-7), d = fma(d, 0.999999, 1e-7);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}

typedef struct fma_job {
    double *out;
    int blocks, iterations;
} fma_job;

static void fma_run(void *arg)
{
    fma_job *f = (fma_job *)arg;
    fma_chains<<<f->blocks, 256>>>(f->out, f->iterations);
}

/* A member of model mi (0 heat1d, 1 ks1d) of n points from `start`, one launch a step: each
 * stepper's best width (a whole member for the swept one, too), in the table and the csv. */
static void one_member_row(FILE *csv, int mi, int64_t n, uint64_t seed, double *start)
{
    static const int64_t widths[] = {32, 64, 128, 256, 512, 1024, 0 /* a whole member */};
    static const char *models[] = {"heat1d", "ks1d"};
    random_state<<<1024, 256>>>(start, n, mi ? 1.0 : 0.5, seed);
    CHECK_CUDA(cudaGetLastError());
    double best[2] = {INFINITY, INFINITY};
    int64_t best_width[2] = {0, 0};
    for (int kind = 0; kind < 2; ++kind)
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; ++wi) {
            const int64_t width = widths[wi] ? widths[wi] : n;
            if (width > 4096 || (widths[wi] == 0 && kind == COHORT_STEPPER_CLASSIC)) continue;
            /* enough tiers for several phases of the widest tile */
            const int64_t steps = mi ? 2048 : 4096;
            const double ms =
                time_per_step(models[mi], n, 1, (cohort_stepper_kind)kind, width, steps, start);
            fprintf(csv, "%s,%lld,1,%s,%lld,%.9g\n", models[mi], (long long)n,
                    kind == COHORT_STEPPER_SWEPT ? "swept" : "classic", (long long)width, ms);
            if (ms < best[kind]) best[kind] = ms, best_width[kind] = width;
        }
    printf("%-7s %8lld | %-8s %6lld %12.3f | %-8s %6lld %12.3f | %6.2fx\n", models[mi],
           (long long)n, "classic", (long long)best_width[COHORT_STEPPER_CLASSIC],
           1e3 * best[COHORT_STEPPER_CLASSIC], "swept", (long long)best_width[COHORT_STEPPER_SWEPT],
           1e3 * best[COHORT_STEPPER_SWEPT],
           best[COHORT_STEPPER_CLASSIC] / best[COHORT_STEPPER_SWEPT]);
    char workload[96];
    snprintf(workload, sizeof workload, "%s one member, N = %lld, a step (swept, width %lld)",
             models[mi], (long long)n, (long long)best_width[COHORT_STEPPER_SWEPT]);
    bench_table_row("bench-swept", workload, best[COHORT_STEPPER_SWEPT], 0.0, NULL,
                    "cohort's classic stepper", best[COHORT_STEPPER_CLASSIC]);
    fflush(stdout);
}

/* The FP64 FMA rate of this device (flop/s): chains of FMAs on sms x 16 blocks. */
static double fma_peak(int sms)
{
    float times[9];
    fma_job f = {NULL, sms * 16, 1 << 14};
    CHECK_CUDA(cudaMalloc((void **)&f.out, (size_t)f.blocks * 256 * sizeof(double)));
    const double fma_ms = bench_median_ms(NULL, fma_run, &f, 2, 9, times);
    CHECK_CUDA(cudaFree(f.out));
    return 2.0 * 4.0 * (double)f.iterations * f.blocks * 256 / (fma_ms * 1e-3);
}

/* The batched regime: 65,536 KS members of 256 points (4,096 with quick), on chip against the
 * classic stepper, a copy of the state and the FP64 rate. */
static void batched_rows(FILE *csv, int quick, double *start, int sms)
{
    const int64_t members = quick ? 4096 : 65536, n = 256, steps = 200;
    random_state<<<1024, 256>>>(start, n * members, 1.0, 99);
    CHECK_CUDA(cudaGetLastError());
    const double on_chip = time_per_step("ks1d", n, members, COHORT_STEPPER_SWEPT, 0, steps, start);
    const double classic_batch =
        time_per_step("ks1d", n, members, COHORT_STEPPER_CLASSIC, 256, steps, start);
    copy_job c = {NULL, start, (size_t)(n * members) * sizeof(double)};
    CHECK_CUDA(cudaMalloc((void **)&c.dst, c.bytes));
    float times[9];
    const double copy_ms = bench_median_ms(NULL, copy_run, &c, 2, 9, times);
    CHECK_CUDA(cudaFree(c.dst));
    const double peak = fma_peak(sms);
    /* flops per point-step: each of the two tiers takes 3 adds, 1 multiply and 4 FMAs
     * (swept1d_ks_minus_f and the update) = 12 */
    const double flops = 24.0 * (double)(n * members) / (on_chip * 1e-3);
    printf("\nbatched: %lld ks1d members x %lld points, %lld steps per advance\n",
           (long long)members, (long long)n, (long long)steps);
    printf("  on chip (swept, a member per warp):  %.3f us per step = %.3f ns per member-step\n",
           1e3 * on_chip, 1e6 * on_chip / (double)members);
    printf("  classic (2 passes per step):         %.3f us per step\n", 1e3 * classic_batch);
    printf("  one device-copy pass of the state:   %.3f us (%.0f GB/s read + write)\n",
           1e3 * copy_ms, 2.0 * (double)c.bytes / (copy_ms * 1e-3) / 1e9);
    printf("  on-chip step vs one copy pass: %.2fx faster; %.2f TFLOP/s = %.0f%% of the %.2f "
           "TFLOP/s FP64 FMA rate measured here\n",
           copy_ms / on_chip, flops / 1e12, 100.0 * flops / peak, peak / 1e12);
    char workload[96];
    snprintf(workload, sizeof workload, "ks1d %lld members x %lld points, a step on chip",
             (long long)members, (long long)n);
    bench_table_row("bench-swept", workload, on_chip, 24.0 * (double)(n * members) / peak * 1e3,
                    "24 flops a point-step at the measured FP64 FMA rate",
                    "cohort's classic stepper", classic_batch);
    fprintf(csv, "ks1d,%lld,%lld,swept,%lld,%.9g\n", (long long)n, (long long)members, (long long)n,
            on_chip);
    fprintf(csv, "ks1d,%lld,%lld,classic,256,%.9g\n", (long long)n, (long long)members,
            classic_batch);
    fprintf(csv, "copy,%lld,%lld,copy,0,%.9g\n", (long long)n, (long long)members, copy_ms);
    fprintf(csv, "fp64_peak_tflops,0,0,fma,0,%.9g\n", peak / 1e12);
}

int main(int argc, char **argv)
{
    const char *csv_path = "bench-swept.csv";
    int quick = 0;
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--quick"))
            quick = 1;
        else
            csv_path = argv[a];
    }
    FILE *csv = fopen(csv_path, "w");
    if (!csv) {
        perror(csv_path);
        return 1;
    }
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    printf("bench-swept on %s (%d SMs), double precision\n", prop.name, prop.multiProcessorCount);
    fprintf(csv, "model,n,members,stepper,width,ms_per_step\n");
    const int64_t sizes[] = {2048,   4096,   8192,    16384, 32768,  65536, 131072,
                             262144, 524288, 1048576, 3000,  100000, 777777};
    const size_t n_sizes = quick ? 3 : sizeof sizes / sizeof sizes[0];
    printf("%-7s %8s | %-8s %6s %12s | %-8s %6s %12s | %7s\n", "model", "N", "classic", "width",
           "us/step", "swept", "width", "us/step", "speedup");
    double *start = NULL;
    CHECK_CUDA(cudaMalloc((void **)&start, (size_t)65536 * 256 * sizeof(double)));
    for (int mi = 0; mi < 2; ++mi)
        for (size_t si = 0; si < n_sizes; ++si)
            one_member_row(csv, mi, sizes[si], 1234567 + si, start);
    batched_rows(csv, quick, start, prop.multiProcessorCount);
    fclose(csv);
    CHECK_CUDA(cudaFree(start));
    return 0;
}
