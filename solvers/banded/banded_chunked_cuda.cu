/* The CHUNKED path of the batched banded solve (banded_cuda.h): a thread takes a chunk of
 * BANDED_CHUNK_ROWS rows of one system into its registers, a block holds every chunk of w systems,
 * forms their carries in shared memory (the chunked form of banded_numerics.h; a warp's scan of
 * the chunks' maps where banded_chunk_lanes says so, else one thread a system walks its chunks)
 * and finishes each chunk from its registers. Each value crosses device
 * memory twice, and the chains a thread waits on are a chunk long. The loops are
 * banded_chunk_local's and banded_chunk_finish's, unrolled over the registers. */
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

/* The shared memory of a block of w systems: every chunk's carry coefficients (chunk_back), the
 * slots of every chunk of the w systems, each with a scanning kernel's padding (chunk_lane_pad),
 * then lambda and x_b (H each a system). */
static size_t chunked_shared_bytes(const banded_view *v, int w)
{
    const int pad = chunk_lane_pad_doubles(banded_chunk_lanes(v, v->h, v->border));
    return (size_t)(3 * v->h * v->h * v->n_chunk + 2 * v->h * v->n_chunk * w + 2 * pad +
                    2 * v->h * w) *
           sizeof(double);
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

/* Thread t of a block takes chunk t >> w_shift of system t & (w - 1) of the block's w; group g of
 * the launch (blockIdx.y) solves the systems at u + g * group_stride. Where a warp scans a
 * system's carries (LANES > 1: banded_chunk_lanes), the block is rounded up to whole warps, whose
 * threads past the last chunk only help with the carries; else the thread of a system's first
 * chunk walks them. The rows stream past L1 (ld.global.cg), which keeps the factor rows the sweeps
 * read; the carry coefficients are copied to shared memory, where the carries find each in a few
 * cycles. */
template <int H, int BORDER, int LANES>
__global__ void __launch_bounds__(CHUNK_BLOCK_THREADS)
    banded_chunked_kernel(banded_view v, double *u, int64_t ld, int64_t m0, int64_t count,
                          int64_t group_stride, int w_shift)
{
    extern __shared__ double chunk_shared[];
    const int w = 1 << w_shift, g = threadIdx.x & (w - 1), c = threadIdx.x >> w_shift;
    const bool chunk = LANES == 1 || c < v.n_chunk; /* always so without the rounding */
    const int64_t m = (int64_t)blockIdx.x * w + g;
    const bool member = m < count && chunk;
    double *block_u = u + blockIdx.y * group_stride + m0;
    double *sys = block_u + (LANES > 1 || member ? m : 0); /* only members read it */
    enum { PAD = chunk_lane_pad_doubles(LANES) };
    const int pad = chunk ? chunk_lane_pad<LANES>(v, c) : 0;
    double *back = chunk_shared, *tips = back + 3 * H * H * v.n_chunk + PAD + g;
    double *lambda = tips + 2 * H * v.n_chunk * w + PAD, *xb_shared = lambda + H * w;
    if (g == 0 && chunk)
#pragma unroll
        for (int k = 0; k < 3 * H * H; ++k)
            back[c * 3 * H * H + pad + k] = v.chunk_back[c * 3 * H * H + k];
    const int64_t start = chunk ? banded_chunk_start(&v, c) : 0;
    const int len = chunk ? (int)(banded_chunk_end(&v, c) - start) : 0;
    double x[CHUNK_ROWS];
    if (member) {
#pragma unroll
        for (int i = 0; i < CHUNK_ROWS; ++i)
            if (i < len) x[i] = __ldcg(sys + (start + i) * ld);
        chunk_first_pass<H>(v.coef + start * (2 * H + 1), len, x,
                            tips + banded_chunk_slot(H, c, 0, w) + pad, w,
                            BORDER && c == v.n_chunk - 1 ? lambda : nullptr);
    }
    __syncthreads();
    if constexpr (LANES > 1) {
        const int64_t first = (int64_t)blockIdx.x * w;
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
    if (member) {
        const double *coef = v.coef + start * (2 * H + 1), *fwd = v.chunk_fwd + start * H;
        chunk_second_pass<H, BORDER>(coef, fwd, v.spike + start * BORDER, len, x,
                                     tips + banded_chunk_slot(H, c, 0, w) + pad, w, xb,
                                     sys + start * ld, ld);
    }
}

typedef void (*chunked_kernel_fn)(banded_view, double *, int64_t, int64_t, int64_t, int64_t, int);

static chunked_kernel_fn chunked_kernel_for(const banded_view *v)
{
    if (banded_chunk_lanes(v, v->h, v->border) > 1)
        return v->border ? banded_chunked_kernel<1, 1, BANDED_CHUNK_LANES>
                         : banded_chunked_kernel<1, 0, BANDED_CHUNK_LANES>;
    if (v->h == 1)
        return v->border ? banded_chunked_kernel<1, 1, 1> : banded_chunked_kernel<1, 0, 1>;
    return v->border ? banded_chunked_kernel<2, 2, 1> : banded_chunked_kernel<2, 0, 1>;
}

extern "C" int cohort_cuda_banded_chunk_width(const banded_view *v)
{
    if (v->n_chunk < 1 || v->n_chunk > CHUNK_BLOCK_THREADS) return 0;
    int w = 1;
    while (2 * w <= CHUNK_MAX_WIDTH && 2 * w * v->n_chunk <= CHUNK_BLOCK_THREADS) w *= 2;
    return w;
}

int banded_chunked_auto(const banded_view *v)
{
    const int w = cohort_cuda_banded_chunk_width(v);
    if (w == 0 || v->h == 1) return w > 0;
    return v->n >= CHUNK_AUTO_MIN_N_PENTA &&
           w >= (v->border ? CHUNK_AUTO_MIN_WIDTH_PERIODIC : CHUNK_AUTO_MIN_WIDTH_PENTA);
}

int banded_chunked_launch(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                          int64_t groups, int64_t group_stride)
{
    int w = cohort_cuda_banded_chunk_width(v);
    if (w == 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "n = %lld rows make %d chunks of %d; the chunked solve takes at most %d",
                           (long long)v->n, v->n_chunk, BANDED_CHUNK_ROWS, CHUNK_BLOCK_THREADS);
    while (w > 1 && w / 2 >= count) w /= 2; /* no block of idle systems; changes no bits */
    int w_shift = 0;
    while ((1 << w_shift) < w) ++w_shift;
    const int threads = banded_chunk_lanes(v, v->h, v->border) > 1
                            ? (w * v->n_chunk + 31) / 32 * 32 /* whole warps: they shuffle */
                            : w * v->n_chunk;
    const size_t smem = chunked_shared_bytes(v, w);
    const chunked_kernel_fn kernel = chunked_kernel_for(v);
    if (smem > 48 * 1024)
        COHORT_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    for (int64_t g0 = 0; g0 < groups; g0 += 65535) {
        const unsigned gy = (unsigned)(groups - g0 < 65535 ? groups - g0 : 65535);
        const dim3 grid((unsigned)((count + w - 1) / w), gy);
        kernel<<<grid, threads, smem>>>(*v, u + g0 * group_stride, ld, m0, count, group_stride,
                                        w_shift);
        COHORT_CUDA_CHECK_LAUNCH("banded_chunked_kernel");
    }
    return COHORT_OK;
}
