/* The relaxation on the cuda backend (relax_kernels.h), for one large member or many.
 *
 * Reordered by colour (seed 004, section 3): member m's colour c (0 red, i + j even; 1 black)
 * holds rows j = 0 .. M2 + 1 of W = (M1 + 3) / 2 values, point (i, j) at q = i / 2 of its colour's
 * row j, so a sweep reads and writes its colour's rows contiguously and the other colour's
 * neighbours at q - 1 + p, q + p (west, east; p = (c + j) & 1) and q (north, south). Omega sits in
 * the same layout; seed 004's coefficients are computed in the sweep (its kernel #2 read h f and
 * k g, kernel #3 everything: here only u and omega are read, about 3 doubles a point).
 *
 * Everything runs on the device: the members' setup (stencils, case counts, omega; the cosines of
 * eq. 10-11 come from the host in relax_grid), the reordering to and from the colour layout, the
 * iterations. Each iteration is a red sweep, a black sweep and a check of one thread per member
 * that freezes a member the iteration its criterion falls to the tolerance (the sweeps skip frozen
 * members), so the host reads the count of converged members only every 32 iterations and no
 * iteration is wasted on a converged member. Small members of an ensemble that fills the device
 * instead run whole in one block each (relax_member_kernel). This file is compiled without FMA
 * contraction (CMakeLists.txt): the point arithmetic then rounds as on the cpu, and the results,
 * omega and the case counts included, are the cpu's bits. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_cuda.h"
#include "backend/cuda_check.cuh"
#include "relax/relax_kernels.h"

typedef struct relax_layout {
    int m1, m2, width;                    /* M1, M2, W */
    int64_t colour_values, member_values; /* (M2 + 2) W, 2 (M2 + 2) W */
} relax_layout;

static relax_layout relax_layout_make(const relax_problem *p)
{
    relax_layout L;
    L.m1 = (int)p->m1, L.m2 = (int)p->m2, L.width = (int)((p->m1 + 3) / 2);
    L.colour_values = (p->m2 + 2) * L.width;
    L.member_values = 2 * L.colour_values;
    return L;
}

/* The per-row kernels' geometry: block (x, y) covers rows y * RELAX_ROWS + 1 .. of one member
 * (blockIdx.x = member * row groups + group) and RELAX_THREADS values of each along q
 * (blockIdx.y), so every block belongs to one member and folds its criterion once. */
enum { RELAX_THREADS = 256, RELAX_ROWS = 4 };

/* The largest member the one-block-a-member path takes (its two colours' values in shared
 * memory), where the device lets a block hold that much: the bound it was built with; larger
 * members take the launches per colour, with the same bits. */
static const size_t RELAX_MEMBER_MAX_BYTES = 160 * 1024;

static dim3 relax_row_blocks(const relax_layout &L, int64_t count, int rows)
{
    const int64_t groups = (rows + RELAX_ROWS - 1) / RELAX_ROWS;
    return dim3((unsigned)(count * groups),
                (unsigned)((L.width + RELAX_THREADS - 1) / RELAX_THREADS));
}

/* What a block of the per-row kernels covers (relax_row_blocks): member m, the rows [first, last)
 * of the `rows` that start at row `first_row`, and its thread's q */
typedef struct relax_rows {
    int64_t m;
    int q, first, last;
} relax_rows;

__device__ __forceinline__ relax_rows relax_block_rows(int rows, int first_row)
{
    const int groups = (rows + RELAX_ROWS - 1) / RELAX_ROWS, group = blockIdx.x % groups;
    relax_rows b;
    b.m = blockIdx.x / groups;
    b.q = blockIdx.y * RELAX_THREADS + threadIdx.x;
    b.first = first_row + group * RELAX_ROWS;
    b.last = first_row + min((group + 1) * RELAX_ROWS, rows);
    return b;
}

/* the criterion's maximum as the bits of a non-negative double (ordered like the values) */
__device__ __forceinline__ void relax_atomic_max(unsigned long long *slot, double value)
{
    atomicMax(slot, (unsigned long long)__double_as_longlong(value));
}

