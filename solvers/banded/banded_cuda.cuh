/* The banded solver's CUDA internals shared with modules that fuse a right-hand side into the
 * solve (C++, for .cu files): the tile constants, the staging of a tile of rows into shared
 * memory, and the WARP path's persistent warp-tile kernel, generic over the right-hand side it
 * computes inside its forward sweep (banded_cuda.cu instantiates it for the solve alone,
 * models/model1d/model1d_cuda.cu for the fused 1D step). */
#ifndef COHORT_BANDED_CUDA_CUH
#define COHORT_BANDED_CUDA_CUH

#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "backend/backend_cuda.h"
#include "backend/cuda_check.cuh"
#include "banded/banded_numerics.h"

enum {
    TILE_THREADS = BANDED_TILE_THREADS, /* at most (members per tile) x (segments per member) */
    TILE_MIN_WIDTH = 1, /* one member a tile: a long system's segments are its threads */
    TILE_CHUNK = 8      /* rows whose loads are issued together in a sweep */
};
static const size_t TILE_DEFAULT_BYTES = BANDED_TILE_BYTES;
/* The chunked solve: a block holds every chunk of its systems, as many systems (a power of two,
 * at most CHUNK_MAX_WIDTH) as CHUNK_BLOCK_THREADS threads hold: the wider the block, the fewer
 * chunks a warp spans and the fewer factor rows each of its loads touches. At most
 * CHUNK_BLOCK_THREADS chunks a system (n_band <= 16,384 rows). AUTO takes it where the system's
 * form is chunked (banded_form_of). From CHUNK_STAGE_MIN_CHUNKS chunks a system, each block copies
 * the factor's rows to shared memory once and solves block after block of systems
 * (banded_chunked_cuda.cu; below it, one block of systems a block reading the rows through L1
 * was faster: PERFORMANCE.md, "The chunked solve's factor in shared memory"). */
enum {
    CHUNK_BLOCK_THREADS = BANDED_CHUNK_BLOCK_THREADS,
    CHUNK_MAX_WIDTH = BANDED_CHUNK_MAX_WIDTH,
    CHUNK_STAGE_MIN_CHUNKS = 48
};

/* The CHUNKED path (banded_chunked_cuda.cu): groups x count systems, those of group g at
 * u + g * group_stride. */
int banded_chunked_launch(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                          int64_t groups, int64_t group_stride);
/* The warp tiles: each warp solves a tile of a warp's width of systems, or half of it for long
 * systems (narrower tiles lose to the separate kernels in bench-model1d); WARP_DEFAULT_BYTES per
 * tile leaves room for three tiles and the factor in a block; at most WARP_MAX_WARPS tiles per
 * block. */
enum {
    WARP_MAX_WIDTH = 32,
    WARP_MIN_WIDTH = BANDED_WARP_MIN_WIDTH,
    WARP_MAX_WARPS = 8,
    WARP_SCHEDULERS = 4
};
static const size_t WARP_DEFAULT_BYTES = BANDED_WARP_TILE_BYTES;

/* Where row i of member g lives in a tile of w members per row: member fastest, plus one empty
 * row after each of the first last_seg segments of 1 << seg_shift rows, so that threads sweeping
 * different segments at the same offset (a warp spans several segments when the tile is narrower
 * than 32 members) hit different banks; last_seg = 0: no padding. */
__device__ __forceinline__ int tile_slot(int i, int g, int w, int seg_shift, int last_seg)
{
    const int seg = i >> seg_shift;
    return (i + (seg < last_seg ? seg : last_seg)) * w + g;
}

/* Issues the copies that stage rows [0, rows) of members [0, width) of base (leading dimension
 * ld) into a tile of w = 1 << w_shift members per row laid out as tile_slot; thread t of
 * `threads` takes every threads-th pair. The caller commits, waits and synchronises. Pairs of
 * members go in 16-byte copies that bypass L1 (cp.async.cg), so that the streaming tile does not
 * evict the factor rows the sweeps read through L1; 8-byte copies (cp.async.ca) where a pair is
 * not 16-byte aligned (odd ld, or a first member off a 16-byte boundary: an odd member, or a 2D
 * line group at an odd offset) or is cut by the end. An unpadded, aligned, full tile whose rows
 * the threads cover in whole steps takes a loop of one copy and two additions per pair.
 * WIDTH > 0: the tile holds WIDTH members a row instead, an even constant that need not be a
 * power of two (w_shift is not read), and each pair's row and member come from its index by a
 * division by the constant WIDTH / 2. */
