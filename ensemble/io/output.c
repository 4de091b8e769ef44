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
#include "io/sidecar.h"

struct cohort_output {
    int ncid;
    int64_t members, n;
    int var_t, var_ell_mean, var_ell_var, var_ell_sem, var_mass_mean, var_n_active, var_c,
        var_diverged, var_t_snap, var_ell_member, var_param[8], var_history;
    int64_t n_checks;
    int var_check;
    int var_series[4][3], n_series, var_member_value[8], member_value_int[8];
    int var_spectrum, var_k1, var_label, var_centroid, var_cluster_size, var_inertia,
        var_iterations, var_label_map;
    int var_k, var_cluster;
    int dim_member, dim_x, dim_y, dim_grid[2], label_map_wanted; /* for define_kmeans */
    int64_t nx, ny;                                              /* 2D: C(member, y, x) */
    int64_t n_k;
    int64_t member_first; /* the global index of the file's first member */
    int64_t merge_blocks; /* a part's statistics blocks (0: not a part) */
    int var_merge_moments, var_merge_sums, var_merge_features;
    char *path, *partial;
    int replace;   /* the spec's replace */
    int in_memory; /* no file on disk: nothing to rename or remove */
};

/* The group of a part's merge data, in the file now open. */
static int merge_group(const cohort_output *o, int *grp)
{
    return nc_inq_ncid(o->ncid, "merge", grp);
}

/* Every NetCDF call: the library's message, the file, and where; HDF5 reports a full disk or a
 * file-size limit only as "HDF error", so the errno it left says which. */
static const char *nc_cause(int status)
{
    const int e = errno;
    return status == NC_EHDFERR && (e == ENOSPC || e == EFBIG || e == EDQUOT) ? strerror(e) : "";
}
#define NC_CALL(o, expr)                                                                           \
    do {                                                                                           \
        errno = 0;                                                                                 \
        int nc_status_ = (expr);                                                                   \
        if (nc_status_ != NC_NOERR)                                                                \
            return cohort_error_raise(COHORT_ERR_IO, __FILE__, __LINE__, "%s: %s: %s%s%s",         \
                                      (o)->partial, #expr, nc_strerror(nc_status_),                \
                                      *nc_cause(nc_status_) ? ": " : "", nc_cause(nc_status_));    \
    } while (0)

static int put_text(cohort_output *o, int var, const char *name, const char *text)
{
    if (!text) return COHORT_OK;
    NC_CALL(o, nc_put_att_text(o->ncid, var, name, strlen(text), text));
    return COHORT_OK;
}

/* A statistic over t with its CF attributes. Statistics over members carry no cell_methods:
 * CF names a dimension of the variable, a scalar coordinate or `area` there, and the member
 * dimension is none of these for a series over t (the IOOS checker warns on "member: mean" and
 * "realization: mean" alike); the long_name says which statistic it is. */
static int define_series(cohort_output *o, int dim_t, const char *name, nc_type type,
                         const char *long_name, int *var)
{
    NC_CALL(o, nc_def_var(o->ncid, name, type, 1, &dim_t, var));
    COHORT_CALL(put_text(o, *var, "long_name", long_name));
    COHORT_CALL(put_text(o, *var, "units", "1"));
    return COHORT_OK;
}

