/* cohort init MODEL: a commented starter configuration of a registered model, from its defaults
 * and its starter (models/model.h), to stdout or a new file. */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cohort_error.h"
#include "cli/cli.h"
#include "config/config.h"
#include "exit_status.h"
#include "io/paths.h"
#include "io/sidecar.h"
#include "models/model.h"

enum { MAX_SETS = 32 };

typedef struct init_options {
    const char *model;
    const char *output_path; /* -o FILE; NULL: stdout */
    int overwrite;
} init_options;

/* "cohort init: 'mcf': no such model; the models are ..." */
static int unknown_model(const char *name)
{
    size_t n = 0;
    const cohort_model *const *models = cohort_models(&n);
    fprintf(stderr, "cohort init: '%s': no such model; the models are", name);
    for (size_t m = 0; m < n; ++m) fprintf(stderr, "%s %s", m ? "," : "", models[m]->name);
    fprintf(stderr, " (cohort models describes each)\n");
    return EXIT_BAD_INPUT;
}

/* The model's configuration: its name and its starter's keys, over the defaults. */
static int starter_config(const cohort_model *m, cohort_config *c)
{
    char texts[MAX_SETS][2 * CONFIG_TEXT], err[1024];
    const char *sets[MAX_SETS];
    int n = 0;
    snprintf(texts[n], sizeof texts[n], "model.name=%s", m->name);
    sets[n] = texts[n], ++n;
    snprintf(texts[n], sizeof texts[n], "output.path=%s.nc", m->name); /* beside it, not out/ */
    sets[n] = texts[n], ++n;
    for (const char *const *s = m->defaults ? m->defaults->starter : NULL;
         s && s[0] && n < MAX_SETS; s += 2, ++n) {
        snprintf(texts[n], sizeof texts[n], "%s=%s", s[0], s[1]);
        sets[n] = texts[n];
    }
    if (config_load(c, NULL, sets, n, err, sizeof err) == COHORT_OK) return 0;
    fprintf(stderr, "cohort init: %s's starter: %s\n", m->name, err); /* the model's to fix */
    return EXIT_FAILURE_RUNNING;
}

/* The configuration into `path`, written whole to a temporary beside it (sidecar.h) and renamed
 * into place: over an existing file (or link) only with --overwrite. */
static int write_file(const cohort_config *c, const char *path, int overwrite)
{
    char tmp[PATH_MAX + 16];
    int fd = -1;
    int rc = sidecar_temp(path, tmp, sizeof tmp, &fd);
    FILE *f = rc == COHORT_OK ? fdopen(fd, "w") : NULL;
    if (rc == COHORT_OK && !f) close(fd);
    int ok = f && config_write_starter(c, f) == COHORT_OK;
    ok = f && fclose(f) == 0 && ok;
    if (ok)
        ok = sidecar_rename(tmp, path, overwrite ? SIDECAR_REPLACE_ANY : SIDECAR_REPLACE_NONE) ==
             COHORT_OK;
    if (!ok) {
        fprintf(stderr, "cohort init: cannot write %s: %s\n", path, cohort_error_message());
        if (rc == COHORT_OK) unlink(tmp);
    }
    return ok ? 0 : EXIT_FAILURE_RUNNING;
}

/* 0, or 2 with the message on stderr (an unknown model, a bad path), or 1 (a write failed). The
 * file appears whole or not at all. */
static int init_write(const init_options *opt)
{
    const cohort_model *m = cohort_model_find(opt->model);
    if (!m) return unknown_model(opt->model);
    char err[1024];
    if (opt->output_path &&
        (sidecar_check_not_owned(opt->output_path, "-o", err, sizeof err) ||
         paths_check_output(opt->output_path, "-o", NULL, 0, opt->overwrite, err, sizeof err))) {
        fprintf(stderr, "cohort init: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    cohort_config c;
    int status = starter_config(m, &c);
    if (status) return status;
    if (opt->output_path) {
        status = write_file(&c, opt->output_path, opt->overwrite);
        if (status == 0) /* on stderr, as every command's summary */
            fprintf(stderr, "wrote %s: a starter configuration of %s; run it with: cohort run %s\n",
                    opt->output_path, m->name, opt->output_path);
    } else
        status = config_write_starter(&c, stdout) == COHORT_OK ? 0 : EXIT_FAILURE_RUNNING;
    config_free(&c);
    return status;
}

static void print_init_usage(FILE *out)
{
    fprintf(out,
            "usage: cohort init MODEL [-o FILE.ini] [--overwrite]\n"
            "\n"
            "Writes a starter configuration of MODEL (cohort models lists them) to FILE.ini, or\n"
            "to standard output: every key the model reads, each with its meaning, units,\n"
            "allowed values and default as a comment, sized to run as written in a few seconds\n"
            "on a laptop's CPU. Then: cohort run FILE.ini -o OUT.nc\n"
            "\n"
            "  -o FILE.ini   the file to write (its directory must exist)\n"
            "  --overwrite   replace FILE.ini if it exists (otherwise refused, exit 2)\n");
}
int cli_init(int argc, char **argv, int full_argc, char **full_argv)
{
    (void)full_argc, (void)full_argv;
    init_options opt = {0};
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            print_init_usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--overwrite")) {
            opt.overwrite = 1;
        } else if (!strcmp(arg, "-o") && i + 1 < argc) {
            opt.output_path = argv[++i];
        } else if (arg[0] == '-') {
            fprintf(stderr,
                    "cohort init: unknown or incomplete option '%s' (see cohort init "
                    "--help)\n",
                    arg);
            return EXIT_BAD_INPUT;
        } else if (opt.model) {
            fprintf(stderr, "cohort init: one model only ('%s', then '%s')\n", opt.model, arg);
            return EXIT_BAD_INPUT;
        } else {
            opt.model = arg;
        }
    }
    if (!opt.model) {
        fprintf(stderr, "cohort init: which model? (cohort models lists them)\n\n");
        print_init_usage(stderr);
        return EXIT_BAD_INPUT;
    }
    return init_write(&opt);
}
