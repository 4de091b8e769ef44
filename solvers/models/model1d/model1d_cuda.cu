/* The 1D step on the cuda backend: the right-hand-side kernel followed by the banded solve, or
 * both in one pass through the banded solver's warp-tile kernel (banded_cuda.cuh) with the 1D
 * models' right-hand side as its policy (model1d_cuda.h says which path AUTO takes). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#include "backend/cuda_check.cuh"
#include "banded/banded_cuda.cuh"
#include "banded/banded_cuda.h"
#include "models/model1d/model1d_cuda.h"
#include "models/model1d/model1d_kernels.h"
#include "models/model1d/model1d_numerics.h"

/* ---- 1D model right-hand sides: one thread per member, a sweep along it (model1d_sweep: a window
 * of seven rows in registers, so each value of u is read once, and each row's cubic and each
 * difference's WENO parts computed once). The rows that advance the window are read a chunk of
 * RHS_CHUNK ahead: read one row before its use, ch1d_forced's reads held most of the kernel's
 * stall cycles. ---- */

enum { RHS_CHUNK = 4 };

/* Blocks of RHS_THREADS, RHS_BLOCKS an SM: ch1d_forced's sweep in 80 registers a thread (it
 * would take 111), so that 24 warps an SM hide its chains of dependent operations (16 did not;
 * docs/performance.md, "The flow map's right-hand side by a sweep"). */
enum { RHS_THREADS = 128, RHS_BLOCKS = 6 };

/* The kernel's forms, each built as a kernel of its own (so that each has its own registers): a
 * short member, indexed neighbour by neighbour, or the sweep, without the advection or upwinded to
 * the right (v > 0) or to the left */
enum { RHS_SHORT, RHS_NO_ADVECTION, RHS_RIGHT, RHS_LEFT };

template <int FORM>
__device__ __forceinline__ void rhs_sweep(model1d_rhs r, const double *__restrict__ u,
                                          double *__restrict__ f, double mu, double drift,
                                          double f0, int64_t n, int64_t ld, int64_t m)
{
    /* the advection's test and direction fixed here, so that no branch cuts the unrolled points
     * apart */
    r.terms = FORM == RHS_NO_ADVECTION ? r.terms & ~MODEL1D_TERM_ADVECTION
                                       : r.terms | MODEL1D_TERM_ADVECTION;
    const int right = FORM == RHS_RIGHT;
    /* row j of the member, j in [-RADIUS, 2n): the reads reach row n + RADIUS + RHS_CHUNK */
    auto row = [&](int64_t j) { return u + (j < 0 ? j + n : j < n ? j : j - n) * ld + m; };
    model1d_sweep s;
    double ahead[RHS_CHUNK];
    for (int k = 0; k < MODEL1D_WINDOW; ++k) s.c[k] = *row(k - MODEL1D_RADIUS);
    model1d_sweep_start(&r, &s, mu, drift, right);
#pragma unroll
    for (int q = 0; q < RHS_CHUNK; ++q) ahead[q] = *row(MODEL1D_RADIUS + 1 + q);
    auto point = [&](int64_t i, double next) {
        f[i * ld + m] = model1d_sweep_point(&r, &s, drift, r.forcing ? r.forcing[i] : 0.0, f0);
        model1d_sweep_advance(&r, &s, next, mu, drift, right);
    };
    int64_t i = 0;
    for (; i + RHS_CHUNK <= n; i += RHS_CHUNK) {
        double next[RHS_CHUNK];
#pragma unroll
        for (int q = 0; q < RHS_CHUNK; ++q) {
            next[q] = ahead[q];
            ahead[q] = __ldcs(row(i + RHS_CHUNK + MODEL1D_RADIUS + 1 + q));
        }
#pragma unroll
        for (int q = 0; q < RHS_CHUNK; ++q) point(i + q, next[q]);
    }
#pragma unroll
    for (int q = 0; q < RHS_CHUNK; ++q)
        if (i + q < n) point(i + q, ahead[q]);
}