/* The block's maximum of a non-negative value into *slot (one atomic per block) */
__device__ __forceinline__ void relax_block_max(unsigned long long *slot, double value)
{
    __shared__ double warp_max[RELAX_THREADS / 32];
    for (int offset = 16; offset > 0; offset /= 2)
        value = fmax(value, __shfl_xor_sync(0xffffffffu, value, offset));
    if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x / 32] = value;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x / 32); ++w) value = fmax(value, warp_max[w]);
        relax_atomic_max(slot, value);
    }
}

/* Member m's convection coefficients at (i, j): seed 004's problem at its Re (ANALYTIC), else
 * its f, g arrays */
template <int ANALYTIC>
__device__ __forceinline__ relax_stencil relax_stencil_of(const relax_layout &L,
                                                          const relax_grid &G,
                                                          const relax_problem &p, int64_t m, int i,
                                                          int j, const double *f, const double *g,
                                                          const double *re)
{
    double fc, gc;
    if (ANALYTIC) {
        relax_seed004_coefficients(p.coefficients, re[m], (double)i * G.h, (double)j * G.k, &fc,
                                   &gc);
    } else {
        const int64_t v = m * L.m1 * L.m2 + (int64_t)(j - 1) * L.m1 + (i - 1);
        fc = f[v], gc = g[v];
    }
    return relax_stencil_at(fc, gc, &G);
}

/* natural layout <-> colour layout, every value of every member (boundary rings included) */
template <int TO_COLOURS>
__global__ void __launch_bounds__(RELAX_THREADS)
    relax_reorder_kernel(const __grid_constant__ relax_layout L, int64_t count,
                         const double *__restrict__ from, double *__restrict__ to)
{
    const relax_rows b = relax_block_rows(L.m2 + 2, 0);
    const int64_t m = b.m;
    const int q = b.q, row = L.m1 + 2;
    for (int j = b.first; q < L.width && j < b.last; ++j)
        for (int c = 0; c < 2; ++c) {
            const int i = 2 * q + ((c + j) & 1);
            if (i > L.m1 + 1) continue;
            const int64_t natural = m * row * (int64_t)(L.m2 + 2) + (int64_t)j * row + i;
            const int64_t colour =
                m * L.member_values + c * L.colour_values + (int64_t)j * L.width + q;
            if (TO_COLOURS)
                to[colour] = from[natural];
            else
                to[natural] = from[colour];
        }
}

/* Each member's setup: omega at each interior point for its colour (eq. 9-13), the case counts
 * (cases[3 m + case]) and the largest upper mu (SOR's global omega) */
template <int ANALYTIC>
__global__ void __launch_bounds__(RELAX_THREADS)
    relax_setup_kernel(const __grid_constant__ relax_layout L, const __grid_constant__ relax_grid G,
                       relax_problem p, const double *__restrict__ f, const double *__restrict__ g,
                       const double *__restrict__ re, double *__restrict__ omega,
                       unsigned long long *__restrict__ cases,
                       unsigned long long *__restrict__ largest)
{
    __shared__ unsigned block_cases[3];
    if (threadIdx.x < 3) block_cases[threadIdx.x] = 0;
    __syncthreads();
    const relax_rows b = relax_block_rows(L.m2, 1);
    const int64_t m = b.m;
    const int q = b.q;
    double upper_max = 0.0;
    for (int j = b.first; q < L.width && j < b.last; ++j)
        for (int c = 0; c < 2; ++c) {
            const int i = 2 * q + ((c + j) & 1);
            if (i < 1 || i > L.m1) continue;
            const relax_stencil s = relax_stencil_of<ANALYTIC>(L, G, p, m, i, j, f, g, re);
            double red, black, upper, lower;
            const relax_case k = relax_local_parameters(s, &G, p.method, &red, &black);
            omega[m * L.member_values + c * L.colour_values + (int64_t)j * L.width + q] =
                c == 0 ? red : black;
            atomicAdd(&block_cases[k], 1u);
            if (p.method == RELAX_SOR) {
                relax_mu(s, &G, &upper, &lower);
                upper_max = fmax(upper_max, upper);
            }
        }
    if (p.method == RELAX_SOR) relax_block_max(&largest[m], upper_max);
    __syncthreads();
    if (threadIdx.x < 3 && block_cases[threadIdx.x])
        atomicAdd(&cases[3 * m + threadIdx.x], (unsigned long long)block_cases[threadIdx.x]);
}

