/* The pool family: stream-ordered allocation across streams from a tight
 * pool, under each reuse policy (issue 20; rmm #1245).  Does an allocation
 * on one stream wait, fail, or get the block another stream has freed but
 * whose free has not yet happened in that stream's order?
 *
 * A case: a pool made for the family (cudaMemPoolCreate, device memory, its
 * maximum size one block of BLOCK bytes, 64 MiB: cudaMemPoolProps.maxSize,
 * so there is no room for a second one), its three reuse attributes set as the
 * variant says: tight_none (all off), tight_follow_event_dependencies,
 * tight_allow_opportunistic, tight_allow_internal_dependencies (that one on),
 * tight_default (all on, the pool's defaults).  Stream A (non-blocking) is
 * held by the gate (harness/families/stallgate.c); the block is allocated on A and
 * freed on A (cudaMallocFromPoolAsync, cudaFreeAsync), both queued behind the
 * held work, so the free has not happened in A's order.  With the suffix
 * _after_event, an event recorded on A after the free is waited for on B
 * (cudaStreamWaitEvent).  The call: cudaMallocFromPoolAsync of the same size
 * from the pool on B, another non-blocking stream.
 *
 * Observed, each proven: the call's return code and pointer (the freed
 * block, or another); whether it returned while the gate was closed (`host`,
 * as the engine's: a call that returned only after the watchdog opened the
 * gate is made again with a longer stall time, and waited when its time
 * followed it); where it returned with the gate closed and a block, whether
 * a marker kernel queued on B right after it ran within WINDOW_US while the
 * gate was still closed (before the call, a marker on B must run so: B is not
 * held by A's work of itself).  cts_pool_decide (harness/core/classify.c) names
 * the outcome: refused, other_block, reused_after (later work on B waited for
 * A's free, or the call did), reused_now.
 *
 * The Programming Guide describes the reuse policies (stream-ordered memory
 * allocator, "Memory Reuse Policies") without promising an outcome for an
 * allocation on a stream the free is not ordered before: RECORDED. */
#define _GNU_SOURCE
#include "../harness/core/cts.h"
#include "../harness/engine/engine.h" /* TRACK_FRACTION */
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"
#include "../harness/core/latch.h"
#include "../harness/families/stallgate.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* One block, the pool's maximum size (size index CTS_SIZE_64MIB): a pool's
 * maximum size is rounded up to its 32 MiB reservation (H100, 580.159.04: with
 * a maximum of 2 MiB, 4 MiB or 32 MiB a pool gave sixteen 2 MiB blocks, with
 * 64 MiB thirty-two), so a block of 2 MiB would leave room for others. */
#define BLOCK ((size_t)64 << 20)
#define STALL_US 10000.0        /* the watchdog opens the gate this long after the call began */
#define STALL_FACTOR 4.0
#define WINDOW_US 2000.0        /* a marker on B gets this long to run, the gate closed */
#define TRIES 3

static const char *const policies[] = {"none", "follow_event_dependencies", "allow_opportunistic",
                                       "allow_internal_dependencies", "default"};
#define NPOLICIES (sizeof policies / sizeof *policies)
static const enum cudaMemPoolAttr reuse_attrs[] = {cudaMemPoolReuseFollowEventDependencies,
                                                   cudaMemPoolReuseAllowOpportunistic,
                                                   cudaMemPoolReuseAllowInternalDependencies};
#define AFTER_EVENT "_after_event"

