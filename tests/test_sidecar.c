#define _POSIX_C_SOURCE 200809L /* mkdtemp, mkfifo, symlink */
/* The files beside an output (ensemble/io/sidecar.h): which names belong to which output; a
 * temporary created exclusively under an unpredictable name with the umask's mode; renames that
 * replace only what they may (never a link where a file of the run is expected); reads that never
 * follow a link nor block on a pipe; and what sidecar_prepare does with an interrupted run's
 * files in each mode. Run in a fresh directory of its own. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/sidecar.h"
#include "test_common.h"

static void owner_case(void)
{
    static const struct {
        const char *path, *owner, *what;
    } owned[] = {
        {"s.nc.partial", "s.nc", "the partial file"},
        {"s.nc.lock", "s.nc", "the lock"},
        {"dir/s.nc.checkpoint", "dir/s.nc", "the checkpoint"},
        {"s.nc.checkpoint.12.nc", "s.nc", "the checkpoint's copy of the partial file"},
        {"s.nc.checkpoint.3.nc.tmp-Ab3xYz", "s.nc", "a temporary file"},
        {"s.nc.part-0-1024.nc", "s.nc", "a part of a run over several processes"},
        {"s.nc.part-0-1024.nc.checkpoint", "s.nc", "the checkpoint"},
        {"s.nc.ranks", "s.nc", "the segment list"},
    };
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; ++i) {
        char owner[256] = "";
        const char *what = NULL;
        const int is = sidecar_owner(owned[i].path, owner, sizeof owner, &what);
        EXPECT(is && !strcmp(owner, owned[i].owner) && what && !strcmp(what, owned[i].what),
               "%s: owned %d by '%s' as '%s'", owned[i].path, is, owner, what ? what : "");
    }
    static const char *const free_names[] = {"s.nc",       "out/run.nc", "a.partial.nc",
                                             ".partial",   "dir/.lock",  "s.nc.part-x-1.nc",
                                             "s.nc.tmp-1", "run.ini"};
    for (size_t i = 0; i < sizeof free_names / sizeof free_names[0]; ++i) {
        char owner[256];
        const char *what = NULL;
        EXPECT(!sidecar_owner(free_names[i], owner, sizeof owner, &what), "%s: owned by %s",
               free_names[i], owner);
    }
    char err[512];
    EXPECT(sidecar_check_not_owned("t.nc.partial", "-o", err, sizeof err) == 2 &&
               strstr(err, "-o t.nc.partial: that name is the partial file of the output t.nc"),
           "%s", err);
    EXPECT(sidecar_check_not_owned("t.nc", "-o", err, sizeof err) == 0, "t.nc refused");
}

static void write_text(const char *name, const char *text)
{
    FILE *f = fopen(name, "w");
    if (f) fputs(text, f), fclose(f);
}

static int holds(const char *name, const char *text)
{
    char got[64] = "";
    FILE *f = fopen(name, "r");
    if (f) {
        if (!fgets(got, sizeof got, f)) got[0] = '\0';
        fclose(f);
    }
    return !strcmp(got, text);
}

static void temp_case(void)
{
    char a[256], b[256];
    int fa = -1, fb = -1;
    const mode_t mask = umask(027);
    EXPECT(sidecar_temp("x.nc", a, sizeof a, &fa) == COHORT_OK && fa >= 0, "%s",
           cohort_error_message());
    EXPECT(sidecar_temp("x.nc", b, sizeof b, &fb) == COHORT_OK && fb >= 0, "%s",
           cohort_error_message());
    umask(mask);
    struct stat st;
    EXPECT(strncmp(a, "x.nc.tmp-", 9) == 0 && strlen(a) == 15 && strcmp(a, b) != 0,
           "names %s and %s", a, b);
    EXPECT(stat(a, &st) == 0 && (st.st_mode & 0777) == 0640, "mode %o under umask 027",
           (unsigned)(st.st_mode & 0777));
    close(fa), close(fb), unlink(a), unlink(b);
}

static void rename_case(void)
{
    write_text("victim", "victim\n");
    write_text("from", "new\n");
    write_text("old", "old\n");
    symlink("victim", "link");
    EXPECT(sidecar_rename("from", "old", SIDECAR_REPLACE_NONE) != COHORT_OK &&
               holds("old", "old\n"),
           "SIDECAR_REPLACE_NONE replaced an existing file");
    EXPECT(sidecar_rename("from", "link", SIDECAR_REPLACE_REGULAR) != COHORT_OK &&
               strstr(cohort_error_message(), "symbolic link") && holds("victim", "victim\n"),
           "%s", cohort_error_message());
    EXPECT(sidecar_rename("from", "old", SIDECAR_REPLACE_REGULAR) == COHORT_OK &&
               holds("old", "new\n"),
           "%s", cohort_error_message());
    write_text("from", "newer\n");
    struct stat st;
    EXPECT(sidecar_rename("from", "link", SIDECAR_REPLACE_ANY) == COHORT_OK &&
               lstat("link", &st) == 0 && S_ISREG(st.st_mode) && holds("victim", "victim\n"),
           "--overwrite onto a link: %s", cohort_error_message());
    write_text("from", "fresh\n");
    EXPECT(sidecar_rename("from", "fresh", SIDECAR_REPLACE_NONE) == COHORT_OK &&
               holds("fresh", "fresh\n") && access("from", F_OK) != 0,
           "%s", cohort_error_message());
    unlink("old"), unlink("link"), unlink("fresh");
}

static void open_read_case(void)
{
    symlink("victim", "read-link");
    mkfifo("read-pipe", 0600);
    int fd = sidecar_open_read("read-link");
    EXPECT(fd < 0 && errno == ELOOP, "a link opened (fd %d, errno %d)", fd, errno);
    fd = sidecar_open_read("read-pipe"); /* would block without O_NONBLOCK */
    EXPECT(fd < 0 && errno == EINVAL, "a pipe opened (fd %d, errno %d)", fd, errno);
    fd = sidecar_open_read("victim");
    EXPECT(fd >= 0, "a regular file refused: errno %d", errno);
    if (fd >= 0) close(fd);
    unlink("read-link"), unlink("read-pipe");
}

