/* cohort selfcheck: random banded batches solved and checked on a backend (run/selfcheck.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cohort_error.h"
#include "cli/cli.h"
#include "exit_status.h"
#include "run/selfcheck.h"

static void print_selfcheck_usage(FILE *out)
{
    fprintf(out,
            "usage: cohort selfcheck [--backend auto|cpu|cuda] [--n N] [--members M] [--seed S]\n"
            "\n"
            "Factors one random diagonally dominant left-hand side for each of tridiagonal and\n"
            "pentadiagonal, plain and periodic; solves M random right-hand sides on the backend;\n"
            "checks every member's backward error ||Ax - d|| / (||A|| ||x|| + ||d||) <= 1e-13.\n"
            "\n"
            "  --backend B   auto (cuda when a device is present, else cpu), cpu or cuda [auto]\n"
            "  --n N         unknowns per system, 5 <= N <= 1048576 [256]\n"
            "  --members M   systems per batch, 1 <= M, N*M <= 2^31 [65536]\n"
            "  --seed S      seed of the random systems, 0 <= S [1]\n");
}
int cli_selfcheck(int argc, char **argv, int full_argc, char **full_argv)
{
    (void)full_argc, (void)full_argv;
    selfcheck_options opt = {.backend = "auto", .n = 256, .members = 65536, .seed = 1};
    for (int i = 1; i < argc; i += 2) { /* every option takes a value */
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        long long v = 0;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_selfcheck_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--backend") == 0 && value) {
            opt.backend = value;
        } else if (strcmp(arg, "--n") == 0) {
            if (!cli_integer("selfcheck", arg, value, 5, 1 << 20, "an integer", "", &v))
                return EXIT_BAD_INPUT;
            opt.n = v;
        } else if (strcmp(arg, "--members") == 0) {
            if (!cli_integer("selfcheck", arg, value, 1, 1LL << 31, "an integer", "", &v))
                return EXIT_BAD_INPUT;
            opt.members = v;
        } else if (strcmp(arg, "--seed") == 0) {
            if (!cli_integer("selfcheck", arg, value, 0, LONG_MAX, "an integer", "", &v))
                return EXIT_BAD_INPUT;
            opt.seed = (unsigned long)v;
        } else {
            fprintf(stderr, "cohort selfcheck: unknown or incomplete option '%s'\n\n", arg);
            print_selfcheck_usage(stderr);
            return EXIT_BAD_INPUT;
        }
    }
    if (!cli_known_backend("selfcheck", opt.backend)) {
        return EXIT_BAD_INPUT;
    }
    if (opt.n * opt.members > (1LL << 31)) {
        fprintf(stderr, "cohort selfcheck: --n %lld x --members %lld exceeds 2^31 values\n",
                (long long)opt.n, (long long)opt.members);
        return EXIT_BAD_INPUT;
    }
    int passed = 0;
    int rc = selfcheck_run(&opt, stdout, &passed);
    if (rc == COHORT_ERR_NO_DEVICE) {
        fprintf(stderr, "cohort selfcheck: %s\n", cohort_error_message());
        return EXIT_BAD_INPUT;
    }
    if (rc != COHORT_OK) {
        fprintf(stderr, "cohort selfcheck: %s\n", cohort_error_message());
        return 1;
    }
    return passed ? 0 : 1;
}
