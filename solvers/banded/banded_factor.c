/* Host-side factorisation of a shared banded left-hand side (see banded_numerics.h for the
 * scheme). Derived from the LU recurrences of Gaussian elimination without pivoting on the band,
 * not from the seed's Algorithm 3 pseudocode, whose indices are off. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "banded/banded.h"
#include "banded/banded_chunks.h"

struct banded_factor {
    banded_view view;   /* pointers into storage */
    double *storage;    /* coef (n_band x (2h+1)), spike (n_band x border), the partitioned
                           form, then the chunked form */
    size_t storage_len; /* doubles */
    double *original;   /* (2h+1) x n: the diagonals as given, for residuals */
    int periodic;
};

static const char *const diagonal_names[2][5] = {{"sub", "diag", "super", "", ""},
                                                 {"sub2", "sub1", "diag", "super1", "super2"}};

/* A(i, j) of the full matrix, corners included for a periodic system. */
static double matrix_entry(const banded_factor *f, int64_t i, int64_t j)
{
    const int64_t n = f->view.n;
    const int h = f->view.h;
    for (int o = -h; o <= h; ++o) {
        int64_t col = i + o;
        if (col < 0 || col >= n) {
            if (!f->periodic) continue;
            col = (col + n) % n;
        }
        if (col == j) return f->original[(size_t)(o + h) * (size_t)n + (size_t)i];
    }
    return 0.0;
}

static int entry_is_used(int64_t n, int periodic, int64_t i, int o)
{
    return periodic || (i + o >= 0 && i + o < n);
}

static int check_coefficients(int64_t n, int h, const double *const *diagonals, int periodic)
{
    for (int o = -h; o <= h; ++o) {
        const double *d = diagonals[o + h];
        if (!d)
            return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "diagonal '%s' is NULL",
                               diagonal_names[h - 1][o + h]);
        for (int64_t i = 0; i < n; ++i)
            if (entry_is_used(n, periodic, i, o) && !isfinite(d[i]))
                return COHORT_FAIL(COHORT_ERR_NONFINITE_COEFF, "%s[%lld] = %g",
                                   diagonal_names[h - 1][o + h], (long long)i, d[i]);
    }
    return COHORT_OK;
}

static double row_scale(const banded_factor *f, int64_t i)
{
    double s = 0.0;
    for (int o = -f->view.h; o <= f->view.h; ++o)
        if (entry_is_used(f->view.n, f->periodic, i, o))
            s = fmax(s, fabs(f->original[(size_t)(o + f->view.h) * (size_t)f->view.n + (size_t)i]));
    return s;
}

/* Gaussian elimination without pivoting of a band of `rows` rows and half-bandwidth hb, stored
 * as band[i * (2hb+1) + hb + o] = M(i, i + o), then its coefficient rows for banded_band_solve
 * (lower_1..hb, upper_1..hb scaled by 1/pivot, 1/pivot). A pivot must exceed BANDED_PIVOT_RTOL
 * times scale[i] (the largest entry of row i of the matrix the band belongs to); `what` and
 * row_offset name the rows in the message. */
static int eliminate_band(double *band, int64_t rows, int hb, const double *scale,
                          int64_t row_offset, const char *what, double *coef)
{
    const int w = 2 * hb + 1;
    for (int64_t i = 0; i < rows; ++i) {
        const double pivot = band[i * w + hb];
        if (!(fabs(pivot) > BANDED_PIVOT_RTOL * scale[i]) || !isfinite(pivot))
            return COHORT_FAIL(COHORT_ERR_SINGULAR_PIVOT,
                               "pivot %g at row %lld of %s, whose largest entry is %g (threshold "
                               "%g relative); the matrix needs pivoting or is singular",
                               pivot, (long long)(i + row_offset), what, scale[i],
                               BANDED_PIVOT_RTOL);
        for (int r = 1; r <= hb && i + r < rows; ++r) {
            double *target = band + (i + r) * w;
            const double l = target[hb - r] / pivot;
            target[hb - r] = l; /* the multiplier L(i + r, i) */
            for (int k = 1; k <= hb; ++k)
                if (i + k < rows) target[hb + k - r] -= l * band[i * w + hb + k];
        }
    }
    for (int64_t i = 0; i < rows; ++i) {
        const double rpiv = 1.0 / band[i * w + hb];
        for (int k = 1; k <= hb; ++k) {
            coef[i * w + k - 1] = i - k >= 0 ? band[i * w + hb - k] : 0.0;
            coef[i * w + hb + k - 1] = i + k < rows ? band[i * w + hb + k] * rpiv : 0.0;
        }
        coef[i * w + 2 * hb] = rpiv;
    }
    return COHORT_OK;
}

