/* A factor a member (banded.h): the host-side array of members' factors, interleaved member
 * fastest as banded_view.member_factor reads them. */
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "banded/banded.h"
#include "banded/banded_kernels.h"

struct banded_members {
    banded_view shape; /* the sizes and border columns every member's factor shares */
    int64_t count, values;
    double *host; /* value j of member m at host[j * count + m] */
};

int banded_members_fit(const banded_factor *f)
{
    return f && banded_form_of(banded_factor_view(f)) == BANDED_FORM_SEQUENTIAL;
}

int banded_members_alloc(const banded_factor *shape, int64_t count, banded_members **out)
{
    if (!out) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "out is NULL");
    *out = NULL;
    if (!shape) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "shape is NULL");
    if (count < 1) return COHORT_FAIL(COHORT_ERR_EMPTY_BATCH, "count = %lld", (long long)count);
    if (!banded_members_fit(shape))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "n = %lld, h = %d: a factor a member is held in the sequential form "
                           "only, and this system takes another (banded_form_of)",
                           (long long)banded_factor_size(shape),
                           banded_factor_half_bandwidth(shape));
    banded_members *b = calloc(1, sizeof *b);
    if (!b) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "banded_members");
    b->shape = *banded_factor_view(shape);
    b->count = count;
    b->values = banded_member_values(&b->shape);
    b->host = malloc((size_t)(b->values * count) * sizeof(double));
    if (!b->host) {
        free(b);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld factors of %lld values", (long long)count,
                           (long long)banded_member_values(banded_factor_view(shape)));
    }
    *out = b;
    return COHORT_OK;
}

void banded_members_free(banded_members *b)
{
    if (!b) return;
    free(b->host);
    free(b);
}

int banded_members_set(banded_members *b, int64_t m, const banded_factor *f)
{
    if (!b || !f) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "members and factor are required");
    if (m < 0 || m >= b->count)
        return COHORT_FAIL(COHORT_ERR_SUBBATCH_RANGE, "member %lld of %lld", (long long)m,
                           (long long)b->count);
    const banded_view *v = banded_factor_view(f);
    if (!banded_same_shape(v, &b->shape))
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "member %lld: n = %lld, h = %d, border %d; the members' shape is n = "
                           "%lld, h = %d, border %d",
                           (long long)m, (long long)v->n, v->h, v->border, (long long)b->shape.n,
                           b->shape.h, b->shape.border);
    double *dst = b->host + m;
    const int64_t coef_values = banded_member_spike_at(v), spike_values = v->n_band * v->border;
    for (int64_t j = 0; j < coef_values; ++j) dst[j * b->count] = v->coef[j];
    dst += coef_values * b->count;
    for (int64_t j = 0; j < spike_values; ++j) dst[j * b->count] = v->spike[j];
    dst += spike_values * b->count;
    if (!v->border) return COHORT_OK;
    const double *bc = &v->border_coef[0][0], *si = &v->schur_inv[0][0];
    for (int j = 0; j < BANDED_BORDER_COEF_VALUES; ++j) dst[j * b->count] = bc[j];
    dst += BANDED_BORDER_COEF_VALUES * b->count;
    for (int j = 0; j < BANDED_MAX_HALF_BANDWIDTH * BANDED_MAX_HALF_BANDWIDTH; ++j)
        dst[j * b->count] = si[j];
    return COHORT_OK;
}

const double *banded_members_host(const banded_members *b, int64_t *count,
                                  const banded_view **shape)
{
    *count = b->count;
    *shape = &b->shape;
    return b->host;
}
