/* The relaxation on the cuda backend (relax_kernels.h), for one large member or many.
 *
 * Reordered by colour (seed 004, section 3): member m's colour c (0 red, i + j even; 1 black)
 * holds rows j = 0 .. M2 + 1 of W = (M1 + 3) / 2 values, point (i, j) at q = i / 2 of its colour's
 * row j, so a sweep reads and writes its colour's rows contiguously and the other colour's
 * neighbours at q - 1 + p, q + p (west, east; p = (c + j) & 1) and q (north, south). Omega sits in
 * the same layout; seed 004's coefficients are computed in the sweep (its kernel #2 read h f and
 * k g, kernel #3 everything: here only u and omega are read, about 3 doubles a point). Each
 * iteration is a red sweep, a black sweep and a check of one thread per member that freezes a
 * member the iteration its criterion falls to the tolerance (the sweeps skip frozen members), so
 * the host reads the count of converged members only every 32 iterations and no iteration is
 * wasted on a converged member. Small members of an ensemble that fills the device instead run
 * whole in one block each (relax_member_kernel). This file is compiled without FMA contraction
 * (CMakeLists.txt):
 * the point arithmetic then rounds as on the cpu, and the results are the cpu's bits. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "backend/cuda_check.cuh"
#include "relax/relax_kernels.h"

typedef struct relax_layout {
    int64_t m1, m2, width, colour_values, member_values; /* W, (M2 + 2) W, 2 (M2 + 2) W */
} relax_layout;

static relax_layout relax_layout_make(const relax_problem *p)
{
    relax_layout L;
    L.m1 = p->m1, L.m2 = p->m2, L.width = (p->m1 + 3) / 2;
    L.colour_values = (p->m2 + 2) * L.width;
    L.member_values = 2 * L.colour_values;
    return L;
}

/* the criterion's maximum as the bits of a non-negative double (ordered like the values) */
__device__ __forceinline__ void relax_atomic_max(unsigned long long *slot, double value)
{
    atomicMax(slot, (unsigned long long)__double_as_longlong(value));
}

/* Point (i, j) of member m, both kernels: its stencil from seed 004's coefficients at the member's
 * Re (ANALYTIC) or from the member's f, g arrays, then eq. 6-7 from its neighbours */
template <int ANALYTIC>
__device__ __forceinline__ double
relax_point(const relax_layout &L, const relax_grid &G, const relax_problem &p, int64_t m,
            int64_t i, int64_t j, const double *f, const double *g, const double *re, double old,
            double omega, double west, double east, double north, double south)
{
    double fc, gc;
    if (ANALYTIC) {
        relax_seed004_coefficients(p.coefficients, re[m], (double)i * G.h, (double)j * G.k, &fc,
                                   &gc);
    } else {
        fc = f[m * L.m1 * L.m2 + (j - 1) * L.m1 + (i - 1)];
        gc = g[m * L.m1 * L.m2 + (j - 1) * L.m1 + (i - 1)];
    }
    return relax_update(old, omega, relax_stencil_at(fc, gc, &G), west, east, north, south);
}

