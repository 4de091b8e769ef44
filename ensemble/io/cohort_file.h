/* Reading a file cohort wrote: its global text, the opener that knows a cohort file from
 * another NetCDF file (merge, analyze, --resume), and the summary `cohort info FILE.nc` prints. */
#ifndef COHORT_COHORT_FILE_H
#define COHORT_COHORT_FILE_H

#include <stddef.h>
#include <stdio.h>

/* A global text attribute of an open NetCDF file (malloc'd), or NULL. */
char *cohort_file_text(int nc, const char *name);

/* Opens `path` read-only as a cohort file: *nc, and its `source` and `config` attributes
 * (malloc'd). Returns 0, or 2 with the reason in err (not readable as NetCDF, or not cohort's);
 * nothing is left open then. */
int cohort_file_open(const char *path, int *nc, char **source, char **config, char *err,
                     size_t len);

/* Prints what the file holds and how it was made to out. Returns 0, or 2 with err for a
 * missing, unreadable or non-cohort file. */
int cohort_file_describe(const char *path, FILE *out, char *err, size_t len);

#endif
