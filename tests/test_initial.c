/* Initial conditions: a member's noise does not depend on the chunking (bitwise), is mean-free,
 * uniform in [-A, A] before its mean is removed, is values 0 .. N-1 of Philox stream m
 * (backend/philox.h, evaluated on the host as the reference), and (on cuda) the device draws the
 * cpu backend's bits; cosine initial conditions are the exact mode. Usage: test_initial --backend
 * cpu|cuda. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "backend/philox.h"
#include "run/initial.h"
#include "test_common.h"

enum { N = 37, LD = 100 };

/* Fills members [0, LD) in chunks of `chunk` and copies the state to host. */
static int fill(const cohort_backend *be, const initial1d *ic, int64_t chunk, double *host)
{
    double *state = NULL, *scratch = NULL;
    int rc = be->alloc((void **)&state, N * LD * sizeof(double));
    if (!rc) rc = be->alloc((void **)&scratch, N * LD * sizeof(double));
    if (!rc) rc = be->fill(state, NAN, N * LD);
    for (int64_t m0 = 0; m0 < LD && !rc; m0 += chunk)
        rc = initial1d_fill(be, ic, NULL, state, scratch, N, LD, m0, m0,
                            m0 + chunk <= LD ? chunk : LD - m0);
    if (!rc) rc = be->synchronize();
    if (!rc) rc = be->copy_to_host(host, state, N * LD * sizeof(double));
    be->release(state);
    be->release(scratch);
    return rc;
}

static double raw_member_value(const initial1d *ic, int64_t m, int64_t i)
{
    double raw[N];
    for (int k = 0; k < N; ++k) raw[k] = philox_uniform_value(ic->seed, (uint64_t)m, (uint64_t)k);
    double mean = 0.0;
    for (int k = 0; k < N; ++k) mean += 2.0 * ic->amplitude * raw[k] - ic->amplitude;
    return 2.0 * ic->amplitude * raw[i] - ic->amplitude - mean / N;
}

