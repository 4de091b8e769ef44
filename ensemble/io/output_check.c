/* A file checked against the file a spec defines (output.h): every variable of the spec's file,
 * in the root group and its groups, present with its type and the lengths of its fixed
 * dimensions. The spec's file is defined in memory by the very code that writes such files, so
 * what is checked is what a run would have written. */
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "io/output.h"

/* "C is 1024 x 17 (member x x) where the configuration implies 1024 x 256" */
static int shape_text(int grp, int ndims, const int *dims, const size_t *lens, char *text,
                      size_t len)
{
    size_t at = 0;
    for (int d = 0; d < ndims && at < len; ++d) {
        char name[NC_MAX_NAME + 1] = "?";
        nc_inq_dimname(grp, dims[d], name);
        at += (size_t)snprintf(text + at, len - at, "%s%s = %zu", d ? ", " : "", name, lens[d]);
    }
    if (ndims == 0) snprintf(text, len, "a scalar");
    return 0;
}

/* The reference's unlimited dimensions (t), defined in its root group: their ids hold in every
 * group of a NetCDF-4 file. */
typedef struct unlimited_dims {
    int n, ids[8];
} unlimited_dims;

/* Variable v of the reference group ref against its namesake in grp of the file `path`. */
static int check_variable(int ref, int v, int grp, const unlimited_dims *unlimited,
                          const char *group, const char *path)
{
    char name[NC_MAX_NAME + 1];
    nc_type ref_type, type;
    int ref_ndims, ndims, var, ref_dims[NC_MAX_VAR_DIMS], dims[NC_MAX_VAR_DIMS];
    nc_inq_var(ref, v, name, &ref_type, &ref_ndims, ref_dims, NULL);
    if (nc_inq_varid(grp, name, &var) != NC_NOERR)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "%s: there is no variable %s%s", path,
                           group, name);
    nc_inq_var(grp, var, NULL, &type, &ndims, dims, NULL);
    if (type != ref_type)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "%s: %s%s is of NetCDF type %d where the configuration implies %d", path,
                           group, name, (int)type, (int)ref_type);
    size_t want[NC_MAX_VAR_DIMS] = {0}, have[NC_MAX_VAR_DIMS] = {0};
    int differs = ndims != ref_ndims;
    for (int d = 0; d < ref_ndims; ++d) nc_inq_dimlen(ref, ref_dims[d], &want[d]);
    for (int d = 0; d < ndims; ++d) nc_inq_dimlen(grp, dims[d], &have[d]);
    for (int d = 0; d < ref_ndims && !differs; ++d) {
        int grows = 0; /* t: as long as the records written, which the merge checks itself */
        for (int u = 0; u < unlimited->n; ++u) grows |= unlimited->ids[u] == ref_dims[d];
        differs = !grows && want[d] != have[d];
    }
    if (!differs) return COHORT_OK;
    char wanted[256], held[256];
    shape_text(ref, ref_ndims, ref_dims, want, wanted, sizeof wanted);
    shape_text(grp, ndims, dims, have, held, sizeof held);
    return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                       "%s: %s%s has %s where the configuration implies %s", path, group, name,
                       ndims == ref_ndims ? held : "other dimensions", wanted);
}

/* Every variable of the reference group ref (and of its groups) in grp. */
static int check_group(int ref, int grp, const unlimited_dims *unlimited, const char *group,
                       const char *path)
{
    int n_vars = 0, n_groups = 0, groups[16];
    nc_inq_nvars(ref, &n_vars);
    for (int v = 0; v < n_vars; ++v)
        COHORT_CALL(check_variable(ref, v, grp, unlimited, group, path));
    nc_inq_grps(ref, &n_groups, NULL);
    if (n_groups > 16) n_groups = 16;
    nc_inq_grps(ref, &n_groups, groups);
    for (int g = 0; g < n_groups; ++g) {
        char name[NC_MAX_NAME + 1], prefix[NC_MAX_NAME + 2];
        int sub = -1;
        nc_inq_grpname(groups[g], name);
        snprintf(prefix, sizeof prefix, "%s/", name);
        if (nc_inq_ncid(grp, name, &sub) != NC_NOERR)
            return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "%s has no group %s", path, name);
        COHORT_CALL(check_group(groups[g], sub, unlimited, prefix, path));
    }
    return COHORT_OK;
}

int output_check_file(const output_spec *s, int ncid, const char *path)
{
    cohort_output *ref = NULL;
    COHORT_CALL(output_create_in_memory(s, &ref));
    unlimited_dims unlimited = {0};
    nc_inq_unlimdims(output_ncid(ref), &unlimited.n, NULL);
    if (unlimited.n > 8)
        unlimited.n = 0;
    else
        nc_inq_unlimdims(output_ncid(ref), &unlimited.n, unlimited.ids);
    const int rc = check_group(output_ncid(ref), ncid, &unlimited, "", path);
    output_close(ref, 0);
    return rc;
}
