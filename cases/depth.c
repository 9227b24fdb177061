/* The depth family: how many commands a stream queues behind held work
 * before the next enqueueing call blocks the host, and whether a full queue
 * in one stream blocks enqueueing in another (issue 20; oneflow #890).
 *
 * - queue_depth: the op stream itself is held (busy_same); the call is made
 *   on it again and again, up to SCAN_MAX times (host functions:
 *   SCAN_MAX_HOSTFN).  Its verdict is the number
 *   of calls that returned while the work was held, the one after them
 *   having waited ("D<n>"), or that none waited up to that many
 *   ("D>65536").
 * - queue_full: another non-blocking stream (busy_nonblocking) is held and
 *   filled with kernel launches to its depth (the launch depth of that
 *   stream, scanned once at the family's first use); then the call is made
 *   once on the op stream: does it return (A) or wait (W) while the other
 *   stream's queue is full?  The launch after it on the full stream must then
 *   wait, or the queue was not full and the repetition proves nothing.
 * - queue_full_thread: the same, the filling done by a second host thread,
 *   which is left blocked inside its next launch (the queue full) while this
 *   thread makes the call.
 * Each call: a kernel launch (the suite's sleep kernel, 0 ns), cudaMemcpyAsync
 * of 4 KiB (pinned to device, device to pinned, device to device, pageable
 * to device), cudaMemsetAsync of 4 KiB, cudaEventRecord, cudaStreamWaitEvent
 * (an event already complete), cudaLaunchHostFunc (an empty function) and
 * cudaGraphLaunch (a graph of one sleep-kernel node).
 *
 * Proof.  The held work is the gate kernel, spinning on a flag in mapped
 * pinned memory, which a watchdog thread of this family's own (it makes no
 * CUDA call) opens once no call has returned for the stall time; the gate
 * also ends itself after CTS_SG_BUDGET_NS (harness/families/stallgate.h).  A call that returned while the
 * watchdog had not opened the flag provably did not wait for the held work.
 * A call that returned only after the flag opened is measured again, the
 * whole scan or fill, with a stall time STALL_FACTOR times longer: it waited
 * when its time grew by at least TRACK_FRACTION of the difference (the
 * engine's tracked waits); the first scan's count is the depth, the second's
 * evidence (pageable copies' counts differ by a few from scan to scan).  A
 * gate that ended itself, or a wait that did not follow the stall time,
 * proves nothing: the repetition is measured again, at most TRIES times, then
 * INCONCLUSIVE with what each try saw.
 *
 * The documentation gives no depth: such a call "may block ... for various
 * reasons such as contention for or unavailability of internal resources"
 * (RT-SYNC-ANY).  The depth is RECORDED under that clause; a call that waits
 * beside a full queue in another stream is judged as the call always is (an
 * asynchronous call that waits DEVIATES from its own clause).
 *
 * queue_full and queue_full_thread, a repetition: cases/depth_full.c; the
 * calls, what the family keeps and the gate: cases/depth_keep.c. */
#define _GNU_SOURCE
#include "depth_family.h"
#include "../harness/engine/engine.h" /* TRACK_FRACTION */
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"
#include "../harness/core/latch.h"
#include "../harness/core/spec.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SCAN_MAX 65536           /* calls a scan makes at most ... */
/* ... but host functions 2,048: once a process has attached managed memory to
 * a stream (cudaStreamAttachMemAsync, as the managed family does), queued host
 * functions drain in time that grows with the square of their number (H100,
 * 580.159.04: 20,000 queued behind held work, then released, ran at 2.3 ms
 * each, 60,000 at 23 ms; without an attach 200,000 drained in under a second).
 * A scan of 65,536 after the managed family would take hours. */
#define SCAN_MAX_HOSTFN 2048

static const char *const variants[] = {"queue_depth", "queue_full", "queue_full_thread"};
enum { DEPTH, FULL, FULL_THREAD, NVARIANTS };

