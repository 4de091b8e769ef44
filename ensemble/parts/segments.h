/* A run's members cut into segments, each run as a part (run_ensemble over --members A:B) by a
 * rank of an MPI run or in a round of a run to ensemble.target_sem (distributed.c), and their
 * files beside the output OUT: the segment list OUT.ranks, written before the parts run so that an
 * interrupted run resumes with any number of ranks, and the parts OUT.part-A-B.nc with their
 * partial files and checkpoints. */
#ifndef COHORT_SEGMENTS_H
#define COHORT_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>

enum { SEGMENTS_MAX = 65536 };

typedef struct segments {
    int64_t members;
    int count;
    int64_t bounds[SEGMENTS_MAX + 1]; /* segment s: members [bounds[s], bounds[s + 1]) */
} segments;

/* Segments appended to g from its end to member `end`, one per rank, cut at the statistics'
 * blocks (empty segments left out). */
void segments_extend(segments *g, int64_t end, int ranks);

/* OUT.ranks, the segment list of output `out`. */
void segments_list_name(const char *out, char *name, size_t len);
/* The list written whole to a temporary file and renamed: 1, or 0 where it could not be. */
int segments_list_write(const char *path, const segments *g);
/* The list read back and checked against the run's members (a target run's, `target`, may end
 * before them: its rounds so far): 0, or 2 (the exit status of a bad input) with err. */
int segments_list_read(const char *path, int64_t members, int target, segments *g, char *err,
                       size_t len);

/* OUT.part-A-B.nc, the part of segment s. */
void segments_part_name(const char *out, const segments *g, int s, char *name, size_t len);
/* Every segment's part name, parts[s] (freed with free(parts[0]), free(parts)); NULL: no memory. */
const char **segments_part_names(const char *out, const segments *g);
/* Whether a part is finished: a regular file of its name. */
int segments_part_done(const char *part);
/* A part's files removed: the part, its partial file, its checkpoint and the checkpoint's copy. */
void segments_part_remove(const char *part);

#endif
