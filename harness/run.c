/* sync-cts list, env, run and log: the sub-commands that declare, measure
 * and account for cases (the others, which read matrices, are in main.c). */
#define _GNU_SOURCE
#include "cli.h"
#include "cts.h"
#include "engine.h"
#include "report.h"
#include "spec.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cts_revision.h"

extern char **environ;

/* ---- list -------------------------------------------------------------------- */

int cts_cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {
        {"groups", no_argument, NULL, 'g'}, {"family", required_argument, NULL, 'f'},
        {"group", required_argument, NULL, 'G'}, {0}};
    int groups = 0, c, rc;
    const char *glob, *family = NULL, *group_name = NULL;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'g')
            groups = 1;
        else if (c == 'f')
            family = optarg;
        else if (c == 'G')
            group_name = optarg;
        else
            return cts_bad_option(c, argv);
    }
    const struct cts_case **sel;
    size_t n;
    if ((rc = cts_select_cases(argc, argv, family, group_name, &glob, &sel, &n)))
        return rc;
    char last[CTS_ID_MAX] = "", group[CTS_ID_MAX];
    for (size_t i = 0; i < n; i++) {
        if (!groups) {
            printf("%s\n", sel[i]->id);
            continue;
        }
        cts_case_group(sel[i], group, sizeof group);
        if (strcmp(group, last)) /* groups are contiguous in the table */
            printf("%s %s\n", group, sel[i]->family->name);
        snprintf(last, sizeof last, "%s", group);
    }
    free(sel);
    return 0;
}

/* ---- device discovery ---------------------------------------------------------- */

/* 0 if device `dev` can be used; otherwise prints why and returns the exit code. */
int cts_run_find_device(int dev)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && n == 0)) {
        printf("sync-cts: skipped: no CUDA device or driver here (cudaGetDeviceCount: %s)\n",
               e == cudaSuccess ? "0 devices" : cudaGetErrorName(e));
        return EXIT_SKIP;
    }
    if (e != cudaSuccess)
        return cts_die(EXIT_NO_VERDICT, "cannot start CUDA: cudaGetDeviceCount returned %s",
                   cudaGetErrorName(e));
    if (dev >= n)
        return cts_die(EXIT_USAGE, "no CUDA device %d (this machine has %d)", dev, n);
    return 0;
}

/* ---- env ----------------------------------------------------------------------- */

