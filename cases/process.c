/* The process family (issue 36): a call of this process while a second
 * process's work is held.  The second process is the worker's exporter
 * (harness/families/peer.c), on this device (busy_other_process) or on the peer
 * (busy_other_process_peer, NOTSUPP with one device); its gate kernel spins on
 * a flag of a page both processes map, which this process's watchdog opens
 * (harness/families/stallgate.c, cts_sg_init_shared): the call is proven not to have
 * waited for the other process's work when it returned while the flag was
 * still closed, and to have waited when, made again with a longer stall time,
 * its time grew with it (as the peer and pool families prove theirs).
 *
 *   ipc_read    cudaMemcpy (4 KiB and 1 MiB) and cudaMemcpyAsync (4 KiB, then its
 *               stream synchronized) of the other process's exported memory, opened
 *               with cudaIpcOpenMemHandle, into pinned memory, while that process's
 *               copy of new bytes into it is queued behind its held work: which bytes
 *               did this process read?  `data` (from every byte read): stale (the old
 *               ones: the read was not ordered after the other process's copy),
 *               ordered (the new), partial (some of each).
 *   ipc_write   cudaMemcpyAsync (cudaMemcpyDefault) and, on the peer, cudaMemcpyPeerAsync
 *               of 4 KiB of this device's memory into the other process's, while its
 *               work is held: does the copy wait for it, and do the bytes arrive?
 *   other_process  cudaDeviceSynchronize and cudaStreamSynchronize of stream 0: does a
 *               synchronize wait for another process's kernel?
 *
 * Markers: one on the op stream (stream 0 for the synchronous calls) after a
 * call that returned, as every family has; the other process's own work is
 * not this process's to mark.  The documentation says nothing of another
 * process's work beyond RT-SYNC-ANY: RECORDED.  NOTSUPP under CUDA_LAUNCH_BLOCKING=1: the other
 * process holds with a kernel (not measured so: the peer family shows launch blocking). */
#define _GNU_SOURCE
#include "../harness/core/cts.h"
#include "../harness/engine/engine.h" /* TRACK_FRACTION, DRAIN_LIMIT_US */
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"
#include "../harness/core/latch.h"
#include "../harness/core/spec.h"
#include "../harness/families/stallgate.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longer than the peer family's: without MPS the two processes' contexts share the GPU by time
 * slices, and a marker of this one waited up to a slice behind the other's spinning gate (a 2 ms
 * window called it held: H200, 580.159.04); one that runs within WINDOW_US while the gate is still
 * closed did not wait for the other process's work. */
#define STALL_US 50000.0
#define STALL_FACTOR 4.0
#define WINDOW_US 20000.0
#define TRIES 3
#define SIZE_4KIB 1
#define SIZE_1MIB 5

#define P_HERE (1u << 0)
#define P_PEER (1u << 1)
static const enum cts_busy places[] = {CTS_BUSY_OTHER_PROCESS, CTS_BUSY_OTHER_PROCESS_PEER};

