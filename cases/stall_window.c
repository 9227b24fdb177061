/* The stall family's window (cases/stall.c says what the family measures and
 * why): its resources, made once; the second thread beside the call
 * (harness/families/second.c); the control, a try and a repetition. */
#define _GNU_SOURCE
#include "stall.h"
#include "../harness/engine/engine.h" /* TRACK_FRACTION */
#include "../harness/families/kernels.h"
#include "../harness/core/latch.h"
#include "../harness/families/second.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char cts_module_image[];
extern const size_t cts_module_image_size;

/* The second thread's command (made with its device current: the peer's for ON_PEER). */
static cudaError_t command(int w)
{
    switch (w) {
    case WITH_LAUNCH: return cts_launch_sleep(stall_d.second, 0);
    case WITH_MEMCPY:
        return cudaMemcpyAsync(stall_d.dev[1], stall_d.pinned[1], cts_size_bytes(SMALL), cudaMemcpyHostToDevice, stall_d.second);
    case WITH_PEER_LAUNCH: return cts_launch_sleep(stall_d.second_peer, 0);
    case WITH_PEER_MEMCPY:
        return cudaMemcpyAsync(stall_d.peer_dev, stall_d.pinned[1], cts_size_bytes(SMALL), cudaMemcpyHostToDevice, stall_d.second_peer);
    default: return cudaEventRecord(stall_d.second_event, stall_d.second);
    }
}

static cudaStream_t second_stream(int w) { return ON_PEER(w) ? stall_d.second_peer : stall_d.second; }

/* The other device's stream and memory for the second thread, and its commands' first use there. */
static cudaError_t setup_peer(void)
{
    int count = 0;
    TRY(cudaGetDeviceCount(&count));
    stall_d.peer = count > 1 ? (stall_d.device + 1) % count : -1;
    if (stall_d.peer < 0)
        return cudaSuccess;
    TRY(cudaSetDevice(stall_d.peer));
    TRY(cudaStreamCreateWithFlags(&stall_d.second_peer, cudaStreamNonBlocking));
    TRY(cudaMalloc(&stall_d.peer_dev, cts_size_bytes(SMALL)));
    TRY(command(WITH_PEER_LAUNCH));
    TRY(command(WITH_PEER_MEMCPY));
    TRY(cudaStreamSynchronize(stall_d.second_peer));
    return cudaSetDevice(stall_d.device);
}

