#define _POSIX_C_SOURCE 200809L
#include "io/paths.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "exit_status.h"

int paths_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int paths_null_device(const struct stat *st)
{
    struct stat null;
    return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) &&
           st->st_rdev == null.st_rdev;
}

int paths_check_input(const char *path, const char *what, char *err, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, len, "%s: cannot read the %s: %s", path, what, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, len, "%s: the %s is a directory, not a file", path, what);
        return EXIT_BAD_INPUT;
    }
    if (!S_ISREG(st.st_mode) && !paths_null_device(&st)) { /* /dev/zero, a pipe: no end, or once */
        snprintf(err, len, "%s: the %s is not a regular file (a device, pipe or socket)", path,
                 what);
        return EXIT_BAD_INPUT;
    }
    if (access(path, R_OK) != 0) {
        snprintf(err, len, "%s: cannot read the %s: %s", path, what, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    return 0;
}

int paths_check_output(const char *path, const char *option, const char *const *inputs,
                       int n_inputs, int overwrite, char *err, size_t len)
{
    struct stat st;
    const int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(err, len, "%s %s: is a directory; give a file name (for example %s/out.nc)",
                 option, path, path);
        return EXIT_BAD_INPUT;
    }
    for (int i = 0; i < n_inputs; ++i)
        if (inputs[i] && (!strcmp(path, inputs[i]) || paths_same_file(path, inputs[i]))) {
            snprintf(err, len, "%s %s: that is the input (%s), which this command never overwrites",
                     option, path, inputs[i]);
            return EXIT_BAD_INPUT;
        }
    if (exists && !overwrite) {
        snprintf(err, len, "%s %s: the file exists; pass --overwrite to replace it", option, path);
        return EXIT_BAD_INPUT;
    }
    return paths_check_directory(path, option, err, len);
}

/* The directory a file at `path` is created in (malloc'd): "." for a bare name, and "/x.nc"
 * keeps "/". */
static char *directory_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    const size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (dir) memcpy(dir, path, n), dir[n] = '\0';
    return dir;
}

int paths_check_directory(const char *path, const char *option, char *err, size_t len)
{
    /* the directory the file (and its .partial and .lock) will be created in */
    struct stat st;
    char *dir = directory_of(path);
    if (!dir) {
        snprintf(err, len, "out of memory");
        return EXIT_BAD_INPUT;
    }
    int rc = 0;
    if (stat(dir, &st) != 0) {
        snprintf(err, len, "%s %s: the directory %s: %s", option, path, dir, strerror(errno));
        rc = EXIT_BAD_INPUT;
    } else if (!S_ISDIR(st.st_mode)) {
        snprintf(err, len, "%s %s: %s is not a directory", option, path, dir);
        rc = EXIT_BAD_INPUT;
    } else if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, len, "%s %s: cannot write in the directory %s: %s", option, path, dir,
                 strerror(errno));
        rc = EXIT_BAD_INPUT;
    }
    free(dir);
    return rc;
}

double paths_free_bytes(const char *path)
{
    char *dir = directory_of(path);
    struct statvfs fs;
    const int ok = dir && statvfs(dir, &fs) == 0;
    free(dir);
    return ok ? (double)fs.f_bavail * (double)fs.f_frsize : -1.0;
}

char *paths_replace_nc(const char *path, const char *extension)
{
    const size_t len = strlen(path);
    const size_t stem = len > 3 && !strcmp(path + len - 3, ".nc") ? len - 3 : len;
    char *out = malloc(stem + strlen(extension) + 1);
    if (out) sprintf(out, "%.*s%s", (int)stem, path, extension);
    return out;
}