/* The analyses' variables (output_spec). */
static int define_analyses(cohort_output *o, const output_spec *s, int dim_member, int dim_x,
                           int dim_y, int dim_t, const int *dim_grid)
{
    o->var_spectrum = o->var_k1 = o->var_label = o->var_label_map = -1;
    if (s->structure_factor) {
        int dim_k, var_k, dims[2];
        NC_CALL(o, nc_def_dim(o->ncid, "k", (size_t)o->n_k, &dim_k));
        NC_CALL(o, nc_def_var(o->ncid, "k", NC_DOUBLE, 1, &dim_k, &var_k));
        COHORT_CALL(put_text(o, var_k, "long_name",
                             s->ny > 0 ? "wavenumber 2 pi b / L of the radial shell b"
                                       : "wavenumber 2 pi j / L, j = 0 .. N/2"));
        COHORT_CALL(put_text(o, var_k, "units", "1"));
        dims[0] = dim_t, dims[1] = dim_k;
        NC_CALL(o, nc_def_var(o->ncid, "structure_factor", NC_DOUBLE, 2, dims, &o->var_spectrum));
        COHORT_CALL(put_text(o, o->var_spectrum, "long_name",
                             s->ny > 0 ? "mean over active members of |C^_k|^2, radially averaged "
                                         "over the shell |k| = k, C^_k = (1/(nx ny)) sum_j C_j "
                                         "exp(-i k.x_j)"
                                       : "mean over active members of |C^_k|^2, C^_k = (1/N) "
                                         "sum_j C_j exp(-2 pi i j k / N)"));
        COHORT_CALL(put_text(o, o->var_spectrum, "units", "1"));
        COHORT_CALL(define_series(o, dim_t, "k1", NC_DOUBLE,
                                  "sum over k != 0 of S / sum over k != 0 of S / |k| (cuSten eq. "
                                  "6), from the mean spectrum",
                                  &o->var_k1));
        o->var_k = var_k;
    }
    /* k-means' variables are defined when it has run (output_write_kmeans): with analysis.kmeans
     * = auto, only then is the number of clusters known */
    o->dim_member = dim_member, o->dim_x = dim_x, o->dim_y = dim_y;
    o->dim_grid[0] = dim_grid[0], o->dim_grid[1] = dim_grid[1];
    o->label_map_wanted = (s->kmeans_k > 0 || s->kmeans_auto) && s->n_params == 2 &&
                          s->param_grid_count[0] > 0 && s->param_grid_count[1] > 0;
    return COHORT_OK;
}

/* label(member), cluster(cluster) and its values, centroid, cluster_size, kmeans_inertia,
 * kmeans_iterations and label_map, for k clusters (in define mode). */
static int define_kmeans(cohort_output *o, int k)
{
    int dim_cluster, dims[3];
    NC_CALL(o, nc_def_dim(o->ncid, "cluster", (size_t)k, &dim_cluster));
    NC_CALL(o, nc_def_var(o->ncid, "cluster", NC_INT, 1, &dim_cluster, &o->var_cluster));
    COHORT_CALL(put_text(o, o->var_cluster, "long_name",
                         "k-means cluster, numbered by ascending centroid variance"));
    NC_CALL(o, nc_def_var(o->ncid, "label", NC_UBYTE, 1, &o->dim_member, &o->var_label));
    COHORT_CALL(put_text(o, o->var_label, "long_name", "k-means cluster of the final state"));
    const unsigned char fill = 255; /* diverged members */
    NC_CALL(o, nc_def_var_fill(o->ncid, o->var_label, NC_FILL, &fill));
    dims[0] = dim_cluster, dims[1] = o->dim_y >= 0 ? o->dim_y : o->dim_x, dims[2] = o->dim_x;
    NC_CALL(o, nc_def_var(o->ncid, "centroid", NC_DOUBLE, o->dim_y >= 0 ? 3 : 2, dims,
                          &o->var_centroid));
    COHORT_CALL(put_text(o, o->var_centroid, "long_name", "k-means centroid"));
    NC_CALL(o,
            nc_def_var(o->ncid, "cluster_size", NC_INT64, 1, &dim_cluster, &o->var_cluster_size));
    COHORT_CALL(put_text(o, o->var_cluster_size, "long_name", "members in the cluster"));
    NC_CALL(o, nc_def_var(o->ncid, "kmeans_inertia", NC_DOUBLE, 0, NULL, &o->var_inertia));
    COHORT_CALL(put_text(o, o->var_inertia, "long_name",
                         "sum over members of the squared distance to their centroid"));
    NC_CALL(o, nc_def_var(o->ncid, "kmeans_iterations", NC_INT, 0, NULL, &o->var_iterations));
    if (o->label_map_wanted) {
        NC_CALL(o, nc_def_var(o->ncid, "label_map", NC_UBYTE, 2, o->dim_grid, &o->var_label_map));
        NC_CALL(o, nc_def_var_fill(o->ncid, o->var_label_map, NC_FILL, &fill));
        COHORT_CALL(put_text(o, o->var_label_map, "long_name",
                             "k-means label over the two swept parameters (the most frequent "
                             "among replicates, the lowest among equals)"));
    }
    return COHORT_OK;
}

/* The archive: C(member, [y,] x) at the final time, or C(t_snap, member, [y,] x) with t_snap,
 * chunked by the run's chunk of members and deflated. */
