#define _POSIX_C_SOURCE 200809L
#include "parts/comm.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/cohort_error.h"

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
    int on_node = 1;
    MPI_Comm_size(node, &on_node);
    cohort_cpu_share_node(on_node); /* ranks x threads within the node's processors */
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

/* The team's collectives (analysis/team.h) over MPI_COMM_WORLD; one process copies. */
static int team_broadcast(void *ctx, void *buf, size_t bytes, int root)
{
    const cohort_comm *c = ctx;
#ifdef COHORT_HAVE_MPI
    enum { PIECE = 1 << 30 }; /* MPI counts are int */
    for (size_t at = 0; c->mpi && at < bytes; at += PIECE) {
        const size_t piece = bytes - at < PIECE ? bytes - at : PIECE;
        if (MPI_Bcast((char *)buf + at, (int)piece, MPI_BYTE, root, MPI_COMM_WORLD) != MPI_SUCCESS)
            return COHORT_FAIL(COHORT_ERR_IO, "MPI_Bcast of %zu bytes from rank %d", bytes, root);
    }
#else
    (void)c, (void)buf, (void)bytes, (void)root;
#endif
    return COHORT_OK;
}

static int team_gather(void *ctx, const void *mine, void *all, const size_t *bytes)
{
    const cohort_comm *c = ctx;
    if (c->size == 1) {
        if (mine != all) memmove(all, mine, bytes[0]);
        return COHORT_OK;
    }
#ifdef COHORT_HAVE_MPI
    int *count = malloc((size_t)c->size * sizeof *count),
        *at = malloc((size_t)c->size * sizeof *at);
    size_t total = 0;
    int rc = count && at ? COHORT_OK : COHORT_FAIL(COHORT_ERR_NO_MEMORY, "a gather's counts");
    for (int r = 0; rc == COHORT_OK && r < c->size; total += bytes[r++]) {
        if (total + bytes[r] > (size_t)INT_MAX)
            rc =
                COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "a gather of more than %d bytes", INT_MAX);
        count[r] = (int)bytes[r], at[r] = (int)total;
    }
    const void *send = c->rank == 0 && mine == all ? MPI_IN_PLACE : mine;
    if (rc == COHORT_OK && MPI_Gatherv(send, count ? count[c->rank] : 0, MPI_BYTE, all, count, at,
                                       MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = COHORT_FAIL(COHORT_ERR_IO, "MPI_Gatherv of %zu bytes", total);
    free(count), free(at);
    return rc;
#else
    return COHORT_FAIL(COHORT_ERR_INVALID_ARGUMENT, "a gather over %d processes without MPI",
                       c->size);
#endif
}

static void team_abort(void *ctx, int status)
{
    comm_abort(ctx, status);
}

void comm_team(const cohort_comm *c, cohort_team *t)
{
    *t = (cohort_team){.rank = c->rank,
                       .size = c->size,
                       .ctx = (void *)c,
                       .broadcast = team_broadcast,
                       .gather = team_gather,
                       .abort = team_abort};
}
