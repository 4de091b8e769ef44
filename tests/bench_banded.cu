/* bench-banded: our shared-LHS batched solves against the device-copy roofline and cuSPARSE, one
 * table, in one run. Double precision; random diagonally dominant coefficients (varying along the
 * diagonal) and random right-hand sides from cuRAND; every timed run starts from the same
 * right-hand sides (restored untimed), timed with CUDA events after warm-up, median reported.
 *
 *   bench-banded [--csv FILE] [--reps R] [--tile-bytes B1,B2,...] [--cpu-max VALUES]
 *                [--n N1,..] [--m M1,..]
 *
 * The cpu backend (OpenMP, this host's cores) solves the same batches at the first M of the list
 * where N * M <= VALUES (default 2^28: up to N = 4096 at M = 2^16), against the host's copy of
 * the batch and beside the cuda solve; VALUES = 0 leaves it out.
 *
 * Columns: median ms; effective GB/s counting 2*N*M*8 bytes (each right-hand-side value read and
 * written once); fraction of the copy bandwidth (copy time / time); speed-up of our solve over
 * the cuSPARSE routine for the same kind; the largest normwise backward error
 * ||Ax-d|| / (||A|| ||x|| + ||d||) of 4 sampled systems. The plain tridiagonal systems also go
 * through cuSolverDx's gtsv_no_pivot (bench_cusolverdx.h), where this build has libmathdx. */
#include <cuda_runtime.h>
#include <curand.h>
#include <cusparse.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_cuda.h"
#include "banded/banded_cuda.h"
#include "backend/cohort_error.h"
#include "banded/banded.h"
#include "bench_common.h"
#include "bench_cusolverdx.h"

#define CHECK_SPARSE(expr)                                                                         \
    do {                                                                                           \
        cusparseStatus_t e_ = (expr);                                                              \
        if (e_ != CUSPARSE_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,                          \
                    cusparseGetErrorString(e_));                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
static int64_t bench_n[16] = {64, 256, 512, 1024, 2048, 4096};
static int64_t bench_m[16] = {1 << 16, 1 << 18, 1 << 20};
static int n_bench_n = 6, n_bench_m = 3;
static const int64_t MAX_VALUES = (int64_t)1 << 28;
static const int SAMPLED_SYSTEMS = 4;

typedef struct options {
    const char *csv;
    int reps, warmup;
    size_t tile_bytes[16];
    int n_tile_bytes;
    int64_t cpu_max_values;
} options;

typedef struct context {
    options opt;
    FILE *csv;
    curandGenerator_t host_rng, dev_rng;
    cusparseHandle_t sparse;
    float *times;
} context;

/* restore (untimed) then run (timed), the options' reps after their warm-ups; median ms */
static float time_median(context *c, bench_fn restore, bench_fn run, void *arg)
{
    return bench_median_ms(restore, run, arg, c->opt.warmup, c->opt.reps, c->times);
}

/* --- one (N, M) case --- */
typedef struct bench_case {
    context *c;
    int64_t n, m;
    size_t bytes;
    double *rhs; /* device, interleaved, never overwritten */
    double *u;   /* device work array */
    /* the solve under test */
    const banded_view *view;
    cohort_cuda_banded_path path;
    size_t tile_bytes;
    /* cuSPARSE state */
    double *lhs[5], *lhs_saved[5], *xs, *rhs_strided;
    void *buffer;
    int n_lhs;
    /* the cuSolverDx peer and its matrix (device) */
    const cusolverdx_peer *dx;
    double *dx_diag[3];
} bench_case;

static void restore_u(void *arg)
{
    bench_case *b = (bench_case *)arg;
    CHECK_CUDA(cudaMemcpyAsync(b->u, b->rhs, b->bytes, cudaMemcpyDeviceToDevice));
}

static void run_copy(void *arg)
{
    bench_case *b = (bench_case *)arg;
    CHECK_CUDA(cudaMemcpyAsync(b->u, b->rhs, b->bytes, cudaMemcpyDeviceToDevice));
}

static void run_ours(void *arg)
{
    bench_case *b = (bench_case *)arg;
    CHECK_COHORT(
        cohort_cuda_banded_solve_path(b->view, b->u, b->m, 0, b->m, b->path, b->tile_bytes));
}

/* Random diagonally dominant diagonals from the host generator (varying along the diagonal). */
static void random_diagonals(context *c, int64_t n, int h, double **diag)
{
    double *r = (double *)malloc((size_t)n * (2 * h + 2) * sizeof(double));
    CHECK_RAND(curandGenerateUniformDouble(c->host_rng, r, (size_t)n * (2 * h + 2)));
    for (int64_t i = 0; i < n; ++i) {
        double off = 0.0;
        for (int o = 0; o <= 2 * h; ++o) {
            if (o == h) continue;
            diag[o][i] = 2.0 * r[i * (2 * h + 2) + o] - 1.0;
            off += fabs(diag[o][i]);
        }
        diag[h][i] = off + 0.5 + r[i * (2 * h + 2) + 2 * h + 1];
    }
    free(r);
}

/* Largest backward error over sampled members; x and d in device or host memory (unified
 * addressing), member j at x[i*m + j] (interleaved) or at x[j*n + i] (strided). */
static double sampled_backward_error(const bench_case *b, const banded_factor *f, const double *x,
                                     const double *d, int interleaved)
{
    const int64_t n = b->n;
    double *hx = (double *)malloc((size_t)n * sizeof(double));
    double *hd = (double *)malloc((size_t)n * sizeof(double));
    double *y = (double *)malloc((size_t)n * sizeof(double));
    const double norm_a = banded_factor_norm_inf(f);
    double worst = 0.0;
    for (int s = 0; s < SAMPLED_SYSTEMS; ++s) {
        /* the first and last members and two in between */
        const int64_t j = s == 0 ? 0 : s == 1 ? b->m - 1 : (b->m / 3) * (s - 1) + 17;
        if (interleaved) {
            CHECK_CUDA(cudaMemcpy2D(hx, sizeof(double), x + j, (size_t)b->m * sizeof(double),
                                    sizeof(double), (size_t)n, cudaMemcpyDefault));
            CHECK_CUDA(cudaMemcpy2D(hd, sizeof(double), d + j, (size_t)b->m * sizeof(double),
                                    sizeof(double), (size_t)n, cudaMemcpyDefault));
        } else {
            CHECK_CUDA(cudaMemcpy(hx, x + j * n, (size_t)n * sizeof(double), cudaMemcpyDefault));
            CHECK_CUDA(cudaMemcpy(hd, d + j * n, (size_t)n * sizeof(double), cudaMemcpyDefault));
        }
        banded_factor_apply_member(f, hx, 1, 0, y);
        double r = 0.0, xn = 0.0, dn = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            r = isfinite(y[i]) ? fmax(r, fabs(y[i] - hd[i])) : INFINITY;
            xn = fmax(xn, fabs(hx[i]));
            dn = fmax(dn, fabs(hd[i]));
        }
        worst = fmax(worst, r / (norm_a * xn + dn));
    }
    free(hx);
    free(hd);
    free(y);
    return worst;
}