static int define_archive(cohort_output *o, const output_spec *s, int dim_member, int dim_x,
                          int dim_y, size_t chunk_members)
{
    int dims[4], ndims = 0, dim_snap;
    size_t chunk[4];
    if (s->n_snapshots > 0) {
        NC_CALL(o, nc_def_dim(o->ncid, "t_snap", (size_t)s->n_snapshots, &dim_snap));
        NC_CALL(o, nc_def_var(o->ncid, "t_snap", NC_DOUBLE, 1, &dim_snap, &o->var_t_snap));
        COHORT_CALL(put_text(o, o->var_t_snap, "long_name", "nondimensional time of snapshots"));
        COHORT_CALL(put_text(o, o->var_t_snap, "units", "1"));
        dims[ndims] = dim_snap, chunk[ndims++] = 1;
    }
    dims[ndims] = dim_member, chunk[ndims++] = chunk_members;
    if (s->ny > 0) dims[ndims] = dim_y, chunk[ndims++] = (size_t)s->ny;
    dims[ndims] = dim_x, chunk[ndims++] = (size_t)(s->ny > 0 ? s->nx : s->n);
    NC_CALL(o, nc_def_var(o->ncid, s->field_name ? s->field_name : "C",
                          s->archive_float ? NC_FLOAT : NC_DOUBLE, ndims, dims, &o->var_c));
    NC_CALL(o, nc_def_var_chunking(o->ncid, o->var_c, NC_CHUNKED, chunk));
    NC_CALL(o, nc_def_var_deflate(o->ncid, o->var_c, 1, 1, 1));
    char meaning[128];
    snprintf(meaning, sizeof meaning, "%s at the %s",
             s->field_meaning ? s->field_meaning : "concentration",
             s->n_snapshots > 0 ? "snapshot times" : "final time");
    COHORT_CALL(put_text(o, o->var_c, "long_name", meaning));
    COHORT_CALL(put_text(o, o->var_c, "units", "1"));
    return COHORT_OK;
}

/* What a run writes besides the analyses: the statistics over t, the divergence flags, the
 * archive and the per-member series. */
/* The model's observables over t: mean, variance and standard error of each. */
static int define_observables(cohort_output *o, const output_spec *s, int dim_t)
{
    o->n_series = s->n_series;
    for (int q = 0; q < s->n_series; ++q) {
        static const char *const suffix[3] = {"mean", "var", "sem"};
        static const char *const what[3] = {"ensemble mean", "ensemble variance",
                                            "standard error of the ensemble mean"};
        for (int w = 0; w < 3; ++w) {
            char name[64], text[256];
            snprintf(name, sizeof name, "%s_%s", s->series_name[q], suffix[w]);
            snprintf(text, sizeof text, "%s of the %s", what[w], s->series_meaning[q]);
            COHORT_CALL(define_series(o, dim_t, name, NC_DOUBLE, text, &o->var_series[q][w]));
            if (w < 2) COHORT_CALL(put_text(o, o->var_series[q][w], "units", s->series_units[q]));
        }
    }
    return COHORT_OK;
}

/* The model's values of each member: step counts, errors against the exact solution. */
static int define_member_values(cohort_output *o, const output_spec *s, int dim_member)
{
    for (int q = 0; q < s->n_member_values; ++q) {
        o->member_value_int[q] = s->member_value_int[q];
        NC_CALL(o, nc_def_var(o->ncid, s->member_value_name[q],
                              s->member_value_int[q] ? NC_INT64 : NC_DOUBLE, 1, &dim_member,
                              &o->var_member_value[q]));
        COHORT_CALL(put_text(o, o->var_member_value[q], "long_name", s->member_value_meaning[q]));
        COHORT_CALL(put_text(o, o->var_member_value[q], "units", "1"));
    }
    return COHORT_OK;
}

/* The length's mean, variance and standard error over t, the mean of <C> and the members
 * counted. */