static size_t generate(struct cts_case *out, size_t cap)
{
    static char names[NPOLICIES][2][64];
    size_t n = 0;
    for (size_t p = 0; p < NPOLICIES; p++)
        for (int e = 0; e < 2; e++, n++) {
            if (!out || n >= cap)
                continue;
            snprintf(names[p][e], sizeof names[p][e], "tight_%s%s", policies[p], e ? AFTER_EVENT : "");
            struct cts_case c = {.family = &cts_family_pool, .api = CTS_API_MALLOC_FROM_POOL_ASYNC,
                                 .variant = names[p][e], .dir = CTS_DIR_NONE, .mem = CTS_MEM_DEVICE,
                                 .size_idx = CTS_SIZE_64MIB, .size = cts_size_bytes(CTS_SIZE_64MIB),
                                 .kind = CTS_KIND_NONE, .op = CTS_OP_NONBLOCKING, .busy = CTS_BUSY_NONBLOCKING};
            cts_case_make_id(&c);
            out[n] = c;
        }
    return out ? (n < cap ? n : cap) : n;
}

/* The case's policy (an index of policies) and whether B waits for an event after the free. */
static int policy_of(const struct cts_case *c, int *after_event)
{
    for (size_t p = 0; p < NPOLICIES; p++) {
        char plain[64], event[64];
        snprintf(plain, sizeof plain, "tight_%s", policies[p]);
        snprintf(event, sizeof event, "tight_%s%s", policies[p], AFTER_EVENT);
        if (c->variant && (!strcmp(c->variant, plain) || !strcmp(c->variant, event))) {
            *after_event = !strcmp(c->variant, event);
            return (int)p;
        }
    }
    return -1;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    (void)c;
#if CUDART_VERSION < 12020
    snprintf(why, len, "not in runtime %d.%d: a pool's maximum size (cudaMemPoolProps.maxSize) appeared in 12.2",
             CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    return -1;
#else
    return cts_need_attribute(cudaDevAttrMemoryPoolsSupported, "cudaDevAttrMemoryPoolsSupported", why, len);
#endif
}

/* ---- what the family keeps ----------------------------------------------------- */

static struct {
    struct cts_stallgate g;
    cudaMemPool_t pool;
    cudaStream_t a, b;
    cudaEvent_t freed;
    struct cts_marker_record *mk_host, *mk_dev;
    unsigned seq;
} d;

static const char *failed_at = "";
#define TRY(call) CTS_TRY_AT(failed_at, call)

static cudaError_t setup_resources(void)
{
#if CUDART_VERSION >= 12020
    int dev;
    TRY(cudaGetDevice(&dev));
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    props.maxSize = BLOCK;
    TRY(cudaMemPoolCreate(&d.pool, &props));
#endif
    TRY(cudaStreamCreateWithFlags(&d.a, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&d.b, cudaStreamNonBlocking));
    TRY(cudaEventCreateWithFlags(&d.freed, cudaEventDisableTiming));
    TRY(cudaHostAlloc((void **)&d.mk_host, sizeof *d.mk_host, cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&d.mk_dev, d.mk_host, 0));
    memset((void *)d.mk_host, 0, sizeof *d.mk_host);
    /* First use: a block from the pool on each stream, and a marker. */
    void *p;
    TRY(cudaMallocFromPoolAsync(&p, BLOCK, d.pool, d.a));
    TRY(cudaFreeAsync(p, d.a));
    TRY(cudaStreamSynchronize(d.a));
    TRY(cudaMallocFromPoolAsync(&p, BLOCK, d.pool, d.b));
    TRY(cudaFreeAsync(p, d.b));
    TRY(cts_launch_marker(d.b, d.mk_dev, ++d.seq));
    TRY(cudaStreamSynchronize(d.b));
    return cudaMemPoolTrimTo(d.pool, 0);
}

static struct cts_setup_once once;
static int setup(void)
{
    int first = !once.ready;
    if (cts_setup_once(&once, "pool", setup_resources, &failed_at))
        return -1;
    return first ? cts_sg_init(&d.g, once.why, sizeof once.why) : 0; /* a failure there: once.why */
}

static cudaError_t set_policy(int p)
{
    for (size_t k = 0; k < sizeof reuse_attrs / sizeof *reuse_attrs; k++) {
        int on = !strcmp(policies[p], "default") || (p > 0 && (size_t)p == k + 1);
        TRY(cudaMemPoolSetAttribute(d.pool, reuse_attrs[k], &on));
    }
    return cudaSuccess;
}

/* A marker on B, given WINDOW_US with the gate closed: 1 it ran, 0 it did
 * not (the gate still closed), -2 the gate opened first (nothing proven),
 * -1 launching it failed. */
static int marker_runs(cudaError_t *err)
{
    unsigned seq = ++d.seq;
    if ((*err = cts_launch_marker(d.b, d.mk_dev, seq)) != cudaSuccess)
        return -1;
    for (double t0 = cts_now_us(); cts_now_us() - t0 < WINDOW_US && cts_sg_flag_closed(&d.g);)
        if (d.mk_host->done == seq)
            return 1;
    return d.mk_host->done == seq ? 1 : cts_sg_flag_closed(&d.g) ? 0 : -2;
}

/* One try. */
struct pool_try {
    struct cts_beside_try t; /* returned, early, call_us (cts_beside_decide) */
    cudaError_t rc;          /* the call's */
    int same_block;
    int later_held;          /* 1, 0; -1 not seen */
    double after_us;
};

/* 0; -1 with why (the harness); -2 (TIMEOUT). */
static int try_call(int after_event, double stall_us, struct pool_try *f, char *why, size_t len)
{
    memset(f, 0, sizeof *f);
    f->later_held = -1;
    void *p1 = NULL, *p2 = NULL;
    cudaError_t err;
    const char *at = "";
    if (cts_sg_hold(&d.g, d.a, why, len))
        return -1;
    int control = marker_runs(&err); /* B is not held by A's work of itself */
    if (control == 1 && (at = "cudaMallocFromPoolAsync on A") &&
        (err = cudaMallocFromPoolAsync(&p1, BLOCK, d.pool, d.a)) == cudaSuccess && (at = "cudaFreeAsync on A") &&
        (err = cudaFreeAsync(p1, d.a)) == cudaSuccess && after_event && (at = "cudaEventRecord on A") &&
        (err = cudaEventRecord(d.freed, d.a)) == cudaSuccess && (at = "cudaStreamWaitEvent on B"))
        err = cudaStreamWaitEvent(d.b, d.freed, 0);
    if (control != 1 || err != cudaSuccess) {
        char ignored[CTS_REASON_MAX];
        (void)cudaGetLastError();
        if (control != -1 && err == cudaSuccess)
            snprintf(why, len, "harness: a marker on B did not run within %.0f us with only A held", WINDOW_US);
        else
            snprintf(why, len, "harness: %s returned %s", control < 0 ? "the marker" : at, cudaGetErrorName(err));
        (void)cts_sg_drain(&d.g, d.a, d.b, ignored, sizeof ignored);
        return -1;
    }
    cts_sg_arm(&d.g, stall_us);
    double t0 = cts_now_us();
    f->rc = cudaMallocFromPoolAsync(&p2, BLOCK, d.pool, d.b);
    double t1 = cts_now_us();
    if (f->rc != cudaSuccess)
        (void)cudaGetLastError();
    f->t.returned = cts_sg_returned_closed(&d.g);
    double rel = cts_sg_released_us(&d.g);
    f->t.early = !f->t.returned && (isnan(rel) || t1 < rel);
    f->t.filled = f->t.full = 1; /* nothing to fill: cts_beside_decide reads returned and the times */
    f->t.call_us = t1 - t0;
    f->after_us = f->t.returned ? NAN : t1 - rel;
    f->same_block = f->rc == cudaSuccess && p2 == p1;
    if (f->rc == cudaSuccess && f->t.returned) {
        int ran = marker_runs(&err);
        if (ran == -1) {
            char ignored[CTS_REASON_MAX];
            (void)cts_sg_drain(&d.g, d.a, d.b, ignored, sizeof ignored);
            snprintf(why, len, "harness: the marker after the call returned %s", cudaGetErrorName(err));
            return -1;
        }
        f->later_held = ran == -2 ? -1 : !ran; /* -2: the gate opened first, nothing seen */
    }
    int bad = cts_sg_drain(&d.g, d.a, d.b, why, len);
    if (bad)
        return bad;
    if (d.mk_host->done != d.seq) {
        snprintf(why, len, "harness: the marker on B never ran");
        return -1;
    }
    if (f->rc == cudaSuccess && ((err = cudaFreeAsync(p2, d.b)) != cudaSuccess ||
                                 (err = cudaStreamSynchronize(d.b)) != cudaSuccess)) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: freeing the block the call got returned %s", cudaGetErrorName(err));
        return -1;
    }
    if ((err = cudaMemPoolTrimTo(d.pool, 0)) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: cudaMemPoolTrimTo returned %s", cudaGetErrorName(err));
        return -1;
    }
    return 0;
}

