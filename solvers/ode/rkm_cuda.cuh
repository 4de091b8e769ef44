/* The fused Runge-Kutta-Merson advance on the cuda backend (C++, for a model's .cu file): Algorithm
 * 4.1 from each member's time to t_to in a single launch, so that a small batch costs one launch
 * per advance instead of some fifteen launches and a host synchronisation per step (rkm.h: the
 * batches it takes).
 *
 * A member is a group of `blocks_per_member` blocks. Each thread owns the values first, first +
 * stride, ... of its member and alone forms their stage arguments, stage values, error and update,
 * so the only exchanges are the neighbours a right-hand side reads and the member's error: a
 * barrier after each stage's arguments (the stage arguments alternate between two arrays, so that
 * forming stage s + 1's cannot overwrite what stage s still reads) and one after the error's
 * maximum. The update is formed with the error, into the state array that the member's state does
 * not occupy (u and u_next alternate), and becomes the state where the step is accepted: so no
 * barrier waits for it. Every thread holds the member's bookkeeping and takes the same decisions
 * from the same e, so none waits for another's decision either.
 *
 * The barrier is the block's where a member is one block (and where that block has a thread for
 * each value, at most RKM_FUSED_ONE_BLOCK_VALUES, the member's arrays that neighbours read, its
 * states, stage arguments and the right-hand side's scratch, are in the block's shared memory); the
 * cluster's where it is a
 * thread-block cluster of 2 .. RKM_FUSED_MAX_CLUSTER blocks (compute capability 9.0: a hardware
 * barrier, and the error's maximum read from the other blocks' shared memory); else the whole
 * grid's (cooperative launch; the maximum through global memory, and one more barrier a step for
 * whether any member steps on).
 *
 * Where a thread owns at most one value (ONE: the member's blocks have a thread for each), that
 * value's state and stage values stay in the thread's registers between the passes: only the
 * stage arguments and the state, which neighbours read, go through memory, so a step waits on 6
 * fewer round trips to memory. Such a kernel may take a whole SM (up to 255 registers, 204 with
 * RKM_FUSED_ONE_BLOCK_VALUES); the others at most 128 registers, two blocks an SM.
 *
 * On compute capability 9.0 the block and cluster launches are programmatic dependent launches:
 * an advance lets the next one's launch begin as soon as its own blocks run, and the next waits
 * on the device (cudaGridDependencySynchronize) until this one has finished and its writes are
 * visible, so that consecutive advances (one a record) do not pay a launch's latency between them.
 *
 * The arithmetic is rkm_numerics.h's in the per-stage path's order, and e is the same exact
 * maximum, so a member's steps and state are bitwise those of the per-stage path whatever the
 * blocks per member (test_curvature checks it).
 *
 * Rhs: a device functor with
 *   typedef ... time_data;  __device__ time_data time_data_at(double t) const;
 * what f needs of the time t (a struct of 4-byte words), formed once a step for each stage by one
 * lane of each warp and handed round the warp (formed by every thread at every stage, the curvature
 * flows' sine and cosine of pi t were an eighth of their instructions);
 *   typedef ... node_data;  __device__ node_data node_data_at(int64_t v) const;
 * what f needs of value v that neither t nor u changes (its indices), formed once an advance for a
 * thread's first value (any v: beyond the member's values too);
 *   template <class Sync, class Out> __device__ void eval(const time_data &at_t,
 *                                                         const node_data &first, const double *u,
 *                                                         double *scratch, int64_t ld,
 *                                                         rkm_nodes nodes, const Sync &sync,
 *                                                         const Out &out) const;
 * that hands f(t, u) of the member whose value v is u[v * ld] at each value v the thread owns
 * (nodes; `first`: node_data_at(nodes.first), which the Rhs takes instead of forming it again
 * where nodes.single) to out(v, f_v), reading u anywhere, and calls sync() between passes where it
 * has several, each pass but the last writing only owned values of one scratch array (n values laid
 * out as u; pass p's at scratch + p n ld), which the later passes read anywhere;
 *   __host__ __device__ int passes() const;
 * their number (a member that no longer steps passes the same barriers);
 *   __host__ __device__ int64_t one_block_threads(int64_t n) const;
 *   __device__ int64_t one_block_value(int64_t thread, int64_t n) const;
 * where a member of n values is one block with a thread for each: the block's threads (whole
 * warps, at least n) and the value each takes (n: none), so that the values of a warp take the same
 * branches of f (a warp whose lanes part runs both branches, and every barrier waits for it; used
 * where one_block_threads(n) <= RKM_FUSED_ONE_BLOCK_VALUES, else thread v takes value v); and
 *   double *scratch;
 * the scratch arrays in memory laid out as the state, member m's at scratch + m (NULL where
 * passes() is 1), which the kernel hands to eval unless it keeps them in shared memory. */
