/* cohort: the command-line program. Only main decides exit statuses: 0 success, 2 bad usage or
 * input, 1 failure while running. */
#include <errno.h>
#include <gsl/gsl_version.h>
#include <limits.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "cli/init.h"
#include "config/config.h"
#include "exit_status.h"
#include "io/cohort_file.h"
#include "io/paths.h"
#include "parts/comm.h"
#include "parts/distributed.h"
#include "parts/merge.h"
#include "results/analyze.h"
#include "run/run.h"
#include "run/selfcheck.h"

extern const char cohort_version[];
extern const char cohort_git_hash[];

static void print_usage(FILE *out)
{
    fprintf(out,
            "cohort %s: ensembles of small independent PDE systems on a GPU or the CPU\n"
            "\n"
            "usage:\n"
            "  cohort run CONFIG.ini [--set section.key=value]... [-o OUT.nc]\n"
            "             [--backend auto|cpu|cuda] [--quiet]\n"
            "      run an ensemble and write its statistics and states as NetCDF-4\n"
            "  cohort merge PART.nc... -o OUT.nc\n"
            "      join the parts of a run split by cohort run --members A:B into the whole run's "
            "file\n"
            "  cohort analyze IN.nc [-o OUT.nc] [--kmeans K] [--structure-factor] [--from T0]\n"
            "                       [--bootstrap B]\n"
            "      the structure factor and k-means again on the archive of a finished run\n"
            "  cohort selfcheck [--backend auto|cpu|cuda] [--n N] [--members M] [--seed S]\n"
            "      solve random batches of tri- and pentadiagonal systems (plain and periodic)\n"
            "      that share one left-hand side, and check every member's residual\n"
            "  cohort init MODEL [-o FILE.ini] [--overwrite]\n"
            "      a commented starter configuration of MODEL: every key it reads, with its\n"
            "      meaning, units, range and default, sized to run in seconds on a laptop\n"
            "  cohort info FILE.nc   what a file holds and how it was made\n"
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
    char mpi[512];
    comm_describe(mpi, sizeof mpi);
    printf("%s\n", mpi);
}

static void print_run_usage(FILE *out)
{
    fprintf(out,
            "usage: cohort run CONFIG.ini [--set section.key=value]... [-o OUT.nc] [--overwrite]\n"
            "                  [--backend auto|cpu|cuda] [--quiet] [--resume] [--members A:B]\n"
            "\n"
            "Runs the ensemble CONFIG.ini describes (keys and defaults: cohort models) and writes\n"
            "OUT.nc (default: output.path): ell_mean/var/sem(t), mass_mean(t), n_active(t),\n"
            "diverged(member), the final states C(member, x) when output.archive = final, the\n"
            "fit of ell_mean against ln t, and the resolved configuration. The file appears only\n"
            "when the run succeeds; while it runs, OUT.nc.partial holds every record completed so\n"
            "far and OUT.nc.checkpoint what the run needs to go on (every\n"
            "output.checkpoint_every seconds [600]; 0: every record and chunk). SIGINT, SIGTERM\n"
            "and SIGUSR1 finish the step, checkpoint and stop (exit 128 + the signal; a second\n"
            "one stops at once); a kill or a failure leaves the last checkpoint.\n"
            "\n"
            "  --set s.k=v   override a key (repeatable); e.g. --set ensemble.members=4096\n"
            "  -o OUT.nc     output file (its directory must exist; never the configuration)\n"
            "  --overwrite   replace OUT.nc if it exists, and discard an interrupted run's\n"
            "                OUT.nc.checkpoint and OUT.nc.partial (otherwise refused, exit 2)\n"
            "  --backend B   auto (cuda when a device is present), cpu or cuda [auto]\n"
            "  --quiet       no progress or summary on stderr\n"
            "  --resume      continue an interrupted run from OUT.nc.checkpoint and\n"
            "                OUT.nc.partial: the same CONFIG.ini and --set options (a differing\n"
            "                key is refused, exit 2); the file equals the uninterrupted run's.\n"
            "                Where OUT.nc is this run's finished file (the same run id, or this\n"
            "                configuration's where no checkpoint is left): exit 0, unchanged\n"
            "  --members A:B only the global members [A, B) (noise, parameters and results as in\n"
            "                the whole run), as a part for cohort merge; A and B are multiples of\n"
            "                1024 (the statistics' block), or B is the last member. A part's\n"
            "                statistics are over its own members\n"
            "\n"
            "Started by mpirun or srun (a build with MPI: cohort --version), the run spreads its\n"
            "members over the ranks, one GPU each, and writes the same file as one process;\n"
            "--resume then takes any number of ranks (docs/running.md).\n"
            "\n"
            "output.archive = snapshots stores C(t_snap, member, x) every output.snapshot_every\n"
            "and at t_end; output.member_series = true adds ell(t, member).\n"
            "analysis.structure_factor = true adds structure_factor(t, k) and k1(t);\n"
            "analysis.kmeans = K adds label(member), centroid(cluster, x) and, for a grid of two\n"
            "swept keys, label_map, with kmeans_restart_agreement and kmeans_silhouette; auto\n"
            "chooses K in 2..8 by the silhouette. Each fit carries least-squares errors and,\n"
            "from analysis.bootstrap resamples of the members' blocks of 1024, a standard\n"
            "error and a 95%% interval (<slope>_se, <slope>_ci95).\n"
            "ensemble.target_sem = X runs rounds of 1024-member blocks until the relative\n"
            "standard error of the length (or ensemble.target) at the last record is at most X\n"
            "(ensemble.max_members at most): the file of a fixed-size run of the members it\n"
            "took, with target_members and target_sem_reached.\n"
            "\n"
            "2D models (e.g. model.name = ch2d) run members of grid.nx x grid.ny points:\n"
            "C(member, y, x), and s_mean/var/sem(t) with the fit s_mean ~ t^s_exponent in place\n"
            "of ell.\n"
            "\n"
            "The curvature flows (model.name = mcf2d, willmore2d) live on the square\n"
            "[grid.origin, grid.origin + grid.length]^2 of grid.nx x grid.ny cells with\n"
            "model.boundary = dirichlet|neumann, and step each member adaptively to\n"
            "time.tolerance (records every time.output_every): area_mean/var/sem(t) (and\n"
            "willmore_energy_*), steps_accepted(member), steps_rejected(member), and with\n"
            "initial.kind = manufactured the errors error_l1, error_l2, error_linf(member).\n"
            "\n"
            "The explicit 1D models of seed 001 (model.name = heat1d, ks1d) step with\n"
            "time.stepper = swept (the swept time-space rule, tiles of time.block_width points)\n"
            "or classic (a launch per stage): the same bits either way. heat1d: a rod of grid.n\n"
            "cells with insulated ends, initial.kind = ramp|cosine, Fo = alpha dt / dx^2 <= 1/2,\n"
            "l2_error_*(t) and error_l1/l2/linf(member) against the exact solution. ks1d:\n"
            "periodic, energy_mean/var/sem(t) of 1/2 <u^2>.\n"
            "\n"
            "Steady models (model.name = convdiff2d) read [solver] instead of [time] and\n"
            "[initial]: each member iterates (solver.method = lmsor|lsor|sor) until ||u||_inf <=\n"
            "solver.tolerance or solver.max_iterations, and the file holds iterations(member),\n"
            "converged(member), real_points, imaginary_points, mixed_points(member),\n"
            "residual_history(member, check) every solver.check_every iterations and, with\n"
            "output.archive = final, u(member, y, x) on the grid.nx x grid.ny interior points.\n"
            "\n"
            "[sweep] lines 'section.key = start:stop:count' or '= v1,v2,...' (design = grid|zip,\n"
            "replicates = R) sweep initial.mean, initial.amplitude and any of the model's\n"
            "parameters (cohort models lists them); members = points x replicates.\n");
}

/* The command line as typed, for the history attribute. */
static void join_arguments(int argc, char **argv, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < argc && used + 1 < len; ++i) {
        const int quote = strpbrk(argv[i], " \t") != NULL;
        int w = snprintf(out + used, len - used, "%s%s%s%s", i ? " " : "", quote ? "'" : "",
                         argv[i], quote ? "'" : "");
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* The command line as typed and "cohort VERSION (git HASH)": a file's history and source. */
static void provenance_text(int argc, char **argv, char *command_line, size_t command_len,
                            char *version, size_t version_len)
{
    join_arguments(argc, argv, command_line, command_len);
    snprintf(version, version_len, "cohort %s (git %s)", cohort_version, cohort_git_hash);
}

/* --backend's value is one of auto, cpu, cuda; otherwise says so for `cohort COMMAND`. */
static int known_backend(const char *command, const char *name)
{
    if (!strcmp(name, "auto") || !strcmp(name, "cpu") || !strcmp(name, "cuda")) return 1;
    fprintf(stderr, "cohort %s: --backend '%s': allowed values are auto, cpu, cuda\n", command,
            name);
    return 0;
}

/* cohort run's arguments into opt, the --set arguments and the configuration's path: -1 to go
 * on, else the exit status (0 for --help). */
static int run_arguments(int argc, char **argv, run_options *opt, const char **sets, int *n_sets,
                         const char **config_path)
{
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            print_run_usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            opt->quiet = 1;
        } else if (!strcmp(arg, "--overwrite")) {
            opt->overwrite = 1;
        } else if (!strcmp(arg, "--resume")) {
            opt->resume = 1;
        } else if ((!strcmp(arg, "--set") || !strcmp(arg, "-o") || !strcmp(arg, "--backend") ||
                    !strcmp(arg, "--members")) &&
                   !value) {
            fprintf(stderr, "cohort run: %s needs a value (see cohort run --help)\n", arg);
            return EXIT_BAD_INPUT;
        } else if (!strcmp(arg, "--set")) {
            sets[(*n_sets)++] = argv[++i];
        } else if (!strcmp(arg, "-o")) {
            opt->output_path = argv[++i];
        } else if (!strcmp(arg, "--backend")) {
            opt->backend = argv[++i];
        } else if (!strcmp(arg, "--members")) {
            char *colon = NULL, *end = NULL;
            errno = 0;
            const long long a = strtoll(value, &colon, 10);
            const long long b = colon != value && *colon == ':' ? strtoll(colon + 1, &end, 10) : 0;
            if (!end || end == colon + 1 || *end || errno || a < 0 || b <= a) {
                fprintf(stderr,
                        "cohort run: --members '%s': expected A:B, global members [A, B) with "
                        "0 <= A < B\n",
                        value);
                return EXIT_BAD_INPUT;
            }
            opt->members_first = a, opt->members_end = b;
            ++i;
        } else if (arg[0] == '-') {
            fprintf(stderr, "cohort run: unknown option '%s' (see cohort run --help)\n", arg);
            return EXIT_BAD_INPUT;
        } else if (!*config_path) {
            *config_path = arg;
        } else {
            fprintf(stderr, "cohort run: one configuration file only ('%s', then '%s')\n",
                    *config_path, arg);
            return EXIT_BAD_INPUT;
        }
    }
    return -1;
}

