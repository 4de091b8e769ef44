#define _POSIX_C_SOURCE 200809L
#include "io/output.h"

#include <errno.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/moments.h"
#include "analysis/structure_factor.h"
#include "backend/cohort_error.h"
#include "io/output_internal.h"
#include "io/sidecar.h"

const char *output_netcdf_version(void)
{
    return nc_inq_libvers();
}

char *output_history(const char *command_line, const char *previous)
{
    char stamp[64];
    const time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    const size_t len = strlen(stamp) + strlen(command_line) + (previous ? strlen(previous) : 0) + 3;
    char *history = malloc(len);
    if (history)
        snprintf(history, len, "%s %s%s%s", stamp, command_line, previous ? "\n" : "",
                 previous ? previous : "");
    return history;
}

/* The file of spec s, at PATH.partial; in_memory: a file of NetCDF's memory alone, which never
 * touches the disk (output_reopen's definition of the variable ids). */
static int output_define(const output_spec *s, int in_memory, cohort_output **out)
{
    if (!out || !s || !s->path) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "spec and out needed");
    *out = NULL;
    cohort_output *o = calloc(1, sizeof *o);
    if (!o) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "output");
    o->members = s->members;
    o->member_first = s->member_first;
    o->n = s->n;
    o->ny = s->ny;
    o->nx = s->ny > 0 ? s->nx : s->n;
    o->n_k = s->structure_factor ? structure_factor_k_count(o->nx, s->ny > 0 ? s->ny : 1) : 0;
    o->ncid = -1;
    o->path = strdup(s->path);
    o->partial = sidecar_name_alloc(s->path, SIDECAR_PARTIAL);
    if (!o->path || !o->partial) {
        output_close(o, 0);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "output path");
    }
    o->replace = s->replace, o->in_memory = in_memory;
    /* NC_NOCLOBBER: HDF5 creates the file with O_EXCL, so never through a link planted there
     * (sidecar_prepare removed what a run may replace) */
    int status = nc_create(
        o->partial, NC_NETCDF4 | (in_memory ? NC_DISKLESS | NC_CLOBBER : NC_NOCLOBBER), &o->ncid);
    if (status != NC_NOERR) {
        const int rc =
            COHORT_FAIL(COHORT_ERR_IO, "cannot create %s: %s", o->partial, nc_strerror(status));
        o->ncid = -1;
        free(o->partial); /* not this process's to remove: it never created it */
        o->partial = NULL;
        output_close(o, 0);
        return rc;
    }
    const int rc = output_define_file(o, s);
    if (rc != COHORT_OK) {
        output_close(o, 0);
        return rc;
    }
    *out = o;
    return COHORT_OK;
}

int output_create(const output_spec *s, cohort_output **out)
{
    return output_define(s, 0, out);
}

int output_create_in_memory(const output_spec *s, cohort_output **out)
{
    return output_define(s, 1, out);
}

int output_ncid(const cohort_output *o)
{
    return o->ncid;
}

/* The global history attribute of the open file ncid becomes `line`, then the history it had. */
static int history_prepend(int ncid, const char *path, const char *line)
{
    size_t old_len = 0;
    if (nc_inq_attlen(ncid, NC_GLOBAL, "history", &old_len) != NC_NOERR) old_len = 0;
    const size_t line_len = strlen(line);
    char *text = malloc(line_len + old_len + 2);
    if (!text) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "history");
    memcpy(text, line, line_len);
    text[line_len] = '\n';
    int status =
        old_len ? nc_get_att_text(ncid, NC_GLOBAL, "history", text + line_len + 1) : NC_NOERR;
    const size_t len = old_len ? line_len + 1 + old_len : line_len;
    if (status == NC_NOERR) status = nc_redef(ncid);
    if (status == NC_NOERR) status = nc_put_att_text(ncid, NC_GLOBAL, "history", len, text);
    if (status == NC_NOERR) status = nc_enddef(ncid);
    free(text);
    if (status != NC_NOERR)
        return COHORT_FAIL(COHORT_ERR_IO, "%s: history: %s", path, nc_strerror(status));
    return COHORT_OK;
}

/* The variable ids of `spec`'s file: define_file on a file in memory (the ids follow the
 * definition order, which depends on the spec alone), checked name by name against the partial
 * file, which is then opened for writing in the scratch file's place. */
