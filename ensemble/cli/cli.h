/* The command line (cli/): argv to options to one library call, the usage texts, the
 * `cohort CMD:` prefix of every message and the exit statuses (exit_status.h). main.c holds the
 * command table, one line a subcommand; each subcommand is a file of its own with one entry. */
#ifndef COHORT_CLI_H
#define COHORT_CLI_H

#include <stddef.h>

/* A subcommand: argc and argv from its name on; full_argc and full_argv the whole command line
 * (the history attribute's, and MPI_Init's). Returns the process's exit status. */
typedef int cli_command_fn(int argc, char **argv, int full_argc, char **full_argv);

cli_command_fn cli_run, cli_init, cli_merge, cli_analyze, cli_plot, cli_info, cli_models,
    cli_selfcheck;

/* The library's reports (report.h) from now on printed as `cohort COMMAND: ...`. */
void cli_report_as(const char *command);

/* The command line as typed and "cohort VERSION (git HASH)": a file's history and source. */
void cli_provenance(int argc, char **argv, char *command_line, size_t command_len, char *version,
                    size_t version_len);

/* text as a whole decimal integer in [lo, hi] into *value, 1; otherwise 0, having said for
 * `cohort COMMAND` "OPTION 'TEXT': expected WHAT in [lo, hi]ALSO" (what: "an integer"). */
int cli_integer(const char *command, const char *option, const char *text, long long lo,
                long long hi, const char *what, const char *also, long long *value);

/* --backend's value is one of auto, cpu, cuda; otherwise says so for `cohort COMMAND`. */
int cli_known_backend(const char *command, const char *name);

#endif
