/* Per-system arithmetic of the shared-LHS banded solvers, written once for the OpenMP loops and the
 * CUDA kernels (COHORT_HD). A system is addressed as x[i*s] for row i: s = M for the interleaved
 * batch in device or host memory, s = tile width for a tile staged in shared memory.
 *
 * The factorisation (banded_factor.c) is Gaussian elimination without pivoting of the band
 * matrix T of half-bandwidth h (h = 1 tridiagonal, h = 2 pentadiagonal), T = L U with L unit
 * lower. Per row it stores lower_k = L(i, i-k), upper_k = U(i, i+k) / U(i, i) and 1 / U(i, i), so
 * a solve is multiplies and adds only:
 *     forward   y_i = d_i - sum_k lower_k(i) y_{i-k}
 *     backward  x_i = y_i / U(i,i) - sum_k upper_k(i) x_{i+k}
 * The seed's recurrences (003, eq. 1-6 and Sec. 4.1) are the cases h = 1 and h = 2 of this.
 *
 * A periodic (cyclic) system is bordered: the last h unknowns x_b close the cycle,
 *     [ T  B ] [x_t]   [d_t]
 *     [ C  D ] [x_b] = [d_b],
 * with the spikes Q = T^{-1} B and S^{-1} = (D - C Q)^{-1} precomputed once (O(N h) in total,
 * shared by all systems). Per system: p = T^{-1} d_t, x_b = S^{-1} (d_b - C p), x_t = p - Q x_b.
 * This is the Sherman-Morrison (h = 1) and rank-2 Woodbury (h = 2) correction written so that it
 * needs only p at the first and last h rows of T, which the backward sweep has just produced: the
 * correction folds into the pass that writes x, with no second sweep over the system. */
#ifndef COHORT_BANDED_NUMERICS_H
#define COHORT_BANDED_NUMERICS_H

#include <stddef.h>
#include <stdint.h>

#include "backend/cohort_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    BANDED_MAX_HALF_BANDWIDTH = 2,
    BANDED_MAX_BORDER_COLS = 2 * BANDED_MAX_HALF_BANDWIDTH,
    /* the reduced system of the partitioned solve couples segment tips with half-bandwidth 3h-1 */
    BANDED_MAX_CARRY = 3 * BANDED_MAX_HALF_BANDWIDTH - 1,
    /* rows of one system a thread of the chunked solve holds in registers */
    BANDED_CHUNK_ROWS = 32
};

/* What a solve needs, by value (it is a kernel parameter): sizes, the small border blocks, and
 * pointers to the O(N) factor arrays in the memory of the backend that solves. */
typedef struct banded_view {
    int64_t n;      /* unknowns per system */
    int64_t n_band; /* rows of T: n (plain) or n - h (periodic) */
    int h;          /* half-bandwidth: 1 tridiagonal, 2 pentadiagonal */
    int border;     /* 0 plain, h periodic */
    int n_border_cols;
    int64_t border_col[BANDED_MAX_BORDER_COLS]; /* columns < n_band where C has entries */
    double border_coef[BANDED_MAX_HALF_BANDWIDTH][BANDED_MAX_BORDER_COLS];  /* C at those cols */
    double schur_inv[BANDED_MAX_HALF_BANDWIDTH][BANDED_MAX_HALF_BANDWIDTH]; /* (D - C Q)^{-1} */
    const double *coef;  /* n_band rows of 2h+1: lower_1..h, upper_1..h, 1/pivot */
    const double *spike; /* n_band rows of `border`: Q = T^{-1} B */
    /* The partitioned form of T (SPIKE), for solvers that sweep segments in parallel: T is cut
     * into n_seg segments of seg_len rows (the last has what is left: 2h..seg_len rows, or
     * seg_len plus fewer than 2h); each diagonal
     * block D_p has its own LU; with the spikes V_p (D_p^{-1} times T's coupling to the next
     * segment's first h unknowns) and W_p (to the previous segment's last h unknowns),
     *     x_p = D_p^{-1} d_p - V_p top(x_{p+1}) - W_p bottom(x_{p-1}),
     * and those relations at the tips (the first and last h rows of every segment) form the
     * reduced system R z = tips(D^{-1} d), banded with half-bandwidth 3h - 1, unit diagonal.
     * n_seg = 0 where the partition does not exist (a block or R would need pivoting). */
    int seg_len, n_seg, red_h;
    int64_t red_n;           /* 2 h n_seg tips */
    const double *seg_coef;  /* n_band rows of 2h+1: the LU of each D_p, laid out as coef */
    const double *seg_spike; /* n_band rows of 2h: V (h columns) then W (h columns) */
    const double *red_coef;  /* red_n rows of 2 red_h + 1: the LU of R */
    /* set by banded_solver_prefer_partitioned: backends that solve a system with many threads
     * through the partition do so for every batch */
    int prefer_partitioned;
    /* The chunked (carry) form of T's LU, for solvers that hold a chunk of BANDED_CHUNK_ROWS rows
     * of one system in a thread's registers (banded_chunk_start). The forward sweep over chunk c
     * from the carry-in f_c (the last h values of y before it, f_c[0] the most recent) gives
     *     y_i = yhat_i + sum_k fwd_k(i) f_c[k],    f_{c+1} = phi_c + F_c f_c,
     * yhat and phi_c the sweep from a zero carry, F_c fwd at the chunk's last h rows (row j: y at
     * the chunk's row end - 1 - j).
     * The backward sweep from the carry-in g_c (the first h values of x after it) gives the
     * carry-out g_{c-1} = psi_c + A_c f_c + B_c g_c, psi_c from zero carries. Two recurrences
     * over the chunks of a system then give every chunk its carries, and each chunk finishes
     * alone: a solve reads and writes each value once with a thread a chunk. */
    int n_chunk;
    const double *chunk_fwd;  /* n_band rows of h: fwd_k(i) */
    const double *chunk_back; /* n_chunk blocks of 3 h^2: F_c, A_c, B_c, row-major [j][k] */
    /* periodic systems: x at row n_band - 1 - j of T depends on the last chunk's carry-in f as
     * lambda_j + sum_k chunk_bottom[j][k] f[k] (lambda from zero carries) */
    double chunk_bottom[BANDED_MAX_HALF_BANDWIDTH][BANDED_MAX_HALF_BANDWIDTH];
    /* A factor a member (banded_members.c), where member_factor is not NULL: member m solves with
     * its own coef, spike, border_coef and schur_inv, of the shape above (n, h, border, border_col
     * the same for every member), value j of its factor at member_factor[j * member_ld + m]
     * (banded_member_values: the coefficient rows, the spike's rows, then border_coef and
     * schur_inv as laid out above), so that the threads of a warp, one a member, read a row's
     * coefficients in one transaction. The sequential form only. */
    const double *member_factor;
    int64_t member_ld;
} banded_view;

