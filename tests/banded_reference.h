/* Independent references for the banded solver tests: random systems, and GSL's dense LU with
 * partial pivoting of the full N x N matrix (corners included for periodic systems). */
#ifndef COHORT_BANDED_REFERENCE_H
#define COHORT_BANDED_REFERENCE_H

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>

/* A Mersenne twister seeded from COHORT_TEST_SEED, or from the clock (fresh inputs every run);
 * the seed is printed so a failure can be replayed. */
gsl_rng *reference_rng_alloc(const char *test_name);

/* 2h+1 diagonals of length n: non-symmetric, varying along the diagonal, strictly diagonally
 * dominant (|diag| >= sum |off| + 0.5), the diagonal's sign random per row. */
void reference_random_diagonals(gsl_rng *rng, int64_t n, int h, double **diagonals);

typedef struct reference_dense {
    int64_t n;
    gsl_matrix *lu;
    gsl_permutation *perm;
    gsl_vector *b, *x;
} reference_dense;

/* Builds the full matrix the way banded.h documents the diagonals, and factors it with GSL. */
int reference_dense_alloc(int64_t n, int h, double *const *diagonals, int periodic,
                          reference_dense *out);
void reference_dense_free(reference_dense *r);

/* x = A^{-1} d for member m of the interleaved array d (ld = M); x has n entries. */
void reference_dense_solve(reference_dense *r, const double *d, int64_t ld, int64_t m, double *x);

#endif
