/* The error model: distinct codes with names and messages, detail with file:line, traces. */
#include <string.h>

#include "backend/cohort_error.h"
#include "test_common.h"

static int inner(void)
{
    return COHORT_FAIL(COHORT_ERR_SIZE_TOO_SMALL, "n = %d, need >= %d", 2, 3);
}

static int outer(void)
{
    COHORT_CALL(inner());
    return COHORT_OK;
}

int main(void)
{
    static const int codes[] = {
#define CODE_(name, value, message) name,
        COHORT_ERROR_LIST(CODE_)
#undef CODE_
    };
    const int count = (int)(sizeof codes / sizeof codes[0]);
    for (int a = 0; a < count; ++a) {
        EXPECT(codes[a] == a, "codes are numbered 0..%d in order (got %d at %d)", count - 1,
               codes[a], a);
        EXPECT(strlen(cohort_strerror(codes[a])) > 0, "message of %d", codes[a]);
        for (int b = a + 1; b < count; ++b) {
            EXPECT(strcmp(cohort_strerror(codes[a]), cohort_strerror(codes[b])) != 0,
                   "messages of %d and %d differ", a, b);
            EXPECT(strcmp(cohort_error_name(codes[a]), cohort_error_name(codes[b])) != 0,
                   "names of %d and %d differ", a, b);
        }
    }
    EXPECT(strcmp(cohort_error_name(COHORT_ERR_SINGULAR_PIVOT), "COHORT_ERR_SINGULAR_PIVOT") == 0,
           "name");
    EXPECT(strcmp(cohort_strerror(9999), "unknown error code") == 0, "unknown code");

    cohort_error_clear();
    EXPECT(cohort_error_detail()[0] == '\0', "cleared");
    EXPECT(outer() == COHORT_ERR_SIZE_TOO_SMALL, "status travels up");
    const char *detail = cohort_error_detail();
    EXPECT(strstr(detail, "test_error.c:") != NULL, "file in detail: %s", detail);
    EXPECT(strstr(detail, "n = 2, need >= 3") != NULL, "message in detail: %s", detail);
    EXPECT(strstr(detail, "called from") && strstr(detail, "inner()"), "trace: %s", detail);
    return test_summary();
}
