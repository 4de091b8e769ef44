/* One writer per output. Every command that writes OUT (cohort run, merge, analyze -o, and each
 * rank's part of an MPI run) first takes OUT.lock: a file beside OUT holding who writes it (the
 * command, pid, host and start time) under an exclusive fcntl lock, which the kernel (or the
 * NFSv4 / Lustre lock manager) drops when the holder dies. Everything a run creates or removes
 * (OUT.partial, OUT.checkpoint and its copies, the parts of an MPI run) is touched only under the
 * lock, so a second command on the same output stops before it changes anything.
 *
 * A lock file that nobody holds was left by a run that ended without releasing it (a kill -9, a
 * crash, a lost node). Left by this host, whose process is gone, it is taken over, saying so.
 * Left by another host, it is refused with a message naming that host: cohort does not guess
 * whether a process it cannot see has ended. */
#ifndef COHORT_OUTPUT_LOCK_H
#define COHORT_OUTPUT_LOCK_H

#include <stddef.h>

typedef struct output_lock output_lock;

/* Takes OUT's lock for `command` ("cohort run"); `option` names where OUT came from ("-o",
 * "run.ini:9: output.path ="), for messages. Returns 0 with *lock, or 2 with err: OUT's
 * directory is missing or not writable, another process writes OUT (named), or a lock left on
 * another host. Says so on stderr, quiet or not, when it takes over a stale lock of this host. */
int output_lock_acquire(const char *path, const char *option, const char *command,
                        output_lock **lock, char *err, size_t len);

/* Removes OUT.lock and drops the lock (NULL: nothing). */
void output_lock_release(output_lock *lock);

#endif
