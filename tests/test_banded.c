/* Batched banded solves on one backend against GSL's dense LU of the full matrix, on fresh random
 * systems: every kind (tri/penta x plain/periodic), every N and M of the foundation issue where
 * N*M <= 2^25, whole batches and poisoned sub-batches, whose members must come back with the
 * bits of the whole batch's (also with the partitioned form preferred, for N >= 256, in batches of
 * 1, 2 and 7 and groups of one system). With --backend cuda it also checks that the CUDA paths
 * (portable, tiled at several tile sizes with the factor in device or shared memory, warp) agree
 * with each other and with the cpu backend.
 * Usage: test_banded --backend cpu|cuda (exit 77 = skipped: no device). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "banded/banded.h"
#include "banded_reference.h"
#include "test_common.h"
#ifdef COHORT_HAVE_CUDA
#    include "banded/banded_cuda.h"
#endif

static const int64_t sizes[] = {3, 4, 5, 6, 7, 31, 32, 33, 97, 256, 1000, 1500, 1600, 4096};
static const int64_t batches[] = {1, 2, 7, 1000, 65537};
enum { N_SIZES = sizeof sizes / sizeof sizes[0], N_BATCHES = sizeof batches / sizeof batches[0] };
#define MAX_VALUES ((int64_t)1 << 25) /* host memory and time on a 2-core CI machine */
#define FULL_REFERENCE_WORK 2e9       /* n^2 M above which 64 sampled members meet GSL */
#define REFERENCE_RTOL 1e-12          /* the bound against the dense LU */
#define BACKWARD_RTOL 1e-13           /* every member: ||Ax-d|| / (||A|| ||x|| + ||d||) */
#define PATH_AGREEMENT_RTOL 1e-14     /* cuda portable vs tiled: the same arithmetic */

