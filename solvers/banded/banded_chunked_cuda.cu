/* The CHUNKED path of the batched banded solve (banded_cuda.h): a thread takes a chunk of
 * BANDED_CHUNK_ROWS rows of one system into its registers, a block holds every chunk of w systems,
 * forms their carries in shared memory (the chunked form of banded_numerics.h; a warp's scan of
 * the chunks' maps where banded_chunk_lanes says so, else one thread a system walks its chunks)
 * and finishes each chunk from its registers. Each value crosses device
 * memory twice, and the chains a thread waits on are a chunk long. The loops are
 * banded_chunk_local's and banded_chunk_finish's, unrolled over the registers. Long systems
 * (CHUNK_STAGE_MIN_CHUNKS) read the factor's rows from shared memory, copied once a block, the
 * block then solving block after block of systems; the arithmetic, and so the bits, are the
 * same either way. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "backend/cuda_check.cuh"
#include "banded/banded_cuda.cuh"

enum { CHUNK_ROWS = BANDED_CHUNK_ROWS };

/* The first pass over a chunk in registers: yhat in place, and phi, psi (and lambda where asked)
 * into the system's slots for the chunk (stride ts). */
template <int H>
__device__ __forceinline__ void chunk_first_pass(const double *coef, int len,
                                                 double (&x)[CHUNK_ROWS], double *slots, int ts,
                                                 double *lambda)
{
    double carry[H];
#pragma unroll
    for (int k = 0; k < H; ++k) carry[k] = 0.0;
#pragma unroll
    for (int i = 0; i < CHUNK_ROWS; ++i)
        if (i < len) {
            x[i] = banded_forward_value(coef + i * (2 * H + 1), H, x[i], carry);
            banded_carry_push(carry, H, x[i]);
        }
#pragma unroll
    for (int k = 0; k < H; ++k) {
        slots[banded_chunk_slot(H, 0, k, ts)] = carry[k];
        carry[k] = 0.0;
    }
#pragma unroll
    for (int i = CHUNK_ROWS - 1; i >= 0; --i)
        if (i < len) {
            const double xi = banded_backward_value(coef + i * (2 * H + 1), H, x[i], carry);
            banded_carry_push(carry, H, xi);
            if (lambda && i >= len - H) lambda[(len - 1 - i) * ts] = xi;
        }
#pragma unroll
    for (int k = 0; k < H; ++k) slots[banded_chunk_slot(H, 0, H + k, ts)] = carry[k];
}

/* The second pass: the chunk's rows of the solution from yhat and its carries, stored to out
 * (coef, fwd and spike at the chunk's first row). */
template <int H, int BORDER>
__device__ __forceinline__ void
chunk_second_pass(const double *coef, const double *fwd, const double *spike, int len,
                  const double (&x)[CHUNK_ROWS], const double *slots, int ts, const double *xb,
                  double *out, int64_t ld)
{
    double f[H], carry[H];
#pragma unroll
    for (int k = 0; k < H; ++k) {
        f[k] = slots[banded_chunk_slot(H, 0, k, ts)];
        carry[k] = slots[banded_chunk_slot(H, 0, H + k, ts)];
    }
#pragma unroll
    for (int i = CHUNK_ROWS - 1; i >= 0; --i)
        if (i < len) {
            const double y = banded_chunk_carry_in(fwd + i * H, H, x[i], f);
            const double p = banded_backward_value(coef + i * (2 * H + 1), H, y, carry);
            banded_carry_push(carry, H, p);
            out[i * ld] = BORDER ? banded_border_correct(spike + i * BORDER, BORDER, p, xb) : p;
        }
}

