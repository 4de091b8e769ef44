/* What the library tells the user while it works, and who decides how it looks. Library code
 * says what happened (report); the command line (cli/) installs the sink that prints it, with the
 * `cohort CMD:` prefix where one belongs. Without a sink, the text goes to stderr as it is. */
#ifndef COHORT_REPORT_H
#define COHORT_REPORT_H

enum report_kind {
    REPORT_ERROR,   /* why the work failed or was refused */
    REPORT_NOTE,    /* a remark on the command's work: a checkpoint, a warning, a round */
    REPORT_RESULT,  /* what the work found or wrote: a fit, a summary, "wrote FILE" */
    REPORT_PROGRESS /* a progress line; its text carries its own '\r' or '\n' */
};

/* A sink receives each report's text, without a trailing newline unless a progress line's. */
typedef void report_sink_fn(enum report_kind kind, const char *text);

/* Installs sink (NULL: the default, stderr as it is); returns the previous one. */
report_sink_fn *report_set_sink(report_sink_fn *sink);

/* Formats the text and hands it to the sink. */
void report(enum report_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