static double poison_value(void)
{
    const uint64_t bits = 0x7ff8dead0000beefULL; /* a quiet NaN with a recognisable payload */
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

typedef struct kind_fixture {
    int h, periodic;
    int64_t n;
    double *diagonals[5];
    double norm_a;
    reference_dense ref;
    banded_factor *f;
    int ref_status;
} kind_fixture;

/* Relative error of member m of x against GSL, inf-norms. */
static double reference_error(kind_fixture *k, const double *d, const double *x, int64_t ld,
                              int64_t m, double *work)
{
    reference_dense_solve(&k->ref, d, ld, m, work);
    double diff = 0.0, scale = 0.0;
    for (int64_t i = 0; i < k->n; ++i) {
        const double xi = x[i * ld + m];
        diff = isnan(xi) ? INFINITY : fmax(diff, fabs(xi - work[i]));
        scale = fmax(scale, fabs(work[i]));
    }
    return diff / scale;
}

static double backward_error(kind_fixture *k, const double *d, const double *x, int64_t ld,
                             int64_t m, double *work)
{
    banded_factor_apply_member(k->f, x, ld, m, work);
    double r = 0.0, xn = 0.0, dn = 0.0;
    for (int64_t i = 0; i < k->n; ++i) {
        r = isnan(work[i]) ? INFINITY : fmax(r, fabs(work[i] - d[i * ld + m]));
        xn = fmax(xn, fabs(x[i * ld + m]));
        dn = fmax(dn, fabs(d[i * ld + m]));
    }
    return r / (k->norm_a * xn + dn);
}

/* Checks members [m0, m0 + count) of the solution x of d: all against GSL where affordable
 * (else 64 samples including both ends), and every member's backward error. */
static void verify_members(kind_fixture *k, const double *d, const double *x, int64_t ld,
                           int64_t m0, int64_t count, gsl_rng *rng, const char *what)
{
    double *work = malloc((size_t)k->n * sizeof *work);
    const int all = (double)k->n * (double)k->n * (double)count <= FULL_REFERENCE_WORK;
    const int64_t samples = all ? count : 64;
    double worst_ref = 0.0, worst_bwd = 0.0;
    for (int64_t s = 0; s < samples; ++s) {
        int64_t m = all ? m0 + s
                        : (s == 0   ? m0
                           : s == 1 ? m0 + count - 1
                                    : m0 + (int64_t)gsl_rng_uniform_int(rng, (unsigned long)count));
        worst_ref = fmax(worst_ref, reference_error(k, d, x, ld, m, work));
    }
    for (int64_t m = m0; m < m0 + count; ++m)
        worst_bwd = fmax(worst_bwd, backward_error(k, d, x, ld, m, work));
    EXPECT(worst_ref <= REFERENCE_RTOL,
           "%s %s h=%d periodic=%d n=%lld M=%lld [%lld,+%lld): error "
           "%.3e against GSL (%s members)",
           what, "solve", k->h, k->periodic, (long long)k->n, (long long)ld, (long long)m0,
           (long long)count, worst_ref, all ? "all" : "64 sampled");
    EXPECT(worst_bwd <= BACKWARD_RTOL, "%s h=%d periodic=%d n=%lld M=%lld: backward error %.3e",
           what, k->h, k->periodic, (long long)k->n, (long long)ld, worst_bwd);
    free(work);
}

/* The partitioned form of the factor, solved sequentially on the host (the arithmetic of the
 * CUDA tiled kernel), against GSL on sampled members. */
static void verify_partitioned(kind_fixture *k, const double *d, int64_t ld, gsl_rng *rng)
{
    const banded_view *v = banded_factor_view(k->f);
    EXPECT(v->n_seg >= 1, "n=%lld h=%d: a diagonally dominant matrix has a partitioned form",
           (long long)k->n, k->h);
    if (v->n_seg < 1) return;
    double *x = malloc((size_t)k->n * sizeof *x), *ref = malloc((size_t)k->n * sizeof *ref);
    double *tips = malloc(((size_t)v->red_n + 1) * sizeof *tips);
    double worst = 0.0;
    for (int s = 0; s < 8; ++s) {
        const int64_t m = s == 0 ? 0 : (int64_t)gsl_rng_uniform_int(rng, (unsigned long)ld);
        for (int64_t i = 0; i < k->n; ++i) x[i] = d[i * ld + m];
        banded_partitioned_band_solve(v, k->h, x, 1, tips);
        if (v->border) banded_border_close(v, v->border, x, 1);
        reference_dense_solve(&k->ref, d, ld, m, ref);
        double diff = 0.0, scale = 0.0;
        for (int64_t i = 0; i < k->n; ++i) {
            diff = isnan(x[i]) ? INFINITY : fmax(diff, fabs(x[i] - ref[i]));
            scale = fmax(scale, fabs(ref[i]));
        }
        worst = fmax(worst, diff / scale);
    }
    EXPECT(worst <= REFERENCE_RTOL,
           "partitioned form (%d segments of %d) h=%d periodic=%d "
           "n=%lld: error %.3e against GSL",
           v->n_seg, v->seg_len, k->h, k->periodic, (long long)k->n, worst);
    free(x);
    free(ref);
    free(tips);
}

/* The chunked form of the factor, solved sequentially on the host (the arithmetic of the CUDA
 * chunked kernel), against GSL and by backward error on sampled members, each solved in place in
 * scratch (an array of the batch's layout whose other members are left as they are). */
static void verify_chunked(kind_fixture *k, const double *d, int64_t ld, double *scratch,
                           gsl_rng *rng)
{
    const banded_view *v = banded_factor_view(k->f);
    double *work = malloc((size_t)k->n * sizeof *work);
    double *tips = malloc((size_t)(2 * k->h * v->n_chunk) * sizeof *tips);
    double worst = 0.0, worst_bwd = 0.0;
    for (int s = 0; s < 8; ++s) {
        const int64_t m = s == 0 ? ld - 1 : (int64_t)gsl_rng_uniform_int(rng, (unsigned long)ld);
        for (int64_t i = 0; i < k->n; ++i) scratch[i * ld + m] = d[i * ld + m];
        banded_chunked_system_solve(v, k->h, v->border, scratch + m, ld, tips);
        worst = fmax(worst, reference_error(k, d, scratch, ld, m, work));
        worst_bwd = fmax(worst_bwd, backward_error(k, d, scratch, ld, m, work));
    }
    EXPECT(worst <= REFERENCE_RTOL && worst_bwd <= BACKWARD_RTOL,
           "chunked form (%d chunks) h=%d periodic=%d n=%lld: error %.3e against GSL, backward "
           "error %.3e",
           v->n_chunk, k->h, k->periodic, (long long)k->n, worst, worst_bwd);
    free(work);
    free(tips);
}

static double max_relative_difference(const double *a, const double *b, int64_t n, int64_t ld,
                                      int64_t *identical)
{
    double worst = 0.0;
    *identical = 0;
    for (int64_t m = 0; m < ld; ++m) {
        double diff = 0.0, scale = 0.0;
        int same = 1;
        for (int64_t i = 0; i < n; ++i) {
            const double x = a[i * ld + m], y = b[i * ld + m];
            same &= memcmp(&x, &y, sizeof x) == 0;
            diff = isnan(x) || isnan(y) ? INFINITY : fmax(diff, fabs(x - y));
            scale = fmax(scale, fabs(y));
        }
        *identical += same;
        worst = fmax(worst, diff / scale);
    }
    return worst;
}

static void solve_on(const cohort_backend *be, banded_solver *s, void *u, const double *d,
                     double *x, int64_t n, int64_t ld, int path, size_t tile_bytes)
{
    const size_t bytes = (size_t)n * (size_t)ld * sizeof(double);
    int rc = be->fill((double *)u, poison_value(), (size_t)n * (size_t)ld);
    if (rc == COHORT_OK) rc = be->copy_to_device(u, d, bytes);
#ifdef COHORT_HAVE_CUDA
    if (rc == COHORT_OK && path >= 0)
        rc = cohort_cuda_banded_solve_path(banded_solver_view(s), (double *)u, ld, 0, ld,
                                           (cohort_cuda_banded_path)path, tile_bytes);
    else
#endif
        if (rc == COHORT_OK)
        rc = banded_solver_solve(s, (double *)u, ld, 0, ld);
    (void)path;
    (void)tile_bytes;
    if (rc == COHORT_OK) rc = be->synchronize();
    if (rc == COHORT_OK) rc = be->copy_to_host(x, u, bytes);
    EXPECT(rc == COHORT_OK, "solve: %s", cohort_error_detail());
}

static void run_batch(const cohort_backend *be, kind_fixture *k, banded_solver *s,
                      banded_solver *s_cpu, int64_t ld, gsl_rng *rng)
{
    const int64_t n = k->n;
    const size_t count = (size_t)n * (size_t)ld, bytes = count * sizeof(double);
    double *d = malloc(bytes), *x = malloc(bytes), *y = malloc(bytes), *whole = malloc(bytes);
    void *u = NULL;
    if (!d || !x || !y || !whole || be->alloc(&u, bytes) != COHORT_OK) {
        EXPECT(0, "cannot allocate %zu bytes", bytes);
        goto done;
    }
    for (size_t i = 0; i < count; ++i) d[i] = 2.0 * gsl_rng_uniform(rng) - 1.0;

    /* the whole batch */
    solve_on(be, s, u, d, x, n, ld, -1, 0);
    verify_members(k, d, x, ld, 0, ld, rng, "whole-batch");
    verify_partitioned(k, d, ld, rng);
    verify_chunked(k, d, ld, y, rng); /* y is scratch until the sub-batch below */
    memcpy(whole, x, bytes);

    /* a sub-batch inside a poisoned array: the other members must come back bit for bit */
    if (ld >= 2) {
        const int64_t m0 = ld / 3, cnt = ld - m0 - ld / 4 > 0 ? ld - m0 - ld / 4 : 1;
        const double poison = poison_value();
        for (int64_t i = 0; i < n; ++i)
            for (int64_t m = 0; m < ld; ++m)
                y[i * ld + m] = (m >= m0 && m < m0 + cnt) ? d[i * ld + m] : poison;
        int rc = be->copy_to_device(u, y, bytes);
        if (rc == COHORT_OK) rc = banded_solver_solve(s, (double *)u, ld, m0, cnt);
        if (rc == COHORT_OK) rc = be->synchronize();
        if (rc == COHORT_OK) rc = be->copy_to_host(x, u, bytes);
        EXPECT(rc == COHORT_OK, "sub-batch solve: %s", cohort_error_detail());
        verify_members(k, d, x, ld, m0, cnt, rng, "sub-batch");
        /* a member's bits do not depend on the batch it is solved in (the run's chunks) */
        int64_t differ = 0;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t m = m0; m < m0 + cnt; ++m)
                differ += memcmp(&x[i * ld + m], &whole[i * ld + m], sizeof(double)) != 0;
        EXPECT(differ == 0,
               "sub-batch [%lld,+%lld) of M=%lld h=%d periodic=%d n=%lld: %lld values differ from "
               "the whole batch's",
               (long long)m0, (long long)cnt, (long long)ld, k->h, k->periodic, (long long)n,
               (long long)differ);
        int64_t touched = 0;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t m = 0; m < ld; ++m)
                if ((m < m0 || m >= m0 + cnt) && memcmp(&x[i * ld + m], &poison, sizeof poison))
                    ++touched;
        EXPECT(touched == 0,
               "sub-batch [%lld,+%lld) of M=%lld n=%lld changed %lld values outside "
               "it",
               (long long)m0, (long long)cnt, (long long)ld, (long long)n, (long long)touched);
    }

    if (s_cpu) { /* cuda: agreement with the cpu backend and between the CUDA paths */
        solve_on(be, s, u, d, x, n, ld, -1, 0);
        memcpy(y, d, bytes);
        EXPECT(banded_solver_solve(s_cpu, y, ld, 0, ld) == COHORT_OK, "cpu solve");
        int64_t same = 0;
        const double diff = max_relative_difference(x, y, n, ld, &same);
        /* one arithmetic: the same form (banded_form_of), the same bits */
        EXPECT(same == ld,
               "cuda vs cpu h=%d periodic=%d n=%lld M=%lld (form %d): %lld of %lld members "
               "bitwise, largest difference %.3e",
               k->h, k->periodic, (long long)n, (long long)ld,
               (int)banded_form_of(banded_solver_view(s)), (long long)same, (long long)ld, diff);
#ifdef COHORT_HAVE_CUDA
        /* portable; tiled and tiled with the factor in shared memory at three budgets (the two
         * the same arithmetic: the same bits); warp at two */
        const struct {
            int path;
            size_t budget;
        } runs[] = {{COHORT_CUDA_BANDED_PORTABLE, 0},
                    {COHORT_CUDA_BANDED_TILED, 0},
                    {COHORT_CUDA_BANDED_TILED_SHARED, 0},
                    {COHORT_CUDA_BANDED_TILED, 24 * 1024},
                    {COHORT_CUDA_BANDED_TILED_SHARED, 24 * 1024},
                    {COHORT_CUDA_BANDED_TILED, 200 * 1024},
                    {COHORT_CUDA_BANDED_TILED_SHARED, 200 * 1024},
                    {COHORT_CUDA_BANDED_WARP, 0},
                    {COHORT_CUDA_BANDED_WARP, 200 * 1024},
                    {COHORT_CUDA_BANDED_CHUNKED, 0}};
        const banded_view *view = banded_solver_view(s);
        int tiled_done = 0; /* whole holds the tiled path's result at this budget */
        for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
            const int path = runs[r].path;
            const size_t budget = runs[r].budget;
            if (path == COHORT_CUDA_BANDED_TILED &&
                cohort_cuda_banded_tile_width(view, budget) == 0)
                continue;
            if (path == COHORT_CUDA_BANDED_TILED_SHARED &&
                cohort_cuda_banded_tile_groups(view, budget) == 0)
                continue;
            if (path == COHORT_CUDA_BANDED_WARP && cohort_cuda_banded_warp_width(view, budget) == 0)
                continue;
            if (path == COHORT_CUDA_BANDED_CHUNKED && banded_chunk_width(view) == 0) continue;
            solve_on(be, s, u, d, y, n, ld, path, budget);
            const double pd = max_relative_difference(y, x, n, ld, &same);
            EXPECT(pd <= PATH_AGREEMENT_RTOL,
                   "cuda path %d (tile budget %zu, width %d) vs auto "
                   "h=%d periodic=%d n=%lld M=%lld: %.3e",
                   path, budget, cohort_cuda_banded_tile_width(view, budget), k->h, k->periodic,
                   (long long)n, (long long)ld, pd);
            if (same != ld)
                printf("note: path %d budget %zu n=%lld M=%lld: %lld of %lld members bitwise "
                       "identical to auto\n",
                       path, budget, (long long)n, (long long)ld, (long long)same, (long long)ld);
            if (path == COHORT_CUDA_BANDED_TILED) {
                memcpy(whole, y, bytes);
                tiled_done = 1;
            } else if (path == COHORT_CUDA_BANDED_TILED_SHARED) {
                EXPECT(tiled_done && !memcmp(whole, y, bytes),
                       "tiled with the factor in shared memory (budget %zu, %d groups) differs "
                       "from tiled in bits h=%d periodic=%d n=%lld M=%lld",
                       budget, cohort_cuda_banded_tile_groups(view, budget), k->h, k->periodic,
                       (long long)n, (long long)ld);
            }
            if (path != COHORT_CUDA_BANDED_TILED) tiled_done = 0;
        }