#ifndef COHORT_RKM_CUDA_CUH
#define COHORT_RKM_CUDA_CUH

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstring>
#include <mutex>
#include <type_traits>

#include "backend/cuda_check.cuh"
#include "ode/rkm.h"
#include "ode/rkm_numerics.h"

/* 256 threads. Where they keep stage values in memory, at most 128 registers each, so that two
 * blocks share an SM: one block an SM (255 registers) was slower where members span many blocks.
 * Where they hold them in registers (ONE), one block an SM; where a member is one block of
 * RKM_FUSED_ONE_BLOCK_VALUES (rkm.h) threads at most, at most 204 registers a thread (the
 * timings and ptxas' counts: solvers/banded/PERFORMANCE.md, "Figures behind the source's
 * choices"). */
enum { RKM_FUSED_THREADS = 256, RKM_FUSED_MIN_BLOCKS = 2 };

/* The most blocks of a member that run as a cluster: the portable cluster size. */
enum { RKM_FUSED_MAX_CLUSTER = 8 };

/* the barrier a member's blocks share */
enum rkm_sync_kind { RKM_SYNC_BLOCK, RKM_SYNC_CLUSTER, RKM_SYNC_GRID };

/* the values a thread owns: first, first + stride, ... below n; at most one where single (a
 * constant of the kernel, so that a right-hand side may keep a value's data between passes at no
 * cost to the kernels where a thread owns several) */
struct rkm_nodes {
    int64_t first, stride;
    bool single;
    /* the owned value after v, or `end` (where single, a constant: the loop over owned values is
     * then no loop, and its 64-bit increment and second test are gone) */
    __device__ int64_t next(int64_t v, int64_t end) const
    {
        return single ? end : v + stride;
    }
};

/* x as lane `source` of the warp has it, in every lane (all 32 take part) */
template <class T> static __device__ T rkm_warp_broadcast(const T &x, int source)
{
    static_assert(sizeof(T) % sizeof(int) == 0, "time_data: a struct of 4-byte words");
    int words[sizeof(T) / sizeof(int)];
    memcpy(words, &x, sizeof(T));
    for (unsigned k = 0; k < sizeof(T) / sizeof(int); ++k)
        words[k] = __shfl_sync(0xffffffffu, words[k], source);
    T y;
    memcpy(&y, words, sizeof(T));
    return y;
}

/* the largest of the warp's x, in every lane (all 32 take part): one shared atomic a warp instead
 * of 32 on one address */
static __device__ unsigned long long rkm_warp_max(unsigned long long x)
{
    for (int lanes = 16; lanes > 0; lanes /= 2) {
        const unsigned long long y = __shfl_xor_sync(0xffffffffu, x, lanes);
        x = y > x ? y : x;
    }
    return x;
}

struct rkm_block_sync {
    __device__ void operator()() const
    {
        __syncthreads();
    }
};

struct rkm_cluster_sync {
    __device__ void operator()() const
    {
#if defined(_CG_HAS_CLUSTER_GROUP)
        cooperative_groups::this_cluster().sync();
#else
        __trap(); /* rkm_fused_launch runs clusters only where the device has them */
#endif
    }
};

/* the largest of the values at `bits` in the shared memory of the cluster's blocks, after a
 * cluster barrier */
static __device__ unsigned long long rkm_cluster_max(unsigned long long *bits)
{
    unsigned long long most = 0;
#if defined(_CG_HAS_CLUSTER_GROUP)
    cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    for (unsigned r = 0; r < cluster.num_blocks(); ++r) {
        const unsigned long long b = *cluster.map_shared_rank(bits, r);
        most = b > most ? b : most;
    }
#else
    (void)bits;
    __trap();
#endif
    return most;
}

