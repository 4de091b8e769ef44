/* bench-lmsor: seed 004's Table 4 / Fig. 1 on this machine. Problem 2, Re = 10, sqrt(N) = 402 ..
 * 4002, one member each, solved to ||u||_inf <= 1e-6 by LMSOR on the cpu backend (all cores) and,
 * where a device is usable, the cuda backend: iterations, seconds and Mega-elements/s (iterations
 * N / seconds), beside the paper's GTX 480 (kernel #2) and its single-thread cpu. The seconds are
 * the whole relax_solve (cuda: the median of 3 after a warm-up): the setup of omega, the transfers
 * and every iteration's check, so the rates are an execution time's, the paper's "execution time"
 * column, not its bare kernel time.
 *
 * The floor: an update reads and writes its point (16 B), reads its omega (8 B) and, through the
 * cache, a quarter of each of 4 neighbours of the other colour (8 B): 32 B, so the backend's copy
 * bandwidth B gives B / 32 B updates a second; "of floor" is the measured rate over that.
 * Then an ensemble of 16,384 members of 64^2 (problem 1, Re spread over 10 .. 10^3), against the
 * issue's target: the copy time of the fields (read + write, at B) times the mean iterations. The
 * row is the solve as `cohort run` makes it without an archive: seed 004's start formed on the
 * device and no field brought back; beside it, with the fields brought back (output.archive =
 * final), and with host arrays both ways (as before the start moved to the device), and the
 * fields' transfers alone (the same bytes, pageable host memory, median of 3).
 *
 * Usage: bench-lmsor [--sizes 402,1002,...] [--members M] [--cpu-max N] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "bench_check.h"
#include "relax/relax.h"
#include "relax_paper.h"

/* How a solve's fields travel: as host arrays both ways, or as `cohort run` does (seed 004's
 * start formed where the solve runs), with the final iterates brought back (output.archive =
 * final) or not (none). */
typedef enum { FIELDS_BOTH_WAYS, FIELDS_BACK, FIELDS_NONE } fields_travel;

/* seconds of a solve of `count` members of m^2 (problem, re[k]; the median of `repeats`), the
 * members' total iterations and converged count */
static double solve_seconds(const cohort_backend *be, int problem, int64_t m, int64_t count,
                            const double *re, int repeats, fields_travel travel,
                            int64_t *iterations, int64_t *converged)
{
    const int64_t ring = (m + 2) * (m + 2);
    double *u = malloc((size_t)(count * ring) * sizeof *u);
    relax_member_result *r = malloc((size_t)count * sizeof *r);
    if (!u || !r) {
        fprintf(stderr, "bench-lmsor: out of memory\n");
        exit(1);
    }
    const relax_problem p = {m, m, RELAX_LMSOR, 1e-6, 20000, 1000, 0, problem};
    double times[9];
    for (int k = 0; k < repeats; ++k) {
        for (int64_t q = 0; q < count; ++q) relax_paper_initial(m, m, u + q * ring);
        const double start = cohort_seconds();
        CHECK_COHORT(relax_solve(be, &p, NULL, NULL, re, travel == FIELDS_BOTH_WAYS ? u : NULL,
                                 travel == FIELDS_NONE ? NULL : u, count, r, NULL));
        times[k] = cohort_seconds() - start;
    }
    qsort(times, (size_t)repeats, sizeof *times, compare_doubles);
    const double seconds = times[repeats / 2];
    *iterations = 0, *converged = 0;
    for (int64_t k = 0; k < count; ++k)
        *iterations += r[k].iterations, *converged += r[k].converged;
    free(u), free(r);
    return seconds;
}

/* seconds to move `bytes` from pageable host memory to be and back (median of 3) */
static double transfer_seconds(const cohort_backend *be, size_t bytes)
{
    double *host = malloc(bytes), *device = NULL, times[3];
    if (!host) {
        fprintf(stderr, "bench-lmsor: out of memory\n");
        exit(1);
    }
    memset(host, 1, bytes);
    CHECK_COHORT(be->alloc((void **)&device, bytes));
    for (int k = 0; k < 3; ++k) {
        const double start = cohort_seconds();
        CHECK_COHORT(be->copy_to_device(device, host, bytes));
        CHECK_COHORT(be->copy_to_host(host, device, bytes));
        CHECK_COHORT(be->synchronize());
        times[k] = cohort_seconds() - start;
    }
    be->release(device), free(host);
    qsort(times, 3, sizeof *times, compare_doubles);
    return times[1];
}

