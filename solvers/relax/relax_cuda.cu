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

static int relax_solve_cuda(const relax_problem *p, const double *f, const double *g,
                            const double *re, const double *u0, double *u, int64_t count,
                            relax_member_result *results, double *history)
{
    if (count == 0) return COHORT_OK;
    const relax_layout L = relax_layout_make(p);
    const relax_grid G = relax_grid_make(p->m1, p->m2);
    const int64_t interior = p->m1 * p->m2, ring = (p->m1 + 2) * (p->m2 + 2),
                  checks = relax_checks(p);
    int rc = COHORT_OK;
    int64_t *done_host = (int64_t *)malloc((size_t)count * sizeof *done_host);
    unsigned long long *cases_host =
        (unsigned long long *)malloc((size_t)(3 * count) * sizeof *cases_host);
    unsigned long long *largest_host =
        (unsigned long long *)malloc((size_t)count * sizeof *largest_host);
    double *member_omega = (double *)malloc((size_t)count * sizeof *member_omega);
    int *nonfinite_host = (int *)malloc((size_t)count * sizeof *nonfinite_host);
    if (!done_host || !cases_host || !largest_host || !member_omega || !nonfinite_host)
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld members", (long long)count);
    double *d_u = NULL, *d_omega = NULL, *d_natural = NULL, *d_f = NULL, *d_g = NULL, *d_re = NULL,
           *d_history = NULL, *d_member_omega = NULL;
    int64_t *d_done = NULL;
    int *d_nonfinite = NULL;
    unsigned long long *d_criterion = NULL, *d_converged = NULL, *d_cases = NULL, *d_largest = NULL;
    const size_t values = (size_t)(count * L.member_values) * sizeof(double),
                 natural = (size_t)(count * ring) * sizeof(double);
    RELAX_CUDA(cudaMalloc((void **)&d_u, values));
    RELAX_CUDA(cudaMalloc((void **)&d_omega, values));
    RELAX_CUDA(cudaMalloc((void **)&d_natural, natural));
    RELAX_CUDA(cudaMalloc((void **)&d_done, (size_t)count * sizeof(int64_t)));
    RELAX_CUDA(cudaMalloc((void **)&d_criterion, (size_t)(2 * count) * sizeof(unsigned long long)));
    RELAX_CUDA(cudaMalloc((void **)&d_converged, sizeof(unsigned long long)));
    RELAX_CUDA(cudaMalloc((void **)&d_cases, (size_t)(3 * count) * sizeof(unsigned long long)));
    RELAX_CUDA(cudaMalloc((void **)&d_largest, (size_t)count * sizeof(unsigned long long)));
    RELAX_CUDA(cudaMalloc((void **)&d_nonfinite, (size_t)count * sizeof(int)));
    if (p->coefficients) {
        RELAX_CUDA(cudaMalloc((void **)&d_re, (size_t)count * sizeof(double)));
        if (rc == COHORT_OK)
            RELAX_CUDA(
                cudaMemcpy(d_re, re, (size_t)count * sizeof(double), cudaMemcpyHostToDevice));
    } else {
        RELAX_CUDA(cudaMalloc((void **)&d_f, (size_t)(count * interior) * sizeof(double)));
        RELAX_CUDA(cudaMalloc((void **)&d_g, (size_t)(count * interior) * sizeof(double)));
        if (rc == COHORT_OK)
            RELAX_CUDA(cudaMemcpy(d_f, f, (size_t)(count * interior) * sizeof(double),
                                  cudaMemcpyHostToDevice));
        if (rc == COHORT_OK)
            RELAX_CUDA(cudaMemcpy(d_g, g, (size_t)(count * interior) * sizeof(double),
                                  cudaMemcpyHostToDevice));
    }
    if (history && checks > 0) {
        RELAX_CUDA(cudaMalloc((void **)&d_history, (size_t)(count * checks) * sizeof(double)));
        for (int64_t k = 0; k < count * checks; ++k) history[k] = NAN;
        if (rc == COHORT_OK)
            RELAX_CUDA(cudaMemcpy(d_history, history, (size_t)(count * checks) * sizeof(double),
                                  cudaMemcpyHostToDevice));
    }
    /* the setup: the initial iterate (sent, or formed here) to the colour layout, omega and the
     * case counts */
    if (rc == COHORT_OK && u0)
        RELAX_CUDA(cudaMemcpy(d_natural, u0, natural, cudaMemcpyHostToDevice));
    if (rc == COHORT_OK && !u0) {
        relax_start_kernel<<<1024, 256>>>(p->m1, p->m2, G, count, d_natural);
        RELAX_CUDA(cudaGetLastError());
    }
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d_nonfinite, 0, (size_t)count * sizeof(int)));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d_omega, 0, values));
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemset(d_cases, 0, (size_t)(3 * count) * sizeof(unsigned long long)));
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemset(d_largest, 0, (size_t)count * sizeof(unsigned long long)));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d_done, 0, (size_t)count * sizeof(int64_t)));
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemset(d_criterion, 0, (size_t)(2 * count) * sizeof(unsigned long long)));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d_converged, 0, sizeof(unsigned long long)));
    const dim3 all_rows = relax_row_blocks(L, count, L.m2 + 2),
               interior_rows = relax_row_blocks(L, count, L.m2);
    if (rc == COHORT_OK) {
        relax_reorder_kernel<1><<<all_rows, RELAX_THREADS>>>(L, count, d_natural, d_u);
        RELAX_WITH_ANALYTIC(p, A,
                            relax_setup_kernel<A><<<interior_rows, RELAX_THREADS>>>(
                                L, G, *p, d_f, d_g, d_re, d_omega, d_cases, d_largest));
        RELAX_CUDA(cudaGetLastError());
    }
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemcpy(cases_host, d_cases, (size_t)(3 * count) * sizeof *cases_host,
                              cudaMemcpyDeviceToHost));
    if (rc == COHORT_OK && p->method == RELAX_SOR) {
        RELAX_CUDA(cudaMemcpy(largest_host, d_largest, (size_t)count * sizeof *largest_host,
                              cudaMemcpyDeviceToHost));
        for (int64_t m = 0; m < count; ++m)
            member_omega[m] = relax_global_omega(interior, (int64_t)cases_host[3 * m],
                                                 (int64_t)cases_host[3 * m + 1],
                                                 relax_bits_double(largest_host[m]));
        RELAX_CUDA(cudaMalloc((void **)&d_member_omega, (size_t)count * sizeof(double)));
        if (rc == COHORT_OK)
            RELAX_CUDA(cudaMemcpy(d_member_omega, member_omega, (size_t)count * sizeof(double),
                                  cudaMemcpyHostToDevice));
        if (rc == COHORT_OK) {
            relax_fill_omega_kernel<<<interior_rows, RELAX_THREADS>>>(L, d_member_omega, d_omega);
            RELAX_CUDA(cudaGetLastError());
        }
    }
    /* small members of an ensemble that fills the device: a member per block, on chip */
    int multiprocessors = 0;
    if (rc == COHORT_OK) rc = cohort_cuda_sm_count(&multiprocessors);
    const size_t member_bytes = (size_t)(2 * L.member_values) * sizeof(double);
    const int on_chip = member_bytes <= 160 * 1024 && count >= multiprocessors;
    if (on_chip && rc == COHORT_OK) {
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
                    L, G, *p, d_u, d_omega, d_f, d_g, d_re, d_done, d_history, checks);
        });
        RELAX_CUDA(cudaGetLastError());
    }
    const unsigned check_blocks = (unsigned)((count + 255) / 256);
    for (int64_t n = 1; n <= p->max_iterations && rc == COHORT_OK && !on_chip; ++n) {
        RELAX_WITH_ANALYTIC(p, A, {
            relax_sweep_kernel<0, A><<<interior_rows, RELAX_THREADS>>>(
                L, G, *p, d_u, d_omega, d_f, d_g, d_re, d_done, d_criterion);
            relax_sweep_kernel<1, A><<<interior_rows, RELAX_THREADS>>>(
                L, G, *p, d_u, d_omega, d_f, d_g, d_re, d_done, d_criterion);
        });
        relax_check_kernel<<<check_blocks, 256>>>(count, n, *p, d_criterion, d_done, d_converged,
                                                  d_history, checks);
        RELAX_CUDA(cudaGetLastError());
        if (n % 32 == 0 || n == p->max_iterations) {
            unsigned long long converged = 0;
            RELAX_CUDA(
                cudaMemcpy(&converged, d_converged, sizeof converged, cudaMemcpyDeviceToHost));
            if ((int64_t)converged == count) break;
        }
    }
    if (rc == COHORT_OK) {
        relax_reorder_kernel<0><<<all_rows, RELAX_THREADS>>>(L, count, d_u, d_natural);
        RELAX_CUDA(cudaGetLastError());
    }
    if (rc == COHORT_OK) {
        relax_nonfinite_kernel<<<1024, 256>>>(ring, count, d_natural, d_nonfinite);
        RELAX_CUDA(cudaGetLastError());
    }
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemcpy(nonfinite_host, d_nonfinite, (size_t)count * sizeof(int),
                              cudaMemcpyDeviceToHost));
    if (rc == COHORT_OK && u) RELAX_CUDA(cudaMemcpy(u, d_natural, natural, cudaMemcpyDeviceToHost));
    if (rc == COHORT_OK)
        RELAX_CUDA(
            cudaMemcpy(done_host, d_done, (size_t)count * sizeof(int64_t), cudaMemcpyDeviceToHost));
    if (rc == COHORT_OK && d_history)
        RELAX_CUDA(cudaMemcpy(history, d_history, (size_t)(count * checks) * sizeof(double),
                              cudaMemcpyDeviceToHost));
    for (int64_t m = 0; m < count && rc == COHORT_OK; ++m) {
        results[m] = (relax_member_result){done_host[m] ? done_host[m] : p->max_iterations,
                                           done_host[m] != 0,
                                           (int64_t)cases_host[3 * m],
                                           (int64_t)cases_host[3 * m + 1],
                                           (int64_t)cases_host[3 * m + 2],
                                           p->method == RELAX_SOR ? member_omega[m] : 0.0,
                                           !nonfinite_host[m]};
    }
    cudaFree(d_u), cudaFree(d_omega), cudaFree(d_natural), cudaFree(d_f), cudaFree(d_g);
    cudaFree(d_re), cudaFree(d_history), cudaFree(d_done), cudaFree(d_criterion);
    cudaFree(d_converged), cudaFree(d_cases), cudaFree(d_largest), cudaFree(d_member_omega);
    cudaFree(d_nonfinite);
    free(done_host), free(cases_host), free(largest_host), free(member_omega), free(nonfinite_host);
    return rc;
}

extern "C" const relax_kernels relax_kernels_cuda = {.solve = relax_solve_cuda};