/* The band of T restricted to rows and columns [first, last), and its rows' scales. */
static void gather_band(const banded_factor *f, int64_t first, int64_t last, double *band,
                        double *scale)
{
    const int h = f->view.h, w = 2 * h + 1;
    for (int64_t i = first; i < last; ++i) {
        for (int o = -h; o <= h; ++o)
            band[(i - first) * w + o + h] =
                (i + o >= first && i + o < last) ? matrix_entry(f, i, i + o) : 0.0;
        scale[i - first] = row_scale(f, i);
    }
}

/* The LU of T, rows [0, n_band). */
static int factor_band(banded_factor *f, double *band, double *scale)
{
    gather_band(f, 0, f->view.n_band, band, scale);
    return eliminate_band(band, f->view.n_band, f->view.h, scale, 0, "the band", f->storage);
}

/* Spikes Q = T^{-1} B, the border rows C, and (D - C Q)^{-1}. */
static int factor_border(banded_factor *f, double *work)
{
    banded_view *v = &f->view;
    const int bw = v->border;
    const int64_t nb = v->n_band, n = v->n;
    double *spike = f->storage + (size_t)nb * (size_t)(2 * v->h + 1);
    v->coef = f->storage;
    for (int j = 0; j < bw; ++j) {
        for (int64_t i = 0; i < nb; ++i) work[i] = matrix_entry(f, i, nb + j);
        banded_band_solve(v->coef, nb, v->h, work, 1);
        for (int64_t i = 0; i < nb; ++i) spike[i * bw + j] = work[i];
    }
    /* columns of T that the border rows touch: the band's end and the wrapped corners */
    v->n_border_cols = 0;
    for (int64_t c = 0; c < nb; ++c) {
        int touched = 0;
        for (int j = 0; j < bw; ++j)
            for (int o = -v->h; o <= v->h; ++o) touched |= ((nb + j + o) % n + n) % n == c;
        if (!touched) continue;
        if (v->n_border_cols == BANDED_MAX_BORDER_COLS)
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "internal: too many border columns");
        v->border_col[v->n_border_cols] = c;
        for (int j = 0; j < bw; ++j)
            v->border_coef[j][v->n_border_cols] = matrix_entry(f, nb + j, c);
        ++v->n_border_cols;
    }
    double s[BANDED_MAX_HALF_BANDWIDTH][BANDED_MAX_HALF_BANDWIDTH], smax = 0.0, rowmax = 0.0;
    for (int j = 0; j < bw; ++j) {
        rowmax = fmax(rowmax, row_scale(f, nb + j));
        for (int k = 0; k < bw; ++k) {
            double acc = matrix_entry(f, nb + j, nb + k);
            for (int c = 0; c < v->n_border_cols; ++c)
                acc -= v->border_coef[j][c] * spike[v->border_col[c] * bw + k];
            s[j][k] = acc;
            smax = fmax(smax, fabs(acc));
        }
    }
    const double det = bw == 1 ? s[0][0] : s[0][0] * s[1][1] - s[0][1] * s[1][0];
    const double det_scale = bw == 1 ? rowmax : fmax(smax, rowmax) * fmax(smax, rowmax);
    if (!(fabs(det) > BANDED_PIVOT_RTOL * det_scale) || !isfinite(det))
        return COHORT_FAIL(COHORT_ERR_SINGULAR_PIVOT,
                           "the periodic closure (Schur complement of the last %d rows) has "
                           "determinant %g against a scale of %g: the cyclic matrix is singular "
                           "or nearly so",
                           bw, det, det_scale);
    if (bw == 1) {
        v->schur_inv[0][0] = 1.0 / det;
    } else {
        v->schur_inv[0][0] = s[1][1] / det;
        v->schur_inv[0][1] = -s[0][1] / det;
        v->schur_inv[1][0] = -s[1][0] / det;
        v->schur_inv[1][1] = s[0][0] / det;
    }
    v->spike = spike;
    return COHORT_OK;
}

