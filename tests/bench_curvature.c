/* bench-curvature: the curvature flows (seed 000) to T = 0.1 through the model registry (no file
 * output), as the seed's Tables 6-7 time them: the manufactured solution on [-4, 4]^2, Dirichlet,
 * records every 0.01, time.tolerance 1e-8; single members N = 16^2 .. 1024^2 (mcf2d) and 16^2 ..
 * 256^2 (willmore2d), then ensembles of 4,096 members of 64^2. On either backend (the cpu run
 * gives the ratio to cohort's own cpu backend).
 *
 * Per grid point and accepted-or-rejected Runge-Kutta-Merson step, this implementation moves
 *   stage arguments 24 + 32 + 32 + 40 B, error estimate 32 B, update 40 B,
 *   right-hand sides 5 x 16 B (mcf2d: read the argument, write k) or 5 x 40 B (willmore2d: the w
 *   pass reads phi and writes w, the flux pass reads phi and w and writes k),
 * so 280 B (mcf2d) and 400 B (willmore2d) per point and step, neighbours counted once (they come
 * through the caches); the forcing's tables are not counted (per axis, and F_W's 56 B a node,
 * which every member shares: 0.24 MB at 64^2, read through the L2 cache). Operations per point and
 * step, counting sqrt, sin and cos as one as the seed does (pow and exp do not occur per node:
 * zeta's factors and their derivatives come from per-axis tables): 5 right-hand sides of 85 (mean
 * curvature, the seed's count) + 34 (F_MC: 22, 5 jets of 2, sin and cos), or 85 + 218 + 20 (w
 * pass, Willmore flux, F_W: 18 from its table entry, sin and cos; the forcing's operators as
 * counted in the generated curvature_exact.h), plus 35 for the stage combinations, error and
 * update: 630 and 1,650.
 *
 * Timing: the whole integration from the initial condition, wall clock after a synchronisation,
 * median over repetitions (as many as fit in ~2 s, at least 1, at most 11) after one warm-up run;
 * a warm-up over 5 s is the measurement itself. The runs of a row share one stepper, as a run's
 * chunks do, so the warm-up alone allocates its working memory: its time is the last column
 * ("first s"). Usage:
 *   bench-curvature [--backend cuda|cpu] [--max-n N] [--min-willmore-n N] [--max-willmore-n N]
 *                   [--members M (0: no ensembles)] [--t-end T] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "bench_check.h"
#include "models/model.h"

typedef struct result {
    double seconds;
    int64_t steps; /* accepted + rejected, the largest over the members */
    double error;  /* max |phi - zeta| at T over the members */
} result;

static cohort_model_values values_for(const cohort_model *m, int64_t N, double t_end)
{
    cohort_model_values v = {.nx = N,
                             .ny = N,
                             .length = 8.0,
                             .dt = t_end < 0.01 ? t_end : 0.01, /* records every 0.01 */
                             .origin = -4.0,
                             .boundary = COHORT_BOUNDARY_DIRICHLET,
                             .tolerance = 1e-8,
                             .initial_kind = "manufactured",
                             .amplitude = 1.0,
                             .mode = 1};
    for (int j = 0; j < m->n_params; ++j) v.param[j] = strtod(m->params[j].default_value, NULL);
    v.tau0 = m->defaults->dt_auto(&v);
    return v;
}

/* One integration from t = 0 to t_end with the stepper made for v (whose working memory its first
 * run allocates) */
static result run_once(const cohort_backend *be, const cohort_model *m, void *stepper,
                       const cohort_model_values *v, int64_t members, double t_end)
{
    const int64_t n = (v->nx + 1) * (v->ny + 1), intervals = (int64_t)llround(t_end / v->dt);
    double *u = NULL;
    CHECK_COHORT(be->alloc((void **)&u, (size_t)(n * members) * sizeof(double)));
    CHECK_COHORT(
        be->fill(u, NAN, (size_t)(n * members))); /* poisoned: initial_fill must write all */
    CHECK_COHORT(m->initial_fill(stepper, u, NULL, NULL, members, members));
    CHECK_COHORT(be->synchronize());
    const double start = cohort_seconds();
    for (int64_t k = 0; k < intervals; ++k) {
        cohort_model_state s = {u, NULL, NULL, NULL, NULL, members, 0, members};
        CHECK_COHORT(m->stepping->step(stepper, &s, k));
    }
    CHECK_COHORT(be->synchronize());
    result r = {cohort_seconds() - start, 0, 0.0};
    int64_t *acc = malloc((size_t)members * sizeof *acc),
            *rej = malloc((size_t)members * sizeof *rej);
    double *values = malloc((size_t)(members * (m->observing->n_observables + 3)) * sizeof *values);
    CHECK_COHORT(m->adaptive->counters(stepper, members, acc, rej));
    CHECK_COHORT(m->observing->observe(stepper, u, intervals * v->dt, values, members, members));
    for (int64_t k = 0; k < members; ++k) {
        r.steps = acc[k] + rej[k] > r.steps ? acc[k] + rej[k] : r.steps;
        const double e = values[(m->observing->n_observables + 2) * members + k];
        r.error = e > r.error || e != e ? e : r.error;
    }
    free(acc), free(rej), free(values);
    be->release(u);
    return r;
}