static cudaError_t setup_resources(void)
{
    TRY(cudaGetDevice(&stall_d.device));
    TRY(cudaStreamCreateWithFlags(&stall_d.own, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&stall_d.held, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&stall_d.second, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++) {
        TRY(cudaMalloc(&stall_d.dev[i], cts_size_bytes(SMALL)));
        TRY(cudaMallocHost(&stall_d.pinned[i], cts_size_bytes(SMALL)));
        TRY(cudaMemset(stall_d.dev[i], 0, cts_size_bytes(SMALL)));
        memset(stall_d.pinned[i], 0, cts_size_bytes(SMALL));
    }
    if (!(stall_d.pageable = calloc(1, cts_size_bytes(SMALL)))) {
        stall_failed_at = "calloc";
        return cudaErrorMemoryAllocation;
    }
    TRY(cudaMalloc((void **)&stall_d.word, sizeof *stall_d.word));
    for (int i = 0; i < 2; i++) {
        TRY(cudaMalloc(&stall_d.big_dev[i], cts_size_bytes(LARGE)));
        TRY(cudaMemset(stall_d.big_dev[i], 0, cts_size_bytes(LARGE)));
    }
    if (!(stall_d.big_pageable = calloc(1, cts_size_bytes(LARGE)))) {
        stall_failed_at = "calloc";
        return cudaErrorMemoryAllocation;
    }
    if (!(stall_d.image = malloc(cts_module_image_size))) {
        stall_failed_at = "malloc";
        return cudaErrorMemoryAllocation;
    }
    memcpy(stall_d.image, cts_module_image, cts_module_image_size);
    TRY(cudaEventCreateWithFlags(&stall_d.behind, cudaEventDisableTiming));
    TRY(cudaEventCreateWithFlags(&stall_d.second_event, cudaEventDisableTiming));
    TRY(cudaEventRecord(stall_d.behind, stall_d.held));
    for (int w = 0; w < NWITHS; w++)
        if (!ON_PEER(w))
            TRY(command(w));
    cudaError_t perr = setup_peer();
    if (perr != cudaSuccess)
        return perr;
    TRY(cts_launch_sleep(stall_d.own, 0));
    return cudaDeviceSynchronize();
}

/* Once: the resources, the gate, and every call made with the device idle
 * (not the first launch: each takes a kernel of its own, and launching is
 * warm already). */
static int setup(void)
{
    if (stall_d.ready)
        return stall_d.why[0] ? -1 : 0;
    stall_d.ready = 1;
    cudaError_t err = setup_resources();
    for (size_t k = 0; err == cudaSuccess && k < stall_ncalls(); k++) {
        const struct stall_call *x = stall_call_at(k);
        struct cts_scratch s;
        char why[CTS_REASON_MAX];
        struct cts_case probe = {.api = x ? x->api : CTS_API_FAULT, .with = stall_withs[0]};
        if (!x || x->api == CTS_API_LAUNCH || (x->lent ? stall_lent_needs(x->lent, why, sizeof why) : stall_needs(&probe, why, sizeof why)))
            continue;
        if ((err = stall_prepare(x, &s)) == cudaSuccess && (err = stall_issue(x, &s)) != cudaSuccess)
            stall_failed_at = cts_api_function(x->api);
        if (err == cudaSuccess)
            err = cudaDeviceSynchronize();
        if (err == cudaSuccess)
            err = stall_cleanup(x, &s);
    }
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(stall_d.why, sizeof stall_d.why, "harness: the stall family's set-up: %s returned %s", stall_failed_at,
                 cudaGetErrorName(err));
        return -1;
    }
    return cts_sg_init(&stall_d.g, stall_d.why, sizeof stall_d.why);
}

/* ---- the second thread (harness/families/second.c) ------------------------------ */

static cudaError_t command_of(void *w) { return command(*(const int *)w); }

/* Starts the second thread making `with` (on its device), run LEAD_US: 0, or -1 with why. */
static struct cts_second win; /* one window at a time (big: in static storage) */
static int win_with;
static int start_second(int with, char *why, size_t len)
{
    win_with = with;
    return cts_second_start(&win, ON_PEER(with) ? stall_d.peer : stall_d.device, command_of, &win_with, PACE_US, LEAD_US, why,
                            len);
}

/* Drains, then joins the second thread; 0, or -1/-2 with why (cts_sg_drain), or
 * -1 where the second thread's command failed. */
static int finish(cudaStream_t held, char *why, size_t len)
{
    int bad = cts_sg_drain(&stall_d.g, held, stall_d.own, why, len);
    cudaError_t werr = cts_second_join(&win);
    cudaError_t err = cudaStreamSynchronize(second_stream(win_with));
    if (!bad && (werr != cudaSuccess || err != cudaSuccess)) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: the second thread's %s returned %s", stall_withs[win_with],
                 cudaGetErrorName(werr != cudaSuccess ? werr : err));
        return -1;
    }
    return bad;
}

/* The control: the same hold, the second thread CONTROL_US long, no call.
 * Its slowest and median command (their own times) into *slowest, *median:
 * 0; -1 with why (the harness failed); 1 with why (it proves nothing: the
 * second thread was not out of a command in time, or timed too few: a loaded
 * host; measured again); 2 with why (likewise: it was kept from a processor). */
