/* What the subcommands share: the printing of the library's reports, their provenance text and
 * the check of --backend. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report.h"

extern const char cohort_version[];
extern const char cohort_git_hash[];

/* The command line as typed, for the history attribute. */
static void join_arguments(int argc, char **argv, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < argc && used + 1 < len; ++i) {
        const int quote = strpbrk(argv[i], " \t") != NULL;
        int w = snprintf(out + used, len - used, "%s%s%s%s", i ? " " : "", quote ? "'" : "",
                         argv[i], quote ? "'" : "");
        if (w < 0) break;
        used += (size_t)w;
    }
}
/* The command line as typed and "cohort VERSION (git HASH)": a file's history and source. */
void cli_provenance(int argc, char **argv, char *command_line, size_t command_len, char *version,
                    size_t version_len)
{
    join_arguments(argc, argv, command_line, command_len);
    snprintf(version, version_len, "cohort %s (git %s)", cohort_version, cohort_git_hash);
}
/* --backend's value is one of auto, cpu, cuda; otherwise says so for `cohort COMMAND`. */
int cli_known_backend(const char *command, const char *name)
{
    if (!strcmp(name, "auto") || !strcmp(name, "cpu") || !strcmp(name, "cuda")) return 1;
    fprintf(stderr, "cohort %s: --backend '%s': allowed values are auto, cpu, cuda\n", command,
            name);
    return 0;
}

static const char *reporting_command = "";
static int progress_line_open; /* a progress line on a terminal, not ended by a newline */

/* Errors and notes as `cohort CMD: TEXT`, results as they are; a report after a progress line on
 * a terminal starts a line of its own. */
static void cli_report_sink(enum report_kind kind, const char *text)
{
    const size_t n = strlen(text);
    if (kind == REPORT_PROGRESS) {
        fputs(text, stderr);
        progress_line_open = n > 0 && text[n - 1] != '\n';
    } else {
        if (progress_line_open) fputc('\n', stderr);
        progress_line_open = 0;
        if (kind == REPORT_RESULT)
            fprintf(stderr, "%s\n", text);
        else
            fprintf(stderr, "cohort %s: %s\n", reporting_command, text);
    }
    fflush(stderr);
}
void cli_report_as(const char *command)
{
    reporting_command = command;
    report_set_sink(cli_report_sink);
}

int cli_integer(const char *command, const char *option, const char *text, long long lo,
                long long hi, const char *what, const char *also, long long *value)
{
    char *end = NULL;
    errno = 0;
    const long long v = text ? strtoll(text, &end, 10) : 0;
    if (!text || end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "cohort %s: %s '%s': expected %s in [%lld, %lld]%s\n", command, option,
                text ? text : "", what, lo, hi, also);
        return 0;
    }
    *value = v;
    return 1;
}
