/* The Runge-Kutta-Merson loops on the cpu backend (rkm_kernels.h): OpenMP over members. */
#include "ode/rkm_kernels.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "backend/cohort_error.h"

static int rkm_begin_cpu(rkm_member *s, double t_to, int64_t count, int64_t *active)
{
    int64_t a = 0;
#pragma omp parallel for reduction(+ : a) schedule(static)
    for (int64_t m = 0; m < count; ++m) a += rkm_member_begin(&s[m], t_to);
    if (active) *active = a;
    return COHORT_OK;
}

static int rkm_stage_cpu(int stage, const rkm_member *s, const double *u, const double *k1,
                         const double *k2, const double *k3, const double *k4, double *t_stage,
                         double *arg, int64_t n, int64_t ld, int64_t count)
{
    const double c = rkm_stage_time_fraction(stage);
    for (int64_t m = 0; m < count; ++m) t_stage[m] = s[m].t + c * s[m].h;
    if (stage == 1) return COHORT_OK;
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; ++v)
        for (int64_t m = 0; m < count; ++m) {
            const int64_t q = v * ld + m;
            arg[q] = rkm_stage_argument(stage, u[q], s[m].h, k1[q], stage == 3 ? k2[q] : 0.0,
                                        stage >= 4 ? k3[q] : 0.0, stage == 5 ? k4[q] : 0.0);
        }
    return COHORT_OK;
}

/* The larger of a and b, NaN once either is NaN (fmax would drop it). */
static inline double max_keep_nan(double a, double b)
{
    return b > a || b != b ? b : a;
}

/* Threads take slices of the points of every member (a single large member still uses them all),
 * each keeping its own maxima; max is exact in any order, so e does not depend on the threads. */
static int rkm_finish_cpu(rkm_member *s, double t_to, double tolerance, double *u, const double *k1,
                          const double *k3, const double *k4, const double *k5, int64_t n,
                          int64_t ld, int64_t count)
{
    const int threads = omp_get_max_threads();
    double *e = calloc((size_t)count * (size_t)(threads + 1), sizeof *e);
    if (!e) {
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "errors of %lld members", (long long)count);
    }
#pragma omp parallel num_threads(threads)
    {
        double *mine = e + (size_t)count * (size_t)(omp_get_thread_num() + 1);
#pragma omp for schedule(static)
        for (int64_t v = 0; v < n; ++v)
            for (int64_t m = 0; m < count; ++m) {
                const int64_t q = v * ld + m;
                if (s[m].h != 0.0)
                    mine[m] =
                        max_keep_nan(mine[m], rkm_error_point(s[m].h, k1[q], k3[q], k4[q], k5[q]));
            }
    }
    for (int th = 1; th <= threads; ++th)
        for (int64_t m = 0; m < count; ++m) e[m] = max_keep_nan(e[m], e[(size_t)count * th + m]);
    for (int64_t m = 0; m < count; ++m) {
        if (s[m].h != 0.0) s[m].e = e[m];
        rkm_member_control(&s[m], t_to, tolerance);
    }
    free(e);
#pragma omp parallel for schedule(static)
    for (int64_t v = 0; v < n; ++v)
        for (int64_t m = 0; m < count; ++m)
            if (s[m].update) {
                const int64_t q = v * ld + m;
                u[q] = rkm_update_value(u[q], s[m].h, k1[q], k4[q], k5[q]);
            }
    return COHORT_OK;
}

const rkm_kernels rkm_kernels_cpu = {rkm_begin_cpu, rkm_stage_cpu, rkm_finish_cpu};