static void emit(context *c, int64_t n, int64_t m, const char *method, double ms, double copy_ms,
                 const char *peer, double peer_ms, const char *peer2, double peer2_ms,
                 double residual)
{
    const double gbs = 2.0 * (double)n * (double)m * 8.0 / (ms * 1e-3) / 1e9;
    char vs[96] = "";
    if (peer && peer_ms <= 0) peer = NULL; /* the peer could not run (out of memory) */
    if (peer2 && peer2_ms <= 0) peer2 = NULL;
    if (peer) snprintf(vs, sizeof vs, "%5.2fx %s", peer_ms / ms, peer);
    if (peer2)
        snprintf(vs + strlen(vs), sizeof vs - strlen(vs), "  %5.2fx %s", peer2_ms / ms, peer2);
    printf("%5lld %8lld  %-26s %9.3f %8.1f %6.3f  %8.2e  %s\n", (long long)n, (long long)m, method,
           ms, gbs, copy_ms / ms, residual, vs);
    fprintf(c->csv, "%lld,%lld,%s,%.6f,%.3f,%.5f,%.3e,%s,%.5f,%s,%.5f\n", (long long)n,
            (long long)m, method, ms, gbs, copy_ms / ms, residual, peer ? peer : "",
            peer ? peer_ms / ms : 0.0, peer2 ? peer2 : "", peer2 ? peer2_ms / ms : 0.0);
    fflush(stdout);
    fflush(c->csv);
}

/* --- cuSPARSE --- */
__global__ void broadcast_interleaved(double *dst, const double *coef, int64_t n, int64_t m)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n * m;
         k += (int64_t)gridDim.x * blockDim.x)
        dst[k] = coef[k / m];
}