/* Where a member's factor holds its spike, its border blocks, and how many values it has. */
COHORT_HD int64_t banded_member_spike_at(const banded_view *v)
{
    return v->n_band * (2 * v->h + 1);
}

COHORT_HD int64_t banded_member_border_at(const banded_view *v)
{
    return banded_member_spike_at(v) + v->n_band * v->border;
}

enum { BANDED_BORDER_COEF_VALUES = BANDED_MAX_HALF_BANDWIDTH * BANDED_MAX_BORDER_COLS };

COHORT_HD int64_t banded_member_values(const banded_view *v)
{
    return banded_member_border_at(v) +
           (v->border
                ? BANDED_BORDER_COEF_VALUES + BANDED_MAX_HALF_BANDWIDTH * BANDED_MAX_HALF_BANDWIDTH
                : 0);
}

/* ---- the form a solve takes: the same on both backends (one arithmetic) ----
 * The sequential sweeps, the partitioned form and the chunked form round differently, so a
 * system's form is decided from the system alone, by this rule, and both backends solve it in
 * that form: the cpu backend through the sequential forms below, the cuda backend through the
 * kernels of that form that fit the device (the WARP and PORTABLE kernels are sequential, TILED
 * and TILED_SHARED partitioned, CHUNKED chunked; banded_cuda.cu). The sizes are the kernels'
 * budgets, which fit every device cohort builds for (at least 99 KB of shared memory a block):
 *   partitioned where the caller prefers it (banded_solver_prefer_partitioned) and the system
 *     has segments that one tiled block of BANDED_TILE_BYTES holds;
 *   chunked where no warp tile of BANDED_WARP_MIN_WIDTH systems fits BANDED_WARP_TILE_BYTES and
 *     a block of the chunked kernel holds the system's chunks: tridiagonal systems, and
 *     pentadiagonal ones while a block holds at least BANDED_CHUNK_MIN_WIDTH_PENTA plain or
 *     BANDED_CHUNK_MIN_WIDTH_PERIODIC periodic systems (bench-banded on an H200, M = 2^16: at
 *     N = 768 chunked 0.45 and 0.54 ms, plain and periodic, against the sequential form's 0.75
 *     and 1.11; at N = 4096 plain, four systems a block, 4.42 against 4.06; docs/performance.md,
 *     "One arithmetic");
 *   sequential everywhere else. */
typedef enum banded_form {
    BANDED_FORM_SEQUENTIAL,
    BANDED_FORM_PARTITIONED,
    BANDED_FORM_CHUNKED
} banded_form;

enum {
    BANDED_TILE_THREADS = 256, /* a tiled block's threads: members x segments */
    BANDED_TILE_BYTES = 96 * 1024,
    BANDED_WARP_MIN_WIDTH = 16,
    BANDED_WARP_TILE_BYTES = 72 * 1024,
    BANDED_CHUNK_BLOCK_THREADS = 512, /* a chunked block's threads: systems x chunks */
    BANDED_CHUNK_MAX_WIDTH = 16,
    BANDED_CHUNK_MIN_WIDTH_PENTA = 8,
    BANDED_CHUNK_MIN_WIDTH_PERIODIC = 4
};

/* Systems a block of the chunked solve holds (a power of two, at most BANDED_CHUNK_MAX_WIDTH, as
 * many as BANDED_CHUNK_BLOCK_THREADS threads a chunk hold), 0 where one system does not fit. */
COHORT_HD int banded_chunk_width(const banded_view *v)
{
    if (v->n_chunk < 1 || v->n_chunk > BANDED_CHUNK_BLOCK_THREADS) return 0;
    int w = 1;
    while (2 * w <= BANDED_CHUNK_MAX_WIDTH && 2 * w * v->n_chunk <= BANDED_CHUNK_BLOCK_THREADS)
        w *= 2;
    return w;
}

/* Bytes of a tiled block's tile of `width` members: their rows, a padding row a segment, their
 * reduced right-hand sides and border values (the TILED kernels' shared memory). */
COHORT_HD int64_t banded_tile_bytes(const banded_view *v, int width)
{
    return ((v->n + v->n_seg) * width + (int64_t)width * v->red_n + (int64_t)width * v->border) *
           (int64_t)sizeof(double);
}

