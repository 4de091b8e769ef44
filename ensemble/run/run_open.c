/* The run's output (run_state.h): the path checked, an interrupted run's checkpoint honoured or
 * refused, the file created, or on --resume reopened from the checkpoint's copy of it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/cohort_error.h"
#include "exit_status.h"
#include "io/sidecar.h"
#include "report.h"
#include "run/run_preflight.h"
#include "run/run_state.h"

/* Before the file: -1 where a --resume finds the run complete, 2 where the path or an
 * interrupted run's checkpoint refuses it, else 0 (on --resume with s->ck loaded). */
static int run_open_checks(run_state *s)
{
    const run_options *opt = s->opt;
    const int existing = opt->resume ? run_resume_existing(s) : 0;
    if (existing) return existing;
    /* the path, and an interrupted run's checkpoint refused, or given up with --overwrite */
    if (run_file_prepare(s->c, opt, &s->path)) return EXIT_BAD_INPUT;
    if (opt->resume && !run_checkpoint_matches(s)) return EXIT_BAD_INPUT;
    return 0;
}

/* The run id: the checkpoint's on --resume (a checkpoint of an older cohort has none: a new one),
 * else a new one. */
static int run_open_identity(run_state *s)
{
    size_t bytes = 0;
    const char *saved = s->ck ? checkpoint_get(s->ck, "run_id", &bytes) : NULL;
    if (!saved || bytes != RUN_ID_LEN - 1) return run_identity_new(s->run_id);
    memcpy(s->run_id, saved, bytes);
    s->run_id[bytes] = '\0';
    return COHORT_OK;
}

/* The file's spec, and what it decided: the archive, the observables, the exact errors, and
 * whether the k-means features are kept (for the run's clustering, or a part's merge data). */
static void run_open_spec(run_state *s, const char *history)
{
    const file_request rq = {.kind = s->part ? FILE_KIND_PART : FILE_KIND_RUN,
                             .plan = &s->p,
                             .backend = s->be,
                             .path = s->path,
                             .first = s->first,
                             .end = s->end,
                             .history = history,
                             .source = s->opt->version,
                             .config = s->config_text,
                             .run_id = s->run_id,
                             .replace = s->opt->overwrite};
    file_spec_build(&rq, &s->provenance, &s->spec, s->value_slot);
    s->archive = s->spec.archive_final, s->n_obs = s->spec.n_series;
    s->n_values = s->spec.n_member_values;
    s->exact = s->n_values > 0 && s->value_slot[s->n_values - 1] == RUN_VALUE_LINF;
    s->keep_features = s->spec.kmeans_k > 0 || s->spec.kmeans_auto || s->spec.merge_features;
}

int run_open(run_state *s)
{
    s->config_text = config_render(s->c);
    s->checkpoint_path = sidecar_name_alloc(s->path, SIDECAR_CHECKPOINT);
    sidecar_name(s->path, SIDECAR_PARTIAL, s->partial_path, sizeof s->partial_path);
    if (!s->config_text || !s->checkpoint_path) {
        report(REPORT_ERROR, "out of memory");
        return EXIT_FAILURE_RUNNING;
    }
    const int checked = run_open_checks(s);
    if (checked) return checked;
    if (run_open_identity(s) != COHORT_OK) {
        report(REPORT_ERROR, "%s", cohort_error_message());
        return EXIT_FAILURE_RUNNING;
    }
    /* the output's checks passed: what the run will do, and whether its file fits */
    const int fits = run_preflight(s->c, s->opt, &s->p, s->first, s->end, s->part);
    if (fits) return fits;
    char *history = output_history(s->opt->command_line, NULL);
    run_open_spec(s, history);
    int created = !history ? COHORT_FAIL(COHORT_ERR_NO_MEMORY, "history") : COHORT_OK;
    /* --resume: the partial file as the checkpoint saw it, from the checkpoint's copy */
    if (created == COHORT_OK && s->ck) {
        char copy[PATH_MAX + 64];
        created = checkpoint_get_i64(s->ck, "generation", &s->generation);
        run_copy_name(s, s->generation, copy, sizeof copy);
        if (created == COHORT_OK) created = checkpoint_copy_file(copy, s->partial_path);
    }
    if (created == COHORT_OK)
        created = s->ck ? output_reopen(&s->spec, &s->out) : output_create(&s->spec, &s->out);
    free(history);
    s->spec.history = NULL;
    if (created == COHORT_OK) return 0;
    report(REPORT_ERROR, "%s%s (from %s)", s->ck ? "--resume: " : "", cohort_error_message(),
           s->opt->output_path ? "-o" : config_get(s->c, "output", "path")->origin);
    return EXIT_BAD_INPUT;
}