static int define_length_and_mass(cohort_output *o, const output_spec *s, int dim_t)
{
    o->var_ell_mean = o->var_ell_var = o->var_ell_sem = -1;
    if (s->length_name) {
        const char *l = s->length_name;
        char name[3][16], text[3][128];
        snprintf(name[0], sizeof name[0], "%s_mean", l);
        snprintf(name[1], sizeof name[1], "%s_var", l);
        snprintf(name[2], sizeof name[2], "%s_sem", l);
        snprintf(text[0], sizeof text[0],
                 "ensemble mean of the coarsening length %s = 1/(1 - <C^2>)", l);
        snprintf(text[1], sizeof text[1], "ensemble variance of the coarsening length %s", l);
        snprintf(text[2], sizeof text[2], "standard error of %s_mean, sqrt(%s_var / n_active)", l,
                 l);
        COHORT_CALL(define_series(o, dim_t, name[0], NC_DOUBLE, text[0], &o->var_ell_mean));
        COHORT_CALL(define_series(o, dim_t, name[1], NC_DOUBLE, text[1], &o->var_ell_var));
        COHORT_CALL(define_series(o, dim_t, name[2], NC_DOUBLE, text[2], &o->var_ell_sem));
    }
    o->var_mass_mean = o->var_n_active = -1;
    if (s->steady) return COHORT_OK;
    COHORT_CALL(
        define_series(o, dim_t, "mass_mean", NC_DOUBLE, "ensemble mean of <C>", &o->var_mass_mean));
    return define_series(o, dim_t, "n_active", NC_INT64, "members included (not diverged)",
                         &o->var_n_active);
}

/* diverged(member): the members the statistics leave out. */
static int define_diverged(cohort_output *o, int dim_member)
{
    NC_CALL(o, nc_def_var(o->ncid, "diverged", NC_BYTE, 1, &dim_member, &o->var_diverged));
    COHORT_CALL(put_text(o, o->var_diverged, "long_name",
                         "member whose state became NaN or Inf (excluded from the statistics)"));
    const signed char flags[2] = {0, 1};
    NC_CALL(o, nc_put_att_schar(o->ncid, o->var_diverged, "flag_values", NC_BYTE, 2, flags));
    return put_text(o, o->var_diverged, "flag_meanings", "finite diverged");
}

/* A steady run's solver history: check(check) and HISTORY(member, check). */
static int define_check_history(cohort_output *o, const output_spec *s, int dim_member,
                                size_t chunk_members)
{
    int dim_check, var_check;
    NC_CALL(o, nc_def_dim(o->ncid, "check", (size_t)s->n_checks, &dim_check));
    NC_CALL(o, nc_def_var(o->ncid, "check", NC_INT64, 1, &dim_check, &var_check));
    COHORT_CALL(put_text(o, var_check, "long_name", "iterations done at the check"));
    COHORT_CALL(put_text(o, var_check, "units", "1"));
    const int dims[2] = {dim_member, dim_check};
    const size_t chunk[2] = {chunk_members, (size_t)s->n_checks};
    NC_CALL(o, nc_def_var(o->ncid, s->history_name, NC_DOUBLE, 2, dims, &o->var_history));
    NC_CALL(o, nc_def_var_chunking(o->ncid, o->var_history, NC_CHUNKED, chunk));
    NC_CALL(o, nc_def_var_deflate(o->ncid, o->var_history, 1, 1, 1));
    const double fill = NAN; /* after the member converged */
    NC_CALL(o, nc_def_var_fill(o->ncid, o->var_history, NC_FILL, &fill));
    COHORT_CALL(put_text(o, o->var_history, "long_name", s->history_meaning));
    COHORT_CALL(put_text(o, o->var_history, "units", "1"));
    o->var_check = var_check;
    return COHORT_OK;
}

/* ell(t, member): each member's length at every record. */
static int define_member_series(cohort_output *o, const output_spec *s, int dim_member, int dim_t,
                                size_t chunk_members)
{
    const int dims[2] = {dim_t, dim_member};
    const size_t chunk[2] = {1, chunk_members};
    NC_CALL(o, nc_def_var(o->ncid, s->length_name, NC_DOUBLE, 2, dims, &o->var_ell_member));
    NC_CALL(o, nc_def_var_chunking(o->ncid, o->var_ell_member, NC_CHUNKED, chunk));
    COHORT_CALL(put_text(o, o->var_ell_member, "long_name",
                         "coarsening length 1/(1 - <C^2>) of each member"));
    return put_text(o, o->var_ell_member, "units", "1");
}

/* A run's variables, in the order files have always listed them. */
static int define_run_variables(cohort_output *o, const output_spec *s, int dim_member, int dim_x,
                                int dim_y, int dim_t)
{
    const size_t chunk_members =
        (size_t)(s->chunk_members < s->members ? s->chunk_members : s->members);
    COHORT_CALL(define_observables(o, s, dim_t));
    COHORT_CALL(define_member_values(o, s, dim_member));
    COHORT_CALL(define_length_and_mass(o, s, dim_t));
    COHORT_CALL(define_diverged(o, dim_member));
    if (s->archive_final || s->n_snapshots > 0)
        COHORT_CALL(define_archive(o, s, dim_member, dim_x, dim_y, chunk_members));
    o->var_history = o->var_check = -1, o->n_checks = s->n_checks;
    if (s->n_checks > 0) COHORT_CALL(define_check_history(o, s, dim_member, chunk_members));
    if (s->member_series && s->length_name)
        COHORT_CALL(define_member_series(o, s, dim_member, dim_t, chunk_members));
    return COHORT_OK;
}

