/* compare_nc [--rtol R] [--attributes] [--skip VAR]... A.nc B.nc [VAR...]: the named variables
 * (all of A's without names, but those skipped) have the same type, shape and bytes in both files;
 * with --rtol, double variables may differ by |a - b| <= R max(1, |a|, |b|) element by element (NaN
 * only where the other is NaN), and the last line names the largest such difference and its
 * variable (what a tolerance is measured by). --attributes: A's global attributes of type double
 * (fits, dt) too, by the same rule. compare_nc --constant FILE VAR TOL: the double series VAR stays
 * within TOL of its first value. Exit 0 when all agree, 1 when one differs or is missing, 2 when a
 * file cannot be read. Plain NetCDF-C, so it runs where Python does not (the GPU machine). */
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bytes of variable `name` (malloc'd), its type and value count; NULL where it is absent. */
static unsigned char *read_var(int nc, const char *name, nc_type *type, size_t *values,
                               size_t *bytes, char *shape, size_t shape_len)
{
    int var, ndims, dims[NC_MAX_VAR_DIMS];
    if (nc_inq_varid(nc, name, &var) != NC_NOERR) return NULL;
    nc_inq_var(nc, var, NULL, type, &ndims, dims, NULL);
    size_t size = 1, type_size = 0, used = 0;
    shape[0] = '\0';
    for (int d = 0; d < ndims; ++d) {
        size_t len = 0;
        nc_inq_dimlen(nc, dims[d], &len);
        size *= len;
        used += (size_t)snprintf(shape + used, shape_len - used, "%s%zu", d ? "x" : "", len);
        if (used >= shape_len) used = shape_len - 1;
    }
    nc_inq_type(nc, *type, NULL, &type_size);
    *values = size;
    *bytes = size * type_size;
    unsigned char *data = malloc(*bytes ? *bytes : 1);
    if (data && *bytes && nc_get_var(nc, var, data) != NC_NOERR) {
        free(data);
        return NULL;
    }
    return data;
}

/* Element-wise agreement of two double arrays within rtol (compare_nc's rule). */
static int within(const double *a, const double *b, size_t n, double rtol, double *worst)
{
    int ok = 1;
    *worst = 0.0;
    for (size_t i = 0; i < n; ++i) {
        if (isnan(a[i]) || isnan(b[i])) {
            ok &= isnan(a[i]) && isnan(b[i]);
            continue;
        }
        const double scale = fmax(1.0, fmax(fabs(a[i]), fabs(b[i])));
        const double d = fabs(a[i] - b[i]) / scale;
        *worst = fmax(*worst, d);
        ok &= d <= rtol;
    }
    return ok;
}

/* Whether two variables' values of one type and count are the same: strings by their text (the
 * values read are pointers), the others bit for bit. */
static int same_values(nc_type type, const unsigned char *a, const unsigned char *b, size_t n,
                       size_t bytes)
{
    if (type != NC_STRING) return memcmp(a, b, bytes) == 0;
    const char *const *sa = (const char *const *)a, *const *sb = (const char *const *)b;
    for (size_t i = 0; i < n; ++i)
        if (!sa[i] != !sb[i] || (sa[i] && strcmp(sa[i], sb[i]))) return 0;
    return 1;
}

/* Frees what read_var returned (a string variable's strings too). */
static void free_var(nc_type type, unsigned char *data, size_t n)
{
    if (data && type == NC_STRING) nc_free_string(n, (char **)data);
    free(data);
}

/* Whether variable `name` is the same in files a and b (within rtol, doubles, where rtol >= 0);
 * *worst its largest relative difference where comparable. Prints what differs. */
static int compare_variable(int a, int b, const char *name, double rtol, double *worst)
{
    char shape_a[256] = "", shape_b[256] = "";
    nc_type ta = 0, tb = 0;
    size_t na = 0, nb = 0, bytes_a = 0, bytes_b = 0;
    unsigned char *da = read_var(a, name, &ta, &na, &bytes_a, shape_a, sizeof shape_a);
    unsigned char *db = read_var(b, name, &tb, &nb, &bytes_b, shape_b, sizeof shape_b);
    *worst = 0.0;
    const int comparable = da && db && ta == tb && !strcmp(shape_a, shape_b) && bytes_a == bytes_b;
    const int same =
        comparable && (rtol >= 0.0 && ta == NC_DOUBLE
                           ? within((const double *)da, (const double *)db, na, rtol, worst)
                           : same_values(ta, da, db, na, bytes_a));
    if (!same) {
        printf("FAIL %s: %s (%s) vs %s (%s)", name, da ? "present" : "missing", shape_a,
               db ? "present" : "missing", shape_b);
        if (comparable && rtol >= 0.0) printf(", worst relative difference %.3g", *worst);
        printf("\n");
    }
    free_var(ta, da, na), free_var(tb, db, nb);
    return same;
}

static int constant_series(const char *path, const char *name, double tol)
{
    int nc;
    if (nc_open(path, NC_NOWRITE, &nc) != NC_NOERR) {
        fprintf(stderr, "compare_nc: cannot open %s\n", path);
        return 2;
    }
    nc_type type = 0;
    size_t n = 0, bytes = 0;
    char shape[256];
    double *x = (double *)read_var(nc, name, &type, &n, &bytes, shape, sizeof shape);
    nc_close(nc);
    double worst = x && type == NC_DOUBLE && n ? 0.0 : INFINITY;
    for (size_t i = 1; x && type == NC_DOUBLE && i < n; ++i)
        worst = isnan(x[i]) ? INFINITY : fmax(worst, fabs(x[i] - x[0]));
    free(x);
    const int ok = worst <= tol;
    printf("%s %s: max |%s(i) - %s(0)| = %.3g (tolerance %.3g)\n", ok ? "ok" : "FAIL", path, name,
           name, worst, tol);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--constant"))
        return constant_series(argv[2], argv[3], strtod(argv[4], NULL));
    double rtol = -1.0; /* bitwise */
    int attributes = 0, n_skip = 0;
    const char *skip[32];
    for (int more = 1; more;) {
        more = 0;
        if (argc > 2 && !strcmp(argv[1], "--skip") && n_skip < 32) {
            skip[n_skip++] = argv[2];
            argc -= 2, argv += 2, more = 1;
        }
        if (argc > 2 && !strcmp(argv[1], "--rtol")) {
            rtol = strtod(argv[2], NULL);
            argc -= 2, argv += 2, more = 1;
        }
        if (argc > 1 && !strcmp(argv[1], "--attributes")) attributes = 1, --argc, ++argv, more = 1;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: compare_nc [--rtol R] [--attributes] [--skip VAR]... A.nc B.nc "
                        "[VAR...]\n"
                        "       compare_nc --constant FILE VAR TOL\n");
        return 2;
    }
    int a, b;
    if (nc_open(argv[1], NC_NOWRITE, &a) != NC_NOERR ||
        nc_open(argv[2], NC_NOWRITE, &b) != NC_NOERR) {
        fprintf(stderr, "compare_nc: cannot open %s or %s\n", argv[1], argv[2]);
        return 2;
    }
    int nvars = argc > 3 ? argc - 3 : 0;
    if (nvars == 0) nc_inq_nvars(a, &nvars);
    int passed = 0, failed = 0;
    double largest = 0.0;
    char largest_in[NC_MAX_NAME + 1] = "-";
    for (int v = 0; v < nvars; ++v) {
        char name[NC_MAX_NAME + 1];
        if (argc > 3)
            snprintf(name, sizeof name, "%s", argv[3 + v]);
        else
            nc_inq_varname(a, v, name);
        int skipped = 0;
        for (int k = 0; k < n_skip; ++k) skipped |= !strcmp(name, skip[k]);
        if (skipped) continue;
        double worst = 0.0;
        const int same = compare_variable(a, b, name, rtol, &worst);
        if (worst > largest) largest = worst, snprintf(largest_in, sizeof largest_in, "%s", name);
        passed += same, failed += !same;
    }
    int natts = 0;
    if (attributes) nc_inq_natts(a, &natts);
    for (int k = 0; k < natts; ++k) {
        char name[NC_MAX_NAME + 1];
        nc_type ta = 0, tb = 0;
        size_t la = 0, lb = 0;
        nc_inq_attname(a, NC_GLOBAL, k, name);
        nc_inq_att(a, NC_GLOBAL, name, &ta, &la);
        if (ta != NC_DOUBLE) continue;
        const int present = nc_inq_att(b, NC_GLOBAL, name, &tb, &lb) == NC_NOERR;
        double *va = calloc(la + 1, sizeof *va), *vb = calloc(lb + 1, sizeof *vb), worst = 0.0;
        const int comparable = va && vb && present && tb == NC_DOUBLE && la == lb &&
                               nc_get_att_double(a, NC_GLOBAL, name, va) == NC_NOERR &&
                               nc_get_att_double(b, NC_GLOBAL, name, vb) == NC_NOERR;
        const int same = comparable && (rtol >= 0.0 ? within(va, vb, la, rtol, &worst)
                                                    : !memcmp(va, vb, la * sizeof *va));
        if (same) {
            ++passed;
        } else {
            ++failed;
            printf("FAIL attribute %s: %s", name, present ? "differs" : "missing in B");
            if (comparable) printf(" (%.17g vs %.17g)", va[0], vb[0]);
            printf("\n");
        }
        free(va), free(vb);
    }
    nc_close(a), nc_close(b);
    printf("%d %s, %d differ", passed, rtol >= 0.0 ? "agree" : "identical", failed);
    if (rtol >= 0.0) printf("; largest difference %.3g (%s)", largest, largest_in);
    printf("\n");
    return failed ? 1 : 0;
}
