/* sync-cts run's supervisor: starts worker processes, reads their reports,
 * writes the log, and makes a case a worker died in CRASH (run.c describes
 * the two processes). */
#define _GNU_SOURCE
#include "run_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cts_revision.h"

extern char **environ;

/* ---- the supervisor ---- */

/* A case the worker has said nothing about for this long has hung: the
 * worker is killed and the case is CRASH.  (The slowest real case takes
 * well under a minute: every wait of the harness is bounded.) */
#define CASE_LIMIT_S 300

/* The worker's report, a line at a time, with a limit on the silence. */
struct reader {
    int fd;
    char *buf;
    size_t len, cap, start;
};

/* 1 and *line (NUL-terminated, valid until the next call); 0 at the end of
 * the report; -1 after limit_s seconds without a line. */
static int read_line(struct reader *r, char **line, int limit_s)
{
    if (r->start) {
        memmove(r->buf, r->buf + r->start, r->len - r->start);
        r->len -= r->start;
        r->start = 0;
    }
    for (;;) {
        char *nl = r->len ? memchr(r->buf, '\n', r->len) : NULL;
        if (nl) {
            *nl = '\0';
            *line = r->buf;
            r->start = (size_t)(nl - r->buf) + 1;
            return 1;
        }
        if (r->len + 65536 + 1 > r->cap) {
            char *bigger = realloc(r->buf, r->cap = 2 * r->cap + 65536 + 1);
            if (!bigger)
                return 0;
            r->buf = bigger;
        }
        struct pollfd p = {r->fd, POLLIN, 0};
        int pr = poll(&p, 1, limit_s * 1000);
        if (pr == 0)
            return -1;
        ssize_t k = pr < 0 ? -1 : read(r->fd, r->buf + r->len, r->cap - r->len - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (!r->len)
                return 0;
            r->buf[r->len] = '\0'; /* a last line with no newline: torn */
            *line = r->buf;
            r->start = r->len;
            return 1;
        }
        r->len += (size_t)k;
    }
}

/* Starts a worker for sel[from..) with its report pipe on *rfd. */
static pid_t spawn_worker(const struct run_opts *o, size_t from, int *rfd)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC))
        return -1;
    char self[4096], from_s[32], dev_s[16], rep_s[16];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    self[k] = '\0';
    /* Test-only: the supervisor's own tests (tests/run.sh) put a scripted
     * worker here, to crash it where they choose without a GPU. */
    const char *fake = getenv("CTS_TEST_WORKER");
    if (fake && *fake)
        snprintf(self, sizeof self, "%s", fake);
    snprintf(from_s, sizeof from_s, "%zu", from);
    snprintf(dev_s, sizeof dev_s, "%d", o->device);
    snprintf(rep_s, sizeof rep_s, "%d", o->repeat);
    char *argv[24];
    int a = 0;
    argv[a++] = self;
    argv[a++] = "run";
    argv[a++] = "--worker-from";
    argv[a++] = from_s;
    argv[a++] = "--worker-fd";
    argv[a++] = "3"; /* the pipe, put there by the dup2 below */
    argv[a++] = "--device";
    argv[a++] = dev_s;
    argv[a++] = "--repeat";
    argv[a++] = rep_s;
    argv[a++] = "--schedule";
    argv[a++] = (char *)cts_run_schedules[o->sched].name;
    argv[a++] = "--hold";
    argv[a++] = (char *)cts_hold_names[o->hold];
    if (o->family) {
        argv[a++] = "--family";
        argv[a++] = (char *)o->family;
    }
    if (o->group) {
        argv[a++] = "--group";
        argv[a++] = (char *)o->group;
    }
    if (o->devices) {
        argv[a++] = "--devices";
        argv[a++] = o->devices == 1 ? "1" : "2";
    }
    argv[a++] = "--";
    if (o->glob)
        argv[a++] = (char *)o->glob;
    argv[a] = NULL;
    posix_spawn_file_actions_t fa;
    pid_t pid = -1;
    if (posix_spawn_file_actions_init(&fa) == 0) {
        if (posix_spawn_file_actions_adddup2(&fa, p[1], 3) == 0 &&
            posix_spawn(&pid, self, &fa, NULL, argv, environ) != 0)
            pid = -1;
        posix_spawn_file_actions_destroy(&fa);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    *rfd = p[0];
    return pid;
}