int output_reopen(const output_spec *s, cohort_output **out)
{
    if (!out || !s || !s->path) return COHORT_FAIL(COHORT_ERR_NULL_POINTER, "spec and out needed");
    *out = NULL;
    char *partial = sidecar_name_alloc(s->path, SIDECAR_PARTIAL);
    if (!partial) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "output path");
    cohort_output *o = NULL;
    int rc = output_define(s, 1, &o), ncid = -1;
    if (rc == COHORT_OK) {
        const int status = nc_open(partial, NC_WRITE, &ncid);
        if (status != NC_NOERR)
            rc = COHORT_FAIL(COHORT_ERR_IO, "cannot open %s to resume: %s", partial,
                             nc_strerror(status));
    }
    int n_defined = 0, n_found = -1;
    if (rc == COHORT_OK && (nc_inq_nvars(o->ncid, &n_defined) != NC_NOERR ||
                            nc_inq_nvars(ncid, &n_found) != NC_NOERR || n_defined != n_found))
        rc = COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                         "%s has %d variables where this configuration writes %d", partial, n_found,
                         n_defined);
    for (int v = 0; v < n_defined && rc == COHORT_OK; ++v) {
        char a[NC_MAX_NAME + 1], b[NC_MAX_NAME + 1];
        if (nc_inq_varname(o->ncid, v, a) != NC_NOERR || nc_inq_varname(ncid, v, b) != NC_NOERR ||
            strcmp(a, b))
            rc = COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                             "%s: variable %d is not this configuration's (%s)", partial, v, a);
    }
    /* the history gains the resuming command's line above the interrupted run's */
    if (rc == COHORT_OK && s->history) rc = history_prepend(ncid, partial, s->history);
    if (o) { /* the file in memory goes; the partial file takes its place */
        nc_close(o->ncid);
        free(o->partial);
        o->partial = partial, partial = NULL;
        o->ncid = ncid, ncid = -1, o->in_memory = 0;
    }
    if (ncid >= 0) nc_close(ncid);
    free(partial);
    if (rc != COHORT_OK) {
        output_close(o, OUTPUT_KEEP);
        return rc;
    }
    *out = o;
    return COHORT_OK;
}

int output_sync(cohort_output *o)
{
    NC_CALL(o, nc_sync(o->ncid));
    return COHORT_OK;
}

int output_write_record(cohort_output *o, int64_t record, double t, double ell_mean, double ell_var,
                        double ell_sem, double mass_mean, int64_t n_active)
{
    const size_t at[1] = {(size_t)record}, one[1] = {1};
    const long long active = n_active;
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_t, at, one, &t));
    if (o->var_ell_mean >= 0) {
        NC_CALL(o, nc_put_vara_double(o->ncid, o->var_ell_mean, at, one, &ell_mean));
        NC_CALL(o, nc_put_vara_double(o->ncid, o->var_ell_var, at, one, &ell_var));
        NC_CALL(o, nc_put_vara_double(o->ncid, o->var_ell_sem, at, one, &ell_sem));
    }
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_mass_mean, at, one, &mass_mean));
    NC_CALL(o, nc_put_vara_longlong(o->ncid, o->var_n_active, at, one, &active));
    NC_CALL(o, nc_sync(o->ncid));
    return COHORT_OK;
}

int output_write_series(cohort_output *o, int64_t record, int q, double mean, double var,
                        double sem)
{
    if (q < 0 || q >= o->n_series)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "series %d of %d", q, o->n_series);
    const size_t at[1] = {(size_t)record}, one[1] = {1};
    const double v[3] = {mean, var, sem};
    for (int w = 0; w < 3; ++w)
        NC_CALL(o, nc_put_vara_double(o->ncid, o->var_series[q][w], at, one, &v[w]));
    return COHORT_OK;
}

int output_write_member_history(cohort_output *o, int64_t m0, int64_t count, const double *values)
{
    if (o->var_history < 0) return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "no history defined");
    const size_t at[2] = {(size_t)(m0 - o->member_first), 0},
                 size[2] = {(size_t)count, (size_t)o->n_checks};
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_history, at, size, values));
    return COHORT_OK;
}

int output_write_member_value(cohort_output *o, int q, int64_t m0, int64_t count,
                              const double *values)
{
    const size_t at[1] = {(size_t)(m0 - o->member_first)}, size[1] = {(size_t)count};
    if (!o->member_value_int[q]) {
        NC_CALL(o, nc_put_vara_double(o->ncid, o->var_member_value[q], at, size, values));
        return COHORT_OK;
    }
    long long *v = malloc((size_t)count * sizeof *v);
    if (!v) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "%lld values", (long long)count);
    for (int64_t k = 0; k < count; ++k) v[k] = (long long)values[k];
    const int status = nc_put_vara_longlong(o->ncid, o->var_member_value[q], at, size, v);
    free(v);
    NC_CALL(o, status);
    return COHORT_OK;
}