/* A lane's map from the lane `delta` away (up: below it), all lanes of the warp taking part. */
template <int H>
__device__ __forceinline__ banded_affine chunk_affine_shuffle(const banded_affine &a, int delta,
                                                              bool up)
{
    banded_affine r;
#pragma unroll
    for (int j = 0; j < H; ++j) {
#pragma unroll
        for (int k = 0; k < H; ++k)
            r.m[j][k] = up ? __shfl_up_sync(0xffffffffu, a.m[j][k], delta)
                           : __shfl_down_sync(0xffffffffu, a.m[j][k], delta);
        r.o[j] = up ? __shfl_up_sync(0xffffffffu, a.o[j], delta)
                    : __shfl_down_sync(0xffffffffu, a.o[j], delta);
    }
    return r;
}

/* The inclusive scan of the lanes' maps (banded_affine_lane_scan), across the warp's first
 * LANES lanes. */
template <int H, int LANES>
__device__ __forceinline__ void chunk_affine_scan(banded_affine &a, int lane, bool up)
{
#pragma unroll
    for (int d = 1; d < LANES; d *= 2) {
        const banded_affine e = chunk_affine_shuffle<H>(a, d, up);
        if (up ? lane >= d : lane + d < LANES) a = banded_affine_then(&e, &a, H);
    }
}

/* The doubles a scanning kernel (LANES > 1) leaves after each lane's range of chunks in the
 * carry coefficients and the slots: chunk c's lie c / q further on (q chunks a lane), so that the
 * lanes, which read chunks q apart, read addresses an odd count of doubles apart. Without it those
 * lay a multiple of 32 banks apart and the lanes met on one bank (ncu, N = 4096: 17.7-way
 * conflicts). The walking kinds, whose lanes are systems side by side, take none. */
template <int LANES> __device__ __forceinline__ int chunk_lane_pad(const banded_view &v, int c)
{
    return LANES > 1 ? c / ((v.n_chunk + LANES - 1) / LANES) : 0;
}

/* The doubles chunk_lane_pad takes in each of the two arrays: one a lane where they scan. */
__host__ __device__ constexpr int chunk_lane_pad_doubles(int lanes)
{
    return lanes > 1 ? lanes : 0;
}

/* One direction of a system's carries by LANES lanes (UP: forward, f walked up the chunks; else
 * backward, g walked down): the lane's map of its chunks [lo, hi), the scan of the lanes' maps
 * (LANES > 1), then the lane's walk from the carry the scan gives its first chunk. carry: on
 * return, the walk's last carry-out (walking down: x at T's first h rows). */
template <int H, int LANES, bool UP>
__device__ __forceinline__ void chunk_lane_pass(const banded_view &lv, double *tips, int ts, int lo,
                                                int hi, int lane, double (&carry)[H])
{
#pragma unroll
    for (int k = 0; k < H; ++k) carry[k] = 0.0;
    if constexpr (LANES > 1) { /* the carry the lane's first chunk starts from */
        banded_affine a = UP ? banded_chunk_lane_forward(&lv, H, tips, ts, lo, hi)
                             : banded_chunk_lane_backward(&lv, H, tips, ts, lo, hi);
        chunk_affine_scan<H, LANES>(a, lane, UP);
        const banded_affine before = chunk_affine_shuffle<H>(a, 1, UP);
        const bool first = UP ? lane == 0 : lane + 1 == LANES;
#pragma unroll
        for (int k = 0; k < H; ++k) carry[k] = first ? 0.0 : before.o[k];
    }
    if constexpr (UP)
        banded_chunk_lane_forward_apply(&lv, H, tips, ts, lo, hi, carry);
    else
        banded_chunk_lane_backward_apply(&lv, H, tips, ts, lo, hi, carry);
}

/* One system's carries (banded_chunk_carries) by LANES lanes, a lane a range of chunks, with the
 * carry coefficients at back (shared memory); then, for a periodic system, lane 0 forms its border
 * unknowns x_b, stores them (rows n_band..n-1 belong to no chunk) and shares them through
 * xb_shared (stride ts). The border reads v's arrays where the kernel's parameters hold them: a
 * copy of the view indexed at run time would live in local memory. */