template <int WIDTH = 0>
__device__ __forceinline__ void tile_stage_issue(double *tile, const double *base, int64_t ld,
                                                 int rows, int w_shift, int width, int seg_shift,
                                                 int last_seg, int t, int threads)
{
    static_assert(WIDTH % 2 == 0, "pairs of members");
    if (WIDTH == 0 && w_shift == 0) { /* one member: rows one by one (coalesced if contiguous) */
        for (int i = t; i < rows; i += threads)
            __pipeline_memcpy_async(tile + tile_slot(i, 0, 1, seg_shift, last_seg),
                                    base + (int64_t)i * ld, sizeof(double));
        return;
    }
    const int w = WIDTH ? WIDTH : 1 << w_shift, half = w >> 1;
    const int aligned = (ld & 1) == 0 && ((uintptr_t)base & 15u) == 0;
    if (last_seg == 0 && aligned && width == w && threads % half == 0) {
        const int step = threads / half; /* rows per pass of the threads */
        int i = t / half;
        const int g = (t % half) * 2;
        unsigned dst = (unsigned)__cvta_generic_to_shared(tile + i * w + g);
        const double *src = base + (int64_t)i * ld + g;
        for (; i < rows; i += step, dst += step * w * sizeof(double), src += step * ld)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
        return;
    }
    for (int idx = t; idx < (WIDTH ? rows * half : rows << (w_shift - 1)); idx += threads) {
        const int i = WIDTH ? idx / half : idx >> (w_shift - 1);
        const int g = (WIDTH ? idx % half : idx & (half - 1)) * 2;
        double *dst = tile + tile_slot(i, g, w, seg_shift, last_seg);
        const double *src = base + (int64_t)i * ld + g;
        if (aligned && g + 1 < width) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(
                             (unsigned)__cvta_generic_to_shared(dst)),
                         "l"(src));
        } else {
            if (g < width) __pipeline_memcpy_async(dst, src, sizeof(double));
            if (g + 1 < width) __pipeline_memcpy_async(dst + 1, src + 1, sizeof(double));
        }
    }
}

/* ---- the WARP path: a persistent kernel of warp tiles ---- */

/* The right-hand side a warp tile computes inside its forward sweep, the policy Rhs of the
 * templates below:
 *   Rhs::SOLVE_ONLY          1: none, f = u (the banded solve alone);
 *   Rhs::RADIUS              f_i reads rows i - RADIUS .. i + RADIUS (a window in registers);
 *   Rhs::AHEAD               the forward sweep reads row i + AHEAD of u while it computes row i;
 *   Rhs::STORES_MEAN         1: the last step sums the values it stores, in row order, and leaves
 *                            their mean in stored_mean[m] (a constant, so that the solve that
 *                            does not pays nothing for it);
 *   rhs.prepared()           the policy as one member's sweep uses it (constants folded in);
 *   rhs.drift(x, n, w)       the member's drift, projected out (called where a mean is given);
 *   rhs.row_value(u, mu, drift)  a value of one row that f reads at several rows (the cubic),
 *                            carried in a second window beside c so that each row's is formed
 *                            once;
 *   rhs.point(c, e, mu, drift)  f_i from the window c and the row values' window e. */