static void describe_exit(int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status))
        snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
}

void cts_run_group_line(struct supervisor *s, const char *next_group)
{
    if (s->group[0]) {
        double gs = (cts_now_us() - s->t_group) / 1e6;
        printf("%-34s %5zu cases, %5zu with a verdict, %6.1f s\n", s->group, s->group_cases,
               s->group_pass, gs);
        fflush(stdout);
        json_object_set_new(s->groups, s->group,
                            json_pack("{s:I,s:f}", "cases", (json_int_t)s->group_cases, "wall_s",
                                      round(gs * 100) / 100));
    }
    snprintf(s->group, sizeof s->group, "%s", next_group ? next_group : "");
    s->t_group = cts_now_us();
    s->group_cases = s->group_pass = 0;
}

/* Records case sel[next] with this result (its matrix entry) and moves on. */
static void record(struct supervisor *s, json_t *cj)
{
    const struct cts_case *cs = s->sel[s->next];
    const char *st = json_string_value(json_object_get(cj, "status"));
    int status = st ? cts_status_parse(st) : -1;
    if (status < 0)
        status = CTS_BROKEN;
    cts_log_event(&s->log, "result", cs->id,
                  json_pack("{s:s,s:O?,s:O?}", "status", cts_status_name(status), "reason",
                            json_object_get(cj, "reason"), "symbol", json_object_get(cj, "symbol")));
    cts_log_event(&s->log, "end", cs->id, NULL);
    json_object_set_new(s->cases, cs->id, cj);
    s->count[status]++;
    s->group_cases++;
    s->group_pass += status == CTS_PASS || status == CTS_VARIES;
    s->next++;
}

/* A case with no report from the worker: CRASH (or BROKEN) with why, and
 * the last stage it reported (cts_case_stage), where it did. */
static void record_lost(struct supervisor *s, enum cts_status st, const char *why)
{
    struct cts_result *res = calloc(1, sizeof *res);
    if (!res)
        abort();
    res->status = st;
    char stage[300] = "", fault[200] = "";
    if (st == CTS_CRASH && s->stage[0])
        snprintf(stage, sizeof stage, " (its last stage: %s)", s->stage);
    if (st == CTS_CRASH && s->fault[0])
        snprintf(fault, sizeof fault, "; the faulting instruction in %s", s->fault);
    snprintf(res->reason, sizeof res->reason, "%s%s%s", why, stage, fault);
    s->stage[0] = s->fault[0] = '\0';
    record(s, cts_case_json(s->sel[s->next], res));
    free(res);
}

/* The worker's environment: the run's is the first worker's, and with it
 * the log is opened. */
static void on_env(struct supervisor *s, json_t *j)
{
    if (!s->env) {
        s->env = json_incref(json_object_get(j, "environment"));
        if (!s->log_open) {
            char err[512];
            if (cts_log_open(&s->log, s->o->logpath, err, sizeof err) == 0)
                s->log_open = 1; /* else s->log.err: run ends, saying so (run.c) */
            cts_log_event(&s->log, "run", NULL,
                          json_pack("{s:I,s:s,s:i,s:s}", "cases", (json_int_t)s->n, "selection",
                                    s->o->glob ? s->o->glob : "*", "repeat", s->o->repeat,
                                    "revision", CTS_REVISION));
        }
    }
}

/* One line of the worker's report, parsed (j, NULL if it is not JSON).
 * Returns 1 if the report is bad (the worker is then waited for), else 0. */
