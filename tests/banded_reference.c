#include "banded_reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

gsl_rng *reference_rng_alloc(const char *test_name)
{
    const char *env = getenv("COHORT_TEST_SEED");
    unsigned long seed =
        env ? strtoul(env, NULL, 10) : (unsigned long)time(NULL) ^ (unsigned long)clock();
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (rng) gsl_rng_set(rng, seed);
    printf("%s: COHORT_TEST_SEED=%lu\n", test_name, seed);
    return rng;
}

void reference_random_diagonals(gsl_rng *rng, int64_t n, int h, double **diagonals)
{
    for (int64_t i = 0; i < n; ++i) {
        double off = 0.0;
        for (int o = 0; o <= 2 * h; ++o) {
            if (o == h) continue;
            diagonals[o][i] = 4.0 * gsl_rng_uniform(rng) - 2.0;
            off += fabs(diagonals[o][i]);
        }
        const double sign = gsl_rng_uniform(rng) < 0.5 ? -1.0 : 1.0;
        diagonals[h][i] = sign * (off + 0.5 + 2.0 * gsl_rng_uniform(rng));
    }
}

int reference_dense_alloc(int64_t n, int h, double *const *diagonals, int periodic,
                          reference_dense *out)
{
    out->n = n;
    out->lu = gsl_matrix_calloc((size_t)n, (size_t)n);
    out->perm = gsl_permutation_alloc((size_t)n);
    out->b = gsl_vector_alloc((size_t)n);
    out->x = gsl_vector_alloc((size_t)n);
    if (!out->lu || !out->perm || !out->b || !out->x) return -1;
    for (int64_t i = 0; i < n; ++i)
        for (int o = -h; o <= h; ++o) {
            int64_t col = i + o;
            if (col < 0 || col >= n) {
                if (!periodic) continue;
                col = (col + n) % n;
            }
            gsl_matrix_set(out->lu, (size_t)i, (size_t)col, diagonals[o + h][i]);
        }
    int signum = 0;
    return gsl_linalg_LU_decomp(out->lu, out->perm, &signum);
}

void reference_dense_free(reference_dense *r)
{
    gsl_matrix_free(r->lu);
    gsl_permutation_free(r->perm);
    gsl_vector_free(r->b);
    gsl_vector_free(r->x);
}

void reference_dense_solve(reference_dense *r, const double *d, int64_t ld, int64_t m, double *x)
{
    for (int64_t i = 0; i < r->n; ++i) gsl_vector_set(r->b, (size_t)i, d[i * ld + m]);
    gsl_linalg_LU_solve(r->lu, r->perm, r->b, r->x);
    for (int64_t i = 0; i < r->n; ++i) x[i] = gsl_vector_get(r->x, (size_t)i);
}