template <int FORM>
__global__ void __launch_bounds__(RHS_THREADS, RHS_BLOCKS)
    model1d_rhs_kernel(model1d_rhs r, const double *__restrict__ u, double *__restrict__ f,
                       const double *__restrict__ mean, const double *__restrict__ member_f0,
                       const double *__restrict__ drift_in, int64_t n, int64_t ld, int64_t m0,
                       int64_t count)
{
    const int64_t m = m0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m >= m0 + count) return;
    const double mu = mean ? mean[m] : 0.0, f0 = member_f0 ? member_f0[m] : r.f0;
    /* projected out: handed on by the step before, or summed here (a read of the whole member) */
    const double drift = !mean ? 0.0 : drift_in ? drift_in[m] : field_member_mean(u + m, n, ld);
    if constexpr (FORM == RHS_SHORT)
        for (int64_t i = 0; i < n; ++i)
            f[i * ld + m] = model1d_rhs_at(&r, u + m, n, ld, i, mu, drift, f0);
    else
        rhs_sweep<FORM>(r, u, f, mu, drift, f0, n, ld, m);
}

typedef void (*rhs_kernel_fn)(model1d_rhs, const double *, double *, const double *, const double *,
                              const double *, int64_t, int64_t, int64_t, int64_t);

/* The kernel of each form, in the enum's order */
static const rhs_kernel_fn rhs_kernels[] = {
    model1d_rhs_kernel<RHS_SHORT>, model1d_rhs_kernel<RHS_NO_ADVECTION>,
    model1d_rhs_kernel<RHS_RIGHT>, model1d_rhs_kernel<RHS_LEFT>};

/* The form for r and n members' rows */
static int rhs_form(const model1d_rhs *r, int64_t n)
{
    if (n < MODEL1D_WINDOW + RHS_CHUNK) return RHS_SHORT;
    if (!(r->terms & MODEL1D_TERM_ADVECTION)) return RHS_NO_ADVECTION;
    return r->advection > 0.0 ? RHS_RIGHT : RHS_LEFT;
}

/* The kernel for r and n, the blocks of every form asking for the SM's shared memory carved out
 * as the warp solve's are (they use none themselves), so that an SM that holds a solve's block
 * may take them beside it (advance_in_parts; measured once, a step in parts took 0.89 of the step
 * without parts with it, 0.92 without, in another session: docs/performance.md) */
static int rhs_kernel_for(const model1d_rhs *r, int64_t n, rhs_kernel_fn *kernel)
{
    static int carved = 0;
    for (size_t k = 0; k < sizeof rhs_kernels / sizeof rhs_kernels[0] && !carved; ++k)
        COHORT_CUDA_CHECK(cudaFuncSetAttribute(rhs_kernels[k],
                                               cudaFuncAttributePreferredSharedMemoryCarveout,
                                               cudaSharedmemCarveoutMaxShared));
    carved = 1;
    *kernel = rhs_kernels[rhs_form(r, n)];
    return COHORT_OK;
}

/* drift[m] = field_member_mean of member m of x: the drift a step hands on where its solve does
 * not sum what it stores. */
__global__ void __launch_bounds__(COHORT_CUDA_THREADS)
    model1d_drift_kernel(const double *__restrict__ x, double *__restrict__ drift, int64_t n,
                         int64_t ld, int64_t m0, int64_t count)
{
    const int64_t m = m0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m < m0 + count) drift[m] = field_member_mean(x + m, n, ld);
}

/* ---- the 1D step in one pass: the right-hand side inside the warp-tile solve ---- */

/* The warp tile's right-hand side (banded_cuda.cuh): model1d_rhs_point with the model's terms as
 * the constant TERMS, so that the tests of absent terms fold away and no branch cuts the unrolled
 * rows apart (their right-hand sides overlap). */