template <int STORES> struct banded_warp_solve_policy {
    /* RADIUS and AHEAD as the 1D step's: the same split of the forward sweep into chunks and a
     * tail, the code measured in solvers/banded/PERFORMANCE.md */
    enum { SOLVE_ONLY = 1, RADIUS = 3, AHEAD = 4, STORES_MEAN = STORES };
    __device__ banded_warp_solve_policy prepared() const
    {
        return *this;
    }
    __device__ double drift(const double *, int, int) const
    {
        return 0.0;
    }
    __device__ double row_value(double, double, double) const
    {
        return 0.0;
    }
    __device__ double point(const double *, const double *, double, double) const
    {
        return 0.0;
    }
};
typedef banded_warp_solve_policy<0> banded_warp_solve_only;
typedef banded_warp_solve_policy<1> banded_warp_solve_mean; /* each solution's mean too */

/* The factor's rows in a warp-tile block's shared memory: 2h + 1 coefficients padded to an even
 * count, so that every row starts 16 bytes aligned and its pairs load as one. */
__host__ __device__ constexpr int banded_warp_row_doubles(int h)
{
    return 2 * h + 2;
}

/* dst[k - FIRST] = row[k], k = FIRST .. LAST, row 16-byte aligned in shared memory: the pairs that
 * start at an even k as one 16-byte load. */
template <int FIRST, int LAST>
__device__ __forceinline__ void banded_warp_load_row(double *dst, const double *row)
{
#pragma unroll
    for (int k = FIRST; k <= LAST; ++k) {
        if (k % 2 == 0 && k < LAST) { /* a pair's first: both */
            const double2 pair = *reinterpret_cast<const double2 *>(row + k);
            dst[k - FIRST] = pair.x, dst[k + 1 - FIRST] = pair.y;
        } else if (k % 2 == 0 || k == FIRST) { /* alone (a pair's second was loaded with it) */
            dst[k - FIRST] = row[k];
        }
    }
}

/* Where a warp tile's sweeps read the factor (the policy Factor of the templates below): the
 * block's copy of one shared factor in shared memory, its rows banded_warp_row_doubles apart
 * (banded_warp_shared_factor), or each member's own in device memory (banded_warp_own_factor,
 * banded_view.member_factor), its values cs apart, a warp's members' values side by side:
 *   row(i)              row i's coefficients (band rows, i < n_band), spike_row(i) its spike's;
 *   load<FIRST, LAST>(dst, row)  dst[k - FIRST] = coefficient k of the row, k = FIRST .. LAST;
 *   border()            the border blocks (banded_numerics.h). */
template <int H> struct banded_warp_shared_factor {
    const double *coef, *spike;
    const banded_view *v;
    __device__ const double *row(int i) const
    {
        return coef + i * banded_warp_row_doubles(H);
    }
    __device__ const double *spike_row(int i, int border) const
    {
        return spike + i * border;
    }
    template <int FIRST, int LAST> __device__ void load(double *dst, const double *row) const
    {
        banded_warp_load_row<FIRST, LAST>(dst, row);
    }
    __device__ banded_border_blocks border() const
    {
        return banded_border_shared(v);
    }
};

template <int H> struct banded_warp_own_factor {
    const double *coef, *spike; /* member m's: member_factor + m, and its spike's first value */
    int64_t cs;
    const banded_view *v;
    int64_t m;
    __device__ banded_warp_own_factor(const banded_view *view, int64_t member)
        : coef(view->member_factor + member),
          spike(view->member_factor + member + banded_member_spike_at(view) * view->member_ld),
          cs(view->member_ld), v(view), m(member)
    {
    }
    __device__ const double *row(int i) const
    {
        return coef + (int64_t)i * (2 * H + 1) * cs;
    }
    __device__ const double *spike_row(int i, int border) const
    {
        return spike + (int64_t)i * border * cs;
    }
    template <int FIRST, int LAST> __device__ void load(double *dst, const double *row) const
    {
#pragma unroll
        for (int k = FIRST; k <= LAST; ++k) dst[k - FIRST] = __ldg(row + k * cs);
    }
    __device__ banded_border_blocks border() const
    {
        return banded_border_of_member(v, m);
    }
};

/* The store that ends banded_warp_member_step: x_t = p - Q x_b from p in the rows of column x
 * (x[i * W]) and the border's x_b, stored once into dst (leading dimension ld) or, on_chip, back
 * over the column, each row after the rows ahead of it were read; with sum_stored, the stored
 * values summed in row order, and their mean returned (else 0). */