struct rkm_grid_sync {
    __device__ void operator()() const
    {
        cooperative_groups::this_grid().sync();
    }
};

/* SYNC, the barrier of a member's blocks (one block: the block's). The error's maximum: e_bits,
 * each block's, in shared memory, alternating with the parity of the step so that a slot is
 * cleared a barrier after its last reader (a cluster's other blocks among them) and before its
 * next writer; with RKM_SYNC_GRID also flags (2 count + 2 words): each member's e bits at [2 m +
 * parity] and whether any member steps on at [2 count + parity], alike. A member of one block
 * with a thread for each value (SHARED) keeps every array its neighbours read in shared memory:
 * the two states, the two stage arguments and the right-hand side's scratch, n values each
 * (rkm_fused_shared_bytes), so that its barriers wait for no store to the L2 cache and its reads
 * of neighbours take tens of cycles, not hundreds. */
template <class Rhs, rkm_sync_kind SYNC, bool ONE>
__global__ void __launch_bounds__(SYNC == RKM_SYNC_BLOCK && ONE ? RKM_FUSED_ONE_BLOCK_VALUES
                                                                : RKM_FUSED_THREADS,
                                  ONE ? 1 : RKM_FUSED_MIN_BLOCKS)
    rkm_fused_kernel(const Rhs rhs, const rkm_fused_args a, unsigned long long *flags)
{
    constexpr bool GRID = SYNC == RKM_SYNC_GRID, CLUSTER = SYNC == RKM_SYNC_CLUSTER;
    constexpr bool SHARED = SYNC == RKM_SYNC_BLOCK && ONE;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    /* no-ops unless launched as a programmatic dependent launch */
    cudaTriggerProgrammaticLaunchCompletion();
    cudaGridDependencySynchronize();
#endif
    extern __shared__ double shared_arrays[];
    const int64_t per = a.blocks_per_member, m = blockIdx.x / per, rank = blockIdx.x % per;
    const int64_t n = a.n, ld = a.ld;
    /* a SHARED member's values in the Rhs's warp groups where they fit the block */
    const bool grouped = SHARED && rhs.one_block_threads(n) <= RKM_FUSED_ONE_BLOCK_VALUES;
    const rkm_nodes nodes = {grouped ? rhs.one_block_value(threadIdx.x, n)
                                     : rank * blockDim.x + threadIdx.x,
                             per * blockDim.x, ONE};
    typename std::conditional<
        GRID, rkm_grid_sync,
        typename std::conditional<CLUSTER, rkm_cluster_sync, rkm_block_sync>::type>::type sync;
    unsigned long long *const e_slot = flags + 2 * m, *const any_slot = flags + 2 * a.count;
    __shared__ unsigned long long e_bits[2];
    rkm_member s = a.members[m];
    /* the member's arrays that neighbours read, value v at [v * wl]: the state and the array its
     * next accepted step goes to (they alternate), the stage arguments, the scratch */
    const int64_t wl = SHARED ? 1 : ld;
    double *u = SHARED ? shared_arrays : a.u + m, *u_next = SHARED ? u + n : a.u_next + m;
    double *const arg_even = SHARED ? u_next + n : a.arg + m, *const arg_odd = SHARED
                                                                                   ? arg_even + n
                                                                                   : a.arg_odd + m;
    double *const scratch = rhs.passes() == 1 ? NULL : SHARED ? arg_odd + n : rhs.scratch + m;
    /* the owned values' state, stage values and update: with ONE the registers (the loops over
     * owned values below then run at most once), else the arrays */
    enum { U, K1, K2_K5, K3, K4, U_NEXT };
    double held[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    double *const k_arrays[5] = {NULL, a.k1 + m, a.k2_k5 + m, a.k3 + m, a.k4 + m};
    const auto value = [&](int which, int64_t v) -> double & {
        return ONE ? held[which] : which == U ? u[v * wl] : k_arrays[which][v * ld];
    };
    if (threadIdx.x == 0) {
        e_bits[0] = e_bits[1] = 0;
        if (GRID && rank == 0) e_slot[0] = e_slot[1] = 0;
        if (GRID && blockIdx.x == 0) any_slot[0] = any_slot[1] = 0;
    }
    const typename Rhs::node_data first_node = rhs.node_data_at(nodes.first);
    if (ONE && nodes.first < n) held[U] = a.u[nodes.first * ld + m];
    if (SHARED && nodes.first < n) u[nodes.first] = held[U];
    /* only the shared state needs a barrier here: the slots above are next written, and first
     * read, after stage 2's */
    if (SHARED) sync();
    for (int64_t step = 0;; ++step) {
        const int parity = (int)(step & 1);
        const int stepping = rkm_member_begin(&s, a.t_to);
        const double h = s.h;
        /* stage (lane % 5) + 1's time data, for the warp */
        const typename Rhs::time_data stage_data =
            rhs.time_data_at(s.t + rkm_stage_time_fraction(1 + threadIdx.x % 32 % 5) * h);
        for (int stage = 1; stage <= 5; ++stage) {
            double *const arg = stage % 2 ? arg_even : arg_odd;
            if (stage > 1) {
                for (int64_t v = nodes.first; stepping && v < n; v = nodes.next(v, n))
                    arg[v * wl] = rkm_stage_argument(
                        stage, value(U, v), h, value(K1, v), stage == 3 ? value(K2_K5, v) : 0.0,
                        stage >= 4 ? value(K3, v) : 0.0, stage == 5 ? value(K4, v) : 0.0);
                sync();
            }
            /* the slots of the step after this one were last read before the barrier above */
            if (stage == 2 && threadIdx.x == 0) {
                e_bits[!parity] = 0;
                if (GRID && rank == 0) e_slot[!parity] = 0;
                if (GRID && blockIdx.x == 0) any_slot[!parity] = 0;
            }
            /* k_s (k5 in k2's place) */
            const int out = stage == 1 ? K1 : stage == 3 ? K3 : stage == 4 ? K4 : K2_K5;
            const typename Rhs::time_data at_t = rkm_warp_broadcast(stage_data, stage - 1);
            if (stepping)
                rhs.eval(at_t, first_node, stage == 1 ? u : arg, scratch, wl, nodes, sync,
                         [&](int64_t v, double f) {
                             if (!ONE) {
                                 value(out, v) = f;
                                 return;
                             }
                             /* constant register indices, not held[out] (local memory) */
                             held[K1] = out == K1 ? f : held[K1];
                             held[K2_K5] = out == K2_K5 ? f : held[K2_K5];
                             held[K3] = out == K3 ? f : held[K3];
                             held[K4] = out == K4 ? f : held[K4];
                         });
            else
                for (int pass = 1; pass < rhs.passes(); ++pass) sync();
        }
        /* eq. 27, as rkm_error_kernel: the maximum of the bits of non-negative values; and the
         * update of eq. 28, the state should the step be accepted */
        unsigned long long e = 0;
        for (int64_t v = nodes.first; stepping && v < n; v = nodes.next(v, n)) {
            const unsigned long long bits = (unsigned long long)__double_as_longlong(
                rkm_error_point(h, value(K1, v), value(K3, v), value(K4, v), value(K2_K5, v)));
            e = bits > e ? bits : e;
            const double next =
                rkm_update_value(value(U, v), h, value(K1, v), value(K4, v), value(K2_K5, v));
            u_next[v * wl] = held[U_NEXT] = next;
        }
        e = rkm_warp_max(e);
        if (threadIdx.x % 32 == 0) atomicMax(&e_bits[parity], e);
        if (GRID) {
            __syncthreads();
            if (threadIdx.x == 0) atomicMax(&e_slot[parity], e_bits[parity]);
        }
        sync();
        s.e =
            __longlong_as_double((long long)(GRID ? *(volatile unsigned long long *)&e_slot[parity]
                                             : CLUSTER ? rkm_cluster_max(&e_bits[parity])
                                                       : e_bits[parity]));
        if (rkm_member_control(&s, a.t_to, a.tolerance)) {
            double *const state = u_next;
            u_next = u, u = state, held[U] = held[U_NEXT];
        }
        if (GRID) {
            if (threadIdx.x == 0 && rank == 0 && s.t < a.t_to) atomicOr(&any_slot[parity], 1ull);
            sync();
            if (*(volatile unsigned long long *)&any_slot[parity] == 0) break;
        } else if (!(s.t < a.t_to)) {
            break;
        }
    }
    /* the state where the caller has it; a cluster's blocks last read each other's e_bits */
    for (int64_t v = nodes.first; u != a.u + m && v < n; v = nodes.next(v, n))
        a.u[v * ld + m] = value(U, v);
    if (CLUSTER) sync();
    if (threadIdx.x == 0 && rank == 0) a.members[m] = s;
}

/* The dynamic shared memory of a SHARED kernel: four arrays of n values and the scratch */
template <class Rhs> static size_t rkm_fused_shared_bytes(const Rhs &rhs, int64_t n)
{
    return (size_t)(4 + rhs.passes() - 1) * (size_t)n * sizeof(double);
}

/* The launch of `count` members of `per` blocks, as clusters where per > 1, as a programmatic
 * dependent launch where dependent (attrs: the 2 attributes it points to). */
static cudaLaunchConfig_t rkm_fused_config(int64_t count, int64_t per, int dependent,
                                           cudaLaunchAttribute attrs[2])
{
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)(count * per)), config.blockDim = dim3(RKM_FUSED_THREADS);
    config.attrs = attrs;
    if (per > 1) {
        cudaLaunchAttribute *dims = &attrs[config.numAttrs++];
        *dims = cudaLaunchAttribute{};
        dims->id = cudaLaunchAttributeClusterDimension;
        dims->val.clusterDim.x = (unsigned)per, dims->val.clusterDim.y = 1;
        dims->val.clusterDim.z = 1;
    }
    if (dependent) {
        cudaLaunchAttribute *pdl = &attrs[config.numAttrs++];
        *pdl = cudaLaunchAttribute{};
        pdl->id = cudaLaunchAttributeProgrammaticStreamSerialization;
        pdl->val.programmaticStreamSerializationAllowed = 1;
    }
    return config;
}

