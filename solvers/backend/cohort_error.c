#include "cohort_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the detail holds the message behind file:line, and the call chain after it */
enum { MESSAGE_CAPACITY = 2048, DETAIL_CAPACITY = MESSAGE_CAPACITY + 1024 };

static _Thread_local char detail[DETAIL_CAPACITY];
/* the same error for people: the code's text and the explanation, without file:line or trace */
static _Thread_local char message[MESSAGE_CAPACITY];

const char *cohort_strerror(int code)
{
    switch (code) {
#define COHORT_ERROR_MESSAGE_(name, value, message)                                                \
    case value:                                                                                    \
        return message;
        COHORT_ERROR_LIST(COHORT_ERROR_MESSAGE_)
#undef COHORT_ERROR_MESSAGE_
    }
    return "unknown error code";
}

const char *cohort_error_name(int code)
{
    switch (code) {
#define COHORT_ERROR_NAME_(name, value, message)                                                   \
    case value:                                                                                    \
        return #name;
        COHORT_ERROR_LIST(COHORT_ERROR_NAME_)
#undef COHORT_ERROR_NAME_
    }
    return "COHORT_ERR_UNKNOWN";
}

int cohort_error_raise(int code, const char *file, int line, const char *fmt, ...)
{
    int used = snprintf(message, sizeof message, "%s: ", cohort_strerror(code));
    if (used < 0 || (size_t)used >= sizeof message) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message + used, sizeof message - (size_t)used, fmt, ap);
    va_end(ap);
    snprintf(detail, sizeof detail, "%.512s:%d: %s", file, line, message);
    return code;
}

int cohort_error_trace(int code, const char *file, int line, const char *expr)
{
    size_t used = strlen(detail);
    if (used == 0) /* a status that came without detail (e.g. a callback): say what it was */
        cohort_error_raise(code, file, line, "%s", expr);
    else if (used < sizeof detail - 1)
        snprintf(detail + used, sizeof detail - used, "\n  called from %s:%d (%s)", file, line,
                 expr);
    return code;
}

const char *cohort_error_detail(void)
{
    return detail;
}

const char *cohort_error_message(void)
{
    const char *debug = getenv("COHORT_DEBUG");
    return debug && !strcmp(debug, "1") ? detail : message;
}

void cohort_error_clear(void)
{
    detail[0] = '\0';
    message[0] = '\0';
}

int cohort_check_subbatch(int64_t ld, int64_t m0, int64_t count)
{
    if (ld < 1 || count < 1)
        return COHORT_FAIL(COHORT_ERR_EMPTY_BATCH, "M = %lld, count = %lld (both must be >= 1)",
                           (long long)ld, (long long)count);
    if (m0 < 0 || m0 > ld - count)
        return COHORT_FAIL(COHORT_ERR_SUBBATCH_RANGE, "m0 = %lld, count = %lld, M = %lld",
                           (long long)m0, (long long)count, (long long)ld);
    return COHORT_OK;
}