int output_write_time(cohort_output *o, int64_t record, double t)
{
    const size_t at[1] = {(size_t)record}, one[1] = {1};
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_t, at, one, &t));
    return COHORT_OK;
}

int output_write_state(cohort_output *o, int64_t m0, int64_t count, const double *state)
{
    if (o->var_c < 0 || o->var_t_snap >= 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "no final-state archive defined");
    const size_t at[3] = {(size_t)(m0 - o->member_first), 0, 0};
    const size_t size[3] = {(size_t)count, (size_t)(o->ny > 0 ? o->ny : o->n), (size_t)o->nx};
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_c, at, size, state));
    return COHORT_OK;
}

int output_write_snapshot(cohort_output *o, int64_t snapshot, double t, int64_t m0, int64_t count,
                          const double *state)
{
    if (o->var_t_snap < 0) return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "no snapshots defined");
    const size_t at[4] = {(size_t)snapshot, (size_t)(m0 - o->member_first), 0, 0};
    const size_t size[4] = {1, (size_t)count, (size_t)(o->ny > 0 ? o->ny : o->n), (size_t)o->nx},
                 one = 1;
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_t_snap, at, &one, &t));
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_c, at, size, state));
    return COHORT_OK;
}

int output_write_member_series(cohort_output *o, output_series which, int64_t record, int64_t m0,
                               int64_t count, const double *values)
{
    if (o->var_member_series[which] < 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "no member series %d defined", (int)which);
    const size_t at[2] = {(size_t)record, (size_t)(m0 - o->member_first)},
                 size[2] = {1, (size_t)count};
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_member_series[which], at, size, values));
    return COHORT_OK;
}

int output_write_parameter(cohort_output *o, int j, const double *values)
{
    NC_CALL(o, nc_put_var_double(o->ncid, o->var_param[j], values));
    return COHORT_OK;
}

int output_write_diverged(cohort_output *o, int64_t m0, int64_t count,
                          const unsigned char *diverged)
{
    const size_t at[1] = {(size_t)(m0 - o->member_first)}, size[1] = {(size_t)count};
    NC_CALL(o, nc_put_vara_uchar(o->ncid, o->var_diverged, at, size, diverged));
    return COHORT_OK;
}

int output_write_spectrum(cohort_output *o, int64_t record, const double *spectrum, double k1)
{
    if (o->var_spectrum < 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "no structure factor defined");
    const size_t at[2] = {(size_t)record, 0}, size[2] = {1, (size_t)o->n_k};
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_spectrum, at, size, spectrum));
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_k1, at, size, &k1));
    return COHORT_OK;
}

int output_has_label_map(const cohort_output *o)
{
    return o->label_map_wanted;
}

int output_write_kmeans(cohort_output *o, int k, const unsigned char *labels,
                        const double *centroids, const double *sizes, double inertia,
                        int iterations, const char *flag_meanings, const unsigned char *label_map)
{
    if (o->var_label >= 0 || k < 1 || k > 32)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "k-means of %d clusters written twice", k);
    unsigned char values[32];
    long long counts[32];
    int clusters[32];
    for (int c = 0; c < k; ++c)
        values[c] = (unsigned char)c, counts[c] = (long long)sizes[c], clusters[c] = c;
    NC_CALL(o, nc_redef(o->ncid));
    COHORT_CALL(output_define_kmeans(o, k));
    NC_CALL(o, nc_put_att_uchar(o->ncid, o->var_label, "flag_values", NC_UBYTE, (size_t)k, values));
    COHORT_CALL(output_put_text(o, o->var_label, "flag_meanings", flag_meanings));
    if (o->var_label_map >= 0) {
        NC_CALL(o, nc_put_att_uchar(o->ncid, o->var_label_map, "flag_values", NC_UBYTE, (size_t)k,
                                    values));
        COHORT_CALL(output_put_text(o, o->var_label_map, "flag_meanings", flag_meanings));
    }
    NC_CALL(o, nc_enddef(o->ncid));
    NC_CALL(o, nc_put_var_int(o->ncid, o->var_cluster, clusters));
    NC_CALL(o, nc_put_var_uchar(o->ncid, o->var_label, labels));
    NC_CALL(o, nc_put_var_double(o->ncid, o->var_centroid, centroids));
    NC_CALL(o, nc_put_var_longlong(o->ncid, o->var_cluster_size, counts));
    NC_CALL(o, nc_put_var_double(o->ncid, o->var_inertia, &inertia));
    NC_CALL(o, nc_put_var_int(o->ncid, o->var_iterations, &iterations));
    if (o->var_label_map >= 0 && label_map)
        NC_CALL(o, nc_put_var_uchar(o->ncid, o->var_label_map, label_map));
    NC_CALL(o, nc_sync(o->ncid));
    return COHORT_OK;
}

