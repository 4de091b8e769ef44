/* The chunked (carry) form of a factor: what a chunk's sweeps owe to the carries they start from
 * (banded_numerics.h). Each entry is a sweep of a unit carry through zero data with the solve's
 * own row arithmetic, so the form is linear algebra on T's LU and nothing else. */
#include "banded/banded_chunks.h"

int banded_chunks_count(int64_t n_band)
{
    return (int)((n_band + BANDED_CHUNK_ROWS - 1) / BANDED_CHUNK_ROWS);
}

size_t banded_chunks_doubles(int64_t n_band, int h)
{
    return (size_t)n_band * (size_t)h + (size_t)banded_chunks_count(n_band) * 3u * (size_t)(h * h);
}

/* fwd_k(i) for the rows of chunk c: the forward sweep of the unit carry e_k through zero data. */
static void chunk_forward_columns(const banded_view *v, int c, double *fwd)
{
    const int h = v->h, stride = 2 * h + 1;
    const int64_t start = banded_chunk_start(v, c), end = banded_chunk_end(v, c);
    for (int k = 0; k < h; ++k) {
        double carry[BANDED_MAX_HALF_BANDWIDTH] = {0.0};
        carry[k] = 1.0;
        for (int64_t i = start; i < end; ++i) {
            const double y = banded_forward_value(v->coef + i * stride, h, 0.0, carry);
            fwd[i * h + k] = y;
            banded_carry_push(carry, h, y);
        }
    }
}

/* The backward sweep over chunk c of y = column k of fwd (from_f) or of zero data from the unit
 * carry e_k (!from_f): its carry-out into out[j * h + k], and its values at the chunk's last h
 * rows into bottom[j][k] (row end - 1 - j). */
static void chunk_backward_column(const banded_view *v, int c, int k, int from_f, const double *fwd,
                                  double *out, double bottom[][BANDED_MAX_HALF_BANDWIDTH])
{
    const int h = v->h, stride = 2 * h + 1;
    const int64_t start = banded_chunk_start(v, c), end = banded_chunk_end(v, c);
    double carry[BANDED_MAX_HALF_BANDWIDTH] = {0.0};
    if (!from_f) carry[k] = 1.0;
    for (int64_t i = end - 1; i >= start; --i) {
        const double x =
            banded_backward_value(v->coef + i * stride, h, from_f ? fwd[i * h + k] : 0.0, carry);
        banded_carry_push(carry, h, x);
        const int64_t j = end - 1 - i;
        if (j < h) bottom[j][k] = x;
    }
    for (int j = 0; j < h; ++j) out[j * h + k] = carry[j];
}

void banded_chunks_form(banded_view *v, double *dst)
{
    const int h = v->h;
    v->n_chunk = banded_chunks_count(v->n_band);
    double *fwd = dst, *back = dst + v->n_band * h;
    double bottom[BANDED_MAX_HALF_BANDWIDTH][BANDED_MAX_HALF_BANDWIDTH];
    for (int c = 0; c < v->n_chunk; ++c) {
        chunk_forward_columns(v, c, fwd);
        double *fc = back + (size_t)c * 3u * (size_t)(h * h), *a = fc + h * h, *b = a + h * h;
        const int64_t end = banded_chunk_end(v, c);
        for (int j = 0; j < h; ++j)
            for (int k = 0; k < h; ++k) fc[j * h + k] = fwd[(end - 1 - j) * h + k];
        for (int k = 0; k < h; ++k) {
            chunk_backward_column(v, c, k, 0, fwd, b, bottom);
            chunk_backward_column(v, c, k, 1, fwd, a, bottom); /* bottom: from f, kept */
        }
    }
    for (int j = 0; j < BANDED_MAX_HALF_BANDWIDTH; ++j)
        for (int k = 0; k < BANDED_MAX_HALF_BANDWIDTH; ++k)
            v->chunk_bottom[j][k] = j < h && k < h ? bottom[j][k] : 0.0;
    v->chunk_fwd = fwd;
    v->chunk_back = back;
}