/* Bytes of a warp tile of `width` members: their rows (the WARP kernels' shared memory). */
COHORT_HD int64_t banded_warp_tile_bytes(const banded_view *v, int width)
{
    return v->n * width * (int64_t)sizeof(double);
}

COHORT_HD banded_form banded_form_of(const banded_view *v)
{
    if (v->member_factor) return BANDED_FORM_SEQUENTIAL; /* banded_members holds no other */
    if (v->prefer_partitioned && v->n_seg > 1 && v->n_seg <= BANDED_TILE_THREADS &&
        banded_tile_bytes(v, 1) <= BANDED_TILE_BYTES)
        return BANDED_FORM_PARTITIONED;
    const int warp_tile_fits =
        banded_warp_tile_bytes(v, BANDED_WARP_MIN_WIDTH) <= BANDED_WARP_TILE_BYTES;
    const int w = banded_chunk_width(v);
    const int chunked = w > 0 && (v->h == 1 || w >= (v->border ? BANDED_CHUNK_MIN_WIDTH_PERIODIC
                                                               : BANDED_CHUNK_MIN_WIDTH_PENTA));
    return !warp_tile_fits && chunked ? BANDED_FORM_CHUNKED : BANDED_FORM_SEQUENTIAL;
}

/* Forward elimination of one row of a band LU of half-bandwidth hb:
 *     y_i = d_i - sum_k lower_k(i) y_{i-k},   prev[k-1] = y_{i-k}.
 * The factor stores lower_k = 0 where i - k < 0, so the first rows need no special case when the
 * missing values are 0. The most recent value y_{i-1} is subtracted last: the chain from row to
 * row is one multiply-add. The tridiagonal and pentadiagonal sweeps of the seed (003, eq. 1-6 and
 * Sec. 4.1) are the cases hb = 1 and hb = 2. */
COHORT_HD double banded_forward_value_at(const double *coef_row, int64_t cs, int hb, double d,
                                         const double *prev)
{
    double acc = d;
    for (int k = hb; k >= 1; --k) acc = cohort_mul_add(-coef_row[(k - 1) * cs], prev[k - 1], acc);
    return acc;
}

/* The _at forms read a row's coefficients cs apart: 1 in a shared factor, member_ld in a
 * member's (banded_view.member_factor); the others are the shared factor's. */
COHORT_HD double banded_forward_value(const double *coef_row, int hb, double d, const double *prev)
{
    return banded_forward_value_at(coef_row, 1, hb, d, prev);
}

/* Back substitution of one row: x_i = y_i / U(i,i) - sum_k upper_k(i) x_{i+k}, next[k-1] =
 * x_{i+k}, with upper_k = 0 where i + k is past the last row. */
COHORT_HD double banded_backward_value_at(const double *coef_row, int64_t cs, int hb, double y,
                                          const double *next)
{
    double acc = y * coef_row[2 * hb * cs];
    for (int k = hb; k >= 1; --k)
        acc = cohort_mul_add(-coef_row[(hb + k - 1) * cs], next[k - 1], acc);
    return acc;
}

COHORT_HD double banded_backward_value(const double *coef_row, int hb, double y, const double *next)
{
    return banded_backward_value_at(coef_row, 1, hb, y, next);
}

/* The registers that carry the last hb values of a sweep: carry[0] is the most recent. */
COHORT_HD void banded_carry_push(double *carry, int hb, double value)
{
    for (int k = hb - 1; k >= 1; --k) carry[k] = carry[k - 1];
    carry[0] = value;
}

/* Solves a band LU (rows of 2hb+1 coefficients) in place on x[0], x[s], ..., carrying the
 * previous rows in registers. hb is passed as a literal by the callers so that the loops over k
 * unroll and the carries stay in registers. */
COHORT_HD void banded_band_solve_at(const double *coef, int64_t cs, int64_t rows, int hb, double *x,
                                    int64_t s)
{
    const int64_t stride = (2 * hb + 1) * cs;
    double carry[BANDED_MAX_CARRY] = {0.0};
    for (int64_t i = 0; i < rows; ++i) {
        const double y = banded_forward_value_at(coef + i * stride, cs, hb, x[i * s], carry);
        x[i * s] = y;
        banded_carry_push(carry, hb, y);
    }
    for (int k = 0; k < BANDED_MAX_CARRY; ++k) carry[k] = 0.0;
    for (int64_t i = rows - 1; i >= 0; --i) {
        const double xi = banded_backward_value_at(coef + i * stride, cs, hb, x[i * s], carry);
        x[i * s] = xi;
        banded_carry_push(carry, hb, xi);
    }
}

COHORT_HD void banded_band_solve(const double *coef, int64_t rows, int hb, double *x, int64_t s)
{
    banded_band_solve_at(coef, 1, rows, hb, x, s);
}

/* The border blocks a periodic system closes with: C at the border columns, bc[(j
 * BANDED_MAX_BORDER_COLS + c) cs], and S^{-1}, si[(j BANDED_MAX_HALF_BANDWIDTH + k) cs] (cs: 1 in
 * the view, member_ld in a member's factor). */
typedef struct banded_border_blocks {
    const double *bc, *si;
    int64_t cs;
} banded_border_blocks;

COHORT_HD banded_border_blocks banded_border_shared(const banded_view *v)
{
    banded_border_blocks b = {&v->border_coef[0][0], &v->schur_inv[0][0], 1};
    return b;
}

