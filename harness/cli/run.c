/* sync-cts run: its options, and the command (what it checks and opens
 * before anything runs, the matrix and its Markdown, the summary).  The
 * supervisor is supervisor.c, the worker worker.c. */
#define _GNU_SOURCE
#include "run_int.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

const struct cts_run_schedule cts_run_schedules[] = {{"auto", cudaDeviceScheduleAuto},
                                                     {"spin", cudaDeviceScheduleSpin},
                                                     {"yield", cudaDeviceScheduleYield},
                                                     {"blocking-sync", cudaDeviceScheduleBlockingSync}};

/* Whether a file can be made in dir: a temporary one made and removed. */
static int dir_writable(const char *dir, char *err, size_t len)
{
    char probe[4200];
    if (snprintf(probe, sizeof probe, "%s/.sync-cts-probe.XXXXXX", dir) >= (int)sizeof probe) {
        snprintf(err, len, "--split-groups: '%.60s...': path too long", dir);
        return 0;
    }
    int fd = mkstemp(probe);
    if (fd < 0) {
        snprintf(err, len, "--split-groups: cannot write into '%s': %s", dir, strerror(errno));
        return 0;
    }
    close(fd);
    unlink(probe);
    return 1;
}

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

/* --repeat, --device, --worker-from and --worker-fd (getopt_long's c): 0,
 * or an exit status with the error said. */
static int number_opt(struct run_opts *o, int c)
{
    int v;
    switch (c) {
    case 'r':
        if (cts_parse_int(optarg, 1, CTS_MAX_REPEAT, &o->repeat))
            return cts_die(EXIT_USAGE, "--repeat wants a whole number from 1 to %d, not '%s'", CTS_MAX_REPEAT,
                           optarg);
        return 0;
    case 'd':
        if (cts_parse_int(optarg, 0, 1023, &o->device))
            return cts_die(EXIT_USAGE, "--device wants a device index, not '%s'", optarg);
        return 0;
    case 'W':
        if (cts_parse_int(optarg, 0, 1 << 30, &v))
            return cts_die(EXIT_USAGE, "--worker-from wants a case index, not '%s'", optarg);
        o->worker_from = v;
        return 0;
    default: /* 'F' */
        if (cts_parse_int(optarg, 3, 1023, &o->worker_fd))
            return cts_die(EXIT_USAGE, "--worker-fd wants a descriptor from 3 up, not '%s'", optarg);
        return 0;
    }
}

/* --schedule and --hold: a name of their lists. */
static int named_opt(struct run_opts *o, int c)
{
    if (c == 's') {
        for (o->sched = 0; o->sched < 4 && strcmp(optarg, cts_run_schedules[o->sched].name); o->sched++)
            ;
        if (o->sched == 4)
            return cts_die(EXIT_USAGE, "--schedule wants auto, spin, yield or blocking-sync, not '%s'", optarg);
        return 0;
    }
    for (o->hold = 0; o->hold < CTS_HOLD_COUNT && strcmp(optarg, cts_hold_names[o->hold]); o->hold++)
        ;
    if (o->hold == CTS_HOLD_COUNT)
        return cts_die(EXIT_USAGE, "--hold wants kernel or wait-value, not '%s'", optarg);
    return 0;
}

/* One option (getopt_long's c): 0, or an exit status with the error said. */
static int run_opt(struct run_opts *o, int c, char **argv)
{
    switch (c) {
    case 'r': case 'd': case 'W': case 'F': return number_opt(o, c);
    case 's': case 'H': return named_opt(o, c);
    case 'D': return cts_parse_devices(optarg, &o->devices);
    case 'o': o->out = optarg; return 0;
    case 'f': o->family = optarg; return 0;
    case 'G': o->group = optarg; return 0;
    case 'l': o->logpath = optarg; return 0;
    case 'w': o->waivers = optarg; return 0;
    case 'b': o->baseline = optarg; return 0;
    case 'S': o->split = optarg; return 0;
    default: return cts_bad_option(c, argv);
    }
}

