/* The batched banded solve on the cpu backend: OpenMP over blocks of members. Within a block the
 * sweeps run row by row across the block's members, so the inner loop is unit-stride in the
 * interleaved layout and vectorises; the arithmetic is banded_numerics.h's, as on the GPU, in
 * the form banded_form_of gives the system. */
#include <stdlib.h>

#include "backend/cohort_error.h"
#include "banded/banded_cpu.h"
#include "banded/banded_kernels.h"

/* 32 members = 256 bytes of each row: four cache lines, a whole vector loop. */
enum { CPU_MEMBER_BLOCK = 32 };

/* The band sweeps of members [mb, mb + width) of u, width <= CPU_MEMBER_BLOCK, with the factor
 * coef: member j of the block reads row i's coefficients at coef + i (2h + 1) cs + j ms, cs apart
 * (a shared factor: cs = 1, ms = 0; the members' own, banded_view.member_factor + mb: cs =
 * member_ld, ms = 1). h, cs and ms are literals at the shared factor's call sites so that the
 * branches on them fold away. */
static inline void cpu_banded_block(const double *coef, int64_t cs, int64_t ms, int64_t nb, int h,
                                    double *u, int64_t ld, int64_t mb, int64_t width)
{
    const int64_t stride = (2 * h + 1) * cs;
    double *x = u + mb;
    /* rows outside [0, n_band) enter as 0 (their coefficients in the factor are 0 too) */
    static const double zeros[CPU_MEMBER_BLOCK];
    for (int64_t i = 0; i < nb; ++i) {
        const double *row = coef + i * stride;
        const double *y1 = i >= 1 ? x + (i - 1) * ld : zeros;
        const double *y2 = i >= 2 ? x + (i - 2) * ld : zeros;
        double *d = x + i * ld;
        for (int64_t j = 0; j < width; ++j) {
            const double prev[2] = {y1[j], y2[j]};
            d[j] = banded_forward_value_at(row + j * ms, cs, h, d[j], prev);
        }
    }
    for (int64_t i = nb - 1; i >= 0; --i) {
        const double *row = coef + i * stride;
        const double *x1 = i + 1 < nb ? x + (i + 1) * ld : zeros;
        const double *x2 = i + 2 < nb ? x + (i + 2) * ld : zeros;
        double *y = x + i * ld;
        for (int64_t j = 0; j < width; ++j) {
            const double next[2] = {x1[j], x2[j]};
            y[j] = banded_backward_value_at(row + j * ms, cs, h, y[j], next);
        }
    }
}

/* The periodic closure of the block's members (x: the first one's column, mb its index), x_t = p
 * - Q x_b, with x_b stored member-contiguous so that the correction runs unit-stride across the
 * members. The spike's rows as cpu_banded_block's coefficients (member j's at spike + i border cs
 * + j ms), the border blocks the shared factor's (ms = 0) or each member's own; border, cs and ms
 * are literals at the shared factor's call sites, which lets the loops vectorise. */
static inline void cpu_border_block(const banded_view *v, int border, const double *spike,
                                    int64_t cs, int64_t ms, double *x, int64_t ld, int64_t mb,
                                    int64_t width)
{
    const int64_t nb = v->n_band;
    double xb[BANDED_MAX_HALF_BANDWIDTH][CPU_MEMBER_BLOCK];
    for (int64_t j = 0; j < width; ++j) {
        double xb_j[BANDED_MAX_HALF_BANDWIDTH];
        const banded_border_blocks b =
            ms ? banded_border_of_member(v, mb + j) : banded_border_shared(v);
        banded_border_solve_at(v, b, border, x + j, ld, xb_j);
        for (int k = 0; k < border; ++k) xb[k][j] = xb_j[k];
    }
    for (int64_t i = 0; i < nb; ++i) {
        const double *q_row = spike + i * border * cs;
        double *p = x + i * ld;
        for (int64_t j = 0; j < width; ++j) {
            const double xb_j[BANDED_MAX_HALF_BANDWIDTH] = {xb[0][j], border > 1 ? xb[1][j] : 0.0};
            p[j] = banded_border_correct_at(q_row + j * ms, cs, border, p[j], xb_j);
        }
    }
    for (int k = 0; k < border; ++k)
        for (int64_t j = 0; j < width; ++j) x[(nb + k) * ld + j] = xb[k][j];
}

/* A block of members through the sweeps and the closure, h and border literals: with the shared
 * factor, or each member with its own. */
static inline void cpu_block(const banded_view *v, int h, int border, double *u, int64_t ld,
                             int64_t mb, int64_t width)
{
    if (v->member_factor) {
        const double *own = v->member_factor + mb;
        cpu_banded_block(own, v->member_ld, 1, v->n_band, h, u, ld, mb, width);
        if (border)
            cpu_border_block(v, border, own + banded_member_spike_at(v) * v->member_ld,
                             v->member_ld, 1, u + mb, ld, mb, width);
        return;
    }
    cpu_banded_block(v->coef, 1, 0, v->n_band, h, u, ld, mb, width);
    if (border) cpu_border_block(v, border, v->spike, 1, 0, u + mb, ld, mb, width);
}

