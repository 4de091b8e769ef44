/* Host-side factorisation of a shared banded left-hand side (see banded_numerics.h for the
 * scheme). Derived from the LU recurrences of Gaussian elimination without pivoting on the band,
 * not from the seed's Algorithm 3 pseudocode, whose indices are off. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "banded/banded.h"

struct banded_factor {
    banded_view view;   /* pointers into storage */
    double *storage;    /* coef (n_band x (2h+1)) then spike (n_band x border) */
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

/* Gaussian elimination of T (rows [0, n_band)) in a (2h+1)-wide band, then the scaled rows. */
static int factor_band(banded_factor *f, double *band)
{
    const int h = f->view.h;
    const int w = 2 * h + 1;
    const int64_t nb = f->view.n_band;
    for (int64_t i = 0; i < nb; ++i)
        for (int o = -h; o <= h; ++o)
            band[i * w + o + h] = (i + o >= 0 && i + o < nb) ? matrix_entry(f, i, i + o) : 0.0;
    for (int64_t i = 0; i < nb; ++i) {
        const double pivot = band[i * w + h], scale = row_scale(f, i);
        if (!(fabs(pivot) > BANDED_PIVOT_RTOL * scale) || !isfinite(pivot))
            return COHORT_FAIL(COHORT_ERR_SINGULAR_PIVOT,
                               "pivot %g at row %lld, whose largest entry is %g (threshold %g "
                               "relative); the matrix needs pivoting or is singular",
                               pivot, (long long)i, scale, BANDED_PIVOT_RTOL);
        for (int r = 1; r <= h && i + r < nb; ++r) {
            double *target = band + (i + r) * w;
            const double l = target[h - r] / pivot;
            target[h - r] = l; /* the multiplier L(i + r, i) */
            for (int k = 1; k <= h; ++k)
                if (i + k < nb) target[h + k - r] -= l * band[i * w + h + k];
        }
    }
    double *coef = f->storage;
    for (int64_t i = 0; i < nb; ++i) {
        const double rpiv = 1.0 / band[i * w + h];
        for (int k = 1; k <= h; ++k) {
            coef[i * w + k - 1] = i - k >= 0 ? band[i * w + h - k] : 0.0;
            coef[i * w + h + k - 1] = i + k < nb ? band[i * w + h + k] * rpiv : 0.0;
        }
        coef[i * w + 2 * h] = rpiv;
    }
    return COHORT_OK;
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
        banded_band_solve(v, v->h, work, 1);
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

int banded_factor_alloc(int64_t n, int h, const double *const *diagonals, int periodic,
                        banded_factor **out)
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
    f->periodic = periodic != 0;
    f->view.n = n;
    f->view.h = h;
    f->view.border = f->periodic ? h : 0;
    f->view.n_band = n - f->view.border;
    const int64_t nb = f->view.n_band;
    f->storage_len = (size_t)nb * (size_t)(2 * h + 1 + f->view.border);
    f->storage = calloc(f->storage_len, sizeof(double));
    f->original = malloc((size_t)(2 * h + 1) * (size_t)n * sizeof(double));
    double *work = malloc((size_t)n * (size_t)(2 * h + 1) * sizeof(double));
    int rc = COHORT_OK;
    if (!f->storage || !f->original || !work) {
        rc = COHORT_FAIL(COHORT_ERR_NO_MEMORY, "banded factor of n = %lld", (long long)n);
        goto fail;
    }
    for (int o = 0; o <= 2 * h; ++o) {
        for (int64_t i = 0; i < n; ++i)
            f->original[(size_t)o * (size_t)n + (size_t)i] =
                entry_is_used(n, f->periodic, i, o - h) ? diagonals[o][i] : 0.0;
    }
    COHORT_CALL_GOTO(rc, fail, factor_band(f, work));
    f->view.coef = f->storage;
    if (f->periodic) COHORT_CALL_GOTO(rc, fail, factor_border(f, work));
    free(work);
    *out = f;
    return COHORT_OK;
fail:
    free(work);
    banded_factor_free(f);
    return rc;
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

int banded_factor_is_periodic(const banded_factor *f)
{
    return f->periodic;
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