template <int H, int BORDER, int LANES>
__device__ __forceinline__ void
chunk_system_carries(const banded_view &v, const double *back, double *tips, int ts,
                     const double *lambda, double *xb_shared, double *sys, int64_t ld, int lane)
{
    /* the lane's chunks lie past `lane` doubles of padding (chunk_lane_pad) */
    const int pad = LANES > 1 ? lane : 0;
    banded_view lanes_view = v;
    lanes_view.chunk_back = back + pad;
    const banded_view &lv = lanes_view;
    double *lane_tips = tips + pad;
    int lo, hi;
    banded_chunk_lane_range(&lv, LANES, lane, &lo, &hi);
    double carry[H];
    chunk_lane_pass<H, LANES, true>(lv, lane_tips, ts, lo, hi, lane, carry);
    chunk_lane_pass<H, LANES, false>(lv, lane_tips, ts, lo, hi, lane, carry);
    /* LANES = 1: a thread a system, and not every lane is here */
    if constexpr (LANES > 1) __syncwarp();
    if constexpr (BORDER > 0) {
        if (lane != 0) return;
        double d_b[H], f_last[H], lam[H], xb[H];
#pragma unroll
        for (int k = 0; k < H; ++k) {
            d_b[k] = sys[(v.n_band + k) * ld];
            f_last[k] = tips[banded_chunk_slot(H, v.n_chunk - 1, k, ts) +
                             chunk_lane_pad<LANES>(v, v.n_chunk - 1)];
            lam[k] = lambda[k * ts];
        }
        banded_chunk_border(&v, H, carry, lam, f_last, d_b, xb);
#pragma unroll
        for (int k = 0; k < H; ++k) {
            sys[(v.n_band + k) * ld] = xb[k];
            xb_shared[k * ts] = xb[k];
        }
    }
}

/* The doubles of a block's shared memory for w systems of n_chunk chunks before the factor's
 * staged arrays: every chunk's carry coefficients (chunk_back), the slots of every chunk of the w
 * systems, each with a scanning kernel's padding (pad: chunk_lane_pad_doubles), then lambda and
 * x_b (h each a system). */
__host__ __device__ constexpr int64_t chunk_shared_doubles(int n_chunk, int h, int w, int pad)
{
    return 3 * h * h * n_chunk + 2 * h * n_chunk * w + 2 * pad + 2 * h * w;
}

/* How much of the factor a block copies into shared memory before its first systems: nothing,
 * the LU's rows (which both passes read), or every array the sweeps read (also the forward
 * carries' rows and the spikes, which the second reads); the most that fits (chunked_stage_for).
 * What is not staged is read through L1. A staged array keeps each chunk's rows in a stretch of
 * its own, one double longer than CHUNK_ROWS rows: a warp's threads read the same row of
 * different chunks at once, and chunks CHUNK_ROWS rows apart would lie a multiple of 32 banks
 * apart. */
enum { STAGE_NONE = 0, STAGE_COEF = 1, STAGE_ALL = 2 };

/* The doubles of a chunk's stretch in a staged array of per_row doubles a row. */
__host__ __device__ constexpr int64_t chunk_stretch(int per_row)
{
    return per_row > 0 ? (int64_t)CHUNK_ROWS * per_row + 1 : 0;
}

/* The doubles of the arrays that `stage` copies for systems of half-bandwidth h and `border`. */
__host__ __device__ constexpr int64_t chunk_staged_doubles(int n_chunk, int h, int border,
                                                           int stage)
{
    return n_chunk * ((stage >= STAGE_COEF ? chunk_stretch(2 * h + 1) : 0) +
                      (stage >= STAGE_ALL ? chunk_stretch(h) + chunk_stretch(border) : 0));
}

/* Where a block's sweeps read the factor's rows: the staged arrays' copies in shared memory. */
struct chunk_factor {
    const double *coef, *fwd, *spike;
};

/* The block's threads copy each chunk's rows of an array of PER_ROW doubles a row to its stretch
 * at `to`; returns the end of the stretches. */