/* Member m's border blocks, from its factor (v->member_factor). */
COHORT_HD banded_border_blocks banded_border_of_member(const banded_view *v, int64_t m)
{
    const double *at = v->member_factor + banded_member_border_at(v) * v->member_ld + m;
    banded_border_blocks b = {at, at + BANDED_BORDER_COEF_VALUES * v->member_ld, v->member_ld};
    return b;
}

/* Periodic systems: the border unknowns x_b = S^{-1} (d_b - C p), from p at the border columns
 * (p_cols[c] = p[border_col[c]]) and the border rows' right-hand sides d_b. */
COHORT_HD void banded_border_values_at(const banded_view *v, banded_border_blocks b, int border,
                                       const double *p_cols, const double *d_b,
                                       double xb[BANDED_MAX_HALF_BANDWIDTH])
{
    double r[BANDED_MAX_HALF_BANDWIDTH];
    for (int j = 0; j < border; ++j) {
        double acc = d_b[j];
        for (int c = 0; c < v->n_border_cols; ++c)
            acc = cohort_mul_add(-b.bc[(j * BANDED_MAX_BORDER_COLS + c) * b.cs], p_cols[c], acc);
        r[j] = acc;
    }
    for (int j = 0; j < border; ++j) {
        double acc = 0.0;
        for (int k = 0; k < border; ++k)
            acc = cohort_mul_add(b.si[(j * BANDED_MAX_HALF_BANDWIDTH + k) * b.cs], r[k], acc);
        xb[j] = acc;
    }
}

COHORT_HD void banded_border_values(const banded_view *v, int border, const double *p_cols,
                                    const double *d_b, double xb[BANDED_MAX_HALF_BANDWIDTH])
{
    banded_border_values_at(v, banded_border_shared(v), border, p_cols, d_b, xb);
}

/* Periodic systems: x_i = p_i - (Q x_b)_i for a row i < n_band; q_row = spike + i * border (its
 * values cs apart). */
COHORT_HD double banded_border_correct_at(const double *q_row, int64_t cs, int border, double p_i,
                                          const double xb[BANDED_MAX_HALF_BANDWIDTH])
{
    for (int j = 0; j < border; ++j) p_i = cohort_mul_add(-q_row[j * cs], xb[j], p_i);
    return p_i;
}

COHORT_HD double banded_border_correct(const double *q_row, int border, double p_i,
                                       const double xb[BANDED_MAX_HALF_BANDWIDTH])
{
    return banded_border_correct_at(q_row, 1, border, p_i, xb);
}

/* Periodic systems, once p = T^{-1} d_t is in rows [0, n_band) of x: x_b from p and d_b. */
COHORT_HD void banded_border_solve_at(const banded_view *v, banded_border_blocks b, int border,
                                      const double *x, int64_t s,
                                      double xb[BANDED_MAX_HALF_BANDWIDTH])
{
    double p_cols[BANDED_MAX_BORDER_COLS], d_b[BANDED_MAX_HALF_BANDWIDTH];
    for (int c = 0; c < v->n_border_cols; ++c) p_cols[c] = x[v->border_col[c] * s];
    for (int j = 0; j < border; ++j) d_b[j] = x[(v->n_band + j) * s];
    banded_border_values_at(v, b, border, p_cols, d_b, xb);
}

COHORT_HD void banded_border_solve(const banded_view *v, int border, const double *x, int64_t s,
                                   double xb[BANDED_MAX_HALF_BANDWIDTH])
{
    banded_border_solve_at(v, banded_border_shared(v), border, x, s, xb);
}

/* The periodic closure of one system after its band solve: x_b, then x_t = p - Q x_b (spike's
 * values b.cs apart). */
COHORT_HD void banded_border_close_at(const banded_view *v, banded_border_blocks b,
                                      const double *spike, int border, double *x, int64_t s)
{
    double xb[BANDED_MAX_HALF_BANDWIDTH];
    banded_border_solve_at(v, b, border, x, s, xb);
    for (int64_t i = 0; i < v->n_band; ++i)
        x[i * s] = banded_border_correct_at(spike + i * border * b.cs, b.cs, border, x[i * s], xb);
    for (int j = 0; j < border; ++j) x[(v->n_band + j) * s] = xb[j];
}

COHORT_HD void banded_border_close(const banded_view *v, int border, double *x, int64_t s)
{
    banded_border_close_at(v, banded_border_shared(v), v->spike, border, x, s);
}

/* One whole system, in place: the portable path (and the reference for the fast paths). */
COHORT_HD void banded_system_solve(const banded_view *v, int h, int border, double *x, int64_t s)
{
    banded_band_solve(v->coef, v->n_band, h, x, s);
    if (border) banded_border_close(v, border, x, s);
}

/* Member m's system with its own factor (v->member_factor), in place: the same operations in the
 * same order as banded_system_solve with that factor shared, so the same bits. */
COHORT_HD void banded_member_system_solve(const banded_view *v, int h, int border, double *x,
                                          int64_t s, int64_t m)
{
    const int64_t cs = v->member_ld;
    const double *factor = v->member_factor + m;
    banded_band_solve_at(factor, cs, v->n_band, h, x, s);
    if (border)
        banded_border_close_at(v, banded_border_of_member(v, m),
                               factor + banded_member_spike_at(v) * cs, border, x, s);
}

/* ---- the partitioned (SPIKE) form: segment p covers rows [start, end) of T ---- */

COHORT_HD int64_t banded_segment_start(const banded_view *v, int p)
{
    return (int64_t)p * v->seg_len;
}