static void bench(const cohort_backend *be, const char *name, int64_t N, int64_t members,
                  double t_end, double paper_seconds, double copy_gbs)
{
    const cohort_model *m = cohort_model_find(name);
    const int willmore = !strcmp(name, "willmore2d");
    /* warm-up, and the repetition count; a run over 5 s is its own measurement (its start-up
     * costs are below the noise) */
    const cohort_model_values v = values_for(m, N, t_end);
    void *stepper = NULL;
    CHECK_COHORT(m->stepper_alloc(m, be, &v, &stepper));
    result first = run_once(be, m, stepper, &v, members, t_end);
    int reps = first.seconds > 5.0 ? 0 : first.seconds > 0.0 ? (int)(2.0 / first.seconds) : 11;
    reps = reps > 11 ? 11 : reps < 1 && first.seconds <= 5.0 ? 1 : reps;
    double times[11];
    result r = first;
    for (int k = 0; k < reps; ++k) {
        r = run_once(be, m, stepper, &v, members, t_end);
        times[k] = r.seconds;
    }
    qsort(times, (size_t)reps, sizeof *times, compare_doubles);
    const double t = reps > 0 ? times[reps / 2] : first.seconds;
    const double points = (double)((N + 1) * (N + 1) * members);
    const double bytes = (willmore ? 400.0 : 280.0) * points * (double)r.steps;
    const double flops = (willmore ? 1650.0 : 630.0) * points * (double)r.steps;
    printf("%-10s %5lld^2 x %5lld %8lld %11.4g %11.4g %9.3g %8.1f %6.2f", name, (long long)N,
           (long long)members, (long long)r.steps, t, t / (double)r.steps * 1e6, flops / t * 1e-9,
           bytes / t * 1e-9, copy_gbs > 0.0 ? bytes / t * 1e-9 / copy_gbs : 0.0);
    if (paper_seconds > 0.0)
        printf(" %9.4g %8.3g", paper_seconds, paper_seconds / t);
    else
        printf(" %9s %8s", "-", "-");
    printf("  %.2e %11.4g\n", r.error, first.seconds);
    char workload[96];
    snprintf(workload, sizeof workload, "%s, %lld^2 x %lld, T = %g (%lld steps)", name,
             (long long)N, (long long)members, t_end, (long long)r.steps);
    bench_table_row(
        "bench-curvature", workload, 1e3 * t, copy_gbs > 0.0 ? bytes / copy_gbs * 1e-6 : 0.0,
        "its bytes at the device-copy bandwidth", "seed 000, GTX 280", 1e3 * paper_seconds);
    fflush(stdout);
    m->stepper_free(stepper);
}

int main(int argc, char **argv)
{
    const char *backend = "cuda";
    int64_t max_n = 1024, max_w = 256, min_w = 16, members = 4096;
    double t_end = 0.1;
    for (int k = 1; k + 1 < argc; k += 2) {
        if (!strcmp(argv[k], "--backend"))
            backend = argv[k + 1];
        else if (!strcmp(argv[k], "--max-n"))
            max_n = atoll(argv[k + 1]);
        else if (!strcmp(argv[k], "--max-willmore-n"))
            max_w = atoll(argv[k + 1]);
        else if (!strcmp(argv[k], "--min-willmore-n"))
            min_w = atoll(argv[k + 1]);
        else if (!strcmp(argv[k], "--members"))
            members = atoll(argv[k + 1]);
        else if (!strcmp(argv[k], "--t-end"))
            t_end = atof(argv[k + 1]);
        else {
            fprintf(stderr, "unknown option %s\n", argv[k]);
            return 2;
        }
    }
    const cohort_backend *be = NULL;
    CHECK_COHORT(cohort_backend_get(backend, &be));
    char device[256];
    be->describe(device, sizeof device);
    const double copy_gbs = bench_copy_bandwidth(be);
    printf("bench-curvature on %s (%s); device copy %.0f GB/s; T = %g\n", be->name, device,
           copy_gbs, t_end);
    printf("%-10s %17s %8s %11s %11s %9s %8s %6s %9s %8s  %-8s %11s\n", "model", "grid x members",
           "steps", "time s", "us/step", "GFLOPS", "GB/s", "/copy", "seed GPU", "speed-up",
           "max err", "first s");
    /* seed 000, Table 6 (mcf, double, GTX 280) and Table 7 (Willmore) GPU times in s */
    static const double mcf_paper[] = {0.05, 0.06, 0.17, 0.66, 9.0, 138, 2213};
    static const double willmore_paper[] = {0.19, 1.44, 38, 1494, 93031};
    for (int k = 0; (16 << k) <= max_n; ++k)
        bench(be, "mcf2d", 16 << k, 1, t_end, t_end == 0.1 ? mcf_paper[k] : 0.0, copy_gbs);
    for (int k = 0; (16 << k) <= max_w; ++k)
        if ((16 << k) >= min_w)
            bench(be, "willmore2d", 16 << k, 1, t_end, t_end == 0.1 ? willmore_paper[k] : 0.0,
                  copy_gbs);
    if (members > 0) {
        bench(be, "mcf2d", 64, members, t_end, 0.0, copy_gbs);
        bench(be, "willmore2d", 64, members, t_end, 0.0, copy_gbs);
    }
    return 0;
}