static int on_event(struct supervisor *s, json_t *j, int *in_case, int *done)
{
    int bad = 0;
    const char *ev = json_string_value(json_object_get(j, "event"));
    const char *id = json_string_value(json_object_get(j, "id"));
    if (!ev) {
        bad = 1; /* a torn last line: the worker died while writing it */
    } else if (!strcmp(ev, "env")) {
        on_env(s, j);
    } else if (!strcmp(ev, "start")) {
        if (!s->start)
            s->start = json_incref(j);
    } else if (!strcmp(ev, "begin") && id && s->next < s->n && !strcmp(id, s->sel[s->next]->id)) {
        char g[CTS_ID_MAX];
        cts_case_group(s->sel[s->next], g, sizeof g);
        if (strcmp(g, s->group))
            cts_run_group_line(s, g);
        cts_log_event(&s->log, "begin", id, NULL);
        *in_case = 1;
        s->stage[0] = s->fault[0] = '\0';
    } else if (!strcmp(ev, "fault") && *in_case && id && !strcmp(id, s->sel[s->next]->id) &&
               json_is_string(json_object_get(j, "in"))) {
        snprintf(s->fault, sizeof s->fault, "%s", json_string_value(json_object_get(j, "in")));
    } else if (!strcmp(ev, "stage") && *in_case && id && !strcmp(id, s->sel[s->next]->id) &&
               json_is_string(json_object_get(j, "stage"))) {
        snprintf(s->stage, sizeof s->stage, "%s", json_string_value(json_object_get(j, "stage")));
    } else if (!strcmp(ev, "result") && *in_case && id && !strcmp(id, s->sel[s->next]->id) &&
               json_is_object(json_object_get(j, "case"))) {
        record(s, json_incref(json_object_get(j, "case")));
        *in_case = 0;
    } else if (!strcmp(ev, "done")) {
        *done = 1;
    } else {
        bad = 1;
    }
    return bad;
}

/* After the worker started at case `first` has exited with status: the
 * case it died in, if any, recorded.  cts_run_supervise_one's return. */
static int worker_ended(struct supervisor *s, int status, size_t first, int done, int in_case, int hung,
                        int limit_s)
{
    if (done && s->next == s->n)
        return 0;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (!s->env && (code == EXIT_SKIP || code == EXIT_USAGE || code == EXIT_NO_VERDICT))
        return code; /* no device, or it could not start: it said why */
    char how[128], why[CTS_REASON_MAX];
    describe_exit(status, how, sizeof how);
    if (in_case && hung) {
        snprintf(why, sizeof why, "the case said nothing for %d s (a hang): its process was killed, "
                                  "and the run went on in a fresh one", limit_s);
        record_lost(s, CTS_CRASH, why);
        cts_warn("CRASH %s: hung", s->sel[s->next - 1]->id);
        return 1;
    }
    if (in_case) {
        snprintf(why, sizeof why, "the process running this case %s; the run went on in a fresh "
                                  "process", how);
        record_lost(s, CTS_CRASH, why);
        cts_warn("CRASH %s: %s", s->sel[s->next - 1]->id, how);
        return 1;
    }
    if (code == EXIT_CONTEXT_LOST && s->next > first)
        return 1; /* it reported the case that lost the context as CRASH */
    if (s->next > first)
        return 1; /* it died between cases: go on */
    /* It died before its first case: the harness cannot start here. */
    snprintf(why, sizeof why, "harness: the worker process %s before its first case", how);
    cts_warn("%s", why);
    while (s->next < s->n)
        record_lost(s, CTS_BROKEN, why);
    return 0;
}

/* The worker started early for s->heir_from on, if one was: killed and reaped. */
static void drop_heir(struct supervisor *s)
{
    if (s->heir <= 0)
        return;
    kill(s->heir, SIGKILL);
    close(s->heir_fd);
    while (waitpid(s->heir, NULL, 0) < 0 && errno == EINTR)
        ;
    s->heir = 0;
}

/* The worker for s->next on: the heir started for it, or a new one (-1: none could start). */
static pid_t take_worker(struct supervisor *s, int *rfd, double *at)
{
    *at = cts_now_us();
    if (s->heir > 0 && s->heir_from == s->next) {
        pid_t pid = s->heir;
        *rfd = s->heir_fd, *at = s->heir_at;
        s->heir = 0;
        return pid;
    }
    drop_heir(s);
    return spawn_worker(s->o, s->next, rfd);
}

