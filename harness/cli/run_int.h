/* sync-cts list, env, run and log: the sub-commands that declare, measure
 * and account for cases (the others, which read matrices, are in main.c).
 *
 * What their files share.  They are split by job:
 *   info.c        list, env and log, and the device discovery env and the
 *                 worker share
 *   run.c         run's options and the command: the outputs checked and
 *                 opened, the matrix, its Markdown and the summary
 *   supervisor.c  the supervisor: the worker processes, the log, CRASH
 *   worker.c      the worker: the selected cases in one CUDA context
 */
#ifndef CTS_RUN_INT_H
#define CTS_RUN_INT_H

#include "cli.h"
#include "cts.h"
#include "engine.h"
#include "peer.h"
#include "report.h"
#include "spec.h"

#include <stddef.h>
#include <sys/types.h>

enum { EXIT_CONTEXT_LOST = 4 }; /* a worker's own: it stopped after a case that lost the context */

struct cts_run_schedule {
    const char *name;
    unsigned flag;
};
extern const struct cts_run_schedule cts_run_schedules[];

struct run_opts {
    int repeat, device, sched, hold; /* hold: enum cts_hold */
    int devices; /* 0: any; 1 or 2: only the cases that need so many (cts_case_devices) */
    const char *out, *logpath, *glob, *family, *group, *waivers, *baseline, *split;
    long worker_from; /* -1: the supervisor */
    int worker_fd;
};

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
    char stage[256]; /* the case's last stage the worker reported (cts_case_stage), "" none */
    char fault[160]; /* where its process faulted ("libcuda.so.1+0x..."), "" not known */
    pid_t heir;      /* the worker started, while its predecessor's end was reaped, for */
    int heir_fd;     /* the cases from heir_from on (its report pipe); 0: none */
    size_t heir_from;
    double heir_at;  /* when it was started (CTS_TRACE's worker lines) */
};

/* The functions the files call across (each is described where it is defined). */
int cts_run_find_device(int dev);
int cts_run_worker(const struct run_opts *o, const struct cts_case **sel, size_t n);
void cts_run_group_line(struct supervisor *s, const char *next_group);
int cts_run_supervise_one(struct supervisor *s);

#endif
