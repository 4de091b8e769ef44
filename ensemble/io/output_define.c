/* Defining a cohort file (output.h) from its spec: dimensions, coordinates, the run's and the
 * analyses' variables, a part's merge group, the parameters and the global attributes, in the
 * order files have always listed them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/moments.h"
#include "analysis/structure_factor.h"
#include "backend/cohort_hd.h"
#include "io/output_internal.h"

int output_put_text(cohort_output *o, int var, const char *name, const char *text)
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
    COHORT_CALL(output_put_text(o, *var, "long_name", long_name));
    COHORT_CALL(output_put_text(o, *var, "units", "1"));
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
        COHORT_CALL(output_put_text(o, var_k, "long_name",
                                    s->ny > 0 ? "wavenumber 2 pi b / L of the radial shell b"
                                              : "wavenumber 2 pi j / L, j = 0 .. N/2"));
        COHORT_CALL(output_put_text(o, var_k, "units", "1"));
        dims[0] = dim_t, dims[1] = dim_k;
        NC_CALL(o, nc_def_var(o->ncid, "structure_factor", NC_DOUBLE, 2, dims, &o->var_spectrum));
        COHORT_CALL(output_put_text(o, o->var_spectrum, "long_name",
                                    s->ny > 0
                                        ? "mean over active members of |C^_k|^2, radially averaged "
                                          "over the shell |k| = k, C^_k = (1/(nx ny)) sum_j C_j "
                                          "exp(-i k.x_j)"
                                        : "mean over active members of |C^_k|^2, C^_k = (1/N) "
                                          "sum_j C_j exp(-2 pi i j k / N)"));
        COHORT_CALL(output_put_text(o, o->var_spectrum, "units", "1"));
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
int output_define_kmeans(cohort_output *o, int k)
{
    int dim_cluster, dims[3];
    NC_CALL(o, nc_def_dim(o->ncid, "cluster", (size_t)k, &dim_cluster));
    NC_CALL(o, nc_def_var(o->ncid, "cluster", NC_INT, 1, &dim_cluster, &o->var_cluster));
    COHORT_CALL(output_put_text(o, o->var_cluster, "long_name",
                                "k-means cluster, numbered by ascending centroid variance"));
    NC_CALL(o, nc_def_var(o->ncid, "label", NC_UBYTE, 1, &o->dim_member, &o->var_label));
    COHORT_CALL(
        output_put_text(o, o->var_label, "long_name", "k-means cluster of the final state"));
    const unsigned char fill = 255; /* diverged members */
    NC_CALL(o, nc_def_var_fill(o->ncid, o->var_label, NC_FILL, &fill));
    dims[0] = dim_cluster, dims[1] = o->dim_y >= 0 ? o->dim_y : o->dim_x, dims[2] = o->dim_x;
    NC_CALL(o, nc_def_var(o->ncid, "centroid", NC_DOUBLE, o->dim_y >= 0 ? 3 : 2, dims,
                          &o->var_centroid));
    COHORT_CALL(output_put_text(o, o->var_centroid, "long_name", "k-means centroid"));
    NC_CALL(o,
            nc_def_var(o->ncid, "cluster_size", NC_INT64, 1, &dim_cluster, &o->var_cluster_size));
    COHORT_CALL(output_put_text(o, o->var_cluster_size, "long_name", "members in the cluster"));
    NC_CALL(o, nc_def_var(o->ncid, "kmeans_inertia", NC_DOUBLE, 0, NULL, &o->var_inertia));
    COHORT_CALL(output_put_text(o, o->var_inertia, "long_name",
                                "sum over members of the squared distance to their centroid"));
    NC_CALL(o, nc_def_var(o->ncid, "kmeans_iterations", NC_INT, 0, NULL, &o->var_iterations));
    if (o->label_map_wanted) {
        NC_CALL(o, nc_def_var(o->ncid, "label_map", NC_UBYTE, 2, o->dim_grid, &o->var_label_map));
        NC_CALL(o, nc_def_var_fill(o->ncid, o->var_label_map, NC_FILL, &fill));
        COHORT_CALL(
            output_put_text(o, o->var_label_map, "long_name",
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
        COHORT_CALL(
            output_put_text(o, o->var_t_snap, "long_name", "nondimensional time of snapshots"));
        COHORT_CALL(output_put_text(o, o->var_t_snap, "units", "1"));
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
    COHORT_CALL(output_put_text(o, o->var_c, "long_name", meaning));
    COHORT_CALL(output_put_text(o, o->var_c, "units", "1"));
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
            if (w < 2)
                COHORT_CALL(output_put_text(o, o->var_series[q][w], "units", s->series_units[q]));
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
        COHORT_CALL(
            output_put_text(o, o->var_member_value[q], "long_name", s->member_value_meaning[q]));
        COHORT_CALL(output_put_text(o, o->var_member_value[q], "units", "1"));
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
    COHORT_CALL(
        output_put_text(o, o->var_diverged, "long_name",
                        "member whose state became NaN or Inf (excluded from the statistics)"));
    const signed char flags[2] = {0, 1};
    NC_CALL(o, nc_put_att_schar(o->ncid, o->var_diverged, "flag_values", NC_BYTE, 2, flags));
    return output_put_text(o, o->var_diverged, "flag_meanings", "finite diverged");
}

/* A steady run's solver history: check(check) and HISTORY(member, check). */
static int define_check_history(cohort_output *o, const output_spec *s, int dim_member,
                                size_t chunk_members)
{
    int dim_check, var_check;
    NC_CALL(o, nc_def_dim(o->ncid, "check", (size_t)s->n_checks, &dim_check));
    NC_CALL(o, nc_def_var(o->ncid, "check", NC_INT64, 1, &dim_check, &var_check));
    COHORT_CALL(output_put_text(o, var_check, "long_name", "iterations done at the check"));
    COHORT_CALL(output_put_text(o, var_check, "units", "1"));
    const int dims[2] = {dim_member, dim_check};
    const size_t chunk[2] = {chunk_members, (size_t)s->n_checks};
    NC_CALL(o, nc_def_var(o->ncid, s->history_name, NC_DOUBLE, 2, dims, &o->var_history));
    NC_CALL(o, nc_def_var_chunking(o->ncid, o->var_history, NC_CHUNKED, chunk));
    NC_CALL(o, nc_def_var_deflate(o->ncid, o->var_history, 1, 1, 1));
    const double fill = NAN; /* after the member converged */
    NC_CALL(o, nc_def_var_fill(o->ncid, o->var_history, NC_FILL, &fill));
    COHORT_CALL(output_put_text(o, o->var_history, "long_name", s->history_meaning));
    COHORT_CALL(output_put_text(o, o->var_history, "units", "1"));
    o->var_check = var_check;
    return COHORT_OK;
}

/* <l>(t, member) and C_variance(t, member): each member's length (where the model has one) and
 * its field's variance over the grid at every record. */
static int define_member_series(cohort_output *o, const output_spec *s, int dim_member, int dim_t,
                                size_t chunk_members)
{
    const int dims[2] = {dim_t, dim_member};
    const size_t chunk[2] = {1, chunk_members};
    const char *names[2] = {s->length_name, "C_variance"};
    const char *meanings[2] = {"coarsening length 1/(1 - <C^2>) of each member",
                               "variance <C^2> - <C>^2 of each member's field over the grid"};
    for (int q = 0; q < 2; ++q) {
        if (!names[q]) continue;
        NC_CALL(o, nc_def_var(o->ncid, names[q], NC_DOUBLE, 2, dims, &o->var_member_series[q]));
        NC_CALL(o, nc_def_var_chunking(o->ncid, o->var_member_series[q], NC_CHUNKED, chunk));
        COHORT_CALL(output_put_text(o, o->var_member_series[q], "long_name", meanings[q]));
        COHORT_CALL(output_put_text(o, o->var_member_series[q], "units", "1"));
    }
    return COHORT_OK;
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
    if (s->member_series) COHORT_CALL(define_member_series(o, s, dim_member, dim_t, chunk_members));
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
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "member_subset", text));
    int grp, dim_statistic, dim_block, dim_unit, dim_moment, dim_row, dim_term, dim_point;
    const int64_t b0 = s->member_first / MOMENTS_BLOCK, u0 = s->member_first / s->merge_unit;
    const int64_t end = s->member_first + s->members;
    o->merge_blocks = (end + MOMENTS_BLOCK - 1) / MOMENTS_BLOCK - b0;
    o->merge_units = (end + s->merge_unit - 1) / s->merge_unit - u0;
    NC_CALL(o, nc_def_grp(o->ncid, "merge", &grp));
    const long long first_block = b0, block = MOMENTS_BLOCK, first_unit = u0, unit = s->merge_unit;
    NC_CALL(o, nc_put_att_longlong(grp, NC_GLOBAL, "first_block", NC_INT64, 1, &first_block));
    NC_CALL(o, nc_put_att_longlong(grp, NC_GLOBAL, "block_members", NC_INT64, 1, &block));
    NC_CALL(o, nc_put_att_longlong(grp, NC_GLOBAL, "first_unit", NC_INT64, 1, &first_unit));
    NC_CALL(o, nc_put_att_longlong(grp, NC_GLOBAL, "unit_members", NC_INT64, 1, &unit));
    NC_CALL(o, nc_def_dim(grp, "block", (size_t)o->merge_blocks, &dim_block));
    NC_CALL(o, nc_def_dim(grp, "unit", (size_t)o->merge_units, &dim_unit));
    o->var_merge_moments = o->var_merge_sums = o->var_merge_k1 = o->var_merge_features =
        o->var_merge_sobol = -1;
    o->merge_sobol_values = s->merge_sobol_values;
    if (s->merge_statistics > 0) {
        NC_CALL(o, nc_def_dim(grp, "statistic", (size_t)s->merge_statistics, &dim_statistic));
        NC_CALL(o, nc_def_dim(grp, "moment", 3, &dim_moment));
        const int dims[4] = {dim_t, dim_statistic, dim_unit, dim_moment};
        NC_CALL(o, nc_def_var(grp, "moments", NC_DOUBLE, 4, dims, &o->var_merge_moments));
        COHORT_CALL(
            output_put_text(o, o->var_merge_moments, "long_name",
                            "count, mean and m2 of each unit of members (Welford, in member "
                            "order) of ell, mass and the series, in that order"));
    }
    if (s->merge_sum_rows > 0) {
        NC_CALL(o, nc_def_dim(grp, "sum_row", (size_t)s->merge_sum_rows, &dim_row));
        const int dims[3] = {dim_t, dim_block, dim_row};
        NC_CALL(o, nc_def_var(grp, "spectrum_sums", NC_DOUBLE, 3, dims, &o->var_merge_sums));
        COHORT_CALL(
            output_put_text(o, o->var_merge_sums, "long_name",
                            "sum over each block of members of |C^_k|^2 (in member order)"));
        NC_CALL(o, nc_def_dim(grp, "k1_term", STRUCTURE_FACTOR_K1_TERMS, &dim_term));
        const int unit_dims[3] = {dim_t, dim_unit, dim_term};
        NC_CALL(o, nc_def_var(grp, "k1_unit_sums", NC_DOUBLE, 3, unit_dims, &o->var_merge_k1));
        COHORT_CALL(output_put_text(o, o->var_merge_k1, "long_name",
                                    "sum over each unit of members of their sums of S and S/|k| "
                                    "over k != 0 (cuSten eq. 6; in member order)"));
    }
    if (s->merge_sobol_values > 0) {
        int dim_value;
        NC_CALL(o, nc_def_dim(grp, "sobol_value", (size_t)s->merge_sobol_values, &dim_value));
        const int dims[2] = {dim_t, dim_value};
        NC_CALL(o, nc_def_var(grp, "sobol_sums", NC_DOUBLE, 2, dims, &o->var_merge_sobol));
        COHORT_CALL(output_put_text(o, o->var_merge_sobol, "long_name",
                                    "the Sobol estimators' sums of each unit of members, and the "
                                    "values of the base points the part cuts (each statistic in "
                                    "turn; analysis/sobol_stream.h)"));
    }
    if (s->merge_features) {
        const size_t chunk[2] = {
            (size_t)(s->chunk_members < s->members ? s->chunk_members : s->members), (size_t)s->n};
        NC_CALL(o, nc_def_dim(grp, "point", (size_t)s->n, &dim_point));
        const int dims[2] = {dim_member, dim_point};
        NC_CALL(o, nc_def_var(grp, "features", NC_DOUBLE, 2, dims, &o->var_merge_features));
        /* not deflated: final fields hardly compress, and the part is written and read once */
        NC_CALL(o, nc_def_var_chunking(grp, o->var_merge_features, NC_CHUNKED, chunk));
        COHORT_CALL(output_put_text(o, o->var_merge_features, "long_name",
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

/* Swept parameter j's place in a space-filling design (design.h): its range, its distribution and
 * a Sobol design's digital shifts. */
static int define_parameter_design(cohort_output *o, const output_spec *s, int j)
{
    const double range[2] = {s->param_lo[j], s->param_hi[j]};
    NC_CALL(o, nc_put_att_double(o->ncid, o->var_param[j], "design_range", NC_DOUBLE, 2, range));
    COHORT_CALL(output_put_text(o, o->var_param[j], "design_distribution",
                                s->param_log[j] ? "log-uniform" : "uniform"));
    if (s->param_shifts[j] > 0)
        NC_CALL(o, nc_put_att_uint(o->ncid, o->var_param[j], "sobol_digital_shift", NC_UINT,
                                   (size_t)s->param_shifts[j], s->param_shift[j]));
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
        COHORT_CALL(output_put_text(o, o->var_param[j], "parameter", s->param_key[j]));
        COHORT_CALL(output_put_text(o, o->var_param[j], "long_name",
                                    s->param_meaning[j] ? s->param_meaning[j]
                                                        : "swept parameter of each member"));
        COHORT_CALL(output_put_text(o, o->var_param[j], "units", s->param_units[j]));
        if (s->param_grid_count[j] > 0) {
            int dim, var;
            snprintf(grid, sizeof grid, "%s_grid", name);
            NC_CALL(o, nc_def_dim(o->ncid, grid, (size_t)s->param_grid_count[j], &dim));
            dim_grid[j] = dim;
            NC_CALL(o, nc_def_var(o->ncid, grid, NC_DOUBLE, 1, &dim, &var));
            COHORT_CALL(output_put_text(o, var, "parameter", s->param_key[j]));
            COHORT_CALL(output_put_text(o, var, "long_name", "values of the swept parameter"));
            COHORT_CALL(output_put_text(o, var, "units", s->param_units[j]));
            NC_CALL(o, nc_put_var_double(o->ncid, var, s->param_values[j])); /* NetCDF-4 */
        }
        if (s->design) COHORT_CALL(define_parameter_design(o, s, j));
    }
    if (!s->design) return COHORT_OK;
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "sweep_design", s->design));
    const long long points = s->design_points, arms = s->design_arms;
    NC_CALL(o, nc_put_att_longlong(o->ncid, NC_GLOBAL, "sweep_points", NC_INT64, 1, &points));
    if (arms > 1)
        NC_CALL(o, nc_put_att_longlong(o->ncid, NC_GLOBAL, "saltelli_arms", NC_INT64, 1, &arms));
    return COHORT_OK;
}

/* cohort_version: the version in source ("cohort 0.2.0 (git ...)"); cohort_arithmetic: the
 * generation of the arithmetic the numbers were computed in (COHORT_ARITHMETIC: files of 0.1,
 * which have no such attribute, differ from 0.2's in their last bits; merge refuses to mix). */
static int define_version_attribute(cohort_output *o, const char *source)
{
    char version[32] = "";
    if (source && sscanf(source, "cohort %31s", version) == 1)
        COHORT_CALL(output_put_text(o, NC_GLOBAL, "cohort_version", version));
    const int generation = COHORT_ARITHMETIC;
    NC_CALL(o, nc_put_att_int(o->ncid, NC_GLOBAL, "cohort_arithmetic", NC_INT, 1, &generation));
    return COHORT_OK;
}

/* The global attributes: CF's, what the run was and how it was made. */
static int define_global_attributes(cohort_output *o, const output_spec *s)
{
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "Conventions", "CF-1.11"));
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "title", s->title));
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "history", s->history));
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "analysed_file", s->analysed_file));
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "source", s->source));
    COHORT_CALL(define_version_attribute(o, s->source));
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "model", s->model));
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "config", s->config));
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "run_id", s->run_id));
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "backend", s->backend));
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "device", s->device));
    COHORT_CALL(output_put_text(o, NC_GLOBAL, "libraries", s->libraries));
    /* backend/philox.h: the scheme since 2026-11-22 */
    COHORT_CALL(
        output_put_text(o, NC_GLOBAL, "rng",
                        "Philox4x32-10 (Random123 on cpu, cuRAND's device API on cuda): member g "
                        "draws stream g of the seed; value i is component i % 2 of "
                        "curand_uniform2_double after curand_init(seed, g, 2 (i - i % 2)); in a "
                        "Saltelli design the arms AB_j of a base point draw its arm A's stream"));
    const unsigned long long seed = s->seed;
    NC_CALL(o, nc_put_att_ulonglong(o->ncid, NC_GLOBAL, "seed", NC_UINT64, 1, &seed));
    return COHORT_OK;
}