/* kmeans_candidate_k(kmeans_candidate) and kmeans_silhouette_by_k(kmeans_candidate) (in define
 * mode; the values are put by the caller). */
static int define_candidates(cohort_output *o, int candidates, int *var_k, int *var_silhouette)
{
    int dim;
    NC_CALL(o, nc_def_dim(o->ncid, "kmeans_candidate", (size_t)candidates, &dim));
    NC_CALL(o, nc_def_var(o->ncid, "kmeans_candidate_k", NC_INT, 1, &dim, var_k));
    COHORT_CALL(output_put_text(o, *var_k, "long_name",
                                "the numbers of clusters analysis.kmeans = auto tried"));
    NC_CALL(o, nc_def_var(o->ncid, "kmeans_silhouette_by_k", NC_DOUBLE, 1, &dim, var_silhouette));
    COHORT_CALL(
        output_put_text(o, *var_silhouette, "long_name",
                        "the criterion of analysis.kmeans = auto: the mean silhouette of each "
                        "candidate's labels over silhouette_member; the highest is kept, the "
                        "lowest k among equals"));
    return COHORT_OK;
}

int output_write_kmeans_quality(cohort_output *o, double agreement, double silhouette,
                                const int64_t *sample, int64_t count, const double *by_k,
                                int candidates)
{
    int dim, var_agreement, var_silhouette, var_sample, var_k = -1, var_by_k = -1;
    NC_CALL(o, nc_redef(o->ncid));
    NC_CALL(o, nc_def_var(o->ncid, "kmeans_restart_agreement", NC_DOUBLE, 0, NULL, &var_agreement));
    COHORT_CALL(
        output_put_text(o, var_agreement, "long_name",
                        "adjusted Rand index of the kept k-means restart's labels against those "
                        "of the restart with the next-lowest inertia (1: the same partition; "
                        "NaN: one restart)"));
    NC_CALL(o, nc_def_var(o->ncid, "kmeans_silhouette", NC_DOUBLE, 0, NULL, &var_silhouette));
    COHORT_CALL(
        output_put_text(o, var_silhouette, "long_name",
                        "mean silhouette (Euclidean) of the k-means labels over the members of "
                        "silhouette_member: -1 to 1, higher is better separated"));
    NC_CALL(o, nc_def_dim(o->ncid, "silhouette_sample", (size_t)count, &dim));
    NC_CALL(o, nc_def_var(o->ncid, "silhouette_member", NC_INT64, 1, &dim, &var_sample));
    COHORT_CALL(
        output_put_text(o, var_sample, "long_name",
                        "the members of kmeans_silhouette's subsample, drawn without replacement "
                        "from the clustered members with the run's seed"));
    if (candidates > 0) COHORT_CALL(define_candidates(o, candidates, &var_k, &var_by_k));
    NC_CALL(o, nc_enddef(o->ncid));
    NC_CALL(o, nc_put_var_double(o->ncid, var_agreement, &agreement));
    NC_CALL(o, nc_put_var_double(o->ncid, var_silhouette, &silhouette));
    NC_CALL(o, nc_put_var_longlong(o->ncid, var_sample, (const long long *)sample));
    for (int c = 0; c < candidates; ++c) {
        const size_t at = (size_t)c;
        const int k = c + 2;
        NC_CALL(o, nc_put_var1_int(o->ncid, var_k, &at, &k));
        NC_CALL(o, nc_put_var1_double(o->ncid, var_by_k, &at, &by_k[c]));
    }
    NC_CALL(o, nc_sync(o->ncid));
    return COHORT_OK;
}

int output_write_merge_moments(cohort_output *o, int statistic, int64_t record, const void *units)
{
    int grp;
    NC_CALL(o, merge_group(o, &grp));
    const size_t at[4] = {(size_t)record, (size_t)statistic, 0, 0};
    const size_t size[4] = {1, 1, (size_t)o->merge_units, 3};
    NC_CALL(o, nc_put_vara_double(grp, o->var_merge_moments, at, size, units));
    return COHORT_OK;
}

