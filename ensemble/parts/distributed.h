/* `cohort run` over several processes (MPI ranks): the members are cut at the statistics' blocks
 * into one segment per rank of the first run; each rank runs its segments as parts
 * (`cohort run --members A:B`, into OUT.part-A-B.nc beside OUT, on a filesystem every rank sees),
 * with their own checkpoints; rank 0 then joins the parts (`cohort merge`'s code) into OUT and
 * removes them. The file is the serial run's bit for bit, for any number of ranks. OUT.ranks
 * lists the segments while the run is unfinished, so that `--resume` continues it with the same
 * or another number of ranks (segments handed out round-robin; finished ones kept). */
#ifndef COHORT_DISTRIBUTED_H
#define COHORT_DISTRIBUTED_H

#include "config/config.h"
#include "parts/comm.h"
#include "run/run.h"

/* Whether OUT (output path of c and opt) has an unfinished run over several processes. */
int run_distributed_pending(const cohort_config *c, const run_options *opt);

/* The run, on every rank. Returns 0, 2 (bad input: on every rank, the message printed by rank 0
 * alone), or 128 + a signal (every rank checkpointed its segment); a failure on one rank ends
 * every rank (comm_abort) after that rank's message, naming it and its host. */
int run_distributed(const cohort_config *c, const run_options *opt, const cohort_comm *comm);

#endif