#endif
    }
done:
    if (u) be->release(u);
    free(d);
    free(x);
    free(y);
    free(whole);
}

/* banded_constant_factor_alloc is the matrix of its entries on every row, the periodic corners
 * included: A x against the entries applied by hand, for a random x; and it refuses what
 * banded_factor_alloc refuses. */
static void constant_factor_case(gsl_rng *rng)
{
    enum { N = 9 };
    for (int h = 1; h <= 2; ++h)
        for (int periodic = 0; periodic <= 1; ++periodic) {
            double entries[5], x[N], y[N];
            for (int o = 0; o <= 2 * h; ++o) entries[o] = gsl_rng_uniform(rng) - 0.5;
            entries[h] = 4.0; /* diagonally dominant */
            for (int i = 0; i < N; ++i) x[i] = gsl_rng_uniform(rng) - 0.5;
            banded_factor *f = NULL;
            EXPECT(banded_constant_factor_alloc(N, h, entries, periodic, &f) == COHORT_OK,
                   "constant factor h=%d periodic=%d: %s", h, periodic, cohort_error_detail());
            if (!f) continue;
            banded_factor_apply_member(f, x, 1, 0, y);
            double worst = 0.0;
            for (int i = 0; i < N; ++i) {
                double want = 0.0;
                for (int o = 0; o <= 2 * h; ++o) {
                    const int j = i + o - h;
                    if (periodic)
                        want += entries[o] * x[(j + N) % N];
                    else if (j >= 0 && j < N)
                        want += entries[o] * x[j];
                }
                worst = fmax(worst, fabs(y[i] - want));
            }
            EXPECT(worst <= 1e-15, "constant factor h=%d periodic=%d: A x off by %.3e", h, periodic,
                   worst);
            banded_factor_free(f);
        }
    const double entries[5] = {1.0, 1.0, 4.0, 1.0, 1.0};
    banded_factor *f = NULL;
    EXPECT(banded_constant_factor_alloc(4, 2, entries, 1, &f) == COHORT_ERR_SIZE_TOO_SMALL && !f,
           "constant factor n = 4 pentadiagonal");
    EXPECT(banded_constant_factor_alloc(9, 3, entries, 0, &f) == COHORT_ERR_BANDWIDTH && !f,
           "constant factor h = 3");
    EXPECT(banded_constant_factor_alloc(9, 2, NULL, 0, &f) == COHORT_ERR_NULL_POINTER && !f,
           "constant factor without entries");
}

