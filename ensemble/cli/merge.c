/* cohort merge: the parts of a run joined into the whole run's file (parts/merge.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "exit_status.h"
#include "parts/merge.h"

static void print_merge_usage(FILE *out)
{
    fprintf(
        out,
        "usage: cohort merge PART.nc... -o OUT.nc [--overwrite] [--backend auto|cpu|cuda]\n"
        "                    [--quiet]\n"
        "\n"
        "Joins the parts of one run, each written by cohort run CONFIG --members A:B, into\n"
        "OUT.nc: the file the whole run would have written, every data variable bit for bit\n"
        "(the statistics are folded again from the parts' blocks in the run's fixed order;\n"
        "k-means runs over the parts' final fields). The parts come in any order and must\n"
        "cover every member exactly once, from the same configuration. They are only read;\n"
        "OUT.nc appears only on success.\n"
        "\n"
        "  -o OUT.nc     output file (required)\n"
        "  --overwrite   replace OUT.nc, or an interrupted run's files beside it\n"
        "                (otherwise refused, exit 2)\n"
        "  --backend B   for k-means: auto (cuda when a device is present), cpu or cuda [auto]\n"
        "  --quiet       no progress or summary on stderr\n");
}
int cli_merge(int argc, char **argv, int full_argc, char **full_argv)
{
    const char **inputs = calloc((size_t)argc, sizeof *inputs);
    merge_options opt = {.backend = "auto"};
    int n = 0, status = EXIT_BAD_INPUT;
    for (int i = 1; inputs && i < argc; ++i) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            print_merge_usage(stdout);
            free(inputs);
            return 0;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            opt.quiet = 1;
        } else if (!strcmp(arg, "--overwrite")) {
            opt.overwrite = 1;
        } else if ((!strcmp(arg, "-o") || !strcmp(arg, "--backend")) && !value) {
            fprintf(stderr, "cohort merge: %s needs a value (see cohort merge --help)\n", arg);
            goto done;
        } else if (!strcmp(arg, "-o")) {
            opt.output_path = argv[++i];
        } else if (!strcmp(arg, "--backend")) {
            opt.backend = argv[++i];
        } else if (arg[0] == '-') {
            fprintf(stderr, "cohort merge: unknown option '%s' (see cohort merge --help)\n", arg);
            goto done;
        } else {
            inputs[n++] = arg;
        }
    }
    if (!inputs) {
        fprintf(stderr, "cohort merge: out of memory\n");
        return EXIT_FAILURE_RUNNING;
    }
    if (n == 0 || !opt.output_path) {
        fprintf(stderr, "cohort merge: %s\n\n", n == 0 ? "no parts" : "no -o OUT.nc");
        print_merge_usage(stderr);
        goto done;
    }
    if (!cli_known_backend("merge", opt.backend)) goto done;
    char command_line[4096], version[256];
    cli_provenance(full_argc, full_argv, command_line, sizeof command_line, version,
                   sizeof version);
    opt.inputs = inputs, opt.n_inputs = n;
    opt.command_line = command_line, opt.version = version;
    status = merge_parts(&opt);
done:
    free(inputs);
    return status;
}
