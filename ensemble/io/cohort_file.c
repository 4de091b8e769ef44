#include "io/cohort_file.h"

#include <math.h>
#include <netcdf.h>
#include <stdlib.h>
#include <string.h>

#include "exit_status.h"

_Static_assert(COHORT_FILE_NAME_MAX == NC_MAX_NAME + 1, "a dimension's name fits");
_Static_assert(COHORT_FILE_DIMS_MAX == NC_MAX_VAR_DIMS, "a variable's dimensions fit");

char *cohort_file_text(int nc, const char *name)
{
    return cohort_file_variable_text(nc, NC_GLOBAL, name);
}

char *cohort_file_variable_text(int grp, int var, const char *name)
{
    size_t len = 0;
    nc_type type;
    if (nc_inq_att(grp, var, name, &type, &len) != NC_NOERR || type != NC_CHAR) return NULL;
    char *text = calloc(len + 1, 1);
    if (text && nc_get_att_text(grp, var, name, text) != NC_NOERR) {
        free(text);
        return NULL;
    }
    return text;
}

static size_t dimension(int nc, const char *name)
{
    int id;
    size_t len = 0;
    if (nc_inq_dimid(nc, name, &id) == NC_NOERR) nc_inq_dimlen(nc, id, &len);
    return len;
}

int cohort_file_open(const char *path, int *nc, char **source, char **config, char *err, size_t len)
{
    *source = *config = NULL;
    const int status = nc_open(path, NC_NOWRITE, nc);
    if (status != NC_NOERR) {
        *nc = -1;
        snprintf(err, len, "%s: cannot open it as NetCDF: %s", path, nc_strerror(status));
        return EXIT_BAD_INPUT;
    }
    *source = cohort_file_text(*nc, "source");
    *config = cohort_file_text(*nc, "config");
    if (!*source || strncmp(*source, "cohort", 6) != 0 || !*config) {
        snprintf(err, len,
                 "%s: not a cohort file (no 'source' = cohort ... and 'config' global attributes)",
                 path);
        free(*source), free(*config);
        *source = *config = NULL;
        nc_close(*nc);
        *nc = -1;
        return EXIT_BAD_INPUT;
    }
    return 0;
}

int cohort_file_arithmetic(int nc)
{
    int generation = 1;
    nc_type type;
    size_t n = 0;
    if (nc_inq_att(nc, NC_GLOBAL, "cohort_arithmetic", &type, &n) != NC_NOERR || n != 1 ||
        nc_get_att_int(nc, NC_GLOBAL, "cohort_arithmetic", &generation) != NC_NOERR)
        return 1;
    return generation;
}

int cohort_file_describe(const char *path, FILE *out, char *err, size_t err_len)
{
    int nc = -1;
    char *source = NULL, *config = NULL;
    if (cohort_file_open(path, &nc, &source, &config, err, err_len)) return EXIT_BAD_INPUT;
    static const char *const text_attributes[] = {"model",  "history",   "backend",
                                                  "device", "libraries", "rng"};
    fprintf(out, "%s\n  made by   %s\n", path, source);
    for (size_t a = 0; a < sizeof text_attributes / sizeof text_attributes[0]; ++a) {
        char *text = cohort_file_text(nc, text_attributes[a]);
        if (text) { /* history holds a line per program that made the file */
            fprintf(out, "  %-9s ", text_attributes[a]);
            for (const char *c = text; *c; ++c)
                fprintf(out, *c == '\n' ? "\n            " : "%c", *c);
            fprintf(out, "\n");
        }
        free(text);
    }
    unsigned long long seed = 0;
    if (nc_get_att_ulonglong(nc, NC_GLOBAL, "seed", &seed) == NC_NOERR)
        fprintf(out, "  seed      %llu\n", seed);
    int t_id = -1;
    char records[64] = ""; /* a steady file has no t */
    if (nc_inq_dimid(nc, "t", &t_id) == NC_NOERR)
        snprintf(records, sizeof records, ", %zu records in t", dimension(nc, "t"));
    if (dimension(nc, "y") > 0) /* 2D members */
        fprintf(out, "  sizes     %zu members x %zu x %zu points (x, y)%s\n",
                dimension(nc, "member"), dimension(nc, "x"), dimension(nc, "y"), records);
    else
        fprintf(out, "  sizes     %zu members x %zu points%s\n", dimension(nc, "member"),
                dimension(nc, "x"), records);
    int nvars = 0, natts = 0;
    nc_inq(nc, NULL, &nvars, &natts, NULL);
    fprintf(out, "  variables");
    for (int v = 0; v < nvars; ++v) {
        char name[NC_MAX_NAME + 1];
        int ndims, dims[NC_MAX_VAR_DIMS];
        nc_inq_var(nc, v, name, NULL, &ndims, dims, NULL);
        fprintf(out, " %s(", name);
        for (int d = 0; d < ndims; ++d) {
            char dim[NC_MAX_NAME + 1];
            nc_inq_dimname(nc, dims[d], dim);
            fprintf(out, "%s%s", d ? ", " : "", dim);
        }
        fprintf(out, ")");
    }
    fprintf(out, "\n");
    for (int a = 0; a < natts; ++a) { /* numeric results: dt, fits, ... */
        char name[NC_MAX_NAME + 1];
        nc_type type;
        size_t len;
        nc_inq_attname(nc, NC_GLOBAL, a, name);
        nc_inq_att(nc, NC_GLOBAL, name, &type, &len);
        double value;
        if (type == NC_DOUBLE && len == 1 && nc_get_att_double(nc, NC_GLOBAL, name, &value) == 0)
            fprintf(out, "  %-22s %.10g\n", name, value);
    }
    fprintf(out, "  configuration (resolved):\n");
    for (char *line = strtok(config, "\n"); line; line = strtok(NULL, "\n"))
        fprintf(out, "    %s\n", line);
    free(source);
    free(config);
    nc_close(nc);
    return 0;
}