/* SOR: every interior point of member m takes its global omega */
__global__ void __launch_bounds__(RELAX_THREADS)
    relax_fill_omega_kernel(const __grid_constant__ relax_layout L,
                            const double *__restrict__ member_omega, double *__restrict__ omega)
{
    const relax_rows b = relax_block_rows(L.m2, 1);
    const int64_t m = b.m;
    const int q = b.q;
    for (int j = b.first; q < L.width && j < b.last; ++j)
        for (int c = 0; c < 2; ++c) {
            const int i = 2 * q + ((c + j) & 1);
            if (i >= 1 && i <= L.m1)
                omega[m * L.member_values + c * L.colour_values + (int64_t)j * L.width + q] =
                    member_omega[m];
        }
}

/* One colour's sweep over the rows of the block's member (eq. 6-7), its criterion folded in */
template <int COLOUR, int ANALYTIC>
__global__ void __launch_bounds__(RELAX_THREADS)
    relax_sweep_kernel(const __grid_constant__ relax_layout L, const __grid_constant__ relax_grid G,
                       relax_problem p, double *__restrict__ u, const double *__restrict__ omega,
                       const double *__restrict__ f, const double *__restrict__ g,
                       const double *__restrict__ re, const int64_t *__restrict__ done,
                       unsigned long long *__restrict__ criterion)
{
    const relax_rows b = relax_block_rows(L.m2, 1);
    const int64_t m = b.m;
    if (done[m]) return; /* the whole block: one member */
    const int q = b.q;
    double *own = u + m * L.member_values + COLOUR * L.colour_values;
    const double *other = u + m * L.member_values + (1 - COLOUR) * L.colour_values;
    const double *w = omega + m * L.member_values + COLOUR * L.colour_values;
    double value = 0.0;
    for (int j = b.first; q < L.width && j < b.last; ++j) {
        const int parity = (COLOUR + j) & 1, i = 2 * q + parity;
        if (i < 1 || i > L.m1) continue;
        const int64_t at = (int64_t)j * L.width + q;
        const double old = own[at];
        const double updated = relax_update(
            old, w[at], relax_stencil_of<ANALYTIC>(L, G, p, m, i, j, f, g, re),
            other[at - 1 + parity], other[at + parity], other[at + L.width], other[at - L.width]);
        own[at] = updated;
        value = fmax(value, fabs(p.change_criterion ? updated - old : updated));
    }
    relax_block_max(&criterion[2 * m + COLOUR], value);
}

/* After iteration n: each member's criterion, its history, its convergence */
__global__ void relax_check_kernel(int64_t count, int64_t n, relax_problem p,
                                   unsigned long long *criterion, int64_t *done,
                                   unsigned long long *converged, double *history, int64_t checks)
{
    const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (m >= count || done[m]) return;
    const double value = fmax(__longlong_as_double((long long)criterion[2 * m]),
                              __longlong_as_double((long long)criterion[2 * m + 1]));
    criterion[2 * m] = criterion[2 * m + 1] = 0;
    if (history && n % p.check_every == 0) history[m * checks + n / p.check_every - 1] = value;
    if (value <= p.tolerance) {
        done[m] = n;
        atomicAdd(converged, 1ull);
    }
}

/* A whole member per block in shared memory (small members of an ensemble): u and omega of the
 * member in the colour layout (so a warp's neighbours are contiguous, free of bank conflicts), a
 * colour row's points on consecutive lanes (q from 1 - parity, the first with i >= 1), red and
 * black sweeps with a barrier between, the criterion folded in the block every iteration, so the
 * member runs from its first iteration to its convergence (or the cap) without global memory, with
 * the same arithmetic and the same exact counts as the per-sweep kernels. Block (x, y): x along q,
 * y along the rows. */
