/* bench-rkm-paths: the time per Runge-Kutta-Merson step of the curvature flows' paths on cuda, the
 * measurement behind rkm.c's choice between the per-stage kernels and the fused advance
 * (ode/rkm_cuda.cuh) and the launch's blocks per member. mcf2d and willmore2d against the
 * manufactured solution (cohort's default zeta) on [-4, 4]^2, Dirichlet, time.tolerance 1e-8,
 * `count` members of N^2 cells advanced to t_to = 300 first steps (dt_auto), then timed over the
 * same span again: wall clock after a synchronisation, median of 3, divided by the steps (accepted
 * and rejected, the most of any member) of the span.
 *   path "stage": the per-stage kernels; "fused B": the fused advance with B blocks a member
 *   (B = 0: the launch's own choice).
 * Usage: bench-rkm-paths [--sizes "16 32 64 ..."] [--counts "1 4 ..."] [--blocks "1 2 4 ..."] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "bench_check.h"
#include "models/curvature2d/curvature2d.h"
#include "models/curvature2d/curvature_kernels.h"
#include "ode/rkm.h"

typedef struct flow {
    const curvature_kernels *k;
    curvature_grid g;
    double *w;
    int64_t blocks; /* < 0: per stage */
} flow;

static int flow_rhs(void *ctx, const double *t, const double *u, double *f, int64_t ld,
                    int64_t count)
{
    flow *c = ctx;
    if (c->w) COHORT_CALL(c->k->w(&c->g, t, u, c->w, ld, count));
    return c->k->rhs(&c->g, t, u, c->w, f, ld, count);
}

static int flow_fused(void *ctx, const rkm_fused_args *a)
{
    flow *c = ctx;
    rkm_fused_args b = *a;
    b.blocks_per_member = c->blocks;
    return c->k->advance_fused(&c->g, c->w, &b);
}

/* microseconds per step of one span, or a negative value where the path refused */
static double span(const cohort_backend *be, flow *c, int64_t N, int64_t count, double tau0,
                   double t_to, int64_t *steps)
{
    const int64_t n = (N + 1) * (N + 1);
    rkm_integrator *r = NULL;
    double *u = NULL;
    int64_t *acc = malloc((size_t)count * sizeof *acc), *rej = malloc((size_t)count * sizeof *rej);
    CHECK_COHORT(rkm_alloc(be, n, count, &r));
    CHECK_COHORT(be->alloc((void **)&u, (size_t)(n * count) * sizeof(double)));
    CHECK_COHORT(c->k->initial(&c->g, 1.0, NULL, 1.0, u, count, count));
    CHECK_COHORT(rkm_start(r, 0.0, tau0, count));
    const rkm_rhs f = {flow_rhs, c, flow_fused};
    CHECK_COHORT(be->synchronize());
    const double start = cohort_seconds();
    int rc = rkm_advance_on(r, &f, u, t_to, 1e-8, count,
                            c->blocks < 0 ? RKM_PATH_PER_STAGE : RKM_PATH_FUSED);
    if (rc == COHORT_OK) rc = be->synchronize();
    const double seconds = cohort_seconds() - start;
    double us = -1.0;
    if (rc == COHORT_OK) {
        CHECK_COHORT(rkm_members(r, count, acc, rej, NULL, NULL));
        *steps = 0;
        for (int64_t m = 0; m < count; ++m)
            *steps = acc[m] + rej[m] > *steps ? acc[m] + rej[m] : *steps;
        us = seconds / (double)*steps * 1e6;
    }
    free(acc), free(rej);
    be->release(u);
    rkm_free(r);
    return us;
}

static void row(const cohort_backend *be, int willmore, int64_t N, int64_t count,
                const int64_t *blocks, int n_blocks)
{
    flow c = {COHORT_KERNELS(be, curvature_kernels), {0}, NULL, -1};
    const int64_t n = (N + 1) * (N + 1);
    CHECK_COHORT(curvature_grid_make(be, N, N, 8.0, -4.0, 0, 1, willmore,
                                     curvature_exact_params_make(2.0, 1.0, 0.5), &c.g));
    if (willmore) CHECK_COHORT(be->alloc((void **)&c.w, (size_t)(n * count) * sizeof(double)));
    const double h = 8.0 / (double)N;
    const double tau0 = willmore ? 0.01 * h * h * h * h : 0.1 * h * h, t_to = 300.0 * tau0;
    printf("%-10s %4lld^2 x %4lld", willmore ? "willmore2d" : "mcf2d", (long long)N,
           (long long)count);
    for (int b = -1; b < n_blocks; ++b) {
        c.blocks = b < 0 ? -1 : blocks[b];
        double times[3];
        int64_t steps = 0;
        span(be, &c, N, count, tau0, t_to, &steps); /* warm-up */
        for (int k = 0; k < 3; ++k) times[k] = span(be, &c, N, count, tau0, t_to, &steps);
        qsort(times, 3, sizeof *times, compare_doubles);
        if (times[1] < 0.0)
            printf(" %9s", "-");
        else
            printf(" %9.2f", times[1]);
        if (b < 0) printf(" (%5lld)", (long long)steps);
    }
    printf("\n");
    fflush(stdout);
    be->release(c.w);
    curvature_grid_release(be, &c.g);
}

static int parse_list(const char *s, int64_t *out, int most)
{
    int k = 0;
    for (char *end = NULL; k < most; s = end) {
        const long long v = strtoll(s, &end, 10);
        if (end == s) break;
        out[k++] = v;
    }
    return k;
}

int main(int argc, char **argv)
{
    int64_t sizes[16] = {16, 32, 64, 128, 256}, counts[16] = {1, 4},
            blocks[16] = {1, 2, 4, 8, 16, 0};
    int n_sizes = 5, n_counts = 2, n_blocks = 6;
    for (int k = 1; k + 1 < argc; k += 2) {
        if (!strcmp(argv[k], "--sizes"))
            n_sizes = parse_list(argv[k + 1], sizes, 16);
        else if (!strcmp(argv[k], "--counts"))
            n_counts = parse_list(argv[k + 1], counts, 16);
        else if (!strcmp(argv[k], "--blocks"))
            n_blocks = parse_list(argv[k + 1], blocks, 16);
        else {
            fprintf(stderr, "unknown option %s\n", argv[k]);
            return 2;
        }
    }
    const cohort_backend *be = NULL;
    CHECK_COHORT(cohort_backend_get("cuda", &be));
    char device[256];
    be->describe(device, sizeof device);
    printf("bench-rkm-paths on %s: microseconds per step (steps of the span)\n", device);
    printf("%-10s %15s %9s %7s", "model", "grid x members", "stage", "");
    for (int b = 0; b < n_blocks; ++b) printf(" %6s %2lld", "fused", (long long)blocks[b]);
    printf("\n");
    for (int willmore = 0; willmore <= 1; ++willmore)
        for (int s = 0; s < n_sizes; ++s)
            for (int q = 0; q < n_counts; ++q)
                row(be, willmore, sizes[s], counts[q], blocks, n_blocks);
    return 0;
}
