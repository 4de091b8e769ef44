/* `cohort info FILE.nc`: what a cohort file holds and how it was made. */
#ifndef COHORT_INFO_H
#define COHORT_INFO_H

#include <stddef.h>
#include <stdio.h>

/* A global text attribute of an open NetCDF file (malloc'd), or NULL. */
char *info_global_text(int nc, const char *name);

/* Opens `path` read-only as a cohort file: *nc, and its `source` and `config` attributes
 * (malloc'd). Returns 0, or 2 with the reason in err (not readable as NetCDF, or not cohort's);
 * nothing is left open then. */
int info_open_cohort(const char *path, int *nc, char **source, char **config, char *err,
                     size_t len);

/* Prints the summary to out. Returns 0, or 2 for a missing, unreadable or non-cohort file (the
 * message on stderr). */
int info_print(const char *path, FILE *out);

#endif