template <int PER_ROW>
__device__ __forceinline__ double *chunk_stage_array(const banded_view &v, double *to,
                                                     const double *from)
{
    enum { ROW_DOUBLES = CHUNK_ROWS * PER_ROW };
    for (int e = threadIdx.x; e < v.n_chunk * ROW_DOUBLES; e += blockDim.x) {
        const int c = e / ROW_DOUBLES, k = e - c * ROW_DOUBLES;
        const int64_t start = banded_chunk_start(&v, c);
        if (start * PER_ROW + k < banded_chunk_end(&v, c) * PER_ROW)
            to[c * chunk_stretch(PER_ROW) + k] = __ldg(from + start * PER_ROW + k);
    }
    return to + v.n_chunk * chunk_stretch(PER_ROW);
}

/* The arrays STAGE copies, to shared memory at `at`, one after the other; the caller
 * synchronises. */
template <int H, int BORDER, int STAGE>
__device__ __forceinline__ chunk_factor chunk_stage_factor(const banded_view &v, double *at)
{
    chunk_factor f = {at, nullptr, nullptr};
    if constexpr (STAGE >= STAGE_COEF) at = chunk_stage_array<2 * H + 1>(v, at, v.coef);
    f.fwd = at;
    if constexpr (STAGE >= STAGE_ALL) at = chunk_stage_array<H>(v, at, v.chunk_fwd);
    f.spike = at;
    if constexpr (STAGE >= STAGE_ALL && BORDER > 0) chunk_stage_array<BORDER>(v, at, v.spike);
    return f;
}

/* Chunk c's first row of an array of PER_ROW doubles a row: in its stretch where STAGED, else at
 * row start of the array in device memory. */
template <int PER_ROW, bool STAGED>
__device__ __forceinline__ const double *chunk_rows(const double *staged, const double *array,
                                                    int c, int64_t start)
{
    if constexpr (STAGED) return staged + c * chunk_stretch(PER_ROW);
    return array + start * PER_ROW;
}

/* The carries of the block's systems where a warp scans each (sys: the first system's column;
 * tips, lambda, xb_shared: the first system's, stride w); all lanes of every warp take part. */
template <int H, int BORDER, int LANES>
__device__ __forceinline__ void
chunk_warp_carries(const banded_view &v, const double *back, double *tips, int w, double *lambda,
                   double *xb_shared, double *sys, int64_t ld, int systems)
{
    for (int s = threadIdx.x / LANES; s < systems; s += blockDim.x / LANES)
        chunk_system_carries<H, BORDER, LANES>(v, back, tips + s, w, lambda + s, xb_shared + s,
                                               sys + s, ld, threadIdx.x % LANES);
}

/* Chunk c's carry coefficients into back, past a scanning kernel's padding (pad:
 * chunk_lane_pad), where the carries read them after a barrier. */
template <int H>
__device__ __forceinline__ void chunk_copy_back(const banded_view &v, double *back, int c, int pad)
{
#pragma unroll
    for (int k = 0; k < 3 * H * H; ++k)
        back[c * 3 * H * H + pad + k] = v.chunk_back[c * 3 * H * H + k];
}

/* One block's w systems, from first on, of those at block_u (back: the carry coefficients and
 * the slots in shared memory; with copy_back, the threads of each chunk's first system copy the
 * chunk's coefficients there first: a staging block copied them with the factor). Thread t
 * takes chunk t >> w_shift of system t & (w - 1). Where a warp scans a system's carries
 * (LANES > 1: banded_chunk_lanes), the block is rounded up to whole warps, whose threads past the
 * last chunk only help with the carries; else the thread of a system's first chunk walks them.
 * The rows stream past L1 (ld.global.cg), which keeps the factor rows that are not staged. */