/* What launches of rkm_fused_kernel<Rhs, *, ONE> need to know of the device: its SMs, the grid
 * kernel's blocks that stay resident on one, for each size 2 .. RKM_FUSED_MAX_CLUSTER whether
 * a cluster fits, and whether it takes programmatic dependent launches (both compute capability
 * 9.0 and above). Asked once per device: the answers do not change, and the queries cost about as
 * much as a short advance. */
typedef struct rkm_fused_device {
    int sms, resident, cluster_fits[RKM_FUSED_MAX_CLUSTER + 1], dependent;
} rkm_fused_device;

template <class Rhs, bool ONE> static int rkm_fused_device_get(rkm_fused_device *d)
{
    enum { DEVICES = 64 };
    static std::mutex lock;
    static bool known[DEVICES];
    static rkm_fused_device answers[DEVICES];
    int device = 0, has_clusters = 0, major = 0;
    COHORT_CUDA_CHECK(cudaGetDevice(&device));
    std::lock_guard<std::mutex> hold(lock);
    if (device < DEVICES && known[device]) {
        *d = answers[device];
        return COHORT_OK;
    }
    *d = rkm_fused_device{};
    COHORT_CUDA_CHECK(cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, device));
    COHORT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &d->resident, rkm_fused_kernel<Rhs, RKM_SYNC_GRID, ONE>, RKM_FUSED_THREADS, 0));
    COHORT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    d->dependent = major >= 9;
    COHORT_CUDA_CHECK(cudaDeviceGetAttribute(&has_clusters, cudaDevAttrClusterLaunch, device));
    for (int per = 2; has_clusters && per <= RKM_FUSED_MAX_CLUSTER; ++per) {
        cudaLaunchAttribute attrs[2];
        const cudaLaunchConfig_t config = rkm_fused_config(1, per, 0, attrs);
        int clusters = 0;
        COHORT_CUDA_CHECK(cudaOccupancyMaxActiveClusters(
            &clusters, rkm_fused_kernel<Rhs, RKM_SYNC_CLUSTER, ONE>, &config));
        d->cluster_fits[per] = clusters > 0;
    }
    if (device < DEVICES) answers[device] = *d, known[device] = true;
    return COHORT_OK;
}