static const enum cts_op ops[] = {CTS_OP_LEGACY, CTS_OP_PERTHREAD, CTS_OP_BLOCKING, CTS_OP_NONBLOCKING};
#define NOPS_ (sizeof ops / sizeof *ops)

static int variant_of(const struct cts_case *c)
{
    for (int v = 0; v < NVARIANTS; v++)
        if (c->variant && !strcmp(c->variant, variants[v]))
            return v;
    return -1;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (int v = 0; v < NVARIANTS; v++)
        for (size_t k = 0; k < NCALLS; k++)
            for (size_t o = 0; o < NOPS_; o++, n++) {
                if (!out || n >= cap)
                    continue;
                struct cts_case c = {.family = &cts_family_depth, .api = depth_calls[k].api, .variant = variants[v],
                                     .dir = depth_calls[k].dir, .mem = depth_calls[k].mem, .size_idx = -1,
                                     .kind = CTS_KIND_NONE, .op = ops[o],
                                     .busy = v == DEPTH ? CTS_BUSY_SAME : CTS_BUSY_NONBLOCKING};
                if (c.mem != CTS_MEM_NONE) {
                    c.size_idx = 1;
                    c.size = cts_size_bytes(1);
                }
                if (c.api == CTS_API_MEMCPY_ASYNC)
                    c.kind = CTS_KIND_EXPLICIT;
                cts_case_make_id(&c);
                out[n] = c;
            }
    return out ? (n < cap ? n : cap) : n;
}

/* ---- the set-up (what it keeps: cases/depth_keep.c) -------------------------- */

static const char *failed_at = "";
#define TRY(call) CTS_TRY_AT(failed_at, call)

static cudaError_t make_graph(void)
{
    cudaStream_t s;
    cudaGraph_t g;
    TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    TRY(cts_launch_sleep(s, 0));
    TRY(cudaStreamEndCapture(s, &g));
    TRY(cudaGraphInstantiate(&depth_d.graph, g, 0));
    TRY(cudaGraphDestroy(g));
    TRY(cudaGraphUpload(depth_d.graph, s));
    TRY(cudaStreamSynchronize(s));
    TRY(cudaStreamDestroy(s));
    return cudaSuccess;
}

static cudaError_t setup_resources(void)
{
    TRY(cudaGetDevice(&depth_d.device));
    TRY(cudaStreamCreateWithFlags(&depth_d.blocking, cudaStreamDefault));
    TRY(cudaStreamCreateWithFlags(&depth_d.nonblocking, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&depth_d.full, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++) {
        TRY(cudaMallocHost(&depth_d.pinned[i], BYTES));
        TRY(cudaMalloc(&depth_d.dev[i], BYTES));
        memset(depth_d.pinned[i], 0, BYTES);
    }
    depth_d.pageable = calloc(1, BYTES);
    if (!depth_d.pageable) {
        failed_at = "calloc";
        return cudaErrorMemoryAllocation;
    }
    TRY(cudaEventCreateWithFlags(&depth_d.recorded, cudaEventDisableTiming));
    TRY(cudaEventCreateWithFlags(&depth_d.complete, cudaEventDisableTiming));
    TRY(cudaEventRecord(depth_d.complete, depth_d.nonblocking));
    TRY(cudaEventSynchronize(depth_d.complete));
    return make_graph();
}

static cudaStream_t op_stream(enum cts_op op)
{
    switch (op) {
    case CTS_OP_LEGACY: return cudaStreamLegacy;
    case CTS_OP_PERTHREAD: return cudaStreamPerThread;
    case CTS_OP_BLOCKING: return depth_d.blocking;
    default: return depth_d.nonblocking;
    }
}

static size_t call_index(const struct cts_case *c)
{
    for (size_t k = 0; k < NCALLS; k++)
        if (depth_calls[k].api == c->api && depth_calls[k].dir == c->dir && depth_calls[k].mem == c->mem)
            return k;
    return 0;
}

static long long scan_max(size_t k)
{
    return depth_calls[k].api == CTS_API_LAUNCH_HOST_FUNC ? SCAN_MAX_HOSTFN : SCAN_MAX;
}

/* Once: the resources, the watchdog, every call made on an idle stream, and
 * the full stream's launch depth (a scan: see fill_depth). */
static int fill_depth(char *why, size_t len);
static int setup(void)
{
    if (depth_d.ready)
        return depth_d.why[0] ? -1 : 0;
    depth_d.ready = 1;
    cudaError_t err = setup_resources();
    for (size_t k = 0; err == cudaSuccess && k < NCALLS; k++)
        for (size_t o = 0; err == cudaSuccess && o < NOPS_; o++) {
            failed_at = "warming up a call";
            if ((err = depth_issue(k, op_stream(ops[o]))) == cudaSuccess)
                err = cudaStreamSynchronize(op_stream(ops[o]));
        }
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(depth_d.why, sizeof depth_d.why, "harness: the depth family's set-up: %s returned %s", failed_at,
                 cudaGetErrorName(err));
        return -1;
    }
    if (cts_sg_init(&depth_d.g, depth_d.why, sizeof depth_d.why))
        return -1;
    return fill_depth(depth_d.why, sizeof depth_d.why);
}

