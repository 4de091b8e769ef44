/* A run's identity (run_state.h): the random run id that its checkpoints and its file share, and
 * --resume's decision where OUT already exists: the finished file of this very run (a stop after
 * the final rename, or a requeued job that always passes --resume), or another's, which is
 * refused and left as it is. */
#define _GNU_SOURCE /* getrandom */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/cohort_error.h"
#include "exit_status.h"
#include "io/cohort_file.h"
#include "io/sidecar.h"
#include "report.h"
#include "run/run_state.h"

enum { ID_BYTES = 16 };

int run_identity_new(char id[RUN_ID_LEN])
{
    unsigned char bytes[ID_BYTES];
    size_t got = 0;
    while (got < sizeof bytes) {
        const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno != EINTR)
            return COHORT_FAIL(COHORT_ERR_IO, "getrandom: %s", strerror(errno));
        if (n > 0) got += (size_t)n;
    }
    for (int i = 0; i < ID_BYTES; ++i) snprintf(id + 2 * i, 3, "%02x", bytes[i]);
    return COHORT_OK;
}

/* What a finished file says of the run that wrote it. */
typedef struct file_identity {
    char *run_id, *config;
    long long first;
    size_t members;
} file_identity;

/* OUT's identity; 0, or 2 with err where it is not a cohort file. */
static int file_identity_read(const char *path, file_identity *f, char *err, size_t len)
{
    int nc = -1;
    char *source = NULL;
    memset(f, 0, sizeof *f);
    if (cohort_file_open(path, &nc, &source, &f->config, err, len)) return EXIT_BAD_INPUT;
    free(source);
    f->run_id = cohort_file_text(nc, "run_id");
    long long total, members;
    cohort_file_part(nc, &f->first, &total, &members);
    f->first = f->first < 0 ? 0 : f->first;
    f->members = members < 0 ? 0 : (size_t)members;
    cohort_file_close(nc);
    return 0;
}

/* Whether OUT holds this command's configuration and members; where not, the first key that
 * differs (or "the member range") into key. */
static int same_run(const run_state *s, const file_identity *f, char *key, size_t len)
{
    if (config_rendered_difference(f->config, s->config_text, key, len)) return 0;
    snprintf(key, len, "the member range");
    return f->first == s->first && (long long)f->members == (long long)(s->end - s->first);
}

/* OUT with OUT.checkpoint beside it: -1 where OUT carries the checkpoint's run id and this
 * command's configuration (finished after its last checkpoint; the checkpoint goes), 0 where
 * --overwrite lets the resumed run replace another file, 2 (said) otherwise. */
static int resume_against_checkpoint(const run_state *s, const file_identity *f)
{
    checkpoint *ck = NULL;
    size_t bytes = 0;
    const char *id = NULL;
    if (checkpoint_load(s->checkpoint_path, &ck) == COHORT_OK)
        id = checkpoint_get(ck, "run_id", &bytes);
    const int same = id && f->run_id && bytes == strlen(f->run_id) && !memcmp(id, f->run_id, bytes);
    checkpoint_free(ck);
    char key[128] = "(the configuration)";
    if (same && !same_run(s, f, key, sizeof key)) {
        report(REPORT_ERROR,
               "--resume: %s is the finished run that %s was taken of, and this "
               "command differs from it (%s); nothing was removed",
               s->path, s->checkpoint_path, key);
        return EXIT_BAD_INPUT;
    }
    if (same) {
        checkpoint_remove(s->checkpoint_path);
        if (!s->opt->quiet)
            report(REPORT_NOTE,
                   "--resume: %s is complete: the run finished after its last "
                   "checkpoint (the same run id); removed %s",
                   s->path, s->checkpoint_path);
        return -1;
    }
    if (s->opt->overwrite) return 0;
    report(REPORT_ERROR,
           "--resume: %s exists and is not the run that %s continues (%s); nothing "
           "was removed: resume with --overwrite to replace it by that run, or move it away",
           s->path, s->checkpoint_path, f->run_id ? "another run id" : "it has no run id");
    return EXIT_BAD_INPUT;
}

/* OUT without a checkpoint: -1 where it is this configuration's finished run of these members
 * (a requeued job), 2 (said) otherwise. */
static int resume_without_checkpoint(const run_state *s, const file_identity *f)
{
    char key[128] = "(the configuration)";
    if (same_run(s, f, key, sizeof key)) {
        if (!s->opt->quiet)
            report(REPORT_NOTE,
                   "--resume: %s is complete: this configuration's run of members "
                   "[%lld, %lld) finished; nothing to resume",
                   s->path, (long long)s->first, (long long)s->end);
        return -1;
    }
    report(REPORT_ERROR,
           "--resume: %s exists and holds another run (%s differs), and there is "
           "no checkpoint of this one; run without --resume (with --overwrite to replace it)",
           s->path, key);
    return EXIT_BAD_INPUT;
}

int run_resume_existing(const run_state *s)
{
    struct stat st;
    if (stat(s->path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    char err[1024];
    file_identity f;
    if (file_identity_read(s->path, &f, err, sizeof err)) {
        if (s->opt->overwrite) return 0;
        report(REPORT_ERROR, "--resume: %s exists: %s; nothing was removed", s->path, err);
        return EXIT_BAD_INPUT;
    }
    struct stat ck;
    const int status = lstat(s->checkpoint_path, &ck) == 0 ? resume_against_checkpoint(s, &f)
                                                           : resume_without_checkpoint(s, &f);
    free(f.run_id), free(f.config);
    return status;
}