static void record(struct cts_rep *r, const struct pool_try *f, int waited)
{
    r->pool.error = f->rc == cudaSuccess ? NULL : cudaGetErrorName(f->rc);
    r->pool.same_block = f->same_block;
    r->pool.later_held = f->later_held;
    r->pool.outcome = cts_pool_decide(f->rc == cudaSuccess, f->same_block, f->later_held, waited);
}

static void rep_pool(int after_event, struct cts_rep *r, struct cts_result *res)
{
    char seen[160] = "";
    double grow = (STALL_FACTOR - 1) * STALL_US;
    for (int t = 0; t < TRIES; t++) {
        struct pool_try a, b;
        int bad = try_call(after_event, STALL_US, &a, r->reason, sizeof r->reason);
        if (bad) {
            r->status = bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
            return;
        }
        r->timeout_us = STALL_US;
        r->call_us = a.t.call_us;
        int again;
        enum cts_host h = cts_beside_decide(&a.t, NULL, grow, TRACK_FRACTION, &again);
        if (h == CTS_HOST_RETURNS) {
            r->host = h;
            record(r, &a, 0);
            if (r->pool.outcome != CTS_POOL_NA)
                return;
        } else if (again) {
            bad = try_call(after_event, STALL_US * STALL_FACTOR, &b, r->reason, sizeof r->reason);
            if (bad) {
                r->status = bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
                return;
            }
            if (cts_beside_decide(&a.t, &b.t, grow, TRACK_FRACTION, &again) == CTS_HOST_WAITS) {
                r->host = CTS_HOST_WAITS;
                r->call_us = b.t.call_us;
                r->timeout_us = STALL_US * STALL_FACTOR;
                r->release_to_return_us = b.after_us;
                r->tracked_from_timeout_us = STALL_US;
                r->tracked_from_call_us = a.t.call_us;
                record(r, &b, 1);
                return;
            }
        }
        res->window_retries++;
        size_t n = strlen(seen);
        snprintf(seen + n, sizeof seen - n, "%s%s", t ? "; " : "",
                 a.t.returned ? "returned" : a.t.early ? "returned before the watchdog opened the gate" : "waited");
    }
    memset(&r->pool, 0, sizeof r->pool);
    r->host = CTS_HOST_NA;
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason, "no try proved the allocation, %d tries: %s", TRIES, seen);
}

static void measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    int after_event, p = policy_of(c, &after_event);
    if (p < 0 || setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", p < 0 ? "harness: not a pool case" : once.why);
        return;
    }
    cudaError_t err = set_policy(p);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "harness: %s returned %s", failed_at, cudaGetErrorName(err));
        return;
    }
    for (struct cts_rep *r; (r = cts_rep_next(res, repeat));)
        rep_pool(after_event, r, res);
    cts_classify_measured(res, STALL_US); /* the repetitions' median call time stands in for an idle one */
}

const struct cts_family cts_family_pool = {
    .name = "pool", .generate = generate, .needs = needs, .measure = measure,
};
