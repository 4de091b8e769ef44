#define _POSIX_C_SOURCE 200809L
#include "io/output_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exit_status.h"
#include "io/paths.h"
#include "io/sidecar.h"
#include "report.h"

enum { OPEN_TRIES = 8, HOST_MAX = 256 };

struct output_lock {
    int fd;
    char *name; /* OUT.lock */
};

/* Who holds (or held) a lock, as its file records it. */
typedef struct lock_holder {
    char command[64], host[HOST_MAX];
    long long pid, started;
} lock_holder;

static void this_host(char *host, size_t len)
{
    if (gethostname(host, len) != 0) snprintf(host, len, "localhost");
    host[len - 1] = '\0';
}

/* The record a holder writes: a line each, the command last (it has spaces). */
static int holder_write(int fd, const char *command)
{
    char host[HOST_MAX], text[512];
    this_host(host, sizeof host);
    const int n = snprintf(text, sizeof text,
                           "cohort output lock 1\nhost %s\npid %lld\nstarted %lld\ncommand %s\n",
                           host, (long long)getpid(), (long long)time(NULL), command);
    return n > 0 && (size_t)n < sizeof text && ftruncate(fd, 0) == 0 &&
           pwrite(fd, text, (size_t)n, 0) == n && fsync(fd) == 0;
}

/* 1 with h filled when fd holds a whole record; 0 when empty or unreadable. */
static int holder_read(int fd, lock_holder *h)
{
    char text[1024];
    const ssize_t got = pread(fd, text, sizeof text - 1, 0);
    memset(h, 0, sizeof *h);
    if (got <= 0) return 0;
    text[got] = '\0';
    int fields = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (!strncmp(line, "host ", 5))
            fields += snprintf(h->host, sizeof h->host, "%s", line + 5) > 0;
        else if (!strncmp(line, "command ", 8))
            fields += snprintf(h->command, sizeof h->command, "%s", line + 8) > 0;
        else
            fields += sscanf(line, "pid %lld", &h->pid) + sscanf(line, "started %lld", &h->started);
    }
    return fields == 4;
}

/* "cohort run pid 4242 on node17, started 2026-11-25 14:03:05" */
static void holder_describe(const lock_holder *h, char *text, size_t len)
{
    char when[64] = "at an unknown time";
    const time_t t = (time_t)h->started;
    struct tm tm;
    if (localtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(text, len, "%s pid %lld on %s, started %s", h->command, h->pid, h->host, when);
}

/* 1: fd's whole file locked for writing; 0: another process holds it; -1: this file system has
 * no fcntl locks (ENOLCK, EINVAL, ...), so only the record can tell. */
static int lock_take(int fd)
{
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(fd, F_SETLK, &whole) == 0) return 1;
    return errno == EACCES || errno == EAGAIN ? 0 : -1;
}

/* Whether fd is still the file `name` names (its holder removes it on release, and a process
 * that opened it before then would otherwise lock a file nobody else sees). */
static int still_named(int fd, const char *name)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(name, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

static int process_alive(long long pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static void busy_message(const char *path, const lock_holder *h, int known, char *err, size_t len)
{
    char who[512] = "another cohort command that is starting";
    if (known) holder_describe(h, who, sizeof who);
    snprintf(err, len, "%s is being written by %s; wait for it to finish, or choose another -o",
             path, who);
}

/* A lock file left by `h` that no process holds (locked = 1), or on a file system without
 * locks (locked = -1). 0: stale, taken over (saying so, even to a quiet command: it concerns
 * another run's files); 2 with err: refused. */
static int left_behind(const char *path, const char *name, const lock_holder *h, int locked,
                       char *err, size_t len)
{
    char host[HOST_MAX], who[512];
    this_host(host, sizeof host);
    holder_describe(h, who, sizeof who);
    if (strcmp(h->host, host) != 0) {
        snprintf(err, len,
                 "%s was left by %s, and no process holds it: that run ended without removing "
                 "it (killed, or its node failed), or this file system does not share locks "
                 "between hosts. cohort cannot see %s's processes from %s: if no cohort writes "
                 "%s there, remove %s and run again",
                 name, who, h->host, host, path, name);
        return EXIT_BAD_INPUT;
    }
    if (locked < 0 && process_alive(h->pid)) {
        busy_message(path, h, 1, err, len);
        return EXIT_BAD_INPUT;
    }
    report(REPORT_NOTE, "taking over %s, left by %s, which has ended", name, who);
    return 0;
}

/* Opens OUT.lock, creating it where missing (*created), never through a link (ELOOP) and only
 * a regular file (EINVAL; O_NONBLOCK: a planted pipe must not block the open); -1 with errno on
 * failure. */
static int lock_open(const char *name, int *created)
{
    const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
    int fd = open(name, flags | O_CREAT | O_EXCL, 0644);
    *created = fd >= 0;
    if (fd < 0 && errno == EEXIST) fd = open(name, flags);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1, errno = EINVAL;
    }
    return fd;
}

/* One try at the lock: 0 taken (*fd open and locked), 1 to try again (the file was removed
 * under us), 2 refused with err. */
static int lock_try(const char *path, const char *name, const char *command, int *fd, char *err,
                    size_t len)
{
    int created = 0;
    *fd = lock_open(name, &created);
    if (*fd < 0) {
        if (errno == ENOENT) return 1; /* its holder removed it between our two opens */
        if (errno == ELOOP || errno == EINVAL)
            snprintf(err, len,
                     "%s: its lock %s is %s: cohort never writes through a link or over another "
                     "kind of file; remove it",
                     path, name, errno == ELOOP ? "a symbolic link" : "not a regular file");
        else
            snprintf(err, len, "%s: cannot open its lock %s: %s", path, name, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    const int locked = lock_take(*fd);
    lock_holder h;
    const int known = holder_read(*fd, &h);
    int status = 0;
    if (locked == 0) {
        busy_message(path, &h, known, err, len);
        status = EXIT_BAD_INPUT;
    } else if (!still_named(*fd, name)) {
        status = 1;
    } else if (!created && known) {
        status = left_behind(path, name, &h, locked, err, len);
    }
    if (status == 0 && !holder_write(*fd, command)) {
        snprintf(err, len, "%s: cannot write its lock %s: %s", path, name, strerror(errno));
        status = EXIT_BAD_INPUT;
    }
    if (status != 0) close(*fd), *fd = -1;
    return status;
}

int output_lock_acquire(const char *path, const char *option, const char *command,
                        output_lock **lock, char *err, size_t len)
{
    *lock = NULL;
    if (paths_check_directory(path, option, err, len)) return EXIT_BAD_INPUT;
    output_lock *l = calloc(1, sizeof *l);
    if (l) l->name = sidecar_name_alloc(path, SIDECAR_LOCK);
    if (!l || !l->name) {
        free(l);
        snprintf(err, len, "out of memory");
        return EXIT_BAD_INPUT;
    }
    int status = 1;
    for (int i = 0; i < OPEN_TRIES && status == 1; ++i)
        status = lock_try(path, l->name, command, &l->fd, err, len);
    if (status == 1) snprintf(err, len, "%s: its lock %s keeps changing", path, l->name);
    if (status != 0) {
        free(l->name), free(l);
        return EXIT_BAD_INPUT;
    }
    *lock = l;
    return 0;
}

void output_lock_release(output_lock *lock)
{
    if (!lock) return;
    unlink(lock->name); /* while still locked: see still_named */
    close(lock->fd);
    free(lock->name);
    free(lock);
}
