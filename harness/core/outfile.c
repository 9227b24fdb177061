/* Files written whole or not at all (a temporary file renamed into place, removed
 * if the process is killed), and where a command's output goes. */
#define _GNU_SOURCE
#include "cli.h"
#include "matrix.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- temporary files removed when the process is killed ------------------------
 *
 * A file written whole or not at all is a temporary file until it is
 * renamed into place.  Each one is noted here while it exists, and every
 * signal whose default action ends the process, but for the synchronous ones
 * of a crash (SIGSEGV, SIGBUS, ...: left to a sanitizer's or the core's
 * handling), unlinks every noted one before the process dies of the signal
 * as it would have (the handler re-raises it with the default action).
 * Signals ignored when the handler would be installed (nohup, a background
 * job) stay ignored.  The handler calls only unlink and raise. */

#define CLEANUP_SLOTS 16
static char cleanup_path[CLEANUP_SLOTS][4200];
static volatile sig_atomic_t cleanup_used[CLEANUP_SLOTS];
static const int cleanup_signals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGPIPE, SIGALRM,
                                      SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF};

static void on_fatal_signal(int sig)
{
    int saved = errno;
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (cleanup_used[i])
            unlink(cleanup_path[i]);
    errno = saved;
    raise(sig); /* SA_RESETHAND put the default action back: delivered once this returns */
}

void cts_cleanup_install(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++) {
        struct sigaction old, sa;
        if (sigaction(cleanup_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sa.sa_flags = SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < sizeof cleanup_signals / sizeof *cleanup_signals; k++)
            sigaddset(&sa.sa_mask, cleanup_signals[k]);
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}

/* Holds those signals off (a registration is never half done when the
 * handler runs), or lets them through again. */
static void hold_signals(int hold, sigset_t *saved)
{
    if (hold) {
        sigset_t s;
        sigemptyset(&s);
        for (size_t k = 0; k < sizeof cleanup_signals / sizeof *cleanup_signals; k++)
            sigaddset(&s, cleanup_signals[k]);
        pthread_sigmask(SIG_BLOCK, &s, saved);
    } else {
        pthread_sigmask(SIG_SETMASK, saved, NULL);
    }
}

int cts_cleanup_add(const char *path)
{
    cts_cleanup_install();
    if (strlen(path) >= sizeof cleanup_path[0])
        return -1;
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (!cleanup_used[i]) {
            memcpy(cleanup_path[i], path, strlen(path) + 1);
            cleanup_used[i] = 1; /* only now: the path is whole */
            return i;
        }
    return -1;
}

void cts_cleanup_remove(int slot)
{
    if (slot >= 0 && slot < CLEANUP_SLOTS)
        cleanup_used[slot] = 0;
}

/* A test hook: SYNC_CTS_TEST_PAUSE_AFTER_OPEN=SECONDS (at most 30) makes a
 * command stop that long once its output's temporary file exists, so that
 * a test can signal it there (tests/signals.sh). */
static void test_pause(void)
{
    const char *p = getenv("SYNC_CTS_TEST_PAUSE_AFTER_OPEN");
    int s;
    if (!p || cts_parse_int(p, 1, 30, &s))
        return;
    for (int i = 0; i < 10 * s; i++) {
        struct timespec t = {0, 100000000};
        nanosleep(&t, NULL);
    }
}

/* ---- files written whole or not at all ------------------------------------- */

/* o's temporary file, beside o->path, created and opened (st: the file it
 * will replace, where one exists); -1 and a reason on failure. */
static int open_tmp(struct cts_outfile *o, const char *path, int exists, const struct stat *st, char *err,
                    size_t errlen)
{
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", o->path);
    sigset_t saved;
    hold_signals(1, &saved);
    int fd = mkstemp(o->tmp);
    if (fd >= 0)
        o->slot = cts_cleanup_add(o->tmp);
    hold_signals(0, &saved);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    /* mkstemp makes 0600: a file replaced keeps its mode, a new one gets the usual one */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, exists ? st->st_mode & 07777 : 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "w"))) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
        hold_signals(1, &saved);
        unlink(o->tmp);
        cts_cleanup_remove(o->slot);
        hold_signals(0, &saved);
        return -1;
    }
    test_pause();
    return 0;
}

/* The file a path names once every symbolic link of its last component is
 * followed, whether or not that file exists yet (a dangling link names the
 * file it would create), into out: 0; or -1 with errno (ELOOP: more than 40
 * links, or a loop; ENAMETOOLONG). */
static int follow_links(const char *path, char *out, size_t len)
{
    char cur[PATH_MAX], link[PATH_MAX];
    if (strlen(path) >= sizeof cur) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0;; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            break;
        if (hops == 40) {
            errno = ELOOP;
            return -1;
        }
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0)
            return -1;
        link[n] = '\0';
        if (link[0] == '/') {
            snprintf(cur, sizeof cur, "%s", link);
        } else { /* relative to the link's own directory */
            char *slash = strrchr(cur, '/');
            int dir = slash ? (int)(slash - cur) + 1 : 0;
            if (dir + strlen(link) >= sizeof cur) {
                errno = ENAMETOOLONG;
                return -1;
            }
            memmove(cur + dir, link, strlen(link) + 1);
        }
    }
    if (strlen(cur) >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(out, len, "%s", cur);
    return 0;
}

