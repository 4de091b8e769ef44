/* cohort's error model: every public function returns an int status (0 = success). The codes and
 * their messages come from one X-macro list; cohort_strerror() turns a code into text, and the
 * thread-local error detail says where and why the most recent error was raised (file:line, the
 * values involved) and the call chain it travelled up. Library code never exits or aborts. */
#ifndef COHORT_ERROR_H
#define COHORT_ERROR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, message). Values are part of the interface: tests and scripts may rely on them,
 * so new codes are appended, never renumbered. */
#define COHORT_ERROR_LIST(X)                                                                       \
    X(COHORT_OK, 0, "success")                                                                     \
    X(COHORT_ERR_INVALID_ARGUMENT, 1, "invalid argument")                                          \
    X(COHORT_ERR_NULL_POINTER, 2, "a required pointer is NULL")                                    \
    X(COHORT_ERR_SIZE_TOO_SMALL, 3, "system size below the algorithm's minimum")                   \
    X(COHORT_ERR_EMPTY_BATCH, 4, "empty batch (M = 0 or count = 0)")                               \
    X(COHORT_ERR_SUBBATCH_RANGE, 5, "sub-batch [m0, m0 + count) lies outside [0, M)")              \
    X(COHORT_ERR_SINGULAR_PIVOT, 6, "zero or tiny pivot in the factorisation")                     \
    X(COHORT_ERR_NONFINITE_COEFF, 7, "NaN or Inf coefficient")                                     \
    X(COHORT_ERR_NO_MEMORY, 8, "out of memory")                                                    \
    X(COHORT_ERR_NO_DEVICE, 9, "no CUDA device available")                                         \
    X(COHORT_ERR_CUDA, 10, "CUDA runtime error")                                                   \
    X(COHORT_ERR_UNKNOWN_BACKEND, 11, "unknown backend name")                                      \
    X(COHORT_ERR_BANDWIDTH, 12, "unsupported half-bandwidth (1 = tridiagonal, 2 = pentadiagonal)") \
    X(COHORT_ERR_BACKEND_MISMATCH, 13, "object belongs to a different backend")                    \
    X(COHORT_ERR_GSL, 14, "GSL error")                                                             \
    X(COHORT_ERR_IO, 15, "input/output error")                                                     \
    X(COHORT_ERR_CONFIG, 16, "invalid configuration")                                              \
    X(COHORT_ERR_UNAVAILABLE, 17, "not available in this build")                                   \
    X(COHORT_ERR_CURAND, 18, "cuRAND error")

enum cohort_status {
#define COHORT_ERROR_ENUM_(name, value, message) name = value,
    COHORT_ERROR_LIST(COHORT_ERROR_ENUM_)
#undef COHORT_ERROR_ENUM_
};

/* The fixed message of a code ("unknown error code" for values not in the list). */
const char *cohort_strerror(int code);

/* The symbolic name of a code ("COHORT_ERR_SINGULAR_PIVOT"), or "COHORT_ERR_UNKNOWN". */
const char *cohort_error_name(int code);

/* Records code with a printf-style explanation and its origin, replacing any earlier detail, and
 * returns code so that callers can write `return cohort_error_raise(...)`. */
int cohort_error_raise(int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Appends one "called from file:line (expr)" step to the current detail; returns code. */
int cohort_error_trace(int code, const char *file, int line, const char *expr);

/* The detail of the most recent error on this thread ("" when none was raised since the last
 * cohort_error_clear()). */
const char *cohort_error_detail(void);
void cohort_error_clear(void);

/* The same error as a person should read it: the code's message and the explanation, without
 * the source's file:line and call chain (which stay in cohort_error_detail for developers);
 * with COHORT_DEBUG=1 in the environment, the whole detail. */
const char *cohort_error_message(void);

/* Raise an error here: COHORT_FAIL(COHORT_ERR_SIZE_TOO_SMALL, "n = %lld, need >= 3", n). */
#define COHORT_FAIL(code, ...) cohort_error_raise((code), __FILE__, __LINE__, __VA_ARGS__)

/* Call something that returns a status and pass a failure upwards with file:line (PetscCall). */
#define COHORT_CALL(expr)                                                                          \
    do {                                                                                           \
        int cohort_rc_ = (expr);                                                                   \
        if (cohort_rc_ != COHORT_OK)                                                               \
            return cohort_error_trace(cohort_rc_, __FILE__, __LINE__, #expr);                      \
    } while (0)

/* The batch arguments every batched operation takes: members [m0, m0 + count) of ld.
 * COHORT_ERR_EMPTY_BATCH (ld or count < 1) or COHORT_ERR_SUBBATCH_RANGE (m0 < 0 or
 * m0 + count > ld), with the values in the detail. */
int cohort_check_subbatch(int64_t ld, int64_t m0, int64_t count);

/* As COHORT_CALL, but jumps to a cleanup label after storing the status in `rc`. */
#define COHORT_CALL_GOTO(rc, label, expr)                                                          \
    do {                                                                                           \
        (rc) = (expr);                                                                             \
        if ((rc) != COHORT_OK) {                                                                   \
            cohort_error_trace((rc), __FILE__, __LINE__, #expr);                                   \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