/* Segments of a power-of-two length near sqrt(2 h n_band), so that a segment's sweeps and the
 * reduced system's sweeps are about equally long; at least 8 rows (>= 2h, so a segment's top and
 * bottom tips never overlap); a single segment when n_band < 2 seg_len. The rows left over make a
 * last, shorter segment where they are at least 2h, else join the one before: a solve with one
 * thread a segment waits for its longest (periodic n = 1024, h = 2: 16 segments of at most 64
 * rows, not 15 with a last of 126). */
static void partition_layout(int64_t nb, int h, int *seg_len, int *n_seg)
{
    const double target = sqrt(2.0 * h * (double)nb);
    int len = 8;
    while (len < target) len *= 2;
    *seg_len = len;
    *n_seg = nb >= 2 * (int64_t)len ? (int)(nb / len) + (nb % len >= 2 * h) : 1;
}

/* The partitioned form (banded_numerics.h): each segment's LU, its spikes, and the LU of the
 * reduced system. Storage for it follows coef and Q. */
static int factor_partition(banded_factor *f, double *band, double *scale, double *vec)
{
    banded_view *v = &f->view;
    const int h = v->h, w = 2 * h + 1, hr = 3 * h - 1, wr = 2 * hr + 1, P = v->n_seg;
    const int64_t nb = v->n_band, nr = 2 * (int64_t)h * P;
    if (P < 2) {
        v->seg_coef = v->coef;
        return COHORT_OK;
    }
    double *seg_coef = f->storage + (size_t)nb * (size_t)(w + v->border);
    double *seg_spike = seg_coef + (size_t)nb * (size_t)w;
    double *red_coef = seg_spike + (size_t)nb * (size_t)(2 * h);
    v->seg_coef = seg_coef;
    v->seg_spike = seg_spike;
    for (int p = 0; p < P; ++p) {
        const int64_t start = banded_segment_start(v, p), end = banded_segment_end(v, p);
        gather_band(f, start, end, band, scale);
        COHORT_CALL(eliminate_band(band, end - start, h, scale, start, "a segment block",
                                   seg_coef + start * w));
        for (int k = 0; k < 2 * h; ++k) { /* V columns (k < h), then W columns */
            for (int64_t i = start; i < end; ++i) {
                const int64_t col = k < h ? end + k : start - h + (k - h);
                const int coupled = k < h ? p + 1 < P : p > 0;
                vec[i - start] = coupled ? matrix_entry(f, i, col) : 0.0;
            }
            banded_band_solve(seg_coef + start * w, end - start, h, vec, 1);
            for (int64_t i = start; i < end; ++i) seg_spike[i * 2 * h + k] = vec[i - start];
        }
    }
    /* R z = tips: row of tip t of segment p at 2hp + t (t < h top, else bottom) */
    for (int64_t i = 0; i < nr * wr; ++i) band[i] = 0.0;
    for (int p = 0; p < P; ++p) {
        const int64_t start = banded_segment_start(v, p), end = banded_segment_end(v, p);
        for (int t = 0; t < 2 * h; ++t) {
            const int64_t row = t < h ? start + t : end - h + (t - h), idx = 2 * h * p + t;
            band[idx * wr + hr] = 1.0;
            for (int k = 0; k < h; ++k) {
                const int64_t next = 2 * h * (int64_t)(p + 1) + k;
                const int64_t prev = 2 * h * (int64_t)(p - 1) + h + k;
                if (p + 1 < P) band[idx * wr + hr + (next - idx)] += seg_spike[row * 2 * h + k];
                if (p > 0) band[idx * wr + hr + (prev - idx)] += seg_spike[row * 2 * h + h + k];
            }
            scale[idx] = 0.0;
            for (int o = 0; o < wr; ++o) scale[idx] = fmax(scale[idx], fabs(band[idx * wr + o]));
        }
    }
    COHORT_CALL(eliminate_band(band, nr, hr, scale, 0, "the reduced system", red_coef));
    v->red_coef = red_coef;
    v->red_n = nr;
    v->red_h = hr;
    return COHORT_OK;
}