__global__ void broadcast_strided(double *dst, const double *coef, int64_t n, int64_t m)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n * m;
         k += (int64_t)gridDim.x * blockDim.x)
        dst[k] = coef[k % n];
}

/* strided[j*n + i] = interleaved[i*m + j] */
__global__ void interleaved_to_strided(double *dst, const double *src, int64_t n, int64_t m)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n * m;
         k += (int64_t)gridDim.x * blockDim.x)
        dst[(k % m) * n + k / m] = src[k];
}

/* Device copy of one diagonal with the entries outside the plain matrix zeroed (cuSPARSE wants
 * dl[0] = 0, du[n-1] = 0, ds[0..1] = 0, dw[n-2..n-1] = 0). */
static double *device_diagonal(const double *host, int64_t n, int offset)
{
    double *tmp = (double *)malloc((size_t)n * sizeof(double)), *dev = NULL;
    for (int64_t i = 0; i < n; ++i) tmp[i] = (i + offset >= 0 && i + offset < n) ? host[i] : 0.0;
    CHECK_CUDA(cudaMalloc((void **)&dev, (size_t)n * sizeof(double)));
    CHECK_CUDA(cudaMemcpy(dev, tmp, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
    free(tmp);
    return dev;
}

static void restore_sparse_interleaved(void *arg)
{
    bench_case *b = (bench_case *)arg;
    for (int k = 0; k < b->n_lhs; ++k)
        CHECK_CUDA(cudaMemcpyAsync(b->lhs[k], b->lhs_saved[k], b->bytes, cudaMemcpyDeviceToDevice));
    CHECK_CUDA(cudaMemcpyAsync(b->u, b->rhs, b->bytes, cudaMemcpyDeviceToDevice));
}

static void restore_strided(void *arg)
{
    bench_case *b = (bench_case *)arg;
    CHECK_CUDA(cudaMemcpyAsync(b->xs, b->rhs_strided, b->bytes, cudaMemcpyDeviceToDevice));
}

static void run_gtsv2_strided(void *arg)
{
    bench_case *b = (bench_case *)arg;
    CHECK_SPARSE(cusparseDgtsv2StridedBatch(b->c->sparse, (int)b->n, b->lhs[0], b->lhs[1],
                                            b->lhs[2], b->xs, (int)b->m, (int)b->n, b->buffer));
}

static void run_gtsv_interleaved(void *arg)
{
    bench_case *b = (bench_case *)arg;
    CHECK_SPARSE(cusparseDgtsvInterleavedBatch(b->c->sparse, 0, (int)b->n, b->lhs[0], b->lhs[1],
                                               b->lhs[2], b->u, (int)b->m, b->buffer));
}

static void run_gpsv_interleaved(void *arg)
{
    bench_case *b = (bench_case *)arg;
    CHECK_SPARSE(cusparseDgpsvInterleavedBatch(b->c->sparse, 0, (int)b->n, b->lhs[0], b->lhs[1],
                                               b->lhs[2], b->lhs[3], b->lhs[4], b->u, (int)b->m,
                                               b->buffer));
}

static void free_sparse(bench_case *b)
{
    for (int k = 0; k < 5; ++k) {
        cudaFree(b->lhs[k]);
        cudaFree(b->lhs_saved[k]);
        b->lhs[k] = b->lhs_saved[k] = NULL;
    }
    cudaFree(b->xs);
    cudaFree(b->rhs_strided);
    cudaFree(b->buffer);
    b->xs = b->rhs_strided = NULL;
    b->buffer = NULL;
}

/* Interleaved per-system copies of the plain matrix's diagonals (h = 1: dl d du; h = 2: ds dl d
 * du dw), as cuSPARSE's interleaved routines want them. */
static void build_interleaved_lhs(bench_case *b, double *const *diag, int h)
{
    b->n_lhs = 2 * h + 1;
    for (int k = 0; k < b->n_lhs; ++k) {
        double *coef = device_diagonal(diag[k], b->n, k - h);
        CHECK_CUDA(cudaMalloc((void **)&b->lhs[k], b->bytes));
        CHECK_CUDA(cudaMalloc((void **)&b->lhs_saved[k], b->bytes));
        broadcast_interleaved<<<4096, 256>>>(b->lhs_saved[k], coef, b->n, b->m);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaFree(coef));
    }
}

/* cudaMalloc that reports instead of exiting: cuSPARSE's work buffers can exceed the card. */
static int try_alloc(void **p, size_t bytes, const char *what, bench_case *b)
{
    if (cudaMalloc(p, bytes ? bytes : 64) == cudaSuccess) return 1;
    cudaGetLastError();
    *p = NULL;
    printf("%5lld %8lld  %-26s  skipped: cannot allocate its %zu-byte work buffer%s\n",
           (long long)b->n, (long long)b->m, what, bytes,
           bytes > ((size_t)1 << 48) ? " (cuSPARSE's size query overflowed)" : "");
    fprintf(b->c->csv, "%lld,%lld,%s,,,,,out of memory (%.2f GB),,,\n", (long long)b->n,
            (long long)b->m, what, (double)bytes / 1e9);
    return 0;
}

static void bench_cusparse(bench_case *b, double *const *tri, double *const *penta,
                           const banded_factor *f_tri, const banded_factor *f_penta, double copy_ms,
                           double *ms_out)
{
    context *c = b->c;
    size_t size = 0;
    /* gtsv2StridedBatch: per-system LHS, contiguous systems; leaves its LHS intact */
    b->n_lhs = 3;
    for (int k = 0; k < 3; ++k) {
        double *coef = device_diagonal(tri[k], b->n, k - 1);
        CHECK_CUDA(cudaMalloc((void **)&b->lhs[k], b->bytes));
        broadcast_strided<<<4096, 256>>>(b->lhs[k], coef, b->n, b->m);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaFree(coef));
    }
    CHECK_CUDA(cudaMalloc((void **)&b->xs, b->bytes));
    CHECK_CUDA(cudaMalloc((void **)&b->rhs_strided, b->bytes));
    interleaved_to_strided<<<4096, 256>>>(b->rhs_strided, b->rhs, b->n, b->m);
    CHECK_CUDA(cudaGetLastError());
    CHECK_SPARSE(cusparseDgtsv2StridedBatch_bufferSizeExt(
        c->sparse, (int)b->n, b->lhs[0], b->lhs[1], b->lhs[2], b->xs, (int)b->m, (int)b->n, &size));
    double res;
    if (try_alloc(&b->buffer, size, "cusparse gtsv2StridedBatch", b)) {
        ms_out[0] = time_median(c, restore_strided, run_gtsv2_strided, b);
        res = sampled_backward_error(b, f_tri, b->xs, b->rhs_strided, 0);
        emit(c, b->n, b->m, "cusparse gtsv2StridedBatch", ms_out[0], copy_ms, NULL, 0, NULL, 0,
             res);
    }
    free_sparse(b);

    /* gtsvInterleavedBatch, algo 0: overwrites its LHS; the reset is outside the timed region */
    build_interleaved_lhs(b, tri, 1);
    CHECK_SPARSE(cusparseDgtsvInterleavedBatch_bufferSizeExt(
        c->sparse, 0, (int)b->n, b->lhs[0], b->lhs[1], b->lhs[2], b->u, (int)b->m, &size));
    if (try_alloc(&b->buffer, size, "cusparse gtsvInterleaved", b)) {
        ms_out[1] = time_median(c, restore_sparse_interleaved, run_gtsv_interleaved, b);
        res = sampled_backward_error(b, f_tri, b->u, b->rhs, 1);
        emit(c, b->n, b->m, "cusparse gtsvInterleaved", ms_out[1], copy_ms, NULL, 0, NULL, 0, res);
    }
    free_sparse(b);

    /* gpsvInterleavedBatch, algo 0 */
    build_interleaved_lhs(b, penta, 2);
    CHECK_SPARSE(cusparseDgpsvInterleavedBatch_bufferSizeExt(c->sparse, 0, (int)b->n, b->lhs[0],
                                                             b->lhs[1], b->lhs[2], b->lhs[3],
                                                             b->lhs[4], b->u, (int)b->m, &size));
    if (try_alloc(&b->buffer, size, "cusparse gpsvInterleaved", b)) {
        ms_out[2] = time_median(c, restore_sparse_interleaved, run_gpsv_interleaved, b);
        res = sampled_backward_error(b, f_penta, b->u, b->rhs, 1);
        emit(c, b->n, b->m, "cusparse gpsvInterleaved", ms_out[2], copy_ms, NULL, 0, NULL, 0, res);
    }
    free_sparse(b);
}