int output_write_merge_k1_units(cohort_output *o, int64_t record, const double *sums)
{
    int grp;
    NC_CALL(o, merge_group(o, &grp));
    const size_t at[3] = {(size_t)record, 0, 0},
                 size[3] = {1, (size_t)o->merge_units, STRUCTURE_FACTOR_K1_TERMS};
    NC_CALL(o, nc_put_vara_double(grp, o->var_merge_k1, at, size, sums));
    return COHORT_OK;
}

int output_write_merge_sums(cohort_output *o, int64_t record, const double *sums)
{
    int grp, dim[3];
    size_t rows = 0;
    NC_CALL(o, merge_group(o, &grp));
    NC_CALL(o, nc_inq_vardimid(grp, o->var_merge_sums, dim));
    NC_CALL(o, nc_inq_dimlen(grp, dim[2], &rows));
    const size_t at[3] = {(size_t)record, 0, 0}, size[3] = {1, (size_t)o->merge_blocks, rows};
    NC_CALL(o, nc_put_vara_double(grp, o->var_merge_sums, at, size, sums));
    return COHORT_OK;
}

int output_write_merge_sobol(cohort_output *o, int64_t record, const double *values)
{
    int grp;
    NC_CALL(o, merge_group(o, &grp));
    const size_t at[2] = {(size_t)record, 0}, size[2] = {1, (size_t)o->merge_sobol_values};
    NC_CALL(o, nc_put_vara_double(grp, o->var_merge_sobol, at, size, values));
    return COHORT_OK;
}

int output_write_merge_features(cohort_output *o, int64_t m0, int64_t count, const double *features)
{
    int grp;
    NC_CALL(o, merge_group(o, &grp));
    const size_t at[2] = {(size_t)(m0 - o->member_first), 0},
                 size[2] = {(size_t)count, (size_t)o->n};
    NC_CALL(o, nc_put_vara_double(grp, o->var_merge_features, at, size, features));
    return COHORT_OK;
}

/* One variable of a part, at member offset `first` where it runs along member (dimension
 * member_dim; -1: none; its first `count` members), in pieces of at most 64 MB. */
static int copy_variable(cohort_output *o, int src_nc, const char *src_path, int src_var,
                         int dst_var, int member_dim, int64_t first, int64_t count_members)
{
    int ndims = 0, dims[NC_MAX_VAR_DIMS], dst_ndims = 0;
    nc_type type, dst_type;
    size_t type_size = 0, len[NC_MAX_VAR_DIMS], per_member = 1;
    char name[NC_MAX_NAME + 1];
    if (nc_inq_var(src_nc, src_var, name, &type, &ndims, dims, NULL) != NC_NOERR ||
        nc_inq_type(src_nc, type, NULL, &type_size) != NC_NOERR)
        return COHORT_FAIL(COHORT_ERR_IO, "%s: variable %d unreadable", src_path, src_var);
    NC_CALL(o, nc_inq_var(o->ncid, dst_var, NULL, &dst_type, &dst_ndims, NULL, NULL));
    if (dst_type != type || dst_ndims != ndims)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "%s: %s has another type or rank than this run's file", src_path, name);
    for (int d = 0; d < ndims; ++d) {
        if (nc_inq_dimlen(src_nc, dims[d], &len[d]) != NC_NOERR)
            return COHORT_FAIL(COHORT_ERR_IO, "%s: %s's dimensions unreadable", src_path, name);
        if (d != member_dim) per_member *= len[d];
    }
    const size_t members = member_dim < 0                            ? 1
                           : len[member_dim] < (size_t)count_members ? len[member_dim]
                                                                     : (size_t)count_members;
    const size_t row_bytes = per_member * type_size;
    size_t piece = row_bytes ? ((size_t)64 << 20) / row_bytes : members;
    piece = piece < 1 ? 1 : piece > members ? members : piece;
    void *buffer = malloc(piece * row_bytes > 0 ? piece * row_bytes : 1);
    if (!buffer) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "copying %s", name);
    size_t start[NC_MAX_VAR_DIMS] = {0}, at[NC_MAX_VAR_DIMS] = {0}, count[NC_MAX_VAR_DIMS];
    memcpy(count, len, (size_t)ndims * sizeof *len);
    int rc = COHORT_OK;
    for (size_t k = 0; k < members && rc == COHORT_OK; k += piece) {
        if (member_dim >= 0) {
            start[member_dim] = k, at[member_dim] = (size_t)first + k;
            count[member_dim] = k + piece <= members ? piece : members - k;
        }
        int status = nc_get_vara(src_nc, src_var, start, count, buffer);
        if (status != NC_NOERR)
            rc = COHORT_FAIL(COHORT_ERR_IO, "%s: reading %s: %s", src_path, name,
                             nc_strerror(status));
        else if ((status = nc_put_vara(o->ncid, dst_var, at, count, buffer)) != NC_NOERR)
            rc = COHORT_FAIL(COHORT_ERR_IO, "%s: writing %s: %s", o->partial, name,
                             nc_strerror(status));
    }
    free(buffer);
    return rc;
}

