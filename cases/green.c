/* The green family: green contexts (CUDA 12.4+, issue 41 item 8), two of them splitting the
 * device's SMs.  Does a kernel in one start while the other's all-SM kernel is held, and does a
 * synchronizing call made in one wait for the other's work?
 *
 * Each case makes (cases/green_ctx.c) two groups of about half the device's SMs each
 * (cuDeviceGetDevResource, cuDevSmResourceSplitByCount at the documented granularity: 8 SMs from
 * compute capability 9.0, the SMs left over in neither), a green context on each, A and B
 * (cuDevResourceGenerateDesc, cuGreenCtxCreate with CU_GREEN_CTX_DEFAULT_STREAM, cuCtxFromGreenCtx),
 * two streams of A and one of B (cuGreenCtxStreamCreate), two non-blocking streams of the primary
 * context, and destroys them all at its end (cuGreenCtxDestroy), the primary context current again.
 * Kernels are launched through the runtime (kernels/green.cu) with their stream's context made
 * current in this thread (cuCtxSetCurrent of cuCtxFromGreenCtx's context, as cuGreenCtxCreate's
 * documentation says to use one), then the primary context put back: the runtime launches into the
 * current context, whose resources the launch then uses (cuCtxFromGreenCtx: "For APIs whose
 * behavior depends on green context resources (for example, kernel launch), the operation is
 * performed using the resources ... of the specified green context").
 *
 * The held work: the all-SM kernel, a grid of one block per SM of the device, each block taking
 * so much dynamic shared memory that one block fills an SM (the occupancy API must say 1), each
 * spinning on a flag in mapped pinned memory until it opens (the latch's watchdog, which makes no
 * CUDA call, or this thread) or until its own %globaltimer deadline.  Its blocks' records say when
 * each started and on which SM; once none has started for SETTLE_US, those that have are `resident`
 * (the SMs A's kernel holds; the others wait for a free SM).
 *
 * green_kernel_start.<placement>: then a one-block kernel with the same shared-memory demand is
 * launched on B's stream and stamps %globaltimer when it starts.  This thread watches its record for
 * WINDOW_US with the gate closed.  `starts`: seen started before the gate opened (the latch claimed
 * after seeing it), or its stamp before the first of A's blocks saw the flag open; `queued`: it
 * started after that, having had at least GREEN_WINDOW_MIN_US (outcomes/green.c).  No verdict unless
 * A's kernel held every SM A was given, one block an SM.  Placements: split (A and B two green
 * contexts), same_green (B a second stream of A) and primary (the control: two non-blocking streams
 * of the primary context, A's kernel holding every SM; expected queued).
 *
 * green_<call>.<placement>: with A's kernel held in green context A, a call made with another
 * context current: cuCtxSynchronize, cudaDeviceSynchronize, and on that context's idle stream
 * (its last work, a one-block kernel and an event after it, completed before the hold)
 * cuStreamSynchronize, cuStreamQuery, cuEventSynchronize of that event.  The watchdog opens the gate
 * TIMEOUT_US after the call began.  `returns`: the call returned before it opened (the latch
 * claimed); `waits`: after, soon (outcomes/green.c); cuStreamQuery `done` or `not_ready`, what it
 * answered while the gate was closed.  Placements: in_b (green context B), in_a (A itself, a second
 * stream of A: cuCtxSynchronize expected to wait) and in_primary.  The calling thread's context is
 * put back after each call.
 *
 * The documentation (the driver API's Green Contexts section) promises no concurrency between
 * green contexts: RECORDED; cuCtxSynchronize in the primary context synchronizes the green contexts
 * created, in A its own work; cudaDeviceSynchronize the device's work; cuStreamQuery of a stream
 * whose work completed answers CUDA_SUCCESS.  A green-context call that fails is FAIL (or NOTSUPP
 * where the driver answers CUDA_ERROR_NOT_SUPPORTED), with its reason; a harness call BROKEN. */