/* A part's subset as global attributes, and the group "merge" (output.h). */
static int define_merge_group(cohort_output *o, const output_spec *s, int dim_member, int dim_t)
{
    const long long first = s->member_first, total = s->part_of;
    NC_CALL(o, nc_put_att_longlong(o->ncid, NC_GLOBAL, "members_first", NC_INT64, 1, &first));
    NC_CALL(o, nc_put_att_longlong(o->ncid, NC_GLOBAL, "members_total", NC_INT64, 1, &total));
    char text[256];
    snprintf(text, sizeof text,
             "members [%lld, %lld) of %lld (cohort run --members); the statistics are over these "
             "members alone: join the parts with cohort merge",
             first, first + (long long)s->members, total);
    COHORT_CALL(put_text(o, NC_GLOBAL, "member_subset", text));
    int grp, dim_statistic, dim_block, dim_moment, dim_row, dim_point;
    const int64_t b0 = s->member_first / MOMENTS_BLOCK;
    o->merge_blocks = (s->member_first + s->members + MOMENTS_BLOCK - 1) / MOMENTS_BLOCK - b0;
    NC_CALL(o, nc_def_grp(o->ncid, "merge", &grp));
    const long long first_block = b0, block = MOMENTS_BLOCK;
    NC_CALL(o, nc_put_att_longlong(grp, NC_GLOBAL, "first_block", NC_INT64, 1, &first_block));
    NC_CALL(o, nc_put_att_longlong(grp, NC_GLOBAL, "block_members", NC_INT64, 1, &block));
    NC_CALL(o, nc_def_dim(grp, "block", (size_t)o->merge_blocks, &dim_block));
    o->var_merge_moments = o->var_merge_sums = o->var_merge_features = -1;
    if (s->merge_statistics > 0) {
        NC_CALL(o, nc_def_dim(grp, "statistic", (size_t)s->merge_statistics, &dim_statistic));
        NC_CALL(o, nc_def_dim(grp, "moment", 3, &dim_moment));
        const int dims[4] = {dim_t, dim_statistic, dim_block, dim_moment};
        NC_CALL(o, nc_def_var(grp, "moments", NC_DOUBLE, 4, dims, &o->var_merge_moments));
        COHORT_CALL(put_text(o, o->var_merge_moments, "long_name",
                             "count, mean and m2 of each block of members (Welford, in member "
                             "order) of ell, mass and the series, in that order"));
    }
    if (s->merge_sum_rows > 0) {
        NC_CALL(o, nc_def_dim(grp, "sum_row", (size_t)s->merge_sum_rows, &dim_row));
        const int dims[3] = {dim_t, dim_block, dim_row};
        NC_CALL(o, nc_def_var(grp, "spectrum_sums", NC_DOUBLE, 3, dims, &o->var_merge_sums));
        COHORT_CALL(put_text(o, o->var_merge_sums, "long_name",
                             "sum over each block of members of |C^_k|^2 (in member order)"));
    }
    if (s->merge_features) {
        const size_t chunk[2] = {
            (size_t)(s->chunk_members < s->members ? s->chunk_members : s->members), (size_t)s->n};
        NC_CALL(o, nc_def_dim(grp, "point", (size_t)s->n, &dim_point));
        const int dims[2] = {dim_member, dim_point};
        NC_CALL(o, nc_def_var(grp, "features", NC_DOUBLE, 2, dims, &o->var_merge_features));
        /* not deflated: final fields hardly compress, and the part is written and read once */
        NC_CALL(o, nc_def_var_chunking(grp, o->var_merge_features, NC_CHUNKED, chunk));
        COHORT_CALL(put_text(o, o->var_merge_features, "long_name",
                             "k-means features: the member's final field as archived"));
    }
    return COHORT_OK;
}

/* The coordinates' values: member's global indices, the checks' iterations, x and y (periodic:
 * x_i = i L / nx; closed: nodes x_i = origin + i L / (nx - 1)), k, the clusters. */