static const struct pcall {
    enum cts_api api;
    const char *variant;
    enum cts_dir dir;
    enum cts_mem mem;
    int size_idx;
    enum cts_kind kind;
    enum cts_op op;
    unsigned places;
} calls[] = {
    {CTS_API_MEMCPY, "ipc_read", CTS_DIR_D2H, CTS_MEM_PINNED, SIZE_4KIB, CTS_KIND_EXPLICIT, CTS_OP_IMPLIED, P_HERE | P_PEER},
    {CTS_API_MEMCPY, "ipc_read", CTS_DIR_D2H, CTS_MEM_PINNED, SIZE_1MIB, CTS_KIND_EXPLICIT, CTS_OP_IMPLIED, P_HERE | P_PEER},
    {CTS_API_MEMCPY_ASYNC, "ipc_read", CTS_DIR_D2H, CTS_MEM_PINNED, SIZE_4KIB, CTS_KIND_EXPLICIT, CTS_OP_NONBLOCKING,
     P_HERE | P_PEER},
    {CTS_API_MEMCPY_ASYNC, "ipc_write", CTS_DIR_D2D, CTS_MEM_DEVICE, SIZE_4KIB, CTS_KIND_DEFAULT, CTS_OP_NONBLOCKING,
     P_HERE | P_PEER},
    {CTS_API_MEMCPY_PEER_ASYNC, "ipc_write", CTS_DIR_D2D, CTS_MEM_DEVICE, SIZE_4KIB, CTS_KIND_NONE, CTS_OP_NONBLOCKING,
     P_PEER},
    {CTS_API_DEVICE_SYNCHRONIZE, "other_process", CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_KIND_NONE, CTS_OP_IMPLIED,
     P_HERE | P_PEER},
    {CTS_API_STREAM_SYNCHRONIZE, "other_process", CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_KIND_NONE, CTS_OP_NULL,
     P_HERE | P_PEER},
};
#define NCALLS (sizeof calls / sizeof *calls)

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t k = 0; k < NCALLS; k++)
        for (size_t p = 0; p < sizeof places / sizeof *places; p++) {
            if (!(calls[k].places & 1u << p))
                continue;
            if (out && n < cap) {
                const struct pcall *x = &calls[k];
                struct cts_case c = {.family = &cts_family_process, .api = x->api, .variant = x->variant,
                                     .dir = x->dir, .mem = x->mem, .size_idx = x->size_idx,
                                     .size = x->size_idx >= 0 ? cts_size_bytes(x->size_idx) : 0, .kind = x->kind,
                                     .op = x->op, .busy = places[p]};
                cts_case_make_id(&c);
                out[n] = c;
            }
            n++;
        }
    return out ? (n < cap ? n : cap) : n;
}

static int is(const struct cts_case *c, const char *variant) { return c->variant && !strcmp(c->variant, variant); }

static int needs(const struct cts_case *c, char *why, size_t len)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        n = 0;
    }
    const char *lb = getenv("CUDA_LAUNCH_BLOCKING");
    if (lb && *lb && strcmp(lb, "0")) { /* the exporter inherits it, and holds with a kernel */
        snprintf(why, len, "CUDA_LAUNCH_BLOCKING=%.16s: the other process's gate is a kernel, whose launch would wait for it",
                 lb);
        return -1;
    }
    if (c->busy == CTS_BUSY_OTHER_PROCESS_PEER && n < 2) {
        snprintf(why, len, "one device: no peer for the other process to run on (%d visible)", n);
        return -1;
    }
    return cts_need_attribute(cudaDevAttrIpcEventSupport, "cudaDevAttrIpcEventSupport", why, len);
}

/* ---- what the family keeps ----------------------------------------------------------- */

static struct {
    int ready;
    char why[CTS_REASON_MAX];
    int device;
    cudaStream_t own;            /* the op stream (non-blocking) */
    void *dev;                   /* OTHER_BYTES of this device's memory */
    unsigned char *pinned;       /* OTHER_BYTES: what a read lands in, a write is read back into */
    struct cts_marker_record *mk_host, *mk_dev;
    unsigned seq;
    struct cts_stallgate g;      /* on the shared page */
    int gate_ready;
} d;

static const char *failed_at = "";
#define TRY(call) CTS_TRY_AT(failed_at, call)

static cudaError_t setup_resources(void)
{
    TRY(cudaGetDevice(&d.device));
    TRY(cudaStreamCreateWithFlags(&d.own, cudaStreamNonBlocking));
    TRY(cudaMalloc(&d.dev, OTHER_BYTES));
    TRY(cudaMallocHost((void **)&d.pinned, OTHER_BYTES));
    TRY(cudaHostAlloc((void **)&d.mk_host, sizeof *d.mk_host, cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&d.mk_dev, d.mk_host, 0));
    memset((void *)d.mk_host, 0, sizeof *d.mk_host);
    TRY(cts_launch_marker(d.own, d.mk_dev, ++d.seq));
    return cudaStreamSynchronize(d.own);
}

static int setup(const struct cts_other *o)
{
    if (!d.ready) {
        d.ready = 1;
        cudaError_t err = setup_resources();
        if (err != cudaSuccess) {
            (void)cudaGetLastError();
            snprintf(d.why, sizeof d.why, "harness: the process family's set-up: %s returned %s", failed_at,
                     cudaGetErrorName(err));
        }
    }
    if (d.why[0])
        return -1;
    if (!d.gate_ready && cts_sg_init_shared(&d.g, &o->shared->flag, &o->shared->gate, d.why, sizeof d.why))
        return -1;
    d.gate_ready = 1;
    return 0;
}

/* ---- one try ------------------------------------------------------------------------- */