/* The factor's forms once T's rows are in f->original: T's LU (the sequential form) and, for a
 * periodic system, the border; with all_forms also the chunked and the partitioned forms (the
 * latter only where its blocks need no pivoting). */
static int factor_forms(banded_factor *f, int all_forms, size_t chunk_doubles, double *band,
                        double *scale, double *vec)
{
    banded_view *v = &f->view;
    COHORT_CALL(factor_band(f, band, scale));
    v->coef = f->storage;
    if (all_forms) banded_chunks_form(v, f->storage + f->storage_len - chunk_doubles);
    if (f->periodic) COHORT_CALL(factor_border(f, vec));
    if (!all_forms || factor_partition(f, band, scale, vec) != COHORT_OK) {
        /* not an error: the matrix is solved, only without the partitioned fast path */
        v->n_seg = 0;
        v->seg_coef = v->seg_spike = v->red_coef = NULL;
        v->red_n = 0;
        cohort_error_clear();
    }
    return COHORT_OK;
}

/* banded_factor_alloc, with the chunked and partitioned forms (all_forms) or the sequential form's
 * arrays alone (banded_member_factor_alloc). */
static int factor_alloc(int64_t n, int h, const double *const *diagonals, int periodic,
                        int all_forms, banded_factor **out)
{
    if (!out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "out is NULL");
    *out = NULL;
    if (!diagonals) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "diagonals is NULL");
    if (h < 1 || h > BANDED_MAX_HALF_BANDWIDTH)
        return COHORT_FAIL(COHORT_ERR_BANDWIDTH, "half-bandwidth %d", h);
    if (n < 2 * h + 1)
        return COHORT_FAIL(COHORT_ERR_SIZE_TOO_SMALL, "n = %lld; a %s system needs n >= %d",
                           (long long)n, h == 1 ? "tridiagonal" : "pentadiagonal", 2 * h + 1);
    COHORT_CALL(check_coefficients(n, h, diagonals, periodic));

    banded_factor *f = calloc(1, sizeof *f);
    if (!f) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "banded_factor");
    banded_view *v = &f->view;
    f->periodic = periodic != 0;
    v->n = n;
    v->h = h;
    v->border = f->periodic ? h : 0;
    v->n_band = n - v->border;
    const int64_t nb = v->n_band;
    const int w = 2 * h + 1, wr = 2 * (3 * h - 1) + 1;
    if (all_forms) partition_layout(nb, h, &v->seg_len, &v->n_seg);
    const int64_t nr = v->n_seg > 1 ? 2 * (int64_t)h * v->n_seg : 0;
    const size_t chunk_doubles = all_forms ? banded_chunks_doubles(nb, h) : 0;
    f->storage_len = (size_t)nb * (size_t)(w + v->border) +
                     (v->n_seg > 1 ? (size_t)nb * (size_t)(w + 2 * h) + (size_t)(nr * wr) : 0) +
                     chunk_doubles;
    f->storage = calloc(f->storage_len, sizeof(double));
    f->original = malloc((size_t)w * (size_t)n * sizeof(double));
    const int64_t rows = nb > nr ? nb : nr;
    double *band = malloc((size_t)rows * (size_t)wr * sizeof(double));
    double *scale = malloc((size_t)rows * sizeof(double));
    double *vec = malloc((size_t)n * sizeof(double));
    int rc = COHORT_OK;
    if (!f->storage || !f->original || !band || !scale || !vec) {
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "banded factor of n = %lld", (long long)n);
        goto done;
    }
    for (int o = 0; o < w; ++o) {
        for (int64_t i = 0; i < n; ++i)
            f->original[(size_t)o * (size_t)n + (size_t)i] =
                entry_is_used(n, f->periodic, i, o - h) ? diagonals[o][i] : 0.0;
    }
    rc = factor_forms(f, all_forms, chunk_doubles, band, scale, vec);