template <int COLOUR, int ANALYTIC>
__global__ void __launch_bounds__(256)
    relax_sweep_kernel(const __grid_constant__ relax_layout L, const __grid_constant__ relax_grid G,
                       relax_problem p, int64_t count, double *__restrict__ u,
                       const double *__restrict__ omega, const double *__restrict__ f,
                       const double *__restrict__ g, const double *__restrict__ re,
                       const int64_t *__restrict__ done, unsigned long long *__restrict__ criterion)
{
    const int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t per_member = L.m2 * L.width;
    const int64_t m = idx / per_member, rest = idx % per_member;
    const int64_t j = rest / L.width + 1, q = rest % L.width;
    const int64_t parity = (COLOUR + j) & 1, i = 2 * q + parity;
    const bool member = m < count;
    double value = 0.0;
    if (member && i >= 1 && i <= L.m1 && done[m] == 0) {
        double *own = u + m * L.member_values + COLOUR * L.colour_values;
        const double *other = u + m * L.member_values + (1 - COLOUR) * L.colour_values;
        const int64_t at = j * L.width + q;
        const double old = own[at];
        const double updated = relax_point<ANALYTIC>(
            L, G, p, m, i, j, f, g, re, old,
            omega[m * L.member_values + COLOUR * L.colour_values + at], other[at - 1 + parity],
            other[at + parity], other[at + L.width], other[at - L.width]);
        own[at] = updated;
        value = fabs(p.change_criterion ? updated - old : updated);
    }
    /* the warp's maximum where all its lanes hold one member (the rule: a member's rows are
     * contiguous), each lane's own where it straddles two */
    const unsigned mask = 0xffffffffu;
    const long long first = __shfl_sync(mask, (long long)m, 0);
    if (__all_sync(mask, (long long)m == first)) {
        for (int offset = 16; offset > 0; offset /= 2)
            value = fmax(value, __shfl_xor_sync(mask, value, offset));
        if ((threadIdx.x & 31) == 0 && member) relax_atomic_max(&criterion[2 * m + COLOUR], value);
    } else if (member) {
        relax_atomic_max(&criterion[2 * m + COLOUR], value);
    }
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
 * member in the natural layout, red and black sweeps with a barrier between, the criterion folded
 * in the block every iteration, so the member runs from its first iteration to its convergence (or
 * the cap) without global memory, with the same arithmetic and the same exact counts as the
 * per-sweep kernels. */
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
    const int m1 = (int)L.m1, m2 = (int)L.m2, row = m1 + 2, ring = (m1 + 2) * (m2 + 2);
    double *us = member, *ws = member + ring;
    __shared__ double warp_max[16];
    __shared__ int finished;
    const int64_t m = blockIdx.x;
    const double *uc = u + m * L.member_values;
    const double *oc = omega + m * L.member_values;
    for (int at = threadIdx.x; at < ring; at += blockDim.x) {
        const int i = at % row, j = at / row, c = (i + j) & 1;
        us[at] = uc[c * L.colour_values + j * L.width + i / 2];
        ws[at] = oc[c * L.colour_values + j * L.width + i / 2];
    }
    if (threadIdx.x == 0) finished = 0;
    __syncthreads();
    const int half = (m1 + 1) / 2; /* a colour's points per row, at most */
    for (int64_t n = 1; n <= p.max_iterations; ++n) {
        double value = 0.0;
        for (int colour = 0; colour < 2; ++colour) {
            for (int t = threadIdx.x; t < m2 * half; t += blockDim.x) {
                const int j = t / half + 1, i = 2 * (t % half) + 1 + ((j + 1 + colour) & 1);
                if (i > m1) continue;
                const int at = j * row + i;
                const double old = us[at];
                const double updated =
                    relax_point<ANALYTIC>(L, G, p, m, i, j, f, g, re, old, ws[at], us[at - 1],
                                          us[at + 1], us[at + row], us[at - row]);
                us[at] = updated;
                value = fmax(value, fabs(p.change_criterion ? updated - old : updated));
            }
            __syncthreads();
        }
        for (int offset = 16; offset > 0; offset /= 2)
            value = fmax(value, __shfl_xor_sync(0xffffffffu, value, offset));
        if ((threadIdx.x & 31) == 0) warp_max[threadIdx.x / 32] = value;
        __syncthreads();
        if (threadIdx.x == 0) {
            double criterion = 0.0;
            for (int w = 0; w < (int)(blockDim.x + 31) / 32; ++w)
                criterion = fmax(criterion, warp_max[w]);
            if (history && n % p.check_every == 0)
                history[m * checks + n / p.check_every - 1] = criterion;
            if (criterion <= p.tolerance) finished = 1, done[m] = n;
        }
        __syncthreads();
        if (finished) break;
    }
    double *uw = u + m * L.member_values;
    for (int at = threadIdx.x; at < ring; at += blockDim.x) {
        const int i = at % row, j = at / row, c = (i + j) & 1;
        uw[c * L.colour_values + j * L.width + i / 2] = us[at];
    }
}