COHORT_HD int64_t banded_segment_end(const banded_view *v, int p)
{
    return p == v->n_seg - 1 ? v->n_band : (int64_t)(p + 1) * v->seg_len;
}

/* After the local solve of segment p (x at its first row, stride s): its tips into the reduced
 * right-hand side (stride ts), top tip k at 2hp + k and bottom tip k at 2hp + h + k. */
COHORT_HD void banded_segment_tips(const banded_view *v, int h, int p, const double *x, int64_t s,
                                   double *tips, int64_t ts)
{
    const int64_t len = banded_segment_end(v, p) - banded_segment_start(v, p);
    for (int k = 0; k < h; ++k) {
        tips[(2 * h * p + k) * ts] = x[k * s];
        tips[(2 * h * p + h + k) * ts] = x[(len - h + k) * s];
    }
}

/* After the reduced solve: the solved tips that segment p's correction needs, the next segment's
 * top (0 past the last) and the previous segment's bottom (0 before the first). */
COHORT_HD void banded_segment_neighbours(const banded_view *v, int h, int p, const double *tips,
                                         int64_t ts, double next_top[BANDED_MAX_HALF_BANDWIDTH],
                                         double prev_bottom[BANDED_MAX_HALF_BANDWIDTH])
{
    for (int k = 0; k < h; ++k) {
        next_top[k] = p + 1 < v->n_seg ? tips[(2 * h * (p + 1) + k) * ts] : 0.0;
        prev_bottom[k] = p > 0 ? tips[(2 * h * (p - 1) + h + k) * ts] : 0.0;
    }
}

/* x_i = (D_p^{-1} d_p)_i - V_p(i) top(x_{p+1}) - W_p(i) bottom(x_{p-1}) for row i of T, with
 * spike_row = seg_spike + 2h i (the spikes of the first and last segment are 0 where they have no
 * neighbour). */
COHORT_HD double banded_segment_correct(const double *spike_row, int h, double g,
                                        const double *next_top, const double *prev_bottom)
{
    for (int k = 0; k < h; ++k)
        g -=
            cohort_mul_add(spike_row[k], next_top[k], cohort_mul(spike_row[h + k], prev_bottom[k]));
    return g;
}

/* T^{-1} d of one system through the partition, in place (tips: red_n doubles of workspace): the
 * sequential form of what the CUDA tiled kernel does with one thread per segment, and its
 * reference in the cpu tests. With one segment, tips is not touched (red_n = 0). */
COHORT_HD void banded_partitioned_band_solve(const banded_view *v, int h, double *x, int64_t s,
                                             double *tips)
{
    const int stride = 2 * h + 1;
    for (int p = 0; p < v->n_seg; ++p) {
        const int64_t start = banded_segment_start(v, p), end = banded_segment_end(v, p);
        banded_band_solve(v->seg_coef + start * stride, end - start, h, x + start * s, s);
        if (v->n_seg > 1) banded_segment_tips(v, h, p, x + start * s, s, tips, 1);
    }
    if (v->n_seg < 2) return;
    banded_band_solve(v->red_coef, v->red_n, 3 * h - 1, tips, 1);
    for (int p = 0; p < v->n_seg; ++p) {
        double next_top[BANDED_MAX_HALF_BANDWIDTH], prev_bottom[BANDED_MAX_HALF_BANDWIDTH];
        banded_segment_neighbours(v, h, p, tips, 1, next_top, prev_bottom);
        for (int64_t i = banded_segment_start(v, p); i < banded_segment_end(v, p); ++i)
            x[i * s] = banded_segment_correct(v->seg_spike + i * 2 * h, h, x[i * s], next_top,
                                              prev_bottom);
    }
}

/* ---- the chunked (carry) form: chunk c covers rows [start, end) of T ---- */

/* Chunks of BANDED_CHUNK_ROWS rows; the last one starts earlier where it would hold fewer than h
 * rows, so that every chunk's carries are its own first and last h values. */
COHORT_HD int64_t banded_chunk_start(const banded_view *v, int c)
{
    const int64_t start = (int64_t)c * BANDED_CHUNK_ROWS;
    return c > 0 && c == v->n_chunk - 1 && v->n_band - start < v->h ? v->n_band - v->h : start;
}

COHORT_HD int64_t banded_chunk_end(const banded_view *v, int c)
{
    return c == v->n_chunk - 1 ? v->n_band : banded_chunk_start(v, c + 1);
}

/* Where chunk c keeps its value k of a system's carries: k < h forward, else backward (ts: the
 * stride between systems). */
COHORT_HD int64_t banded_chunk_slot(int h, int c, int k, int64_t ts)
{
    return ((int64_t)c * 2 * h + k) * ts;
}

/* y_i = yhat_i + sum_k fwd_k(i) f[k]: the forward sweep's value of row i with the chunk's
 * carry-in f, from its value from a zero carry. */
COHORT_HD double banded_chunk_carry_in(const double *fwd_row, int h, double yhat, const double *f)
{
    for (int k = 0; k < h; ++k) yhat = cohort_mul_add(fwd_row[k], f[k], yhat);
    return yhat;
}

/* The block of chunk c's carry coefficients (F_c, A_c, B_c) in chunk_back. */
COHORT_HD const double *banded_chunk_block(const banded_view *v, int h, int c)
{
    return v->chunk_back + (int64_t)c * 3 * h * h;
}