static int write_coordinates(cohort_output *o, const output_spec *s, int var_member, int var_x,
                             int var_y)
{
    const int64_t nx = s->ny > 0 ? s->nx : s->n;
    long long *index = malloc((size_t)s->members * sizeof *index);
    double *x = malloc((size_t)(nx > s->ny ? nx : s->ny) * sizeof *x);
    if (!index || !x) {
        free(index);
        free(x);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "coordinates");
    }
    for (int64_t m = 0; m < s->members; ++m) index[m] = s->member_first + m;
    /* periodic: x_i = i L / nx; closed: nodes x_i = origin + i L / (nx - 1) */
    for (int64_t i = 0; i < nx; ++i)
        x[i] = s->origin + (double)i * s->length / (double)(nx - s->closed);
    int rc = nc_put_var_longlong(o->ncid, var_member, index);
    if (rc == NC_NOERR && o->var_check >= 0)
        rc = nc_put_var_longlong(o->ncid, o->var_check, (const long long *)s->check_iterations);
    if (rc == NC_NOERR) rc = nc_put_var_double(o->ncid, var_x, x);
    const double origin_y = s->length_y > 0.0 ? s->origin_y : s->origin;
    const double length_y = s->length_y > 0.0 ? s->length_y : s->length;
    for (int64_t j = 0; j < s->ny; ++j)
        x[j] = origin_y + (double)j * length_y / (double)(s->ny - s->closed);
    if (rc == NC_NOERR && var_y >= 0) rc = nc_put_var_double(o->ncid, var_y, x);
    double *k = o->var_spectrum >= 0 ? malloc((size_t)o->n_k * sizeof *k) : NULL;
    if (k) structure_factor_k_values(o->nx, s->ny > 0 ? s->ny : 1, s->length, k);
    if (rc == NC_NOERR && o->var_spectrum >= 0)
        rc = k ? nc_put_var_double(o->ncid, o->var_k, k) : NC_ENOMEM;
    free(k);
    free(index);
    free(x);
    NC_CALL(o, rc);
    NC_CALL(o, nc_sync(o->ncid));
    return COHORT_OK;
}

/* Each swept parameter's value per member, and a grid sweep's coordinate of it (dim_grid[j]). */
static int define_parameters(cohort_output *o, const output_spec *s, int dim_member,
                             int dim_grid[8])
{
    for (int j = 0; j < s->n_params; ++j) {
        char name[NC_MAX_NAME - 8], grid[NC_MAX_NAME + 1];
        snprintf(name, sizeof name, "%s", s->param_key[j]);
        for (char *c = name; *c; ++c) *c = *c == '.' ? '_' : *c;
        NC_CALL(o, nc_def_var(o->ncid, name, NC_DOUBLE, 1, &dim_member, &o->var_param[j]));
        COHORT_CALL(put_text(o, o->var_param[j], "parameter", s->param_key[j]));
        COHORT_CALL(
            put_text(o, o->var_param[j], "long_name",
                     s->param_meaning[j] ? s->param_meaning[j] : "swept parameter of each member"));
        COHORT_CALL(put_text(o, o->var_param[j], "units", s->param_units[j]));
        if (s->param_grid_count[j] > 0) {
            int dim, var;
            snprintf(grid, sizeof grid, "%s_grid", name);
            NC_CALL(o, nc_def_dim(o->ncid, grid, (size_t)s->param_grid_count[j], &dim));
            dim_grid[j] = dim;
            NC_CALL(o, nc_def_var(o->ncid, grid, NC_DOUBLE, 1, &dim, &var));
            COHORT_CALL(put_text(o, var, "parameter", s->param_key[j]));
            COHORT_CALL(put_text(o, var, "long_name", "values of the swept parameter"));
            COHORT_CALL(put_text(o, var, "units", s->param_units[j]));
            NC_CALL(o, nc_put_var_double(o->ncid, var, s->param_values[j])); /* NetCDF-4 */
        }
    }
    return COHORT_OK;
}