struct try {
    struct cts_beside_try t;
    int ok;
    const char *error;
    double after_us;
    enum cts_order ctl, seen;
    enum cts_data data;       /* a read's bytes */
    long long moved;          /* a write's bytes that arrived (-1: not read) */
    int unknown;              /* a read's bytes that are neither old nor new */
};

static cudaStream_t op_stream(const struct cts_case *c)
{
    return c->op == CTS_OP_NONBLOCKING ? d.own : (cudaStream_t)0;
}

/* A marker on the op stream, given WINDOW_US with the gate closed: RUNS, HELD, or NA (the gate
 * opened first). */
static enum cts_order watch_marker(const struct cts_case *c, cudaError_t *err)
{
    unsigned seq = ++d.seq;
    if ((*err = cts_launch_marker(op_stream(c), d.mk_dev, seq)) != cudaSuccess)
        return CTS_ORDER_NA;
    for (double t0 = cts_now_us(); cts_now_us() - t0 < WINDOW_US && cts_sg_flag_closed(&d.g);)
        if (d.mk_host->done == seq)
            return CTS_ORDER_RUNS;
    return d.mk_host->done == seq ? CTS_ORDER_RUNS : cts_sg_flag_closed(&d.g) ? CTS_ORDER_HELD : CTS_ORDER_NA;
}

static int call(const struct cts_case *c, void *ipc, const struct cts_other *o, const char **error)
{
    size_t n = c->size;
    cudaStream_t s = op_stream(c);
    if (is(c, "ipc_read"))
        return cts_result(c->api == CTS_API_MEMCPY ? cudaMemcpy(d.pinned, ipc, n, cudaMemcpyDeviceToHost)
                                                   : cudaMemcpyAsync(d.pinned, ipc, n, cudaMemcpyDeviceToHost, s),
                          error);
    if (is(c, "ipc_write"))
        return cts_result(c->api == CTS_API_MEMCPY_ASYNC ? cudaMemcpyAsync(ipc, d.dev, n, cudaMemcpyDefault, s)
                                                         : cudaMemcpyPeerAsync(ipc, o->device, d.dev, d.device, n, s),
                          error);
    if (c->api == CTS_API_DEVICE_SYNCHRONIZE)
        return cts_result(cudaDeviceSynchronize(), error);
    return cts_result(cudaStreamSynchronize(s), error);
}

/* The gate opened, the other process's stream and this one's drained, the gate ended by the
 * flag: 0; -1 with why. */
static int drain(char *why, size_t len)
{
    cts_sg_open(&d.g);
    if (cts_peer_command("sync", why, len))
        return -1;
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: draining returned %s", cudaGetErrorName(err));
        return -1;
    }
    return cts_sg_ended_by_flag(&d.g, why, len);
}

/* A try's bytes: what the other process's memory holds before its held
 * work writes (old), after (fresh), and this process's (mine). */
struct try_bytes {
    unsigned char old, fresh, mine;
};

/* The other process's memory prepared and its work held, this one's filled,
 * and the control marker watched: the gate's sequence number into *seq; 0,
 * or -1 with why (the harness; the gate opened again). */
static int try_hold(const struct cts_case *c, const struct try_bytes *b, struct try *f, unsigned *seq, char *why,
                    size_t len)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "prepare %u %u", b->old, b->fresh);
    if (cts_peer_command(cmd, why, len))
        return -1;
    cudaError_t err = cudaMemset(d.dev, b->mine, OTHER_BYTES);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: filling this process's memory returned %s", cudaGetErrorName(err));
        return -1;
    }
    memset(d.pinned, 0, OTHER_BYTES);
    *seq = cts_sg_close_for_other(&d.g);
    snprintf(cmd, sizeof cmd, "hold %u %d", *seq, is(c, "ipc_read"));
    if (cts_peer_command(cmd, why, len) || cts_sg_started(&d.g, why, len)) {
        char ignored[CTS_REASON_MAX];
        cts_sg_open(&d.g);
        (void)cts_peer_command("sync", ignored, sizeof ignored);
        return -1;
    }
    f->ctl = watch_marker(c, &err);
    if (err != cudaSuccess || f->ctl == CTS_ORDER_NA) {
        char ignored[CTS_REASON_MAX];
        (void)drain(ignored, sizeof ignored);
        snprintf(why, len, "harness: the control marker %s", err != cudaSuccess ? cudaGetErrorName(err) : "saw the gate open");
        return -1;
    }
    return 0;
}