template <int BORDER, int W, class Factor>
__device__ __forceinline__ double banded_warp_store(const banded_view &v, const Factor &fac,
                                                    double *x, double *dst, int64_t ld, int on_chip,
                                                    int sum_stored)
{
    const int n = (int)v.n, nb = (int)v.n_band;
    double stored = 0.0;
    auto store = [&](int row, double value) {
        if (on_chip)
            x[row * W] = value;
        else
            __stcs(dst + row * ld, value);
        if (sum_stored) stored += value;
    };
    double xb[BANDED_MAX_HALF_BANDWIDTH] = {0.0};
    banded_border_solve_at(&v, fac.border(), BORDER, x, W, xb);
    double p[TILE_CHUNK], q_row[TILE_CHUNK][BORDER > 0 ? BORDER : 1];
    auto store_load = [&](int row0) {
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            p[q] = x[(row0 + q) * W];
            if (BORDER > 0)
                fac.template load<0, (BORDER > 0 ? BORDER : 1) - 1>(
                    q_row[q], fac.spike_row(row0 + q, BORDER));
        }
    };
    int i = 0;
    if (TILE_CHUNK <= nb) store_load(0);
    for (; i + TILE_CHUNK <= nb; i += TILE_CHUNK) {
        double value[TILE_CHUNK];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q)
            value[q] = banded_border_correct(q_row[q], BORDER, p[q], xb);
        if (i + 2 * TILE_CHUNK <= nb) store_load(i + TILE_CHUNK);
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) store(i + q, value[q]);
    }
    for (; i < nb; ++i) {
        double q_tail[BORDER > 0 ? BORDER : 1];
        if (BORDER > 0)
            fac.template load<0, (BORDER > 0 ? BORDER : 1) - 1>(q_tail, fac.spike_row(i, BORDER));
        store(i, banded_border_correct(q_tail, BORDER, x[i * W], xb));
    }
    for (int j = 0; j < BORDER; ++j) store(nb + j, xb[j]);
    return stored / (double)n;
}

/* One system, by one thread, on its column x[i * W] of a tile of W members a row in shared memory
 * (W a constant, so that the rows' offsets are too) holding all n
 * rows of u (each value of u read from device memory once; each value of out written once), with
 * the member's mean mu and its drift (the caller's: rhs.drift of the column, or what the step
 * before returned): the forward sweep, which computes f_i from a register window of u as it goes
 * and writes y_i over u_i (the window's next row, i + AHEAD, is read before row i + AHEAD is
 * written; rows 0..AHEAD-1, needed again at the periodic end, are kept in registers); the
 * backward sweep, writing p = T^{-1} f over y; the periodic border from p; and the store of
 * x = p - Q x_b, into dst (device memory, leading dimension ld) or, on_chip, back over the
 * column, where the next step finds it. The arithmetic is the policy's point and
 * banded_system_solve's, in their order, so the result is the separate right-hand-side kernel's
 * followed by the portable solve's, bit for bit. coef and spike are the copies in shared memory
 * of v's (coef's rows banded_warp_row_doubles apart). A right-hand side needs n >= 2 RADIUS + 1
 * (the window must not wrap onto itself). BORDER = 0: plain; BORDER = H: periodic. Returns, with
 * sum_stored, the mean of the values stored, summed in row order as they are stored: rhs.drift of
 * the new column, bit for bit, without reading it again (else 0). */