/* What a worker said until it stopped: its state then, and (CTS_TRACE) when it spoke. */
struct heard {
    int in_case, done, bad, hung, eof;
    double first, last, eof_at;
};

/* Reads the worker's reports until it is done, stops making sense or dies (its pipe's end),
 * killing it if it hangs in a case or the log cannot be written. */
static void hear_out(struct supervisor *s, pid_t pid, int rfd, struct heard *h, int limit_s)
{
    struct reader rd = {.fd = rfd};
    char *line = NULL;
    int got = 1;
    /* limit_s bounds a case's silence; a worker starting up (its context,
     * its first case's set-up) gets the full CASE_LIMIT_S whatever the test
     * limit: under CPU load the scripted worker took over 1 s to start. */
    while (!h->done && !h->bad && !s->log.err &&
           (got = read_line(&rd, &line, h->in_case ? limit_s : CASE_LIMIT_S)) != 0) {
        if (got < 0) {
            h->hung = 1;
            kill(pid, SIGKILL);
            break;
        }
        h->last = cts_now_us();
        if (!h->first)
            h->first = h->last;
        json_t *j = json_loads(line, 0, NULL);
        h->bad = on_event(s, j, &h->in_case, &h->done);
        json_decref(j);
    }
    if (s->log.err && !h->done) /* the log cannot be written: the run stops here (run.c) */
        kill(pid, SIGKILL);
    h->eof = got == 0 && !h->done && !h->bad && !s->log.err;
    free(rd.buf);
    close(rfd);
    h->eof_at = cts_now_us();
}

/* A worker that died in or after a case is followed by a fresh one: started now, while the
 * system tears the dead one's context down (0.1 s of an H200's 0.6 s a crash), not after
 * it is reaped.  The heir's own set-up (0.3 s) comes before its first case. */
static void start_heir(struct supervisor *s, const struct heard *h, size_t first)
{
    size_t then = s->next + (size_t)h->in_case;
    if (!h->eof || (!h->in_case && s->next == first) || then >= s->n)
        return;
    s->heir_at = cts_now_us();
    s->heir = spawn_worker(s->o, then, &s->heir_fd);
    s->heir_from = then; /* heir < 0: started again, failing then, when it is needed */
}

/* One worker, from s->next on.  Returns 0 when it reported every case,
 * 1 when another worker should go on, or an exit status to stop with. */
int cts_run_supervise_one(struct supervisor *s)
{
    int rfd, limit_s = CASE_LIMIT_S;
    size_t first = s->next;
    double at;
    pid_t pid = take_worker(s, &rfd, &at);
    if (pid < 0)
        return cts_die(EXIT_NO_VERDICT, "cannot start a worker process: %s", strerror(errno));
    const char *test_limit = getenv("CTS_TEST_CASE_LIMIT_S"); /* tests/run.sh only */
    if (test_limit && cts_parse_int(test_limit, 1, CASE_LIMIT_S, &limit_s))
        limit_s = CASE_LIMIT_S;
    struct heard h = {0};
    hear_out(s, pid, rfd, &h, limit_s);
    start_heir(s, &h, first);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (cts_eng_trace_on()) /* CTS_TRACE: a worker's life seen from here (microseconds) */
        fprintf(stderr, "trace worker ended at case %zu: first line %.0f last line to end %.0f end to exit %.0f "
                "wall %.0f cases %zu %s\n", first, h.first - at, h.eof_at - h.last, cts_now_us() - h.eof_at,
                cts_now_us() - at, s->next - first, WIFSIGNALED(status) ? "signal" : "exit");
    int rc = s->log.err ? 1 : worker_ended(s, status, first, h.done, h.in_case, h.hung, limit_s);
    if (s->log.err || rc != 1 || s->next >= s->n)
        drop_heir(s);
    return rc;
}
