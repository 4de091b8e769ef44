/* The files a command reads and writes, checked before any work (a bad path is the user's to fix,
 * and finding it after an hour's run helps nobody). Each check returns 0, or fills err with a
 * message naming the path and the errno of the call that failed, and returns 2. */
#ifndef COHORT_PATHS_H
#define COHORT_PATHS_H

#include <stddef.h>
#include <sys/stat.h>

/* Whether st is /dev/null's: an empty input, where only regular files are read otherwise. */
int paths_null_device(const struct stat *st);

/* `path` (a `what`, e.g. "configuration") is a regular file this process can read, or /dev/null
 * (an empty one): not a directory, another device, a pipe or a socket. */
int paths_check_input(const char *path, const char *what, char *err, size_t len);

/* `path` can be written as a new output: its directory exists and is writable; it is not a
 * directory; it is none of the n_inputs `inputs` (by name or by inode); and where it exists, it is
 * replaced only with `overwrite` (NCO's -O). `option` names where the path came from. */
int paths_check_output(const char *path, const char *option, const char *const *inputs,
                       int n_inputs, int overwrite, char *err, size_t len);

/* The bytes free to this process in the directory `path` will be created in (-1: unknown). */
double paths_free_bytes(const char *path);

/* The directory `path` will be created in exists and this process can write in it. */
int paths_check_directory(const char *path, const char *option, char *err, size_t len);

/* `path` with its trailing ".nc" (where it has one) replaced by `extension`, malloc'd (NULL: out
 * of memory): the default name of what a command makes from a file ("run.analysis.nc"). */
char *paths_replace_nc(const char *path, const char *extension);

/* Whether a and b name the same existing file. */
int paths_same_file(const char *a, const char *b);

#endif
