/* A factor a member (banded.h): batches whose members each have their own random banded matrix
 * (tri/penta x plain/periodic), on fresh random systems. Each member's solution must be
 *   - bit for bit what a solver of that member's factor alone gives (the shared-factor path, whose
 *     own test, test_banded, holds it to GSL), and
 *   - within 1e-12 of GSL's dense LU of that member's full matrix (an independent reference);
 * a sub-batch leaves the other members untouched and gives the whole batch's bits; with --backend
 * cuda the cuda solve (AUTO, and each of its WARP and PORTABLE paths) equals the cpu backend's bit
 * for bit; banded_member_factor_alloc's arrays are banded_constant_factor_alloc's, bit for bit.
 * Systems longer than REFERENCE_MAX_N meet no GSL (its dense LU would take minutes).
 * Then the refusals.
 * Usage: test_banded_members --backend cpu|cuda (exit 77 = skipped: no device). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "banded/banded.h"
#include "banded/banded_kernels.h"
#include "banded_reference.h"
#include "test_common.h"
#ifdef COHORT_HAVE_CUDA
#    include "banded/banded_cuda.h"
#endif

#define REFERENCE_RTOL 1e-12
#define REFERENCE_MAX_N 1024

static const int64_t sizes[] = {3, 5, 7, 33, 64, 97, 256};
static const int64_t batches[] = {1, 7, 100};
enum { N_SIZES = sizeof sizes / sizeof sizes[0], N_BATCHES = sizeof batches / sizeof batches[0] };

/* count members' factors of one kind, each from its own random diagonals (kept for GSL) */
typedef struct members_fixture {
    int h, periodic;
    int64_t n, count;
    double **diagonals; /* count x (2h+1) arrays of n */
    banded_factor **factors;
} members_fixture;

static int fixture_alloc(members_fixture *f, gsl_rng *rng, int h, int periodic, int64_t n,
                         int64_t count)
{
    *f = (members_fixture){.h = h, .periodic = periodic, .n = n, .count = count};
    f->diagonals = calloc((size_t)(count * (2 * h + 1)), sizeof(double *));
    f->factors = calloc((size_t)count, sizeof(banded_factor *));
    if (!f->diagonals || !f->factors) return COHORT_ERR_NO_MEMORY;
    for (int64_t m = 0; m < count; ++m) {
        double **d = f->diagonals + m * (2 * h + 1);
        for (int o = 0; o <= 2 * h; ++o)
            if (!(d[o] = malloc((size_t)n * sizeof(double)))) return COHORT_ERR_NO_MEMORY;
        reference_random_diagonals(rng, n, h, d);
        const int rc =
            banded_factor_alloc(n, h, (const double *const *)d, periodic, &f->factors[m]);
        if (rc != COHORT_OK) return rc;
    }
    return COHORT_OK;
}

static void fixture_free(members_fixture *f)
{
    for (int64_t m = 0; f->factors && m < f->count; ++m) banded_factor_free(f->factors[m]);
    for (int64_t j = 0; f->diagonals && j < f->count * (2 * f->h + 1); ++j) free(f->diagonals[j]);
    free(f->factors);
    free(f->diagonals);
}

/* The whole batch u by path (a cuda path; 0 where the backend is not cuda: the backend's solve). */
static int solve_by(const banded_solver *s, double *u, int64_t ld, int64_t m0, int64_t count,
                    int path)
{
#ifdef COHORT_HAVE_CUDA
    if (path)
        return cohort_cuda_banded_solve_path(banded_solver_view(s), u, ld, m0, count,
                                             (cohort_cuda_banded_path)path, 0);
#endif
    (void)path;
    return banded_solver_solve(s, u, ld, m0, count);
}

/* x (host) = d solved on be by path (solve_by): members [m0, m0 + count) with their own factors;
 * the others as in d */
