/* One periodic pentadiagonal matrix, factored once, and a batch of right-hand sides solved with
 * it through the installed libcohort: the implicit part of a Crank-Nicolson step of
 * C_t = -C_xxxx, (1 + r d^4) x = b, for M members. Build: cc banded_periodic_batch.c
 * $(pkg-config --cflags --libs cohort), or find_package(cohort) and link cohort::cohort. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "banded/banded.h"

int main(void)
{
    enum { N = 64, M = 1000 };
    const double r = 0.25, entries[5] = {r, -4 * r, 1 + 6 * r, -4 * r, r};
    const cohort_backend *be = NULL;
    banded_factor *f = NULL;
    banded_solver *s = NULL;
    double *b = malloc(sizeof(double) * N * M), *x = malloc(sizeof(double) * N * M), *u = NULL;
    if (cohort_backend_get("auto", &be) || banded_constant_factor_alloc(N, 2, entries, 1, &f) ||
        banded_solver_alloc(be, f, &s) || be->alloc((void **)&u, sizeof(double) * N * M)) {
        fprintf(stderr, "set-up: %s\n", cohort_error_detail());
        return 1;
    }
    for (int i = 0; i < N; ++i) /* member m: a cosine of mode m % 7, interleaved u[i M + m] */
        for (int m = 0; m < M; ++m) b[i * M + m] = cos(6.283185307179586 * (m % 7) * i / N);
    if (be->copy_to_device(u, b, sizeof(double) * N * M) || banded_solver_solve(s, u, M, 0, M) ||
        be->synchronize() || be->copy_to_host(x, u, sizeof(double) * N * M)) {
        fprintf(stderr, "solve: %s\n", cohort_error_detail());
        return 1;
    }
    double worst = 0; /* the residual of every member against the matrix itself */
    for (int m = 0; m < M; ++m) {
        double y[N];
        banded_factor_apply_member(f, x, M, m, y);
        for (int i = 0; i < N; ++i) worst = fmax(worst, fabs(y[i] - b[i * M + m]));
    }
    printf("%d systems of %d on %s: max |Ax - b| = %.2e\n", M, N, be->name, worst);
    banded_solver_free(s), banded_factor_free(f), be->release(u), free(b), free(x);
    return worst < 1e-12 ? 0 : 1;
}