static void run_cusolverdx(void *arg)
{
    const bench_case *b = (const bench_case *)arg;
    char why[512];
    if (cusolverdx_peer_solve(b->dx, b->dx_diag[0], b->dx_diag[1], b->dx_diag[2], b->u, b->m, why,
                              sizeof why)) {
        fprintf(stderr, "bench-banded: cuSolverDx: %s\n", why);
        exit(1);
    }
}

/* cuSolverDx's gtsv_no_pivot on the plain tridiagonal systems (tri: the diagonals), beside our
 * solve (ours_ms), for the long systems (n >= CUSOLVERDX_MIN_N, issue 36's rows); where the peer
 * cannot be had, a line saying why. The peer is generated and linked once for each n (a minute of
 * NVRTC and nvJitLink on the host) and kept for the next batch of that n. */
enum { CUSOLVERDX_MIN_N = 1024 };
static void bench_cusolverdx(bench_case *b, double *const *tri, const banded_factor *f_tri,
                             double copy_ms, double ours_ms)
{
    static cusolverdx_peer *peer = NULL;
    static char why[512] = "";
    static int64_t peer_n = -1;
    if (b->n < CUSOLVERDX_MIN_N) return;
    if (peer_n != b->n) {
        cusolverdx_peer_free(peer);
        peer = cusolverdx_peer_alloc((int)b->n, why, sizeof why);
        peer_n = b->n;
    }
    if (!peer) {
        printf("%5lld %8lld  cusolverdx gtsv_no_pivot: not measured: %s\n", (long long)b->n,
               (long long)b->m, why);
        return;
    }
    for (int k = 0; k < 3; ++k) b->dx_diag[k] = device_diagonal(tri[k], b->n, k - 1);
    b->dx = peer;
    const double ms = time_median(b->c, restore_u, run_cusolverdx, b);
    char name[64];
    snprintf(name, sizeof name, "cusolverdx gtsv_no_pivot k%d", cusolverdx_peer_width(peer));
    emit(b->c, b->n, b->m, name, ms, copy_ms, "ours", ours_ms, NULL, 0,
         sampled_backward_error(b, f_tri, b->u, b->rhs, 1));
    for (int k = 0; k < 3; ++k) CHECK_CUDA(cudaFree(b->dx_diag[k]));
}