static void bad_inputs(const cohort_backend *be)
{
    double sub[8], diag[8], super[8], *diags5[5];
    double store5[5][8];
    banded_factor *f = NULL;
    for (int i = 0; i < 8; ++i) sub[i] = -1.0, diag[i] = 4.0, super[i] = -1.5;
    for (int o = 0; o < 5; ++o) {
        diags5[o] = store5[o];
        for (int i = 0; i < 8; ++i) store5[o][i] = o == 2 ? 6.0 : 1.0;
    }
    EXPECT(banded_tri_factor_alloc(2, sub, diag, super, 0, &f) == COHORT_ERR_SIZE_TOO_SMALL, "n=2");
    EXPECT(banded_tri_factor_alloc(2, sub, diag, super, 1, &f) == COHORT_ERR_SIZE_TOO_SMALL, "n=2");
    EXPECT(banded_factor_alloc(4, 2, (const double *const *)diags5, 0, &f) ==
               COHORT_ERR_SIZE_TOO_SMALL,
           "penta n=4");
    EXPECT(banded_factor_alloc(4, 2, (const double *const *)diags5, 1, &f) ==
               COHORT_ERR_SIZE_TOO_SMALL,
           "periodic penta n=4");
    EXPECT(banded_factor_alloc(8, 3, (const double *const *)diags5, 0, &f) == COHORT_ERR_BANDWIDTH,
           "h=3");
    EXPECT(banded_tri_factor_alloc(8, sub, NULL, super, 0, &f) == COHORT_ERR_NULL_POINTER, "NULL");
    EXPECT(banded_tri_factor_alloc(8, sub, diag, super, 0, NULL) == COHORT_ERR_NULL_POINTER,
           "NULL out");
    EXPECT(f == NULL, "no factor after failures");
    diag[0] = 0.0;
    EXPECT(banded_tri_factor_alloc(8, sub, diag, super, 0, &f) == COHORT_ERR_SINGULAR_PIVOT,
           "zero pivot");
    diag[0] = 1e-14;
    EXPECT(banded_tri_factor_alloc(8, sub, diag, super, 0, &f) == COHORT_ERR_SINGULAR_PIVOT,
           "tiny pivot: %s", cohort_error_detail());
    diag[0] = 4.0;
    {
        /* a pivot that becomes tiny only through elimination: rows 0..1 of [[1, 1], [1, 1 + eps]]
         */
        double s2[3] = {0.0, 1.0, 1.0}, d2[3] = {1.0, 1.0 + 1e-15, 5.0}, u2[3] = {1.0, 1.0, 0.0};
        EXPECT(banded_tri_factor_alloc(3, s2, d2, u2, 0, &f) == COHORT_ERR_SINGULAR_PIVOT,
               "eliminated tiny pivot");
    }
    sub[3] = NAN;
    EXPECT(banded_tri_factor_alloc(8, sub, diag, super, 0, &f) == COHORT_ERR_NONFINITE_COEFF,
           "NaN: %s", cohort_error_detail());
    sub[3] = INFINITY;
    EXPECT(banded_tri_factor_alloc(8, sub, diag, super, 1, &f) == COHORT_ERR_NONFINITE_COEFF,
           "Inf");
    sub[3] = -1.0;
    /* a plain system ignores its corner entries, even non-finite ones */
    sub[0] = NAN;
    super[7] = NAN;
    EXPECT(banded_tri_factor_alloc(8, sub, diag, super, 0, &f) == COHORT_OK, "corners ignored");
    banded_factor_free(f);
    f = NULL;
    sub[0] = -1.0;
    super[7] = -1.5;
    /* the periodic Laplacian is singular (constants are in its null space): the closure says so */
    for (int i = 0; i < 8; ++i) sub[i] = -1.0, diag[i] = 2.0, super[i] = -1.0;
    EXPECT(banded_tri_factor_alloc(8, sub, diag, super, 1, &f) == COHORT_ERR_SINGULAR_PIVOT,
           "singular periodic closure: %s", cohort_error_detail());
    for (int i = 0; i < 8; ++i) diag[i] = 4.0;

    EXPECT(banded_tri_factor_alloc(8, sub, diag, super, 1, &f) == COHORT_OK, "valid factor");
    banded_solver *s = NULL;
    EXPECT(banded_solver_alloc(be, f, &s) == COHORT_OK, "solver: %s", cohort_error_detail());
    void *u = NULL;
    EXPECT(be->alloc(&u, 8 * 4 * sizeof(double)) == COHORT_OK, "alloc");
    EXPECT(banded_solver_solve(s, (double *)u, 0, 0, 0) == COHORT_ERR_EMPTY_BATCH, "M=0");
    EXPECT(banded_solver_solve(s, (double *)u, 4, 0, 0) == COHORT_ERR_EMPTY_BATCH, "count=0");
    EXPECT(banded_solver_solve(s, (double *)u, 4, 2, 3) == COHORT_ERR_SUBBATCH_RANGE, "past end");
    EXPECT(banded_solver_solve(s, (double *)u, 4, -1, 2) == COHORT_ERR_SUBBATCH_RANGE, "m0 < 0");
    EXPECT(banded_solver_solve(s, NULL, 4, 0, 4) == COHORT_ERR_NULL_POINTER, "u NULL");
    EXPECT(banded_solver_solve(NULL, (double *)u, 4, 0, 4) == COHORT_ERR_NULL_POINTER,
           "solver NULL");
    banded_solver *no_solver = NULL;
    EXPECT(banded_solver_alloc(be, NULL, &no_solver) == COHORT_ERR_NULL_POINTER && !no_solver,
           "factor NULL");
    be->release(u);
    banded_solver_free(s);
    banded_factor_free(f);
}

