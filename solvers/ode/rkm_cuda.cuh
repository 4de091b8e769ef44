/* The fused Runge-Kutta-Merson advance on the cuda backend (C++, for a model's .cu file): Algorithm
 * 4.1 from each member's time to t_to in a single launch, so that a small batch costs one launch
 * per advance instead of some fifteen launches and a host synchronisation per step (rkm.h: the
 * batches it takes).
 *
 * A member is a group of `blocks_per_member` blocks. Each thread owns the values first, first +
 * stride, ... of its member and alone forms their stage arguments, stage values, error and update,
 * so the only exchanges are the neighbours a right-hand side reads: a barrier after each stage's
 * arguments (the stage arguments alternate between two arrays, so that forming stage s + 1's
 * cannot overwrite what stage s still reads), one after the error's maximum and one after the
 * update. The barrier is the block's where a member is one block, else the whole grid's
 * (cooperative launch; every block then holds its member's bookkeeping and takes the same
 * decisions from the same e).
 *
 * The arithmetic is rkm_numerics.h's in the per-stage path's order, and e is the same exact
 * maximum, so a member's steps and state are bitwise those of the per-stage path whatever the
 * blocks per member (test_curvature checks it).
 *
 * Rhs: a device functor with
 *   template <class Sync> __device__ void eval(double t, const double *u, double *f, int64_t m,
 *                                              int64_t ld, rkm_nodes nodes, const Sync &sync)
 *       const;
 * that writes f(t, u) of member m at the values the thread owns (nodes), reading u anywhere, and
 * calls sync() between passes where it has several (each pass writing only owned values), and
 *   __device__ int passes() const;
 * their number (a member that no longer steps passes the same barriers). */
#ifndef COHORT_RKM_CUDA_CUH
#define COHORT_RKM_CUDA_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <type_traits>

#include "backend/cuda_check.cuh"
#include "ode/rkm.h"
#include "ode/rkm_numerics.h"

/* 256 threads, at most 128 registers each, so that two blocks share an SM. The right-hand sides
 * then spill to local memory, and one block an SM (255 registers) is faster for the smallest
 * members, but slower where members span many blocks (H100, microseconds a step of mcf2d /
 * willmore2d, two blocks against one: 26.7 / 55.2 against 25.9 / 52.8 at 16^2, 29.0 / 60.9
 * against 37.6 / 80.6 at 256^2, 276 / 680 against 426 / 984 at 1024^2). */
enum { RKM_FUSED_THREADS = 256, RKM_FUSED_MIN_BLOCKS = 2 };

/* the values a thread owns: first, first + stride, ... below n */
struct rkm_nodes {
    int64_t first, stride;
};

struct rkm_block_sync {
    __device__ void operator()() const
    {
        __syncthreads();
    }
};

struct rkm_grid_sync {
    __device__ void operator()() const
    {
        cooperative_groups::this_grid().sync();
    }
};

/* GRID: a member spans several blocks. flags (GRID only, 2 count + 2 words): each member's e bits
 * at [2 m + parity] and whether any member steps on at [2 count + parity], the parity of the step
 * alternating so that a slot is cleared a barrier after its last reader and before its next
 * writer. */