int cts_outfile_open(struct cts_outfile *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (strlen(path) >= sizeof o->path) {
        snprintf(err, errlen, "output path too long: '%.60s...'", path);
        return -1;
    }
    /* A symbolic link, even one whose file does not exist yet: the file it
     * names is written, and the link stays. */
    if (follow_links(path, o->path, sizeof o->path) != 0) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    int exists = stat(o->path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write '%s': it is a directory", path);
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device or a pipe (/dev/null, /dev/stdout): written to, never replaced. */
        o->f = fopen(path, "w");
        if (!o->f) {
            snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
            return -1;
        }
        o->direct = 1;
        return 0;
    }
    return open_tmp(o, path, exists, &st, err, errlen);
}

int cts_outfile_commit(struct cts_outfile *o, char *err, size_t errlen)
{
    errno = 0;
    int bad = ferror(o->f);
    int closed = o->std ? fflush(o->f) : fclose(o->f);
    if (closed != 0 || bad) {
        if (o->std)
            snprintf(err, errlen, "cannot write to standard output: %s", strerror(errno ? errno : EIO));
        else
            snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(errno ? errno : EIO));
        o->f = NULL;
        if (!o->std && !o->direct) {
            sigset_t saved;
            hold_signals(1, &saved);
            unlink(o->tmp);
            cts_cleanup_remove(o->slot);
            hold_signals(0, &saved);
        }
        return -1;
    }
    o->f = NULL;
    if (o->std || o->direct)
        return 0;
    sigset_t saved;
    hold_signals(1, &saved);
    int rc = rename(o->tmp, o->path);
    int e = errno;
    if (rc != 0)
        unlink(o->tmp);
    cts_cleanup_remove(o->slot);
    hold_signals(0, &saved);
    if (rc != 0) {
        snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(e));
        return -1;
    }
    return 0;
}

void cts_outfile_abort(struct cts_outfile *o)
{
    if (!o->f)
        return;
    if (o->std) {
        fflush(o->f);
        o->f = NULL;
        return;
    }
    fclose(o->f);
    o->f = NULL;
    if (o->direct)
        return;
    sigset_t saved;
    hold_signals(1, &saved);
    unlink(o->tmp);
    cts_cleanup_remove(o->slot);
    hold_signals(0, &saved);
}

/* ---- where a command's output goes ---------------------------------------- */

/* The canonical name of the file path names, existing or not: its links
 * followed, its directory resolved (realpath), its last component kept.
 * 0, or -1 where the directory does not resolve. */
static int canonical(const char *path, char *out, size_t len)
{
    char target[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
    if (follow_links(path, target, sizeof target) != 0)
        return -1;
    const char *slash = strrchr(target, '/'), *base = slash ? slash + 1 : target;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == target ? 1 : (int)(slash - target), target);
    if (!realpath(dir, real))
        return -1;
    int n = snprintf(out, len, "%s/%s", strcmp(real, "/") ? real : "", base);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int cts_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ca[PATH_MAX], cb[PATH_MAX];
    return canonical(a, ca, sizeof ca) == 0 && canonical(b, cb, sizeof cb) == 0 && !strcmp(ca, cb);
}

int cts_output_check(const char *out, const char *const *inputs, size_t n, char *err, size_t errlen)
{
    struct stat so, si;
    int to_stdout = !out || !strcmp(out, "-");
    if (to_stdout ? fstat(STDOUT_FILENO, &so) != 0 : stat(out, &so) != 0)
        return 0; /* nothing there yet: it cannot be an input */
    for (size_t i = 0; i < n; i++)
        if (stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            if (to_stdout)
                snprintf(err, errlen, "standard output is the input matrix '%s': refusing to overwrite it",
                         inputs[i]);
            else
                snprintf(err, errlen, "--out '%s' is the input matrix '%s' (the same file): refusing to overwrite it",
                         out, inputs[i]);
            return -1;
        }
    return 0;
}

int cts_output_open(struct cts_outfile *o, const char *out, const char *const *inputs, size_t n, char *err,
                    size_t errlen)
{
    if (cts_output_check(out, inputs, n, err, errlen))
        return -1;
    if (out && strcmp(out, "-"))
        return cts_outfile_open(o, out, err, errlen);
    memset(o, 0, sizeof *o);
    o->slot = -1;
    o->std = 1;
    o->f = stdout;
    snprintf(o->path, sizeof o->path, "-");
    return 0;
}

int cts_output_write(const char *out, const char *const *inputs, size_t n, const char *text, size_t len, char *err,
                     size_t errlen)
{
    struct cts_outfile of;
    if (cts_output_open(&of, out, inputs, n, err, errlen))
        return -1;
    if (fwrite(text, 1, len, of.f) != len) {
        cts_outfile_abort(&of);
        snprintf(err, errlen, "cannot write '%s'", of.std ? "standard output" : out);
        return -1;
    }
    return cts_outfile_commit(&of, err, errlen);
}