int cts_cmd_env(int argc, char **argv)
{
    static const struct option opts[] = {{"device", required_argument, NULL, 'd'}, {0}};
    int dev = 0, c, rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'd' && cts_parse_int(optarg, 0, 1023, &dev) == 0)
            continue;
        if (c == 'd')
            return cts_die(EXIT_USAGE, "--device wants a device index, not '%s'", optarg);
        return cts_bad_option(c, argv);
    }
    if (optind < argc)
        return cts_die(EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
    if ((rc = cts_run_find_device(dev)))
        return rc;
    char err[256];
    json_t *env = cts_env_collect(dev, err, sizeof err);
    if (!env)
        return cts_die(EXIT_NO_VERDICT, "cannot read the environment: %s", err);
    json_dumpf(env, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
    putchar('\n');
    json_decref(env);
    return 0;
}

/* ---- run ----------------------------------------------------------------------- */

/* `run` is two processes.  The supervisor (the command the user starts)
 * never makes a CUDA call: it checks the options, opens the outputs, and
 * starts a worker (this program again, `run --worker-from K`), which runs the
 * selected cases from the K-th on and reports each as a JSON line on a pipe.
 * If the worker dies inside a case (a crash, an abort), or finds the CUDA
 * context lost after one (a sticky error such as an illegal address), that
 * case is CRASH with the reason, and a fresh worker goes on with the next
 * case: the matrix is written whole.  The supervisor writes the log, case by
 * case, and the matrix.  Nothing forks after CUDA is initialized: the
 * process that starts workers never initializes it. */

enum { EXIT_CONTEXT_LOST = 4 }; /* a worker's own: it stopped after a case that lost the context */

const struct cts_run_schedule {
    const char *name;
    unsigned flag;
} cts_run_schedules[] = {{"auto", cudaDeviceScheduleAuto},
                 {"spin", cudaDeviceScheduleSpin},
                 {"yield", cudaDeviceScheduleYield},
                 {"blocking-sync", cudaDeviceScheduleBlockingSync}};

struct run_opts {
    int repeat, device, sched;
    const char *out, *logpath, *glob, *family, *group, *waivers, *baseline, *split;
    long worker_from; /* -1: the supervisor */
    int worker_fd;
};

static int writable(const char *path)
{
    struct stat st;
    int existed = stat(path, &st) == 0;
    FILE *f = fopen(path, "a");
    if (!f)
        return 0;
    fclose(f);
    if (!existed)
        unlink(path);
    return 1;
}

static void iso_date(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- the worker ---- */

static void emit(FILE *f, json_t *j)
{
    json_dumpf(j, f, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
    fputc('\n', f);
    fflush(f);
    json_decref(j);
}

/* The errors that "leave the process in an inconsistent state" (the
 * runtime's reference): every later call returns them. */
static int sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorContained: case cudaErrorIllegalAddress: case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError: case cudaErrorIllegalInstruction: case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace: case cudaErrorInvalidPc: case cudaErrorLaunchFailure:
    case cudaErrorExternalDevice: case cudaErrorAssert: case cudaErrorECCUncorrectable:
        return 1;
    default:
        return 0;
    }
}

/* After a case: is the context still usable?  A sticky error (an illegal
 * address, a launch failure) makes every later call fail; a plain one is
 * cleared by cudaGetLastError, and one a case's own state causes (a capture
 * left open) is the case's status, not a lost context. */
static int context_lost(char *why, size_t len)
{
    cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess)
        return 0;
    (void)cudaGetLastError();
    cudaError_t again = cudaDeviceSynchronize();
    if (again == cudaSuccess || !sticky(again)) {
        (void)cudaGetLastError();
        return 0;
    }
    snprintf(why, len, "the CUDA context was lost in this case: cudaDeviceSynchronize returns %s "
                       "after it (a sticky error); the run went on in a fresh process",
             cudaGetErrorName(again));
    return 1;
}

static json_t *harness_json(const struct cts_engine *e)
{
    json_t *selfcheck = json_pack(
        "{s:b,s:b,s:b,s:b,s:s,s:f,s:f}", "ran", e->selfcheck.ran, "launches_async",
        e->selfcheck.launches_async, "gate_holds", e->selfcheck.gate_holds, "streams_independent",
        e->selfcheck.streams_independent, "detail",
        e->broken[0] ? e->broken : e->unmeasurable[0] ? e->unmeasurable : e->selfcheck.detail,
        "marker_idle_us", round(e->selfcheck.marker_idle_us * 10) / 10, "wake_us",
        round(e->selfcheck.wake_us * 10) / 10);
    json_t *harness = json_pack(
        "{s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:i,s:b}", "idle_warmup_calls", IDLE_WARMUP,
        "idle_samples", IDLE_SAMPLES, "timeout_floor_us", TIMEOUT_FLOOR_US, "timeout_factor",
        TIMEOUT_FACTOR, "window_floor_us", WINDOW_FLOOR_US, "window_factor", WINDOW_FACTOR,
        "control_window_us", CONTROL_WINDOW_US, "prompt_factor", PROMPT_FACTOR, "prompt_slack_us",
        PROMPT_SLACK_US, "wait_retries", WAIT_RETRIES, "managed_prefetched_to_device",
        e->prefetch_managed);
    json_object_set_new(harness, "track_fraction", json_real(TRACK_FRACTION));
    json_object_set_new(harness, "timeout_factor_managed", json_real(TIMEOUT_FACTOR_MANAGED));
    json_object_set_new(harness, "starved_retries", json_integer(STARVED_RETRIES));
    return json_pack("{s:s,s:o,s:o}", "event", "start", "selfcheck", selfcheck, "harness", harness);
}

/* Runs sel[from..n) and reports on fd.  Returns the exit status: 0 when
 * every case was reported, EXIT_SKIP without a device, EXIT_CONTEXT_LOST
 * after a case that lost the context, EXIT_NO_VERDICT if it cannot start. */
