/* sync-cts run's worker: the selected cases from the K-th on, in one CUDA
 * context, each reported as a JSON line on a pipe (run.c describes the
 * two processes). */
#define _GNU_SOURCE
#include "run_int.h"
#include "family.h"

#include <dlfcn.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* ---- the worker ---- */

static void emit(FILE *f, json_t *j)
{
    json_dumpf(j, f, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
    fputc('\n', f);
    fflush(f);
    json_decref(j);
}

/* A case's stages (cts_case_stage), each a line before the step it names:
 * the supervisor names the last in a CRASH. */
static FILE *stage_ev;
static const char *stage_id;
static void stage_sink(const char *stage)
{
    if (stage_ev && stage_id)
        emit(stage_ev, json_pack("{s:s,s:s,s:s}", "event", "stage", "id", stage_id, "stage", stage));
}

/* Where a case's process faulted: a SIGSEGV, SIGBUS, SIGILL or SIGFPE names
 * the object its faulting instruction lies in and the offset there (dladdr),
 * one line to the supervisor, which puts it in the CRASH's reason ("the
 * fault in libcuda.so.1+0x..."), then dies of the signal as it would have.
 * The process is past saving: the line is formatted in a buffer made ready
 * beforehand as far as it can be, and written with write(2). */
static int fault_fd = -1;
static char fault_id[CTS_ID_MAX];

static void *fault_pc(void *ucv)
{
    ucontext_t *uc = ucv;
#if defined(__x86_64__)
    return (void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (void *)uc->uc_mcontext.pc;
#else
    (void)uc;
    return NULL;
#endif
}

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
    (void)si;
    void *pc = fault_pc(ucv);
    Dl_info d;
    if (fault_fd >= 0 && fault_id[0] && pc && dladdr(pc, &d) && d.dli_fname) {
        char name[128], line[CTS_ID_MAX + 256];
        const char *base = strrchr(d.dli_fname, '/');
        size_t k = 0;
        for (base = base ? base + 1 : d.dli_fname; *base && k < sizeof name - 1; base++)
            name[k++] = (*base == '"' || *base == '\\' || (unsigned char)*base < 0x20) ? '_' : *base;
        name[k] = '\0';
        int n = snprintf(line, sizeof line, "{\"event\":\"fault\",\"id\":\"%s\",\"in\":\"%s+0x%lx\"}\n", fault_id,
                         name, (unsigned long)((const char *)pc - (const char *)d.dli_fbase));
        if (n > 0 && (size_t)n < sizeof line)
            (void)!write(fault_fd, line, (size_t)n);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_faults(int fd)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    fault_fd = fd;
    const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        (void)sigaction(sigs[i], &sa, NULL);
}

/* The errors that "leave the process in an inconsistent state" (the
 * runtime's reference): every later call returns them. */
static int sticky(cudaError_t e)
{
    switch (e) {
#if CUDART_VERSION >= 12080 /* not in the older runtimes' headers */
    case cudaErrorContained:
#endif
    case cudaErrorIllegalAddress: case cudaErrorLaunchTimeout:
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
    json_object_set_new(harness, "hold", json_string(cts_hold_names[e->hold]));
    json_object_set_new(harness, "watchdog_realtime", json_boolean(atomic_load(&e->latch.realtime)));
    return json_pack("{s:s,s:o,s:o}", "event", "start", "selfcheck", selfcheck, "harness", harness);
}

/* Runs sel[from..n) and reports on fd.  Returns the exit status: 0 when
 * every case was reported, EXIT_SKIP without a device, EXIT_CONTEXT_LOST
 * after a case that lost the context, EXIT_NO_VERDICT if it cannot start. */
/* A case its family measures itself (cts_family.measure). */
static void measure_own(const struct cts_engine *e, const struct cts_case *c, int repeat,
                        struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    if (e->broken[0]) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", e->broken);
        return;
    }
    if (cts_need_runtime(c, res->reason, sizeof res->reason) ||
        (c->family->needs && c->family->needs(c, res->reason, sizeof res->reason))) {
        res->status = CTS_NOTSUPP;
        return;
    }
    c->family->measure(c, repeat, res);
}

/* The run's --schedule, set before anything creates the context, so that it is created with
 * it: 0, or the exit status (said why). */
static int set_schedule(const struct run_opts *o)
{
    if (!o->sched)
        return 0;
    cudaError_t serr = cudaSetDevice(o->device);
    if (serr == cudaSuccess)
        serr = cudaSetDeviceFlags(cts_run_schedules[o->sched].flag);
    if (serr != cudaSuccess)
        return cts_die(EXIT_NO_VERDICT, "cannot set the schedule %s: %s", cts_run_schedules[o->sched].name,
                       cudaGetErrorName(serr));
    return 0;
}

/* One case measured into res: by its family, or by the engine.  Cases differing only in busy
 * placement share one idle measurement (idle, made for the id idle_key without its last
 * segment), but not a NOTSUPP: a family's needs() may ask about the placement (a call that
 * needs its held work behind the legacy stream: not where that work is on a non-blocking
 * stream), and the first case's reason is not the next's; cts_engine_run_case asks each
 * case's own. */
static void measure_case(struct cts_engine *e, const struct cts_case *cs, struct cts_idle *idle,
                         char idle_key[CTS_ID_MAX], int repeat, struct cts_result *res)
{
    if (cs->family->measure) {
        measure_own(e, cs, repeat, res);
        return;
    }
    const char *dot = strrchr(cs->id, '.');
    size_t klen = (size_t)(dot - cs->id);
    if (strncmp(idle_key, cs->id, klen) || idle_key[klen] != '\0' || idle->status == CTS_NOTSUPP) {
        snprintf(idle_key, CTS_ID_MAX, "%.*s", (int)klen, cs->id);
        if (!e->broken[0])
            cts_engine_idle(e, cs, idle);
    }
    cts_engine_run_case(e, cs, idle, repeat, res);
}

int cts_run_worker(const struct run_opts *o, const struct cts_case **sel, size_t n)
{
    FILE *ev = fdopen(o->worker_fd, "w");
    if (!ev)
        return cts_die(EXIT_NO_VERDICT, "worker: cannot write to descriptor %d", o->worker_fd);
    catch_faults(o->worker_fd);
    double t0 = cts_now_us();
    int rc = cts_run_find_device(o->device);
    if (rc)
        return rc;
    double found = cts_now_us();
    char err[512];
    if ((rc = set_schedule(o)))
        return rc;
    cts_hold_selected = (enum cts_hold)o->hold;
    /* The run's environment is the first worker's (the supervisor keeps that one): a worker
     * started after a crash, from a later case, does not read it again (NVML, the devices). */
    int first = o->worker_from == 0;
    json_t *env = first ? cts_env_collect(o->device, err, sizeof err) : NULL;
    struct cts_engine *e = calloc(1, sizeof *e);
    struct cts_result *res = calloc(1, sizeof *res);
    if ((first && !env) || !e || !res) {
        rc = cts_die(EXIT_NO_VERDICT, "cannot read the environment: %s", env || !first ? "out of memory" : err);
        json_decref(env);
        free(res);
        free(e);
        return rc;
    }
    if (env)
        emit(ev, json_pack("{s:s,s:o}", "event", "env", "environment", env));
    double env_done = cts_now_us();
    if (cts_engine_init(e, o->device))
        fprintf(stderr, "sync-cts: harness set-up failed, every case is BROKEN: %s\n", e->broken);
    else if (e->unmeasurable[0] && first)
        fprintf(stderr, "sync-cts: every case is NOTSUPP: %s\n", e->unmeasurable);
    emit(ev, harness_json(e));
    cts_engine_trace_start(e, (size_t)o->worker_from, t0, found, env_done);

    struct cts_idle idle = {0};
    char idle_key[CTS_ID_MAX] = "", why[CTS_REASON_MAX];
    for (size_t i = (size_t)o->worker_from; i < n; i++) {
        const struct cts_case *cs = sel[i];
        double w0 = cts_now_us(); /* the case's trace line: all of it, from its begin to its result */
        emit(ev, json_pack("{s:s,s:s}", "event", "begin", "id", cs->id));
        stage_ev = ev, stage_id = cs->id, cts_case_stage_sink = stage_sink;
        snprintf(fault_id, sizeof fault_id, "%s", cs->id);
        cts_peer_need(cs, o->device); /* a second process, only while its cases run */
        measure_case(e, cs, &idle, idle_key, o->repeat, res);
        int lost = !e->broken[0] && context_lost(why, sizeof why);
        if (lost) {
            res->status = CTS_CRASH;
            snprintf(res->reason, sizeof res->reason, "%s", why);
        }
        stage_id = NULL;
        fault_id[0] = '\0';
        emit(ev, json_pack("{s:s,s:s,s:o}", "event", "result", "id", cs->id, "case", cts_case_json(cs, res)));
        cts_engine_trace_case(cs, res->status, cs->family->measure != NULL, cts_now_us() - w0);
        if (lost)
            _exit(EXIT_CONTEXT_LOST); /* nothing of this context can be trusted, its clean-up neither */
    }
    cts_peer_stop();
    cts_engine_fini(e);
    emit(ev, json_pack("{s:s}", "event", "done"));
    fclose(ev);
    free(res);
    free(e);
    return 0;
}