done:
    free(band);
    free(scale);
    free(vec);
    if (rc != COHORT_OK) {
        banded_factor_free(f);
        return rc;
    }
    *out = f;
    return COHORT_OK;
}

int banded_factor_alloc(int64_t n, int h, const double *const *diagonals, int periodic,
                        banded_factor **out)
{
    return factor_alloc(n, h, diagonals, periodic, 1, out);
}

int banded_tri_factor_alloc(int64_t n, const double *sub, const double *diag, const double *super,
                            int periodic, banded_factor **out)
{
    const double *const diagonals[3] = {sub, diag, super};
    return banded_factor_alloc(n, 1, diagonals, periodic, out);
}

int banded_penta_factor_alloc(int64_t n, const double *sub2, const double *sub1, const double *diag,
                              const double *super1, const double *super2, int periodic,
                              banded_factor **out)
{
    const double *const diagonals[5] = {sub2, sub1, diag, super1, super2};
    return banded_factor_alloc(n, 2, diagonals, periodic, out);
}

/* A Toeplitz (circulant) factor with all its forms or the sequential one's alone. */
static int constant_factor_alloc(int64_t n, int h, const double *entries, int periodic,
                                 int all_forms, banded_factor **out)
{
    if (!out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "out is NULL");
    *out = NULL;
    if (!entries) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "entries is NULL");
    /* sizes banded_factor_alloc refuses still get diagonals to point at; it refuses them first */
    const int hb = h >= 1 && h <= BANDED_MAX_HALF_BANDWIDTH ? h : 1;
    const int64_t len = n > 0 ? n : 1;
    double *store = malloc((size_t)(2 * hb + 1) * (size_t)len * sizeof(double));
    if (!store) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "diagonals of n = %lld", (long long)n);
    const double *diagonals[2 * BANDED_MAX_HALF_BANDWIDTH + 1];
    for (int o = 0; o <= 2 * hb; ++o) {
        double *d = store + (size_t)o * (size_t)len;
        for (int64_t i = 0; i < len; ++i) d[i] = entries[o];
        diagonals[o] = d;
    }
    const int rc = factor_alloc(n, h, diagonals, periodic, all_forms, out);
    free(store);
    return rc;
}

int banded_constant_factor_alloc(int64_t n, int h, const double *entries, int periodic,
                                 banded_factor **out)
{
    return constant_factor_alloc(n, h, entries, periodic, 1, out);
}

int banded_member_factor_alloc(int64_t n, int h, const double *entries, int periodic,
                               banded_factor **out)
{
    return constant_factor_alloc(n, h, entries, periodic, 0, out);
}

void banded_factor_free(banded_factor *f)
{
    if (!f) return;
    free(f->storage);
    free(f->original);
    free(f);
}

int64_t banded_factor_size(const banded_factor *f)
{
    return f->view.n;
}

int banded_factor_half_bandwidth(const banded_factor *f)
{
    return f->view.h;
}

double banded_factor_norm_inf(const banded_factor *f)
{
    double norm = 0.0;
    for (int64_t i = 0; i < f->view.n; ++i) {
        double row = 0.0;
        for (int o = 0; o <= 2 * f->view.h; ++o)
            row += fabs(f->original[(size_t)o * (size_t)f->view.n + (size_t)i]);
        norm = fmax(norm, row);
    }
    return norm;
}

size_t banded_factor_bytes(const banded_factor *f)
{
    return f->storage_len * sizeof(double);
}

const banded_view *banded_factor_view(const banded_factor *f)
{
    return &f->view;
}

void banded_factor_apply_member(const banded_factor *f, const double *x, int64_t ld, int64_t m,
                                double *y)
{
    const int64_t n = f->view.n;
    const int h = f->view.h;
    for (int64_t i = 0; i < n; ++i) {
        double acc = 0.0;
        for (int o = -h; o <= h; ++o) {
            if (!entry_is_used(n, f->periodic, i, o)) continue;
            const int64_t col = ((i + o) % n + n) % n;
            acc += f->original[(size_t)(o + h) * (size_t)n + (size_t)i] * x[col * ld + m];
        }
        y[i] = acc;
    }
}