int output_copy_part(cohort_output *o, int src_nc, const char *src_path, int64_t first,
                     int64_t count, int shared)
{
    int n_vars = 0, unlimited = -1;
    if (nc_inq_nvars(src_nc, &n_vars) != NC_NOERR || nc_inq_unlimdim(src_nc, &unlimited))
        return COHORT_FAIL(COHORT_ERR_IO, "%s: unreadable", src_path);
    for (int v = 0; v < n_vars; ++v) {
        char name[NC_MAX_NAME + 1], dim_name[NC_MAX_NAME + 1];
        int ndims = 0, dims[NC_MAX_VAR_DIMS], dst = -1, member_dim = -1, along_t = 0;
        if (nc_inq_var(src_nc, v, name, NULL, &ndims, dims, NULL) != NC_NOERR)
            return COHORT_FAIL(COHORT_ERR_IO, "%s: variable %d unreadable", src_path, v);
        if (nc_inq_varid(o->ncid, name, &dst) != NC_NOERR) continue; /* not this file's */
        for (int d = 0; d < ndims; ++d) {
            if (nc_inq_dimname(src_nc, dims[d], dim_name) != NC_NOERR)
                return COHORT_FAIL(COHORT_ERR_IO, "%s: %s's dimensions unreadable", src_path, name);
            if (!strcmp(dim_name, "member")) member_dim = d;
            along_t |= dims[d] == unlimited;
        }
        if (member_dim < 0 && (!shared || along_t)) continue;
        COHORT_CALL(copy_variable(o, src_nc, src_path, v, dst, member_dim, first, count));
    }
    NC_CALL(o, nc_sync(o->ncid));
    return COHORT_OK;
}

int output_put_double(cohort_output *o, const char *name, double value)
{
    NC_CALL(o, nc_redef(o->ncid));
    NC_CALL(o, nc_put_att_double(o->ncid, NC_GLOBAL, name, NC_DOUBLE, 1, &value));
    NC_CALL(o, nc_enddef(o->ncid));
    return COHORT_OK;
}

int output_put_doubles(cohort_output *o, const char *name, int n, const double *values)
{
    NC_CALL(o, nc_redef(o->ncid));
    NC_CALL(o, nc_put_att_double(o->ncid, NC_GLOBAL, name, NC_DOUBLE, (size_t)n, values));
    NC_CALL(o, nc_enddef(o->ncid));
    return COHORT_OK;
}

/* The dimension `name` of `len`, defined where the file has none yet (in define mode). */
static int dimension(cohort_output *o, const char *name, size_t len, int *dim)
{
    if (nc_inq_dimid(o->ncid, name, dim) == NC_NOERR) return COHORT_OK;
    NC_CALL(o, nc_def_dim(o->ncid, name, len, dim));
    return COHORT_OK;
}

/* "<length><suffix>" of type double over dims (in define mode), with its long_name. */
static int define_named(cohort_output *o, const char *length, const char *suffix, int ndims,
                        const int *dims, const char *meaning, int *var)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", length, suffix);
    NC_CALL(o, nc_def_var(o->ncid, name, NC_DOUBLE, ndims, dims, var));
    return output_put_text(o, *var, "long_name", meaning);
}