static int parse_run_opts(int argc, char **argv, struct run_opts *o)
{
    static const struct option opts[] = {
        {"repeat", required_argument, NULL, 'r'}, {"out", required_argument, NULL, 'o'},
        {"log", required_argument, NULL, 'l'},    {"device", required_argument, NULL, 'd'},
        {"family", required_argument, NULL, 'f'}, {"schedule", required_argument, NULL, 's'},
        {"group", required_argument, NULL, 'G'}, {"waivers", required_argument, NULL, 'w'},
        {"baseline", required_argument, NULL, 'b'}, {"split-groups", required_argument, NULL, 'S'},
        {"hold", required_argument, NULL, 'H'}, {"devices", required_argument, NULL, 'D'},
        /* internal: the supervisor starts workers so */
        {"worker-from", required_argument, NULL, 'W'}, {"worker-fd", required_argument, NULL, 'F'},
        {0}};
    int c, rc;
    memset(o, 0, sizeof *o);
    o->repeat = 2;
    o->out = "matrix.json";
    o->worker_from = -1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1)
        if ((rc = run_opt(o, c, argv)))
            return rc;
    if ((o->worker_from >= 0) != (o->worker_fd > 0))
        return cts_die(EXIT_USAGE, "--worker-from and --worker-fd go together (they are internal)");
    if (!strcmp(o->out, "-"))
        return cts_die(EXIT_USAGE, "--out - : run writes a matrix, its Markdown and a log beside it, "
                                   "so it needs a file name");
    return 0;
}

/* What run reads and writes besides its options: the paths, the inputs
 * to check the matrix against, the outputs' temporary files. */
struct run_files {
    char err[512], mdpath[4200], logbuf[4200];
    json_t *waivers, *baseline;
    struct cts_outfile jf, mf;
};

/* For cts_cmd_run: the paths derived, the inputs read and the outputs
 * opened.  0, or (sel freed, the error printed) the exit status. */
/* open_outputs refusing: what it opened and read let go, sel freed, f->err
 * said; exit 2. */
static int refuse(struct run_files *f, const struct cts_case **sel)
{
    cts_outfile_abort(&f->jf);
    cts_outfile_abort(&f->mf);
    json_decref(f->waivers);
    json_decref(f->baseline);
    free(sel);
    return cts_die(EXIT_USAGE, "%s", f->err);
}

static int open_outputs(struct run_opts *o, const struct cts_case **sel, struct run_files *f)
{
    /* Every input is read and every output opened before anything runs;
     * none appears unless the run completes. */
    memset(&f->jf, 0, sizeof f->jf);
    memset(&f->mf, 0, sizeof f->mf);
    f->waivers = f->baseline = NULL;
    cts_derive_path(f->mdpath, sizeof f->mdpath, o->out, ".md");
    if (!o->logpath) {
        cts_derive_path(f->logbuf, sizeof f->logbuf, o->out, ".log");
        o->logpath = f->logbuf;
    }
    /* As files, not as strings: ./m.json and m.json, a link and its file. */
    const char *same = cts_same_file(o->out, o->logpath) ? o->out
                       : cts_same_file(f->mdpath, o->logpath) ? f->mdpath
                       : cts_same_file(o->out, f->mdpath) ? o->out : NULL;
    if (same) {
        snprintf(f->err, sizeof f->err, "--out '%.100s', its Markdown '%.100s' and --log '%.100s' must be "
                                        "three files: '%.100s' is two of them",
                 o->out, f->mdpath, o->logpath, same);
        return refuse(f, sel);
    }
    { /* no output may be an input (run --baseline B --out B would overwrite the baseline) */
        const char *inputs[2];
        size_t ni = 0;
        if (o->baseline)
            inputs[ni++] = o->baseline;
        if (o->waivers)
            inputs[ni++] = o->waivers;
        const char *outs[3] = {o->out, f->mdpath, o->logpath};
        for (int k = 0; k < 3; k++)
            if (cts_output_check(outs[k], inputs, ni, f->err, sizeof f->err))
                return refuse(f, sel);
    }
    if ((o->waivers && !(f->waivers = cts_waivers_load(o->waivers, f->err, sizeof f->err))) ||
        (o->baseline && !(f->baseline = cts_matrix_load(o->baseline, f->err, sizeof f->err))) ||
        cts_outfile_open(&f->jf, o->out, f->err, sizeof f->err) ||
        cts_outfile_open(&f->mf, f->mdpath, f->err, sizeof f->err))
        return refuse(f, sel);
    struct stat dst;
    if (o->split && (stat(o->split, &dst) != 0 || !S_ISDIR(dst.st_mode))) {
        snprintf(f->err, sizeof f->err, "--split-groups: '%.400s' is not a directory", o->split);
        return refuse(f, sel);
    }
    if (o->split && !dir_writable(o->split, f->err, sizeof f->err))
        return refuse(f, sel);
    if (!writable(o->logpath)) { /* the log is streamed, so it is probed rather than staged */
        snprintf(f->err, sizeof f->err, "cannot write '%.400s'", o->logpath);
        return refuse(f, sel);
    }
    return 0;
}

/* For cts_cmd_run, once every case is recorded: the matrix (its run
 * section from s and o), the log's last event. */
/* The host's load, as the kernel's one-minute load average says (NAN where
 * it does not). */
static double load_1min(void)
{
    double l[1];
    return getloadavg(l, 1) == 1 ? l[0] : NAN;
}