static void prepare_case(void)
{
    char err[1024];
    write_text("p.nc.partial", "partial\n");
    write_text("p.nc.checkpoint", "checkpoint\n");
    write_text("p.nc.checkpoint.tmp-AbCdEf", "temporary\n");
    EXPECT(sidecar_prepare("p.nc", "-o", SIDECAR_CREATE, err, sizeof err) == 2 &&
               strstr(err, "p.nc.checkpoint exists: an interrupted run of p.nc"),
           "%s", err);
    EXPECT(sidecar_prepare("p.nc", "-o", SIDECAR_RESUME, err, sizeof err) == 0 &&
               holds("p.nc.partial", "partial\n") && access("p.nc.checkpoint.tmp-AbCdEf", F_OK),
           "resume: %s", err);
    unlink("p.nc.checkpoint");
    EXPECT(sidecar_prepare("p.nc", "-o", SIDECAR_CREATE, err, sizeof err) == 2 &&
               strstr(err, "p.nc.partial exists without a checkpoint"),
           "%s", err);
    write_text("p.nc.checkpoint", "checkpoint\n");
    EXPECT(sidecar_prepare("p.nc", "-o", SIDECAR_OVERWRITE, err, sizeof err) == 0 &&
               access("p.nc.partial", F_OK) && access("p.nc.checkpoint", F_OK),
           "overwrite: %s", err);
    /* a plain create removes nothing it did not make, not even a temporary's name */
    write_text("p.nc.partial.tmp-QwErTy", "temporary\n");
    EXPECT(sidecar_prepare("p.nc", "-o", SIDECAR_CREATE, err, sizeof err) == 0 &&
               holds("p.nc.partial.tmp-QwErTy", "temporary\n"),
           "create: %s", err);
    EXPECT(sidecar_prepare("p.nc", "-o", SIDECAR_OVERWRITE, err, sizeof err) == 0 &&
               access("p.nc.partial.tmp-QwErTy", F_OK) != 0,
           "overwrite kept a killed run's temporary: %s", err);
    symlink("victim", "p.nc.partial");
    EXPECT(sidecar_prepare("p.nc", "-o", SIDECAR_OVERWRITE, err, sizeof err) == 2 &&
               strstr(err, "p.nc.partial is a symbolic link") && holds("victim", "victim\n"),
           "%s", err);
    unlink("p.nc.partial");
}

int main(void)
{
    char dir[] = "/tmp/cohort-sidecar-XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) {
        perror("test_sidecar: a directory of its own");
        return 1;
    }
    owner_case();
    temp_case();
    rename_case();
    open_read_case();
    prepare_case();
    unlink("victim");
    if (chdir("/") == 0) rmdir(dir);
    return test_summary();
}
