/* The processes of one `cohort run`: MPI ranks when the program was started by an MPI launcher
 * (mpirun, mpiexec, srun) and built with MPI, otherwise this process alone. The few collective
 * operations the run needs (a maximum of statuses, a broadcast, a barrier, an abort) are no-ops
 * for one process, so the code above works the same with and without MPI. */
#ifndef COHORT_COMM_H
#define COHORT_COMM_H

#include <stddef.h>

#include "analysis/team.h"

typedef struct cohort_comm {
    int rank, size;
    int local_rank; /* among the ranks of this node (MPI_COMM_TYPE_SHARED): picks the GPU */
    int mpi;        /* 1: MPI was initialised (and is finalised by comm_finalize) */
    char host[64];
} cohort_comm;

/* MPI_Init where an MPI launcher started the process (its environment says so) and this build
 * has MPI; otherwise one process. Returns 0; 1 where MPI_Init failed; 2 where a launcher started
 * several processes of a build without MPI (each would run the whole ensemble). */
int comm_init(int *argc, char ***argv, cohort_comm *c);
void comm_finalize(const cohort_comm *c);
/* Whether this build of cohort can run as MPI ranks. */
int comm_has_mpi(void);
/* "MPI: Open MPI v4.1.4, ..." (the library's first line), or that this build has none. */
void comm_describe(char *buf, size_t len);
/* The largest of the ranks' values (every rank gets it). */
int comm_max(const cohort_comm *c, int value);
/* bytes of buf from rank 0 to every rank. */
void comm_broadcast(const cohort_comm *c, void *buf, size_t bytes);
void comm_barrier(const cohort_comm *c);
/* Ranks other than 0 keep what they write to stderr to themselves (a temporary file), so that a
 * message every rank would print (a bad input) appears once; comm_report_stderr writes what this
 * rank kept to the real stderr, each line prefixed with "rank R on HOST: " (a failure of this
 * rank alone). */
void comm_quiet_stderr(const cohort_comm *c);
void comm_report_stderr(const cohort_comm *c);
/* Ends every rank with `status` (MPI_Abort; exit for one process). */
_Noreturn void comm_abort(const cohort_comm *c, int status);
/* The ranks as a team (analysis/team.h) for the analyses they share; t refers to c. */
void comm_team(const cohort_comm *c, cohort_team *t);

#endif