static int solve_members_by(const cohort_backend *be, const members_fixture *f, const double *d,
                            double *x, int64_t m0, int64_t count, int path)
{
    const int64_t ld = f->count;
    const size_t bytes = (size_t)(f->n * ld) * sizeof(double);
    banded_members *b = NULL;
    banded_solver *s = NULL;
    double *u = NULL;
    int rc = banded_members_alloc(f->factors[0], ld, &b);
    for (int64_t m = 0; rc == COHORT_OK && m < ld; ++m)
        rc = banded_members_set(b, m, f->factors[m]);
    if (rc == COHORT_OK) rc = banded_solver_alloc(be, f->factors[0], &s);
    if (rc == COHORT_OK) rc = banded_solver_use_members(s, b);
    if (rc == COHORT_OK) rc = be->alloc((void **)&u, bytes);
    if (rc == COHORT_OK) rc = be->copy_to_device(u, d, bytes);
    if (rc == COHORT_OK) rc = solve_by(s, u, ld, m0, count, path);
    if (rc == COHORT_OK) rc = be->synchronize();
    if (rc == COHORT_OK) rc = be->copy_to_host(x, u, bytes);
    if (u) be->release(u);
    banded_solver_free(s);
    banded_members_free(b);
    return rc;
}

static int solve_members(const cohort_backend *be, const members_fixture *f, const double *d,
                         double *x, int64_t m0, int64_t count)
{
    return solve_members_by(be, f, d, x, m0, count, 0);
}

/* x's column m = member m of d solved by a solver of factor m alone, on be */
static int solve_alone(const cohort_backend *be, const members_fixture *f, const double *d,
                       double *x)
{
    const int64_t ld = f->count;
    const size_t bytes = (size_t)(f->n * ld) * sizeof(double);
    double *u = NULL;
    int rc = be->alloc((void **)&u, bytes);
    if (rc == COHORT_OK) rc = be->copy_to_device(u, d, bytes);
    for (int64_t m = 0; rc == COHORT_OK && m < ld; ++m) {
        banded_solver *s = NULL;
        rc = banded_solver_alloc(be, f->factors[m], &s);
        if (rc == COHORT_OK) rc = banded_solver_solve(s, u, ld, m, 1);
        if (rc == COHORT_OK) rc = be->synchronize();
        banded_solver_free(s);
    }
    if (rc == COHORT_OK) rc = be->copy_to_host(x, u, bytes);
    if (u) be->release(u);
    return rc;
}

/* the largest of GSL's relative errors over the members */
static double reference_error(const members_fixture *f, const double *d, const double *x)
{
    double worst = 0.0, *work = malloc((size_t)f->n * sizeof(double));
    for (int64_t m = 0; work && m < f->count; ++m) {
        reference_dense ref;
        if (reference_dense_alloc(f->n, f->h, f->diagonals + m * (2 * f->h + 1), f->periodic,
                                  &ref) != 0)
            return INFINITY;
        reference_dense_solve(&ref, d, f->count, m, work);
        double diff = 0.0, scale = 0.0;
        for (int64_t i = 0; i < f->n; ++i) {
            const double xi = x[i * f->count + m];
            diff = isnan(xi) ? INFINITY : fmax(diff, fabs(xi - work[i]));
            scale = fmax(scale, fabs(work[i]));
        }
        worst = fmax(worst, diff / scale);
        reference_dense_free(&ref);
    }
    free(work);
    return work ? worst : INFINITY;
}