static int command_run_as(const cohort_comm *comm, int argc, char **argv, int full_argc,
                          char **full_argv)
{
    const char *config_path = NULL, **sets = calloc((size_t)argc, sizeof *sets);
    run_options opt = {.backend = "auto"};
    int n_sets = 0;
    const int parsed = run_arguments(argc, argv, &opt, sets, &n_sets, &config_path);
    if (parsed >= 0) {
        free(sets);
        return parsed;
    }
    if (!config_path) {
        fprintf(stderr, "cohort run: no configuration file\n\n");
        print_run_usage(stderr);
        free(sets);
        return EXIT_BAD_INPUT;
    }
    if (!known_backend("run", opt.backend)) {
        free(sets);
        return EXIT_BAD_INPUT;
    }
    cohort_config config;
    char err[1024];
    opt.config_path = config_path;
    if (paths_check_input(config_path, "configuration", err, sizeof err)) {
        fprintf(stderr, "cohort run: %s\n", err);
        free(sets);
        return EXIT_BAD_INPUT;
    }
    if (config_load(&config, config_path, sets, n_sets, err, sizeof err) != COHORT_OK) {
        fprintf(stderr, "cohort run: %s\n", err);
        free(sets);
        return EXIT_BAD_INPUT;
    }
    char command_line[4096], version[256];
    provenance_text(full_argc, full_argv, command_line, sizeof command_line, version,
                    sizeof version);
    opt.command_line = command_line;
    opt.version = version;
    /* a rank takes the GPU of its rank on the node (none: auto picks the cpu backend) */
    if (comm->mpi && strcmp(opt.backend, "cpu") != 0) cohort_cuda_select(comm->local_rank);
    /* under an MPI launcher, a run to ensemble.target_sem (its rounds are segments), or resuming
     * a run that had several processes: distributed.h */
    const int status = comm->mpi || config_real(&config, "ensemble", "target_sem") > 0.0 ||
                               (opt.resume && run_distributed_pending(&config, &opt))
                           ? run_distributed(&config, &opt, comm)
                           : run_ensemble(&config, &opt);
    config_free(&config);
    free(sets);
    /* A run that failed writing (a full disk, a file-size limit) leaves HDF5 holding a file whose
     * close failed, and Debian's HDF5 1.10.8 then crashes in its exit handler (H5F__close_cb,
     * from H5_term_library). Everything of cohort's is closed or deliberately kept by now, so
     * such a run leaves without the exit handlers, its status intact. */
    if (status == 1) {
        comm_finalize(comm);
        fflush(NULL);
        _exit(status);
    }
    return status;
}

