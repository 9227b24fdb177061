/* sync-cts list, env, run and log: the sub-commands that declare, measure
 * and account for cases (the others, which read matrices, are in main.c). */
#define _GNU_SOURCE
#include "cli.h"
#include "cts.h"
#include "engine.h"
#include "report.h"
#include "spec.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cts_revision.h"

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
static int find_device(int dev)
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
    if ((rc = find_device(dev)))
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

int cts_cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"repeat", required_argument, NULL, 'r'}, {"out", required_argument, NULL, 'o'},
        {"log", required_argument, NULL, 'l'},    {"device", required_argument, NULL, 'd'},
        {"family", required_argument, NULL, 'f'}, {"schedule", required_argument, NULL, 's'},
        {"group", required_argument, NULL, 'G'}, {"waivers", required_argument, NULL, 'w'},
        {"baseline", required_argument, NULL, 'b'}, {0}};
    static const struct {
        const char *name;
        unsigned flag;
    } schedules[] = {{"auto", cudaDeviceScheduleAuto},
                     {"spin", cudaDeviceScheduleSpin},
                     {"yield", cudaDeviceScheduleYield},
                     {"blocking-sync", cudaDeviceScheduleBlockingSync}};
    int repeat = 3, dev = 0, c, rc, sched = 0;
    const char *out = "matrix.json", *logpath = NULL, *glob, *family = NULL, *group_name = NULL;
    const char *waivers_path = NULL, *baseline_path = NULL;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (cts_parse_int(optarg, 1, CTS_MAX_REPEAT, &repeat))
                return cts_die(EXIT_USAGE, "--repeat wants a whole number from 1 to %d, not '%s'",
                           CTS_MAX_REPEAT, optarg);
            break;
        case 'd':
            if (cts_parse_int(optarg, 0, 1023, &dev))
                return cts_die(EXIT_USAGE, "--device wants a device index, not '%s'", optarg);
            break;
        case 'o': out = optarg; break;
        case 'f': family = optarg; break;
        case 'G': group_name = optarg; break;
        case 'l': logpath = optarg; break;
        case 'w': waivers_path = optarg; break;
        case 'b': baseline_path = optarg; break;
        case 's':
            for (sched = 0; sched < 4 && strcmp(optarg, schedules[sched].name); sched++)
                ;
            if (sched == 4)
                return cts_die(EXIT_USAGE, "--schedule wants auto, spin, yield or blocking-sync, not '%s'",
                           optarg);
            break;
        default:
            return cts_bad_option(c, argv);
        }
    }
    const struct cts_case **sel;
    size_t n;
    if ((rc = cts_select_cases(argc, argv, family, group_name, &glob, &sel, &n)))
        return rc;

    /* Every input is read and every output opened before anything runs;
     * none appears unless the run completes. */
    char err[512], mdpath[4200], logbuf[4200];
    json_t *waivers = NULL, *baseline = NULL;
    if (waivers_path && !(waivers = cts_waivers_load(waivers_path, err, sizeof err))) {
        free(sel);
        return cts_die(EXIT_USAGE, "%s", err);
    }
    if (baseline_path && !(baseline = cts_matrix_load(baseline_path, err, sizeof err))) {
        json_decref(waivers);
        free(sel);
        return cts_die(EXIT_USAGE, "%s", err);
    }
    cts_derive_path(mdpath, sizeof mdpath, out, ".md");
    if (!logpath) {
        cts_derive_path(logbuf, sizeof logbuf, out, ".log");
        logpath = logbuf;
    }
    if (strcmp(out, mdpath) == 0 || strcmp(out, logpath) == 0 || strcmp(mdpath, logpath) == 0) {
        free(sel);
        return cts_die(EXIT_USAGE, "--out and --log name the same file '%s'", logpath);
    }
    struct cts_outfile jf, mf;
    if (cts_outfile_open(&jf, out, err, sizeof err)) {
        free(sel);
        return cts_die(EXIT_USAGE, "%s", err);
    }
    if (cts_outfile_open(&mf, mdpath, err, sizeof err)) {
        cts_outfile_abort(&jf);
        free(sel);
        return cts_die(EXIT_USAGE, "%s", err);
    }
    struct cts_log log = {0};
    if (!writable(logpath)) { /* the log is streamed, so it is probed rather than staged */
        cts_outfile_abort(&jf);
        cts_outfile_abort(&mf);
        free(sel);
        return cts_die(EXIT_USAGE, "cannot write '%s'", logpath);
    }

    if ((rc = find_device(dev))) {
        cts_outfile_abort(&jf);
        cts_outfile_abort(&mf);
        free(sel);
        return rc;
    }
    if (cts_log_open(&log, logpath, err, sizeof err)) {
        cts_outfile_abort(&jf);
        cts_outfile_abort(&mf);
        free(sel);
        return cts_die(EXIT_USAGE, "%s", err);
    }

    double t_start = cts_now_us();
    char date[32];
    iso_date(date, sizeof date);
    if (sched) { /* before anything creates the context, so that it is created with it */
        cudaError_t serr = cudaSetDevice(dev);
        if (serr == cudaSuccess)
            serr = cudaSetDeviceFlags(schedules[sched].flag);
        if (serr != cudaSuccess) {
            cts_outfile_abort(&jf);
            cts_outfile_abort(&mf);
            cts_log_close(&log);
            free(sel);
            return cts_die(EXIT_NO_VERDICT, "cannot set the schedule %s: %s", schedules[sched].name,
                       cudaGetErrorName(serr));
        }
    }
    json_t *env = cts_env_collect(dev, err, sizeof err);
    struct cts_engine *e = calloc(1, sizeof *e);
    if (!env || !e) {
        cts_outfile_abort(&jf);
        cts_outfile_abort(&mf);
        cts_log_close(&log);
        free(sel);
        free(e);
        return cts_die(EXIT_NO_VERDICT, "cannot read the environment: %s", env ? "out of memory" : err);
    }
    if (cts_engine_init(e, dev))
        fprintf(stderr, "sync-cts: harness set-up failed, every case is BROKEN: %s\n", e->broken);
    else if (e->unmeasurable[0])
        fprintf(stderr, "sync-cts: every case is NOTSUPP: %s\n", e->unmeasurable);
    cts_log_event(&log, "run",
                  NULL, json_pack("{s:I,s:s,s:i,s:s}", "cases", (json_int_t)n, "selection",
                                  glob ? glob : "*", "repeat", repeat, "revision", CTS_REVISION));

    json_t *cases = json_object(), *groups = json_object();
    size_t count[CTS_STATUS_COUNT] = {0};
    struct cts_idle idle = {0};
    struct cts_result *res = calloc(1, sizeof *res);
    char idle_key[CTS_ID_MAX] = "", group[CTS_ID_MAX], last_group[CTS_ID_MAX] = "";
    double t_group = cts_now_us();
    size_t group_cases = 0, group_pass = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n)
            cts_case_group(sel[i], group, sizeof group);
        if (i == n || strcmp(group, last_group)) {
            if (last_group[0]) {
                double gs = (cts_now_us() - t_group) / 1e6;
                printf("%-34s %5zu cases, %5zu with a verdict, %6.1f s\n", last_group, group_cases,
                       group_pass, gs);
                json_object_set_new(groups, last_group,
                                    json_pack("{s:I,s:f}", "cases", (json_int_t)group_cases, "wall_s",
                                              round(gs * 100) / 100));
            }
            fflush(stdout);
            snprintf(last_group, sizeof last_group, "%s", group);
            t_group = cts_now_us();
            group_cases = group_pass = 0;
        }
        if (i == n)
            break;
        const struct cts_case *cs = sel[i];
        /* Cases differing only in busy placement share one idle measurement. */
        const char *dot = strrchr(cs->id, '.');
        size_t klen = (size_t)(dot - cs->id);
        if (strncmp(idle_key, cs->id, klen) || idle_key[klen] != '\0') {
            snprintf(idle_key, sizeof idle_key, "%.*s", (int)klen, cs->id);
            if (!e->broken[0])
                cts_engine_idle(e, cs, &idle);
        }
        cts_log_event(&log, "begin", cs->id, NULL);
        cts_engine_run_case(e, cs, &idle, repeat, res);
        cts_log_event(&log, "result", cs->id,
                      json_pack("{s:s,s:s,s:s}", "status", cts_status_name(res->status), "reason",
                                res->reason, "symbol", res->symbol));
        cts_log_event(&log, "end", cs->id, NULL);
        json_object_set_new(cases, cs->id, cts_case_json(cs, res));
        count[res->status]++;
        group_cases++;
        group_pass += res->status == CTS_PASS || res->status == CTS_VARIES;
    }
    cts_engine_fini(e);

    double wall_s = (cts_now_us() - t_start) / 1e6;
    json_t *counts = json_object();
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        json_object_set_new(counts, cts_status_name(s), json_integer((json_int_t)count[s]));
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
    json_t *run = json_pack("{s:s,s:f,s:i,s:s,s:s?,s:I,s:o,s:o,s:o,s:o,s:f}", "date", date, "wall_s",
                            round(wall_s * 10) / 10, "repeat", repeat, "selection",
                            glob ? glob : "*", "family", family, "cases", (json_int_t)n, "counts", counts, "selfcheck",
                            selfcheck, "harness", harness, "groups", groups, "cases_per_second",
                            round(n / wall_s * 10) / 10);
    json_t *matrix = cts_matrix_new(env, run, cases);
    cts_log_event(&log, "done", NULL, json_pack("{s:f}", "wall_s", wall_s));
    cts_log_close(&log);

    int werr = (cts_ends_with(out, ".gz") ? cts_matrix_dump_gz(matrix, jf.f) : cts_matrix_dump(matrix, jf.f)) ||
               cts_render_markdown(matrix, mf.f);
    if (werr || cts_outfile_commit(&jf, err, sizeof err) || cts_outfile_commit(&mf, err, sizeof err)) {
        cts_outfile_abort(&jf);
        cts_outfile_abort(&mf);
        json_decref(matrix);
        free(sel);
        free(res);
        free(e);
        return cts_die(EXIT_NO_VERDICT, "%s", werr ? "cannot render the matrix" : err);
    }

    printf("%zu cases in %.1f s (%.0f cases/s):", n, wall_s, n / wall_s);
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        if (count[s])
            printf(" %zu %s", count[s], cts_status_name(s));
    printf("\nwrote %s, %s, %s\n", out, mdpath, logpath);
    int shown = 0;
    const char *id;
    json_t *cj;
    json_object_foreach(cases, id, cj)
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
    free(res);
    free(e);
    if (count[CTS_BROKEN] || count[CTS_TIMEOUT] || count[CTS_INCONCLUSIVE] || count[CTS_CRASH])
        return EXIT_NO_VERDICT;
    if (failing < 0)
        return EXIT_USAGE;
    return count[CTS_FAIL] || failing ? EXIT_FAILED : EXIT_VERDICTS;
}

/* ---- log ----------------------------------------------------------------------- */

/* Reads a run's streamed log: what each case came to, and where the process died. */
int cts_cmd_log(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-')
        return cts_die(EXIT_USAGE, argc < 2 ? "log wants a log file" : "log takes one log file, not '%s'",
                   argc < 2 ? "" : argv[argc - 1]);
    char err[512];
    json_t *scan = cts_log_scan(argv[1], err, sizeof err);
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
            printf("CRASH %s: the log has its begin and no end\n", id);
    }
    printf("%zu cases:", json_object_size(scan));
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        if (count[s])
            printf(" %zu %s", count[s], cts_status_name(s));
    printf("\n");
    json_decref(scan);
    return count[CTS_CRASH] ? EXIT_NO_VERDICT : 0;
}

/* ---- render ---------------------------------------------------------------------- */
