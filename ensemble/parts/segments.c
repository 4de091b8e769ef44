#define _POSIX_C_SOURCE 200809L /* fsync, fileno */
#include "parts/segments.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/moments.h"
#include "backend/cohort_error.h"
#include "io/checkpoint.h"
#include "io/sidecar.h"

void segments_list_name(const char *out, char *name, size_t len)
{
    sidecar_name(out, SIDECAR_RANKS, name, len);
}

void segments_part_name(const char *out, const segments *g, int s, char *name, size_t len)
{
    sidecar_part_name(out, g->bounds[s], g->bounds[s + 1], name, len);
}

/* A directory of the part's name is not a finished part: the run refuses it. */
int segments_part_done(const char *part)
{
    struct stat st;
    return stat(part, &st) == 0 && S_ISREG(st.st_mode);
}

void segments_extend(segments *g, int64_t end, int ranks)
{
    const int64_t start = g->bounds[g->count], b0 = start / MOMENTS_BLOCK;
    const int64_t blocks = (end - start + MOMENTS_BLOCK - 1) / MOMENTS_BLOCK;
    const int n = ranks < SEGMENTS_MAX - g->count ? ranks : SEGMENTS_MAX - g->count;
    for (int r = 0; r < n; ++r) {
        int64_t stop = (b0 + blocks * (r + 1) / n) * MOMENTS_BLOCK;
        if (stop > end || r == n - 1) stop = end;
        if (stop > g->bounds[g->count]) g->bounds[++g->count] = stop;
    }
}

int segments_list_write(const char *path, const segments *g)
{
    char tmp[PATH_MAX + 16];
    int fd = -1;
    if (sidecar_temp(path, tmp, sizeof tmp, &fd) != COHORT_OK) return 0;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd), unlink(tmp);
        return 0;
    }
    fprintf(f, "cohort segments 1\nmembers %lld\nsegments %d\n", (long long)g->members, g->count);
    for (int s = 0; s < g->count; ++s)
        fprintf(f, "%lld %lld\n", (long long)g->bounds[s], (long long)g->bounds[s + 1]);
    int ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok && sidecar_rename(tmp, path, SIDECAR_REPLACE_REGULAR) == COHORT_OK;
    if (!ok) unlink(tmp);
    return ok;
}

int segments_list_read(const char *path, int64_t members, int target, segments *g, char *err,
                       size_t len)
{
    const int fd = sidecar_open_read(path);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (fd >= 0 && !f) close(fd);
    long long m = -1, a = 0, b = 0;
    int count = -1, ok = f &&
                         fscanf(f, "cohort segments 1 members %lld segments %d", &m, &count) == 2 &&
                         m == members && count >= 1 && count <= SEGMENTS_MAX;
    g->members = m, g->count = ok ? count : 0, g->bounds[0] = 0;
    for (int s = 0; ok && s < count; ++s) {
        ok = fscanf(f, "%lld %lld", &a, &b) == 2 && a == g->bounds[s] && b > a && b <= members &&
             (a % MOMENTS_BLOCK) == 0;
        g->bounds[s + 1] = b;
    }
    ok = ok && (g->bounds[count] == members || (target && g->bounds[count] < members));
    if (f) fclose(f);
    if (!ok)
        snprintf(err, len,
                 "--resume: %s is not the segment list of this run (%lld members): start over "
                 "with --overwrite",
                 path, (long long)members);
    return ok ? 0 : 2;
}

void segments_part_remove(const char *part)
{
    char name[2 * PATH_MAX];
    sidecar_name(part, SIDECAR_CHECKPOINT, name, sizeof name);
    checkpoint_remove(name);
    sidecar_name(part, SIDECAR_PARTIAL, name, sizeof name);
    remove(name);
    remove(part);
}

const char **segments_part_names(const char *out, const segments *g)
{
    const char **parts = calloc((size_t)g->count, sizeof *parts);
    char *names = malloc((size_t)g->count * (PATH_MAX + 64));
    if (!parts || !names) {
        free(parts), free(names);
        return NULL;
    }
    for (int s = 0; s < g->count; ++s) {
        parts[s] = names + (size_t)s * (PATH_MAX + 64);
        segments_part_name(out, g, s, names + (size_t)s * (PATH_MAX + 64), PATH_MAX + 64);
    }
    return parts;
}