/* How busy the host was: its processors and the load average at the run's
 * start and end (busy loops beside the suite show here, and a verdict that
 * moved under load can be read against it). */
static json_t *host_load(double at_start)
{
    double at_end = load_1min();
    json_t *o = json_pack("{s:I}", "processors", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN));
    if (!isnan(at_start))
        json_object_set_new(o, "loadavg_1min_start", json_real(round(at_start * 100) / 100));
    if (!isnan(at_end))
        json_object_set_new(o, "loadavg_1min_end", json_real(round(at_end * 100) / 100));
    return o;
}

/* What the supervisor holds until run_matrix hands it to the matrix: released
 * where the run stops before that. */
static void supervisor_release(struct supervisor *s)
{
    json_decref(s->env);
    json_decref(s->start);
    json_decref(s->cases);
    json_decref(s->groups);
    s->env = s->start = s->cases = s->groups = NULL;
}

static json_t *run_matrix(struct supervisor *s, const struct run_opts *o, size_t n, const char *date,
                          double wall_s, double load_at_start)
{
    json_t *counts = json_object();
    for (int st = 0; st < CTS_STATUS_COUNT; st++)
        json_object_set_new(counts, cts_status_name(st), json_integer((json_int_t)s->count[st]));
    json_t *run = json_pack("{s:s,s:f,s:i,s:s,s:s?,s:I,s:o,s:O,s:O,s:o,s:f}", "date", date, "wall_s",
                            round(wall_s * 10) / 10, "repeat", o->repeat, "selection",
                            o->glob ? o->glob : "*", "family", o->family, "cases", (json_int_t)n, "counts",
                            counts, "selfcheck", json_object_get(s->start, "selfcheck"), "harness",
                            json_object_get(s->start, "harness"), "groups", s->groups,
                            "cases_per_second", round(n / wall_s * 10) / 10);
    json_object_set_new(run, "host_load", host_load(load_at_start));
    if (o->devices) /* the cases that need so many devices (run --devices) */
        json_object_set_new(run, "devices", json_integer(o->devices));
    json_t *matrix = cts_matrix_new(s->env, run, s->cases);
    json_decref(s->start);
    cts_log_event(&s->log, "done", NULL, json_pack("{s:f}", "wall_s", wall_s));
    return matrix;
}

/* For cts_cmd_run, once the outputs are written: the counts, the paths,
 * and the first 20 cases with no verdict. */
static void print_summary(const struct supervisor *s, const struct run_opts *o, const char *mdpath, size_t n,
                          double wall_s)
{
    printf("%zu cases in %.1f s (%.0f cases/s):", n, wall_s, n / wall_s);
    for (int st = 0; st < CTS_STATUS_COUNT; st++)
        if (s->count[st])
            printf(" %zu %s", s->count[st], cts_status_name(st));
    printf("\nwrote %s, %s, %s\n", o->out, mdpath, o->logpath);
    int shown = 0;
    const char *id;
    json_t *cj;
    json_object_foreach(s->cases, id, cj)
    {
        const char *st = json_string_value(json_object_get(cj, "status"));
        if (strcmp(st, "PASS") && strcmp(st, "NOTSUPP") && strcmp(st, "VARIES") && shown++ < 20)
            printf("  %s %s: %s\n", st, id, json_string_value(json_object_get(cj, "reason")));
    }
}

/* A run whose outputs cannot all be written: none stays (the matrix and
 * its Markdown were temporary files; the streamed log is removed where it
 * is a file), the inputs are freed and f->err printed. */
static int run_failed(struct supervisor *s, const struct run_opts *o, struct run_files *f,
                      const struct cts_case **sel, int code)
{
    cts_outfile_abort(&f->jf);
    cts_outfile_abort(&f->mf);
    (void)cts_log_close(&s->log);
    struct stat st;
    if (lstat(o->logpath, &st) == 0 && S_ISREG(st.st_mode))
        unlink(o->logpath);
    json_decref(f->waivers);
    json_decref(f->baseline);
    free(sel);
    return cts_die(code, "%s", f->err);
}

/* The log's write error, into err: the exit status. */
static int log_error(const struct run_opts *o, const struct supervisor *s, char *err, size_t len)
{
    snprintf(err, len, "cannot write '%s': %s", o->logpath, strerror(s->log.err ? s->log.err : EIO));
    return EXIT_USAGE;
}

/* A run that measured nothing (skipped, 77; or the harness could not start):
 * nothing is written. */
static int run_abandoned(struct supervisor *s, struct run_files *f, const struct cts_case **sel, int rc)
{
    cts_outfile_abort(&f->jf);
    cts_outfile_abort(&f->mf);
    if (s->log_open)
        (void)cts_log_close(&s->log);
    supervisor_release(s);
    json_decref(f->waivers);
    json_decref(f->baseline);
    free(sel);
    return rc > 1 ? rc : EXIT_NO_VERDICT;
}