template <int ANALYTIC>
__global__ void __launch_bounds__(512)
    relax_member_kernel(const __grid_constant__ relax_layout L,
                        const __grid_constant__ relax_grid G, relax_problem p,
                        double *__restrict__ u, const double *__restrict__ omega,
                        const double *__restrict__ f, const double *__restrict__ g,
                        const double *__restrict__ re, int64_t *__restrict__ done,
                        double *__restrict__ history, int64_t checks)
{
    extern __shared__ double member[];
    const int64_t values = L.member_values;
    double *us = member, *ws = member + values;
    __shared__ double warp_max[16];
    __shared__ int finished;
    const int64_t m = blockIdx.x;
    const int threads = blockDim.x * blockDim.y, t = threadIdx.y * blockDim.x + threadIdx.x;
    for (int64_t at = t; at < values; at += threads)
        us[at] = u[m * values + at], ws[at] = omega[m * values + at];
    if (t == 0) finished = 0;
    __syncthreads();
    for (int64_t n = 1; n <= p.max_iterations; ++n) {
        double value = 0.0;
        for (int colour = 0; colour < 2; ++colour) {
            double *own = us + colour * L.colour_values;
            const double *other = us + (1 - colour) * L.colour_values;
            const double *w = ws + colour * L.colour_values;
            for (int j = 1 + threadIdx.y; j <= L.m2; j += blockDim.y) {
                const int parity = (colour + j) & 1, first = 1 - parity;
                for (int q = first + threadIdx.x; 2 * q + parity <= L.m1; q += blockDim.x) {
                    const int i = 2 * q + parity, at = j * L.width + q;
                    const double old = own[at];
                    const double updated = relax_update(
                        old, w[at], relax_stencil_of<ANALYTIC>(L, G, p, m, i, j, f, g, re),
                        other[at - 1 + parity], other[at + parity], other[at + L.width],
                        other[at - L.width]);
                    own[at] = updated;
                    value = fmax(value, fabs(p.change_criterion ? updated - old : updated));
                }
            }
            __syncthreads();
        }
        for (int offset = 16; offset > 0; offset /= 2)
            value = fmax(value, __shfl_xor_sync(0xffffffffu, value, offset));
        if ((t & 31) == 0) warp_max[t / 32] = value;
        __syncthreads();
        if (t < 32) {
            double criterion = t < threads / 32 ? warp_max[t] : 0.0;
            for (int offset = 16; offset > 0; offset /= 2)
                criterion = fmax(criterion, __shfl_xor_sync(0xffffffffu, criterion, offset));
            if (t == 0) {
                if (history && n % p.check_every == 0)
                    history[m * checks + n / p.check_every - 1] = criterion;
                if (criterion <= p.tolerance) finished = 1, done[m] = n;
            }
        }
        __syncthreads();
        if (finished) break;
    }
    for (int64_t at = t; at < values; at += threads) u[m * values + at] = us[at];
}

#define RELAX_CUDA(expr)                                                                           \
    do {                                                                                           \
        const cudaError_t relax_rc_ = (expr);                                                      \
        if (relax_rc_ != cudaSuccess && rc == COHORT_OK)                                           \
            rc = cohort_error_raise(COHORT_ERR_CUDA, __FILE__, __LINE__, "%s: %s", #expr,          \
                                    cudaGetErrorString(relax_rc_));                                \
    } while (0)

/* Runs the statements (a launch of a kernel templated on ANALYTIC) with the constant A = 1 where
 * p computes seed 004's coefficients, else A = 0 (f, g arrays) */