/* cohort run, as one of the ranks of an MPI launcher or alone (comm.h): ranks other than 0 keep
 * their messages to themselves unless they alone fail. */
static int command_run(int argc, char **argv, int full_argc, char **full_argv)
{
    cohort_comm comm;
    const int started = comm_init(&full_argc, &full_argv, &comm);
    if (started == 2) {
        fprintf(stderr, "cohort run: started by an MPI launcher as several processes, but this "
                        "cohort has no MPI (cohort --version): run it as one process, or build it "
                        "where libopenmpi-dev is installed\n");
        return EXIT_BAD_INPUT;
    }
    if (started != 0) {
        fprintf(stderr, "cohort run: MPI_Init failed under an MPI launcher\n");
        return EXIT_FAILURE_RUNNING;
    }
    comm_quiet_stderr(&comm);
    const int status = command_run_as(&comm, argc, argv, full_argc, full_argv);
    comm_finalize(&comm);
    return status;
}

static void print_analyze_usage(FILE *out)
{
    fprintf(
        out,
        "usage: cohort analyze IN.nc [-o OUT.nc] [--overwrite] [--kmeans K] [--structure-factor]\n"
        "                      [--from T0] [--bootstrap B] [--backend auto|cpu|cuda] [--quiet]\n"
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
        "                      least-squares errors and B resamples of its block bootstrap:\n"
        "                      <slope>_se, <slope>_ci95 and the same of the intercept, from\n"
        "                      IN's <l>_block_moments (no archive needed)\n"
        "  -o OUT.nc           output file\n"
        "  --overwrite         replace OUT.nc, or an interrupted run's files beside it\n"
        "                      (otherwise refused, exit 2)\n"
        "  --backend B         auto (cuda when a device is present), cpu or cuda [auto]\n"
        "  --quiet             no progress or summary on stderr\n"
        "\n"
        "Without --structure-factor, --kmeans or --bootstrap, the analyses IN's run asked for.\n");
}