#define _GNU_SOURCE
#include "../harness/core/cts.h"
#include "../harness/core/latch.h"
#include "../harness/core/outcome.h"
#include "../harness/core/outcomes/outcomes.h"
#include "../harness/core/spec.h"
#include "../harness/families/driver.h"
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"
#include "green.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define SETTLE_US 2000.0          /* none of A's blocks started for this long: counted */
#define HOLD_START_US 1000000.0  /* A's first block starts within this, or the harness failed */
#define WINDOW_US 20000.0         /* B's kernel's time to start while the gate is closed */
#define TIMEOUT_US 20000.0        /* a call's: the watchdog opens the gate this long after it began */
#define BUDGET_NS 3000000000ull   /* a block's own deadline, from its start */
#define TRIES 3
#define B_REC CTS_GREEN_MAX_BLOCKS /* the start kernel's record, after A's blocks' */

static const char *const kernel_places[] = {"split", "same_green", "primary"};
static const char *const call_places[] = {"in_b", "in_a", "in_primary"};
static const enum cts_api calls[] = {CTS_API_GREEN_CTX_SYNCHRONIZE, CTS_API_GREEN_DEVICE_SYNCHRONIZE,
                                     CTS_API_GREEN_STREAM_SYNCHRONIZE, CTS_API_GREEN_STREAM_QUERY,
                                     CTS_API_GREEN_EVENT_SYNCHRONIZE};
#define NPLACES 3
#define NCALLS (sizeof calls / sizeof *calls)

static struct cts_case make_case(enum cts_api api, const char *variant)
{
    int stream = cts_api_takes_stream(api);
    struct cts_case c = {.family = &cts_family_green, .api = api, .variant = variant, .dir = CTS_DIR_NONE,
                         .mem = CTS_MEM_NONE, .size_idx = -1, .kind = CTS_KIND_NONE,
                         .op = stream ? CTS_OP_NONBLOCKING : CTS_OP_IMPLIED, .busy = CTS_BUSY_NONBLOCKING};
    cts_case_make_id(&c);
    return c;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t p = 0; p < NPLACES; p++, n++)
        if (out && n < cap)
            out[n] = make_case(CTS_API_GREEN_KERNEL_START, kernel_places[p]);
    for (size_t a = 0; a < NCALLS; a++)
        for (size_t p = 0; p < NPLACES; p++, n++)
            if (out && n < cap)
                out[n] = make_case(calls[a], call_places[p]);
    return out ? (n < cap ? n : cap) : n;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    static const char *const fns[] = {"cuDeviceGetDevResource", "cuDevSmResourceSplitByCount",
                                      "cuDevResourceGenerateDesc", "cuGreenCtxCreate", "cuCtxFromGreenCtx",
                                      "cuGreenCtxStreamCreate", "cuGreenCtxDestroy", "cuCtxSetCurrent",
                                      "cuCtxGetCurrent", "cuCtxGetDevice", "cuStreamSynchronize",
                                      "cuStreamDestroy", "cuCtxSynchronize", "cuStreamQuery", "cuEventSynchronize"};
    (void)c;
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
        if (cts_need_driver(fns[i], why, len))
            return -1;
    if (cts_need_attribute(cudaDevAttrCanMapHostMemory, "cudaDevAttrCanMapHostMemory", why, len) ||
        cts_need_attribute(cudaDevAttrUnifiedAddressing, "cudaDevAttrUnifiedAddressing", why, len))
        return -1;
    return 0;
}

/* ---- what the family keeps: the flag, the records, the watchdog, made once ----------------- */

static struct {
    volatile unsigned *flag, *flag_dev;
    struct cts_green_rec *rec, *rec_dev; /* A's blocks', then B's start kernel's (B_REC) */
    struct cts_latch latch;
    size_t smem;    /* each block's dynamic shared memory: one block fills an SM */
    int smem_fills; /* two blocks of smem do not fit an SM's shared memory */
    unsigned seq;
} d;

static const char *failed_at = "";
#define TRY(call) CTS_TRY_AT(failed_at, call)