#define RELAX_WITH_ANALYTIC(p, A, ...)                                                             \
    do {                                                                                           \
        if ((p)->coefficients) {                                                                   \
            constexpr int A = 1;                                                                   \
            __VA_ARGS__;                                                                           \
        } else {                                                                                   \
            constexpr int A = 0;                                                                   \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
    } while (0)

/* a non-negative double from the bits relax_atomic_max kept */
static double relax_bits_double(unsigned long long bits)
{
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* Seed 004's start at every point of every member, in the natural layout (relax_seed004_start:
 * the cpu backend's bits). */
__global__ void relax_start_kernel(int64_t m1, int64_t m2, relax_grid G, int64_t count,
                                   double *natural)
{
    const int64_t row = m1 + 2, ring = row * (m2 + 2), total = count * ring;
    for (int64_t at = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; at < total;
         at += (int64_t)gridDim.x * blockDim.x) {
        const int64_t v = at % ring;
        natural[at] = relax_seed004_start((double)(v % row) * G.h, (double)(v / row) * G.k);
    }
}

/* nonfinite[m] = 1 where a value of member m's final iterate is not finite (else left 0). */
__global__ void relax_nonfinite_kernel(int64_t ring, int64_t count, const double *natural,
                                       int *nonfinite)
{
    const int64_t total = count * ring;
    for (int64_t at = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; at < total;
         at += (int64_t)gridDim.x * blockDim.x)
        if (!isfinite(natural[at])) nonfinite[at / ring] = 1;
}

/* A solve's device arrays (relax_device_alloc) and host copies of what comes back. */
typedef struct relax_device {
    relax_layout L;
    relax_grid G;
    int64_t count, ring, checks;
    double *u, *omega, *natural, *f, *g, *re, *history, *member_omega;
    int64_t *done;
    int *nonfinite;
    unsigned long long *criterion, *converged, *cases, *largest;
    /* host */
    int64_t *done_host;
    unsigned long long *cases_host, *largest_host;
    double *omega_host;
    int *nonfinite_host;
} relax_device;

static void relax_device_free(relax_device *d)
{
    cudaFree(d->u), cudaFree(d->omega), cudaFree(d->natural), cudaFree(d->f), cudaFree(d->g);
    cudaFree(d->re), cudaFree(d->history), cudaFree(d->done), cudaFree(d->criterion);
    cudaFree(d->converged), cudaFree(d->cases), cudaFree(d->largest), cudaFree(d->member_omega);
    cudaFree(d->nonfinite);
    free(d->done_host), free(d->cases_host), free(d->largest_host), free(d->omega_host);
    free(d->nonfinite_host);
}

/* The arrays, zeroed, with f and g (or re) and the history's NaNs sent. */
static int relax_device_alloc(const relax_problem *p, const double *f, const double *g,
                              const double *re, double *history, relax_device *d)
{
    int rc = COHORT_OK;
    const int64_t count = d->count, interior = p->m1 * p->m2;
    d->done_host = (int64_t *)malloc((size_t)count * sizeof(int64_t));
    d->cases_host = (unsigned long long *)malloc((size_t)(3 * count) * sizeof(unsigned long long));
    d->largest_host = (unsigned long long *)malloc((size_t)count * sizeof(unsigned long long));
    d->omega_host = (double *)malloc((size_t)count * sizeof(double));
    d->nonfinite_host = (int *)malloc((size_t)count * sizeof(int));
    if (!d->done_host || !d->cases_host || !d->largest_host || !d->omega_host || !d->nonfinite_host)
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld members", (long long)count);
    const size_t values = (size_t)(count * d->L.member_values) * sizeof(double),
                 ull = sizeof(unsigned long long);
    RELAX_CUDA(cudaMalloc((void **)&d->u, values));
    RELAX_CUDA(cudaMalloc((void **)&d->omega, values));
    RELAX_CUDA(cudaMalloc((void **)&d->natural, (size_t)(count * d->ring) * sizeof(double)));
    RELAX_CUDA(cudaMalloc((void **)&d->done, (size_t)count * sizeof(int64_t)));
    RELAX_CUDA(cudaMalloc((void **)&d->criterion, (size_t)(2 * count) * ull));
    RELAX_CUDA(cudaMalloc((void **)&d->converged, ull));
    RELAX_CUDA(cudaMalloc((void **)&d->cases, (size_t)(3 * count) * ull));
    RELAX_CUDA(cudaMalloc((void **)&d->largest, (size_t)count * ull));
    RELAX_CUDA(cudaMalloc((void **)&d->nonfinite, (size_t)count * sizeof(int)));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d->omega, 0, values));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d->cases, 0, (size_t)(3 * count) * ull));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d->largest, 0, (size_t)count * ull));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d->done, 0, (size_t)count * sizeof(int64_t)));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d->criterion, 0, (size_t)(2 * count) * ull));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d->converged, 0, ull));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d->nonfinite, 0, (size_t)count * sizeof(int)));
    const size_t coefficients = (size_t)(count * interior) * sizeof(double);
    if (p->coefficients) {
        RELAX_CUDA(cudaMalloc((void **)&d->re, (size_t)count * sizeof(double)));
        if (rc == COHORT_OK)
            RELAX_CUDA(
                cudaMemcpy(d->re, re, (size_t)count * sizeof(double), cudaMemcpyHostToDevice));
    } else {
        RELAX_CUDA(cudaMalloc((void **)&d->f, coefficients));
        RELAX_CUDA(cudaMalloc((void **)&d->g, coefficients));
        if (rc == COHORT_OK) RELAX_CUDA(cudaMemcpy(d->f, f, coefficients, cudaMemcpyHostToDevice));
        if (rc == COHORT_OK) RELAX_CUDA(cudaMemcpy(d->g, g, coefficients, cudaMemcpyHostToDevice));
    }
    if (history && d->checks > 0) {
        const size_t bytes = (size_t)(count * d->checks) * sizeof(double);
        RELAX_CUDA(cudaMalloc((void **)&d->history, bytes));
        for (int64_t k = 0; k < count * d->checks; ++k) history[k] = NAN;
        if (rc == COHORT_OK)
            RELAX_CUDA(cudaMemcpy(d->history, history, bytes, cudaMemcpyHostToDevice));
    }
    return rc;
}