/* The matrix and its Markdown written and committed, the log closed, the
 * groups split out: 0, or the exit status (everything released then but
 * the matrix, which the caller frees). */
static int write_outputs(struct supervisor *s, const struct run_opts *o, struct run_files *f,
                         const struct cts_case **sel, const json_t *matrix)
{
    int werr = (cts_ends_with(o->out, ".gz") ? cts_matrix_dump_gz(matrix, f->jf.f)
                                             : cts_matrix_dump(matrix, f->jf.f)) ||
               cts_render_markdown(matrix, f->mf.f);
    int unwritable = werr && (ferror(f->jf.f) || ferror(f->mf.f));
    if (werr) {
        snprintf(f->err, sizeof f->err, unwritable ? "cannot write '%s' or '%s': %s" : "cannot render the matrix",
                 o->out, f->mdpath, strerror(errno ? errno : EIO));
        return run_failed(s, o, f, sel, unwritable ? EXIT_USAGE : EXIT_NO_VERDICT);
    }
    if (cts_log_close(&s->log))
        return run_failed(s, o, f, sel, log_error(o, s, f->err, sizeof f->err));
    if (cts_outfile_commit(&f->jf, f->err, sizeof f->err) || cts_outfile_commit(&f->mf, f->err, sizeof f->err))
        return run_failed(s, o, f, sel, EXIT_USAGE);
    if (o->split && split_groups(matrix, o->split, f->err, sizeof f->err)) {
        json_decref(f->waivers);
        json_decref(f->baseline);
        free(sel);
        return cts_die(EXIT_USAGE, "%s", f->err);
    }
    return 0;
}

/* The run's exit status, after `check` of the matrix where waivers or a
 * baseline were given (deviations and, against a baseline, changed verdicts). */
static int run_status(const struct supervisor *s, struct run_files *f, const json_t *matrix)
{
    int failing = 0;
    if (f->waivers || f->baseline) {
        failing = cts_check(matrix, f->waivers, f->baseline, NULL, stdout, f->err, sizeof f->err);
        if (failing < 0)
            cts_warn("%s", f->err);
    }
    if (s->count[CTS_BROKEN] || s->count[CTS_TIMEOUT] || s->count[CTS_INCONCLUSIVE] || s->count[CTS_CRASH])
        return EXIT_NO_VERDICT;
    if (failing < 0)
        return EXIT_USAGE;
    return s->count[CTS_FAIL] || failing ? EXIT_FAILED : EXIT_VERDICTS;
}

int cts_cmd_run(int argc, char **argv)
{
    struct run_opts o;
    int rc = parse_run_opts(argc, argv, &o);
    if (rc)
        return rc;
    const struct cts_case **sel;
    size_t n;
    if ((rc = cts_select_cases(argc, argv, o.family, o.group, o.devices, &o.glob, &sel, &n)))
        return rc;
    if (o.worker_from >= 0) {
        if ((size_t)o.worker_from > n)
            rc = cts_die(EXIT_USAGE, "--worker-from %ld is past the %zu selected cases", o.worker_from, n);
        else
            rc = cts_run_worker(&o, sel, n);
        free(sel);
        return rc;
    }

    struct run_files f;
    if ((rc = open_outputs(&o, sel, &f)))
        return rc;

    double t_start = cts_now_us(), load_at_start = load_1min();
    char date[32];
    iso_date(date, sizeof date);
    struct supervisor s = {.o = &o, .sel = sel, .n = n, .cases = json_object(), .groups = json_object()};
    while (s.next < n && !s.log.err && (rc = cts_run_supervise_one(&s)) == 1)
        ;
    if (s.log.err) { /* the log cannot be written (a full disk, /dev/full): nothing else is */
        supervisor_release(&s);
        return run_failed(&s, &o, &f, sel, log_error(&o, &s, f.err, sizeof f.err));
    }
    if (rc > 1 || !s.env) /* skipped (77), or the harness could not start */
        return run_abandoned(&s, &f, sel, rc);
    cts_run_group_line(&s, NULL);

    double wall_s = (cts_now_us() - t_start) / 1e6;
    json_t *matrix = run_matrix(&s, &o, n, date, wall_s, load_at_start);
    if ((rc = write_outputs(&s, &o, &f, sel, matrix))) {
        json_decref(matrix);
        return rc;
    }
    print_summary(&s, &o, f.mdpath, n, wall_s);
    rc = run_status(&s, &f, matrix);
    json_decref(matrix);
    json_decref(f.waivers);
    json_decref(f.baseline);
    free(sel);
    return rc;
}