int cts_run_worker(const struct run_opts *o, const struct cts_case **sel, size_t n)
{
    FILE *ev = fdopen(o->worker_fd, "w");
    if (!ev)
        return cts_die(EXIT_NO_VERDICT, "worker: cannot write to descriptor %d", o->worker_fd);
    int rc = cts_run_find_device(o->device);
    if (rc)
        return rc;
    char err[512];
    if (o->sched) { /* before anything creates the context, so that it is created with it */
        cudaError_t serr = cudaSetDevice(o->device);
        if (serr == cudaSuccess)
            serr = cudaSetDeviceFlags(cts_run_schedules[o->sched].flag);
        if (serr != cudaSuccess)
            return cts_die(EXIT_NO_VERDICT, "cannot set the schedule %s: %s",
                           cts_run_schedules[o->sched].name, cudaGetErrorName(serr));
    }
    json_t *env = cts_env_collect(o->device, err, sizeof err);
    struct cts_engine *e = calloc(1, sizeof *e);
    struct cts_result *res = calloc(1, sizeof *res);
    if (!env || !e || !res)
        return cts_die(EXIT_NO_VERDICT, "cannot read the environment: %s", env ? "out of memory" : err);
    emit(ev, json_pack("{s:s,s:o}", "event", "env", "environment", env));
    if (cts_engine_init(e, o->device))
        fprintf(stderr, "sync-cts: harness set-up failed, every case is BROKEN: %s\n", e->broken);
    else if (e->unmeasurable[0] && o->worker_from == 0)
        fprintf(stderr, "sync-cts: every case is NOTSUPP: %s\n", e->unmeasurable);
    emit(ev, harness_json(e));

    struct cts_idle idle = {0};
    char idle_key[CTS_ID_MAX] = "", why[CTS_REASON_MAX];
    for (size_t i = (size_t)o->worker_from; i < n; i++) {
        const struct cts_case *cs = sel[i];
        emit(ev, json_pack("{s:s,s:s}", "event", "begin", "id", cs->id));
        /* Cases differing only in busy placement share one idle measurement. */
        const char *dot = strrchr(cs->id, '.');
        size_t klen = (size_t)(dot - cs->id);
        if (strncmp(idle_key, cs->id, klen) || idle_key[klen] != '\0') {
            snprintf(idle_key, sizeof idle_key, "%.*s", (int)klen, cs->id);
            if (!e->broken[0])
                cts_engine_idle(e, cs, &idle);
        }
        cts_engine_run_case(e, cs, &idle, o->repeat, res);
        int lost = !e->broken[0] && context_lost(why, sizeof why);
        if (lost) {
            res->status = CTS_CRASH;
            snprintf(res->reason, sizeof res->reason, "%s", why);
        }
        emit(ev, json_pack("{s:s,s:s,s:o}", "event", "result", "id", cs->id, "case", cts_case_json(cs, res)));
        if (lost)
            _exit(EXIT_CONTEXT_LOST); /* nothing of this context can be trusted, its clean-up neither */
    }
    cts_engine_fini(e);
    emit(ev, json_pack("{s:s}", "event", "done"));
    fclose(ev);
    free(res);
    free(e);
    return 0;
}

/* --split-groups DIR: each CTest group's cases as a matrix of its own,
 * DIR/<group>.json, with the run's environment and header, so that each
 * group's test reads a small file (tests/gpu-tests.cmake.in).  Written after
 * the whole matrix; 0, or -1 with err. */
