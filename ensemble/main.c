/* cohort: the command-line program. Only main decides exit statuses: 0 success, 2 bad usage or
 * input, 1 failure while running. */
#include <errno.h>
#include <gsl/gsl_version.h>
#include <limits.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "config.h"
#include "selfcheck.h"

extern const char cohort_version[];
extern const char cohort_git_hash[];

enum { EXIT_USAGE = 2 };

static void print_usage(FILE *out)
{
    fprintf(out,
            "cohort %s: ensembles of small independent PDE systems on a GPU or the CPU\n"
            "\n"
            "usage:\n"
            "  cohort selfcheck [--backend auto|cpu|cuda] [--n N] [--members M] [--seed S]\n"
            "      solve random batches of tri- and pentadiagonal systems (plain and periodic)\n"
            "      that share one left-hand side, and check every member's residual\n"
            "  cohort models         every model, its parameters, defaults, ranges and meaning\n"
            "  cohort --version      version, git hash, libraries, CUDA\n"
            "  cohort --help         this text; `cohort COMMAND --help` for a command\n"
            "\n"
            "exit status: 0 success, 2 bad usage or input, 1 failure while running\n",
            cohort_version);
}

static void print_version(void)
{
    char cuda[128], why[256] = "";
    cohort_cuda_versions(cuda, sizeof cuda);
    const int usable = cohort_cuda_usable(why, sizeof why);
    printf("cohort %s (git %s)\n", cohort_version, cohort_git_hash);
    printf("NetCDF-C %s\nGSL %s\n%s\n", nc_inq_libvers(), GSL_VERSION, cuda);
    printf("cuda backend: %s\n", usable ? "usable" : why);
}

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

/* Parses a whole decimal integer in [lo, hi]; on failure says which option and why. */
static int parse_integer(const char *option, const char *text, long long lo, long long hi,
                         long long *value)
{
    char *end = NULL;
    errno = 0;
    long long v = text ? strtoll(text, &end, 10) : 0;
    if (!text || end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "cohort selfcheck: %s '%s': expected an integer in [%lld, %lld]\n", option,
                text ? text : "", lo, hi);
        return 0;
    }
    *value = v;
    return 1;
}

static int command_selfcheck(int argc, char **argv)
{
    selfcheck_options opt = {.backend = "auto", .n = 256, .members = 65536, .seed = 1};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        long long v = 0;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_selfcheck_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--backend") == 0 && value) {
            opt.backend = value;
        } else if (strcmp(arg, "--n") == 0) {
            if (!parse_integer(arg, value, 5, 1 << 20, &v)) return EXIT_USAGE;
            opt.n = v;
        } else if (strcmp(arg, "--members") == 0) {
            if (!parse_integer(arg, value, 1, 1LL << 31, &v)) return EXIT_USAGE;
            opt.members = v;
        } else if (strcmp(arg, "--seed") == 0) {
            if (!parse_integer(arg, value, 0, LONG_MAX, &v)) return EXIT_USAGE;
            opt.seed = (unsigned long)v;
        } else {
            fprintf(stderr, "cohort selfcheck: unknown or incomplete option '%s'\n\n", arg);
            print_selfcheck_usage(stderr);
            return EXIT_USAGE;
        }
        ++i; /* every option takes a value */
    }
    if (strcmp(opt.backend, "auto") && strcmp(opt.backend, "cpu") && strcmp(opt.backend, "cuda")) {
        fprintf(stderr, "cohort selfcheck: --backend '%s': allowed values are auto, cpu, cuda\n",
                opt.backend);
        return EXIT_USAGE;
    }
    if (opt.n * opt.members > (1LL << 31)) {
        fprintf(stderr, "cohort selfcheck: --n %lld x --members %lld exceeds 2^31 values\n",
                (long long)opt.n, (long long)opt.members);
        return EXIT_USAGE;
    }
    int passed = 0;
    int rc = selfcheck_run(&opt, stdout, &passed);
    if (rc == COHORT_ERR_NO_DEVICE) {
        fprintf(stderr, "cohort selfcheck: %s\n", cohort_error_detail());
        return EXIT_USAGE;
    }
    if (rc != COHORT_OK) {
        fprintf(stderr, "cohort selfcheck: %s\n%s\n", cohort_strerror(rc), cohort_error_detail());
        return 1;
    }
    return passed ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
        strcmp(command, "help") == 0) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(command, "--version") == 0 || strcmp(command, "version") == 0) {
        print_version();
        return 0;
    }
    if (strcmp(command, "selfcheck") == 0) return command_selfcheck(argc - 1, argv + 1);
    if (strcmp(command, "models") == 0) {
        if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            printf("usage: cohort models\n\nLists every model with the equation, the scheme and "
                   "the parameters it reads (default, range, meaning), then the keys every model "
                   "reads.\n");
            return 0;
        }
        if (argc > 2) {
            fprintf(stderr, "cohort models: unexpected argument '%s' (see cohort models --help)\n",
                    argv[2]);
            return EXIT_USAGE;
        }
        config_print_models(stdout);
        return 0;
    }
    fprintf(stderr,
            "cohort: unknown command '%s' (commands: selfcheck, models; see cohort --help)\n",
            command);
    return EXIT_USAGE;
}
