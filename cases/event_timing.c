/* The event_timing family: is cudaEventElapsedTime right about the work its
 * two events bracket, on one stream and across two (issue 41 item 3)?  Users
 * time kernels with events and ask what the number means across streams, and
 * how fine it is (the reference: "a resolution of around 0.5 microseconds").
 *
 * A case: a start event recorded on a non-blocking stream A; a gate kernel of
 * one thread (kernels/latch.cu: it stamps %globaltimer when it starts and when
 * its flag opens) launched on A itself (busy_same), or on another non-blocking
 * stream B (busy_nonblocking), B made to wait for the start event first
 * (in_order) or not (unordered: the start is stamped at once, the kernel then
 * launched); held_start: on A, behind another gate that this thread opens once
 * the start, the kernel and the end are all queued (so the start is stamped
 * right before the kernel can begin, not when the record call reached an idle
 * stream); the end event recorded after the kernel on its stream.  This
 * thread opens the flag once the kernel has run for the hold (the
 * `with_hold_*` segment: 100 us, 1 ms, 10 ms), making no CUDA call while it
 * holds; then cudaEventSynchronize on the end event and the call,
 * cudaEventElapsedTime.  Observed: the elapsed time (ns, as the float of
 * milliseconds gives it), the kernel's run from its own first to last stamp
 * (ns), their difference, and whether the gate ended at its own deadline
 * (then measured again).  Its kind of outcome (harness/core/outcomes/elapsed.c):
 * `covers` (`E`), the elapsed time at least the kernel's run less 1 us, or
 * `short` (`E<`).  An error from the call is the product's: FAIL.
 *
 * The reference gives the resolution: two events around the kernel in stream
 * order (the start recorded before the kernel is launched, in_order or not)
 * measure no less than it ran, past that resolution (RT-EVENT-ELAPSED-RESOLUTION,
 * guaranteed, about the outcome: `covers` conforms, `short` deviates). */
#define _GNU_SOURCE
#include "../harness/core/cts.h"
#include "../harness/core/latch.h"
#include "../harness/core/outcome.h"
#include "../harness/core/outcomes/outcomes.h"
#include "../harness/core/spec.h"
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_START_LIMIT_US 1000000.0 /* the kernel starts within this, or the try is the harness's failure */
#define BUDGET_NS 2000000000ull  /* the gate's own deadline, from its start */
#define TRIES 3

static const int holds_us[] = {100, 1000, 10000};
static const char *const holds[] = {"hold_100us", "hold_1ms", "hold_10ms"};
#define NHOLDS (sizeof holds_us / sizeof *holds_us)
/* Where the kernel runs and how B is ordered after the start event. */
static const struct placement {
    const char *variant;
    enum cts_busy busy;
} placements[] = {
    {"in_order", CTS_BUSY_SAME},
    {"in_order", CTS_BUSY_NONBLOCKING},
    {"held_start", CTS_BUSY_SAME},
    {"unordered", CTS_BUSY_NONBLOCKING},
};
#define NPLACEMENTS (sizeof placements / sizeof *placements)

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t p = 0; p < NPLACEMENTS; p++)
        for (size_t h = 0; h < NHOLDS; h++, n++) {
            if (!out || n >= cap)
                continue;
            struct cts_case c = {.family = &cts_family_event_timing, .api = CTS_API_EVENT_TIMING,
                                 .variant = placements[p].variant, .with = holds[h], .dir = CTS_DIR_NONE,
                                 .mem = CTS_MEM_NONE, .size_idx = -1, .kind = CTS_KIND_NONE,
                                 .op = CTS_OP_IMPLIED, .busy = placements[p].busy};
            cts_case_make_id(&c);
            out[n] = c;
        }
    return out ? (n < cap ? n : cap) : n;
}

/* The case's hold (us); 0 if not one of ours. */
static int hold_of(const struct cts_case *c)
{
    for (size_t h = 0; h < NHOLDS; h++)
        if (c->with && !strcmp(c->with, holds[h]))
            return holds_us[h];
    return 0;
}

/* ---- what the family keeps ----------------------------------------------------- */

static struct {
    volatile unsigned *flag, *flag_dev;    /* [0] the timed kernel's gate, [1] held_start's first one */
    struct cts_gate_record *rec, *rec_dev;
    cudaStream_t a, b;
    cudaEvent_t start, end;
    unsigned seq;
} d;

static const char *failed_at = "";
#define TRY(call) CTS_TRY_AT(failed_at, call)

/* The family's memory, streams and events, and one timed kernel between them (their first use). */
static cudaError_t setup_resources(void)
{
    TRY(cudaHostAlloc((void **)&d.flag, 2 * sizeof *d.flag, cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&d.flag_dev, (void *)d.flag, 0));
    TRY(cudaHostAlloc((void **)&d.rec, 2 * sizeof *d.rec, cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&d.rec_dev, d.rec, 0));
    memset(d.rec, 0, 2 * sizeof *d.rec);
    TRY(cudaStreamCreateWithFlags(&d.a, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&d.b, cudaStreamNonBlocking));
    TRY(cudaEventCreate(&d.start));
    TRY(cudaEventCreate(&d.end));
    *d.flag = 1;
    float ms;
    TRY(cudaEventRecord(d.start, d.a));
    TRY(cudaStreamWaitEvent(d.b, d.start, 0));
    TRY(cts_launch_gate(d.b, d.flag_dev, BUDGET_NS, d.rec_dev, ++d.seq));
    TRY(cudaEventRecord(d.end, d.b));
    TRY(cudaEventSynchronize(d.end));
    return cudaEventElapsedTime(&ms, d.start, d.end);
}

static struct cts_setup_once once;
static int setup(void) { return cts_setup_once(&once, "event_timing", setup_resources, &failed_at); }