/* ---- a scan ------------------------------------------------------------------- */

/* Makes call k on s until one returns after the flag opened, at most max
 * times (the gate already holds s's work).  The error a call returned, with
 * the number of calls before it in s->queued. */
#define SAMPLES 1024
static cudaError_t scan_calls(size_t k, cudaStream_t s, long long max, struct cts_depth_scan *sc)
{
    static double t[SAMPLES];
    size_t nt = 0;
    memset(sc, 0, sizeof *sc);
    for (long long i = 0; i < max; i++) {
        double t0 = cts_now_us();
        cudaError_t err = depth_issue(k, s);
        double t1 = cts_now_us();
        if (err != cudaSuccess)
            return err;
        if (depth_returned_closed()) {
            sc->queued++;
            if (nt < SAMPLES && (i & 63) == 0)
                t[nt++] = t1 - t0;
            continue;
        }
        double rel = cts_sg_released_us(&depth_d.g);
        sc->stopped = 1;
        sc->early = isnan(rel) || t1 < rel;
        sc->blocked_us = t1 - t0;
        sc->after_us = t1 - rel;
        break;
    }
    qsort(t, nt, sizeof *t, cts_cmp_double);
    sc->issue_us = nt ? t[nt / 2] : NAN;
    return cudaSuccess;
}

/* One scan of call k on op stream s with the given stall time: 0, or -1 with
 * why (the harness), -2 (the streams did not drain: TIMEOUT) or 1 with why
 * (the call failed: FAIL). */
static int scan(size_t k, cudaStream_t s, double stall_us, struct cts_depth_scan *sc, char *why, size_t len)
{
    if (cts_sg_hold(&depth_d.g, s, why, len))
        return -1;
    cts_sg_arm(&depth_d.g, stall_us);
    cudaError_t err = scan_calls(k, s, scan_max(k), sc);
    int bad = depth_drain(s, NULL, why, len);
    if (bad == -2)
        return -2;
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "%s returned %s after %lld calls", cts_api_function(depth_calls[k].api),
                 cudaGetErrorName(err), sc->queued);
        return 1;
    }
    return bad ? -1 : 0;
}

/* The full stream's launch depth, before any case: two scans that agree, the
 * second's wait tracked; else -1 with why. */
