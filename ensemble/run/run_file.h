/* The file `cohort run` writes: its path (-o, else output.path), its lock (output_lock.h) and its
 * checks before any work (paths.h). */
#ifndef COHORT_RUN_FILE_H
#define COHORT_RUN_FILE_H

#include "config/config.h"
#include "io/output_lock.h"
#include "run/run.h"

/* The run's output path: -o, else output.path. */
const char *run_file_name(const cohort_config *c, const run_options *opt);

/* Takes the lock of the run's output before anything of the output's is touched, once the
 * output is known to be no other output's file (sidecar.h; an MPI run's part is its output's):
 * 0 with *lock, or 2, reported. */
int run_file_lock(const cohort_config *c, const run_options *opt, output_lock **lock);

/* The run's output path into *path, checked before any work (paths_check_output), and what an
 * earlier run left beside it met as --resume or --overwrite say (sidecar_prepare): 0, or 2 with
 * the message reported. */
int run_file_prepare(const cohort_config *c, const run_options *opt, const char **path);

#endif
