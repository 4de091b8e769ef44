/* cohort run: a configuration and its --set options run as one process or as the ranks of an
 * MPI launcher (parts/comm.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/cohort_error.h"
#include "cli/cli.h"
#include "config/config.h"
#include "exit_status.h"
#include "io/paths.h"
#include "parts/comm.h"
#include "parts/distributed.h"
#include "run/run.h"

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
            "from analysis.bootstrap resamples of units of members (single members up to\n"
            "1024, at least 513 units above: analysis.bootstrap_unit), a standard error and\n"
            "a 95%% interval (<slope>_se, <slope>_ci95).\n"
            "ensemble.target_sem = X runs rounds of 1024-member blocks until the relative\n"
            "standard error of the length (or ensemble.target) at the last record is at most X\n"
            "(ensemble.max_members at most): the file of a fixed-size run of every member it\n"
            "ran (with the first round's bootstrap units), target_members and\n"
            "target_sem_reached.\n"
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
            "parameters (cohort models lists them); members = points x replicates. With\n"
            "design = lhs|sobol|saltelli a swept key takes a range lo:hi or lo:hi:log and\n"
            "sweep.points (else ensemble.members) sets the points; saltelli runs d + 2 members\n"
            "a point (A, B, AB_1 .. AB_d), whose Sobol indices analysis.sensitivity = sobol\n"
            "streams in the run (cohort analyze --sensitivity: from a file's member series).\n");
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
    if (!cli_known_backend("run", opt.backend)) {
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
    cli_provenance(full_argc, full_argv, command_line, sizeof command_line, version,
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
int cli_run(int argc, char **argv, int full_argc, char **full_argv)
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