/* One cpu solve of a batch, timed by bench_host_median_ms: u restored from rhs, then solved. */
typedef struct cpu_solve {
    banded_solver *s;
    double *u;
    const double *rhs;
    size_t bytes;
    int64_t m;
} cpu_solve;

static void cpu_solve_restore(void *arg)
{
    const cpu_solve *a = (const cpu_solve *)arg;
    memcpy(a->u, a->rhs, a->bytes);
}

static void cpu_solve_run(void *arg)
{
    const cpu_solve *a = (const cpu_solve *)arg;
    CHECK_COHORT(banded_solver_solve(a->s, a->u, a->m, 0, a->m));
}

/* The same batch on the cpu backend: each kind's median of 5 (bench_host_median_ms), against the
 * host's copy of the batch, beside the cuda solve (ours_ms), with its sampled backward error. */
static void bench_cpu(const bench_case *b, banded_factor *const *f, banded_solver *const *s_cpu,
                      const char *const *names, const double *ours_ms)
{
    context *c = b->c;
    double *host_rhs = (double *)malloc(b->bytes), *host_u = (double *)malloc(b->bytes);
    if (!host_rhs || !host_u) {
        fprintf(stderr, "bench-banded: no host memory for the cpu rows (%zu bytes)\n", b->bytes);
        exit(1);
    }
    CHECK_CUDA(cudaMemcpy(host_rhs, b->rhs, b->bytes, cudaMemcpyDeviceToHost));
    const double host_copy_ms = bench_copy_ms(&cohort_backend_cpu, host_u, host_rhs, b->bytes);
    for (int k = 0; k < 4; ++k) {
        cpu_solve solve = {s_cpu[k], host_u, host_rhs, b->bytes, b->m};
        const double ms = bench_host_median_ms(cpu_solve_restore, cpu_solve_run, &solve);
        char name[64], workload[96];
        snprintf(name, sizeof name, "cpu %s", names[k] + 5);
        emit(c, b->n, b->m, name, ms, host_copy_ms, "cuda", ours_ms[k], NULL, 0,
             sampled_backward_error(b, f[k], host_u, host_rhs, 1));
        snprintf(workload, sizeof workload, "banded solve, %s, N = %lld, M = %lld (cpu)",
                 names[k] + 5, (long long)b->n, (long long)b->m);
        bench_table_row("bench-banded", workload, ms, host_copy_ms, "host copy of the batch",
                        "the cuda solve (auto)", ours_ms[k]);
    }
    free(host_rhs);
    free(host_u);
}