int output_write_cluster_lengths(cohort_output *o, const char *length, int k, const double *mean,
                                 const double *ci95)
{
    int dims[2], var_mean, var_ci;
    char meaning[256];
    NC_CALL(o, nc_inq_dimid(o->ncid, "cluster", &dims[0]));
    NC_CALL(o, nc_redef(o->ncid));
    COHORT_CALL(dimension(o, "bound", 2, &dims[1]));
    snprintf(meaning, sizeof meaning,
             "mean of %s = 1 / (1 - <C^2>) over each cluster's members, of the fields k-means "
             "clustered (a run's: the final state)",
             length);
    COHORT_CALL(define_named(o, length, "_cluster_mean", 1, dims, meaning, &var_mean));
    snprintf(meaning, sizeof meaning,
             "95%% interval of %s_cluster_mean: the mean +- 1.96 standard errors over the "
             "cluster's members",
             length);
    COHORT_CALL(define_named(o, length, "_cluster_ci95", 2, dims, meaning, &var_ci));
    NC_CALL(o, nc_enddef(o->ncid));
    const size_t start[2] = {0, 0}, count[2] = {(size_t)k, 2};
    NC_CALL(o, nc_put_vara_double(o->ncid, var_mean, start, count, mean));
    NC_CALL(o, nc_put_vara_double(o->ncid, var_ci, start, count, ci95));
    NC_CALL(o, nc_sync(o->ncid));
    return COHORT_OK;
}

int output_write_interval(cohort_output *o, const char *name, const char *long_name, int64_t n,
                          const double *values)
{
    int dims[2], var;
    NC_CALL(o, nc_inq_dimid(o->ncid, "t", &dims[0]));
    NC_CALL(o, nc_redef(o->ncid));
    COHORT_CALL(dimension(o, "bound", 2, &dims[1]));
    NC_CALL(o, nc_def_var(o->ncid, name, NC_DOUBLE, 2, dims, &var));
    COHORT_CALL(output_put_text(o, var, "long_name", long_name));
    NC_CALL(o, nc_enddef(o->ncid));
    const size_t start[2] = {0, 0}, count[2] = {(size_t)n, 2};
    NC_CALL(o, nc_put_vara_double(o->ncid, var, start, count, values));
    return COHORT_OK;
}

/* Dimension `dim_name` of n values and its string labels `name`(dim_name), an auxiliary
 * coordinate (CF 6.1: a coordinate variable proper is numeric), in define mode; the caller writes
 * them (its variable id in *var). */
static int string_labels(cohort_output *o, const char *dim_name, const char *name, int n,
                         const char *long_name, int *dim, int *var)
{
    COHORT_CALL(dimension(o, dim_name, (size_t)n, dim));
    NC_CALL(o, nc_def_var(o->ncid, name, NC_STRING, 1, dim, var));
    return output_put_text(o, *var, "long_name", long_name);
}

/* The time axis the indices are on: the file's t, or one of their own (*var: the coordinate to
 * write the times to, -1 where a run's records hold them already). */
static int sensitivity_time(cohort_output *o, const output_sensitivity *s, int *dim, int *var)
{
    *var = -1;
    size_t have = 0;
    if (nc_inq_dimid(o->ncid, "t", dim) == NC_NOERR) { /* an analysis's t may be empty yet */
        NC_CALL(o, nc_inq_dimlen(o->ncid, *dim, &have));
        if (have < (size_t)s->n_t) NC_CALL(o, nc_inq_varid(o->ncid, "t", var));
        return COHORT_OK;
    }
    NC_CALL(o, nc_def_dim(o->ncid, "t", (size_t)s->n_t, dim));
    NC_CALL(o, nc_def_var(o->ncid, "t", NC_DOUBLE, 1, dim, var));
    COHORT_CALL(output_put_text(o, *var, "standard_name", "time"));
    return output_put_text(o, *var, "long_name", "time of the run's record");
}