static int command_analyze(int argc, char **argv, int full_argc, char **full_argv)
{
    analyze_options opt = {.backend = "auto", .kmeans = -1, .structure_factor = -1};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            print_analyze_usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            opt.quiet = 1;
        } else if (!strcmp(arg, "--structure-factor")) {
            opt.structure_factor = 1;
        } else if (!strcmp(arg, "--overwrite")) {
            opt.overwrite = 1;
        } else if ((!strcmp(arg, "-o") || !strcmp(arg, "--backend") || !strcmp(arg, "--kmeans") ||
                    !strcmp(arg, "--from") || !strcmp(arg, "--bootstrap")) &&
                   !value) {
            fprintf(stderr, "cohort analyze: %s needs a value (see cohort analyze --help)\n", arg);
            return EXIT_BAD_INPUT;
        } else if (!strcmp(arg, "-o")) {
            opt.output_path = argv[++i];
        } else if (!strcmp(arg, "--backend")) {
            opt.backend = argv[++i];
        } else if (!strcmp(arg, "--kmeans") && !strcmp(value, "auto")) {
            opt.kmeans_auto = 1;
            ++i;
        } else if (!strcmp(arg, "--kmeans")) {
            char *end = NULL;
            errno = 0;
            const long k = strtol(value, &end, 10);
            if (end == value || *end || errno || k < 1 || k > 16) {
                fprintf(stderr,
                        "cohort analyze: --kmeans '%s': expected clusters in [1, 16] or auto\n",
                        value);
                return EXIT_BAD_INPUT;
            }
            opt.kmeans = (int)k;
            ++i;
        } else if (!strcmp(arg, "--bootstrap")) {
            char *end = NULL;
            errno = 0;
            const long b = strtol(value, &end, 10);
            if (end == value || *end || errno || b < 2 || b > 100000) {
                fprintf(stderr,
                        "cohort analyze: --bootstrap '%s': expected resamples in [2, 100000]\n",
                        value);
                return EXIT_BAD_INPUT;
            }
            opt.bootstrap = (int)b;
            ++i;
        } else if (!strcmp(arg, "--from")) {
            char *end = NULL;
            errno = 0;
            opt.from = strtod(value, &end);
            if (end == value || *end || errno || !(opt.from >= 0.0) || !isfinite(opt.from)) {
                fprintf(stderr, "cohort analyze: --from '%s': expected a time >= 0\n", value);
                return EXIT_BAD_INPUT;
            }
            ++i;
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
    if (!known_backend("analyze", opt.backend)) {
        return EXIT_BAD_INPUT;
    }
    char command_line[4096], version[256];
    provenance_text(full_argc, full_argv, command_line, sizeof command_line, version,
                    sizeof version);
    opt.command_line = command_line;
    opt.version = version;
    return analyze_archive(&opt);
}

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