/* f <- phi_c + F_c f (the carry-in of chunk c + 1 from that of chunk c). */
COHORT_HD void banded_chunk_forward_carry(const banded_view *v, int h, int c, const double *phi,
                                          double *f)
{
    const double *fc = banded_chunk_block(v, h, c);
    double next[BANDED_MAX_HALF_BANDWIDTH];
    for (int j = 0; j < h; ++j) next[j] = banded_chunk_carry_in(fc + j * h, h, phi[j], f);
    for (int j = 0; j < h; ++j) f[j] = next[j];
}

/* g <- psi_c + A_c f_c + B_c g (the carry-in of chunk c - 1 from that of chunk c). */
COHORT_HD void banded_chunk_backward_carry(const banded_view *v, int h, int c, const double *psi,
                                           const double *f, double *g)
{
    const double *a = banded_chunk_block(v, h, c) + h * h, *b = a + h * h;
    double next[BANDED_MAX_HALF_BANDWIDTH];
    for (int j = 0; j < h; ++j) {
        double acc = psi[j];
        for (int k = 0; k < h; ++k) acc = cohort_mul_add(a[j * h + k], f[k], acc);
        for (int k = 0; k < h; ++k) acc = cohort_mul_add(b[j * h + k], g[k], acc);
        next[j] = acc;
    }
    for (int j = 0; j < h; ++j) g[j] = next[j];
}

/* ---- a system's carries by `lanes` lanes (a warp, or one lane): lane l takes the chunks
 * [l q, l q + q), q = ceil(n_chunk / lanes), composes their maps, and an inclusive scan of the
 * lanes' maps (Kogge-Stone: at distance d = 1, 2, 4, ... each lane composes its map with that of
 * the lane d before it) gives every lane the carry its first chunk starts from ---- */

/* A warp's lanes; the chunks from which a periodic tridiagonal system's carries are scanned. */
enum { BANDED_CHUNK_LANES = 32, BANDED_CHUNK_SCAN_MIN_PERIODIC = 48 };

/* The lanes that form a system's carries: a warp for tridiagonal systems of at least a warp's
 * chunks (periodic ones from BANDED_CHUNK_SCAN_MIN_PERIODIC), one lane (the plain recurrences)
 * for the others. The larger maps and registers of the pentadiagonal kinds made the warp's scan
 * slower than the walk it shortens; with fewer chunks than lanes some warps take two systems; a
 * periodic system's scan lost to its walk at 32 chunks and won from 48 (bench-banded:
 * PERFORMANCE.md, "The chunked solve's carries by a warp", "The scan for tri periodic systems"). */
COHORT_HD int banded_chunk_lanes(const banded_view *v, int h, int border)
{
    const int from = border ? BANDED_CHUNK_SCAN_MIN_PERIODIC : BANDED_CHUNK_LANES;
    return h == 1 && v->n_chunk >= from ? BANDED_CHUNK_LANES : 1;
}

/* An affine map z -> m z + o of a sweep's h carries. */
typedef struct banded_affine {
    double m[BANDED_MAX_HALF_BANDWIDTH][BANDED_MAX_HALF_BANDWIDTH];
    double o[BANDED_MAX_HALF_BANDWIDTH];
} banded_affine;

COHORT_HD banded_affine banded_affine_identity(void)
{
    banded_affine a = {{{1.0, 0.0}, {0.0, 1.0}}, {0.0, 0.0}};
    return a;
}

/* z -> later(earlier(z)). */
COHORT_HD banded_affine banded_affine_then(const banded_affine *earlier, const banded_affine *later,
                                           int h)
{
    banded_affine r = banded_affine_identity();
    for (int j = 0; j < h; ++j) {
        for (int k = 0; k < h; ++k) {
            double acc = 0.0;
            for (int l = 0; l < h; ++l) acc = cohort_mul_add(later->m[j][l], earlier->m[l][k], acc);
            r.m[j][k] = acc;
        }
        double acc = later->o[j];
        for (int l = 0; l < h; ++l) acc = cohort_mul_add(later->m[j][l], earlier->o[l], acc);
        r.o[j] = acc;
    }
    return r;
}

/* The chunks lane l of a system's carries takes: [*lo, *hi), empty past the last. */
COHORT_HD void banded_chunk_lane_range(const banded_view *v, int lanes, int lane, int *lo, int *hi)
{
    const int q = (v->n_chunk + lanes - 1) / lanes;
    *lo = lane * q < v->n_chunk ? lane * q : v->n_chunk;
    *hi = *lo + q < v->n_chunk ? *lo + q : v->n_chunk;
}

/* The forward map of chunks [lo, hi): f_hi from f_lo (slots holding phi). */
COHORT_HD banded_affine banded_chunk_lane_forward(const banded_view *v, int h, const double *tips,
                                                  int64_t ts, int lo, int hi)
{
    banded_affine a = banded_affine_identity();
    for (int c = lo; c < hi; ++c) {
        banded_affine step = banded_affine_identity();
        const double *fc = banded_chunk_block(v, h, c);
        for (int j = 0; j < h; ++j) {
            for (int k = 0; k < h; ++k) step.m[j][k] = fc[j * h + k];
            step.o[j] = tips[banded_chunk_slot(h, c, j, ts)];
        }
        a = banded_affine_then(&a, &step, h);
    }
    return a;
}

/* The backward map of chunks [lo, hi), walked down: g_{lo-1} from g_{hi-1} (slots holding f_c
 * and psi). */
