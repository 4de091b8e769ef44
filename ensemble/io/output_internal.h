/* The NetCDF writer's insides, shared by its two files alone: output.c (creating, writing,
 * closing) and output_define.c (defining a file's dimensions, variables and attributes from its
 * spec). Nothing outside io/output*.c includes it. */
#ifndef COHORT_OUTPUT_INTERNAL_H
#define COHORT_OUTPUT_INTERNAL_H

#include <errno.h>
#include <netcdf.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "io/output.h"

struct cohort_output {
    int ncid;
    int64_t members, n;
    int var_t, var_ell_mean, var_ell_var, var_ell_sem, var_mass_mean, var_n_active, var_c,
        var_diverged, var_t_snap, var_member_series[2], var_param[8], var_history;
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
    int64_t merge_blocks; /* a part's structure-factor blocks (0: not a part) */
    int64_t merge_units;  /* a part's units of the statistics (0: not a part) */
    int var_merge_moments, var_merge_sums, var_merge_k1, var_merge_features, var_merge_sobol;
    int64_t merge_sobol_values;
    char *path, *partial;
    int replace;   /* the spec's replace */
    int in_memory; /* no file on disk: nothing to rename or remove */
};

/* The group of a part's merge data, in the file now open. */
static inline int merge_group(const cohort_output *o, int *grp)
{
    return nc_inq_ncid(o->ncid, "merge", grp);
}

/* Every NetCDF call: the library's message, the file, and where; HDF5 reports a full disk or a
 * file-size limit only as "HDF error", so the errno it left says which. */
static inline const char *nc_cause(int status)
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

/* A text attribute of var (NULL text: none). */
int output_put_text(cohort_output *o, int var, const char *name, const char *text);

/* The whole file of spec s in define mode, ended (nc_enddef), its coordinates written. */
int output_define_file(cohort_output *o, const output_spec *s);

/* The k-means variables for k clusters (label, centroid, sizes, inertia; the label map). */
int output_define_kmeans(cohort_output *o, int k);

#endif
