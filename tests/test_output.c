/* The NetCDF writer: what a finished file holds (dimensions, coordinates, statistics, archived
 * state with its chunking and compression, CF and provenance attributes), that only a successful
 * close gives the final name, and that a failed run or an unwritable path leaves nothing behind.
 * Usage: test_output [--keep PATH] (keep a finished file at PATH for the xarray check). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <netcdf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cohort_error.h"
#include "io/output.h"
#include "test_common.h"

static int exists(const char *path)
{
    return access(path, F_OK) == 0;
}

enum { M = 10, NX = 8 };

/* A run's description: 10 members of 8 points, the state archived as float in chunks of 4. */
static output_spec spec_at(const char *path)
{
    const output_spec spec = {.path = path,
                              .members = M,
                              .n = NX,
                              .length_name = "ell",
                              .length = 2.0,
                              .archive_final = 1,
                              .archive_float = 1,
                              .chunk_members = 4,
                              .title = "test run",
                              .history = "2026-11-22T00:00:00Z cohort run test.ini",
                              .source = "cohort test",
                              .config = "[model]\nname = ch1d\n",
                              .backend = "cpu",
                              .device = "CPU",
                              .libraries = "NetCDF-C",
                              .model = "ch1d",
                              .seed = 12345678901234ULL};
    return spec;
}

/* Writes a finished file at spec->path: three records, the state in two chunks, the diverged
 * flags and a fit attribute; it is written as .partial and renamed by the close. */
static void write_case(const output_spec *spec, const char *partial, const double *state)
{
    cohort_output *o = NULL;
    EXPECT(output_create(spec, &o) == COHORT_OK, "create: %s", cohort_error_detail());
    if (!o) return;
    EXPECT(exists(partial) && !exists(spec->path), "written as .partial while running");
    for (int r = 0; r < 3; ++r)
        EXPECT(output_write_record(o, r, 0.5 * r, 1.0 + r, 0.1 * r, 0.01 * r, 0.25, M - r) ==
                   COHORT_OK,
               "record %d: %s", r, cohort_error_detail());
    EXPECT(output_write_state(o, 0, 6, state) == COHORT_OK &&
               output_write_state(o, 6, 4, state + 6 * NX) == COHORT_OK,
           "state in two chunks");
    unsigned char diverged[M] = {0, 0, 1, 0, 0, 0, 0, 0, 0, 1};
    EXPECT(output_write_diverged(o, 0, M, diverged) == COHORT_OK, "diverged");
    EXPECT(output_put_double(o, "ell_vs_log_t_slope", 0.75) == COHORT_OK, "fit attribute");
    EXPECT(output_close(o, 1) == COHORT_OK, "close: %s", cohort_error_detail());
    EXPECT(exists(spec->path) && !exists(partial), "renamed on success");
}

/* The file's dimensions, coordinates and a statistic, with their attributes. */
static void dims_check(int nc)
{
    int var, dim;
    size_t len;
    EXPECT(nc_inq_dimid(nc, "member", &dim) == NC_NOERR &&
               nc_inq_dimlen(nc, dim, &len) == NC_NOERR && len == M,
           "member dimension");
    EXPECT(nc_inq_dimid(nc, "t", &dim) == NC_NOERR && nc_inq_dimlen(nc, dim, &len) == NC_NOERR &&
               len == 3,
           "t has 3 records");
    int unlimited = -1;
    EXPECT(nc_inq_unlimdim(nc, &unlimited) == NC_NOERR && unlimited == dim, "t is unlimited");
    double t[3], ell[3], x[NX];
    EXPECT(nc_inq_varid(nc, "t", &var) == NC_NOERR && nc_get_var_double(nc, var, t) == NC_NOERR &&
               t[2] == 1.0,
           "t values");
    EXPECT(nc_inq_varid(nc, "ell_mean", &var) == NC_NOERR &&
               nc_get_var_double(nc, var, ell) == NC_NOERR && ell[1] == 2.0,
           "ell_mean values");
    /* a statistic over members says so in its long_name; it has no cell_methods, which CF lets
     * name only the variable's own dimensions, scalar coordinates or area (the CF check) */
    char text[256] = "";
    EXPECT(nc_get_att_text(nc, var, "long_name", text) == NC_NOERR &&
               !strncmp(text, "ensemble mean", 13) &&
               nc_inq_att(nc, var, "cell_methods", NULL, NULL) == NC_ENOTATT,
           "ell_mean: an ensemble mean, no cell_methods: %s", text);
    EXPECT(nc_inq_varid(nc, "x", &var) == NC_NOERR && nc_get_var_double(nc, var, x) == NC_NOERR &&
               x[4] == 1.0,
           "x coordinate");
    memset(text, 0, sizeof text);
    EXPECT(nc_inq_varid(nc, "member", &var) == NC_NOERR &&
               nc_get_att_text(nc, var, "standard_name", text) == NC_NOERR &&
               !strcmp(text, "realization"),
           "member is a realization");
}