static int fill_depth(char *why, size_t len)
{
    struct cts_depth_scan a, b;
    for (int t = 0; t < TRIES; t++) {
        if (scan(0, depth_d.full, STALL_US, &a, why, len) ||
            scan(0, depth_d.full, STALL_US * STALL_FACTOR, &b, why, len))
            return -1;
        if (cts_depth_decide(&a, &b, GROW_US, TRACK_FRACTION) == CTS_DEPTH_FOUND) {
            depth_d.fill = a.queued;
            return 0;
        }
    }
    snprintf(why, len, "harness: the full stream's launch depth could not be proven (scans: %lld%s, %lld%s)",
             a.queued, a.stopped ? "" : " none waited", b.queued, b.stopped ? "" : " none waited");
    return -1;
}

/* ---- one repetition ------------------------------------------------------------ */

/* queue_depth: two scans, the second with a longer stall time. */
static void rep_depth(size_t k, cudaStream_t s, struct cts_rep *r, struct cts_result *res)
{
    struct cts_depth_scan a, b;
    char seen[96] = "";
    for (int t = 0; t < TRIES; t++) {
        int bad = scan(k, s, STALL_US, &a, r->reason, sizeof r->reason);
        if (!bad)
            bad = scan(k, s, STALL_US * STALL_FACTOR, &b, r->reason, sizeof r->reason);
        if (bad) {
            r->status = bad > 0 ? CTS_FAIL : bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
            return;
        }
        r->call_us = a.issue_us;
        r->timeout_us = STALL_US;
        r->depth.max = scan_max(k);
        enum cts_depth found = cts_depth_decide(&a, &b, GROW_US, TRACK_FRACTION);
        if (found == CTS_DEPTH_NONE) {
            r->depth.limit = CTS_DEPTH_NONE;
            r->depth.queued = scan_max(k);
            return;
        }
        if (found == CTS_DEPTH_FOUND) {
            r->depth.limit = CTS_DEPTH_FOUND;
            r->depth.queued = a.queued;
            r->depth.blocked_us = a.blocked_us;
            r->depth.tracked_us = b.blocked_us;
            r->depth.tracked_queued = b.queued;
            r->depth.stall_us = STALL_US;
            r->depth.tracked_stall_us = STALL_US * STALL_FACTOR;
            r->release_to_return_us = a.after_us;
            return;
        }
        res->window_retries++;
        size_t n = strlen(seen);
        snprintf(seen + n, sizeof seen - n, "%s%lld%s/%lld%s", t ? ", " : "", a.queued,
                 a.stopped ? (a.early ? "e" : "") : "+", b.queued, b.stopped ? (b.early ? "e" : "") : "+");
    }
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason,
             "the scans did not agree or the wait was not tracked, %d times (count at %.0f ms/%.0f ms stall: %s; "
             "+ none waited, e returned before the gate opened)",
             TRIES, STALL_US / 1e3, STALL_US * STALL_FACTOR / 1e3, seen);
}

static void measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    int v = variant_of(c);
    if (v < 0 || setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", v < 0 ? "harness: not a depth case" : depth_d.why);
        return;
    }
    size_t k = call_index(c);
    cudaStream_t s = op_stream(c->op);
    for (struct cts_rep *r; (r = cts_rep_next(res, repeat));) {
        r->depth.blocked_us = r->depth.tracked_us = r->depth.stall_us = r->depth.tracked_stall_us = NAN;
        if (v == DEPTH)
            rep_depth(k, s, r, res);
        else
            depth_rep_full(k, s, v == FULL_THREAD, r, res);
    }
    cts_classify_measured(res, STALL_US); /* the repetitions' median call time stands in for an idle one */
}

/* The depth: RT-SYNC-ANY, RECORDED.  A call beside a full queue is judged
 * by its own clauses (spec.c), which say whether it may wait. */
static void judge(struct cts_judge *j)
{
    if (variant_of(j->c) == DEPTH)
        cts_judge_add(j, "RT-SYNC-ANY", CTS_ABOUT_HOST, CTS_PRED_MAY);
}

const struct cts_family cts_family_depth = {
    .name = "depth", .generate = generate, .measure = measure, .judge = judge,
};