/* banded_solver_solve_groups: `groups` batches of M members at a stride with padding between them
 * equal the batches solved one by one, bit for bit, and the padding is untouched. */
static void groups_case(const cohort_backend *be, const kind_fixture *k, banded_solver *s,
                        int64_t m, gsl_rng *rng)
{
    const int64_t groups = 5, stride = k->n * m + 11, values = groups * stride;
    double *host = malloc((size_t)values * sizeof(double));
    double *one = malloc((size_t)values * sizeof(double)),
           *all = malloc((size_t)values * sizeof(double));
    double *dev = NULL;
    for (int64_t v = 0; v < values; ++v) host[v] = gsl_rng_uniform(rng) - 0.5;
    int rc = be->alloc((void **)&dev, (size_t)values * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dev, host, (size_t)values * sizeof(double));
    for (int64_t g = 0; g < groups && rc == COHORT_OK; ++g)
        rc = banded_solver_solve(s, dev + g * stride, m, 0, m);
    if (rc == COHORT_OK) rc = be->copy_to_host(one, dev, (size_t)values * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dev, host, (size_t)values * sizeof(double));
    if (rc == COHORT_OK) rc = banded_solver_solve_groups(s, dev, m, 0, m, groups, stride);
    if (rc == COHORT_OK) rc = be->copy_to_host(all, dev, (size_t)values * sizeof(double));
    EXPECT(rc == COHORT_OK, "groups h=%d n=%lld M=%lld: %s", k->h, (long long)k->n, (long long)m,
           cohort_error_detail());
    int same = rc == COHORT_OK && !memcmp(one, all, (size_t)values * sizeof(double));
    for (int64_t g = 0; g < groups && same; ++g)
        same =
            !memcmp(all + g * stride + k->n * m, host + g * stride + k->n * m, 11 * sizeof(double));
    EXPECT(same,
           "groups h=%d periodic=%d n=%lld M=%lld: differ from one by one, or padding changed",
           k->h, k->periodic, (long long)k->n, (long long)m);
    EXPECT(banded_solver_solve_groups(s, dev, m, 0, m, groups, m - 1) ==
               COHORT_ERR_INVALID_ARGUMENT,
           "groups closer than count refused");
    be->release(dev);
    free(host), free(one), free(all);
}