/* The archived state (float, chunked by whole chunks of members, deflated), the diverged flags
 * and the global attributes. */
static void state_check(int nc, const double *state)
{
    int var;
    char text[256] = "";
    float c[M * NX];
    EXPECT(nc_inq_varid(nc, "C", &var) == NC_NOERR && nc_get_var_float(nc, var, c) == NC_NOERR,
           "C");
    double worst = 0.0;
    for (int k = 0; k < M * NX; ++k) worst = fmax(worst, fabs(c[k] - state[k]));
    EXPECT(worst <= 4e-7, "C stored as float: error %.3g", worst);
    nc_type type;
    EXPECT(nc_inq_vartype(nc, var, &type) == NC_NOERR && type == NC_FLOAT, "float precision");
    int storage, shuffle, deflate, level;
    size_t chunks[2];
    EXPECT(nc_inq_var_chunking(nc, var, &storage, chunks) == NC_NOERR && storage == NC_CHUNKED &&
               chunks[0] == 4 && chunks[1] == NX,
           "C chunked by whole chunks of members");
    EXPECT(nc_inq_var_deflate(nc, var, &shuffle, &deflate, &level) == NC_NOERR && shuffle &&
               deflate && level == 1,
           "deflate 1 + shuffle");
    unsigned char flags[M];
    EXPECT(nc_inq_varid(nc, "diverged", &var) == NC_NOERR &&
               nc_get_var_uchar(nc, var, flags) == NC_NOERR && flags[2] == 1 && flags[3] == 0,
           "diverged flags");
    EXPECT(nc_get_att_text(nc, NC_GLOBAL, "Conventions", text) == NC_NOERR &&
               !strcmp(text, "CF-1.11"),
           "Conventions");
    unsigned long long seed = 0;
    EXPECT(nc_get_att_ulonglong(nc, NC_GLOBAL, "seed", &seed) == NC_NOERR &&
               seed == 12345678901234ULL,
           "seed");
    double slope = 0.0;
    EXPECT(nc_get_att_double(nc, NC_GLOBAL, "ell_vs_log_t_slope", &slope) == NC_NOERR &&
               slope == 0.75,
           "fit attribute");
}

/* A failed run leaves nothing; an unwritable path is a clear error. */
static void failure_case(output_spec spec)
{
    char path[256], partial[300];
    cohort_output *o = NULL;
    snprintf(path, sizeof path, "/tmp/cohort-test-output-failed.nc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    spec.path = path;
    EXPECT(output_create(&spec, &o) == COHORT_OK, "create");
    EXPECT(output_write_record(o, 0, 0.0, 1, 0, 0, 0, M) == COHORT_OK, "record");
    output_close(o, 0);
    EXPECT(!exists(path) && !exists(partial), "a failed run leaves no file");
    spec.path = "/nonexistent-directory/out.nc";
    EXPECT(output_create(&spec, &o) == COHORT_ERR_IO && !o, "unwritable path");
    EXPECT(strstr(cohort_error_detail(), "/nonexistent-directory/out.nc.partial") != NULL,
           "the message names the file: %s", cohort_error_detail());
}

int main(int argc, char **argv)
{
    const char *keep = argc == 3 && !strcmp(argv[1], "--keep") ? argv[2] : NULL;
    char path[256], partial[300];
    snprintf(path, sizeof path, "%s", keep ? keep : "/tmp/cohort-test-output.nc");
    snprintf(partial, sizeof partial, "%s.partial", path);
    remove(path);
    const output_spec spec = spec_at(path);
    double state[M * NX];
    for (int k = 0; k < M * NX; ++k) state[k] = 0.1 * k - 3.0;
    write_case(&spec, partial, state);
    int nc = -1;
    EXPECT(nc_open(path, NC_NOWRITE, &nc) == NC_NOERR, "reopen");
    if (nc >= 0) {
        dims_check(nc);
        state_check(nc, state);
        nc_close(nc);
    }
    if (!keep) remove(path);
    failure_case(spec);
    return test_summary();
}
