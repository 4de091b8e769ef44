/* compare_nc A.nc B.nc [VAR...]: the named variables (all of A's without names) have the same
 * type, shape and bytes in both files. Exit 0 when all are identical, 1 when one differs or is
 * missing, 2 when a file cannot be read. Plain NetCDF-C, so it runs where Python does not (the
 * GPU machine). */
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

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: compare_nc A.nc B.nc [VAR...]\n");
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
    for (int v = 0; v < nvars; ++v) {
        char name[NC_MAX_NAME + 1], shape_a[256] = "", shape_b[256] = "";
        if (argc > 3)
            snprintf(name, sizeof name, "%s", argv[3 + v]);
        else
            nc_inq_varname(a, v, name);
        nc_type ta = 0, tb = 0;
        size_t na = 0, nb = 0, bytes_a = 0, bytes_b = 0;
        unsigned char *da = read_var(a, name, &ta, &na, &bytes_a, shape_a, sizeof shape_a);
        unsigned char *db = read_var(b, name, &tb, &nb, &bytes_b, shape_b, sizeof shape_b);
        const int same = da && db && ta == tb && !strcmp(shape_a, shape_b) && bytes_a == bytes_b &&
                         memcmp(da, db, bytes_a) == 0;
        if (same) {
            ++passed;
        } else {
            ++failed;
            printf("FAIL %s: %s (%s) vs %s (%s)\n", name, da ? "present" : "missing", shape_a,
                   db ? "present" : "missing", shape_b);
        }
        free(da), free(db);
    }
    nc_close(a), nc_close(b);
    printf("%d identical, %d differ\n", passed, failed);
    return failed ? 1 : 0;
}