/* rkm_fused_launch with `per` blocks a member as asked (a->blocks_per_member > 0) or chosen */
template <class Rhs, bool ONE>
static int rkm_fused_launch_as(const Rhs &rhs, const rkm_fused_args *a, int64_t per)
{
    rkm_fused_args args = *a;
    unsigned long long *flags = args.flags;
    rkm_fused_device device;
    COHORT_CALL((rkm_fused_device_get<Rhs, ONE>(&device)));
    cudaLaunchAttribute attrs[2];
    if (per >= 2 && per <= RKM_FUSED_MAX_CLUSTER && device.cluster_fits[per]) {
        args.blocks_per_member = per;
        const cudaLaunchConfig_t config =
            rkm_fused_config(args.count, per, device.dependent, attrs);
        COHORT_CUDA_CHECK(cudaLaunchKernelEx(&config, rkm_fused_kernel<Rhs, RKM_SYNC_CLUSTER, ONE>,
                                             rhs, args, flags));
        return COHORT_OK;
    }
    if (per > 1) {
        const int64_t most = (int64_t)device.sms * device.resident / args.count;
        /* fewer blocks than values: the kernel that keeps its stage values in memory */
        if (ONE && most < per) return rkm_fused_launch_as<Rhs, false>(rhs, a, per);
        if (args.blocks_per_member > most)
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                               "%lld blocks for each of %lld members: at most %lld stay resident",
                               (long long)args.blocks_per_member, (long long)args.count,
                               (long long)most);
        per = per < most ? per : most;
    }
    if (per <= 1) {
        args.blocks_per_member = 1;
        cudaLaunchConfig_t config = rkm_fused_config(args.count, 1, device.dependent, attrs);
        if (ONE) { /* SHARED: a thread for each value, in whole warps (the Rhs's groups) */
            const int64_t grouped = rhs.one_block_threads(args.n);
            config.blockDim =
                dim3((unsigned)(grouped <= RKM_FUSED_ONE_BLOCK_VALUES ? grouped
                                                                      : (args.n + 31) / 32 * 32));
            config.dynamicSmemBytes = rkm_fused_shared_bytes(rhs, args.n);
        }
        unsigned long long *none = NULL;
        COHORT_CUDA_CHECK(cudaLaunchKernelEx(&config, rkm_fused_kernel<Rhs, RKM_SYNC_BLOCK, ONE>,
                                             rhs, args, none));
        return COHORT_OK;
    }
    args.blocks_per_member = per;
    void *params[] = {(void *)&rhs, (void *)&args, (void *)&flags};
    COHORT_CUDA_CHECK(cudaLaunchCooperativeKernel(
        (const void *)rkm_fused_kernel<Rhs, RKM_SYNC_GRID, ONE>, dim3((unsigned)(args.count * per)),
        dim3(RKM_FUSED_THREADS), params, 0, 0));
    return COHORT_OK;
}

