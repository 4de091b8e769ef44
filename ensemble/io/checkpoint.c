#define _POSIX_C_SOURCE 200809L
#include "io/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cohort_error.h"
#include "io/sidecar.h"

enum { NAME_BYTES = 64, CHECKPOINT_VERSION = 1 };
static const char magic[8] = {'C', 'O', 'H', 'O', 'R', 'T', 'C', 'K'};

struct checkpoint_writer {
    FILE *f;
    char *path, tmp[PATH_MAX + 16];
    uint64_t hash;
    int failed;
};

typedef struct blob {
    char name[NAME_BYTES];
    const unsigned char *data;
    uint64_t bytes;
} blob;

struct checkpoint {
    unsigned char *file;
    size_t n_blobs;
    blob *blobs;
};

/* FNV-1a's step over 64-bit words (then the tail's bytes), continued from h: eight times fewer
 * multiplications than bytewise FNV-1a, which took 2 s of a 2.2 GB checkpoint. Since the writer
 * feeds it blob by blob, a blob's words are read unaligned (memcpy). */
static uint64_t fnv1a(uint64_t h, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t word;
        memcpy(&word, p + i, sizeof word);
        h = (h ^ word) * 1099511628211ull;
    }
    for (; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}
static const uint64_t fnv_offset = 14695981039346656037ull;

static int write_bytes(checkpoint_writer *w, const void *data, size_t bytes)
{
    if (w->failed) return COHORT_ERR_IO;
    if (bytes && fwrite(data, 1, bytes, w->f) != bytes) {
        w->failed = 1;
        return COHORT_FAIL(COHORT_ERR_IO, "%s: writing the checkpoint: %s", w->tmp,
                           strerror(errno));
    }
    w->hash = fnv1a(w->hash, data, bytes);
    return COHORT_OK;
}

int checkpoint_begin(const char *path, checkpoint_writer **out)
{
    *out = NULL;
    checkpoint_writer *w = calloc(1, sizeof *w);
    if (!w) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "checkpoint writer");
    w->path = strdup(path);
    if (!w->path) {
        free(w);
        return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "checkpoint path");
    }
    int fd = -1;
    int rc = sidecar_temp(path, w->tmp, sizeof w->tmp, &fd);
    if (rc == COHORT_OK && !(w->f = fdopen(fd, "wb"))) {
        rc = COHORT_FAIL(COHORT_ERR_IO, "%s: %s", w->tmp, strerror(errno));
        close(fd), unlink(w->tmp);
    }
    if (rc != COHORT_OK) {
        free(w->path), free(w);
        return rc;
    }
    w->hash = fnv_offset;
    const uint32_t version = CHECKPOINT_VERSION;
    rc = write_bytes(w, magic, sizeof magic);
    if (rc == COHORT_OK) rc = write_bytes(w, &version, sizeof version);
    if (rc != COHORT_OK) {
        checkpoint_abort(w);
        return rc;
    }
    *out = w;
    return COHORT_OK;
}

int checkpoint_put(checkpoint_writer *w, const char *name, const void *data, size_t bytes)
{
    char padded[NAME_BYTES] = {0};
    if (strlen(name) >= NAME_BYTES)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "checkpoint blob name %s", name);
    memcpy(padded, name, strlen(name));
    const uint64_t length = bytes;
    COHORT_CALL(write_bytes(w, padded, sizeof padded));
    COHORT_CALL(write_bytes(w, &length, sizeof length));
    return write_bytes(w, data, bytes);
}

int checkpoint_put_i64(checkpoint_writer *w, const char *name, int64_t value)
{
    return checkpoint_put(w, name, &value, sizeof value);
}

int checkpoint_put_moments(checkpoint_writer *w, const char *name, const moments_units *b)
{
    char key[NAME_BYTES + 8];
    snprintf(key, sizeof key, "%s.next", name);
    COHORT_CALL(checkpoint_put_i64(w, key, b->next));
    return checkpoint_put(w, name, b->units, (size_t)b->n_units * sizeof *b->units);
}