static int split_groups(const json_t *matrix, const char *dir, char *err, size_t len)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, len, "--split-groups: '%s' is not a directory", dir);
        return -1;
    }
    json_t *byg = json_object();
    const char *id;
    json_t *cj;
    json_object_foreach(json_object_get(matrix, "cases"), id, cj)
    {
        const char *g = json_string_value(json_object_get(cj, "group"));
        json_t *set = json_object_get(byg, g ? g : "");
        if (!set)
            json_object_set_new(byg, g ? g : "", set = json_object());
        json_object_set(set, id, cj);
    }
    int rc = 0;
    const char *g;
    json_t *set;
    json_object_foreach(byg, g, set)
    {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.json", dir, g);
        json_t *m = cts_matrix_new(json_incref(json_object_get(matrix, "environment")),
                                   json_incref(json_object_get(matrix, "run")), json_incref(set));
        struct cts_outfile f;
        if (rc == 0 && cts_outfile_open(&f, path, err, len) == 0) {
            if (cts_matrix_dump(m, f.f)) {
                cts_outfile_abort(&f);
                snprintf(err, len, "cannot write '%.400s'", path);
                rc = -1;
            } else if (cts_outfile_commit(&f, err, len)) {
                rc = -1;
            }
        } else {
            rc = -1;
        }
        json_decref(m);
    }
    json_decref(byg);
    return rc;
}

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
    if (o->family) {
        argv[a++] = "--family";
        argv[a++] = (char *)o->family;
    }
    if (o->group) {
        argv[a++] = "--group";
        argv[a++] = (char *)o->group;
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

struct supervisor {
    const struct run_opts *o;
    const struct cts_case **sel;
    size_t n, next;
    struct cts_log log;
    int log_open;
    json_t *env, *start, *cases, *groups;
    size_t count[CTS_STATUS_COUNT];
    char group[CTS_ID_MAX];
    double t_group;
    size_t group_cases, group_pass;
};

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

/* A case with no report from the worker: CRASH (or BROKEN) with why. */
static void record_lost(struct supervisor *s, enum cts_status st, const char *why)
{
    struct cts_result *res = calloc(1, sizeof *res);
    if (!res)
        abort();
    res->status = st;
    snprintf(res->reason, sizeof res->reason, "%s", why);
    record(s, cts_case_json(s->sel[s->next], res));
    free(res);
}

/* One worker, from s->next on.  Returns 0 when it reported every case,
 * 1 when another worker should go on, or an exit status to stop with. */
int cts_run_supervise_one(struct supervisor *s)
{
    int rfd;
    size_t first = s->next;
    pid_t pid = spawn_worker(s->o, s->next, &rfd);
    if (pid < 0)
        return cts_die(EXIT_NO_VERDICT, "cannot start a worker process: %s", strerror(errno));
    struct reader rd = {.fd = rfd};
    char *line = NULL;
    int in_case = 0, done = 0, bad = 0, hung = 0, got, limit_s = CASE_LIMIT_S;
    const char *test_limit = getenv("CTS_TEST_CASE_LIMIT_S"); /* tests/run.sh only */
    if (test_limit && cts_parse_int(test_limit, 1, CASE_LIMIT_S, &limit_s))
        limit_s = CASE_LIMIT_S;
    while (!done && !bad && (got = read_line(&rd, &line, limit_s)) != 0) {
        if (got < 0) {
            hung = 1;
            kill(pid, SIGKILL);
            break;
        }
        json_t *j = json_loads(line, 0, NULL);
        const char *ev = json_string_value(json_object_get(j, "event"));
        const char *id = json_string_value(json_object_get(j, "id"));
        if (!ev) {
            bad = 1; /* a torn last line: the worker died while writing it */
        } else if (!strcmp(ev, "env")) {
            if (!s->env) {
                s->env = json_incref(json_object_get(j, "environment"));
                if (!s->log_open) {
                    char err[512];
                    if (cts_log_open(&s->log, s->o->logpath, err, sizeof err) == 0)
                        s->log_open = 1;
                    else
                        fprintf(stderr, "sync-cts: %s\n", err);
                    cts_log_event(&s->log, "run", NULL,
                                  json_pack("{s:I,s:s,s:i,s:s}", "cases", (json_int_t)s->n, "selection",
                                            s->o->glob ? s->o->glob : "*", "repeat", s->o->repeat,
                                            "revision", CTS_REVISION));
                }
            }
        } else if (!strcmp(ev, "start")) {
            if (!s->start)
                s->start = json_incref(j);
        } else if (!strcmp(ev, "begin") && id && s->next < s->n && !strcmp(id, s->sel[s->next]->id)) {
            char g[CTS_ID_MAX];
            cts_case_group(s->sel[s->next], g, sizeof g);
            if (strcmp(g, s->group))
                cts_run_group_line(s, g);
            cts_log_event(&s->log, "begin", id, NULL);
            in_case = 1;
        } else if (!strcmp(ev, "result") && in_case && id && !strcmp(id, s->sel[s->next]->id) &&
                   json_is_object(json_object_get(j, "case"))) {
            record(s, json_incref(json_object_get(j, "case")));
            in_case = 0;
        } else if (!strcmp(ev, "done")) {
            done = 1;
        } else {
            bad = 1;
        }
        json_decref(j);
    }
    free(rd.buf);
    close(rfd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
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
        fprintf(stderr, "sync-cts: CRASH %s: hung\n", s->sel[s->next - 1]->id);
        return 1;
    }
    if (in_case) {
        snprintf(why, sizeof why, "the process running this case %s; the run went on in a fresh "
                                  "process", how);
        record_lost(s, CTS_CRASH, why);
        fprintf(stderr, "sync-cts: CRASH %s: %s\n", s->sel[s->next - 1]->id, how);
        return 1;
    }
    if (code == EXIT_CONTEXT_LOST && s->next > first)
        return 1; /* it reported the case that lost the context as CRASH */
    if (s->next > first)
        return 1; /* it died between cases: go on */
    /* It died before its first case: the harness cannot start here. */
    snprintf(why, sizeof why, "harness: the worker process %s before its first case", how);
    fprintf(stderr, "sync-cts: %s\n", why);
    while (s->next < s->n)
        record_lost(s, CTS_BROKEN, why);
    return 0;
}

static int parse_run_opts(int argc, char **argv, struct run_opts *o)
{
    static const struct option opts[] = {
        {"repeat", required_argument, NULL, 'r'}, {"out", required_argument, NULL, 'o'},
        {"log", required_argument, NULL, 'l'},    {"device", required_argument, NULL, 'd'},
        {"family", required_argument, NULL, 'f'}, {"schedule", required_argument, NULL, 's'},
        {"group", required_argument, NULL, 'G'}, {"waivers", required_argument, NULL, 'w'},
        {"baseline", required_argument, NULL, 'b'}, {"split-groups", required_argument, NULL, 'S'},
        /* internal: the supervisor starts workers so */
        {"worker-from", required_argument, NULL, 'W'}, {"worker-fd", required_argument, NULL, 'F'},
        {0}};
    int c, v;
    memset(o, 0, sizeof *o);
    o->repeat = 2;
    o->out = "matrix.json";
    o->worker_from = -1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (cts_parse_int(optarg, 1, CTS_MAX_REPEAT, &o->repeat))
                return cts_die(EXIT_USAGE, "--repeat wants a whole number from 1 to %d, not '%s'",
                               CTS_MAX_REPEAT, optarg);
            break;
        case 'd':
            if (cts_parse_int(optarg, 0, 1023, &o->device))
                return cts_die(EXIT_USAGE, "--device wants a device index, not '%s'", optarg);
            break;
        case 'o': o->out = optarg; break;
        case 'f': o->family = optarg; break;
        case 'G': o->group = optarg; break;
        case 'l': o->logpath = optarg; break;
        case 'w': o->waivers = optarg; break;
        case 'b': o->baseline = optarg; break;
        case 'S': o->split = optarg; break;
        case 'W':
            if (cts_parse_int(optarg, 0, 1 << 30, &v))
                return cts_die(EXIT_USAGE, "--worker-from wants a case index, not '%s'", optarg);
            o->worker_from = v;
            break;
        case 'F':
            if (cts_parse_int(optarg, 3, 1023, &o->worker_fd))
                return cts_die(EXIT_USAGE, "--worker-fd wants a descriptor from 3 up, not '%s'", optarg);
            break;
        case 's':
            for (o->sched = 0; o->sched < 4 && strcmp(optarg, cts_run_schedules[o->sched].name); o->sched++)
                ;
            if (o->sched == 4)
                return cts_die(EXIT_USAGE, "--schedule wants auto, spin, yield or blocking-sync, not '%s'",
                               optarg);
            break;
        default:
            return cts_bad_option(c, argv);
        }
    }
    if ((o->worker_from >= 0) != (o->worker_fd > 0))
        return cts_die(EXIT_USAGE, "--worker-from and --worker-fd go together (they are internal)");
    if (!strcmp(o->out, "-"))
        return cts_die(EXIT_USAGE, "--out - : run writes a matrix, its Markdown and a log beside it, "
                                   "so it needs a file name");
    return 0;
}

