#define _POSIX_C_SOURCE 200809L /* setenv, execv */
/* cohort: the command-line program. A table of its subcommands, one line each; every subcommand
 * is a file of cli/ (cli.h). Only the command line chooses exit statuses (exit_status.h). */
#include <gsl/gsl_version.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "cli/cli.h"
#include "exit_status.h"
#include "io/output.h"
#include "parts/comm.h"

extern const char cohort_version[];
extern const char cohort_git_hash[];

/* The subcommands: name, synopsis, what it does (cohort --help prints them in this order). */
static const struct {
    const char *name;
    cli_command_fn *run;
    const char *synopsis;
    const char *summary;
} commands[] = {
    {"run", cli_run,
     "CONFIG.ini [--set section.key=value]... [-o OUT.nc] [--overwrite]\n"
     "             [--backend auto|cpu|cuda] [--quiet] [--resume] [--members A:B]",
     "run an ensemble and write its statistics and states as NetCDF-4"},
    {"init", cli_init, "MODEL [-o FILE.ini] [--overwrite]",
     "a commented starter configuration of MODEL: every key it reads, with its\n"
     "meaning, units, range and default, sized to run in seconds on a laptop"},
    {"merge", cli_merge, "PART.nc... -o OUT.nc [--overwrite] [--backend auto|cpu|cuda]",
     "join the parts of a run split by cohort run --members A:B into the whole run's file"},
    {"analyze", cli_analyze,
     "IN.nc [-o OUT.nc] [--kmeans K] [--structure-factor] [--from T0]\n"
     "                       [--bootstrap B] [--sensitivity]",
     "the structure factor, k-means, the law's bootstrap and Sobol indices again from a\n"
     "finished run's file"},
    {"plot", cli_plot, "FILE.nc [-o OUT.png] [--overwrite]",
     "a figure of what a file holds: length and law, spectra, clusters, Sobol indices"},
    {"info", cli_info, "FILE.nc", "what a file holds and how it was made"},
    {"models", cli_models, "[--table]",
     "every model, its parameters, defaults, ranges and meaning"},
    {"selfcheck", cli_selfcheck, "[--backend auto|cpu|cuda] [--n N] [--members M] [--seed S]",
     "solve random batches of tri- and pentadiagonal systems (plain and periodic)\n"
     "that share one left-hand side, and check every member's residual"},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

/* text with each line after the first indented by indent spaces */
static void print_indented(FILE *out, const char *text, int indent)
{
    for (const char *line = text; *line;) {
        const size_t n = strcspn(line, "\n");
        fprintf(out, "%*s%.*s\n", line == text ? 0 : indent, "", (int)n, line);
        line += n + (line[n] == '\n');
    }
}
static void print_usage(FILE *out)
{
    fprintf(out,
            "cohort %s: ensembles of small independent PDE systems on a GPU or the CPU\n\n"
            "usage:\n",
            cohort_version);
    for (int c = 0; c < N_COMMANDS; ++c) {
        fprintf(out, "  cohort %s ", commands[c].name);
        print_indented(out, commands[c].synopsis, 0);
        fputs("      ", out);
        print_indented(out, commands[c].summary, 6);
    }
    fprintf(out,
            "  cohort --version   version, git hash, libraries, CUDA (also -V)\n"
            "  cohort --help      this text; `cohort help COMMAND` or `cohort COMMAND --help`\n"
            "                     for a command's options\n"
            "\n"
            "exit status: 0 success, 2 bad usage or input, 1 failure while running, 128 + N a run\n"
            "stopped by signal N\n");
}
static void print_version(void)
{
    char cuda[128], why[256] = "";
    cohort_cuda_versions(cuda, sizeof cuda);
    const int usable = cohort_cuda_usable(why, sizeof why);
    printf("cohort %s (git %s)\n", cohort_version, cohort_git_hash);
    printf("NetCDF-C %s\nGSL %s\n%s\n", output_netcdf_version(), GSL_VERSION, cuda);
    printf("cuda backend: %s\n", usable ? "usable" : why);
    char threads[256];
    cohort_cpu_describe_threads(threads, sizeof threads);
    printf("%s\n", threads);
    char arithmetic[256];
    cohort_cpu_describe_arithmetic(arithmetic, sizeof arithmetic);
    printf("%s\n", arithmetic);
    char mpi[512];
    comm_describe(mpi, sizeof mpi);
    printf("%s\n", mpi);
}
/* "cohort: unknown command 'x' (commands: run, init, ...; see cohort --help)" */
static int unknown_command(const char *command)
{
    fprintf(stderr, "cohort: unknown command '%s' (commands:", command);
    for (int c = 0; c < N_COMMANDS; ++c) fprintf(stderr, "%s %s", c ? "," : "", commands[c].name);
    fprintf(stderr, "; see cohort --help)\n");
    return EXIT_BAD_INPUT;
}

/* libgomp's waiting threads spin for a long while unless told otherwise, and spinning threads
 * collapse a run when another job shares the cores (docs/running.md: the demo's 1,024 members
 * took 160 s beside one busy loop a core where they take 5 s alone); a short spin keeps the quiet
 * machine's speed. libgomp reads its variables when it loads, before main, so where the user set
 * neither, cohort sets GOMP_SPINCOUNT and starts itself again, once. */
static void wait_briefly(char **argv)
{
#ifdef __linux__
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    /* the program's own path, not /proc/self/exe: the process keeps its name (ps, pkill) */
    char self[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || setenv("GOMP_SPINCOUNT", "10000", 1) != 0) return;
    self[n] = '\0';
    execv(self, argv); /* where it fails, the run goes on with libgomp's default */
#else
    (void)argv;
#endif
}

int main(int argc, char **argv)
{
    wait_briefly(argv);
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_BAD_INPUT;
    }
    const char *command = argv[1];
    if (!strcmp(command, "--help") || !strcmp(command, "-h") || !strcmp(command, "help")) {
        if (argc < 3) {
            print_usage(stdout);
            return EXIT_DONE;
        }
        /* cohort help CMD: CMD's own help */
        char help[] = "--help";
        char *asked[] = {argv[2], help, NULL};
        for (int c = 0; c < N_COMMANDS; ++c)
            if (!strcmp(argv[2], commands[c].name)) {
                cli_report_as(commands[c].name);
                return commands[c].run(2, asked, argc, argv);
            }
        return unknown_command(argv[2]);
    }
    if (!strcmp(command, "--version") || !strcmp(command, "-V") || !strcmp(command, "version")) {
        print_version();
        return EXIT_DONE;
    }
    for (int c = 0; c < N_COMMANDS; ++c)
        if (!strcmp(command, commands[c].name)) {
            cli_report_as(commands[c].name);
            return commands[c].run(argc - 1, argv + 1, argc, argv);
        }
    return unknown_command(command);
}