static void check_kind(const cohort_backend *be, gsl_rng *rng, int h, int periodic, int64_t n,
                       int64_t count)
{
    members_fixture f;
    const char *kind = h == 1     ? (periodic ? "tri periodic" : "tri")
                       : periodic ? "penta periodic"
                                  : "penta";
    int rc = fixture_alloc(&f, rng, h, periodic, n, count);
    const size_t values = (size_t)(n * count);
    double *d = malloc(values * sizeof(double)), *x = malloc(values * sizeof(double));
    double *alone = malloc(values * sizeof(double)), *part = malloc(values * sizeof(double));
    EXPECT(rc == COHORT_OK && d && x && alone && part, "%s n = %lld: fixture: %s", kind,
           (long long)n, cohort_error_detail());
    if (rc != COHORT_OK || !d || !x || !alone || !part) goto done;
    for (size_t v = 0; v < values; ++v) d[v] = 2.0 * gsl_rng_uniform(rng) - 1.0;
    EXPECT((rc = solve_members(be, &f, d, x, 0, count)) == COHORT_OK, "%s: %s", kind,
           cohort_error_detail());
    EXPECT(solve_alone(be, &f, d, alone) == COHORT_OK, "%s: %s", kind, cohort_error_detail());
    EXPECT(!memcmp(x, alone, values * sizeof(double)),
           "%s n = %lld, M = %lld: the members' own factors differ from solvers of each alone",
           kind, (long long)n, (long long)count);
    const double err = n <= REFERENCE_MAX_N ? reference_error(&f, d, x) : 0.0;
    EXPECT(err <= REFERENCE_RTOL, "%s n = %lld, M = %lld: %.3g from GSL's dense LU", kind,
           (long long)n, (long long)count, err);
    /* a sub-batch: its members the whole batch's bits, the others untouched */
    const int64_t m0 = count / 3, sub = count - count / 3 - count / 4;
    EXPECT(solve_members(be, &f, d, part, m0, sub) == COHORT_OK, "%s: %s", kind,
           cohort_error_detail());
    int same = 1;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t m = 0; m < count; ++m) {
            const double want = m >= m0 && m < m0 + sub ? x[i * count + m] : d[i * count + m];
            same &= !memcmp(&part[i * count + m], &want, sizeof want);
        }
    EXPECT(same, "%s n = %lld: members [%lld, %lld) of %lld", kind, (long long)n, (long long)m0,
           (long long)(m0 + sub), (long long)count);
    if (strcmp(be->name, "cpu") != 0) { /* the cpu backend's bits */
        const cohort_backend *cpu = NULL;
        EXPECT(cohort_backend_get("cpu", &cpu) == COHORT_OK &&
                   solve_members(cpu, &f, d, alone, 0, count) == COHORT_OK &&
                   !memcmp(x, alone, values * sizeof(double)),
               "%s n = %lld, M = %lld: %s differs from cpu", kind, (long long)n, (long long)count,
               be->name);
#ifdef COHORT_HAVE_CUDA
        /* and each path AUTO may take: the warp tiles where they fit, else the portable kernel */
        const int paths[2] = {COHORT_CUDA_BANDED_PORTABLE, COHORT_CUDA_BANDED_WARP};
        for (int k = 0; k < 2; ++k) {
            rc = solve_members_by(be, &f, d, part, 0, count, paths[k]);
            const int no_tile = paths[k] == COHORT_CUDA_BANDED_WARP && n * 16 * 8 > 72 * 1024;
            EXPECT(no_tile ? rc == COHORT_ERR_INVALID_ARGUMENT
                           : rc == COHORT_OK && !memcmp(x, part, values * sizeof(double)),
                   "%s n = %lld, M = %lld: cuda path %d: %s", kind, (long long)n, (long long)count,
                   paths[k], rc ? cohort_error_detail() : "differs from AUTO");
            cohort_error_clear();
        }
#endif
    }
done:
    free(d), free(x), free(alone), free(part);
    fixture_free(&f);
}

/* banded_member_factor_alloc against banded_constant_factor_alloc: the same LU, spike and border
 * blocks bit for bit, packed as members alike, and a sequential form of its own at any n (a
 * periodic penta of 2,000 rows takes the chunked form with all forms). */
static void check_member_factor(gsl_rng *rng)
{
    for (int h = 1; h <= 2; ++h)
        for (int periodic = 0; periodic <= 1; ++periodic) {
            static const int64_t ns[] = {5, 64, 577, 2000};
            for (size_t k = 0; k < sizeof ns / sizeof ns[0]; ++k) {
                double entries[5];
                for (int o = 0; o <= 2 * h; ++o) entries[o] = gsl_rng_uniform(rng) - 0.5;
                entries[h] = 1.0 + 2.0 * h; /* diagonally dominant */
                banded_factor *all = NULL, *own = NULL;
                banded_members *a = NULL, *b = NULL;
                int rc = banded_constant_factor_alloc(ns[k], h, entries, periodic, &all);
                if (rc == COHORT_OK)
                    rc = banded_member_factor_alloc(ns[k], h, entries, periodic, &own);
                EXPECT(rc == COHORT_OK && banded_members_fit(own), "h %d n %lld: %s", h,
                       (long long)ns[k], cohort_error_detail());
                if (rc == COHORT_OK && banded_members_fit(all)) {
                    int64_t count = 0;
                    const banded_view *shape = NULL;
                    rc = banded_members_alloc(all, 1, &a);
                    if (rc == COHORT_OK) rc = banded_members_alloc(all, 1, &b);
                    if (rc == COHORT_OK) rc = banded_members_set(a, 0, all);
                    if (rc == COHORT_OK) rc = banded_members_set(b, 0, own);
                    const double *pa =
                        rc == COHORT_OK ? banded_members_host(a, &count, &shape) : NULL;
                    const double *pb =
                        rc == COHORT_OK ? banded_members_host(b, &count, &shape) : NULL;
                    EXPECT(
                        pa && pb &&
                            !memcmp(pa, pb, (size_t)banded_member_values(shape) * sizeof(double)),
                        "h %d periodic %d n %lld: a member's factor differs from the stepper's", h,
                        periodic, (long long)ns[k]);
                }
                banded_members_free(a), banded_members_free(b);
                banded_factor_free(all), banded_factor_free(own);
            }
        }
}