/* The setup: the initial iterate (sent, or formed here) to the colour layout, omega and the case
 * counts; SOR's global omega from the counts (on the host, as the cpu backend). */
static int relax_device_setup(const relax_problem *p, const double *u0, relax_device *d)
{
    int rc = COHORT_OK;
    const relax_layout L = d->L;
    const int64_t count = d->count, interior = p->m1 * p->m2;
    if (u0)
        RELAX_CUDA(cudaMemcpy(d->natural, u0, (size_t)(count * d->ring) * sizeof(double),
                              cudaMemcpyHostToDevice));
    else
        relax_start_kernel<<<1024, 256>>>(p->m1, p->m2, d->G, count, d->natural);
    if (rc == COHORT_OK) {
        relax_reorder_kernel<1>
            <<<relax_row_blocks(L, count, L.m2 + 2), RELAX_THREADS>>>(L, count, d->natural, d->u);
        RELAX_WITH_ANALYTIC(p, A,
                            relax_setup_kernel<A>
                            <<<relax_row_blocks(L, count, L.m2), RELAX_THREADS>>>(
                                L, d->G, *p, d->f, d->g, d->re, d->omega, d->cases, d->largest));
        RELAX_CUDA(cudaGetLastError());
    }
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemcpy(d->cases_host, d->cases, (size_t)(3 * count) * sizeof *d->cases_host,
                              cudaMemcpyDeviceToHost));
    if (rc != COHORT_OK || p->method != RELAX_SOR) return rc;
    RELAX_CUDA(cudaMemcpy(d->largest_host, d->largest, (size_t)count * sizeof *d->largest_host,
                          cudaMemcpyDeviceToHost));
    for (int64_t m = 0; m < count; ++m)
        d->omega_host[m] = relax_global_omega(interior, (int64_t)d->cases_host[3 * m],
                                              (int64_t)d->cases_host[3 * m + 1],
                                              relax_bits_double(d->largest_host[m]));
    RELAX_CUDA(cudaMalloc((void **)&d->member_omega, (size_t)count * sizeof(double)));
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemcpy(d->member_omega, d->omega_host, (size_t)count * sizeof(double),
                              cudaMemcpyHostToDevice));
    if (rc == COHORT_OK) {
        relax_fill_omega_kernel<<<relax_row_blocks(L, count, L.m2), RELAX_THREADS>>>(
            L, d->member_omega, d->omega);
        RELAX_CUDA(cudaGetLastError());
    }
    return rc;
}

/* The iterations: small members of an ensemble that fills the device a member per block, on
 * chip; otherwise a launch per colour and a check per iteration. */