template <int H, int BORDER, int LANES, int STAGE>
__device__ __forceinline__ void
chunk_block_solve(const banded_view &v, const chunk_factor &f, double *back, double *block_u,
                  int64_t first, int64_t count, int64_t ld, int w_shift, bool copy_back)
{
    const int w = 1 << w_shift, g = threadIdx.x & (w - 1), c = threadIdx.x >> w_shift;
    const bool chunk = LANES == 1 || c < v.n_chunk; /* always so without the rounding */
    const int64_t m = first + g;
    const bool member = m < count && chunk;
    double *sys = block_u + (LANES > 1 || member ? m : 0); /* only members read it */
    enum { PAD = chunk_lane_pad_doubles(LANES) };
    const int pad = chunk ? chunk_lane_pad<LANES>(v, c) : 0;
    double *tips = back + 3 * H * H * v.n_chunk + PAD + g;
    double *lambda = tips + 2 * H * v.n_chunk * w + PAD, *xb_shared = lambda + H * w;
    if (copy_back && g == 0 && chunk) chunk_copy_back<H>(v, back, c, pad); /* barrier below */
    const int64_t start = chunk ? banded_chunk_start(&v, c) : 0;
    const int len = chunk ? (int)(banded_chunk_end(&v, c) - start) : 0;
    double x[CHUNK_ROWS];
    if (member) {
#pragma unroll
        for (int i = 0; i < CHUNK_ROWS; ++i)
            if (i < len) x[i] = __ldcg(sys + (start + i) * ld);
        chunk_first_pass<H>(chunk_rows<2 * H + 1, STAGE >= STAGE_COEF>(f.coef, v.coef, c, start),
                            len, x, tips + banded_chunk_slot(H, c, 0, w) + pad, w,
                            BORDER && c == v.n_chunk - 1 ? lambda : nullptr);
    }
    __syncthreads();
    if constexpr (LANES > 1) {
        chunk_warp_carries<H, BORDER, LANES>(v, back, tips - g, w, lambda - g, xb_shared - g,
                                             block_u + first, ld,
                                             count - first < w ? (int)(count - first) : w);
    } else if (member && c == 0) {
        chunk_system_carries<H, BORDER, 1>(v, back, tips, w, lambda, xb_shared, sys, ld, 0);
    }
    __syncthreads();
    double xb[H > BORDER ? H : BORDER];
#pragma unroll
    for (int k = 0; k < BORDER; ++k) xb[k] = xb_shared[k * w];
    if (member)
        chunk_second_pass<H, BORDER>(
            chunk_rows<2 * H + 1, STAGE >= STAGE_COEF>(f.coef, v.coef, c, start),
            chunk_rows<H, STAGE >= STAGE_ALL>(f.fwd, v.chunk_fwd, c, start),
            chunk_rows<BORDER, STAGE >= STAGE_ALL>(f.spike, v.spike, c, start), len, x,
            tips + banded_chunk_slot(H, c, 0, w) + pad, w, xb, sys + start * ld, ld);
}

/* The blocks of systems that a staging launch's blocks have claimed past their first (set to
 * zero before each such launch, on the stream that runs it). */
__device__ unsigned long long chunk_claimed;

/* Solves blocks of w = 1 << w_shift systems of the groups x count, group g's at
 * u + g * group_stride + m0. Without staging (STAGE_NONE) a block takes one block of systems, as
 * the grid holds them all. A staging launch holds only as many blocks as are resident: each
 * copies the carry coefficients and the arrays STAGE names to shared memory once, solves its own
 * block of systems, then claims the next one no block has claimed. The claims keep the blocks in
 * flight neighbours in memory and give the faster SMs more of them, as the hardware's scheduling
 * does for a block a block of systems (a fixed stride between a block's systems was slower). */