static int control(const struct stall_call *x, int with, double *slowest, double *median, char *why, size_t len)
{
    cudaStream_t held = stall_held_stream(x);
    if (cts_sg_hold(&stall_d.g, held, why, len))
        return -1;
    if (start_second(with, why, len)) {
        (void)cts_sg_drain(&stall_d.g, held, NULL, why, len);
        return -1;
    }
    double t0 = cts_now_us(), t1;
    while ((t1 = cts_now_us()) - t0 < CONTROL_US && !atomic_load(&win.left))
        cts_second_nap(); /* this thread asleep, as it is not in a call: it keeps its turn for the call */
    int left = cts_second_stop(&win, EXIT_LIMIT_US);
    int bad = finish(held, why, len);
    if (bad)
        return -1;
    if (!left) {
        snprintf(why, len, "the control's command still inside %.0f ms after it was over", EXIT_LIMIT_US / 1e3);
        return 1;
    }
    static double t[CTS_SECOND_MAX];
    double kept;
    size_t n = cts_stall_control(win.cmd, cts_second_made(&win), t0, t1, t, slowest, median, &kept);
    if (n < MIN_CONTROL) {
        snprintf(why, len, "the control timed only %zu commands in %.0f ms", n, CONTROL_US / 1e3);
        return 1;
    }
    if (kept > CTS_STALL_KEPT_US) {
        snprintf(why, len, "the control's second thread waited %.0f us at once for a processor", kept);
        return 2;
    }
    return 0;
}

/* One try of the call with the second thread beside it. */
struct stall_try {
    struct cts_beside_try t;   /* returned, early, call_us (cts_beside_decide) */
    struct cts_stall_obs obs;  /* cts_stall_decide's */
    int stuck;                 /* a command of the second thread was still inside TAIL_US after a call that
                                * returned, the gate closed */
    double after_us;           /* where the call waited: from the opening to its return */
};

/* 0; -1 with why (the harness); -2 (TIMEOUT); 1 with why (the call failed: FAIL). */
static int try_call(const struct stall_call *x, int with, double stall_us, double control_us, struct stall_try *f,
                    char *why, size_t len)
{
    memset(f, 0, sizeof *f);
    struct cts_scratch s;
    cudaStream_t held = stall_held_stream(x);
    cudaError_t err = stall_prepare(x, &s);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: preparing the call: %s returned %s", stall_failed_at, cudaGetErrorName(err));
        return -1;
    }
    if (cts_sg_hold(&stall_d.g, held, why, len)) {
        (void)stall_cleanup(x, &s);
        return -1;
    }
    if ((x->api == CTS_API_EVENT_SYNCHRONIZE && (err = cudaEventRecord(stall_d.behind, held)) != cudaSuccess) ||
        start_second(with, why, len)) {
        if (err != cudaSuccess)
            snprintf(why, len, "harness: recording the event behind the held work returned %s",
                     cudaGetErrorName(err));
        (void)cts_sg_drain(&stall_d.g, held, NULL, why, len);
        (void)stall_cleanup(x, &s);
        return -1;
    }
    cts_sg_arm(&stall_d.g, stall_us);
    double rd0 = cts_run_delay_us();
    cts_second_kick(&win); /* its command begins as the call does (a wake-up takes microseconds) */
    double t0 = cts_now_us();
    cudaError_t cerr = stall_issue(x, &s);
    double t1 = cts_now_us();
    double caller_delay = cts_run_delay_us() - rd0;
    f->t.returned = cerr == cudaSuccess && cts_sg_returned_closed(&stall_d.g);
    double rel = cts_sg_released_us(&stall_d.g);
    f->t.early = !f->t.returned && (isnan(rel) || t1 < rel);
    f->t.filled = f->t.full = 1; /* nothing to fill here: cts_beside_decide reads returned and the times */
    f->t.call_us = t1 - t0;
    f->after_us = f->t.returned ? NAN : t1 - rel;
    if (f->t.returned)
        while (cts_now_us() - t1 < TAIL_US)
            cts_second_nap();
    f->stuck = !cts_second_stop(&win, EXIT_LIMIT_US) && f->t.returned && cts_sg_closed(&stall_d.g);
    int bad = finish(held, why, len);
    cudaError_t cl = stall_cleanup(x, &s);
    if (bad)
        return bad;
    if (cerr != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "%s returned %s", cts_api_function(x->api), stall_call_error ? stall_call_error : cudaGetErrorName(cerr));
        return 1;
    }
    if (cl != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: cleaning up after the call: %s returned %s", stall_failed_at, cudaGetErrorName(cl));
        return -1;
    }
    /* A call that waited is judged while it waited, up to the release: a command
     * begun after the release met the call waking up, not waiting (the H100 at
     * 37a734b: an event record begun as cudaDeviceSynchronize woke took tens of us
     * in every try, at either hold, and the case was INCONCLUSIVE). */
    double end = !f->t.returned && !f->t.early && !isnan(rel) ? rel : t1;
    cts_stall_decide(win.cmd, cts_second_made(&win), t0, end, control_us, end == t1 ? caller_delay : 0,
                     &f->obs);
    f->obs.control_us = control_us;
    f->obs.tracked_us = f->obs.stall_us = f->obs.tracked_stall_us = NAN; /* a wait's, where tracked */
    return 0;
}