static int relax_device_iterate(const relax_problem *p, relax_device *d)
{
    int rc = COHORT_OK, multiprocessors = 0;
    const relax_layout L = d->L;
    const int64_t count = d->count;
    COHORT_CALL(cohort_cuda_sm_count(&multiprocessors));
    const size_t member_bytes = (size_t)(2 * L.member_values) * sizeof(double);
    if (member_bytes <= RELAX_MEMBER_MAX_BYTES &&
        member_bytes <= cohort_cuda_shared_limit_bytes() && count >= multiprocessors) {
        /* a warp (or more) along a colour row's ceil(M1 / 2) points, the rest of 512 threads down
         * the rows */
        const int row_points = (L.m1 + 1) / 2;
        const unsigned along = row_points > 480 ? 512u : (unsigned)((row_points + 31) / 32 * 32);
        const dim3 block(along, 512 / along);
        RELAX_WITH_ANALYTIC(p, A, {
            RELAX_CUDA(cudaFuncSetAttribute(relax_member_kernel<A>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)member_bytes));
            if (rc == COHORT_OK)
                relax_member_kernel<A><<<(unsigned)count, block, member_bytes>>>(
                    L, d->G, *p, d->u, d->omega, d->f, d->g, d->re, d->done, d->history, d->checks);
        });
        RELAX_CUDA(cudaGetLastError());
        return rc;
    }
    const dim3 interior_rows = relax_row_blocks(L, count, L.m2);
    const unsigned check_blocks = (unsigned)((count + 255) / 256);
    for (int64_t n = 1; n <= p->max_iterations && rc == COHORT_OK; ++n) {
        RELAX_WITH_ANALYTIC(p, A, {
            relax_sweep_kernel<0, A><<<interior_rows, RELAX_THREADS>>>(
                L, d->G, *p, d->u, d->omega, d->f, d->g, d->re, d->done, d->criterion);
            relax_sweep_kernel<1, A><<<interior_rows, RELAX_THREADS>>>(
                L, d->G, *p, d->u, d->omega, d->f, d->g, d->re, d->done, d->criterion);
        });
        relax_check_kernel<<<check_blocks, 256>>>(count, n, *p, d->criterion, d->done, d->converged,
                                                  d->history, d->checks);
        RELAX_CUDA(cudaGetLastError());
        if (n % 32 == 0 || n == p->max_iterations) {
            unsigned long long converged = 0;
            RELAX_CUDA(
                cudaMemcpy(&converged, d->converged, sizeof converged, cudaMemcpyDeviceToHost));
            if ((int64_t)converged == count) break;
        }
    }
    return rc;
}

/* The final iterates back to the natural layout, each member's finiteness decided here, and what
 * the caller keeps brought back: u (where not NULL), the history, the results. */
static int relax_device_results(const relax_problem *p, relax_device *d, double *u, double *history,
                                relax_member_result *results)
{
    int rc = COHORT_OK;
    const int64_t count = d->count;
    relax_reorder_kernel<0><<<relax_row_blocks(d->L, count, d->L.m2 + 2), RELAX_THREADS>>>(
        d->L, count, d->u, d->natural);
    relax_nonfinite_kernel<<<1024, 256>>>(d->ring, count, d->natural, d->nonfinite);
    RELAX_CUDA(cudaGetLastError());
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemcpy(d->nonfinite_host, d->nonfinite, (size_t)count * sizeof(int),
                              cudaMemcpyDeviceToHost));
    if (rc == COHORT_OK && u)
        RELAX_CUDA(cudaMemcpy(u, d->natural, (size_t)(count * d->ring) * sizeof(double),
                              cudaMemcpyDeviceToHost));
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemcpy(d->done_host, d->done, (size_t)count * sizeof(int64_t),
                              cudaMemcpyDeviceToHost));
    if (rc == COHORT_OK && d->history)
        RELAX_CUDA(cudaMemcpy(history, d->history, (size_t)(count * d->checks) * sizeof(double),
                              cudaMemcpyDeviceToHost));
    for (int64_t m = 0; m < count && rc == COHORT_OK; ++m) {
        const unsigned long long *cases = d->cases_host + 3 * m;
        results[m] = (relax_member_result){d->done_host[m] ? d->done_host[m] : p->max_iterations,
                                           d->done_host[m] != 0,
                                           (int64_t)cases[0],
                                           (int64_t)cases[1],
                                           (int64_t)cases[2],
                                           p->method == RELAX_SOR ? d->omega_host[m] : 0.0,
                                           !d->nonfinite_host[m]};
    }
    return rc;
}

static int relax_solve_cuda(const relax_problem *p, const double *f, const double *g,
                            const double *re, const double *u0, double *u, int64_t count,
                            relax_member_result *results, double *history)
{
    if (count == 0) return COHORT_OK;
    relax_device d;
    memset(&d, 0, sizeof d);
    d.L = relax_layout_make(p), d.G = relax_grid_make(p->m1, p->m2);
    d.count = count, d.ring = (p->m1 + 2) * (p->m2 + 2), d.checks = relax_checks(p);
    int rc = relax_device_alloc(p, f, g, re, history, &d);
    if (rc == COHORT_OK) rc = relax_device_setup(p, u0, &d);
    if (rc == COHORT_OK) rc = relax_device_iterate(p, &d);
    if (rc == COHORT_OK) rc = relax_device_results(p, &d, u, history, results);
    relax_device_free(&d);
    return rc;
}

extern "C" const relax_kernels relax_kernels_cuda = {.solve = relax_solve_cuda};