template <int H, int BORDER, int W, class Rhs, class Factor>
__device__ __forceinline__ double banded_warp_member_step(const Rhs &rhs, const banded_view &v,
                                                          const Factor &fac, double *x, double *dst,
                                                          int64_t ld, int on_chip, double mu,
                                                          double drift, int sum_stored)
{
    enum { AHEAD = Rhs::AHEAD, WINDOW = 2 * Rhs::RADIUS + 1, SOLVE_ONLY = Rhs::SOLVE_ONLY };
    const Rhs r = rhs.prepared();
    const int n = (int)v.n, nb = (int)v.n_band;
    double c[WINDOW] = {0.0}, e[WINDOW] = {0.0}, head[AHEAD] = {0.0};
    double carry[BANDED_MAX_CARRY] = {0.0};
    if (!SOLVE_ONLY) {
        for (int k = 0; k < WINDOW; ++k) {
            c[k] = x[((k - Rhs::RADIUS + n) % n) * W];
            e[k] = r.row_value(c[k], mu, drift);
        }
        for (int k = 0; k < AHEAD; ++k) head[k] = x[k * W];
    }
    /* With a few warps per SM nothing but the thread's own instructions hides a latency, so each
     * sweep reads its operands a chunk of TILE_CHUNK rows ahead: the window's rows and the
     * factor's before the forward chunk, whose right-hand sides overlap them; the next chunk's
     * before the current one in the backward sweep and the store. */
    auto forward_row = [&](int i, double cur, double next, const double *lower, bool band) {
        const double f = SOLVE_ONLY ? cur : r.point(c, e, mu, drift);
        if (band) {
            const double y = banded_forward_value(lower, H, f, carry);
            banded_carry_push(carry, H, y);
            x[i * W] = y;
        } else {
            x[i * W] = f; /* the border rows keep their right-hand sides d_b */
        }
        for (int k = 0; k < WINDOW - 1; ++k) c[k] = c[k + 1], e[k] = e[k + 1];
        c[WINDOW - 1] = next;
        e[WINDOW - 1] = r.row_value(next, mu, drift);
    };
    int i = 0;
    for (; i + TILE_CHUNK <= n - AHEAD; i += TILE_CHUNK) { /* rows < n - AHEAD <= nb: band rows */
        double cur[TILE_CHUNK], next[TILE_CHUNK], lower[TILE_CHUNK][H];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            cur[q] = x[(i + q) * W]; /* f itself when SOLVE_ONLY (else unused and dropped) */
            next[q] = x[(i + AHEAD + q) * W];
            fac.template load<0, H - 1>(lower[q], fac.row(i + q));
        }
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) forward_row(i + q, cur[q], next[q], lower[q], true);
    }
    double lower_tail[H];
    for (; i < n - AHEAD; ++i) {
        fac.template load<0, H - 1>(lower_tail, fac.row(i));
        forward_row(i, x[i * W], x[(i + AHEAD) * W], lower_tail, true);
    }
    for (; i < n; ++i) {
        if (i < nb) fac.template load<0, H - 1>(lower_tail, fac.row(i));
        forward_row(i, x[i * W], head[0], lower_tail, i < nb);
        for (int k = 0; k < AHEAD - 1; ++k) head[k] = head[k + 1];
    }

    /* backward: chunk [top - TILE_CHUNK + 1, top] from its loaded y and upper_k, 1/pivot */
    for (int k = 0; k < BANDED_MAX_CARRY; ++k) carry[k] = 0.0;
    double y[TILE_CHUNK], upper[TILE_CHUNK][2 * H + 1]; /* [k] = coef entry k, k >= H used */
    auto backward_load = [&](int top) {
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            y[q] = x[(top - q) * W];
            fac.template load<H, 2 * H>(upper[q] + H, fac.row(top - q));
        }
    };
    auto backward_row = [&](int row, double yi, const double *coef_row) {
        const double p = banded_backward_value(coef_row, H, yi, carry);
        banded_carry_push(carry, H, p);
        x[row * W] = p;
    };
    i = nb - 1;
    if (i >= TILE_CHUNK - 1) backward_load(i);
    for (; i >= TILE_CHUNK - 1; i -= TILE_CHUNK) {
        double y_cur[TILE_CHUNK], upper_cur[TILE_CHUNK][2 * H + 1];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            y_cur[q] = y[q];
            for (int k = H; k <= 2 * H; ++k) upper_cur[q][k] = upper[q][k];
        }
        if (i - TILE_CHUNK >= TILE_CHUNK - 1) backward_load(i - TILE_CHUNK); /* rows not written */
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) backward_row(i - q, y_cur[q], upper_cur[q]);
    }
    for (; i >= 0; --i) {
        double upper_tail[2 * H + 1];
        fac.template load<H, 2 * H>(upper_tail + H, fac.row(i));
        backward_row(i, x[i * W], upper_tail);
    }
    return banded_warp_store<BORDER, W>(v, fac, x, dst, ld, on_chip, sum_stored); /* x_t */
}

