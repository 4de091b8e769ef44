/* The file `cohort run` writes (-o, else output.path): its name, its lock and its checks, shared
 * by the run of members (run.c, run_open.c), steady runs (steady.c) and MPI runs (distributed.c).
 */
#include "run/run_file.h"

#include <stdio.h>

#include "exit_status.h"
#include "io/paths.h"
#include "io/sidecar.h"
#include "report.h"

/* The run's output path: -o, else output.path. */
const char *run_file_name(const cohort_config *c, const run_options *opt)
{
    return opt->output_path ? opt->output_path : config_get(c, "output", "path")->text;
}

/* Where the output path came from, for messages: "-o" or "run.ini:9: output.path =". */
static void run_file_option(const cohort_config *c, const run_options *opt, char *option,
                            size_t len)
{
    if (opt->output_path)
        snprintf(option, len, "-o");
    else
        snprintf(option, len, "%s: output.path =", config_get(c, "output", "path")->origin);
}

int run_file_lock(const cohort_config *c, const run_options *opt, output_lock **lock)
{
    char option[CONFIG_ORIGIN + 32], err[2048];
    run_file_option(c, opt, option, sizeof option);
    /* an MPI run's part is its output's file, which the run writes under the output's lock */
    if ((opt->segment ||
         !sidecar_check_not_owned(run_file_name(c, opt), option, err, sizeof err)) &&
        !output_lock_acquire(run_file_name(c, opt), option, "cohort run", lock, err, sizeof err))
        return 0;
    report(REPORT_ERROR, "%s", err);
    return EXIT_BAD_INPUT;
}

int run_file_prepare(const cohort_config *c, const run_options *opt, const char **path)
{
    *path = run_file_name(c, opt);
    char option[CONFIG_ORIGIN + 32], err[1024];
    run_file_option(c, opt, option, sizeof option);
    const enum sidecar_mode mode = opt->resume      ? SIDECAR_RESUME
                                   : opt->overwrite ? SIDECAR_OVERWRITE
                                                    : SIDECAR_CREATE;
    if (!paths_check_output(*path, option, &opt->config_path, 1, opt->overwrite, err, sizeof err) &&
        !sidecar_prepare(*path, option, mode, err, sizeof err))
        return 0;
    report(REPORT_ERROR, "%s", err);
    return EXIT_BAD_INPUT;
}