COHORT_HD banded_affine banded_chunk_lane_backward(const banded_view *v, int h, const double *tips,
                                                   int64_t ts, int lo, int hi)
{
    banded_affine a = banded_affine_identity();
    for (int c = hi - 1; c >= lo; --c) {
        double psi[BANDED_MAX_HALF_BANDWIDTH], fc[BANDED_MAX_HALF_BANDWIDTH];
        banded_affine step = banded_affine_identity();
        const double *b = banded_chunk_block(v, h, c) + 2 * h * h;
        for (int k = 0; k < h; ++k) {
            psi[k] = tips[banded_chunk_slot(h, c, h + k, ts)];
            fc[k] = tips[banded_chunk_slot(h, c, k, ts)];
        }
        /* o = psi_c + A_c f_c, as banded_chunk_backward_carry sums it from g = 0 */
        double zero[BANDED_MAX_HALF_BANDWIDTH] = {0.0};
        banded_chunk_backward_carry(v, h, c, psi, fc, zero);
        for (int j = 0; j < h; ++j) {
            for (int k = 0; k < h; ++k) step.m[j][k] = b[j * h + k];
            step.o[j] = zero[j];
        }
        a = banded_affine_then(&a, &step, h);
    }
    return a;
}

/* Lane l's chunks [lo, hi) from its first forward carry f: each slot's phi becomes f_c. */
COHORT_HD void banded_chunk_lane_forward_apply(const banded_view *v, int h, double *tips,
                                               int64_t ts, int lo, int hi, double *f)
{
    for (int c = lo; c < hi; ++c) {
        double phi[BANDED_MAX_HALF_BANDWIDTH];
        for (int k = 0; k < h; ++k) {
            phi[k] = tips[banded_chunk_slot(h, c, k, ts)];
            tips[banded_chunk_slot(h, c, k, ts)] = f[k];
        }
        banded_chunk_forward_carry(v, h, c, phi, f);
    }
}

/* Lane l's chunks walked down from its first backward carry g: each slot's psi becomes g_c; g
 * ends as the carry-out of chunk lo. */
COHORT_HD void banded_chunk_lane_backward_apply(const banded_view *v, int h, double *tips,
                                                int64_t ts, int lo, int hi, double *g)
{
    for (int c = hi - 1; c >= lo; --c) {
        double psi[BANDED_MAX_HALF_BANDWIDTH], fc[BANDED_MAX_HALF_BANDWIDTH];
        for (int k = 0; k < h; ++k) {
            psi[k] = tips[banded_chunk_slot(h, c, h + k, ts)];
            tips[banded_chunk_slot(h, c, h + k, ts)] = g[k];
            fc[k] = tips[banded_chunk_slot(h, c, k, ts)];
        }
        banded_chunk_backward_carry(v, h, c, psi, fc, g);
    }
}

/* The inclusive scan of the lanes' maps, toward higher lanes (up) or lower ones (down). */
COHORT_HD void banded_affine_lane_scan(banded_affine *lane_map, int lanes, int h, int up)
{
    for (int d = 1; d < lanes; d *= 2) {
        if (up) {
            for (int l = lanes - 1; l >= d; --l)
                lane_map[l] = banded_affine_then(&lane_map[l - d], &lane_map[l], h);
        } else {
            for (int l = 0; l + d < lanes; ++l)
                lane_map[l] = banded_affine_then(&lane_map[l + d], &lane_map[l], h);
        }
    }
}

/* One sweep of a system's carries by its lanes one after the other (forward: f, else g walked
 * down): every lane's map, their scan, then each lane's chunks from the carry the lanes before
 * it (forward) or after it hand on; lane 0's last carry goes to out where it is not NULL. */
COHORT_HD void banded_chunk_lanes_sweep(const banded_view *v, int h, double *tips, int64_t ts,
                                        int lanes, int forward, banded_affine *lane_map,
                                        double *out)
{
    int lo, hi;
    for (int l = 0; l < lanes; ++l) {
        banded_chunk_lane_range(v, lanes, l, &lo, &hi);
        lane_map[l] = forward ? banded_chunk_lane_forward(v, h, tips, ts, lo, hi)
                              : banded_chunk_lane_backward(v, h, tips, ts, lo, hi);
    }
    banded_affine_lane_scan(lane_map, lanes, h, forward);
    for (int l = 0; l < lanes; ++l) {
        const int from = forward ? l - 1 : l + 1;
        double carry[BANDED_MAX_HALF_BANDWIDTH] = {0.0};
        for (int k = 0; k < h && from >= 0 && from < lanes; ++k) carry[k] = lane_map[from].o[k];
        banded_chunk_lane_range(v, lanes, l, &lo, &hi);
        if (forward)
            banded_chunk_lane_forward_apply(v, h, tips, ts, lo, hi, carry);
        else
            banded_chunk_lane_backward_apply(v, h, tips, ts, lo, hi, carry);
        if (l == 0 && out)
            for (int k = 0; k < h; ++k) out[k] = carry[k];
    }
}

/* The carries of one system: on entry its slots hold every chunk's phi and psi
 * (banded_chunk_slot, stride ts), on return the chunk's carry-ins f_c and g_c; top gets x at T's
 * first h rows (the backward sweep's last carry-out). The lanes one after the other: the
 * sequential form of the CUDA kernel's warp. */
COHORT_HD void banded_chunk_carries(const banded_view *v, int h, int border, double *tips,
                                    int64_t ts, double top[BANDED_MAX_HALF_BANDWIDTH])
{
    const int lanes = banded_chunk_lanes(v, h, border);
    banded_affine lane_map[BANDED_CHUNK_LANES];
    banded_chunk_lanes_sweep(v, h, tips, ts, lanes, 1, lane_map, NULL);
    banded_chunk_lanes_sweep(v, h, tips, ts, lanes, 0, lane_map, top);
}