/* What is refused, and why. */
static void check_refusals(const cohort_backend *be, gsl_rng *rng)
{
    members_fixture f, g;
    EXPECT(fixture_alloc(&f, rng, 2, 1, 64, 3) == COHORT_OK, "%s", cohort_error_detail());
    EXPECT(fixture_alloc(&g, rng, 2, 0, 64, 1) == COHORT_OK, "%s", cohort_error_detail());
    banded_members *b = NULL;
    banded_solver *s = NULL;
    EXPECT(banded_members_alloc(f.factors[0], 0, &b) == COHORT_ERR_EMPTY_BATCH && !b, "count 0");
    EXPECT(banded_members_alloc(f.factors[0], 2, &b) == COHORT_OK, "%s", cohort_error_detail());
    EXPECT(banded_members_set(b, 0, g.factors[0]) == COHORT_ERR_INVALID_ARGUMENT,
           "a plain factor among periodic members");
    EXPECT(banded_members_set(b, 2, f.factors[2]) == COHORT_ERR_SUBBATCH_RANGE, "member 2 of 2");
    for (int m = 0; m < 2; ++m) banded_members_set(b, m, f.factors[m]);
    EXPECT(banded_solver_alloc(be, g.factors[0], &s) == COHORT_OK, "%s", cohort_error_detail());
    EXPECT(banded_solver_use_members(s, b) == COHORT_ERR_INVALID_ARGUMENT,
           "periodic members for a plain solver");
    banded_solver_free(s);
    s = NULL;
    EXPECT(banded_solver_alloc(be, f.factors[0], &s) == COHORT_OK &&
               banded_solver_use_members(s, b) == COHORT_OK,
           "%s", cohort_error_detail());
    double *u = NULL;
    if (be->alloc((void **)&u, (size_t)(64 * 3) * sizeof(double)) == COHORT_OK) {
        EXPECT(banded_solver_solve(s, u, 3, 0, 3) == COHORT_ERR_SUBBATCH_RANGE,
               "3 members solved by a solver holding 2 members' factors");
        be->release(u);
    }
    banded_solver_free(s);
    banded_members_free(b);
    /* a system whose form is not the sequential one (a tridiagonal one of 4,096 rows: chunked)
     * holds no factor a member */
    double *diag[3];
    for (int o = 0; o < 3; ++o) diag[o] = malloc(4096 * sizeof(double));
    reference_random_diagonals(rng, 4096, 1, diag);
    banded_factor *big = NULL;
    EXPECT(banded_factor_alloc(4096, 1, (const double *const *)diag, 0, &big) == COHORT_OK, "%s",
           cohort_error_detail());
    b = NULL;
    EXPECT(!banded_members_fit(big) &&
               banded_members_alloc(big, 1, &b) == COHORT_ERR_INVALID_ARGUMENT && !b,
           "n = 4096 tri: %s", cohort_error_detail());
    banded_factor_free(big);
    for (int o = 0; o < 3; ++o) free(diag[o]);
    fixture_free(&f);
    fixture_free(&g);
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    gsl_rng *rng = reference_rng_alloc("test_banded_members");
    for (int h = 1; h <= 2; ++h)
        for (int periodic = 0; periodic <= 1; ++periodic)
            for (int s = 0; s < N_SIZES; ++s)
                for (int b = 0; b < N_BATCHES; ++b)
                    if (sizes[s] >= 2 * h + 1)
                        check_kind(be, rng, h, periodic, sizes[s], batches[b]);
    /* a long plain pentadiagonal system, sequential with no warp tile: AUTO's portable kernel */
    check_kind(be, rng, 2, 0, 8192, 3);
    check_member_factor(rng);
    check_refusals(be, rng);
    gsl_rng_free(rng);
    return test_summary();
}