int checkpoint_put_ordered_sum(checkpoint_writer *w, const char *name, const ordered_sum *s)
{
    char key[NAME_BYTES + 8];
    snprintf(key, sizeof key, "%s.next", name);
    COHORT_CALL(checkpoint_put_i64(w, key, s->host ? s->next : -1));
    const size_t values = s->host ? (size_t)s->n_blocks * (size_t)s->classes * (size_t)s->rows : 0;
    return checkpoint_put(w, name, s->host, values * sizeof(double));
}

/* fsync of the directory that holds `path`, so that the rename itself is durable */
static int sync_directory(const char *path)
{
    char *dir = strdup(path);
    if (!dir) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "path");
    char *slash = strrchr(dir, '/');
    if (slash) slash[slash == dir] = '\0';
    const int fd = open(slash ? dir : ".", O_RDONLY);
    int rc = COHORT_OK;
    if (fd < 0 || fsync(fd) != 0)
        rc = COHORT_FAIL(COHORT_ERR_IO, "%s: syncing the directory: %s", slash ? dir : ".",
                         strerror(errno));
    if (fd >= 0) close(fd);
    free(dir);
    return rc;
}

/* `name` opened for reading through stdio, never through a link; NULL with errno */
static FILE *open_read(const char *name)
{
    const int fd = sidecar_open_read(name);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (fd >= 0 && !f) close(fd);
    return f;
}

int checkpoint_copy_file(const char *from, const char *to)
{
    char tmp[PATH_MAX + 16];
    enum { BUFFER = 1 << 22 };
    char *buffer = malloc(BUFFER);
    if (!buffer) return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "copy buffer");
    int rc = COHORT_OK, fd = -1;
    FILE *in = open_read(from), *out = NULL;
    if (!in) rc = COHORT_FAIL(COHORT_ERR_IO, "%s: %s", from, strerror(errno));
    if (rc == COHORT_OK) rc = sidecar_temp(to, tmp, sizeof tmp, &fd);
    if (rc == COHORT_OK && !(out = fdopen(fd, "wb"))) {
        rc = COHORT_FAIL(COHORT_ERR_IO, "%s: %s", tmp, strerror(errno));
        close(fd);
    }
    for (size_t got; rc == COHORT_OK && (got = fread(buffer, 1, BUFFER, in)) > 0;)
        if (fwrite(buffer, 1, got, out) != got)
            rc = COHORT_FAIL(COHORT_ERR_IO, "%s: writing: %s", tmp, strerror(errno));
    if (rc == COHORT_OK && ferror(in))
        rc = COHORT_FAIL(COHORT_ERR_IO, "%s: reading: %s", from, strerror(errno));
    if (rc == COHORT_OK && (fflush(out) != 0 || fsync(fileno(out)) != 0))
        rc = COHORT_FAIL(COHORT_ERR_IO, "%s: flushing: %s", tmp, strerror(errno));
    if (in) fclose(in);
    if (out && fclose(out) != 0 && rc == COHORT_OK)
        rc = COHORT_FAIL(COHORT_ERR_IO, "%s: closing: %s", tmp, strerror(errno));
    if (rc == COHORT_OK) rc = sidecar_rename(tmp, to, SIDECAR_REPLACE_REGULAR);
    if (rc == COHORT_OK) rc = sync_directory(to);
    if (rc != COHORT_OK && fd >= 0) unlink(tmp); /* this call's temporary */
    free(buffer);
    return rc;
}

