/* cohort plot FILE.nc [-o OUT.png] [--overwrite]: a figure of what a cohort file holds, drawn by
 * tools/cohort_plot.py (matplotlib) with the project's Python: $COHORT_PYTHON, else Debian's
 * /usr/bin/python3, else python3 on PATH. The script is found installed beside the program
 * (share/cohort) or, in a build tree, in the source tree. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "exit_status.h"
#include "io/paths.h"

static void print_plot_usage(FILE *out)
{
    fprintf(out,
            "usage: cohort plot FILE.nc [-o OUT.png] [--overwrite]\n"
            "\n"
            "Draws what FILE.nc holds into OUT.png (default: FILE.png): the model's length with\n"
            "its 95%% band and fitted law, the observables, the structure factor, the k-means\n"
            "clusters over the swept keys (a map for a grid of two, a scatter otherwise), the\n"
            "Sobol indices over time with their intervals, a steady run's iterations. An\n"
            "existing OUT.png is replaced only with --overwrite.\n"
            "\n"
            "It runs %s with $COHORT_PYTHON (else /usr/bin/python3, else python3),\n"
            "which needs matplotlib and netCDF4 (Debian: python3-matplotlib python3-netcdf4).\n",
            COHORT_PLOT_SCRIPT_INSTALLED);
}

/* The script: installed, else the source tree's (a build tree's program). */
static const char *plot_script(void)
{
    if (access(COHORT_PLOT_SCRIPT_INSTALLED, R_OK) == 0) return COHORT_PLOT_SCRIPT_INSTALLED;
    if (access(COHORT_PLOT_SCRIPT_SOURCE, R_OK) == 0) return COHORT_PLOT_SCRIPT_SOURCE;
    return NULL;
}

/* Runs python on the script; the script's status 0 or 2 as it is, a missing module (3) or a
 * failure to run as 1 (the set-up, not the input, is at fault). */
static int run_script(const char *script, const char *input, const char *output, int overwrite)
{
    const char *python = getenv("COHORT_PYTHON");
    if (!python || !*python)
        python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cohort plot: cannot start %s: %s\n", python, strerror(errno));
        return EXIT_FAILURE_RUNNING;
    }
    if (pid == 0) {
        char *args[] = {(char *)python, (char *)script,        (char *)input,
                        (char *)output, overwrite ? "1" : "0", NULL};
        execvp(python, args);
        fprintf(stderr,
                "cohort plot: cannot run %s: %s (set COHORT_PYTHON to a Python 3 with "
                "matplotlib and netCDF4)\n",
                python, strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == EXIT_BAD_INPUT))
        return WEXITSTATUS(status);
    return EXIT_FAILURE_RUNNING;
}

/* Draws input into output: refused where output exists (unless overwrite) or the script is
 * missing. */
static int plot_file(const char *input, const char *output, int overwrite)
{
    if (!overwrite && access(output, F_OK) == 0) {
        fprintf(stderr, "cohort plot: -o %s: exists (give --overwrite to replace it)\n", output);
        return EXIT_BAD_INPUT;
    }
    const char *script = plot_script();
    if (!script) {
        fprintf(stderr, "cohort plot: the plotting script is missing (%s)\n",
                COHORT_PLOT_SCRIPT_INSTALLED);
        return EXIT_FAILURE_RUNNING;
    }
    return run_script(script, input, output, overwrite);
}

int cli_plot(int argc, char **argv, int full_argc, char **full_argv)
{
    (void)full_argc, (void)full_argv;
    const char *input = NULL, *output = NULL;
    int overwrite = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            print_plot_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--overwrite")) {
            overwrite = 1;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            output = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "cohort plot: unknown option '%s' (see cohort plot --help)\n", argv[i]);
            return EXIT_BAD_INPUT;
        } else if (!input) {
            input = argv[i];
        } else {
            fprintf(stderr, "cohort plot: one input file only ('%s', then '%s')\n", input, argv[i]);
            return EXIT_BAD_INPUT;
        }
    }
    if (!input) {
        fprintf(stderr, "cohort plot: no input file\n\n");
        print_plot_usage(stderr);
        return EXIT_BAD_INPUT;
    }
    char *fallback = output ? NULL : paths_replace_nc(input, ".png");
    if (!output && !fallback) {
        fprintf(stderr, "cohort plot: out of memory\n");
        return EXIT_FAILURE_RUNNING;
    }
    const int status = plot_file(input, output ? output : fallback, overwrite);
    free(fallback);
    return status;
}
