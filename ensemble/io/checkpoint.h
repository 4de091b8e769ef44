/* A run's checkpoint: named binary blobs in one file, written whole to PATH.tmp, flushed, fsync'd
 * and renamed over PATH (then the directory fsync'd), so that a kill at any instant leaves either
 * the previous checkpoint or the new one, never a torn file. The file ends with the FNV-1a hash of
 * everything before it, so a damaged file is refused rather than resumed from.
 *
 * Layout: "COHORTCK" and a version (uint32), then blobs (a 64-byte NUL-padded name, a uint64
 * length, the bytes), then the 8-byte name "#end" and the hash. Native byte order: a checkpoint
 * resumes on the machine kind that wrote it (the README says so). */
#ifndef COHORT_CHECKPOINT_H
#define COHORT_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/moments.h"
#include "analysis/ordered_sum.h"

typedef struct checkpoint_writer checkpoint_writer;
typedef struct checkpoint checkpoint;

/* Starts a checkpoint that will replace `path`. Errors: COHORT_ERR_IO (naming the file). */
int checkpoint_begin(const char *path, checkpoint_writer **w);
int checkpoint_put(checkpoint_writer *w, const char *name, const void *data, size_t bytes);
int checkpoint_put_i64(checkpoint_writer *w, const char *name, int64_t value);
/* statistics accumulators: their block moments and the next member expected */
int checkpoint_put_moments(checkpoint_writer *w, const char *name, const moments_units *b);
/* an ordered sum's carried blocks (an unused one, host = NULL, as empty) */
int checkpoint_put_ordered_sum(checkpoint_writer *w, const char *name, const ordered_sum *s);
/* Flushes, fsyncs and renames the checkpoint into place; frees w either way. */
int checkpoint_commit(checkpoint_writer *w);
/* Removes the unfinished file; frees w. */
void checkpoint_abort(checkpoint_writer *w);

/* Copies the file `from` to `to` durably (to `to`.tmp, fsync'd, renamed, the directory synced):
 * the checkpoint's own copy of the partial NetCDF file, which a failed or killed write may leave
 * unreadable. Errors: COHORT_ERR_IO naming the file and the errno. */
int checkpoint_copy_file(const char *from, const char *to);

/* `from`, closed for good, becomes `to` as well (fsync'd, hard-linked, the directory synced): the
 * copy of a partial file that nothing writes again, at once whatever its size. Where the file
 * system has no hard links, a copy (checkpoint_copy_file). */
int checkpoint_link_file(const char *from, const char *to);

/* Removes the checkpoint `path` and the copy of the partial file it names (an interrupted run
 * given up with --overwrite); a missing or damaged checkpoint is removed alone. */
void checkpoint_remove(const char *path);

/* Reads and verifies `path` (COHORT_ERR_IO: unreadable; COHORT_ERR_INVALID_ARGUMENT: not a
 * checkpoint, another version, or damaged). */
int checkpoint_load(const char *path, checkpoint **c);
void checkpoint_free(checkpoint *c);
/* The blob `name` (NULL where absent) and its length. */
const void *checkpoint_get(const checkpoint *c, const char *name, size_t *bytes);
/* Copies blob `name` into data, which must be exactly `bytes` long (COHORT_ERR_INVALID_ARGUMENT
 * otherwise, naming the blob). */
int checkpoint_get_exact(const checkpoint *c, const char *name, void *data, size_t bytes);
int checkpoint_get_i64(const checkpoint *c, const char *name, int64_t *value);
/* Restores accumulators allocated for the same members and units (the sum: allocated here, of
 * these members, rows, blocks and calls, where the checkpoint holds one). */
int checkpoint_get_moments(const checkpoint *c, const char *name, moments_units *b);
int checkpoint_get_ordered_sum(const checkpoint *c, const char *name, ordered_sum *s,
                               const cohort_backend *be, int64_t members, int64_t rows,
                               int64_t block, int64_t max_count);

#endif