/* The global attributes: CF's, what the run was and how it was made. */
static int define_global_attributes(cohort_output *o, const output_spec *s)
{
    COHORT_CALL(put_text(o, NC_GLOBAL, "Conventions", "CF-1.11"));
    COHORT_CALL(put_text(o, NC_GLOBAL, "title", s->title));
    COHORT_CALL(put_text(o, NC_GLOBAL, "history", s->history));
    COHORT_CALL(put_text(o, NC_GLOBAL, "analysed_file", s->analysed_file));
    COHORT_CALL(put_text(o, NC_GLOBAL, "source", s->source));
    COHORT_CALL(put_text(o, NC_GLOBAL, "model", s->model));
    COHORT_CALL(put_text(o, NC_GLOBAL, "config", s->config));
    COHORT_CALL(put_text(o, NC_GLOBAL, "run_id", s->run_id));
    COHORT_CALL(put_text(o, NC_GLOBAL, "backend", s->backend));
    COHORT_CALL(put_text(o, NC_GLOBAL, "device", s->device));
    COHORT_CALL(put_text(o, NC_GLOBAL, "libraries", s->libraries));
    /* backend/philox.h: the scheme since 2026-11-22 */
    COHORT_CALL(put_text(o, NC_GLOBAL, "rng",
                         "Philox4x32-10 (Random123 on cpu, cuRAND's device API on cuda): member g "
                         "draws stream g of the seed; value i is component i % 2 of "
                         "curand_uniform2_double after curand_init(seed, g, 2 (i - i % 2))"));
    const unsigned long long seed = s->seed;
    NC_CALL(o, nc_put_att_ulonglong(o->ncid, NC_GLOBAL, "seed", NC_UINT64, 1, &seed));
    return COHORT_OK;
}