typedef struct bench_options {
    int64_t sizes[16], n_sizes, members, cpu_max;
} bench_options;

/* The options (usage above); 0, or 2 after the usage for a bad one. */
static int parse_options(int argc, char **argv, bench_options *o)
{
    *o = (bench_options){{402, 1002, 2002, 3002, 4002}, 5, 16384, 4002};
    for (int a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--sizes") && a + 1 < argc) {
            o->n_sizes = 0;
            for (char *t = strtok(argv[++a], ","); t && o->n_sizes < 16; t = strtok(NULL, ","))
                o->sizes[o->n_sizes++] = atoll(t);
        } else if (!strcmp(argv[a], "--members") && a + 1 < argc) {
            o->members = atoll(argv[++a]);
        } else if (!strcmp(argv[a], "--cpu-max") && a + 1 < argc) {
            o->cpu_max = atoll(argv[++a]);
        } else {
            fprintf(stderr,
                    "usage: bench-lmsor [--sizes 402,1002,...] [--members M] [--cpu-max N]\n");
            return 2;
        }
    }
    return 0;
}

/* Table 4's row of one size on one backend (on_device: the cuda one), beside the paper's rates
 * (NAN where the paper has no such size). */
static void table4_row(const cohort_backend *be, int on_device, int64_t m, double copy_gbs)
{
    static const double paper_gpu[5] = {1329.55, 2354.79, 2665.86, 2750.96, 2776.04};
    static const double paper_cpu[5] = {57.55, 49.10, 42.17, 26.03, 24.90};
    static const int64_t paper_sizes[5] = {402, 1002, 2002, 3002, 4002};
    double pg = NAN, pc = NAN;
    for (int q = 0; q < 5; ++q)
        if (paper_sizes[q] == m) pg = paper_gpu[q], pc = paper_cpu[q];
    const double re = 10.0;
    int64_t iterations, converged;
    const double seconds = solve_seconds(be, 2, m, 1, &re, on_device ? 3 : 1, FIELDS_BOTH_WAYS,
                                         &iterations, &converged);
    const double rate = (double)iterations * (double)(m * m) / seconds / 1e6;
    printf("%8lld %10lld | %-6s %10.3f %12.1f %8.2f | %12.1f %12.1f\n", (long long)m,
           (long long)iterations, be->name, seconds, rate, rate / (copy_gbs * 1e3 / 32.0), pg, pc);
    char workload[96];
    snprintf(workload, sizeof workload, "LMSOR problem 2, Re = 10, %lld^2 (%s, %lld iterations)",
             (long long)m, be->name, (long long)iterations);
    /* the floor: 32 B an update at the device's copy bandwidth; none on the cpu, whose caches
     * keep rows between the colours' sweeps (measured: 2.1-2.7x faster than 32 B an update at
     * its copy bandwidth, H100 host, 402^2-3002^2); the paper's rate */
    const double updates = (double)iterations * (double)(m * m);
    const double paper = on_device ? pg : pc;
    bench_table_row("bench-lmsor", workload, 1e3 * seconds,
                    on_device ? updates * 32.0 / (copy_gbs * 1e6) : 0.0,
                    "32 B an update at the copy bandwidth",
                    on_device ? "seed 004 GTX 480 rate" : "seed 004 CPU rate",
                    isnan(paper) ? 0.0 : updates / (paper * 1e3));
    fflush(stdout);
}