/* Queues the start event, the kernel and the end event (the case's placement): the error, failed_at
 * naming the call. */
static cudaError_t queue(const struct cts_case *c, cudaStream_t g)
{
    if (!strcmp(c->variant, "held_start")) /* A held: the start is stamped only once this gate ends */
        TRY(cts_launch_gate(d.a, d.flag_dev + 1, BUDGET_NS, d.rec_dev + 1, d.seq));
    TRY(cudaEventRecord(d.start, d.a));
    if (g != d.a && !strcmp(c->variant, "in_order"))
        TRY(cudaStreamWaitEvent(g, d.start, 0));
    TRY(cts_launch_gate(g, d.flag_dev, BUDGET_NS, d.rec_dev, d.seq));
    return cudaEventRecord(d.end, g);
}

/* One try into r: 0; -1 with why (the harness: r->status BROKEN) or the call's error (FAIL). */
static int try_timing(const struct cts_case *c, int hold_us, struct cts_rep *r)
{
    cudaStream_t g = c->busy == CTS_BUSY_SAME ? d.a : d.b;
    d.seq++;
    d.flag[0] = d.flag[1] = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    cudaError_t err = queue(c, g);
    double t0 = cts_now_us();
    if (!strcmp(c->variant, "held_start")) { /* everything queued behind the first gate: let it go */
        while (err == cudaSuccess && d.rec[1].started != d.seq && cts_now_us() - t0 < KERNEL_START_LIMIT_US)
            ;
        __atomic_store_n(&d.flag[1], 1u, __ATOMIC_SEQ_CST);
    }
    while (err == cudaSuccess && d.rec->started != d.seq && cts_now_us() - t0 < KERNEL_START_LIMIT_US)
        ;
    int began = d.rec->started == d.seq;
    for (double t1 = cts_now_us(); began && cts_now_us() - t1 < hold_us;)
        ;
    __atomic_store_n(&d.flag[0], 1u, __ATOMIC_SEQ_CST);
    if (err == cudaSuccess && (failed_at = "cudaEventSynchronize(d.end)") != NULL)
        err = cudaEventSynchronize(d.end);
    if (err == cudaSuccess && (failed_at = "cudaStreamSynchronize") != NULL)
        err = cudaStreamSynchronize(g);
    if (err != cudaSuccess || !began) {
        (void)cudaGetLastError();
        (void)cudaStreamSynchronize(g);
        r->status = CTS_BROKEN;
        if (!began)
            snprintf(r->reason, sizeof r->reason, "harness: the kernel did not start within %.0f s",
                     KERNEL_START_LIMIT_US / 1e6);
        else
            snprintf(r->reason, sizeof r->reason, "harness: %s returned %s", failed_at, cudaGetErrorName(err));
        return -1;
    }
    float ms = 0;
    double c0 = cts_now_us();
    cudaError_t rc = cudaEventElapsedTime(&ms, d.start, d.end);
    r->call_us = cts_now_us() - c0;
    if (rc != cudaSuccess) {
        (void)cudaGetLastError();
        r->status = CTS_FAIL;
        snprintf(r->reason, sizeof r->reason, "cudaEventElapsedTime returned %s on two complete events",
                 cudaGetErrorName(rc));
        return -1;
    }
    const struct cts_outcome *o = &cts_elapsed_outcome;
    double elapsed = round((double)ms * 1e6), kernel = (double)(d.rec->end_ns - d.rec->start_ns);
    cts_obs_set(r, o, "elapsed_ns", elapsed);
    cts_obs_set(r, o, "kernel_ns", kernel);
    cts_obs_set(r, o, "excess_ns", elapsed - kernel);
    cts_obs_set(r, o, "hold_us", hold_us);
    cts_obs_set(r, o, "deadline", d.rec[0].reason == CTS_GATE_DEADLINE ||
                                      (!strcmp(c->variant, "held_start") && d.rec[1].reason == CTS_GATE_DEADLINE));
    return 0;
}

static void rep_timing(const struct cts_case *c, int hold_us, struct cts_rep *r, struct cts_result *res)
{
    for (int t = 0; t < TRIES; t++) {
        if (try_timing(c, hold_us, r))
            return;
        struct cts_verdict v = {0};
        cts_elapsed_outcome.from_rep(r, &v);
        if (cts_outcome_get(&v, &cts_elapsed_outcome))
            return;
        res->window_retries++;
    }
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason, "the kernel's gate ended at its own deadline in each of %d tries", TRIES);
}

static void measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    int hold_us = hold_of(c);
    if (!hold_us || setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", !hold_us ? "harness: not an event_timing case" : once.why);
        return;
    }
    for (struct cts_rep *r; (r = cts_rep_next(res, repeat));)
        rep_timing(c, hold_us, r, res);
    cts_classify_measured(res, hold_us);
}

/* ---- what the documentation says ---------------------------------------------- */

static const struct cts_clause clauses[] = {
    {"RT-EVENT-ELAPSED-RESOLUTION", "Runtime API reference, cudaEventElapsedTime",
     "Computes the elapsed time between two events (in milliseconds with a resolution of around 0.5 microseconds).",
     "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__EVENT.html", NULL},
    {NULL},
};

/* The interval covers the kernel, to the resolution (the descriptor's holds()). */
static void judge(struct cts_judge *j)
{
    cts_judge_add(j, "RT-EVENT-ELAPSED-RESOLUTION", CTS_ABOUT_OUTCOME, CTS_PRED_GUARANTEED);
}

const struct cts_family cts_family_event_timing = {
    .name = "event_timing", .generate = generate, .measure = measure,
    .clauses = clauses, .judge = judge, .judges_alone = 1,
};
