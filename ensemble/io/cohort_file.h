/* Reading a file cohort wrote, the one place outside the writer that speaks NetCDF: its global
 * text, the opener that knows a cohort file from another NetCDF file (merge, analyze, --resume),
 * a part's place in its run, its variables' shapes and values (a part's merge data, an archive, a
 * fit's blocks), and the summary `cohort info FILE.nc` prints. */
#ifndef COHORT_COHORT_FILE_H
#define COHORT_COHORT_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest name of a dimension or variable (NetCDF's NC_MAX_NAME + 1) and the most
 * dimensions of a variable (NC_MAX_VAR_DIMS), for callers that hold no NetCDF header. */
enum { COHORT_FILE_NAME_MAX = 257, COHORT_FILE_DIMS_MAX = 1024 };

/* A global text attribute of an open NetCDF file (malloc'd), or NULL. */
char *cohort_file_text(int nc, const char *name);
/* A text attribute of variable var of group grp (cohort_file_variable's), malloc'd, or NULL. */
char *cohort_file_variable_text(int grp, int var, const char *name);

/* Opens `path` read-only as a cohort file: *nc, and its `source` and `config` attributes
 * (malloc'd). Returns 0, or 2 with the reason in err (not readable as NetCDF, or not cohort's);
 * nothing is left open then. */
int cohort_file_open(const char *path, int *nc, char **source, char **config, char *err,
                     size_t len);

/* The arithmetic's generation the file's numbers were computed in (its cohort_arithmetic
 * attribute; 1 for files of cohort 0.1, which have none). */
int cohort_file_arithmetic(int nc);

/* Opens `path` read-only for its data alone (a part whose merge data is read again): 0, or -1. */
int cohort_file_open_data(const char *path, int *nc);
void cohort_file_close(int nc);

/* A part's place in its run: the global attributes members_first and members_total and the
 * length of its member dimension (-1 where absent). Returns whether the file is a part: both
 * attributes and the group merge. */
int cohort_file_part(int nc, long long *first, long long *total, long long *members);

/* Variable `name` of the open file nc, in group `group` (NULL: the root; "merge": a part's merge
 * data): *grp and *var for the calls below; 0, or -1 where it is missing. */
int cohort_file_variable(int nc, const char *group, const char *name, int *grp, int *var);

/* A variable's dimensions: their number into *ndims, the first max lengths into len; the type
 * into *is_double (double or float: 1; else 0). 0, or -1. */
int cohort_file_shape(int grp, int var, int max, int *ndims, size_t *len, int *is_double);

/* The name and length of a variable's dimension d: 0, or -1. */
int cohort_file_dimension(int grp, int var, int d, char *name, size_t *len);

/* Reads the hyperslab [at, at + size) of a variable (at NULL: the whole variable) as doubles,
 * 64-bit integers or bytes: 0, or the NetCDF status (cohort_file_strerror says what it is). */
int cohort_file_read_double(int grp, int var, const size_t *at, const size_t *size, double *out);
int cohort_file_read_int64(int grp, int var, const size_t *at, const size_t *size, long long *out);
int cohort_file_read_byte(int grp, int var, const size_t *at, const size_t *size,
                          unsigned char *out);
const char *cohort_file_strerror(int status);

/* Whether a variable is stored in chunks, and their lengths along its dimensions into chunk. */
int cohort_file_chunking(int grp, int var, size_t *chunk);

/* Keeps one chunk of a chunked variable in the read cache: HDF5 decompresses a whole chunk for
 * any part of it. */
void cohort_file_cache_chunk(int grp, int var);

/* Prints what the file holds and how it was made to out. Returns 0, or 2 with err for a
 * missing, unreadable or non-cohort file. */
int cohort_file_describe(const char *path, FILE *out, char *err, size_t len);

#endif
