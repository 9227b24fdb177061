/* sync-cts list, env and log: the case table, the environment and a run's
 * log (run is run.c); and the device discovery env and the worker share. */
#define _GNU_SOURCE
#include "run_int.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- list -------------------------------------------------------------------- */

int cts_cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {
        {"groups", no_argument, NULL, 'g'}, {"family", required_argument, NULL, 'f'},
        {"group", required_argument, NULL, 'G'}, {"devices", required_argument, NULL, 'D'}, {0}};
    int groups = 0, devices = 0, c, rc;
    const char *glob, *family = NULL, *group_name = NULL;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'g')
            groups = 1;
        else if (c == 'f')
            family = optarg;
        else if (c == 'G')
            group_name = optarg;
        else if (c == 'D' && (rc = cts_parse_devices(optarg, &devices)))
            return rc;
        else if (c != 'D')
            return cts_bad_option(c, argv);
    }
    const struct cts_case **sel;
    size_t n;
    if ((rc = cts_select_cases(argc, argv, family, group_name, devices, &glob, &sel, &n)))
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
