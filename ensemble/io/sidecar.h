/* The files beside an output OUT, which are its namespace (docs/running.md, "The files beside an
 * output"): OUT.lock, OUT.partial, OUT.checkpoint and its copies OUT.checkpoint.<generation>.nc,
 * an MPI run's segment list OUT.ranks and its parts OUT.part-<first>-<end>.nc (each with files of
 * its own beside it), and the temporaries NAME.tmp-XXXXXX of each. They are made only under OUT's
 * lock (output_lock.h), created exclusively and never through a link; a temporary's name is
 * unpredictable; a rename into place never replaces what it does not expect; and no command's
 * -o may name one of them. Checks return 0, or 2 with err (a message naming the file); file
 * operations return a cohort status. */
#ifndef COHORT_SIDECAR_H
#define COHORT_SIDECAR_H

#include <stddef.h>
#include <stdint.h>

#define SIDECAR_LOCK ".lock"
#define SIDECAR_PARTIAL ".partial"
#define SIDECAR_CHECKPOINT ".checkpoint"
#define SIDECAR_RANKS ".ranks"
#define SIDECAR_PART ".part-" /* OUT.part-<first>-<end>.nc */

/* `out` followed by `suffix`; 0, or -1 where it does not fit in len. */
int sidecar_name(const char *out, const char *suffix, char *name, size_t len);
/* The same, malloc'd (NULL: out of memory). */
char *sidecar_name_alloc(const char *out, const char *suffix);
/* A checkpoint's copy of the partial file at `generation`: CHECKPOINT.<generation>.nc. */
int sidecar_copy_name(const char *checkpoint_path, int64_t generation, char *name, size_t len);
/* The part of an MPI run of `out` holding members [first, end): OUT.part-<first>-<end>.nc. */
int sidecar_part_name(const char *out, int64_t first, int64_t end, char *name, size_t len);

/* 1 where `path` is a file of another output's namespace (that output into owner, and what the
 * file is, "the checkpoint", into what); else 0. */
int sidecar_owner(const char *path, char *owner, size_t owner_len, const char **what);

/* `path` (from `option`) is no other output's file; 0, or 2 with err. */
int sidecar_check_not_owned(const char *path, const char *option, char *err, size_t len);

/* How a command meets the files an earlier command left beside OUT. */
enum sidecar_mode {
    SIDECAR_CREATE = 0,    /* a new OUT: an interrupted run's files refuse it */
    SIDECAR_OVERWRITE = 1, /* a new OUT that discards an interrupted run's files */
    SIDECAR_RESUME = 2     /* continuing the run that OUT.checkpoint stands for */
};

/* Under OUT's lock, before OUT.partial is created: no link where OUT.partial or OUT.checkpoint
 * stands; with SIDECAR_CREATE, no OUT.checkpoint (an interrupted run: resume or discard it) and no
 * OUT.partial (a run stopped before its first checkpoint); with SIDECAR_OVERWRITE both go. With
 * SIDECAR_RESUME and SIDECAR_OVERWRITE, the temporaries a killed run left go too. 0, or 2 with
 * err. */
int sidecar_prepare(const char *out, const char *option, enum sidecar_mode mode, char *err,
                    size_t len);

/* A new temporary beside `final` (final.tmp-XXXXXX, the X's random), created exclusively with the
 * mode a new file gets under the umask: its name into tmp, its descriptor into *fd. */
int sidecar_temp(const char *final, char *tmp, size_t len, int *fd);

/* How a rename into place may meet what stands at its destination. */
enum sidecar_replace {
    SIDECAR_REPLACE_NONE = 0,    /* nothing may stand there */
    SIDECAR_REPLACE_REGULAR = 1, /* a regular file of this run (never a link) */
    SIDECAR_REPLACE_ANY = 2      /* anything but a directory (OUT with --overwrite: a link is
                                  * replaced, never followed) */
};

/* `from` renamed to `to`; COHORT_ERR_IO naming both where what stands at `to` is not allowed. */
int sidecar_rename(const char *from, const char *to, enum sidecar_replace replace);

/* An existing auxiliary file opened for reading, never through a link: a descriptor, or -1 with
 * errno (ELOOP for a link, EINVAL for what is not a regular file). */
int sidecar_open_read(const char *name);

#endif