#ifdef COHORT_HAVE_CUDA
/* The chunked path holds at most 512 chunks of a system (CHUNK_BLOCK_THREADS): forced on a longer
 * one it refuses, and AUTO solves it another way. */
static void chunked_too_long(const cohort_backend *be)
{
    if (be->kind != COHORT_BACKEND_CUDA) return;
    const int64_t n = 512 * BANDED_CHUNK_ROWS + 1;
    const double entries[3] = {-1.0, 4.0, -1.5};
    banded_factor *f = NULL;
    banded_solver *s = NULL;
    double *u = NULL;
    int rc = banded_constant_factor_alloc(n, 1, entries, 0, &f);
    if (rc == COHORT_OK) rc = banded_solver_alloc(be, f, &s);
    if (rc == COHORT_OK) rc = be->alloc((void **)&u, (size_t)n * sizeof(double));
    if (rc == COHORT_OK) rc = be->fill(u, 1.0, (size_t)n);
    EXPECT(rc == COHORT_OK, "n = %lld: %s", (long long)n, cohort_error_detail());
    if (rc == COHORT_OK) {
        const banded_view *view = banded_solver_view(s);
        EXPECT(banded_chunk_width(view) == 0, "no chunked width at n = %lld", (long long)n);
        EXPECT(cohort_cuda_banded_solve_path(view, u, 1, 0, 1, COHORT_CUDA_BANDED_CHUNKED, 0) ==
                   COHORT_ERR_INVALID_ARGUMENT,
               "chunked path forced at n = %lld refused", (long long)n);
        rc = banded_solver_solve(s, u, 1, 0, 1);
        if (rc == COHORT_OK) rc = be->synchronize();
        EXPECT(rc == COHORT_OK, "AUTO at n = %lld: %s", (long long)n, cohort_error_detail());
    }
    if (u) be->release(u);
    banded_solver_free(s);
    banded_factor_free(f);
}
#endif

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    char device[256] = "";
    be->describe(device, sizeof device);
    printf("test_banded on backend %s: %s\n", be->name, device);
    if (getenv("COHORT_CUDA_SHARED_LIMIT"))
        printf("shared memory a block limited to %s bytes\n", getenv("COHORT_CUDA_SHARED_LIMIT"));
    gsl_rng *rng = reference_rng_alloc("test_banded");

    bad_inputs(be);
    constant_factor_case(rng);