/* natural layout (host) <-> colour layout (host), for the upload and the download */
static void to_colours(const relax_layout *L, const double *natural, double *colours, int64_t ring,
                       int64_t count)
{
    for (int64_t m = 0; m < count; ++m)
        for (int64_t j = 0; j <= L->m2 + 1; ++j)
            for (int64_t i = 0; i <= L->m1 + 1; ++i)
                colours[m * L->member_values + ((i + j) & 1) * L->colour_values + j * L->width +
                        i / 2] = natural[m * ring + j * (L->m1 + 2) + i];
}

static void from_colours(const relax_layout *L, const double *colours, double *natural,
                         int64_t ring, int64_t count)
{
    for (int64_t m = 0; m < count; ++m)
        for (int64_t j = 0; j <= L->m2 + 1; ++j)
            for (int64_t i = 0; i <= L->m1 + 1; ++i)
                natural[m * ring + j * (L->m1 + 2) + i] =
                    colours[m * L->member_values + ((i + j) & 1) * L->colour_values + j * L->width +
                            i / 2];
}

#define RELAX_CUDA(expr)                                                                           \
    do {                                                                                           \
        const cudaError_t relax_rc_ = (expr);                                                      \
        if (relax_rc_ != cudaSuccess && rc == COHORT_OK)                                           \
            rc = cohort_error_raise(COHORT_ERR_CUDA, __FILE__, __LINE__, "%s: %s", #expr,          \
                                    cudaGetErrorString(relax_rc_));                                \
    } while (0)