/* The call, with the watchdog armed for stall_us: its times and whether it
 * returned while the gate was closed, into f. */
static void try_the_call(const struct cts_case *c, void *ipc, const struct cts_other *o, double stall_us,
                         struct try *f)
{
    cts_sg_arm(&d.g, stall_us);
    double t0 = cts_now_us();
    int bad = call(c, ipc, o, &f->error);
    double t1 = cts_now_us();
    if (bad)
        (void)cudaGetLastError();
    f->ok = !bad;
    int closed = cts_sg_returned_closed(&d.g);
    double rel = cts_sg_released_us(&d.g);
    f->t.returned = closed;
    f->t.early = !closed && (isnan(rel) || t1 < rel);
    f->t.filled = f->t.full = 1;
    f->t.call_us = t1 - t0;
    f->after_us = closed ? NAN : t1 - rel;
}

/* An ipc_read's bytes, where they can be read without a race: which the
 * call took, the other process's old ones or its fresh ones, into f. */
static void try_read_bytes(const struct cts_case *c, const struct try_bytes *b, struct try *f)
{
    int readable = f->ok && is(c, "ipc_read");
    if (readable && c->api == CTS_API_MEMCPY_ASYNC) { /* its bytes: once its own stream is done */
        cudaError_t err = cudaStreamSynchronize(d.own);
        /* returned: done before the gate opened */
        readable = err == cudaSuccess && (!f->t.returned || cts_sg_closed(&d.g));
        if (err != cudaSuccess)
            (void)cudaGetLastError();
    }
    if (!readable)
        return;
    long long n_old = 0, n_new = 0;
    for (size_t i = 0; i < c->size; i++) {
        n_old += d.pinned[i] == b->old;
        n_new += d.pinned[i] == b->fresh;
    }
    f->unknown = (int)((long long)c->size - n_old - n_new > 0);
    f->data = n_old == (long long)c->size ? CTS_DATA_STALE
              : n_new == (long long)c->size ? CTS_DATA_ORDERED
                                            : CTS_DATA_PARTIAL;
}

/* After the call: the marker (where it returned while the gate was closed),
 * the drain, and an ipc_write's bytes in the other process's memory: 0; -1
 * with why (the harness). */
static int try_finish(const struct cts_case *c, void *ipc, const struct cts_other *o, const struct try_bytes *b,
                      unsigned seq, struct try *f, char *why, size_t len)
{
    cudaError_t err;
    if (f->t.returned) {
        f->seen = watch_marker(c, &err);
        if (err != cudaSuccess) {
            char ignored[CTS_REASON_MAX];
            (void)drain(ignored, sizeof ignored);
            snprintf(why, len, "harness: the marker after the call returned %s", cudaGetErrorName(err));
            return -1;
        }
    }
    if (drain(why, len))
        return -1;
    if (o->shared->after.done != seq) {
        snprintf(why, len, "harness: the other process's work after its gate never ran");
        return -1;
    }
    if (!is(c, "ipc_write") || !f->ok)
        return 0;
    if ((err = cudaMemcpy(d.pinned, ipc, c->size, cudaMemcpyDeviceToHost)) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: reading the other process's memory back returned %s", cudaGetErrorName(err));
        return -1;
    }
    f->moved = 0;
    for (size_t i = 0; i < c->size; i++)
        f->moved += d.pinned[i] == b->mine;
    return 0;
}

/* 0; -1 with why (the harness). */
static int try_call(const struct cts_case *c, void *ipc, const struct cts_other *o, double stall_us, struct try *f,
                    char *why, size_t len)
{
    memset(f, 0, sizeof *f);
    f->moved = -1;
    unsigned char old = (unsigned char)(0x10 + (d.seq * 7) % 0x60);
    struct try_bytes b = {.old = old, .fresh = old ^ 0x80, .mine = old ^ 0xC0};
    unsigned seq;
    if (try_hold(c, &b, f, &seq, why, len))
        return -1;
    try_the_call(c, ipc, o, stall_us, f);
    try_read_bytes(c, &b, f);
    return try_finish(c, ipc, o, &b, seq, f, why, len);
}

/* ---- a case ------------------------------------------------------------------------------ */