#ifdef COHORT_HAVE_CUDA
    chunked_too_long(be);
#endif

    /* every (kind, n): random diagonals and the dense GSL LU, factored in parallel */
    enum { N_KINDS = 4 * N_SIZES };
    kind_fixture *kinds = calloc(N_KINDS, sizeof *kinds);
    for (int c = 0; c < N_KINDS; ++c) {
        kind_fixture *k = &kinds[c];
        k->h = 1 + c / (2 * N_SIZES);
        k->periodic = (c / N_SIZES) % 2;
        k->n = sizes[c % N_SIZES];
        if (k->n < 2 * k->h + 1) continue;
        for (int o = 0; o <= 2 * k->h; ++o) k->diagonals[o] = malloc((size_t)k->n * sizeof(double));
        reference_random_diagonals(rng, k->n, k->h, k->diagonals);
        for (int64_t i = 0; i < k->n; ++i) {
            double row = 0.0;
            for (int o = 0; o <= 2 * k->h; ++o) row += fabs(k->diagonals[o][i]);
            k->norm_a = fmax(k->norm_a, row);
        }
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (int c = N_KINDS - 1; c >= 0; --c) /* largest first */
        if (kinds[c].diagonals[0])
            kinds[c].ref_status = reference_dense_alloc(kinds[c].n, kinds[c].h, kinds[c].diagonals,
                                                        kinds[c].periodic, &kinds[c].ref);

    for (int c = 0; c < N_KINDS; ++c) {
        kind_fixture *k = &kinds[c];
        if (!k->diagonals[0]) continue;
        EXPECT(k->ref_status == 0, "GSL LU of n=%lld", (long long)k->n);
        int rc = banded_factor_alloc(k->n, k->h, (const double *const *)k->diagonals, k->periodic,
                                     &k->f);
        EXPECT(rc == COHORT_OK, "factor h=%d periodic=%d n=%lld: %s", k->h, k->periodic,
               (long long)k->n, cohort_error_detail());
        if (rc != COHORT_OK) continue;
        banded_solver *s = NULL, *s_cpu = NULL;
        rc = banded_solver_alloc(be, k->f, &s);
        if (rc == COHORT_OK && be->kind == COHORT_BACKEND_CUDA)
            rc = banded_solver_alloc(&cohort_backend_cpu, k->f, &s_cpu);
        EXPECT(rc == COHORT_OK, "solver: %s", cohort_error_detail());
        for (int b = 0; b < N_BATCHES && rc == COHORT_OK; ++b)
            if (k->n * batches[b] <= MAX_VALUES) run_batch(be, k, s, s_cpu, batches[b], rng);
        if (rc == COHORT_OK && k->n <= 256) {
            groups_case(be, k, s, 3, rng);   /* portable on cuda */
            groups_case(be, k, s, 300, rng); /* tiled where the tile fits */
        }
        /* chunked on cuda; from 48 chunks staged, whose blocks claim blocks of systems at 4096 */
        if (rc == COHORT_OK && k->n >= 1000) groups_case(be, k, s, 300, rng);
        if (rc == COHORT_OK && k->n >= 256) { /* the partitioned form preferred (few long lines) */
            banded_solver *sp = NULL, *sp_cpu = NULL;
            rc = banded_solver_alloc(be, k->f, &sp);
            if (rc == COHORT_OK && s_cpu)
                rc = banded_solver_alloc(&cohort_backend_cpu, k->f, &sp_cpu);
            EXPECT(rc == COHORT_OK, "solver: %s", cohort_error_detail());
            if (rc == COHORT_OK) banded_solver_prefer_partitioned(sp);
            if (sp_cpu) banded_solver_prefer_partitioned(sp_cpu);
            for (int b = 0; b < 3 && rc == COHORT_OK; ++b) /* batches of 1, 2 and 7 */
                run_batch(be, k, sp, sp_cpu, batches[b], rng);
            if (rc == COHORT_OK) groups_case(be, k, sp, 1, rng); /* the x lines of one field */
            banded_solver_free(sp);
            banded_solver_free(sp_cpu);
        }
        banded_solver_free(s);
        banded_solver_free(s_cpu);
        banded_factor_free(k->f);
        reference_dense_free(&k->ref);
        for (int o = 0; o < 5; ++o) free(k->diagonals[o]);
        printf("h=%d periodic=%d n=%lld: done (%ld checks so far)\n", k->h, k->periodic,
               (long long)k->n, test_passed + test_failed);
        fflush(stdout);
    }
    free(kinds);
    gsl_rng_free(rng);
    return test_summary();
}