static int define_file(cohort_output *o, const output_spec *s)
{
    int dim_member, dim_x, dim_y = -1, dim_t, var_member, var_x, var_y = -1;
    int dim_grid[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    const int64_t nx = s->ny > 0 ? s->nx : s->n;
    NC_CALL(o, nc_def_dim(o->ncid, "member", (size_t)s->members, &dim_member));
    NC_CALL(o, nc_def_dim(o->ncid, "x", (size_t)nx, &dim_x));
    if (s->ny > 0) {
        NC_CALL(o, nc_def_dim(o->ncid, "y", (size_t)s->ny, &dim_y));
        NC_CALL(o, nc_def_var(o->ncid, "y", NC_DOUBLE, 1, &dim_y, &var_y));
        COHORT_CALL(put_text(o, var_y, "long_name",
                             s->closed ? "position along y of the node on the square"
                                       : "position along y on the periodic square"));
        COHORT_CALL(put_text(o, var_y, "units", "1"));
    }
    dim_t = o->var_t = -1;
    if (!s->steady) NC_CALL(o, nc_def_dim(o->ncid, "t", NC_UNLIMITED, &dim_t));
    NC_CALL(o, nc_def_var(o->ncid, "member", NC_INT64, 1, &dim_member, &var_member));
    COHORT_CALL(put_text(o, var_member, "standard_name", "realization"));
    COHORT_CALL(put_text(o, var_member, "long_name", "global member index"));
    COHORT_CALL(put_text(o, var_member, "units", "1"));
    NC_CALL(o, nc_def_var(o->ncid, "x", NC_DOUBLE, 1, &dim_x, &var_x));
    COHORT_CALL(put_text(o, var_x, "long_name",
                         s->closed ? (s->ny > 0 ? "position along x of the node on the square"
                                                : "position of the node on the closed interval")
                                   : "position on the periodic domain"));
    COHORT_CALL(put_text(o, var_x, "units", "1"));
    if (!s->steady) {
        NC_CALL(o, nc_def_var(o->ncid, "t", NC_DOUBLE, 1, &dim_t, &o->var_t));
        COHORT_CALL(put_text(o, o->var_t, "long_name", "nondimensional time"));
        COHORT_CALL(put_text(o, o->var_t, "units", "1"));
    }
    o->var_c = o->var_t_snap = o->var_ell_member = o->var_check = o->var_history = -1;
    if (!s->analysis_only) COHORT_CALL(define_run_variables(o, s, dim_member, dim_x, dim_y, dim_t));
    COHORT_CALL(define_parameters(o, s, dim_member, dim_grid));
    COHORT_CALL(define_analyses(o, s, dim_member, dim_x, dim_y, dim_t, dim_grid));
    COHORT_CALL(define_global_attributes(o, s));
    if (s->part_of > 0) COHORT_CALL(define_merge_group(o, s, dim_member, dim_t));
    NC_CALL(o, nc_enddef(o->ncid));
    return write_coordinates(o, s, var_member, var_x, var_y);
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
    const int rc = define_file(o, s);
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

int output_write_member_ell(cohort_output *o, int64_t record, int64_t m0, int64_t count,
                            const double *ell)
{
    if (o->var_ell_member < 0)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "no member series defined");
    const size_t at[2] = {(size_t)record, (size_t)(m0 - o->member_first)},
                 size[2] = {1, (size_t)count};
    NC_CALL(o, nc_put_vara_double(o->ncid, o->var_ell_member, at, size, ell));
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
    COHORT_CALL(define_kmeans(o, k));
    NC_CALL(o, nc_put_att_uchar(o->ncid, o->var_label, "flag_values", NC_UBYTE, (size_t)k, values));
    COHORT_CALL(put_text(o, o->var_label, "flag_meanings", flag_meanings));
    if (o->var_label_map >= 0) {
        NC_CALL(o, nc_put_att_uchar(o->ncid, o->var_label_map, "flag_values", NC_UBYTE, (size_t)k,
                                    values));
        COHORT_CALL(put_text(o, o->var_label_map, "flag_meanings", flag_meanings));
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
    COHORT_CALL(
        put_text(o, *var_k, "long_name", "the numbers of clusters analysis.kmeans = auto tried"));
    NC_CALL(o, nc_def_var(o->ncid, "kmeans_silhouette_by_k", NC_DOUBLE, 1, &dim, var_silhouette));
    COHORT_CALL(put_text(o, *var_silhouette, "long_name",
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
    COHORT_CALL(put_text(o, var_agreement, "long_name",
                         "adjusted Rand index of the kept k-means restart's labels against those "
                         "of the restart with the next-lowest inertia (1: the same partition; "
                         "NaN: one restart)"));
    NC_CALL(o, nc_def_var(o->ncid, "kmeans_silhouette", NC_DOUBLE, 0, NULL, &var_silhouette));
    COHORT_CALL(put_text(o, var_silhouette, "long_name",
                         "mean silhouette (Euclidean) of the k-means labels over the members of "
                         "silhouette_member: -1 to 1, higher is better separated"));
    NC_CALL(o, nc_def_dim(o->ncid, "silhouette_sample", (size_t)count, &dim));
    NC_CALL(o, nc_def_var(o->ncid, "silhouette_member", NC_INT64, 1, &dim, &var_sample));
    COHORT_CALL(put_text(o, var_sample, "long_name",
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

int output_write_merge_moments(cohort_output *o, int statistic, int64_t record, const void *blocks)
{
    int grp;
    NC_CALL(o, merge_group(o, &grp));
    const size_t at[4] = {(size_t)record, (size_t)statistic, 0, 0};
    const size_t size[4] = {1, 1, (size_t)o->merge_blocks, 3};
    NC_CALL(o, nc_put_vara_double(grp, o->var_merge_moments, at, size, blocks));
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

int output_write_interval(cohort_output *o, const char *name, const char *long_name, int64_t n,
                          const double *values)
{
    int dims[2], var;
    NC_CALL(o, nc_inq_dimid(o->ncid, "t", &dims[0]));
    NC_CALL(o, nc_redef(o->ncid));
    COHORT_CALL(dimension(o, "bound", 2, &dims[1]));
    NC_CALL(o, nc_def_var(o->ncid, name, NC_DOUBLE, 2, dims, &var));
    COHORT_CALL(put_text(o, var, "long_name", long_name));
    NC_CALL(o, nc_enddef(o->ncid));
    const size_t start[2] = {0, 0}, count[2] = {(size_t)n, 2};
    NC_CALL(o, nc_put_vara_double(o->ncid, var, start, count, values));
    return COHORT_OK;
}

int output_write_block_moments(cohort_output *o, const char *name, const char *long_name, int64_t n,
                               int64_t blocks, const double *values)
{
    int dims[3], var;
    NC_CALL(o, nc_inq_dimid(o->ncid, "t", &dims[0]));
    NC_CALL(o, nc_redef(o->ncid));
    COHORT_CALL(dimension(o, "block", (size_t)blocks, &dims[1]));
    COHORT_CALL(dimension(o, "moment", 3, &dims[2]));
    NC_CALL(o, nc_def_var(o->ncid, name, NC_DOUBLE, 3, dims, &var));
    COHORT_CALL(put_text(o, var, "long_name", long_name));
    NC_CALL(o, nc_enddef(o->ncid));
    const size_t start[3] = {0, 0, 0}, count[3] = {(size_t)n, (size_t)blocks, 3};
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