static cudaError_t setup_resources(void)
{
    int dev = 0, block = 0, sm = 0;
    TRY(cudaGetDevice(&dev));
    TRY(cudaDeviceGetAttribute(&block, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    TRY(cudaDeviceGetAttribute(&sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    d.smem = (size_t)block;
    d.smem_fills = 2 * block > sm;
    unsigned int flags = cudaHostAllocMapped | cudaHostAllocPortable; /* every context's */
    TRY(cudaHostAlloc((void **)&d.flag, sizeof *d.flag, flags));
    TRY(cudaHostGetDevicePointer((void **)&d.flag_dev, (void *)d.flag, 0));
    TRY(cudaHostAlloc((void **)&d.rec, (B_REC + 1) * sizeof *d.rec, flags));
    TRY(cudaHostGetDevicePointer((void **)&d.rec_dev, d.rec, 0));
    memset(d.rec, 0, (B_REC + 1) * sizeof *d.rec);
    *d.flag = 1;
    failed_at = "pthread_create (the family's watchdog)";
    return cts_latch_start(&d.latch, d.flag) ? cudaErrorUnknown : cudaSuccess;
}

static struct cts_setup_once once;
static int setup(void) { return cts_setup_once(&once, "green", setup_resources, &failed_at); }

/* ---- one case's contexts and where its work goes ------------------------------------------ */

struct run {
    const struct cts_case *c;
    struct green_ctxs x;
    CUcontext hold_ctx, b_ctx; /* the held kernel's; B's kernel's or the call's */
    cudaStream_t hold, b;
    cudaEvent_t ev;            /* the call's event (an idle stream's) */
    unsigned a_sms;            /* the SMs the held kernel's context was given */
};

static int is_kernel(const struct cts_case *c) { return c->api == CTS_API_GREEN_KERNEL_START; }

/* Where the case's work goes (its variant): 0, or -1 if it is not one of ours. */
static int place(struct run *u)
{
    const char *v = u->c->variant ? u->c->variant : "";
    struct green_ctxs *x = &u->x;
    u->hold_ctx = x->ctx_a, u->hold = x->a[0], u->a_sms = x->sms_a;
    if (!strcmp(v, "split") || !strcmp(v, "in_b"))
        u->b_ctx = x->ctx_b, u->b = x->b, u->ev = x->ev_b;
    else if (!strcmp(v, "same_green") || !strcmp(v, "in_a"))
        u->b_ctx = x->ctx_a, u->b = x->a[1], u->ev = x->ev_a;
    else if (!strcmp(v, "in_primary"))
        u->b_ctx = x->primary, u->b = x->p[0], u->ev = x->ev_p;
    else if (!strcmp(v, "primary"))
        u->hold_ctx = x->primary, u->hold = x->p[0], u->a_sms = x->sms_device, u->b_ctx = x->primary,
        u->b = x->p[1];
    else
        return -1;
    return 0;
}

static void nap(void)
{
    struct timespec t = {0, 20000};
    nanosleep(&t, NULL);
}

/* In ctx (current for it, then the primary again): the hold kernel on s (hold) or the start kernel. */
static cudaError_t launch_in(const struct run *u, CUcontext ctx, cudaStream_t s, int hold, char *why, size_t len)
{
    if (green_use(ctx, why, len))
        return cudaErrorUnknown;
    cudaError_t e = hold ? cts_green_launch_hold(s, d.flag_dev, BUDGET_NS, d.rec_dev, (int)u->x.sms_device, d.smem, d.seq)
                         : cts_green_launch_start(s, d.rec_dev + B_REC, d.smem, d.seq);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "%s (the %s kernel, its context current) returned %s", "cudaLaunchKernel",
                 hold ? "all-SM" : "start", cudaGetErrorName(e));
    }
    if (green_use(u->x.primary, why, len) && e == cudaSuccess)
        e = cudaErrorUnknown;
    return e;
}

static int drain(cudaStream_t s, char *why, size_t len)
{
    CUresult r = cts_drv.cuStreamSynchronize((CUstream)s);
    if (r == CUDA_SUCCESS)
        return 0;
    snprintf(why, len, "harness: cuStreamSynchronize returned %s", cts_driver_error_name(r));
    return -1;
}

/* Closes the gate and launches the all-SM kernel; once none of its blocks started for SETTLE_US:
 * how many had, and on how many SMs (*distinct).  -1 with why where it failed or none started. */
static int hold(const struct run *u, int *distinct, char *why, size_t len)
{
    d.seq++;
    cts_latch_close(&d.latch);
    if (launch_in(u, u->hold_ctx, u->hold, 1, why, len) != cudaSuccess) {
        *d.flag = 1;
        return -1;
    }
    int n = (int)u->x.sms_device, k = 0;
    for (double t0 = cts_now_us(), last = t0; cts_now_us() - last < SETTLE_US;) {
        nap();
        int now = 0;
        for (int i = 0; i < n; i++)
            now += d.rec[i].started == d.seq;
        if (now != k)
            k = now, last = cts_now_us();
        if (!k && cts_now_us() - t0 > HOLD_START_US)
            break;
    }
    unsigned char seen[1024] = {0};
    *distinct = 0;
    for (int i = 0; i < n; i++)
        if (d.rec[i].started == d.seq && d.rec[i].smid < sizeof seen && !seen[d.rec[i].smid]++)
            ++*distinct;
    if (k)
        return k;
    *d.flag = 1;
    snprintf(why, len, "harness: the all-SM kernel did not start within %.0f s", HOLD_START_US / 1e6);
    return -1;
}

/* After the gate opened: A's stream drained, every block ended; the first end (the release, GPU
 * clock) and whether a block ended at its deadline.  0, or -1 with why. */
static int unhold(const struct run *u, unsigned long long *release_ns, int *deadline, char *why, size_t len)
{
    if (drain(u->hold, why, len))
        return -1;
    *release_ns = ~0ull;
    *deadline = 0;
    for (unsigned i = 0; i < u->x.sms_device; i++) {
        if (d.rec[i].ended != d.seq) {
            snprintf(why, len, "harness: block %u of the all-SM kernel had not ended when its stream drained", i);
            return -1;
        }
        if (d.rec[i].end_ns < *release_ns)
            *release_ns = d.rec[i].end_ns;
        *deadline |= d.rec[i].reason == CTS_GATE_DEADLINE;
    }
    return 0;
}

/* A try's failure: the repetition's status (BROKEN for the harness's, FAIL for the call's). */
static int failed(struct cts_rep *r, enum cts_status st, const char *why)
{
    r->status = st;
    snprintf(r->reason, sizeof r->reason, "%s", why);
    return -1;
}

/* ---- green_kernel_start: B's kernel beside A's held one ----------------------------------- */

static int try_start(const struct run *u, struct cts_rep *r)
{
    char why[CTS_REASON_MAX];
    int distinct = 0, resident = hold(u, &distinct, why, sizeof why);
    if (resident < 0)
        return failed(r, CTS_BROKEN, why);
    cudaError_t launched = launch_in(u, u->b_ctx, u->b, 0, why, sizeof why);
    double t0 = cts_now_us();
    cts_latch_arm(&d.latch, WINDOW_US);
    volatile struct cts_green_rec *b = &d.rec[B_REC];
    while (launched == cudaSuccess && b->started != d.seq && atomic_load(&d.latch.state) == LATCH_ARMED)
        nap();
    int before = b->started == d.seq && cts_latch_claim(&d.latch);
    double opened = before ? cts_now_us() : NAN;
    cts_latch_open(&d.latch);
    if (!before)
        opened = d.latch.released_us;
    unsigned long long release_ns;
    int deadline;
    char drained[CTS_REASON_MAX];
    int ok = !unhold(u, &release_ns, &deadline, drained, sizeof drained) && !drain(u->b, drained, sizeof drained);
    if (launched != cudaSuccess)
        return failed(r, strncmp(why, "harness:", 8) ? CTS_FAIL : CTS_BROKEN, why);
    if (!ok)
        return failed(r, CTS_BROKEN, drained);
    if (b->started != d.seq)
        return failed(r, CTS_BROKEN, "harness: B's kernel had not run when its stream drained");
    const struct cts_outcome *o = &cts_green_outcome;
    cts_obs_set(r, o, "a_sms", u->a_sms);
    cts_obs_set(r, o, "resident", resident);
    cts_obs_set(r, o, "distinct_sms", distinct);
    cts_obs_set(r, o, "before_open", before);
    cts_obs_set(r, o, "after_release_us", ((double)b->start_ns - (double)release_ns) / 1e3);
    cts_obs_set(r, o, "closed_us", opened - t0);
    cts_obs_set(r, o, "deadline", deadline);
    r->call_us = opened - t0;
    return 0;
}

/* ---- green_<call>: a synchronizing call beside A's held kernel ----------------------------- */

/* The call under test, its context current: NULL on success (and on cuStreamQuery's
 * CUDA_ERROR_NOT_READY, *not_ready 1), else the error's name. */
static const char *call(const struct run *u, int *not_ready)
{
    CUresult r = CUDA_SUCCESS;
    switch (u->c->api) {
    case CTS_API_GREEN_CTX_SYNCHRONIZE: r = cts_drv.cuCtxSynchronize(); break;
    case CTS_API_GREEN_STREAM_SYNCHRONIZE: r = cts_drv.cuStreamSynchronize((CUstream)u->b); break;
    case CTS_API_GREEN_STREAM_QUERY:
        r = cts_drv.cuStreamQuery((CUstream)u->b);
        *not_ready = r == CUDA_ERROR_NOT_READY;
        return r == CUDA_SUCCESS || *not_ready ? NULL : cts_driver_error_name(r);
    case CTS_API_GREEN_EVENT_SYNCHRONIZE: r = cts_drv.cuEventSynchronize((CUevent)u->ev); break;
    case CTS_API_GREEN_DEVICE_SYNCHRONIZE: {
        cudaError_t e = cudaDeviceSynchronize();
        return e == cudaSuccess ? NULL : ((void)cudaGetLastError(), cudaGetErrorName(e));
    }
    default: return "harness: not a green call";
    }
    return r == CUDA_SUCCESS ? NULL : cts_driver_error_name(r);
}

/* The call's stream's own work, completed before the hold: the start kernel and the event after it. */
static int idle_work(const struct run *u, char *why, size_t len)
{
    d.seq++;
    if (launch_in(u, u->b_ctx, u->b, 0, why, len) != cudaSuccess)
        return -1;
    if (green_use(u->b_ctx, why, len))
        return -1;
    cudaError_t e = cudaEventRecord(u->ev, u->b);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: cudaEventRecord returned %s", cudaGetErrorName(e));
    }
    if (green_use(u->x.primary, why, len) || e != cudaSuccess)
        return -1;
    return drain(u->b, why, len);
}

static int try_call(const struct run *u, struct cts_rep *r)
{
    char why[CTS_REASON_MAX], drained[CTS_REASON_MAX];
    int distinct = 0, not_ready = 0, resident;
    if (idle_work(u, why, sizeof why) || (resident = hold(u, &distinct, why, sizeof why)) < 0)
        return failed(r, CTS_BROKEN, why);
    if (green_use(u->b_ctx, why, sizeof why)) {
        *d.flag = 1;
        (void)unhold(u, &(unsigned long long){0}, &(int){0}, drained, sizeof drained);
        return failed(r, CTS_BROKEN, why);
    }
    cts_latch_arm(&d.latch, TIMEOUT_US);
    double t0 = cts_now_us();
    const char *error = call(u, &not_ready);
    double t1 = cts_now_us();
    int before = cts_latch_claim(&d.latch);
    double opened = before ? cts_now_us() : NAN;
    cts_latch_open(&d.latch);
    if (!before)
        opened = d.latch.released_us;
    int back = green_use(u->x.primary, why, sizeof why);
    unsigned long long release_ns;
    int deadline;
    int ok = !unhold(u, &release_ns, &deadline, drained, sizeof drained);
    r->call_us = t1 - t0;
    if (error) {
        snprintf(why, sizeof why, "%s returned %s with green context A's work held", cts_api_function(u->c->api), error);
        return failed(r, CTS_FAIL, why);
    }
    if (back)
        return failed(r, CTS_BROKEN, why);
    if (!ok)
        return failed(r, CTS_BROKEN, drained);
    const struct cts_outcome *o = &cts_green_outcome;
    cts_obs_set(r, o, "a_sms", u->a_sms);
    cts_obs_set(r, o, "resident", resident);
    cts_obs_set(r, o, "before_open", before);
    cts_obs_set(r, o, "after_release_us", t1 - opened);
    cts_obs_set(r, o, "closed_us", opened - t0);
    cts_obs_set(r, o, "deadline", deadline);
    if (u->c->api == CTS_API_GREEN_STREAM_QUERY)
        cts_obs_set(r, o, "not_ready", not_ready);
    return 0;
}

/* ---- the repetitions ------------------------------------------------------------------------ */

static void rep_green(const struct run *u, struct cts_rep *r, struct cts_result *res)
{
    const struct cts_outcome *o = &cts_green_outcome;
    char seen[192] = "";
    for (int t = 0; t < TRIES; t++) {
        if (is_kernel(u->c) ? try_start(u, r) : try_call(u, r))
            return;
        struct cts_verdict v = {0};
        o->from_rep(r, &v);
        if (cts_outcome_get(&v, o))
            return;
        res->window_retries++;
        size_t k = strlen(seen);
        snprintf(seen + k, sizeof seen - k, "%s%.0f of %.0f SMs held on %.0f, %s, %.1f us after the release%s",
                 t ? "; " : "", cts_obs_get(r, o, "resident"), cts_obs_get(r, o, "a_sms"),
                 cts_obs_get(r, o, "distinct_sms"), cts_obs_get(r, o, "before_open") == 1 ? "before" : "after",
                 cts_obs_get(r, o, "after_release_us"),
                 cts_obs_get(r, o, "deadline") != 0 ? ", a block at its deadline" : "");
    }
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason, "no try proved it, %d tries: %s", TRIES, seen);
}

