/* The 2D stencil layer (solvers/stencil) on one backend: weights stencils in x, y and xy (1 x 9,
 * 3 x 3, 3 x 5, 5 x 5), periodic and bounded, on odd-sized batched fields, against the analytic
 * derivatives of trigonometric fields, with the expected order of accuracy from two grid sizes;
 * bounded stencils leave the boundary cells alone; sub-batches leave the other members alone;
 * the compile-time point operator equals the weights form to rounding; bad shapes are refused.
 * Usage: test_stencil --backend cpu|cuda (77: no device). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stencil/stencil.h"
#include "test_common.h"

enum { MEMBERS = 3 };
static const double TWO_PI = 6.283185307179586;

/* A member's field and its derivatives: f = sin(a x + ph) cos(b y + ps) (periodic on (0, 2pi)^2
 * for whole a, b); which = 0 f, 1 f_xx, 2 f_yy, 3 f_xy, 4 f_xx + f_yy, 5 lap^2 f. */
static double field(int which, int m, double x, double y)
{
    const double a = 1.0 + m, b = 2.0, ph = 0.3 * m, ps = 0.7 - 0.2 * m;
    const double s = sin(a * x + ph), c = cos(b * y + ps);
    switch (which) {
    case 0:
        return s * c;
    case 1:
        return -a * a * s * c;
    case 2:
        return -b * b * s * c;
    case 3:
        return -a * b * cos(a * x + ph) * sin(b * y + ps);
    case 4:
        return -(a * a + b * b) * s * c;
    default:
        return (a * a + b * b) * (a * a + b * b) * s * c;
    }
}

typedef struct shape {
    const char *name;
    stencil_direction direction;
    int left, right, top, bottom;
    double weights[81];
    int which, order;
} shape;

/* Weights for spacing h (1 x 9 stencils scale by 1/h^2, etc.). */
static void scaled_weights(const shape *s, double dx, double dy, double *w)
{
    const int width = s->left + s->right + 1, height = s->top + s->bottom + 1;
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c) {
            double scale = 1.0;
            switch (s->which) {
            case 1:
                scale = 1.0 / (dx * dx);
                break;
            case 2:
                scale = 1.0 / (dy * dy);
                break;
            case 3:
                scale = 1.0 / (dx * dy);
                break;
            case 4: /* square grids: dx = dy */
                scale = 1.0 / (dx * dx);
                break;
            case 5:
                scale = 1.0 / (dx * dx * dy * dy);
                break;
            }
            w[r * width + c] = s->weights[r * width + c] * scale;
        }
}

/* The largest error of the stencil at the points it writes, on an nx x ny grid over (0, L)^2
 * (periodic: L = 2 pi; bounded: L = 1.8 pi, so the field does not repeat, and large enough that
 * the 8th-order error stays above rounding; points at i dx); checks that bounded boundary cells and
 * members outside the sub-batch keep their poison. */
