/* `cohort selfcheck`: solves a batch of random systems of each banded kind on a backend and checks
 * every member's residual against the matrix itself. */
#ifndef COHORT_SELFCHECK_H
#define COHORT_SELFCHECK_H

#include <stdint.h>
#include <stdio.h>

typedef struct selfcheck_options {
    const char *backend; /* auto | cpu | cuda */
    int64_t n;
    int64_t members;
    unsigned long seed;
} selfcheck_options;

/* Prints what it did to `out`. Returns a cohort status; *passed says whether every residual was
 * within tolerance. */
int selfcheck_run(const selfcheck_options *opt, FILE *out, int *passed);

#endif