/* The doubles of the factor a warp-tile block keeps in shared memory, before its tiles: rounded up
 * to a pair so that the tiles stay 16-byte aligned. */
__host__ __device__ inline int banded_warp_factor_doubles(const banded_view &v)
{
    if (v.member_factor) return 0; /* each member's own, read from device memory */
    const int words = (int)v.n_band * banded_warp_row_doubles(v.h) + (int)v.n_band * v.border;
    return (words + 1) & ~1;
}

/* A persistent kernel: each block copies the factor rows into shared memory once, then each of its
 * warps takes tiles of W members in turn, stages all their rows in its own part of
 * shared memory (cp.async), and solves them (with their right-hand sides), one thread per member,
 * `steps` times over: the steps before the last leave each member's state in the tile (a thread
 * reads and writes its own column only), so device memory is read once and written once for all
 * of them, and the result is that of `steps` launches bit for bit. With Rhs::STORES_MEAN (groups =
 * 1), the last step also sums the values it stores in row order and leaves their mean in
 * stored_mean[m]: field_member_mean of the member's result, bit for bit, without reading it again.
 * The warps of a block run out of step, so one warp's staging overlaps another's sweeps, and the
 * factor rows every sweep reads come from shared memory (read through L1, they waited hundreds of
 * cycles per chunk on L2 behind the streaming tiles: ncu, long-scoreboard stalls). */
template <int H, int BORDER, int W, class Rhs, int OWN>
__device__ __forceinline__ void
banded_warp_tile_body(const Rhs &rhs, const banded_view &v, const double *u, double *out,
                      const double *__restrict__ mean, int64_t ld, int64_t m0, int64_t count,
                      int64_t groups, int64_t group_stride, int steps,
                      double *__restrict__ stored_mean)
{
    static_assert(W % 2 == 0 && W >= WARP_MIN_WIDTH && W <= WARP_MAX_WIDTH,
                  "tiles of an even count of members, half a warp to a warp");
    extern __shared__ __align__(16) double smem[];
    const int n = (int)v.n, nb = (int)v.n_band;
    const int warps = blockDim.x >> 5, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    enum { ROW = banded_warp_row_doubles(H) };
    double *coef = smem, *spike = coef + nb * ROW; /* nb * ROW even: spike's rows aligned */
    for (int k = threadIdx.x; !OWN && k < nb * ROW; k += blockDim.x)
        coef[k] = k % ROW < 2 * H + 1 ? v.coef[k / ROW * (2 * H + 1) + k % ROW] : 0.0;
    for (int k = threadIdx.x; !OWN && k < nb * BORDER; k += blockDim.x) spike[k] = v.spike[k];
    __syncthreads();
    const banded_warp_shared_factor<H> shared_factor = {coef, spike, &v};
    double *tile = smem + banded_warp_factor_doubles(v) + (size_t)warp * n * W;
    /* tiles a group, by a shift where W is a power of two */
    const int64_t tiles = W == 32   ? (count + 31) >> 5
                          : W == 16 ? (count + 15) >> 4
                                    : (count + W - 1) / W;
    for (int64_t t = (int64_t)blockIdx.x * warps + warp; t < tiles * groups;
         t += (int64_t)gridDim.x * warps) {
        const int64_t group = t / tiles, first = m0 + (t - group * tiles) * W;
        const int width = (int)(m0 + count - first < W ? m0 + count - first : W);
        const int64_t offset = group * group_stride + first;
        /* a power of two by its shift, as the tiled path stages its tiles */
        tile_stage_issue<(W & (W - 1)) ? W : 0>(tile, u + offset, ld, n, W == 32 ? 5 : 4, width, 30,
                                                0, lane, 32);
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncwarp();
        if (lane < width) {
            const int64_t m = first + lane;
            const double mu = mean ? mean[m] : 0.0;
            /* the drift of each step after the first: the mean of what the step before stored,
             * summed as it stored it */
            double drift = mean ? rhs.drift(tile + lane, n, W) : 0.0;
            /* the steps with the member's factor: the block's shared one, or its own */
            auto steps_with = [&](const auto &fac) {
                for (int s = 1; s < steps; ++s) {
                    const double next = banded_warp_member_step<H, BORDER, W>(
                        rhs, v, fac, tile + lane, NULL, 0, 1, mu, drift, mean != NULL);
                    if (mean) drift = next;
                }
                return banded_warp_member_step<H, BORDER, W>(rhs, v, fac, tile + lane,
                                                             out + offset + lane, ld, 0, mu, drift,
                                                             Rhs::STORES_MEAN);
            };
            double last;
            if constexpr (OWN)
                last = steps_with(banded_warp_own_factor<H>(&v, m));
            else
                last = steps_with(shared_factor);
            if (Rhs::STORES_MEAN) stored_mean[m] = last;
        }
        __syncwarp(); /* the tile is free for the next stage */
    }
}

