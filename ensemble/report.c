/* The reports' one channel (report.h): formats a report and hands it to the installed sink. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "report.h"

static void report_to_stderr(enum report_kind kind, const char *text)
{
    fprintf(stderr, kind == REPORT_PROGRESS ? "%s" : "%s\n", text);
    fflush(stderr);
}

static report_sink_fn *current_sink = report_to_stderr;

report_sink_fn *report_set_sink(report_sink_fn *sink)
{
    report_sink_fn *previous = current_sink;
    current_sink = sink ? sink : report_to_stderr;
    return previous;
}

void report(enum report_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    char small[512], *text = (size_t)n < sizeof small ? small : malloc((size_t)n + 1);
    if (!text) { /* out of memory: the sink still hears the report, cut short */
        text = small;
    }
    va_start(ap, fmt);
    vsnprintf(text, text == small ? sizeof small : (size_t)n + 1, fmt, ap);
    va_end(ap);
    current_sink(kind, text);
    if (text != small) free(text);
}