int output_define_file(cohort_output *o, const output_spec *s)
{
    int dim_member, dim_x, dim_y = -1, dim_t, var_member, var_x, var_y = -1;
    int dim_grid[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    const int64_t nx = s->ny > 0 ? s->nx : s->n;
    NC_CALL(o, nc_def_dim(o->ncid, "member", (size_t)s->members, &dim_member));
    NC_CALL(o, nc_def_dim(o->ncid, "x", (size_t)nx, &dim_x));
    if (s->ny > 0) {
        NC_CALL(o, nc_def_dim(o->ncid, "y", (size_t)s->ny, &dim_y));
        NC_CALL(o, nc_def_var(o->ncid, "y", NC_DOUBLE, 1, &dim_y, &var_y));
        COHORT_CALL(output_put_text(o, var_y, "long_name",
                                    s->closed ? "position along y of the node on the square"
                                              : "position along y on the periodic square"));
        COHORT_CALL(output_put_text(o, var_y, "units", "1"));
    }
    dim_t = o->var_t = -1;
    if (!s->steady) NC_CALL(o, nc_def_dim(o->ncid, "t", NC_UNLIMITED, &dim_t));
    NC_CALL(o, nc_def_var(o->ncid, "member", NC_INT64, 1, &dim_member, &var_member));
    COHORT_CALL(output_put_text(o, var_member, "standard_name", "realization"));
    COHORT_CALL(output_put_text(o, var_member, "long_name", "global member index"));
    COHORT_CALL(output_put_text(o, var_member, "units", "1"));
    NC_CALL(o, nc_def_var(o->ncid, "x", NC_DOUBLE, 1, &dim_x, &var_x));
    COHORT_CALL(output_put_text(o, var_x, "long_name",
                                s->closed
                                    ? (s->ny > 0 ? "position along x of the node on the square"
                                                 : "position of the node on the closed interval")
                                    : "position on the periodic domain"));
    COHORT_CALL(output_put_text(o, var_x, "units", "1"));
    if (!s->steady) {
        NC_CALL(o, nc_def_var(o->ncid, "t", NC_DOUBLE, 1, &dim_t, &o->var_t));
        COHORT_CALL(output_put_text(o, o->var_t, "long_name", "nondimensional time"));
        COHORT_CALL(output_put_text(o, o->var_t, "units", "1"));
    }
    o->var_c = o->var_t_snap = o->var_member_series[0] = o->var_member_series[1] = o->var_check =
        o->var_history = -1;
    if (!s->analysis_only) COHORT_CALL(define_run_variables(o, s, dim_member, dim_x, dim_y, dim_t));
    COHORT_CALL(define_parameters(o, s, dim_member, dim_grid));
    COHORT_CALL(define_analyses(o, s, dim_member, dim_x, dim_y, dim_t, dim_grid));
    COHORT_CALL(define_global_attributes(o, s));
    if (s->part_of > 0) COHORT_CALL(define_merge_group(o, s, dim_member, dim_t));
    NC_CALL(o, nc_enddef(o->ncid));
    return write_coordinates(o, s, var_member, var_x, var_y);
}