template <int H, int BORDER, int LANES, int STAGE>
__global__ void __launch_bounds__(CHUNK_BLOCK_THREADS)
    banded_chunked_kernel(banded_view v, double *u, int64_t ld, int64_t m0, int64_t count,
                          int64_t groups, int64_t group_stride, int w_shift)
{
    extern __shared__ double chunk_shared[];
    const int w = 1 << w_shift;
    if constexpr (STAGE == STAGE_NONE) { /* x: the block of systems in its group; y: the group */
        chunk_block_solve<H, BORDER, LANES, STAGE>(
            v, chunk_factor{}, chunk_shared, u + blockIdx.y * group_stride + m0,
            (int64_t)blockIdx.x * w, count, ld, w_shift, true);
        return;
    }
    __shared__ int64_t next;
    const chunk_factor f = chunk_stage_factor<H, BORDER, STAGE>(
        v, chunk_shared + chunk_shared_doubles(v.n_chunk, H, w, chunk_lane_pad_doubles(LANES)));
    for (int c = threadIdx.x; c < v.n_chunk; c += blockDim.x)
        chunk_copy_back<H>(v, chunk_shared, c, chunk_lane_pad<LANES>(v, c));
    __syncthreads(); /* the passes read what is staged, the carries the coefficients */
    const int64_t per_group = (count + w - 1) >> w_shift, blocks = per_group * groups;
    for (int64_t b = blockIdx.x; b < blocks;) {
        const int64_t group = b / per_group;
        chunk_block_solve<H, BORDER, LANES, STAGE>(
            v, f, chunk_shared, u + group * group_stride + m0, (b - group * per_group) << w_shift,
            count, ld, w_shift, false);
        /* written after the solve's barriers, which every thread's read of the last claim passed */
        if (threadIdx.x == 0) next = gridDim.x + (int64_t)atomicAdd(&chunk_claimed, 1ull);
        __syncthreads(); /* the claim, and the next systems reuse the slots */
        b = next;
    }
}

typedef void (*chunked_kernel_fn)(banded_view, double *, int64_t, int64_t, int64_t, int64_t,
                                  int64_t, int);

/* The kernel of v's kind (LANES: banded_chunk_lanes) at each staging (STAGE_*). */
template <int H, int BORDER, int LANES> static chunked_kernel_fn chunked_kernel_staged(int stage)
{
    return stage == STAGE_ALL    ? banded_chunked_kernel<H, BORDER, LANES, STAGE_ALL>
           : stage == STAGE_COEF ? banded_chunked_kernel<H, BORDER, LANES, STAGE_COEF>
                                 : banded_chunked_kernel<H, BORDER, LANES, STAGE_NONE>;
}

/* The kernel for v at `stage`. The tridiagonal kinds that walk their carries have fewer than
 * CHUNK_STAGE_MIN_CHUNKS chunks (banded_chunk_lanes), so they never stage, and no staging kernel
 * is built for them: a staging launch of a kernel that does not stage would solve one block of
 * systems a block and leave the rest. */
static_assert((int)BANDED_CHUNK_LANES <= (int)CHUNK_STAGE_MIN_CHUNKS &&
                  (int)BANDED_CHUNK_SCAN_MIN_PERIODIC <= (int)CHUNK_STAGE_MIN_CHUNKS,
              "the walking tridiagonal kinds must stay below the staging's chunks");
static chunked_kernel_fn chunked_kernel_for(const banded_view *v, int stage)
{
    if (banded_chunk_lanes(v, v->h, v->border) > 1)
        return v->border ? chunked_kernel_staged<1, 1, BANDED_CHUNK_LANES>(stage)
                         : chunked_kernel_staged<1, 0, BANDED_CHUNK_LANES>(stage);
    if (v->h == 1)
        return v->border ? banded_chunked_kernel<1, 1, 1, STAGE_NONE>
                         : banded_chunked_kernel<1, 0, 1, STAGE_NONE>;
    return v->border ? chunked_kernel_staged<2, 2, 1>(stage)
                     : chunked_kernel_staged<2, 0, 1>(stage);
}

/* How much of the factor a launch stages (STAGE_*): none below CHUNK_STAGE_MIN_CHUNKS chunks,
 * else the most that fits in a block's shared memory beside `base` bytes. */