/* AUTO's solve of each kind (ours_ms), against the copy and cuSPARSE's and cuSolverDx's solves,
 * in the table and the csv. */
static void auto_rows(bench_case *b, banded_factor *const *f, banded_solver *const *s,
                      const char *const *names, double *const *tri, double *const *penta,
                      double copy_ms, double *ours_ms)
{
    double residual[4];
    double sparse_ms[3] = {0, 0, 0};
    for (int k = 0; k < 4; ++k) {
        b->view = banded_solver_view(s[k]);
        b->path = COHORT_CUDA_BANDED_AUTO;
        b->tile_bytes = 0;
        ours_ms[k] = time_median(b->c, restore_u, run_ours, b);
        residual[k] = sampled_backward_error(b, f[k], b->u, b->rhs, 1);
    }
    bench_cusparse(b, tri, penta, f[0], f[2], copy_ms, sparse_ms);
    bench_cusolverdx(b, tri, f[0], copy_ms, ours_ms[0]);
    for (int k = 0; k < 4; ++k) {
        if (k < 2)
            emit(b->c, b->n, b->m, names[k], ours_ms[k], copy_ms, "gtsv2Strided", sparse_ms[0],
                 "gtsvInterleaved", sparse_ms[1], residual[k]);
        else
            emit(b->c, b->n, b->m, names[k], ours_ms[k], copy_ms, "gpsvInterleaved", sparse_ms[2],
                 NULL, 0, residual[k]);
        /* the table's peer: cuSPARSE's faster routine for the kind; it has none for periodic
         * systems */
        const int fast =
            k < 2 && sparse_ms[1] > 0 && (sparse_ms[0] <= 0 || sparse_ms[1] < sparse_ms[0]);
        const char *peer = k % 2   ? NULL
                           : k < 2 ? (fast ? "cuSPARSE gtsvInterleaved" : "cuSPARSE gtsv2Strided")
                                   : "cuSPARSE gpsvInterleaved";
        char workload[96];
        snprintf(workload, sizeof workload, "banded solve, %s, N = %lld, M = %lld", names[k] + 5,
                 (long long)b->n, (long long)b->m);
        bench_table_row("bench-banded", workload, ours_ms[k], copy_ms, "device copy of the batch",
                        peer, k < 2 ? sparse_ms[fast] : sparse_ms[2]);
    }
}

/* The straightforward kernel (one thread per system in device memory) and the tiled
 * (partitioned) solve, each kind against AUTO's time (ours_ms). */
static void portable_tiled_rows(bench_case *b, banded_factor *const *f, banded_solver *const *s,
                                const char *const *names, double copy_ms, const double *ours_ms)
{
    for (int k = 0; k < 4; ++k) {
        b->view = banded_solver_view(s[k]);
        b->path = COHORT_CUDA_BANDED_PORTABLE;
        const double ms = time_median(b->c, restore_u, run_ours, b);
        char name[64];
        snprintf(name, sizeof name, "%s [portable]", names[k]);
        emit(b->c, b->n, b->m, name, ms, copy_ms, "ours", ours_ms[k], NULL, 0,
             sampled_backward_error(b, f[k], b->u, b->rhs, 1));
    }
    /* the tiled (partitioned) solve at its default budget, with the factor in device memory and in
     * shared memory: what AUTO takes for a solver that prefers the partitioned form
     * (banded_solver_prefer_partitioned: few long systems) */
    for (int shared = 0; shared < 2; ++shared)
        for (int k = 0; k < 4; ++k) {
            b->view = banded_solver_view(s[k]);
            if ((shared ? cohort_cuda_banded_tile_groups(b->view, 0)
                        : cohort_cuda_banded_tile_width(b->view, 0)) == 0)
                continue;
            b->path = shared ? COHORT_CUDA_BANDED_TILED_SHARED : COHORT_CUDA_BANDED_TILED;
            b->tile_bytes = 0;
            const double ms = time_median(b->c, restore_u, run_ours, b);
            char name[64];
            snprintf(name, sizeof name, "%s [%s %d/SM]", names[k],
                     shared ? "tiled shared" : "tiled",
                     cohort_cuda_banded_resident_members(b->view, 0, shared));
            emit(b->c, b->n, b->m, name, ms, copy_ms, "ours", ours_ms[k], NULL, 0,
                 sampled_backward_error(b, f[k], b->u, b->rhs, 1));
        }
}

/* The chunked solve, and the tiled one at the budgets of --tile-bytes, each kind against AUTO's
 * time (ours_ms). */