template <int H, int BORDER, int W, class Rhs, int OWN>
__global__ void __launch_bounds__(32 * WARP_MAX_WARPS)
    banded_warp_kernel(Rhs rhs, banded_view v, const double *u, double *out, const double *mean,
                       int64_t ld, int64_t m0, int64_t count, int64_t groups, int64_t group_stride,
                       int steps, double *stored_mean)
{
    banded_warp_tile_body<H, BORDER, W, Rhs, OWN>(rhs, v, u, out, mean, ld, m0, count, groups,
                                                  group_stride, steps, stored_mean);
}

template <class Rhs>
using banded_warp_kernel_fn = void (*)(Rhs, banded_view, const double *, double *, const double *,
                                       int64_t, int64_t, int64_t, int64_t, int64_t, int, double *);

/* The tile widths a warp-tile kernel is built for, widest first. The solve alone, and one fused
 * 1D step a launch, stream their tiles through device memory and take a warp or half
 * (banded_warp_width_for); the fused steps on chip are bound by their instructions and take
 * banded_warp_width_on_chip's. */
template <int... WIDTHS> struct banded_warp_widths {
};
typedef banded_warp_widths<WARP_MAX_WIDTH, WARP_MIN_WIDTH> banded_warp_solve_widths;

/* The warp-tile kernel for tiles of `width` members, one of WIDTHS, or NULL; OWN: for members
 * with factors of their own (banded_view.member_factor). */
template <int H, int BORDER, class Rhs, int OWN = 0, int W, int... REST>
static banded_warp_kernel_fn<Rhs> banded_warp_kernel_for(banded_warp_widths<W, REST...>, int width)
{
    if (width == W) return banded_warp_kernel<H, BORDER, W, Rhs, OWN>;
    if constexpr (sizeof...(REST) > 0)
        return banded_warp_kernel_for<H, BORDER, Rhs, OWN>(banded_warp_widths<REST...>(), width);
    return NULL;
}

/* The tiles of `width` members a warp-tile block of v holds beside the factor: at most
 * WARP_MAX_WARPS, 0 where none fits. */
static inline int banded_warp_tiles_a_block(const banded_view *v, int width)
{
    const size_t factor = (size_t)banded_warp_factor_doubles(*v) * sizeof(double);
    const size_t tile = (size_t)banded_warp_tile_bytes(v, width);
    const size_t limit = cohort_cuda_shared_limit_bytes();
    if (factor >= limit) return 0;
    const size_t warps = (limit - factor) / tile;
    return warps > WARP_MAX_WARPS ? WARP_MAX_WARPS : (int)warps;
}

/* banded_warp_tiles_a_block where a tile of `width` members fits tile_bytes (0:
 * WARP_DEFAULT_BYTES), else 0. */