static double stencil_error(const cohort_backend *be, const shape *s, stencil_boundary bc,
                            int64_t nx, int64_t ny)
{
    const double length = bc == STENCIL_PERIODIC ? TWO_PI : 0.9 * TWO_PI;
    const double dx = length / (double)nx, dy = length / (double)ny, poison = -12345.0;
    const size_t values = (size_t)(nx * ny * MEMBERS);
    double *u = malloc(values * sizeof(double)), *got = malloc(values * sizeof(double));
    double w[81], *du = NULL, *dout = NULL;
    for (int64_t j = 0; j < ny; ++j)
        for (int64_t i = 0; i < nx; ++i)
            for (int m = 0; m < MEMBERS; ++m)
                u[(j * nx + i) * MEMBERS + m] = field(0, m, (double)i * dx, (double)j * dy);
    scaled_weights(s, dx, dy, w);
    stencil *st = NULL;
    int rc =
        stencil_create(be, s->direction, bc, nx, ny, s->left, s->right, s->top, s->bottom, w, &st);
    if (rc == COHORT_OK) rc = be->alloc((void **)&du, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&dout, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(du, u, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->fill(dout, poison, values);
    /* members 1 .. MEMBERS-1 only: member 0 must keep its poison */
    if (rc == COHORT_OK) rc = stencil_compute(st, du, dout, MEMBERS, 1, MEMBERS - 1);
    if (rc == COHORT_OK) rc = be->copy_to_host(got, dout, values * sizeof(double));
    EXPECT(rc == COHORT_OK, "%s: %s", s->name, cohort_error_detail());
    double worst = 0.0;
    int untouched = 1;
    for (int64_t j = 0; rc == COHORT_OK && j < ny; ++j)
        for (int64_t i = 0; i < nx; ++i) {
            const int inside = bc == STENCIL_PERIODIC || (i >= s->left && i < nx - s->right &&
                                                          j >= s->top && j < ny - s->bottom);
            for (int m = 0; m < MEMBERS; ++m) {
                const double v = got[(j * nx + i) * MEMBERS + m];
                if (m == 0 || !inside)
                    untouched &= v == poison;
                else
                    worst =
                        fmax(worst, fabs(v - field(s->which, m, (double)i * dx, (double)j * dy)));
            }
        }
    EXPECT(untouched, "%s %s: a point outside the stencil's reach or the sub-batch was written",
           s->name, bc == STENCIL_PERIODIC ? "periodic" : "bounded");
    stencil_destroy(st);
    be->release(du), be->release(dout);
    free(u), free(got);
    return worst;
}

static void order_case(const cohort_backend *be, const shape *s, stencil_boundary bc, int64_t nx,
                       int64_t ny)
{
    const double e1 = stencil_error(be, s, bc, nx, ny),
                 e2 = stencil_error(be, s, bc, 2 * nx, 2 * ny);
    const double order = log2(e1 / e2);
    printf("%-28s %-8s %3lldx%-3lld error %.3e -> %.3e, order %.2f (expected %d)\n", s->name,
           bc == STENCIL_PERIODIC ? "periodic" : "bounded", (long long)nx, (long long)ny, e1, e2,
           order, s->order);
    EXPECT(fabs(order - s->order) <= 0.35, "%s: order %.2f, expected %d", s->name, order, s->order);
}

/* The point operator (Laplacian of C^3 - C) against the weights form applied to C^3 - C. */
static void operator_case(const cohort_backend *be, int64_t nx, int64_t ny)
{
    const double dx = TWO_PI / (double)nx, dy = TWO_PI / (double)ny;
    const size_t values = (size_t)(nx * ny * MEMBERS);
    double *u = malloc(values * sizeof(double)), *cubic = malloc(values * sizeof(double));
    double *by_op = malloc(values * sizeof(double)), *by_weights = malloc(values * sizeof(double));
    for (int64_t j = 0; j < ny; ++j)
        for (int64_t i = 0; i < nx; ++i)
            for (int m = 0; m < MEMBERS; ++m) {
                const size_t at = (size_t)((j * nx + i) * MEMBERS + m);
                u[at] = 1.3 * field(0, m, (double)i * dx, (double)j * dy);
                cubic[at] = u[at] * u[at] * u[at] - u[at];
            }
    const double w[9] = {0.0,
                         1.0 / (dy * dy),
                         0.0,
                         1.0 / (dx * dx),
                         -2.0 / (dx * dx) - 2.0 / (dy * dy),
                         1.0 / (dx * dx),
                         0.0,
                         1.0 / (dy * dy),
                         0.0};
    double *du = NULL, *dc = NULL, *dout = NULL;
    stencil *st = NULL;
    int rc = stencil_create(be, STENCIL_XY, STENCIL_PERIODIC, nx, ny, 1, 1, 1, 1, w, &st);
    if (rc == COHORT_OK) rc = be->alloc((void **)&du, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&dc, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->alloc((void **)&dout, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(du, u, values * sizeof(double));
    if (rc == COHORT_OK) rc = be->copy_to_device(dc, cubic, values * sizeof(double));
    if (rc == COHORT_OK) rc = stencil_compute(st, dc, dout, MEMBERS, 0, MEMBERS);
    if (rc == COHORT_OK) rc = be->copy_to_host(by_weights, dout, values * sizeof(double));
    const stencil_op_args a = {{du, NULL, NULL}, {1.0 / (dx * dx), 1.0 / (dy * dy)}};
    if (rc == COHORT_OK)
        rc = stencil_operator_compute(be, STENCIL_OP_LAPLACIAN_CUBIC, &a, STENCIL_PERIODIC, dout,
                                      nx, ny, MEMBERS, 0, MEMBERS);
    if (rc == COHORT_OK) rc = be->copy_to_host(by_op, dout, values * sizeof(double));
    EXPECT(rc == COHORT_OK, "operator: %s", cohort_error_detail());
    double worst = 0.0, scale = 0.0;
    for (size_t v = 0; rc == COHORT_OK && v < values; ++v) {
        worst = fmax(worst, fabs(by_op[v] - by_weights[v]));
        scale = fmax(scale, fabs(by_weights[v]));
    }
    EXPECT(rc == COHORT_OK && worst <= 1e-13 * scale, "point operator vs weights: %.3e of %.3e",
           worst, scale);
    const stencil_op_args missing = {{NULL, NULL, NULL}, {0}};
    EXPECT(stencil_operator_compute(be, STENCIL_OP_LAPLACIAN_CUBIC, &missing, STENCIL_PERIODIC,
                                    dout, nx, ny, MEMBERS, 0, MEMBERS) == COHORT_ERR_NULL_POINTER,
           "an operator without its input is refused");
    stencil_destroy(st);
    be->release(du), be->release(dc), be->release(dout);
    free(u), free(cubic), free(by_op), free(by_weights);
}

/* One member (ld = 1, the single-field path) and a bounded 5 x 3 box, against the cpu backend. */
static void single_member_case(const cohort_backend *be)
{
    const int64_t nx = 53, ny = 45, n = nx * ny;
    double w[15], *u = malloc((size_t)n * sizeof(double)),
                  *got = malloc((size_t)n * sizeof(double));
    double *ref = malloc((size_t)n * sizeof(double)), *dev = NULL, *dout = NULL;
    for (int k = 0; k < 15; ++k) w[k] = 0.1 * (k + 1) - 0.7;
    for (int64_t v = 0; v < n; ++v) u[v] = sin(0.37 * (double)v) + 0.01 * (double)(v % 13);
    for (int b = 0; b < 2; ++b) {
        const stencil_boundary bc = b ? STENCIL_BOUNDED : STENCIL_PERIODIC;
        stencil *st = NULL, *st_cpu = NULL;
        int rc = stencil_create(be, STENCIL_XY, bc, nx, ny, 2, 2, 1, 1, w, &st);
        if (rc == COHORT_OK)
            rc =
                stencil_create(&cohort_backend_cpu, STENCIL_XY, bc, nx, ny, 2, 2, 1, 1, w, &st_cpu);
        if (rc == COHORT_OK) rc = be->alloc((void **)&dev, (size_t)n * sizeof(double));
        if (rc == COHORT_OK) rc = be->alloc((void **)&dout, (size_t)n * sizeof(double));
        if (rc == COHORT_OK) rc = be->copy_to_device(dev, u, (size_t)n * sizeof(double));
        if (rc == COHORT_OK) rc = be->fill(dout, -7.0, (size_t)n);
        if (rc == COHORT_OK) rc = stencil_compute(st, dev, dout, 1, 0, 1);
        if (rc == COHORT_OK) rc = be->copy_to_host(got, dout, (size_t)n * sizeof(double));
        for (int64_t v = 0; v < n; ++v) ref[v] = -7.0;
        if (rc == COHORT_OK) rc = stencil_compute(st_cpu, u, ref, 1, 0, 1);
        double worst = 0.0;
        for (int64_t v = 0; v < n; ++v) worst = fmax(worst, fabs(got[v] - ref[v]));
        EXPECT(rc == COHORT_OK && worst == 0.0, "one member, %s: %.3e (%s)",
               b ? "bounded" : "periodic", worst, rc == COHORT_OK ? "" : cohort_error_detail());
        stencil_destroy(st), stencil_destroy(st_cpu);
        be->release(dev), be->release(dout);
        dev = dout = NULL;
    }
    free(u), free(got), free(ref);
}

static void bad_inputs(const cohort_backend *be)
{
    const double w[25] = {0};
    stencil *st = NULL;
    EXPECT(stencil_create(be, STENCIL_X, STENCIL_PERIODIC, 8, 8, 1, 1, 1, 0, w, &st) ==
               COHORT_ERR_INVALID_ARGUMENT,
           "x with a top row");
    EXPECT(stencil_create(be, STENCIL_Y, STENCIL_PERIODIC, 8, 8, 1, 0, 1, 1, w, &st) ==
               COHORT_ERR_INVALID_ARGUMENT,
           "y with a left column");
    EXPECT(stencil_create(be, STENCIL_X, STENCIL_PERIODIC, 3, 8, 3, 1, 0, 0, w, &st) ==
               COHORT_ERR_INVALID_ARGUMENT,
           "periodic reach beyond the field");
    EXPECT(stencil_create(be, STENCIL_XY, STENCIL_BOUNDED, 0, 8, 1, 1, 1, 1, w, &st) ==
               COHORT_ERR_SIZE_TOO_SMALL,
           "nx = 0");
    double wide[19] = {0};
    EXPECT(stencil_create(be, STENCIL_X, STENCIL_BOUNDED, 64, 8, 9, 9, 0, 0, wide, &st) ==
               COHORT_ERR_INVALID_ARGUMENT,
           "reach beyond 8 refused");
    const double nan_w[3] = {1.0, NAN, 1.0};
    EXPECT(stencil_create(be, STENCIL_X, STENCIL_PERIODIC, 8, 8, 1, 1, 0, 0, nan_w, &st) ==
               COHORT_ERR_INVALID_ARGUMENT,
           "NaN weight");
    EXPECT(st == NULL, "nothing created on failure");
}

int main(int argc, char **argv)
{
    const cohort_backend *be = test_backend(argc, argv, "cpu");
    bad_inputs(be);
    static const shape shapes[] = {
        {"x: 3-point d2/dx2", STENCIL_X, 1, 1, 0, 0, {1, -2, 1}, 1, 2},
        {"x: 5-point d2/dx2",
         STENCIL_X,
         2,
         2,
         0,
         0,
         {-1.0 / 12, 16.0 / 12, -30.0 / 12, 16.0 / 12, -1.0 / 12},
         1,
         4},
        {"x: 9-point d2/dx2",
         STENCIL_X,
         4,
         4,
         0,
         0,
         {-1.0 / 560, 8.0 / 315, -1.0 / 5, 8.0 / 5, -205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315,
          -1.0 / 560},
         1,
         8},
        {"y: 5-point d2/dy2",
         STENCIL_Y,
         0,
         0,
         2,
         2,
         {-1.0 / 12, 16.0 / 12, -30.0 / 12, 16.0 / 12, -1.0 / 12},
         2,
         4},
        {"xy: 3x3 d2/dxdy",
         STENCIL_XY,
         1,
         1,
         1,
         1,
         {0.25, 0, -0.25, 0, 0, 0, -0.25, 0, 0.25},
         3,
         2},
        {"xy: 5x5 biharmonic",
         STENCIL_XY,
         2,
         2,
         2,
         2,
         /* delta_x^4 + 2 delta_x^2 delta_y^2 + delta_y^4 on a square grid (dx = dy) */
         {0, 0, 1, 0, 0, 0, 2, -8, 2, 0, 1, -8, 20, -8, 1, 0, 2, -8, 2, 0, 0, 0, 1, 0, 0},
         5,
         2},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k) {
        /* the biharmonic's weights assume dx = dy: square grids for it */
        const int64_t nx = k == 2 ? 23 : 37, ny = k == 5 ? 37 : 41;
        order_case(be, &shapes[k], STENCIL_PERIODIC, nx, ny);
        order_case(be, &shapes[k], STENCIL_BOUNDED, nx, ny);
    }
    /* a 3 x 5 block: d2/dx2 to 2nd order plus d2/dy2 to 4th, the Laplacian to 2nd order */
    shape cross = {"xy: 3x5 Laplacian", STENCIL_XY, 1, 1, 2, 2, {0}, 4, 2};
    const double cx[3] = {1, -2, 1},
                 cy[5] = {-1.0 / 12, 16.0 / 12, -30.0 / 12, 16.0 / 12, -1.0 / 12};
    for (int r = 0; r < 5; ++r) /* the grid is square (dx = dy), so one 1/h^2 serves both */
        for (int c = 0; c < 3; ++c)
            cross.weights[r * 3 + c] = (r == 2 ? cx[c] : 0.0) + (c == 1 ? cy[r] : 0.0);
    order_case(be, &cross, STENCIL_PERIODIC, 39, 39);
    order_case(be, &cross, STENCIL_BOUNDED, 39, 39);
    operator_case(be, 37, 41);
    single_member_case(be);
    /* a reach beyond the compile-time boxes (the generic kernel on cuda): the 17-point 16th-order
     * second derivative would do, but a 11-point 10th-order one shows the order */
    const shape wide = {"x: 11-point d2/dx2",
                        STENCIL_X,
                        5,
                        5,
                        0,
                        0,
                        {8.0 / 25200, -125.0 / 25200, 1000.0 / 25200, -6000.0 / 25200,
                         42000.0 / 25200, -73766.0 / 25200, 42000.0 / 25200, -6000.0 / 25200,
                         1000.0 / 25200, -125.0 / 25200, 8.0 / 25200},
                        1,
                        10};
    order_case(be, &wide, STENCIL_BOUNDED, 19, 9);
    return test_summary();
}