static int command_merge(int argc, char **argv, int full_argc, char **full_argv)
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
    if (!known_backend("merge", opt.backend)) goto done;
    char command_line[4096], version[256];
    provenance_text(full_argc, full_argv, command_line, sizeof command_line, version,
                    sizeof version);
    opt.inputs = inputs, opt.n_inputs = n;
    opt.command_line = command_line, opt.version = version;
    status = merge_parts(&opt);
done:
    free(inputs);
    return status;
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
    for (int i = 1; i < argc; i += 2) { /* every option takes a value */
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        long long v = 0;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_selfcheck_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--backend") == 0 && value) {
            opt.backend = value;
        } else if (strcmp(arg, "--n") == 0) {
            if (!parse_integer(arg, value, 5, 1 << 20, &v)) return EXIT_BAD_INPUT;
            opt.n = v;
        } else if (strcmp(arg, "--members") == 0) {
            if (!parse_integer(arg, value, 1, 1LL << 31, &v)) return EXIT_BAD_INPUT;
            opt.members = v;
        } else if (strcmp(arg, "--seed") == 0) {
            if (!parse_integer(arg, value, 0, LONG_MAX, &v)) return EXIT_BAD_INPUT;
            opt.seed = (unsigned long)v;
        } else {
            fprintf(stderr, "cohort selfcheck: unknown or incomplete option '%s'\n\n", arg);
            print_selfcheck_usage(stderr);
            return EXIT_BAD_INPUT;
        }
    }
    if (!known_backend("selfcheck", opt.backend)) {
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

static void print_init_usage(FILE *out)
{
    fprintf(out,
            "usage: cohort init MODEL [-o FILE.ini] [--overwrite]\n"
            "\n"
            "Writes a starter configuration of MODEL (cohort models lists them) to FILE.ini, or\n"
            "to standard output: every key the model reads, each with its meaning, units,\n"
            "allowed values and default as a comment, sized to run as written in a few seconds\n"
            "on a laptop's CPU. Then: cohort run FILE.ini -o OUT.nc\n"
            "\n"
            "  -o FILE.ini   the file to write (its directory must exist)\n"
            "  --overwrite   replace FILE.ini if it exists (otherwise refused, exit 2)\n");
}

static int command_init(int argc, char **argv)
{
    init_options opt = {0};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            print_init_usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--overwrite")) {
            opt.overwrite = 1;
        } else if (!strcmp(arg, "-o") && i + 1 < argc) {
            opt.output_path = argv[++i];
        } else if (arg[0] == '-') {
            fprintf(stderr,
                    "cohort init: unknown or incomplete option '%s' (see cohort init "
                    "--help)\n",
                    arg);
            return EXIT_BAD_INPUT;
        } else if (opt.model) {
            fprintf(stderr, "cohort init: one model only ('%s', then '%s')\n", opt.model, arg);
            return EXIT_BAD_INPUT;
        } else {
            opt.model = arg;
        }
    }
    if (!opt.model) {
        fprintf(stderr, "cohort init: which model? (cohort models lists them)\n\n");
        print_init_usage(stderr);
        return EXIT_BAD_INPUT;
    }
    return init_write(&opt);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_BAD_INPUT;
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
    if (strcmp(command, "run") == 0) return command_run(argc - 1, argv + 1, argc, argv);
    if (strcmp(command, "analyze") == 0) return command_analyze(argc - 1, argv + 1, argc, argv);
    if (strcmp(command, "merge") == 0) return command_merge(argc - 1, argv + 1, argc, argv);
    if (strcmp(command, "init") == 0) return command_init(argc - 1, argv + 1);
    if (strcmp(command, "info") == 0) {
        if (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            printf("usage: cohort info FILE.nc\n\nPrints what a cohort file holds (sizes, "
                   "variables) and how it was made (model, seed, backend, device, versions, "
                   "command line, fit results, the resolved configuration).\n");
            return 0;
        }
        if (argc != 3) {
            fprintf(stderr, "usage: cohort info FILE.nc\n");
            return EXIT_BAD_INPUT;
        }
        char err[1024];
        const int status = cohort_file_describe(argv[2], stdout, err, sizeof err);
        if (status) fprintf(stderr, "cohort info: %s\n", err);
        return status;
    }
    if (strcmp(command, "models") == 0) {
        if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            printf("usage: cohort models [--table]\n\nLists every model with the equation, the "
                   "scheme and the parameters it reads (default, range, meaning), then the keys "
                   "every model reads. --table prints one tab-separated line per model parameter "
                   "for scripts: model, dimension, conserves_mean, cpu_cuda_rtol, key, default, "
                   "min, max, min_exclusive, first initial kind, bounded (1: model.boundary, no "
                   "structure factor), steady (1: solved to solver.tolerance, not stepped); a "
                   "model without parameters has one line with key -.\n");
            return 0;
        }
        const int table = argc > 2 && !strcmp(argv[2], "--table");
        if (argc > 2 + table) {
            fprintf(stderr, "cohort models: unexpected argument '%s' (see cohort models --help)\n",
                    argv[2 + table]);
            return EXIT_BAD_INPUT;
        }
        if (table) {
            config_print_model_table(stdout);
            return 0;
        }
        config_print_models(stdout);
        return 0;
    }
    fprintf(stderr,
            "cohort: unknown command '%s' (commands: run, init, merge, analyze, info, models, "
            "selfcheck; "
            "see "
            "cohort "
            "--help)\n",
            command);
    return EXIT_BAD_INPUT;
}
