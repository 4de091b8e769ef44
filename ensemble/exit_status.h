/* The exit statuses of cohort's commands, defined here alone: the library returns them, and the
 * command line (main.c) ends the process with them. 128 + a signal's number is the status of a
 * run that signal stopped, as a shell reports a process it ended. */
#ifndef COHORT_EXIT_STATUS_H
#define COHORT_EXIT_STATUS_H

enum cohort_exit_status {
    EXIT_DONE = 0,            /* the command did what it was asked */
    EXIT_FAILURE_RUNNING = 1, /* the work failed (I/O, memory, a device); what a checkpoint
                               * stands for is kept */
    EXIT_BAD_INPUT = 2,       /* the user's input: a key, a value, a path, a file; refused before
                               * anything of the user's was touched */
    EXIT_SIGNAL_BASE = 128    /* + the signal that stopped a run */
};

#endif
