/* What the subcommands share: their provenance text and the check of --backend. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

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