/* The partitioned and the chunked forms (banded_form_of), the arithmetic of the cuda backend's
 * tiled and chunked kernels (banded_numerics.h), so that both backends give the same bits. Each
 * system goes through its form alone, so a thread gathers CPU_FORM_BLOCK members' rows (one cache
 * line of each row) into its own contiguous columns, solves them there, and scatters them back:
 * solved in place at the interleaved stride, every row of a long system was a TLB miss. */
enum { CPU_FORM_BLOCK = 8 };

/* One contiguous system x[0 .. n) in its form, in place (tips: the form's workspace). */
static void cpu_form_system(const banded_view *v, banded_form form, double *x, double *tips)
{
    if (form == BANDED_FORM_CHUNKED) {
        banded_chunked_system_solve(v, v->h, v->border, x, 1, tips);
        return;
    }
    if (v->h == 1)
        banded_partitioned_band_solve(v, 1, x, 1, tips);
    else
        banded_partitioned_band_solve(v, 2, x, 1, tips);
    if (v->border) banded_border_close(v, v->border, x, 1);
}

/* Members [mb, mb + width) of u through their form, by way of columns (width x n doubles). */
static void cpu_form_block(const banded_view *v, banded_form form, double *u, int64_t ld,
                           int64_t mb, int64_t width, double *columns, double *tips)
{
    const int64_t n = v->n;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < width; ++j) columns[j * n + i] = u[i * ld + mb + j];
    for (int64_t j = 0; j < width; ++j) cpu_form_system(v, form, columns + j * n, tips);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < width; ++j) u[i * ld + mb + j] = columns[j * n + i];
}

static int cpu_form_solve(const banded_view *v, banded_form form, double *u, int64_t ld, int64_t m0,
                          int64_t count, int64_t groups, int64_t group_stride)
{
    const int64_t tips_n = form == BANDED_FORM_PARTITIONED ? v->red_n : 2 * v->h * v->n_chunk;
    const int64_t blocks = (count + CPU_FORM_BLOCK - 1) / CPU_FORM_BLOCK;
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        double *tips = malloc((size_t)(tips_n > 0 ? tips_n : 1) * sizeof *tips);
        double *columns = malloc((size_t)(CPU_FORM_BLOCK * v->n) * sizeof *columns);
        failed = !tips || !columns;
#pragma omp for schedule(static)
        for (int64_t gb = 0; gb < groups * blocks; ++gb) {
            if (!tips || !columns) continue;
            const int64_t mb = m0 + (gb % blocks) * CPU_FORM_BLOCK;
            const int64_t width =
                m0 + count - mb < CPU_FORM_BLOCK ? m0 + count - mb : CPU_FORM_BLOCK;
            cpu_form_block(v, form, u + (gb / blocks) * group_stride, ld, mb, width, columns, tips);
        }
        free(tips);
        free(columns);
    }
    return failed ? COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld doubles of a solve's workspace",
                                (long long)(tips_n + CPU_FORM_BLOCK * v->n))
                  : COHORT_OK;
}

int banded_cpu_solve(const banded_view *v, double *u, int64_t ld, int64_t m0, int64_t count,
                     int64_t groups, int64_t group_stride)
{
    const banded_form form = banded_form_of(v);
    if (form != BANDED_FORM_SEQUENTIAL)
        return cpu_form_solve(v, form, u, ld, m0, count, groups, group_stride);
    const int64_t blocks = (count + CPU_MEMBER_BLOCK - 1) / CPU_MEMBER_BLOCK;
    const int h = v->h, border = v->border;
#pragma omp parallel for schedule(static)
    for (int64_t gb = 0; gb < groups * blocks; ++gb) {
        const int64_t b = gb % blocks;
        double *u_group = u + (gb / blocks) * group_stride;
        const int64_t mb = m0 + b * CPU_MEMBER_BLOCK;
        const int64_t width =
            m0 + count - mb < CPU_MEMBER_BLOCK ? m0 + count - mb : CPU_MEMBER_BLOCK;
        if (h == 1 && border == 0)
            cpu_block(v, 1, 0, u_group, ld, mb, width);
        else if (h == 1)
            cpu_block(v, 1, 1, u_group, ld, mb, width);
        else if (border == 0)
            cpu_block(v, 2, 0, u_group, ld, mb, width);
        else
            cpu_block(v, 2, 2, u_group, ld, mb, width);
    }
    return COHORT_OK;
}

const banded_kernels banded_kernels_cpu = {.solve = banded_cpu_solve};