/* The ensemble's rows on one backend: `members` members of m^2, problem 1, Re at res. */
static void ensemble_rows(const cohort_backend *be, int on_device, int64_t members, int64_t m,
                          const double *res, double copy_gbs)
{
    const int repeats = on_device ? 3 : 1;
    int64_t iterations, converged;
    /* as cohort run: the start formed on the device, the fields brought back only for the
     * archive (the row and the target: without it) */
    const double seconds =
        solve_seconds(be, 1, m, members, res, repeats, FIELDS_NONE, &iterations, &converged);
    const double archived =
        solve_seconds(be, 1, m, members, res, repeats, FIELDS_BACK, &iterations, &converged);
    const double both =
        solve_seconds(be, 1, m, members, res, repeats, FIELDS_BOTH_WAYS, &iterations, &converged);
    const double mean = (double)iterations / (double)members;
    const size_t field_bytes = (size_t)(members * (m + 2) * (m + 2)) * sizeof(double);
    const double target = 2.0 * (double)field_bytes / (copy_gbs * 1e9) * mean;
    printf("  %-6s %8.4f s, %lld converged, mean %.1f iterations, %.1f Melem/s; target "
           "(copy of the fields x mean iterations) %.4f s: %.2fx it\n",
           be->name, seconds, (long long)converged, mean,
           (double)iterations * (double)(m * m) / seconds / 1e6, target, seconds / target);
    char workload[96];
    snprintf(workload, sizeof workload, "LMSOR ensemble, %lld members of %lld^2 (%s)",
             (long long)members, (long long)m, be->name);
    bench_table_row("bench-lmsor", workload, 1e3 * seconds, 1e3 * target,
                    "a copy of the fields per mean iteration", NULL, 0.0);
    printf("  %-6s with the fields brought back (output.archive = final) %.4f s: %.2fx the "
           "target; sent and brought back (host arrays both ways) %.4f s\n",
           be->name, archived, archived / target, both);
    if (on_device)
        printf("  %-6s host <-> device transfers of the fields alone %.4f s\n", be->name,
               transfer_seconds(be, field_bytes));
}

int main(int argc, char **argv)
{
    bench_options o;
    if (parse_options(argc, argv, &o)) return 2;
    const cohort_backend *backends[2] = {&cohort_backend_cpu, NULL};
    if (cohort_backend_get("cuda", &backends[1]) != COHORT_OK) backends[1] = NULL;
    double copy_gbs[2] = {0.0, 0.0};
    for (int b = 0; b < 2; ++b) {
        if (!backends[b]) continue;
        char device[256];
        backends[b]->describe(device, sizeof device);
        copy_gbs[b] = bench_copy_bandwidth(backends[b]);
        printf("%s: %s; copy %.0f GB/s, floor %.0f Melem/s (32 B an update)\n", backends[b]->name,
               device, copy_gbs[b], copy_gbs[b] * 1e3 / 32.0);
    }
    if (backends[1]) { /* warm-up: the context, the kernels' first loads */
        const double re = 10.0;
        int64_t iterations, converged;
        solve_seconds(backends[1], 2, 66, 1, &re, 1, FIELDS_BOTH_WAYS, &iterations, &converged);
    }
    printf("%8s %10s | %-6s %10s %12s %8s | %12s %12s\n", "sqrt(N)", "iterations", "backend",
           "seconds", "Melem/s", "of floor", "paper GPU", "paper CPU");
    for (int64_t s = 0; s < o.n_sizes; ++s)
        for (int b = 0; b < 2; ++b)
            if (backends[b] && !(b == 0 && o.sizes[s] > o.cpu_max))
                table4_row(backends[b], b, o.sizes[s], copy_gbs[b]);
    /* an ensemble of small members */
    const int64_t m = 64;
    double *res = malloc((size_t)o.members * sizeof *res);
    for (int64_t k = 0; k < o.members; ++k)
        res[k] = pow(10.0, 1.0 + 2.0 * (double)k / (double)o.members);
    printf("\nensemble: %lld members of %lld^2, problem 1, Re from 10 to 1e3\n",
           (long long)o.members, (long long)m);
    for (int b = 0; b < 2; ++b)
        if (backends[b]) ensemble_rows(backends[b], b, o.members, m, res, copy_gbs[b]);
    free(res);
    return 0;
}