/* A Saltelli design's arms (5 of 2 replicates): arms 2.. draw arm 0's streams. */
static void saltelli_arms_case(const cohort_backend *be)
{
    enum { ARMS = 5, REPS = 2, PTS = 3, M = ARMS * REPS * PTS };
    static double arm[N * M];
    double *d = NULL;
    be->alloc((void **)&d, sizeof arm);
    EXPECT(be->uniform_members(d, N, 7 * ARMS * REPS, M, 99, ARMS, REPS) == COHORT_OK,
           "uniform with arms");
    be->copy_to_host(arm, d, sizeof arm);
    be->release(d);
    double worst_arm = 0.0;
    for (int k = 0; k < M; ++k) {
        const int a_arm = (k / REPS) % ARMS, own = a_arm < 2;
        const uint64_t stream = (uint64_t)(7 * ARMS * REPS + k - (own ? 0 : a_arm * REPS));
        for (int i = 0; i < N; i += 5)
            worst_arm = fmax(worst_arm,
                             fabs(arm[k * N + i] - philox_uniform_value(99, stream, (uint64_t)i)));
    }
    EXPECT(worst_arm == 0.0, "arms 2.. of each base point draw arm 0's noise: %.3e", worst_arm);
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    const initial1d noise = {.kind = INITIAL_UNIFORM, .amplitude = 0.1, .mode = 1, .seed = 2024};
    double *a = malloc(N * LD * sizeof *a), *b = malloc(N * LD * sizeof *b);
    EXPECT(fill(be, &noise, LD, a) == COHORT_OK, "fill: %s", cohort_error_detail());
    const int64_t chunks[] = {1, 7, 64};
    for (size_t c = 0; c < 3; ++c) {
        EXPECT(fill(be, &noise, chunks[c], b) == COHORT_OK, "fill: %s", cohort_error_detail());
        EXPECT(!memcmp(a, b, N * LD * sizeof *a), "chunk %lld: bitwise the same noise",
               (long long)chunks[c]);
    }
    double worst_mean = 0.0, var = 0.0, worst_abs = 0.0;
    for (int m = 0; m < LD; ++m) {
        double s = 0.0;
        for (int i = 0; i < N; ++i) {
            s += a[i * LD + m];
            var += a[i * LD + m] * a[i * LD + m];
            worst_abs = fmax(worst_abs, isnan(a[i * LD + m]) ? INFINITY : fabs(a[i * LD + m]));
        }
        worst_mean = fmax(worst_mean, fabs(s / N));
    }
    var /= N * LD;
    EXPECT(worst_mean <= 1e-16, "each member mean-free: worst |mean| %.3e", worst_mean);
    EXPECT(worst_abs <= 0.2, "values within 2A: %.3g", worst_abs);
    /* uniform on [-A, A] has variance A^2/3 (less its (N-1)/N for the removed mean) */
    const double expected = 0.01 / 3.0 * (N - 1) / N;
    EXPECT(fabs(var - expected) < 0.1 * expected, "variance %.4g vs %.4g", var, expected);
    EXPECT(a[0] != a[1] && a[0] != a[LD], "members and points differ");
    double worst_seq = 0.0;
    for (int m = 0; m < LD; m += 33)
        for (int i = 0; i < N; i += 6)
            worst_seq = fmax(worst_seq, fabs(a[i * LD + m] - raw_member_value(&noise, m, i)));
    EXPECT(worst_seq <= 1e-16, "member m is Philox stream m: %.3e", worst_seq);

    saltelli_arms_case(be);

    if (be->kind == COHORT_BACKEND_CUDA) { /* the device generator draws the host's numbers */
        enum { ODD = 11, MEMBERS = 1000 }; /* an odd length: the last value of a pair unused */
        static double dev[ODD * MEMBERS], host[ODD * MEMBERS];
        double *d = NULL;
        be->alloc((void **)&d, sizeof dev);
        be->fill(d, NAN, ODD * MEMBERS);
        const uint64_t first = ((uint64_t)1 << 40) - 77; /* high words of the stream in use */
        EXPECT(be->uniform_members(d, ODD, (int64_t)first, MEMBERS, 0xfedcba9876543210ull, 1, 1) ==
                   COHORT_OK,
               "device uniform");
        be->copy_to_host(dev, d, sizeof dev);
        be->release(d);
        EXPECT(cohort_backend_cpu.uniform_members(host, ODD, (int64_t)first, MEMBERS,
                                                  0xfedcba9876543210ull, 1, 1) == COHORT_OK,
               "host uniform");
        EXPECT(!memcmp(dev, host, sizeof dev), "cuRAND's device API draws the cpu backend's bits");
        EXPECT(fill(&cohort_backend_cpu, &noise, 13, b) == COHORT_OK, "cpu fill");
        double worst = 0.0;
        for (int k = 0; k < N * LD; ++k) worst = fmax(worst, fabs(a[k] - b[k]));
        EXPECT(worst <= 1e-16, "cuda and cpu initial conditions: %.3e", worst);
    }

    const initial1d cosine = {.kind = INITIAL_COSINE, .amplitude = 1e-6, .mode = 5, .seed = 1};
    EXPECT(fill(be, &cosine, 7, a) == COHORT_OK, "cosine");
    double worst_cos = 0.0;
    for (int m = 0; m < LD; ++m)
        for (int i = 0; i < N; ++i)
            worst_cos = fmax(worst_cos, fabs(a[i * LD + m] -
                                             1e-6 * cos(2.0 * 3.14159265358979323846 * 5 * i / N)));
    /* the reference evaluates cos at arguments up to 10 pi unreduced: ~10 pi eps relative */
    EXPECT(worst_cos <= 1e-14 * 1e-6, "cosine initial condition: %.3e", worst_cos);
    double *dummy = NULL;
    be->alloc((void **)&dummy, 64 * sizeof(double));
    EXPECT(initial1d_fill(be, &noise, NULL, dummy, dummy, N, LD, 99, 99, 2) ==
               COHORT_ERR_SUBBATCH_RANGE,
           "range checked");
    be->release(dummy);
    free(a);
    free(b);
    return test_summary();
}