template <unsigned TERMS> struct model1d_warp_rhs {
    static_assert(!(TERMS & MODEL1D_TERM_FORCING),
                  "the fused step has no forcing term: ch1d_forced takes the separate kernels");
    enum { SOLVE_ONLY = 0, RADIUS = MODEL1D_RADIUS, AHEAD = MODEL1D_RADIUS + 1, STORES_MEAN = 0 };
    model1d_rhs r;
    __device__ model1d_warp_rhs prepared() const
    {
        model1d_warp_rhs p = *this;
        p.r.terms = TERMS;
        return p;
    }
    __device__ double drift(const double *x, int n, int w) const
    {
        return field_member_mean(x, n, w);
    }
    __device__ double row_value(double u, double mu, double drift) const
    {
        return model1d_rhs_cubic(&r, u, mu, drift);
    }
    __device__ double point(const double *c, const double *cubic, double mu, double drift) const
    {
        return model1d_rhs_point_cubic(&r, c, cubic, drift, 0.0, 0.0);
    }
};

/* The (half-bandwidth, border, terms) the fused kernel is built for: the 1D models (model1d.c);
 * any other right-hand side takes the separate kernels. Not ch1d_forced: its WENO derivative
 * (about 75 floating-point operations and a division a point, counted from the source) needs a
 * kernel of 254 registers, and the tiles of N = 512 leave three warps of 16 members an SM to hide
 * its latencies, so the separate kernels are faster (bench-model1d; solvers/banded/PERFORMANCE.md,
 * which also has the right-hand side formed in a pass of its own before the sweeps, tried and
 * slower still). */
#define MODEL1D_FUSED_VARIANTS(X)                                                                  \
    X(1, 1, MODEL1D_TERM_STENCIL)   /* diffusion1d */                                              \
    X(2, 2, MODEL1D_TERM_STENCIL)   /* hyperdiffusion1d */                                         \
    X(2, 2, MODEL1D_TERM_NONLINEAR) /* ch1d */

/* The fused step's tile widths. One step a launch streams its tiles through device memory and
 * takes a warp or half (banded_warp_width_for: rows of a power of two of members keep to the
 * 128-byte lines). Steps on chip are bound by the instructions a warp issues, so an advance takes
 * banded_warp_width_on_chip's: at N = 256 three tiles of 32 fit an SM and leave one of its four
 * schedulers idle, four tiles of 26 fill them (solvers/banded/PERFORMANCE.md, "Four tiles an SM
 * for the 1D steps on chip"). */
typedef banded_warp_widths<WARP_MAX_WIDTH, 26, WARP_MIN_WIDTH> model1d_fused_widths;

/* One built variant's launch through the warp-tile kernel: `steps` steps, the state kept in the
 * tiles between them. */
template <int H, int BORDER, unsigned TERMS>
static int fused_launch(const model1d_rhs *r, const banded_view *v, const double *u, double *out,
                        const double *mean, int64_t ld, int64_t m0, int64_t count, int width,
                        int steps)
{
    const model1d_warp_rhs<TERMS> rhs = {*r};
    return banded_warp_launch(
        banded_warp_kernel_for<H, BORDER, model1d_warp_rhs<TERMS>>(model1d_fused_widths(), width),
        rhs, v, u, out, mean, ld, m0, count, 1, 0, width, steps, NULL);
}

typedef int (*fused_launch_fn)(const model1d_rhs *, const banded_view *, const double *, double *,
                               const double *, int64_t, int64_t, int64_t, int, int);

/* The launch built for r's terms and v's half-bandwidth and border, or NULL. */
static fused_launch_fn fused_launcher(const model1d_rhs *r, const banded_view *v)
{
#define MODEL1D_FUSED_MATCH(half, edge, set)                                                       \
    if (v->h == (half) && v->border == (edge) && r->terms == (set))                                \
        return fused_launch<half, edge, set>;
    MODEL1D_FUSED_VARIANTS(MODEL1D_FUSED_MATCH)
#undef MODEL1D_FUSED_MATCH
    return NULL;
}