int cohort_file_open_data(const char *path, int *nc)
{
    return nc_open(path, NC_NOWRITE, nc) == NC_NOERR ? 0 : -1;
}

void cohort_file_close(int nc)
{
    nc_close(nc);
}

int cohort_file_part(int nc, long long *first, long long *total, long long *members)
{
    int grp = -1, dim = -1, part = 1;
    size_t length = 0;
    if (nc_get_att_longlong(nc, NC_GLOBAL, "members_first", first) != NC_NOERR)
        *first = -1, part = 0;
    if (nc_get_att_longlong(nc, NC_GLOBAL, "members_total", total) != NC_NOERR)
        *total = -1, part = 0;
    if (nc_inq_ncid(nc, "merge", &grp) != NC_NOERR) part = 0;
    *members =
        nc_inq_dimid(nc, "member", &dim) == NC_NOERR && nc_inq_dimlen(nc, dim, &length) == NC_NOERR
            ? (long long)length
            : -1;
    return part;
}

int cohort_file_variable(int nc, const char *group, const char *name, int *grp, int *var)
{
    *grp = nc;
    if (group && nc_inq_ncid(nc, group, grp) != NC_NOERR) return -1;
    return nc_inq_varid(*grp, name, var) == NC_NOERR ? 0 : -1;
}

int cohort_file_shape(int grp, int var, int max, int *ndims, size_t *len, int *is_double)
{
    int dims[NC_MAX_VAR_DIMS];
    nc_type type;
    if (nc_inq_var(grp, var, NULL, &type, ndims, dims, NULL) != NC_NOERR) return -1;
    if (is_double) *is_double = type == NC_DOUBLE || type == NC_FLOAT;
    for (int d = 0; d < *ndims && d < max; ++d)
        if (nc_inq_dimlen(grp, dims[d], &len[d]) != NC_NOERR) return -1;
    return 0;
}

int cohort_file_dimension(int grp, int var, int d, char *name, size_t *len)
{
    int ndims, dims[NC_MAX_VAR_DIMS];
    if (nc_inq_var(grp, var, NULL, NULL, &ndims, dims, NULL) != NC_NOERR || d >= ndims) return -1;
    return nc_inq_dim(grp, dims[d], name, len) == NC_NOERR ? 0 : -1;
}

int cohort_file_read_double(int grp, int var, const size_t *at, const size_t *size, double *out)
{
    return at ? nc_get_vara_double(grp, var, at, size, out) : nc_get_var_double(grp, var, out);
}

int cohort_file_read_int64(int grp, int var, const size_t *at, const size_t *size, long long *out)
{
    return at ? nc_get_vara_longlong(grp, var, at, size, out) : nc_get_var_longlong(grp, var, out);
}

int cohort_file_read_byte(int grp, int var, const size_t *at, const size_t *size,
                          unsigned char *out)
{
    return at ? nc_get_vara_uchar(grp, var, at, size, out) : nc_get_var_uchar(grp, var, out);
}

const char *cohort_file_strerror(int status)
{
    return nc_strerror(status);
}

int cohort_file_chunking(int grp, int var, size_t *chunk)
{
    int storage = 0;
    return nc_inq_var_chunking(grp, var, &storage, chunk) == NC_NOERR && storage == NC_CHUNKED;
}

void cohort_file_cache_chunk(int grp, int var)
{
    size_t chunk[NC_MAX_VAR_DIMS];
    int ndims = 0;
    nc_type type;
    if (nc_inq_var(grp, var, NULL, &type, &ndims, NULL, NULL) != NC_NOERR ||
        !cohort_file_chunking(grp, var, chunk))
        return;
    double bytes = type == NC_DOUBLE ? 8.0 : 4.0;
    for (int d = 0; d < ndims; ++d) bytes *= (double)chunk[d];
    nc_set_var_chunk_cache(grp, var, (size_t)fmin(1.5 * bytes, 4.0e9), 1009, 0.75f);
}