int checkpoint_link_file(const char *from, const char *to)
{
    const int fd = sidecar_open_read(from);
    int rc = fd >= 0 && fsync(fd) == 0
                 ? COHORT_OK
                 : COHORT_FAIL(COHORT_ERR_IO, "%s: syncing: %s", from, strerror(errno));
    if (fd >= 0) close(fd);
    struct stat st; /* a copy of this generation left by a run killed before its checkpoint */
    if (rc == COHORT_OK && lstat(to, &st) == 0 && S_ISREG(st.st_mode)) unlink(to);
    if (rc == COHORT_OK && link(from, to) != 0)
        return errno == EEXIST ? COHORT_FAIL(COHORT_ERR_IO, "cannot link %s as %s: %s", from, to,
                                             strerror(errno))
                               : checkpoint_copy_file(from, to); /* no hard links here */
    if (rc == COHORT_OK) rc = sync_directory(to);
    return rc;
}

int checkpoint_commit(checkpoint_writer *w)
{
    const char end[8] = {'#', 'e', 'n', 'd', 0, 0, 0, 0};
    int rc = write_bytes(w, end, sizeof end);
    const uint64_t hash = w->hash;
    if (rc == COHORT_OK && fwrite(&hash, sizeof hash, 1, w->f) != 1)
        rc = COHORT_FAIL(COHORT_ERR_IO, "%s: writing the checkpoint: %s", w->tmp, strerror(errno));
    if (rc == COHORT_OK && (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0))
        rc = COHORT_FAIL(COHORT_ERR_IO, "%s: flushing the checkpoint: %s", w->tmp, strerror(errno));
    if (fclose(w->f) != 0 && rc == COHORT_OK)
        rc = COHORT_FAIL(COHORT_ERR_IO, "%s: closing the checkpoint: %s", w->tmp, strerror(errno));
    w->f = NULL;
    if (rc == COHORT_OK) rc = sidecar_rename(w->tmp, w->path, SIDECAR_REPLACE_REGULAR);
    if (rc == COHORT_OK) rc = sync_directory(w->path);
    if (rc != COHORT_OK) unlink(w->tmp);
    free(w->path), free(w);
    return rc;
}

void checkpoint_abort(checkpoint_writer *w)
{
    if (!w) return;
    if (w->f) fclose(w->f);
    unlink(w->tmp);
    free(w->path), free(w);
}

int checkpoint_load(const char *path, checkpoint **out)
{
    *out = NULL;
    FILE *f = open_read(path);
    if (!f) return COHORT_FAIL(COHORT_ERR_IO, "%s: %s", path, strerror(errno));
    checkpoint *c = calloc(1, sizeof *c);
    long size = -1;
    if (c && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0) c->file = malloc(size > 0 ? (size_t)size : 1);
    const int read_ok = c && c->file && fread(c->file, 1, (size_t)size, f) == (size_t)size;
    fclose(f);
    if (!read_ok) {
        checkpoint_free(c);
        return COHORT_FAIL(COHORT_ERR_IO, "%s: cannot read the checkpoint", path);
    }
    /* the hash is recomputed piece by piece as the writer fed it: magic, version, each blob's
     * name, length and bytes, the end marker */
    const size_t n = (size_t)size, head = sizeof magic + 4;
    const char end[8] = {'#', 'e', 'n', 'd', 0, 0, 0, 0};
    uint32_t version = 0;
    uint64_t hash = 0, h = fnv_offset;
    int valid = n >= head + 16 && !memcmp(c->file, magic, sizeof magic);
    if (valid) {
        memcpy(&version, c->file + sizeof magic, sizeof version);
        memcpy(&hash, c->file + n - 8, sizeof hash);
        h = fnv1a(fnv1a(h, c->file, sizeof magic), c->file + sizeof magic, 4);
        valid = version == CHECKPOINT_VERSION;
    }
    size_t at = head;
    while (valid && at < n - 16) {
        uint64_t bytes = 0;
        if (at + NAME_BYTES + 8 > n - 16) {
            valid = 0;
            break;
        }
        memcpy(&bytes, c->file + at + NAME_BYTES, sizeof bytes);
        if (bytes > n - 16 - (at + NAME_BYTES + 8)) {
            valid = 0;
            break;
        }
        blob *grown = realloc(c->blobs, (c->n_blobs + 1) * sizeof *grown);
        if (!grown) {
            checkpoint_free(c);
            return COHORT_FAIL(COHORT_ERR_NO_MEMORY, "checkpoint index");
        }
        c->blobs = grown;
        blob *b = &c->blobs[c->n_blobs++];
        memcpy(b->name, c->file + at, NAME_BYTES);
        b->name[NAME_BYTES - 1] = '\0';
        b->data = c->file + at + NAME_BYTES + 8, b->bytes = bytes;
        h = fnv1a(fnv1a(h, c->file + at, NAME_BYTES), c->file + at + NAME_BYTES, 8);
        h = fnv1a(h, b->data, (size_t)bytes);
        at += NAME_BYTES + 8 + bytes;
    }
    valid = valid && at == n - 16 && !memcmp(c->file + at, end, sizeof end) &&
            fnv1a(h, end, sizeof end) == hash;
    if (!valid) {
        checkpoint_free(c);
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "%s: not a cohort checkpoint of version %d, or damaged", path,
                           CHECKPOINT_VERSION);
    }
    *out = c;
    return COHORT_OK;
}