/* Whether the fused kernel serves r and v: a periodic system of one shared factor, a window that
 * does not wrap onto itself, and a kernel built for the terms. */
static bool fused_serves(const model1d_rhs *r, const banded_view *v)
{
    return v->border == v->h && v->n >= MODEL1D_WINDOW && !v->member_factor && fused_launcher(r, v);
}

extern "C" int cohort_cuda_model1d_step_width(const model1d_rhs *r, const banded_view *v,
                                              size_t tile_bytes)
{
    return fused_serves(r, v) ? banded_warp_width_for(v, tile_bytes) : 0;
}

extern "C" int cohort_cuda_model1d_advance_width(const model1d_rhs *r, const banded_view *v,
                                                 size_t tile_bytes)
{
    return fused_serves(r, v) ? banded_warp_width_on_chip(v, tile_bytes, model1d_fused_widths())
                              : 0;
}

/* drift_out (where given) from a read of out, after a step whose solve does not sum as it
 * stores */
static int drift_by_reading(const banded_view *v, const double *out, double *drift_out, int64_t ld,
                            int64_t m0, int64_t count)
{
    if (!drift_out) return COHORT_OK;
    const unsigned blocks = (unsigned)((count + COHORT_CUDA_THREADS - 1) / COHORT_CUDA_THREADS);
    model1d_drift_kernel<<<blocks, COHORT_CUDA_THREADS>>>(out, drift_out, v->n, ld, m0, count);
    COHORT_CUDA_CHECK_LAUNCH("model1d_drift_kernel");
    return COHORT_OK;
}

/* The separate kernels' step: the right-hand side into out, then the banded solve in place
 * (PORTABLE's or AUTO's), with drift_out from the warp path's store where AUTO takes it; on
 * `stream` where the warp path stores the drift, else on the default stream. */
static int separate_step(const model1d_rhs *r, const banded_view *v, const double *u, double *out,
                         const double *mean, const double *member_f0, const double *drift_in,
                         double *drift_out, int64_t ld, int64_t m0, int64_t count, int portable,
                         cudaStream_t stream)
{
    const int stores_drift = drift_out && !portable && cohort_cuda_banded_auto_stores_mean(v);
    if (stream && !stores_drift)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "a step on a stream of its own hands its drift on from the warp path");
    const unsigned blocks = (unsigned)((count + RHS_THREADS - 1) / RHS_THREADS);
    rhs_kernel_fn kernel = NULL;
    COHORT_CALL(rhs_kernel_for(r, v->n, &kernel));
    kernel<<<blocks, RHS_THREADS, 0, stream>>>(*r, u, out, mean, member_f0, drift_in, v->n, ld, m0,
                                               count);
    COHORT_CUDA_CHECK_LAUNCH("model1d_rhs_kernel");
    if (stores_drift)
        return cohort_cuda_banded_solve_mean(v, out, ld, m0, count, drift_out, stream);
    COHORT_CALL(cohort_cuda_banded_solve_path(
        v, out, ld, m0, count, portable ? COHORT_CUDA_BANDED_PORTABLE : COHORT_CUDA_BANDED_AUTO,
        0));
    return drift_by_reading(v, out, drift_out, ld, m0, count);
}