/* The blocks per member: a.blocks_per_member where it is set (> 0), else one where a block has a
 * thread for each value (at most RKM_FUSED_ONE_BLOCK_VALUES), or enough blocks of RKM_FUSED_THREADS
 * for a value per thread. One block a member runs with the block's barrier, and with a thread for
 * each value holds the member's arrays in shared memory; 2 .. RKM_FUSED_MAX_CLUSTER as a cluster
 * where the device has them; more (or where it has none) as a cooperative grid, at most as many
 * blocks as stay resident with the others' (every block of a cooperative launch must be
 * resident). Where the blocks have a thread for each value, the kernel holds the stage values in
 * registers (ONE). */
template <class Rhs> static int rkm_fused_launch(const Rhs &rhs, const rkm_fused_args *a)
{
    const int64_t per = a->blocks_per_member > 0 ? a->blocks_per_member
                        : a->n <= RKM_FUSED_ONE_BLOCK_VALUES
                            ? 1
                            : (a->n + RKM_FUSED_THREADS - 1) / RKM_FUSED_THREADS;
    const bool one =
        per == 1 ? a->n <= RKM_FUSED_ONE_BLOCK_VALUES : per * RKM_FUSED_THREADS >= a->n;
    return one ? rkm_fused_launch_as<Rhs, true>(rhs, a, per)
               : rkm_fused_launch_as<Rhs, false>(rhs, a, per);
}

#endif