/* Each stream the case uses run once (its modules loaded in its context) before it is measured. */
static int warm(const struct run *u, char *why, size_t len)
{
    *d.flag = 1;
    d.seq++;
    if (launch_in(u, u->hold_ctx, u->hold, 1, why, len) != cudaSuccess ||
        launch_in(u, u->b_ctx, u->b, 0, why, len) != cudaSuccess)
        return -1;
    return drain(u->hold, why, len) || drain(u->b, why, len) ? -1 : 0;
}

/* Two blocks of the kernels do not fit an SM: 0, or -1 with why (NOTSUPP). */
static int one_block_an_sm(char *why, size_t len)
{
    int n = 0;
    cudaError_t e = cts_green_blocks_per_sm(&n, d.smem);
    if (e == cudaSuccess && n == 1 && d.smem_fills)
        return 0;
    (void)cudaGetLastError();
    if (e != cudaSuccess)
        snprintf(why, len, "harness: cudaOccupancyMaxActiveBlocksPerMultiprocessor returned %s", cudaGetErrorName(e));
    else
        snprintf(why, len, "%d blocks of %zu bytes of shared memory fit an SM: no kernel fills the device", n, d.smem);
    return -1;
}

static void measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    struct run u = {.c = c};
    if (setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", once.why);
        return;
    }
    int st = green_make(&u.x, d.smem, res->reason, sizeof res->reason);
    if (st == CTS_PASS && u.x.sms_device > CTS_GREEN_MAX_BLOCKS) {
        st = CTS_NOTSUPP;
        snprintf(res->reason, sizeof res->reason, "the device's %u SMs: more than the %d the family's records hold",
                 u.x.sms_device, CTS_GREEN_MAX_BLOCKS);
    }
    if (st == CTS_PASS && place(&u)) {
        st = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "harness: not a green case");
    }
    if (st == CTS_PASS && one_block_an_sm(res->reason, sizeof res->reason))
        st = strncmp(res->reason, "harness:", 8) ? CTS_NOTSUPP : CTS_BROKEN;
    if (st == CTS_PASS && warm(&u, res->reason, sizeof res->reason))
        st = strncmp(res->reason, "harness:", 8) ? CTS_FAIL : CTS_BROKEN;
    for (struct cts_rep *r; st == CTS_PASS && (r = cts_rep_next(res, repeat));)
        rep_green(&u, r, res);
    char why[CTS_REASON_MAX];
    if (green_destroy(&u.x, why, sizeof why) && st == CTS_PASS) {
        st = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", why);
    }
    if (st != CTS_PASS) {
        res->status = (enum cts_status)st;
        return;
    }
    cts_classify_measured(res, is_kernel(c) ? WINDOW_US : TIMEOUT_US);
}

