/* Minimal check macros for the ctest programs: every failed expectation prints file:line and what
 * was seen, and the program ends with the plain "N passed, N failed" line. */
#ifndef COHORT_TEST_COMMON_H
#define COHORT_TEST_COMMON_H

#include <stdio.h>

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

#endif
