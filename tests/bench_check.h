/* The check every benchmark shares, CUDA-free (bench_common.h adds the CUDA and cuRAND ones):
 * a failed cohort call ends the program with file:line and the error detail, exit 1. */
#ifndef COHORT_BENCH_CHECK_H
#define COHORT_BENCH_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "backend/cohort_error.h"

#define CHECK_COHORT(expr)                                                                         \
    do {                                                                                           \
        int e_ = (expr);                                                                           \
        if (e_ != COHORT_OK) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cohort_error_detail());  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