template <class Rhs, bool GRID>
__global__ void __launch_bounds__(RKM_FUSED_THREADS, RKM_FUSED_MIN_BLOCKS)
    rkm_fused_kernel(const Rhs rhs, const rkm_fused_args a, unsigned long long *flags)
{
    const int64_t per = a.blocks_per_member, m = blockIdx.x / per, rank = blockIdx.x % per;
    const int64_t n = a.n, ld = a.ld;
    const rkm_nodes nodes = {rank * blockDim.x + threadIdx.x, per * blockDim.x};
    typename std::conditional<GRID, rkm_grid_sync, rkm_block_sync>::type sync;
    unsigned long long *const e_slot = flags + 2 * m, *const any_slot = flags + 2 * a.count;
    __shared__ rkm_member s;
    __shared__ unsigned long long e_bits;
    __shared__ int stepping;
    if (threadIdx.x == 0) {
        s = a.members[m];
        if (GRID && rank == 0) e_slot[0] = e_slot[1] = 0;
        if (GRID && blockIdx.x == 0) any_slot[0] = any_slot[1] = 0;
    }
    sync();
    double *const stage_out[6] = {NULL, a.k1, a.k2_k5, a.k3, a.k4, a.k2_k5};
    for (int64_t step = 0;; ++step) {
        const int parity = (int)(step & 1);
        if (threadIdx.x == 0) stepping = rkm_member_begin(&s, a.t_to), e_bits = 0;
        __syncthreads();
        const double h = s.h;
        for (int stage = 1; stage <= 5; ++stage) {
            double *const arg = stage % 2 ? a.arg : a.arg_odd;
            if (stage > 1) {
                for (int64_t v = nodes.first; stepping && v < n; v += nodes.stride) {
                    const int64_t q = v * ld + m;
                    arg[q] =
                        rkm_stage_argument(stage, a.u[q], h, a.k1[q], stage == 3 ? a.k2_k5[q] : 0.0,
                                           stage >= 4 ? a.k3[q] : 0.0, stage == 5 ? a.k4[q] : 0.0);
                }
                sync();
            }
            /* the slots of the step after this one were last read before the barrier above */
            if (GRID && stage == 2 && threadIdx.x == 0) {
                if (rank == 0) e_slot[!parity] = 0;
                if (blockIdx.x == 0) any_slot[!parity] = 0;
            }
            if (stepping)
                rhs.eval(s.t + rkm_stage_time_fraction(stage) * h, stage == 1 ? a.u : arg,
                         stage_out[stage], m, ld, nodes, sync);
            else
                for (int pass = 1; pass < rhs.passes(); ++pass) sync();
        }
        /* eq. 27, as rkm_error_kernel: the maximum of the bits of non-negative values */
        unsigned long long e = 0;
        for (int64_t v = nodes.first; stepping && v < n; v += nodes.stride) {
            const int64_t q = v * ld + m;
            const unsigned long long bits = (unsigned long long)__double_as_longlong(
                rkm_error_point(h, a.k1[q], a.k3[q], a.k4[q], a.k2_k5[q]));
            e = bits > e ? bits : e;
        }
        atomicMax(&e_bits, e);
        __syncthreads();
        if (GRID) {
            if (threadIdx.x == 0) atomicMax(&e_slot[parity], e_bits);
            sync();
        }
        if (threadIdx.x == 0) {
            s.e = __longlong_as_double(
                (long long)(GRID ? *(volatile unsigned long long *)&e_slot[parity] : e_bits));
            rkm_member_control(&s, a.t_to, a.tolerance);
            if (GRID && rank == 0 && s.t < a.t_to) atomicOr(&any_slot[parity], 1ull);
        }
        __syncthreads();
        if (s.update)
            for (int64_t v = nodes.first; v < n; v += nodes.stride) {
                const int64_t q = v * ld + m;
                a.u[q] = rkm_update_value(a.u[q], h, a.k1[q], a.k4[q], a.k2_k5[q]);
            }
        sync();
        if (GRID ? *(volatile unsigned long long *)&any_slot[parity] == 0 : !(s.t < a.t_to)) break;
    }
    if (threadIdx.x == 0 && rank == 0) a.members[m] = s;
}

/* The blocks per member: a.blocks_per_member where it is set (> 0), else enough blocks for a
 * value per thread, at most as many as stay resident with the others' (a cooperative launch needs
 * every block resident). One block a member runs the block-barrier kernel. */
template <class Rhs> static int rkm_fused_launch(const Rhs &rhs, const rkm_fused_args *a)
{
    rkm_fused_args args = *a;
    int64_t per = args.blocks_per_member;
    if (per <= 0) per = (args.n + RKM_FUSED_THREADS - 1) / RKM_FUSED_THREADS;
    if (per > 1) {
        int device = 0, sms = 0, resident = 0;
        COHORT_CUDA_CHECK(cudaGetDevice(&device));
        COHORT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        COHORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &resident, rkm_fused_kernel<Rhs, true>, RKM_FUSED_THREADS, 0));
        const int64_t most = (int64_t)sms * resident / args.count;
        if (args.blocks_per_member > most)
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                               "%lld blocks for each of %lld members: at most %lld stay resident",
                               (long long)args.blocks_per_member, (long long)args.count,
                               (long long)most);
        per = per < most ? per : most;
    }
    if (per <= 1) {
        args.blocks_per_member = 1;
        rkm_fused_kernel<Rhs, false><<<(unsigned)args.count, RKM_FUSED_THREADS>>>(rhs, args, NULL);
        COHORT_CUDA_CHECK_LAUNCH("rkm_fused_kernel");
        return COHORT_OK;
    }
    args.blocks_per_member = per;
    unsigned long long *flags = args.flags;
    void *params[] = {(void *)&rhs, (void *)&args, (void *)&flags};
    COHORT_CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)rkm_fused_kernel<Rhs, true>,
                                                  dim3((unsigned)(args.count * per)),
                                                  dim3(RKM_FUSED_THREADS), params, 0, 0));
    return COHORT_OK;
}

#endif