static int chunked_stage_for(const banded_view *v, size_t base)
{
    if (v->n_chunk < CHUNK_STAGE_MIN_CHUNKS) return STAGE_NONE;
    int stage = STAGE_ALL;
    while (stage > STAGE_NONE &&
           base + (size_t)chunk_staged_doubles(v->n_chunk, v->h, v->border, stage) *
                       sizeof(double) >
               cohort_cuda_shared_limit_bytes())
        --stage;
    return stage;
}

/* A staging launch: as many blocks as are resident, the counter of claims zeroed. The counter's
 * address, and the blocks an SM holds for the previous launch's kernel and shape, are asked once:
 * a run solves the same systems every step. */
static int chunked_launch_staged(chunked_kernel_fn kernel, int threads, size_t smem,
                                 const banded_view *v, double *u, int64_t ld, int64_t m0,
                                 int64_t count, int64_t groups, int64_t group_stride, int w_shift)
{
    static void *claimed = nullptr;
    static struct {
        chunked_kernel_fn kernel;
        int threads;
        size_t smem;
        int64_t resident;
    } last = {nullptr, 0, 0, 0};
    if (!claimed) COHORT_CUDA_CHECK(cudaGetSymbolAddress(&claimed, chunk_claimed));
    if (kernel != last.kernel || threads != last.threads || smem != last.smem) {
        int per_sm = 0, sms = 0;
        COHORT_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
        COHORT_CALL(cohort_cuda_sm_count(&sms));
        last.kernel = kernel, last.threads = threads, last.smem = smem;
        last.resident = (int64_t)per_sm * sms;
    }
    const int64_t all = (count + (1 << w_shift) - 1) / (1 << w_shift) * groups;
    COHORT_CUDA_CHECK(cudaMemsetAsync(claimed, 0, sizeof chunk_claimed));
    kernel<<<(unsigned)(all < last.resident ? all : last.resident), threads, smem>>>(
        *v, u, ld, m0, count, groups, group_stride, w_shift);
    COHORT_CUDA_CHECK_LAUNCH("banded_chunked_kernel");
    return COHORT_OK;
}

int banded_chunked_launch(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                          int64_t groups, int64_t group_stride)
{
    int w = banded_chunk_width(v);
    if (w == 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "n = %lld rows make %d chunks of %d; the chunked solve takes at most %d",
                           (long long)v->n, v->n_chunk, BANDED_CHUNK_ROWS, CHUNK_BLOCK_THREADS);
    while (w > 1 && w / 2 >= count) w /= 2; /* no block of idle systems; changes no bits */
    int w_shift = 0;
    while ((1 << w_shift) < w) ++w_shift;
    const int lanes = banded_chunk_lanes(v, v->h, v->border);
    const int threads = lanes > 1 ? (w * v->n_chunk + 31) / 32 * 32 /* whole warps: they shuffle */
                                  : w * v->n_chunk;
    const size_t base =
        (size_t)chunk_shared_doubles(v->n_chunk, v->h, w, chunk_lane_pad_doubles(lanes)) *
        sizeof(double);
    const int stage = chunked_stage_for(v, base);
    const size_t smem =
        base + (size_t)chunk_staged_doubles(v->n_chunk, v->h, v->border, stage) * sizeof(double);
    const chunked_kernel_fn kernel = chunked_kernel_for(v, stage);
    if (smem > 48 * 1024)
        COHORT_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (stage != STAGE_NONE)
        return chunked_launch_staged(kernel, threads, smem, v, u, ld, m0, count, groups,
                                     group_stride, w_shift);
    for (int64_t g0 = 0; g0 < groups; g0 += 65535) {
        const unsigned gy = (unsigned)(groups - g0 < 65535 ? groups - g0 : 65535);
        const dim3 grid((unsigned)((count + w - 1) / w), gy);
        kernel<<<grid, threads, smem>>>(*v, u + g0 * group_stride, ld, m0, count, gy, group_stride,
                                        w_shift);
        COHORT_CUDA_CHECK_LAUNCH("banded_chunked_kernel");
    }
    return COHORT_OK;
}
