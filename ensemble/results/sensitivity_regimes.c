/* The k-means regimes as statistics of the Sobol indices (analyze_sensitivity.h): a member's
 * indicator of each cluster, 1 where its label is that cluster, 0 where another, NaN where it has
 * none (it diverged), whose first-order index is the share of the variance of "ends in this
 * regime" that the parameter explains alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/reduction_numerics.h"
#include "backend/cohort_error.h"
#include "io/cohort_file.h"
#include "results/analyze_sensitivity.h"

/* The k names of the clusters from the labels' flag_meanings ("A0 A1 A2"): in_<meaning>. */
static int regime_names(int grp, int var, char names[][SENSITIVITY_NAME_MAX], int k)
{
    char *meanings = cohort_file_variable_text(grp, var, "flag_meanings");
    const char *next = meanings ? meanings : "";
    for (int c = 0; c < k; ++c) {
        while (*next == ' ') ++next;
        const size_t len = strcspn(next, " ");
        if (len > 0)
            snprintf(names[c], SENSITIVITY_NAME_MAX, "in_%.*s", (int)len, next);
        else
            snprintf(names[c], SENSITIVITY_NAME_MAX, "in_cluster_%d", c);
        next += len;
    }
    free(meanings);
    return COHORT_OK;
}

/* The indicator of cluster c of every member into v. */
static void indicator(const unsigned char *labels, int64_t members, int c, double *v)
{
    for (int64_t g = 0; g < members; ++g)
        v[g] = labels[g] == REDUCTION_SKIP ? NAN : labels[g] == c ? 1.0 : 0.0;
}

int sensitivity_regimes(int nc, const run_plan *p, sobol_stream *st,
                        char names[][SENSITIVITY_NAME_MAX], int *k)
{
    int grp, var, cgrp, cvar, ndims = 0;
    size_t len[1] = {0}, clusters[1] = {0};
    *k = 0;
    if (cohort_file_variable(nc, NULL, "label", &grp, &var) ||
        cohort_file_variable(nc, NULL, "cluster", &cgrp, &cvar) ||
        cohort_file_shape(grp, var, 1, &ndims, len, NULL) || ndims != 1 ||
        len[0] != (size_t)p->members || cohort_file_shape(cgrp, cvar, 1, &ndims, clusters, NULL))
        return COHORT_OK;
    if (clusters[0] < 1 || clusters[0] > SENSITIVITY_MAX_REGIMES)
        return COHORT_FAIL(COHORT_ERR_IO, "%zu clusters (at most %d)", clusters[0],
                           SENSITIVITY_MAX_REGIMES);
    unsigned char *labels = malloc((size_t)p->members);
    double *v = malloc((size_t)p->members * sizeof *v);
    int rc = labels && v ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "the labels");
    int status = rc == COHORT_OK ? cohort_file_read_byte(grp, var, NULL, NULL, labels) : 0;
    if (status) rc = COHORT_FAIL(COHORT_ERR_IO, "reading label: %s", cohort_file_strerror(status));
    const int n = (int)clusters[0];
    if (rc == COHORT_OK) rc = sensitivity_stream_alloc(st, p, n, 1, 0, p->members);
    for (int c = 0; c < n && rc == COHORT_OK; ++c) {
        indicator(labels, p->members, c, v);
        rc = sobol_stream_add(st, 0, c, 0, p->members, v);
    }
    if (rc == COHORT_OK) rc = regime_names(grp, var, names, n);
    if (rc == COHORT_OK)
        *k = n;
    else if (st->units)
        sobol_stream_free(st);
    free(labels), free(v);
    return rc;
}
