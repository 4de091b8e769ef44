#define _POSIX_C_SOURCE 200809L
#include "comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef COHORT_HAVE_MPI
#    include <mpi.h>
#endif

/* Variables that MPI launchers set for the processes they start: Open MPI's mpirun, PMI (MPICH's
 * hydra, Slurm's srun --mpi=pmi2) and PMIx (srun --mpi=pmix, Open MPI 5). */
static int launched_by_mpi(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                       "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i)
        if (getenv(vars[i])) return 1;
    return 0;
}

#ifndef COHORT_HAVE_MPI
/* The number of processes a launcher started, from its environment (1 where it says none). */
static long launched_processes(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; ++i)
        if (getenv(vars[i])) return strtol(getenv(vars[i]), NULL, 10);
    return 1;
}
#endif

int comm_has_mpi(void)
{
#ifdef COHORT_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

void comm_describe(char *buf, size_t len)
{
#ifdef COHORT_HAVE_MPI
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    MPI_Get_library_version(version, &n);
    version[strcspn(version, "\n")] = '\0';
    snprintf(buf, len, "MPI: %s (cohort run under mpirun or srun: one rank per GPU)", version);
#else
    snprintf(buf, len, "MPI: not built in (cohort run is one process)");
#endif
}

int comm_init(int *argc, char ***argv, cohort_comm *c)
{
    memset(c, 0, sizeof *c);
    c->size = 1;
    if (gethostname(c->host, sizeof c->host - 1) != 0) snprintf(c->host, sizeof c->host, "?");
#ifdef COHORT_HAVE_MPI
    if (!launched_by_mpi()) return 0;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) return 1;
    c->mpi = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &c->local_rank);
    MPI_Comm_free(&node);
#else
    (void)argc, (void)argv;
    /* several copies of a build without MPI would each run everything into the same file */
    if (launched_by_mpi() && launched_processes() > 1) return 2;
#endif
    return 0;
}

void comm_finalize(const cohort_comm *c)
{
#ifdef COHORT_HAVE_MPI
    if (c->mpi) MPI_Finalize();
#else
    (void)c;
#endif
}

int comm_max(const cohort_comm *c, int value)
{
#ifdef COHORT_HAVE_MPI
    int result = value;
    if (c->mpi) MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return result;
#else
    (void)c;
    return value;
#endif
}

void comm_broadcast(const cohort_comm *c, void *buf, size_t bytes)
{
#ifdef COHORT_HAVE_MPI
    if (c->mpi) MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
#else
    (void)c, (void)buf, (void)bytes;
#endif
}

void comm_barrier(const cohort_comm *c)
{
#ifdef COHORT_HAVE_MPI
    if (c->mpi) MPI_Barrier(MPI_COMM_WORLD);
#else
    (void)c;
#endif
}

static int saved_stderr = -1;
static FILE *kept_stderr;

void comm_quiet_stderr(const cohort_comm *c)
{
    if (c->rank == 0 || saved_stderr >= 0) return;
    fflush(stderr);
    kept_stderr = tmpfile();
    if (!kept_stderr) return;
    saved_stderr = dup(2);
    dup2(fileno(kept_stderr), 2);
}

void comm_report_stderr(const cohort_comm *c)
{
    if (saved_stderr < 0) return;
    fflush(stderr);
    FILE *real = fdopen(dup(saved_stderr), "w");
    if (!real) return;
    rewind(kept_stderr);
    char line[4096];
    int at_start = 1;
    while (fgets(line, sizeof line, kept_stderr)) {
        const size_t len = strlen(line);
        /* a line longer than the buffer goes on without a second prefix */
        if (at_start) fprintf(real, "rank %d on %s: ", c->rank, c->host);
        fputs(line, real);
        at_start = len > 0 && line[len - 1] == '\n';
    }
    if (!at_start) fputc('\n', real);
    fclose(real);
}

_Noreturn void comm_abort(const cohort_comm *c, int status)
{
    fflush(NULL);
#ifdef COHORT_HAVE_MPI
    if (c->mpi) MPI_Abort(MPI_COMM_WORLD, status);
#else
    (void)c;
#endif
    _exit(status);
}