static void record(const struct cts_case *c, struct cts_rep *r, const struct try *f, int waited)
{
    r->host = waited ? CTS_HOST_WAITS : CTS_HOST_RETURNS;
    r->call_us = f->t.call_us;
    r->data = f->data;
    if (!waited)
        r->op_after = f->seen;
    if (!f->ok) {
        r->status = CTS_FAIL;
        snprintf(r->reason, sizeof r->reason, "%s returned %s", cts_api_function(c->api), f->error);
    } else if (f->unknown) {
        r->status = CTS_FAIL;
        snprintf(r->reason, sizeof r->reason, "%s read bytes that are neither the old nor the new ones",
                 cts_api_function(c->api));
    } else if (f->moved >= 0 && (size_t)f->moved != c->size) {
        r->status = CTS_FAIL;
        snprintf(r->reason, sizeof r->reason, "%s returned cudaSuccess but %lld of %zu bytes arrived",
                 cts_api_function(c->api), f->moved, c->size);
    }
}

static void rep_process(const struct cts_case *c, void *ipc, const struct cts_other *o, struct cts_rep *r,
                        struct cts_result *res)
{
    char seen[160] = "";
    double grow = (STALL_FACTOR - 1) * STALL_US;
    for (int t = 0; t < TRIES; t++) {
        struct try a, b;
        if (try_call(c, ipc, o, STALL_US, &a, r->reason, sizeof r->reason)) {
            r->status = CTS_BROKEN;
            return;
        }
        if (res->nreps == 1 && t == 0)
            res->control.op_after = a.ctl;
        r->timeout_us = STALL_US;
        int again;
        if (cts_beside_decide(&a.t, NULL, grow, TRACK_FRACTION, &again) == CTS_HOST_RETURNS) {
            record(c, r, &a, 0);
            return;
        }
        if (again) {
            if (try_call(c, ipc, o, STALL_US * STALL_FACTOR, &b, r->reason, sizeof r->reason)) {
                r->status = CTS_BROKEN;
                return;
            }
            if (cts_beside_decide(&a.t, &b.t, grow, TRACK_FRACTION, &again) == CTS_HOST_WAITS) {
                record(c, r, &b, 1);
                r->timeout_us = STALL_US * STALL_FACTOR;
                r->release_to_return_us = b.after_us;
                r->tracked_from_timeout_us = STALL_US;
                r->tracked_from_call_us = a.t.call_us;
                return;
            }
        }
        res->window_retries++;
        size_t n = strlen(seen);
        snprintf(seen + n, sizeof seen - n, "%s%s", t ? "; " : "",
                 a.t.returned ? "returned" : a.t.early ? "returned before the watchdog opened the gate" : "waited");
    }
    r->host = CTS_HOST_NA;
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason, "no try proved the call, %d tries: %s", TRIES, seen);
}

static void measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    res->control_own = 1;
    res->synchronous = !cts_api_takes_stream(c->api);
    struct cts_other o;
    const char *why = NULL;
    if (cts_peer_process(&o, &why) || setup(&o)) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", why ? why : d.why);
        return;
    }
    void *ipc = NULL;
    cudaError_t err = cudaIpcOpenMemHandle(&ipc, *o.mem, cudaIpcMemLazyEnablePeerAccess);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "harness: cudaIpcOpenMemHandle of the other process's memory returned %s",
                 cudaGetErrorName(err));
        return;
    }
    for (struct cts_rep *r; (r = cts_rep_next(res, repeat));)
        rep_process(c, ipc, &o, r, res);
    if ((err = cudaIpcCloseMemHandle(ipc)) != cudaSuccess && res->status != CTS_BROKEN) {
        (void)cudaGetLastError();
        cts_classify_measured(res, STALL_US);
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "harness: cudaIpcCloseMemHandle returned %s", cudaGetErrorName(err));
        return;
    }
    cts_classify_measured(res, STALL_US);
}

/* Nothing in the documentation speaks of another process's work (RECORDED). */
static void judge(struct cts_judge *j) { cts_judge_add(j, "RT-SYNC-ANY", CTS_ABOUT_HOST, CTS_PRED_MAY); }

const struct cts_family cts_family_process = {
    .name = "process", .generate = generate, .needs = needs, .measure = measure,
    .judge = judge, .judges_alone = 1,
};