static void chunked_tile_rows(bench_case *b, banded_factor *const *f, banded_solver *const *s,
                              const char *const *names, double copy_ms, const double *ours_ms)
{
    /* the chunked solve (a thread a chunk of a system, in registers) */
    for (int k = 0; k < 4; ++k) {
        b->view = banded_solver_view(s[k]);
        if (banded_chunk_width(b->view) == 0) continue;
        b->path = COHORT_CUDA_BANDED_CHUNKED;
        b->tile_bytes = 0;
        const double ms = time_median(b->c, restore_u, run_ours, b);
        char name[64];
        snprintf(name, sizeof name, "%s [chunked w%d]", names[k], banded_chunk_width(b->view));
        emit(b->c, b->n, b->m, name, ms, copy_ms, "ours", ours_ms[k], NULL, 0,
             sampled_backward_error(b, f[k], b->u, b->rhs, 1));
    }
    for (int t = 0; t < b->c->opt.n_tile_bytes; ++t)
        for (int k = 0; k < 4; ++k) {
            b->view = banded_solver_view(s[k]);
            b->path = COHORT_CUDA_BANDED_TILED;
            b->tile_bytes = b->c->opt.tile_bytes[t];
            const int width = cohort_cuda_banded_tile_width(b->view, b->tile_bytes);
            if (width == 0) continue;
            const double ms = time_median(b->c, restore_u, run_ours, b);
            char name[64];
            snprintf(name, sizeof name, "%s [tile %zuK w%d]", names[k] + 5, b->tile_bytes / 1024,
                     width);
            emit(b->c, b->n, b->m, name, ms, copy_ms, "auto", ours_ms[k], NULL, 0,
                 sampled_backward_error(b, f[k], b->u, b->rhs, 1));
        }
}

static void bench_one(context *c, int64_t n, int64_t m)
{
    bench_case b;
    memset(&b, 0, sizeof b);
    b.c = c;
    b.n = n;
    b.m = m;
    b.bytes = (size_t)n * (size_t)m * sizeof(double);
    CHECK_CUDA(cudaMalloc((void **)&b.rhs, b.bytes));
    CHECK_CUDA(cudaMalloc((void **)&b.u, b.bytes));
    CHECK_RAND(curandGenerateUniformDouble(c->dev_rng, b.rhs, (size_t)n * (size_t)m));

    const double copy_ms = time_median(c, NULL, run_copy, &b);
    printf("%5lld %8lld  %-26s %9.3f %8.1f %6.3f\n", (long long)n, (long long)m, "device copy",
           copy_ms, 2.0 * (double)b.bytes / (copy_ms * 1e-3) / 1e9, 1.0);
    fprintf(c->csv, "%lld,%lld,device copy,%.6f,%.3f,1,,,,,\n", (long long)n, (long long)m, copy_ms,
            2.0 * (double)b.bytes / (copy_ms * 1e-3) / 1e9);

    double *tri[3], *penta[5];
    for (int k = 0; k < 3; ++k) tri[k] = (double *)malloc((size_t)n * sizeof(double));
    for (int k = 0; k < 5; ++k) penta[k] = (double *)malloc((size_t)n * sizeof(double));
    random_diagonals(c, n, 1, tri);
    random_diagonals(c, n, 2, penta);
    banded_factor *f[4];
    banded_solver *s[4], *s_cpu[4];
    static const char *const names[4] = {"ours tri plain", "ours tri periodic", "ours penta plain",
                                         "ours penta periodic"};
    for (int k = 0; k < 4; ++k) {
        const int h = 1 + k / 2, periodic = k % 2;
        CHECK_COHORT(banded_factor_alloc(n, h, (const double *const *)(h == 1 ? tri : penta),
                                         periodic, &f[k]));
        CHECK_COHORT(banded_solver_alloc(&cohort_backend_cuda, f[k], &s[k]));
        CHECK_COHORT(banded_solver_alloc(&cohort_backend_cpu, f[k], &s_cpu[k]));
    }

    double ours_ms[4];
    auto_rows(&b, f, s, names, tri, penta, copy_ms, ours_ms);
    portable_tiled_rows(&b, f, s, names, copy_ms, ours_ms);
    chunked_tile_rows(&b, f, s, names, copy_ms, ours_ms);
    if (m == bench_m[0] && n * m <= c->opt.cpu_max_values) bench_cpu(&b, f, s_cpu, names, ours_ms);
    for (int k = 0; k < 4; ++k) {
        banded_solver_free(s[k]);
        banded_solver_free(s_cpu[k]);
        banded_factor_free(f[k]);
    }
    for (int k = 0; k < 3; ++k) free(tri[k]);
    for (int k = 0; k < 5; ++k) free(penta[k]);
    CHECK_CUDA(cudaFree(b.rhs));
    CHECK_CUDA(cudaFree(b.u));
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench-banded [--csv FILE] [--reps R>=10] [--tile-bytes B1,B2,...] "
                 "[--cpu-max VALUES] [--n N1,N2,..] [--m M1,M2,..]\n");
}