int output_write_sensitivity(cohort_output *o, const output_sensitivity *s)
{
    static const char *const names[4] = {"sobol_first", "sobol_total", "sobol_first_ci95",
                                         "sobol_total_ci95"};
    static const char *const meanings[4] = {
        "first-order Sobol index: mean(f_B (f_ABj - f_A)) / V (Saltelli et al. 2010, Table 2 b)",
        "total Sobol index: mean((f_A - f_ABj)^2) / (2 V) (Saltelli et al. 2010, Table 2 f)",
        "95% bootstrap percentile interval of sobol_first over units of members (each base "
        "point's arms in the unit of its first member)",
        "95% bootstrap percentile interval of sobol_total over units of members (each base "
        "point's arms in the unit of its first member)"};
    const double *data[4] = {s->first, s->total, s->first_ci, s->total_ci};
    int dims[4], var_t, var_param, var_stat, var[4];
    NC_CALL(o, nc_redef(o->ncid));
    COHORT_CALL(sensitivity_time(o, s, &dims[0], &var_t));
    COHORT_CALL(string_labels(o, "parameter", "parameter_key", s->n_params, "swept key", &dims[1],
                              &var_param));
    COHORT_CALL(string_labels(o, "statistic", "statistic_name", s->n_stats, "per-member statistic",
                              &dims[2], &var_stat));
    COHORT_CALL(dimension(o, "bound", 2, &dims[3]));
    const long long counts[4] = {s->base_points, s->units, s->resamples, s->unit_members};
    for (int q = 0; q < 4; ++q) {
        NC_CALL(o, nc_def_var(o->ncid, names[q], NC_DOUBLE, q < 2 ? 3 : 4, dims, &var[q]));
        COHORT_CALL(output_put_text(o, var[q], "long_name", meanings[q]));
        COHORT_CALL(output_put_text(o, var[q], "units", "1"));
        COHORT_CALL(output_put_text(o, var[q], "comment", s->meaning));
        COHORT_CALL(output_put_text(o, var[q], "coordinates", "parameter_key statistic_name"));
        NC_CALL(o, nc_put_att_longlong(o->ncid, var[q], "base_points", NC_INT64, 1, &counts[0]));
        if (q >= 2) {
            NC_CALL(o, nc_put_att_longlong(o->ncid, var[q], "units_resampled", NC_INT64, 1,
                                           &counts[1]));
            NC_CALL(o, nc_put_att_longlong(o->ncid, var[q], "resamples", NC_INT64, 1, &counts[2]));
            NC_CALL(o,
                    nc_put_att_longlong(o->ncid, var[q], "unit_members", NC_INT64, 1, &counts[3]));
        }
    }
    NC_CALL(o, nc_enddef(o->ncid));
    const size_t zero[4] = {0, 0, 0, 0},
                 count[4] = {(size_t)s->n_t, (size_t)s->n_params, (size_t)s->n_stats, 2};
    if (var_t >= 0) NC_CALL(o, nc_put_vara_double(o->ncid, var_t, zero, count, s->times));
    NC_CALL(o, nc_put_vara_string(o->ncid, var_param, zero, &count[1], (const char **)s->params));
    NC_CALL(o, nc_put_vara_string(o->ncid, var_stat, zero, &count[2], (const char **)s->stats));
    for (int q = 0; q < 4; ++q)
        NC_CALL(o, nc_put_vara_double(o->ncid, var[q], zero, count, data[q]));
    NC_CALL(o, nc_sync(o->ncid));
    return COHORT_OK;
}

int output_write_unit_moments(cohort_output *o, const char *name, const char *long_name, int64_t n,
                              int64_t units, int64_t unit_members, const double *values)
{
    int dims[3], var;
    NC_CALL(o, nc_inq_dimid(o->ncid, "t", &dims[0]));
    NC_CALL(o, nc_redef(o->ncid));
    COHORT_CALL(dimension(o, "unit", (size_t)units, &dims[1]));
    COHORT_CALL(dimension(o, "moment", 3, &dims[2]));
    NC_CALL(o, nc_def_var(o->ncid, name, NC_DOUBLE, 3, dims, &var));
    COHORT_CALL(output_put_text(o, var, "long_name", long_name));
    const long long members = unit_members;
    NC_CALL(o, nc_put_att_longlong(o->ncid, var, "unit_members", NC_INT64, 1, &members));
    NC_CALL(o, nc_enddef(o->ncid));
    const size_t start[3] = {0, 0, 0}, count[3] = {(size_t)n, (size_t)units, 3};
    NC_CALL(o, nc_put_vara_double(o->ncid, var, start, count, values));
    return COHORT_OK;
}

int output_close(cohort_output *o, int success)
{
    if (!o) return COHORT_OK;
    int rc = COHORT_OK;
    if (o->ncid >= 0) {
        const int status = nc_close(o->ncid);
        if (status != NC_NOERR && success)
            rc = COHORT_FAIL(COHORT_ERR_IO, "%s: closing: %s", o->partial, nc_strerror(status));
    }
    if (o->partial && !o->in_memory && success != OUTPUT_KEEP) {
        if (success && rc == COHORT_OK)
            /* over what stands at PATH only with --overwrite (a link then replaced, not followed);
             * without it, over nothing put there since the checks (the partial file is kept) */
            rc = sidecar_rename(o->partial, o->path,
                                o->replace ? SIDECAR_REPLACE_ANY : SIDECAR_REPLACE_NONE);
        else
            remove(o->partial);
    }
    free(o->path);
    free(o->partial);
    free(o);
    return rc;
}
