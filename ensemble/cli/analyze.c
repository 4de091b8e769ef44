/* cohort analyze: the analyses again on a finished run's archive (results/analyze.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "exit_status.h"
#include "results/analyze.h"

static void print_analyze_usage(FILE *out)
{
    fprintf(
        out,
        "usage: cohort analyze IN.nc [-o OUT.nc] [--overwrite] [--kmeans K] [--structure-factor]\n"
        "                      [--from T0] [--bootstrap B] [--sensitivity]\n"
        "                      [--backend auto|cpu|cuda] [--quiet]\n"
        "\n"
        "Runs the analyses of cohort run again on the archive C of IN.nc (a run with\n"
        "output.archive = final or snapshots), reading it chunk by chunk, and writes them to\n"
        "a new file OUT.nc (default: IN.analysis.nc) with the coordinates, the swept\n"
        "parameters and IN's provenance. IN is only read; OUT.nc appears only on success.\n"
        "With the same backend the results equal the run's own, bit for bit.\n"
        "\n"
        "  --structure-factor  structure_factor(t, k) and k1(t) at every archived time\n"
        "  --kmeans K          k-means with K clusters (1..16, or auto: the K in 2..8 of the\n"
        "                      highest mean silhouette) of the final fields: label,\n"
        "                      centroid, cluster_size, kmeans_inertia, label_map for a grid of\n"
        "                      two swept keys; restarts, iterations and tolerance from IN's\n"
        "                      analysis.kmeans_* keys\n"
        "  --from T0           the structure factor only at archived times t >= T0 [0]\n"
        "  --bootstrap B       the length's law (ell_vs_log_t_*, s_exponent*) with its\n"
        "                      least-squares errors and B resamples of its bootstrap (units):\n"
        "                      <slope>_se, <slope>_ci95 and the same of the intercept, from\n"
        "                      IN's <l>_block_moments (no archive needed)\n"
        "  --sensitivity       for a run of sweep.design = saltelli: first-order and total\n"
        "                      Sobol indices of each swept key, sobol_first(t, parameter,\n"
        "                      statistic) and sobol_total, with bootstrap intervals\n"
        "                      (*_ci95, analysis.bootstrap resamples of units of members),\n"
        "                      of the length and variance at every record (from IN's member\n"
        "                      series), the final field's mean and variance (its archive)\n"
        "                      and each k-means regime (its labels)\n"
        "  -o OUT.nc           output file\n"
        "  --overwrite         replace OUT.nc, or an interrupted run's files beside it\n"
        "                      (otherwise refused, exit 2)\n"
        "  --backend B         auto (cuda when a device is present), cpu or cuda [auto]\n"
        "  --quiet             no progress or summary on stderr\n"
        "\n"
        "Without --structure-factor, --kmeans, --bootstrap or --sensitivity, the analyses IN's\n"
        "run asked for.\n");
}
/* An option that takes a value: 1 taken, 0 not such an option, -1 refused (said why). */
static int analyze_valued_option(analyze_options *opt, const char *arg, const char *value)
{
    if (strcmp(arg, "-o") && strcmp(arg, "--backend") && strcmp(arg, "--kmeans") &&
        strcmp(arg, "--from") && strcmp(arg, "--bootstrap"))
        return 0;
    if (!value) {
        fprintf(stderr, "cohort analyze: %s needs a value (see cohort analyze --help)\n", arg);
        return -1;
    }
    long long v = 0;
    if (!strcmp(arg, "-o")) {
        opt->output_path = value;
    } else if (!strcmp(arg, "--backend")) {
        opt->backend = value;
    } else if (!strcmp(arg, "--kmeans") && !strcmp(value, "auto")) {
        opt->kmeans_auto = 1;
    } else if (!strcmp(arg, "--kmeans")) {
        if (!cli_integer("analyze", arg, value, 1, 16, "clusters", " or auto", &v)) return -1;
        opt->kmeans = (int)v;
    } else if (!strcmp(arg, "--bootstrap")) {
        if (!cli_integer("analyze", arg, value, 2, 100000, "resamples", "", &v)) return -1;
        opt->bootstrap = (int)v;
    } else {
        char *end = NULL;
        errno = 0;
        opt->from = strtod(value, &end);
        if (end == value || *end || errno || !(opt->from >= 0.0) || !isfinite(opt->from)) {
            fprintf(stderr, "cohort analyze: --from '%s': expected a time >= 0\n", value);
            return -1;
        }
    }
    return 1;
}

int cli_analyze(int argc, char **argv, int full_argc, char **full_argv)
{
    analyze_options opt = {.backend = "auto", .kmeans = -1, .structure_factor = -1};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        const int valued = analyze_valued_option(&opt, arg, value);
        if (valued < 0) return EXIT_BAD_INPUT;
        if (valued > 0) {
            ++i;
        } else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            print_analyze_usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            opt.quiet = 1;
        } else if (!strcmp(arg, "--structure-factor")) {
            opt.structure_factor = 1;
        } else if (!strcmp(arg, "--sensitivity")) {
            opt.sensitivity = 1;
        } else if (!strcmp(arg, "--overwrite")) {
            opt.overwrite = 1;
        } else if (arg[0] == '-') {
            fprintf(stderr, "cohort analyze: unknown option '%s' (see cohort analyze --help)\n",
                    arg);
            return EXIT_BAD_INPUT;
        } else if (!opt.input) {
            opt.input = arg;
        } else {
            fprintf(stderr, "cohort analyze: one input file only ('%s', then '%s')\n", opt.input,
                    arg);
            return EXIT_BAD_INPUT;
        }
    }
    if (!opt.input) {
        fprintf(stderr, "cohort analyze: no input file\n\n");
        print_analyze_usage(stderr);
        return EXIT_BAD_INPUT;
    }
    if (!cli_known_backend("analyze", opt.backend)) return EXIT_BAD_INPUT;
    char command_line[4096], version[256];
    cli_provenance(full_argc, full_argv, command_line, sizeof command_line, version,
                   sizeof version);
    opt.command_line = command_line;
    opt.version = version;
    return analyze_archive(&opt);
}