int cts_cmd_run(int argc, char **argv)
{
    struct run_opts o;
    int rc = parse_run_opts(argc, argv, &o);
    if (rc)
        return rc;
    const struct cts_case **sel;
    size_t n;
    if ((rc = cts_select_cases(argc, argv, o.family, o.group, &o.glob, &sel, &n)))
        return rc;
    if (o.worker_from >= 0) {
        if ((size_t)o.worker_from > n)
            return cts_die(EXIT_USAGE, "--worker-from %ld is past the %zu selected cases", o.worker_from, n);
        return cts_run_worker(&o, sel, n); /* exits with the process; no clean-up needed */
    }

    /* Every input is read and every output opened before anything runs;
     * none appears unless the run completes. */
    char err[512], mdpath[4200], logbuf[4200];
    cts_derive_path(mdpath, sizeof mdpath, o.out, ".md");
    if (!o.logpath) {
        cts_derive_path(logbuf, sizeof logbuf, o.out, ".log");
        o.logpath = logbuf;
    }
    if (strcmp(o.out, mdpath) == 0 || strcmp(o.out, o.logpath) == 0 || strcmp(mdpath, o.logpath) == 0) {
        free(sel);
        return cts_die(EXIT_USAGE, "--out and --log name the same file '%s'", o.logpath);
    }
    { /* no output may be an input (run --baseline B --out B would overwrite the baseline) */
        const char *inputs[2];
        size_t ni = 0;
        if (o.baseline)
            inputs[ni++] = o.baseline;
        if (o.waivers)
            inputs[ni++] = o.waivers;
        const char *outs[3] = {o.out, mdpath, o.logpath};
        for (int k = 0; k < 3; k++)
            if (cts_output_check(outs[k], inputs, ni, err, sizeof err)) {
                free(sel);
                return cts_die(EXIT_USAGE, "%s", err);
            }
    }
    json_t *waivers = NULL, *baseline = NULL;
    if (o.waivers && !(waivers = cts_waivers_load(o.waivers, err, sizeof err))) {
        free(sel);
        return cts_die(EXIT_USAGE, "%s", err);
    }
    if (o.baseline && !(baseline = cts_matrix_load(o.baseline, err, sizeof err))) {
        json_decref(waivers);
        free(sel);
        return cts_die(EXIT_USAGE, "%s", err);
    }
    struct cts_outfile jf, mf;
    if (cts_outfile_open(&jf, o.out, err, sizeof err)) {
        free(sel);
        return cts_die(EXIT_USAGE, "%s", err);
    }
    if (cts_outfile_open(&mf, mdpath, err, sizeof err)) {
        cts_outfile_abort(&jf);
        free(sel);
        return cts_die(EXIT_USAGE, "%s", err);
    }
    struct stat dst;
    if (o.split && (stat(o.split, &dst) != 0 || !S_ISDIR(dst.st_mode))) {
        cts_outfile_abort(&jf);
        cts_outfile_abort(&mf);
        free(sel);
        return cts_die(EXIT_USAGE, "--split-groups: '%s' is not a directory", o.split);
    }
    if (!writable(o.logpath)) { /* the log is streamed, so it is probed rather than staged */
        cts_outfile_abort(&jf);
        cts_outfile_abort(&mf);
        free(sel);
        return cts_die(EXIT_USAGE, "cannot write '%s'", o.logpath);
    }

    double t_start = cts_now_us();
    char date[32];
    iso_date(date, sizeof date);
    struct supervisor s = {.o = &o, .sel = sel, .n = n, .cases = json_object(), .groups = json_object()};
    while (s.next < n && (rc = cts_run_supervise_one(&s)) == 1)
        ;
    if (rc > 1 || !s.env) { /* skipped (77), or the harness could not start */
        cts_outfile_abort(&jf);
        cts_outfile_abort(&mf);
        if (s.log_open)
            cts_log_close(&s.log);
        free(sel);
        return rc > 1 ? rc : EXIT_NO_VERDICT;
    }
    cts_run_group_line(&s, NULL);

    double wall_s = (cts_now_us() - t_start) / 1e6;
    json_t *counts = json_object();
    for (int st = 0; st < CTS_STATUS_COUNT; st++)
        json_object_set_new(counts, cts_status_name(st), json_integer((json_int_t)s.count[st]));
    json_t *run = json_pack("{s:s,s:f,s:i,s:s,s:s?,s:I,s:o,s:O,s:O,s:o,s:f}", "date", date, "wall_s",
                            round(wall_s * 10) / 10, "repeat", o.repeat, "selection",
                            o.glob ? o.glob : "*", "family", o.family, "cases", (json_int_t)n, "counts",
                            counts, "selfcheck", json_object_get(s.start, "selfcheck"), "harness",
                            json_object_get(s.start, "harness"), "groups", s.groups,
                            "cases_per_second", round(n / wall_s * 10) / 10);
    json_t *matrix = cts_matrix_new(s.env, run, s.cases);
    json_decref(s.start);
    cts_log_event(&s.log, "done", NULL, json_pack("{s:f}", "wall_s", wall_s));
    cts_log_close(&s.log);

    int werr = (cts_ends_with(o.out, ".gz") ? cts_matrix_dump_gz(matrix, jf.f) : cts_matrix_dump(matrix, jf.f)) ||
               cts_render_markdown(matrix, mf.f);
    if (werr || cts_outfile_commit(&jf, err, sizeof err) || cts_outfile_commit(&mf, err, sizeof err)) {
        cts_outfile_abort(&jf);
        cts_outfile_abort(&mf);
        json_decref(matrix);
        free(sel);
        return cts_die(EXIT_NO_VERDICT, "%s", werr ? "cannot render the matrix" : err);
    }

    if (o.split && split_groups(matrix, o.split, err, sizeof err)) {
        json_decref(matrix);
        free(sel);
        return cts_die(EXIT_NO_VERDICT, "%s", err);
    }
    printf("%zu cases in %.1f s (%.0f cases/s):", n, wall_s, n / wall_s);
    for (int st = 0; st < CTS_STATUS_COUNT; st++)
        if (s.count[st])
            printf(" %zu %s", s.count[st], cts_status_name(st));
    printf("\nwrote %s, %s, %s\n", o.out, mdpath, o.logpath);
    int shown = 0;
    const char *id;
    json_t *cj;
    json_object_foreach(s.cases, id, cj)
    {
        const char *st = json_string_value(json_object_get(cj, "status"));
        if (strcmp(st, "PASS") && strcmp(st, "NOTSUPP") && strcmp(st, "VARIES") && shown++ < 20)
            printf("  %s %s: %s\n", st, id, json_string_value(json_object_get(cj, "reason")));
    }
    int failing = 0;
    if (waivers || baseline) { /* deviations and, against a baseline, changed verdicts */
        failing = cts_check(matrix, waivers, baseline, stdout, err, sizeof err);
        if (failing < 0)
            fprintf(stderr, "sync-cts: %s\n", err);
    }
    json_decref(matrix);
    json_decref(waivers);
    json_decref(baseline);
    free(sel);
    if (s.count[CTS_BROKEN] || s.count[CTS_TIMEOUT] || s.count[CTS_INCONCLUSIVE] || s.count[CTS_CRASH])
        return EXIT_NO_VERDICT;
    if (failing < 0)
        return EXIT_USAGE;
    return s.count[CTS_FAIL] || failing ? EXIT_FAILED : EXIT_VERDICTS;
}