/* ---- one repetition ------------------------------------------------------------- */

/* A note of a try that proved nothing, for the reason of an INCONCLUSIVE. */
static void note(char *seen, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(char *seen, size_t len, const char *fmt, ...)
{
    size_t n = strlen(seen);
    if (n + 2 >= len)
        return;
    if (n)
        n += (size_t)snprintf(seen + n, len - n, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(seen + n, len - n, fmt, ap);
    va_end(ap);
}

/* What a repetition's tries have seen so far. */
struct rep_state {
    char seen[200];   /* notes of the tries that proved nothing, for INCONCLUSIVE's reason */
    double stall;     /* the stall time: made longer after a wait that did not follow it (a long call) */
    int brief, kept;  /* tries made again, not counted: nothing inside the call; a thread kept from a processor */
    int kept_max;     /* ... at most (KEPT_TRIES_OF the call) */
};
enum step { STEP_DONE, STEP_AGAIN, STEP_FAILED }; /* a verdict or a status; a try not counted; a failed try */

static enum cts_status bad_status(int bad) { return bad > 0 ? CTS_FAIL : bad == -2 ? CTS_TIMEOUT : CTS_BROKEN; }

/* A call that waited, proven (a) and tracked (b) with the longer stall time: its evidence. */
static void keep_tracked(struct cts_rep *r, const struct stall_try *a, const struct stall_try *b, double stall)
{
    r->call_us = b->t.call_us;
    r->timeout_us = stall * STALL_FACTOR;
    r->release_to_return_us = b->after_us;
    r->tracked_from_timeout_us = stall;
    r->tracked_from_call_us = a->t.call_us;
    r->stall = a->obs;
    r->stall.tracked_us = b->obs.stalled_us;
    r->stall.stall_us = stall;
    r->stall.tracked_stall_us = stall * STALL_FACTOR;
}

/* A try that proved nothing: made again uncounted where a thread was kept
 * from a processor (up to kept_max), else noted, and the stall time made
 * longer where the call's time did not follow the release. */
static enum step proved_nothing(struct rep_state *st, const struct stall_try *a, const struct stall_try *b,
                                enum cts_host h)
{
    int starved = a->obs.verdict == CTS_STALL_NA || (h == CTS_HOST_WAITS && b->obs.verdict == CTS_STALL_NA);
    if (starved && ++st->kept < st->kept_max)
        return STEP_AGAIN;
    note(st->seen, sizeof st->seen, "%s at %.0f ms%s",
         a->stuck        ? "a command still inside after the call"
         : a->t.returned ? "returned"
         : a->t.early    ? "returned before the watchdog opened the gate"
                         : "waited",
         st->stall / 1e3, h == CTS_HOST_WAITS ? ", the stall not tracked" : "");
    if (starved)
        note(st->seen, sizeof st->seen, "a thread waited %.0f us for a processor (kept_us)",
             fmax(a->obs.kept_us, h == CTS_HOST_WAITS ? b->obs.kept_us : 0));
    else if (h == CTS_HOST_WAITS)
        note(st->seen, sizeof st->seen, "stalled %.0f us, then %.0f us", a->obs.stalled_us, b->obs.stalled_us);
    if (!a->stuck && !a->t.returned && !a->t.early && h != CTS_HOST_WAITS)
        st->stall *= STALL_FACTOR; /* its time did not follow the release: a call longer than the stall time */
    return STEP_FAILED;
}

/* One try: the control, the call beside the second thread, and where the call
 * waited, the call again with the longer stall time. */
static enum step one_try(const struct stall_call *x, int with, struct rep_state *st, struct cts_rep *r)
{
    double slowest, median;
    struct stall_try a, b = {0};
    int ctl = control(x, with, &slowest, &median, r->reason, sizeof r->reason);
    if (ctl < 0) {
        r->status = CTS_BROKEN;
        return STEP_DONE;
    }
    if (ctl > 0) { /* proves nothing: another try (one that does not count, if the host was busy) */
        int again = ctl == 2 && ++st->kept < st->kept_max;
        if (!again)
            note(st->seen, sizeof st->seen, "%.80s", r->reason);
        r->reason[0] = '\0';
        return again ? STEP_AGAIN : STEP_FAILED;
    }
    int bad = try_call(x, with, st->stall, slowest, &a, r->reason, sizeof r->reason);
    if (bad) {
        r->status = bad_status(bad);
        return STEP_DONE;
    }
    r->timeout_us = st->stall;
    int again;
    enum cts_host h = a.stuck ? CTS_HOST_NA : cts_beside_decide(&a.t, NULL, GROW(st->stall), TRACK_FRACTION, &again);
    enum cts_stall v = CTS_STALL_NA;
    if (h == CTS_HOST_RETURNS && ((a.obs.verdict == CTS_STALL_BRIEF && ++st->brief < BRIEF_TRIES) ||
                                  (a.obs.verdict == CTS_STALL_NA && ++st->kept < st->kept_max)))
        return STEP_AGAIN; /* nothing fitted inside the call, or a thread was kept from a processor */
    if (h == CTS_HOST_RETURNS) {
        v = a.obs.verdict;
        r->call_us = a.t.call_us;
        r->stall = a.obs;
    } else if (!a.stuck && again) { /* waited: tracked with a longer stall */
        if ((bad = try_call(x, with, st->stall * STALL_FACTOR, slowest, &b, r->reason, sizeof r->reason))) {
            r->status = bad_status(bad);
            return STEP_DONE;
        }
        h = cts_beside_decide(&a.t, &b.t, GROW(st->stall), TRACK_FRACTION, &again);
        v = h == CTS_HOST_WAITS ? cts_stall_tracked(&a.obs, &b.obs, GROW(st->stall), TRACK_FRACTION) : CTS_STALL_NA;
        if (v != CTS_STALL_NA)
            keep_tracked(r, &a, &b, st->stall);
    }
    if (v == CTS_STALL_NA)
        return proved_nothing(st, &a, &b, h);
    r->host = h;
    r->stall.verdict = v;
    r->stall.control_median_us = median;
    return STEP_DONE;
}

static void rep_stall(const struct stall_call *x, int with, struct cts_rep *r, struct cts_result *res)
{
    struct rep_state st = {.stall = STALL_US, .kept_max = KEPT_TRIES_OF(x)};
    for (int t = 0; t < TRIES;) {
        enum step s = one_try(x, with, &st, r);
        if (s == STEP_DONE)
            return;
        res->window_retries++;
        t += s == STEP_FAILED;
    }
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason, "no try proved the call and the second thread, %d tries: %s", TRIES,
             st.seen);
}

void stall_measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    int w = stall_with_index(c);
    if (w < 0 || setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", w < 0 ? "harness: not a stall case" : stall_d.why);
        return;
    }
    const struct stall_call *x = stall_call_of(c);
    if (!x) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "harness: no such stall call");
        return;
    }
    double slice = cts_thread_slice_us(); /* the calling thread's, given back after */
    (void)cts_thread_slice(CALLER_SLICE_US);
    for (struct cts_rep *r; (r = cts_rep_next(res, repeat));)
        rep_stall(x, w, r, res);
    if (!isnan(slice))
        (void)cts_thread_slice(slice);
    cts_classify_measured(res, STALL_US); /* the repetitions' median call time stands in for an idle one */
}
