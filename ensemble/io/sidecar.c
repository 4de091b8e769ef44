/* The files beside an output (sidecar.h). _GNU_SOURCE for renameat2's RENAME_NOREPLACE and
 * mkostemp. */
#define _GNU_SOURCE
#include "io/sidecar.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cohort_error.h"
#include "exit_status.h"
#include "io/checkpoint.h"

int sidecar_name(const char *out, const char *suffix, char *name, size_t len)
{
    const int n = snprintf(name, len, "%s%s", out, suffix);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

char *sidecar_name_alloc(const char *out, const char *suffix)
{
    const size_t len = strlen(out) + strlen(suffix) + 1;
    char *name = malloc(len);
    if (name) sidecar_name(out, suffix, name, len);
    return name;
}

int sidecar_copy_name(const char *checkpoint_path, int64_t generation, char *name, size_t len)
{
    const int n = snprintf(name, len, "%s.%lld.nc", checkpoint_path, (long long)generation);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

int sidecar_part_name(const char *out, int64_t first, int64_t end, char *name, size_t len)
{
    const int n = snprintf(name, len, "%s" SIDECAR_PART "%lld-%lld.nc", out, (long long)first,
                           (long long)end);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

/* The length of the digits at s (0: none). */
static size_t digits(const char *s)
{
    size_t n = 0;
    while (isdigit((unsigned char)s[n])) ++n;
    return n;
}

/* Whether the name's tail from `at` is `.part-A-B.nc` or `.checkpoint.G.nc`. */
static int numbered_tail(const char *at)
{
    size_t a;
    if (!strncmp(at, SIDECAR_PART, 6) && (a = digits(at + 6)) > 0 && at[6 + a] == '-') {
        const size_t b = digits(at + 7 + a);
        return b > 0 && !strcmp(at + 7 + a + b, ".nc");
    }
    if (!strncmp(at, SIDECAR_CHECKPOINT ".", 12) && (a = digits(at + 12)) > 0)
        return !strcmp(at + 12 + a, ".nc");
    return 0;
}

/* The suffix of one of the kinds at the end of name[0, n) that leaves a non-empty file name
 * before it: its length, and what it is; 0 where none. */
static size_t sidecar_suffix(const char *name, size_t n, const char **what)
{
    static const struct {
        const char *suffix, *what;
    } kinds[] = {{SIDECAR_LOCK, "the lock"},
                 {SIDECAR_PARTIAL, "the partial file"},
                 {SIDECAR_CHECKPOINT, "the checkpoint"},
                 {SIDECAR_RANKS, "the segment list"}};
    char *copy = strndup(name, n);
    size_t cut = 0;
    for (size_t k = 0; copy && k < sizeof kinds / sizeof kinds[0] && !cut; ++k) {
        const size_t s = strlen(kinds[k].suffix);
        if (n > s && !strcmp(copy + n - s, kinds[k].suffix)) cut = s, *what = kinds[k].what;
    }
    /* NAME.tmp-XXXXXX, and the numbered kinds */
    const char *dot = copy ? strrchr(copy, '.') : NULL;
    if (!cut && dot && !strncmp(dot, ".tmp-", 5) && strlen(dot) == 11)
        cut = strlen(dot), *what = "a temporary file";
    for (const char *at = copy; copy && !cut && (at = strchr(at, '.')) != NULL; ++at)
        if (numbered_tail(at))
            cut = n - (size_t)(at - copy),
            *what = at[1] == 'p' ? "a part of a run over several processes"
                                 : "the checkpoint's copy of the partial file";
    const int named = cut && n - cut > 0 && copy[n - cut - 1] != '/';
    free(copy);
    return named ? cut : 0;
}

int sidecar_owner(const char *path, char *owner, size_t owner_len, const char **what)
{
    size_t n = strlen(path), cut;
    const char *first = NULL, *kind = NULL;
    while ((cut = sidecar_suffix(path, n, &kind)) > 0) {
        n -= cut;
        if (!first) first = kind;
    }
    if (!first) return 0;
    snprintf(owner, owner_len, "%.*s", (int)n, path);
    *what = first;
    return 1;
}

int sidecar_check_not_owned(const char *path, const char *option, char *err, size_t len)
{
    char owner[PATH_MAX];
    const char *what = NULL;
    if (!sidecar_owner(path, owner, sizeof owner, &what)) return 0;
    snprintf(err, len,
             "%s %s: that name is %s of the output %s, which only the command writing %s may "
             "touch; choose another name",
             option, path, what, owner, owner);
    return EXIT_BAD_INPUT;
}

/* 0 where nothing stands at `name`; 1 where a regular file does; 2 with err where something
 * else (a link: cohort never writes through one) does. */
static int sidecar_standing(const char *name, char *err, size_t len)
{
    struct stat st;
    if (lstat(name, &st) != 0) return 0;
    if (S_ISREG(st.st_mode)) return 1;
    snprintf(err, len,
             "%s is %s, not a file cohort made: cohort never writes through a link or over "
             "another kind of file; remove it",
             name, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a regular file");
    return EXIT_BAD_INPUT;
}

/* Whether `rest`, what follows OUT's file name in a name of its directory, is a temporary of
 * OUT's own: [.partial | .checkpoint | .checkpoint.G.nc | .ranks].tmp-XXXXXX */
static int own_temporary(const char *rest)
{
    const size_t n = strlen(rest), tail = strlen(".tmp-XXXXXX");
    if (n < tail || strncmp(rest + n - tail, ".tmp-", 5)) return 0;
    char *kind = strndup(rest, n - tail);
    int own = kind && (!*kind || !strcmp(kind, SIDECAR_PARTIAL) ||
                       !strcmp(kind, SIDECAR_CHECKPOINT) || !strcmp(kind, SIDECAR_RANKS) ||
                       (!strncmp(kind, SIDECAR_CHECKPOINT ".", 12) && numbered_tail(kind)));
    free(kind);
    return own;
}

/* The temporaries a run of OUT killed while writing one left (sidecar_temp's names), removed,
 * under OUT's lock, only where the command continues that run (--resume: the same run id) or
 * discards it (--overwrite): a plain command removes nothing it did not create. A link is
 * removed, never followed. */
static void sweep_temporaries(const char *out)
{
    const char *slash = strrchr(out, '/'), *base = slash ? slash + 1 : out;
    char dir[PATH_MAX], name[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - out) + 1 : 1, slash ? out : ".");
    DIR *d = opendir(dir);
    const size_t b = strlen(base);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (!strncmp(e->d_name, base, b) && own_temporary(e->d_name + b) &&
            snprintf(name, sizeof name, "%s%s", slash ? dir : "", e->d_name) < (int)sizeof name)
            unlink(name);
    if (d) closedir(d);
}

int sidecar_prepare(const char *out, const char *option, enum sidecar_mode mode, char *err,
                    size_t len)
{
    char partial[PATH_MAX + 16], ck[PATH_MAX + 16];
    if (sidecar_name(out, SIDECAR_PARTIAL, partial, sizeof partial) ||
        sidecar_name(out, SIDECAR_CHECKPOINT, ck, sizeof ck)) {
        snprintf(err, len, "%s %s: the name is too long", option, out);
        return EXIT_BAD_INPUT;
    }
    const int has_partial = sidecar_standing(partial, err, len);
    if (has_partial == EXIT_BAD_INPUT) return EXIT_BAD_INPUT;
    const int has_ck = sidecar_standing(ck, err, len);
    if (has_ck == EXIT_BAD_INPUT) return EXIT_BAD_INPUT;
    if (mode == SIDECAR_RESUME) {
        sweep_temporaries(out);
        return 0;
    }
    if (mode == SIDECAR_CREATE && has_ck) {
        snprintf(err, len,
                 "%s exists: an interrupted run of %s; continue it with cohort run ... --resume, "
                 "or discard it with --overwrite",
                 ck, out);
        return EXIT_BAD_INPUT;
    }
    if (mode == SIDECAR_CREATE && has_partial) {
        snprintf(err, len,
                 "%s exists without a checkpoint: left by a run of %s that stopped before its "
                 "first checkpoint, which nothing can resume; discard it with --overwrite",
                 partial, out);
        return EXIT_BAD_INPUT;
    }
    if (has_ck) checkpoint_remove(ck); /* --overwrite: the interrupted run is given up */
    if (has_partial && unlink(partial) != 0 && errno != ENOENT) {
        snprintf(err, len, "cannot remove %s: %s", partial, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    if (mode == SIDECAR_OVERWRITE) sweep_temporaries(out); /* discarded on purpose */
    return 0;
}

int sidecar_temp(const char *final, char *tmp, size_t len, int *fd)
{
    *fd = -1;
    if (sidecar_name(final, ".tmp-XXXXXX", tmp, len))
        return COHORT_FAIL(COHORT_ERR_IO, "%s: the name is too long", final);
    const mode_t mask = umask(0);
    umask(mask);
    *fd = mkostemp(tmp, O_CLOEXEC); /* O_CREAT | O_EXCL: never through a link */
    if (*fd < 0) return COHORT_FAIL(COHORT_ERR_IO, "%s: %s", tmp, strerror(errno));
    if (fchmod(*fd, 0666 & ~mask) != 0) {
        const int rc = COHORT_FAIL(COHORT_ERR_IO, "%s: %s", tmp, strerror(errno));
        close(*fd), unlink(tmp), *fd = -1;
        return rc;
    }
    return COHORT_OK;
}

/* rename without replacing anything: renameat2's RENAME_NOREPLACE, or where the file system has
 * none, link (which never replaces) and unlink */
static int rename_noreplace(const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
#endif
    if (link(from, to) != 0) return -1;
    return unlink(from);
}

int sidecar_rename(const char *from, const char *to, enum sidecar_replace replace)
{
    struct stat st;
    const int standing = lstat(to, &st) == 0;
    const char *refused = !standing                         ? NULL
                          : replace == SIDECAR_REPLACE_NONE ? "it exists"
                          : S_ISDIR(st.st_mode)             ? "it is a directory"
                          : replace == SIDECAR_REPLACE_ANY  ? NULL
                          : S_ISLNK(st.st_mode)             ? "it is a symbolic link"
                          : !S_ISREG(st.st_mode)            ? "it is not a regular file"
                                                            : NULL;
    if (refused)
        return COHORT_FAIL(COHORT_ERR_IO,
                           "%s was not moved to %s: %s, and cohort does not replace it "
                           "(another process put it there after the checks)",
                           from, to, refused);
    const int moved = standing ? rename(from, to) : rename_noreplace(from, to);
    if (moved != 0)
        return COHORT_FAIL(COHORT_ERR_IO, "cannot rename %s to %s: %s", from, to, strerror(errno));
    return COHORT_OK;
}

int sidecar_open_read(const char *name)
{
    /* O_NONBLOCK: a planted pipe must not block the open */
    const int fd = open(name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}