int main(int argc, char **argv)
{
    context c;
    memset(&c, 0, sizeof c);
    c.opt.csv = "bench-banded.csv";
    c.opt.reps = 15;
    c.opt.warmup = 3;
    c.opt.cpu_max_values = MAX_VALUES;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            c.opt.csv = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            c.opt.reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cpu-max") && i + 1 < argc)
            c.opt.cpu_max_values = atoll(argv[++i]);
        else if ((!strcmp(argv[i], "--n") || !strcmp(argv[i], "--m")) && i + 1 < argc) {
            int64_t *list = argv[i][2] == 'n' ? bench_n : bench_m;
            int *count = list == bench_n ? &n_bench_n : &n_bench_m;
            *count = 0;
            for (char *tok = strtok(argv[++i], ","); tok && *count < 16; tok = strtok(NULL, ","))
                list[(*count)++] = atoll(tok);
        } else if (!strcmp(argv[i], "--tile-bytes") && i + 1 < argc) {
            for (char *tok = strtok(argv[++i], ","); tok && c.opt.n_tile_bytes < 16;
                 tok = strtok(NULL, ","))
                c.opt.tile_bytes[c.opt.n_tile_bytes++] = (size_t)atoll(tok);
        } else if (!strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (c.opt.reps < 10) {
        fprintf(stderr, "bench-banded: --reps must be >= 10\n");
        return 2;
    }
    const cohort_backend *be = NULL;
    if (cohort_backend_get("cuda", &be) != COHORT_OK) {
        fprintf(stderr, "bench-banded: %s\n", cohort_error_detail());
        return 2;
    }
    char device[256];
    be->describe(device, sizeof device);
    c.times = (float *)malloc((size_t)c.opt.reps * sizeof(float));
    c.csv = fopen(c.opt.csv, "w");
    if (!c.csv) {
        fprintf(stderr, "bench-banded: cannot write %s\n", c.opt.csv);
        return 2;
    }
    const unsigned long long seed = (unsigned long long)time(NULL);
    CHECK_RAND(curandCreateGeneratorHost(&c.host_rng, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CHECK_RAND(curandCreateGenerator(&c.dev_rng, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CHECK_RAND(curandSetPseudoRandomGeneratorSeed(c.host_rng, seed));
    CHECK_RAND(curandSetPseudoRandomGeneratorSeed(c.dev_rng, seed + 1));
    CHECK_SPARSE(cusparseCreate(&c.sparse));
    printf("bench-banded on %s; double; median of %d runs after %d warm-ups; seed %llu\n", device,
           c.opt.reps, c.opt.warmup, seed);
    if (c.opt.cpu_max_values > 0) {
        char host[256];
        CHECK_COHORT(cohort_backend_cpu.describe(host, sizeof host));
        printf("cpu rows on %s, median of 5; their 'copy' is the host's copy of the batch\n", host);
    }
    printf("GB/s counts 2*N*M*8 bytes; 'copy' = device-copy time / time; residual = max sampled "
           "backward error\n");
    printf("%5s %8s  %-26s %9s %8s %6s  %8s  %s\n", "N", "M", "method", "ms", "GB/s", "copy",
           "residual", "speed-up");
    fprintf(c.csv, "n,m,method,median_ms,effective_gbs,fraction_of_copy,residual,peer,speedup_over_"
                   "peer,peer2,speedup_over_peer2\n");
    for (int ni = 0; ni < n_bench_n; ++ni)
        for (int mi = 0; mi < n_bench_m; ++mi) {
            if (bench_n[ni] * bench_m[mi] > MAX_VALUES) continue;
            bench_one(&c, bench_n[ni], bench_m[mi]);
        }
    fclose(c.csv);
    printf("CSV written to %s\n", c.opt.csv);
    cusparseDestroy(c.sparse);
    curandDestroyGenerator(c.host_rng);
    curandDestroyGenerator(c.dev_rng);
    return 0;
}
