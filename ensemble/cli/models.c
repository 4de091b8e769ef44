/* cohort models: every model, its parameters, defaults, ranges and meaning (config/config.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "config/config.h"
#include "exit_status.h"

int cli_models(int argc, char **argv, int full_argc, char **full_argv)
{
    (void)full_argc, (void)full_argv;
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: cohort models [--table]\n"
               "\n"
               "Lists every model with the equation, the scheme and the keys it reads (default,\n"
               "range, meaning), then the keys every model reads and the [sweep] section.\n"
               "\n"
               "  --table   for scripts: a header line naming the columns, then one\n"
               "            tab-separated line per model parameter: model, dimension,\n"
               "            conserves_mean, cpu_cuda_rtol, key, default, min, max,\n"
               "            min_exclusive, initial_kind (the first it accepts), bounded (1:\n"
               "            model.boundary, no structure factor), steady (1: solved to\n"
               "            solver.tolerance, not stepped); a model without parameters has\n"
               "            one line with key -\n");
        return 0;
    }
    const int table = argc > 1 && !strcmp(argv[1], "--table");
    if (argc > 1 + table) {
        fprintf(stderr, "cohort models: unexpected argument '%s' (see cohort models --help)\n",
                argv[1 + table]);
        return EXIT_BAD_INPUT;
    }
    if (table) {
        config_print_model_table(stdout);
        return 0;
    }
    config_print_models(stdout);
    return 0;
}