static int relax_solve_cuda(const relax_problem *p, const double *f, const double *g,
                            const double *re, double *u, int64_t count,
                            relax_member_result *results, double *history)
{
    if (count == 0) return COHORT_OK;
    const relax_layout L = relax_layout_make(p);
    const relax_grid G = relax_grid_make(p->m1, p->m2);
    const int64_t interior = p->m1 * p->m2, ring = (p->m1 + 2) * (p->m2 + 2),
                  checks = relax_checks(p);
    int rc = COHORT_OK;
    /* the members' parameters on the host (the setup is the cpu's), then in colour layout */
    double *host_colours = (double *)malloc((size_t)(count * L.member_values) * sizeof(double));
    double *host_omega = (double *)calloc((size_t)(count * L.member_values), sizeof(double));
    relax_stencil *stencil = (relax_stencil *)malloc((size_t)interior * sizeof *stencil);
    double *omega = (double *)malloc((size_t)interior * sizeof *omega);
    double *fm = (double *)malloc((size_t)interior * sizeof *fm);
    double *gm = (double *)malloc((size_t)interior * sizeof *gm);
    int64_t *done_host = (int64_t *)malloc((size_t)count * sizeof *done_host);
    if (!host_colours || !host_omega || !stencil || !omega || !fm || !gm || !done_host)
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld members of %lld points", (long long)count,
                         (long long)interior);
    for (int64_t m = 0; m < count && rc == COHORT_OK; ++m) {
        for (int64_t v = 0; v < interior && !p->coefficients; ++v)
            fm[v] = f[m * interior + v], gm[v] = g[m * interior + v];
        relax_member_setup(p, fm, gm, p->coefficients ? re[m] : 0.0, stencil, omega, &results[m]);
        for (int64_t j = 1; j <= p->m2; ++j)
            for (int64_t i = 1; i <= p->m1; ++i)
                host_omega[m * L.member_values + ((i + j) & 1) * L.colour_values + j * L.width +
                           i / 2] = omega[(j - 1) * p->m1 + i - 1];
    }
    if (rc == COHORT_OK) to_colours(&L, u, host_colours, ring, count);
    double *d_u = NULL, *d_omega = NULL, *d_f = NULL, *d_g = NULL, *d_re = NULL, *d_history = NULL;
    int64_t *d_done = NULL;
    unsigned long long *d_criterion = NULL, *d_converged = NULL;
    const size_t values = (size_t)(count * L.member_values) * sizeof(double);
    RELAX_CUDA(cudaMalloc((void **)&d_u, values));
    RELAX_CUDA(cudaMalloc((void **)&d_omega, values));
    RELAX_CUDA(cudaMalloc((void **)&d_done, (size_t)count * sizeof(int64_t)));
    RELAX_CUDA(cudaMalloc((void **)&d_criterion, (size_t)(2 * count) * sizeof(unsigned long long)));
    RELAX_CUDA(cudaMalloc((void **)&d_converged, sizeof(unsigned long long)));
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
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemcpy(d_u, host_colours, values, cudaMemcpyHostToDevice));
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemcpy(d_omega, host_omega, values, cudaMemcpyHostToDevice));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d_done, 0, (size_t)count * sizeof(int64_t)));
    if (rc == COHORT_OK)
        RELAX_CUDA(cudaMemset(d_criterion, 0, (size_t)(2 * count) * sizeof(unsigned long long)));
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemset(d_converged, 0, sizeof(unsigned long long)));
    const int64_t threads = count * p->m2 * L.width;
    const unsigned blocks = (unsigned)((threads + 255) / 256);
    const unsigned check_blocks = (unsigned)((count + 255) / 256);
    /* small members of an ensemble that fills the device: a member per block, on chip */
    static int multiprocessors = 0;
    if (!multiprocessors &&
        cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess)
        multiprocessors = 1 << 30;
    const size_t member_bytes = (size_t)(2 * ring) * sizeof(double);
    const int on_chip = member_bytes <= 160 * 1024 && count >= multiprocessors;
    if (on_chip && rc == COHORT_OK) {
        if (p->coefficients) {
            RELAX_CUDA(cudaFuncSetAttribute(relax_member_kernel<1>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)member_bytes));
            relax_member_kernel<1><<<(unsigned)count, 512, member_bytes>>>(
                L, G, *p, d_u, d_omega, d_f, d_g, d_re, d_done, d_history, checks);
        } else {
            RELAX_CUDA(cudaFuncSetAttribute(relax_member_kernel<0>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)member_bytes));
            relax_member_kernel<0><<<(unsigned)count, 512, member_bytes>>>(
                L, G, *p, d_u, d_omega, d_f, d_g, d_re, d_done, d_history, checks);
        }
        RELAX_CUDA(cudaGetLastError());
    }
    for (int64_t n = 1; n <= p->max_iterations && rc == COHORT_OK && !on_chip; ++n) {
        if (p->coefficients) {
            relax_sweep_kernel<0, 1><<<blocks, 256>>>(L, G, *p, count, d_u, d_omega, d_f, d_g, d_re,
                                                      d_done, d_criterion);
            relax_sweep_kernel<1, 1><<<blocks, 256>>>(L, G, *p, count, d_u, d_omega, d_f, d_g, d_re,
                                                      d_done, d_criterion);
        } else {
            relax_sweep_kernel<0, 0><<<blocks, 256>>>(L, G, *p, count, d_u, d_omega, d_f, d_g, d_re,
                                                      d_done, d_criterion);
            relax_sweep_kernel<1, 0><<<blocks, 256>>>(L, G, *p, count, d_u, d_omega, d_f, d_g, d_re,
                                                      d_done, d_criterion);
        }
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
    if (rc == COHORT_OK) RELAX_CUDA(cudaMemcpy(host_colours, d_u, values, cudaMemcpyDeviceToHost));
    if (rc == COHORT_OK)
        RELAX_CUDA(
            cudaMemcpy(done_host, d_done, (size_t)count * sizeof(int64_t), cudaMemcpyDeviceToHost));
    if (rc == COHORT_OK && d_history)
        RELAX_CUDA(cudaMemcpy(history, d_history, (size_t)(count * checks) * sizeof(double),
                              cudaMemcpyDeviceToHost));
    if (rc == COHORT_OK) {
        from_colours(&L, host_colours, u, ring, count);
        for (int64_t m = 0; m < count; ++m) {
            results[m].converged = done_host[m] != 0;
            results[m].iterations = done_host[m] ? done_host[m] : p->max_iterations;
        }
    }
    cudaFree(d_u), cudaFree(d_omega), cudaFree(d_f), cudaFree(d_g), cudaFree(d_re);
    cudaFree(d_history), cudaFree(d_done), cudaFree(d_criterion), cudaFree(d_converged);
    free(host_colours), free(host_omega), free(stencil), free(omega), free(fm), free(gm);
    free(done_host);
    return rc;
}

extern "C" const relax_kernels relax_kernels_cuda = {.solve = relax_solve_cuda};