extern "C" int cohort_cuda_model1d_step_path(const model1d_rhs *r, const banded_view *v,
                                             const double *u, double *out, const double *mean,
                                             const double *member_f0, const double *drift_in,
                                             double *drift_out, int64_t ld, int64_t m0,
                                             int64_t count, cohort_cuda_step_path path,
                                             size_t tile_bytes)
{
    const int width =
        path == COHORT_CUDA_STEP_PORTABLE ? 0 : cohort_cuda_model1d_step_width(r, v, tile_bytes);
    if (path == COHORT_CUDA_STEP_FUSED && width == 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "no tile of >= %d members of n = %lld rows fits in %zu bytes (or "
                           "n < %d, the system is not periodic, or no kernel is built for the "
                           "terms)",
                           WARP_MIN_WIDTH, (long long)v->n, tile_bytes, MODEL1D_WINDOW);
    if (width == 0)
        return separate_step(r, v, u, out, mean, member_f0, drift_in, drift_out, ld, m0, count,
                             path == COHORT_CUDA_STEP_PORTABLE, 0);
    COHORT_CALL(fused_launcher(r, v)(r, v, u, out, mean, ld, m0, count, width, 1));
    return drift_by_reading(v, out, drift_out, ld, m0, count); /* its steps stay on chip instead */
}

extern "C" int cohort_cuda_model1d_advance_fused(const model1d_rhs *r, const banded_view *v,
                                                 const double *u, double *out, const double *mean,
                                                 int64_t ld, int64_t m0, int64_t count, int steps,
                                                 size_t tile_bytes)
{
    const int width = cohort_cuda_model1d_advance_width(r, v, tile_bytes);
    if (width == 0 || steps < 1)
        return COHORT_FAIL(
            COHORT_ERR_INVALID_ARGUMENT,
            "%d steps on chip: no fused tile for n = %lld at %zu bytes, or steps < 1", steps,
            (long long)v->n, tile_bytes);
    return fused_launcher(r, v)(r, v, u, out, mean, ld, m0, count, width, steps);
}

/* Where the fused tile forms, all the steps in one launch with the states on chip; elsewhere 0:
 * the caller steps one at a time. */
static int cuda_advance_on_chip(const model1d_rhs *r, const banded_view *v)
{
    return cohort_cuda_model1d_advance_width(r, v, 0) > 0;
}

static int cuda_advance(const model1d_rhs *r, const banded_view *v, const double *u, double *out,
                        const double *mean, int64_t ld, int64_t m0, int64_t count, int64_t steps)
{
    if (steps > INT_MAX)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "%lld steps in one launch (at most %d)",
                           (long long)steps, INT_MAX);
    return cohort_cuda_model1d_advance_fused(r, v, u, out, mean, ld, m0, count, (int)steps, 0);
}

static int cuda_step(const model1d_rhs *r, const banded_view *v, const double *u, double *out,
                     const double *mean, const double *member_f0, const double *drift_in,
                     double *drift_out, int64_t ld, int64_t m0, int64_t count)
{
    return cohort_cuda_model1d_step_path(r, v, u, out, mean, member_f0, drift_in, drift_out, ld, m0,
                                         count, COHORT_CUDA_STEP_AUTO, 0);
}

/* The separate kernels' step where the warp path's solve sums what it stores (banded_warp_store);
 * where the fused tile forms, the steps stay on chip instead (cuda_advance_on_chip). */
static int cuda_hands_on_drift(const model1d_rhs *r, const banded_view *v)
{
    return cohort_cuda_model1d_step_width(r, v, 0) == 0 && cohort_cuda_banded_auto_stores_mean(v);
}

/* ---- the separate kernels' steps in parts: one part's right-hand side beside another's solve.
 * The warp path's solve of ch1d_forced (N = 512) holds an SM with one block of three tiles, by its
 * shared memory, and leaves most of its registers and issue slots idle; the right-hand side, which
 * needs no shared memory, fills them where the members are cut into parts that step on streams of
 * their own (docs/performance.md, "The flow map's right-hand side by a sweep, its steps in parts").
 * Each member takes the kernels it took before, so its bits do not change. ---- */

enum { STEP_PARTS = 2, PART_ALIGN = 32 };

typedef struct step_parts {
    cudaStream_t stream[STEP_PARTS];
    cudaEvent_t event[STEP_PARTS + 1]; /* each part's end; the default stream's work before */
} step_parts;

