/* `cohort run`: an ensemble of any model (1D or 2D, stepped or steady) from its configuration to
 * its NetCDF file. */
#ifndef COHORT_RUN_H
#define COHORT_RUN_H

#include <stdint.h>

#include "config/config.h"

typedef struct run_options {
    const char *config_path; /* the configuration file (never overwritten) */
    const char *output_path; /* -o (overrides output.path); NULL: output.path */
    int overwrite;           /* --overwrite: an existing output file may be replaced */
    const char *backend;     /* auto | cpu | cuda */
    int quiet;
    const char *command_line; /* for the history attribute */
    const char *version;      /* "cohort 0.2.0 (git ...)" */
    int resume;               /* --resume: continue from OUT.checkpoint and OUT.partial */
    /* --members A:B (members_end > 0): only global members [A, B), as a part for cohort merge */
    int64_t members_first, members_end;
    int segment;       /* a segment of a run over several processes (distributed.h), which gives the
                        * advice on resuming */
    int output_locked; /* the caller holds the output's lock (run_file_lock) */
} run_options;

/* Takes the output's lock (unless opt->output_locked) once the configuration is checked, and
 * holds it for the whole run. Returns 0 success, 2 bad usage or configuration (message on stderr,
 * no file left), 1 failure while running (message on stderr; OUT.partial and OUT.checkpoint are
 * kept where a checkpoint was written, so that --resume can continue, else removed), 128 + the
 * signal's number when SIGINT, SIGTERM or SIGUSR1 stopped the run (after a checkpoint; OUT.partial
 * kept). */
int run_ensemble(const cohort_config *c, const run_options *opt);

#endif
