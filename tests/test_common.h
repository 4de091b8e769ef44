/* Minimal check macros for the ctest programs: every failed expectation prints file:line and what
 * was seen, and the program ends with the plain "N passed, N failed" line. */
#ifndef COHORT_TEST_COMMON_H
#define COHORT_TEST_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cohort_error.h"

static long test_passed, test_failed;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (cond) {                                                                                \
            ++test_passed;                                                                         \
        } else {                                                                                   \
            ++test_failed;                                                                         \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static inline int test_summary(void)
{
    printf("%ld passed, %ld failed\n", test_passed, test_failed);
    return test_failed ? 1 : 0;
}

/* The backend a test program runs on: `--backend cpu|cuda` (default_name without arguments).
 * Without a CUDA device, `--backend cuda` ends the program with 77, which ctest reports as
 * skipped; a usage error ends it with 2. */
static inline const cohort_backend *test_backend(int argc, char **argv, const char *default_name)
{
    const char *name = argc == 3 && strcmp(argv[1], "--backend") == 0 ? argv[2]
                       : argc == 1                                    ? default_name
                                                                      : NULL;
    if (!name) {
        fprintf(stderr, "usage: %s [--backend cpu|cuda]\n", argv[0]);
        exit(2);
    }
    const cohort_backend *be = NULL;
    const int rc = cohort_backend_get(name, &be);
    if (rc == COHORT_ERR_NO_DEVICE && strcmp(name, "cuda") == 0) {
        printf("skipped: %s\n", cohort_error_detail());
        exit(77);
    }
    if (rc != COHORT_OK) {
        fprintf(stderr, "%s\n", cohort_error_detail());
        exit(1);
    }
    return be;
}

#endif