/* Periodic systems: x_b from p = T^{-1} d_t at the border columns, which are T's first h rows
 * (top) and its last h (lambda and the last chunk's carry-in f_last), and the border rows' d_b. */
COHORT_HD void banded_chunk_border(const banded_view *v, int border, const double *top,
                                   const double *lambda, const double *f_last, const double *d_b,
                                   double xb[BANDED_MAX_HALF_BANDWIDTH])
{
    double p_cols[BANDED_MAX_BORDER_COLS];
    for (int c = 0; c < v->n_border_cols; ++c) {
        const int64_t col = v->border_col[c];
        if (col < border) {
            p_cols[c] = top[col];
        } else {
            const int64_t j = v->n_band - 1 - col;
            p_cols[c] = banded_chunk_carry_in(v->chunk_bottom[j], border, lambda[j], f_last);
        }
    }
    banded_border_values(v, border, p_cols, d_b, xb);
}

/* The first pass over chunk c of one system (x at the chunk's first row, stride s): the forward
 * sweep from a zero carry, in place (yhat), then the backward sweep from a zero carry, whose
 * values are dropped but for the last h rows' (lambda); phi and psi into the system's slots. */
COHORT_HD void banded_chunk_local(const banded_view *v, int h, int c, double *x, int64_t s,
                                  double *tips, int64_t ts,
                                  double lambda[BANDED_MAX_HALF_BANDWIDTH])
{
    const int stride = 2 * h + 1;
    const int64_t start = banded_chunk_start(v, c), len = banded_chunk_end(v, c) - start;
    const double *coef = v->coef + start * stride;
    double carry[BANDED_MAX_HALF_BANDWIDTH] = {0.0};
    for (int64_t i = 0; i < len; ++i) {
        const double y = banded_forward_value(coef + i * stride, h, x[i * s], carry);
        x[i * s] = y;
        banded_carry_push(carry, h, y);
    }
    for (int k = 0; k < h; ++k) tips[banded_chunk_slot(h, c, k, ts)] = carry[k];
    for (int k = 0; k < h; ++k) carry[k] = 0.0;
    for (int64_t i = len - 1; i >= 0; --i) {
        const double xi = banded_backward_value(coef + i * stride, h, x[i * s], carry);
        banded_carry_push(carry, h, xi);
        if (i >= len - h) lambda[len - 1 - i] = xi;
    }
    for (int k = 0; k < h; ++k) tips[banded_chunk_slot(h, c, h + k, ts)] = carry[k];
}

/* The second pass over chunk c, once its carries are in its slots: y from yhat and f_c, the
 * backward sweep from g_c, and for a periodic system x_t = p - Q x_b. */
COHORT_HD void banded_chunk_finish(const banded_view *v, int h, int border, int c, double *x,
                                   int64_t s, const double *tips, int64_t ts,
                                   const double xb[BANDED_MAX_HALF_BANDWIDTH])
{
    const int stride = 2 * h + 1;
    const int64_t start = banded_chunk_start(v, c), len = banded_chunk_end(v, c) - start;
    const double *coef = v->coef + start * stride;
    double f[BANDED_MAX_HALF_BANDWIDTH], carry[BANDED_MAX_HALF_BANDWIDTH];
    for (int k = 0; k < h; ++k) {
        f[k] = tips[banded_chunk_slot(h, c, k, ts)];
        carry[k] = tips[banded_chunk_slot(h, c, h + k, ts)];
    }
    for (int64_t i = len - 1; i >= 0; --i) {
        const double y = banded_chunk_carry_in(v->chunk_fwd + (start + i) * h, h, x[i * s], f);
        const double p = banded_backward_value(coef + i * stride, h, y, carry);
        banded_carry_push(carry, h, p);
        x[i * s] =
            border ? banded_border_correct(v->spike + (start + i) * border, border, p, xb) : p;
    }
}

/* One whole system through the chunked form, in place (tips: 2 h n_chunk doubles of workspace):
 * the sequential form of the CUDA chunked kernel, and its reference in the cpu tests. */
COHORT_HD void banded_chunked_system_solve(const banded_view *v, int h, int border, double *x,
                                           int64_t s, double *tips)
{
    double lambda[BANDED_MAX_HALF_BANDWIDTH] = {0.0}, top[BANDED_MAX_HALF_BANDWIDTH];
    double xb[BANDED_MAX_HALF_BANDWIDTH] = {0.0};
    for (int c = 0; c < v->n_chunk; ++c)
        banded_chunk_local(v, h, c, x + banded_chunk_start(v, c) * s, s, tips, 1, lambda);
    banded_chunk_carries(v, h, border, tips, 1, top);
    if (border) {
        double d_b[BANDED_MAX_HALF_BANDWIDTH], f_last[BANDED_MAX_HALF_BANDWIDTH];
        for (int j = 0; j < border; ++j) d_b[j] = x[(v->n_band + j) * s];
        for (int k = 0; k < border; ++k)
            f_last[k] = tips[banded_chunk_slot(h, v->n_chunk - 1, k, 1)];
        banded_chunk_border(v, border, top, lambda, f_last, d_b, xb);
        for (int j = 0; j < border; ++j) x[(v->n_band + j) * s] = xb[j];
    }
    for (int c = 0; c < v->n_chunk; ++c)
        banded_chunk_finish(v, h, border, c, x + banded_chunk_start(v, c) * s, s, tips, 1, xb);
}

#ifdef __cplusplus
}
#endif
#endif