/* ---- log ----------------------------------------------------------------------- */

/* Reads a run's streamed log: what each case came to, and where the process died. */
int cts_cmd_log(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-')
        return cts_die(EXIT_USAGE, argc < 2 ? "log wants a log file" : "log takes one log file, not '%s'",
                   argc < 2 ? "" : argv[argc - 1]);
    char err[512];
    json_t *crashes = NULL, *scan = cts_log_scan(argv[1], &crashes, err, sizeof err);
    if (!scan)
        return cts_die(EXIT_USAGE, "%s", err);
    size_t count[CTS_STATUS_COUNT] = {0};
    const char *id;
    json_t *st;
    json_object_foreach(scan, id, st)
    {
        int s = cts_status_parse(json_string_value(st));
        if (s >= 0)
            count[s]++;
        if (s == CTS_CRASH)
            printf("CRASH %s: %s\n", id, json_string_value(json_object_get(crashes, id)));
    }
    printf("%zu cases:", json_object_size(scan));
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        if (count[s])
            printf(" %zu %s", count[s], cts_status_name(s));
    printf("\n");
    json_decref(scan);
    json_decref(crashes);
    return count[CTS_CRASH] ? EXIT_NO_VERDICT : 0;
}

/* ---- render ---------------------------------------------------------------------- */