void checkpoint_free(checkpoint *c)
{
    if (!c) return;
    free(c->file), free(c->blobs), free(c);
}

const void *checkpoint_get(const checkpoint *c, const char *name, size_t *bytes)
{
    for (size_t i = 0; i < c->n_blobs; ++i)
        if (!strcmp(c->blobs[i].name, name)) {
            if (bytes) *bytes = (size_t)c->blobs[i].bytes;
            return c->blobs[i].data;
        }
    return NULL;
}

int checkpoint_get_exact(const checkpoint *c, const char *name, void *data, size_t bytes)
{
    size_t have = 0;
    const void *p = checkpoint_get(c, name, &have);
    if (!p || have != bytes)
        return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT,
                           "the checkpoint's %s has %zu bytes where the run needs %zu", name,
                           p ? have : 0, bytes);
    if (bytes) memcpy(data, p, bytes);
    return COHORT_OK;
}

int checkpoint_get_i64(const checkpoint *c, const char *name, int64_t *value)
{
    return checkpoint_get_exact(c, name, value, sizeof *value);
}

int checkpoint_get_moments(const checkpoint *c, const char *name, moments_units *b)
{
    char key[NAME_BYTES + 8];
    snprintf(key, sizeof key, "%s.next", name);
    COHORT_CALL(checkpoint_get_i64(c, key, &b->next));
    return checkpoint_get_exact(c, name, b->units, (size_t)b->n_units * sizeof *b->units);
}

int checkpoint_get_ordered_sum(const checkpoint *c, const char *name, ordered_sum *s,
                               const cohort_backend *be, int64_t members, int64_t rows,
                               int64_t block, int64_t max_count)
{
    char key[NAME_BYTES + 8];
    int64_t next = -1;
    snprintf(key, sizeof key, "%s.next", name);
    COHORT_CALL(checkpoint_get_i64(c, key, &next));
    if (next < 0) return COHORT_OK; /* not used yet */
    if (!s->host) COHORT_CALL(ordered_sum_alloc(s, be, members, rows, 1, block, max_count));
    COHORT_CALL(checkpoint_get_exact(c, name, s->host,
                                     (size_t)s->n_blocks * (size_t)s->classes * (size_t)s->rows *
                                         sizeof(double)));
    s->next = next;
    return COHORT_OK;
}

void checkpoint_remove(const char *path)
{
    checkpoint *ck = NULL;
    int64_t generation = 0;
    if (checkpoint_load(path, &ck) == COHORT_OK &&
        checkpoint_get_i64(ck, "generation", &generation) == COHORT_OK) {
        char copy[PATH_MAX + 64];
        sidecar_copy_name(path, generation, copy, sizeof copy);
        remove(copy);
    }
    checkpoint_free(ck);
    remove(path);
}