/* ---- what the documentation says ---------------------------------------------------------- */

#define DRV_REF "https://docs.nvidia.com/cuda/cuda-driver-api/"
static const struct cts_clause clauses[] = {
    {"DRV-GREEN-NO-CONCURRENCY", "Driver API reference, Green Contexts",
     "Even if the green contexts have disjoint SM partitions, it is not guaranteed that the kernels launched in "
     "them will run concurrently or have forward progress guarantees. This is due to other resources (like HW "
     "connections, see CUDA_DEVICE_MAX_CONNECTIONS) that could cause a dependency.",
     DRV_REF "group__CUDA__GREEN__CONTEXTS.html", NULL},
    {"DRV-CTX-SYNCHRONIZE-GREEN", "Driver API reference, cuCtxSynchronize",
     "Blocks until the current context has completed all preceding requested tasks. If the current context is "
     "the primary context, green contexts that have been created will also be synchronized.",
     DRV_REF "group__CUDA__CTX.html", NULL},
    {"DRV-STREAM-QUERY", "Driver API reference, cuStreamQuery",
     "Returns CUDA_SUCCESS if all operations in the stream specified by hStream have completed, or "
     "CUDA_ERROR_NOT_READY if not.",
     DRV_REF "group__CUDA__STREAM.html", NULL},
    {NULL},
};