static int parts_created(cudaError_t rc)
{
    if (rc == cudaSuccess) return COHORT_OK;
    return COHORT_FAIL(COHORT_ERR_CUDA, "streams for the members' parts: %s",
                       cudaGetErrorString(rc));
}

/* The parts' streams, each after what the default stream was given before (NULL where not made) */
static int parts_open(step_parts *p)
{
    *p = step_parts{};
    cudaError_t rc = cudaEventCreateWithFlags(&p->event[STEP_PARTS], cudaEventDisableTiming);
    if (rc == cudaSuccess) rc = cudaEventRecord(p->event[STEP_PARTS], 0);
    for (int k = 0; k < STEP_PARTS && rc == cudaSuccess; ++k) {
        rc = cudaStreamCreateWithFlags(&p->stream[k], cudaStreamNonBlocking);
        if (rc == cudaSuccess) rc = cudaEventCreateWithFlags(&p->event[k], cudaEventDisableTiming);
        if (rc == cudaSuccess) rc = cudaStreamWaitEvent(p->stream[k], p->event[STEP_PARTS], 0);
    }
    return parts_created(rc);
}

/* The default stream's later work after every part's; the streams released when done */
static int parts_close(step_parts *p)
{
    cudaError_t rc = cudaSuccess;
    for (int k = 0; k < STEP_PARTS; ++k) {
        if (p->stream[k] && rc == cudaSuccess) rc = cudaEventRecord(p->event[k], p->stream[k]);
        if (p->stream[k] && rc == cudaSuccess) rc = cudaStreamWaitEvent(0, p->event[k], 0);
    }
    for (int k = 0; k <= STEP_PARTS; ++k)
        if (p->event[k]) cudaEventDestroy(p->event[k]);
    for (int k = 0; k < STEP_PARTS; ++k)
        if (p->stream[k]) cudaStreamDestroy(p->stream[k]);
    return parts_created(rc);
}

/* `steps` steps with the drift handed on through drift (model1d_kernels.advance_in_parts) */
static int cuda_advance_in_parts(const model1d_rhs *r, const banded_view *v, double *u, double *out,
                                 const double *mean, const double *member_f0, double *drift,
                                 int64_t ld, int64_t m0, int64_t count, int64_t steps)
{
    step_parts p;
    int rc = parts_open(&p);
    const int64_t per =
        ((count + STEP_PARTS - 1) / STEP_PARTS + PART_ALIGN - 1) / PART_ALIGN * PART_ALIGN;
    for (int64_t j = 0; j < steps && rc == COHORT_OK; ++j)
        for (int k = 0; k < STEP_PARTS && rc == COHORT_OK; ++k) {
            const int64_t first = m0 + k * per, members = m0 + count - first;
            if (members <= 0) break;
            rc = separate_step(r, v, j % 2 ? out : u, j % 2 ? u : out, mean, member_f0,
                               j > 0 ? drift : NULL, drift, ld, first,
                               members < per ? members : per, 0, p.stream[k]);
        }
    const int closed = parts_close(&p);
    return rc != COHORT_OK ? rc : closed;
}

/* Where the steps hand their drift on from the warp path's store (cuda_hands_on_drift) and its
 * blocks stage the shared factor: members with factors of their own (a swept gamma) leave the
 * factor in device memory, their tiles fill the SMs, and the parts did not pay there (the
 * sensitivity study, docs/performance.md) */
static int cuda_advances_in_parts(const model1d_rhs *r, const banded_view *v)
{
    return !v->member_factor && cuda_hands_on_drift(r, v);
}

extern "C" const model1d_kernels model1d_kernels_cuda = {.step = cuda_step,
                                                         .hands_on_drift = cuda_hands_on_drift,
                                                         .advance_on_chip = cuda_advance_on_chip,
                                                         .advance = cuda_advance,
                                                         .advances_in_parts =
                                                             cuda_advances_in_parts,
                                                         .advance_in_parts = cuda_advance_in_parts};