static inline int banded_warp_tiles_within(const banded_view *v, int width, size_t tile_bytes)
{
    return (size_t)banded_warp_tile_bytes(v, width) <=
                   (tile_bytes ? tile_bytes : WARP_DEFAULT_BYTES)
               ? banded_warp_tiles_a_block(v, width)
               : 0;
}

/* Systems per warp tile for v: the widest power of two from WARP_MAX_WIDTH down to WARP_MIN_WIDTH
 * whose tile fits tile_bytes (0: WARP_DEFAULT_BYTES) and, with the factor, one block; 0 where
 * none does. */
static inline int banded_warp_width_for(const banded_view *v, size_t tile_bytes)
{
    for (int width = WARP_MAX_WIDTH; width >= WARP_MIN_WIDTH; width /= 2)
        if (banded_warp_tiles_within(v, width, tile_bytes) > 0) return width;
    return 0;
}

/* Of WIDTHS (widest first), for tiles that stay on chip over many steps: the widest whose tiles
 * fit tile_bytes (0: WARP_DEFAULT_BYTES) and put a warp on each of an SM's WARP_SCHEDULERS
 * schedulers (a block of that many tiles); where none does, the one whose block holds the most
 * members of v, the wider on a tie; 0 where no tile fits. */
template <int... WIDTHS>
static int banded_warp_width_on_chip(const banded_view *v, size_t tile_bytes,
                                     banded_warp_widths<WIDTHS...>)
{
    static const int widths[] = {WIDTHS...};
    int best = 0, best_members = 0;
    for (int width : widths) {
        const int tiles = banded_warp_tiles_within(v, width, tile_bytes);
        if (tiles >= WARP_SCHEDULERS) return width;
        if (tiles * width > best_members) best = width, best_members = tiles * width;
    }
    return best;
}

/* Launches a warp-tile kernel for v with tiles of `width` members, `steps` steps in the tiles: as
 * many warps per block as tiles fit beside the factor (at most WARP_MAX_WARPS), as many blocks as
 * stay resident (no more than there are tiles to take). out may be u (the solve in place);
 * stored_mean (groups = 1) where Rhs::STORES_MEAN, as the tile body's; on `stream` (0: the
 * default one). */
template <class Rhs>
static int banded_warp_launch(banded_warp_kernel_fn<Rhs> kernel, const Rhs &rhs,
                              const banded_view *v, const double *u, double *out,
                              const double *mean, int64_t ld, int64_t m0, int64_t count,
                              int64_t groups, int64_t group_stride, int width, int steps,
                              double *stored_mean, cudaStream_t stream = 0)
{
    const int warps = banded_warp_tiles_a_block(v, width);
    const size_t bytes = (size_t)banded_warp_factor_doubles(*v) * sizeof(double) +
                         (size_t)warps * (size_t)v->n * (size_t)width * sizeof(double);
    /* the launch shape of the previous call: a run launches the same one every step, so the
     * shared-memory attribute and the occupancy query are done when it changes only */
    static struct {
        banded_warp_kernel_fn<Rhs> kernel;
        size_t bytes;
        int warps, resident;
    } last = {NULL, 0, 0, 0};
    if (kernel != last.kernel || bytes != last.bytes || warps != last.warps) {
        int sm_count = 0, per_sm = 0;
        COHORT_CALL(cohort_cuda_sm_count(&sm_count));
        COHORT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)cohort_cuda_shared_limit_bytes()));
        COHORT_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * warps, bytes));
        last.kernel = kernel, last.bytes = bytes, last.warps = warps;
        last.resident = (per_sm > 0 ? per_sm : 1) * sm_count;
    }
    const int64_t tiles = (count + width - 1) / width * groups;
    int64_t blocks = last.resident;
    if (blocks > (tiles + warps - 1) / warps) blocks = (tiles + warps - 1) / warps;
    kernel<<<(unsigned)blocks, (unsigned)(32 * warps), bytes, stream>>>(
        rhs, *v, u, out, mean, ld, m0, count, groups, group_stride, steps, stored_mean);
    COHORT_CUDA_CHECK_LAUNCH("banded_warp_kernel");
    return COHORT_OK;
}

#endif