/* The kernel: no promise.  cuCtxSynchronize: the primary context's synchronizes the green contexts
 * made, A's its own held work; B's is not said to.  cudaDeviceSynchronize: the device's work, from
 * any context.  cuStreamQuery: an idle stream's work has completed.  The rest: RT-SYNC-ANY. */
static void judge(struct cts_judge *j)
{
    const char *v = j->c->variant ? j->c->variant : "";
    int in_b = !strcmp(v, "in_b");
    switch (j->c->api) {
    case CTS_API_GREEN_KERNEL_START:
        cts_judge_add(j, "DRV-GREEN-NO-CONCURRENCY", CTS_ABOUT_OUTCOME, CTS_PRED_MAY);
        break;
    case CTS_API_GREEN_CTX_SYNCHRONIZE:
        cts_judge_add(j, "DRV-CTX-SYNCHRONIZE-GREEN", CTS_ABOUT_OUTCOME, in_b ? CTS_PRED_MAY : CTS_PRED_GUARANTEED);
        break;
    case CTS_API_GREEN_DEVICE_SYNCHRONIZE:
        cts_judge_add(j, "RT-DEVICE-SYNCHRONIZE", CTS_ABOUT_OUTCOME, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_GREEN_STREAM_QUERY:
        cts_judge_add(j, "DRV-STREAM-QUERY", CTS_ABOUT_OUTCOME, CTS_PRED_GUARANTEED);
        break;
    default:
        cts_judge_add(j, "RT-SYNC-ANY", CTS_ABOUT_OUTCOME, CTS_PRED_MAY);
    }
}

const struct cts_family cts_family_green = {
    .name = "green", .generate = generate, .needs = needs, .measure = measure,
    .clauses = clauses, .judge = judge, .judges_alone = 1,
};
