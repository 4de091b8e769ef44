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

#include <stdint.h>

#include "backend/cohort_hd.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BANDED_MAX_HALF_BANDWIDTH = 2, BANDED_MAX_BORDER_COLS = 2 * BANDED_MAX_HALF_BANDWIDTH };

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
} banded_view;

/* Forward elimination of one row: y_i = d_i - lower_2 y_{i-2} - lower_1 y_{i-1}. The factor stores
 * lower_k = 0 where i - k < 0, so the first rows need no special case when the missing y are 0.
 * The most recent value y_{i-1} is subtracted last: the chain from row to row is one
 * multiply-add. */
COHORT_HD double banded_forward_value(const double *coef_row, int h, double d, double y1, double y2)
{
    double acc = d;
    if (h == 2) acc -= coef_row[1] * y2;
    return acc - coef_row[0] * y1;
}

/* Back substitution of one row: x_i = y_i / U(i,i) - upper_2 x_{i+2} - upper_1 x_{i+1}, with
 * upper_k = 0 where i + k >= n_band. */
COHORT_HD double banded_backward_value(const double *coef_row, int h, double y, double x1,
                                       double x2)
{
    double acc = y * coef_row[2 * h];
    if (h == 2) acc -= coef_row[h + 1] * x2;
    return acc - coef_row[h] * x1;
}

/* p = T^{-1} d on rows [0, n_band) of one system, in place, carrying the previous rows in
 * registers. h is passed as a literal by the callers so that the branches on it fold away. */
COHORT_HD void banded_band_solve(const banded_view *v, int h, double *x, int64_t s)
{
    const int64_t nb = v->n_band;
    const int stride = 2 * h + 1;
    double y1 = 0.0, y2 = 0.0;
    for (int64_t i = 0; i < nb; ++i) {
        const double y = banded_forward_value(v->coef + i * stride, h, x[i * s], y1, y2);
        x[i * s] = y;
        y2 = y1;
        y1 = y;
    }
    double x1 = 0.0, x2 = 0.0;
    for (int64_t i = nb - 1; i >= 0; --i) {
        const double xi = banded_backward_value(v->coef + i * stride, h, x[i * s], x1, x2);
        x[i * s] = xi;
        x2 = x1;
        x1 = xi;
    }
}

/* Periodic systems, after banded_band_solve: the border unknowns x_b = S^{-1} (d_b - C p).
 * Reads p at the border columns and d_b in rows [n_band, n). */
COHORT_HD void banded_border_values(const banded_view *v, int border, const double *x, int64_t s,
                                    double xb[BANDED_MAX_HALF_BANDWIDTH])
{
    double r[BANDED_MAX_HALF_BANDWIDTH];
    for (int j = 0; j < border; ++j) {
        double acc = x[(v->n_band + j) * s];
        for (int c = 0; c < v->n_border_cols; ++c)
            acc -= v->border_coef[j][c] * x[v->border_col[c] * s];
        r[j] = acc;
    }
    for (int j = 0; j < border; ++j) {
        double acc = 0.0;
        for (int k = 0; k < border; ++k) acc += v->schur_inv[j][k] * r[k];
        xb[j] = acc;
    }
}

/* Periodic systems: x_i = p_i - (Q x_b)_i for a row i < n_band. */
COHORT_HD double banded_border_correct(const banded_view *v, int border, int64_t i, double p_i,
                                       const double xb[BANDED_MAX_HALF_BANDWIDTH])
{
    for (int j = 0; j < border; ++j) p_i -= v->spike[i * border + j] * xb[j];
    return p_i;
}

/* One whole system, in place: the portable path (and the reference for the fast paths). */
COHORT_HD void banded_system_solve(const banded_view *v, int h, int border, double *x, int64_t s)
{
    banded_band_solve(v, h, x, s);
    if (border == 0) return;
    double xb[BANDED_MAX_HALF_BANDWIDTH];
    banded_border_values(v, border, x, s, xb);
    for (int64_t i = 0; i < v->n_band; ++i)
        x[i * s] = banded_border_correct(v, border, i, x[i * s], xb);
    for (int j = 0; j < border; ++j) x[(v->n_band + j) * s] = xb[j];
}

#ifdef __cplusplus
}
#endif
#endif
