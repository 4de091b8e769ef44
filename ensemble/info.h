/* `cohort info FILE.nc`: what a cohort file holds and how it was made. */
#ifndef COHORT_INFO_H
#define COHORT_INFO_H

#include <stdio.h>

/* Prints the summary to out. Returns 0, or 2 for a missing, unreadable or non-cohort file (the
 * message on stderr). */
int info_print(const char *path, FILE *out);

#endif
