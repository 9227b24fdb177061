/* A case of the peer family, measured (cases/peer.c says what the family measures and why): its
 * memory and state, the call, one try, a repetition and the measurement. */
#define _GNU_SOURCE
#include "peer_family.h"
#include "../harness/engine/engine.h" /* TRACK_FRACTION */
#include "../harness/families/driver.h"
#include "../harness/families/kernels.h"
#include "../harness/core/latch.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STALL_US 10000.0   /* the watchdog opens a gate this long after the last return, at least */
#define STALL_FACTOR 4.0
#define TRIES 3
#define IDLE_CALLS 3
#define WIDTH_3D 1024      /* a 3D peer copy: rows of this many bytes, one slice */

/* ---- a case's memory and state ------------------------------------------------------ */

struct plan {
    void *src, *dst;
    int srcdev, dstdev;       /* device indices (cudaMemcpyPeer's) */
    int dst_side;             /* 0 this device, 1 the peer, -1 host */
    size_t n;
    void *scratch;            /* a device-wide call's pointer (freed, allocated, registered) */
};

/* Peer access enabled (on) or disabled both ways. */
static cudaError_t set_access(int on)
{
    for (int k = 0; k < 2; k++) {
        if (peer_d.access[k] == on)
            continue;
        TRY(cudaSetDevice(peer_d.dev[k]));
        cudaError_t e = on ? cudaDeviceEnablePeerAccess(peer_d.dev[1 - k], 0)
                           : cudaDeviceDisablePeerAccess(peer_d.dev[1 - k]);
        if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaErrorPeerAccessNotEnabled)
            (void)cudaGetLastError(); /* the state wanted already */
        else if (e != cudaSuccess) {
            peer_failed_at = on ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess";
            (void)cudaSetDevice(peer_d.dev[0]);
            return e;
        }
        peer_d.access[k] = on;
    }
    TRY(cudaSetDevice(peer_d.dev[0]));
    return cudaSuccess;
}

static cudaError_t set_granted(int on)
{
#if CUDART_VERSION >= 11020
    if (!peer_d.block || peer_d.granted == on)
        return cudaSuccess;
    struct cudaMemAccessDesc a;
    memset(&a, 0, sizeof a);
    a.location.type = cudaMemLocationTypeDevice;
    a.location.id = peer_d.dev[0];
    a.flags = on ? cudaMemAccessFlagsProtReadWrite : cudaMemAccessFlagsProtNone;
    TRY(cudaMemPoolSetAccess(peer_d.pool, &a, 1));
    peer_d.granted = on;
#else
    (void)on;
#endif
    return cudaSuccess;
}

/* The pointers of a copy, the state its variant wants set; the source filled with v and the
 * destination with u, the device idle. */
static cudaError_t plan_copy(const struct cts_case *c, struct plan *p, unsigned char v, unsigned char u)
{
    const struct peer_variant *var = peer_variant_of(c);
    int to = c->variant && !strncmp(c->variant, "to_", 3);
    void *peer_side = var && var->pool ? peer_d.block : peer_d.buf[1];
    void *this_side =
        c->dir == CTS_DIR_D2D ? peer_d.buf[0] : c->mem == CTS_MEM_PINNED ? peer_d.pinned : peer_d.pageable;
    p->n = c->size;
    p->src = to ? this_side : peer_side;
    p->dst = to ? peer_side : this_side;
    p->srcdev = to ? peer_d.dev[0] : peer_d.dev[1];
    p->dstdev = to ? peer_d.dev[1] : peer_d.dev[0];
    p->dst_side = to ? 1 : c->dir == CTS_DIR_D2D ? 0 : -1;
    TRY(set_access(var ? var->access : 0));
    TRY(set_granted(var && var->pool ? var->granted : 0));
    int src_side = to ? (c->dir == CTS_DIR_D2D ? 0 : -1) : 1;
    if (src_side < 0)
        memset(p->src, v, p->n);
    else
        ON(src_side, cudaMemset(p->src, v, p->n));
    if (p->dst_side < 0)
        memset(p->dst, u, p->n);
    else
        ON(p->dst_side, cudaMemset(p->dst, u, p->n));
    ON(0, cudaDeviceSynchronize());
    ON(1, cudaDeviceSynchronize());
    return cudaSuccess;
}

/* How many of the destination's n bytes are v, the device idle (-1: it could not be read). */
static long long count_moved(const struct plan *p, unsigned char v)
{
    const unsigned char *b = p->dst;
    if (p->dst_side >= 0) {
        if (cudaSetDevice(peer_d.dev[p->dst_side]) != cudaSuccess ||
            cudaMemcpy(peer_d.stage, p->dst, p->n, cudaMemcpyDeviceToHost) != cudaSuccess) {
            (void)cudaGetLastError();
            (void)cudaSetDevice(peer_d.dev[0]);
            return -1;
        }
        (void)cudaSetDevice(peer_d.dev[0]);
        b = peer_d.stage;
    }
    long long moved = 0;
    for (size_t i = 0; i < p->n; i++)
        moved += b[i] == v;
    return moved;
}

/* Right after a synchronous copy returned: its destination's first, middle and last byte. */
static enum cts_dst landed(const struct plan *p, unsigned char v)
{
    size_t off[3] = {0, p->n / 2, p->n - 1};
    const unsigned char *b = p->dst;
    if (p->dst_side >= 0) {
        cudaStream_t s = peer_d.s[p->dst_side][S_SIDE];
        int bad = cudaSetDevice(peer_d.dev[p->dst_side]) != cudaSuccess;
        for (int i = 0; i < 3 && !bad; i++)
            bad = cudaMemcpyAsync(peer_d.land + i, (const unsigned char *)p->dst + off[i], 1, cudaMemcpyDeviceToHost,
                                  s) != cudaSuccess;
        bad = bad || cudaStreamSynchronize(s) != cudaSuccess;
        if (bad)
            (void)cudaGetLastError();
        (void)cudaSetDevice(peer_d.dev[0]);
        if (bad)
            return CTS_DST_NA;
        b = peer_d.land;
        off[0] = 0, off[1] = 1, off[2] = 2;
    }
    for (int i = 0; i < 3; i++)
        if (((volatile const unsigned char *)b)[off[i]] != v)
            return CTS_DST_PENDING;
    return CTS_DST_COMPLETE;
}

/* A device-wide call's set-up, the device idle. */
static cudaError_t prepare_other(const struct cts_case *c, struct plan *p)
{
    p->scratch = NULL;
    switch (c->api) {
    case CTS_API_FREE: TRY(cudaMalloc(&p->scratch, c->size)); break;
    case CTS_API_FREE_HOST: TRY(cudaMallocHost(&p->scratch, c->size)); break;
    case CTS_API_HOST_REGISTER:
        if (!(p->scratch = malloc(c->size))) {
            peer_failed_at = "malloc";
            return cudaErrorMemoryAllocation;
        }
        memset(p->scratch, 1, c->size);
        break;
    case CTS_API_MEMCPY: memset(peer_d.pageable, 0x5a, c->size); break;
    case CTS_API_DEVICE_ENABLE_PEER_ACCESS: TRY(set_access(0)); break;
    case CTS_API_DEVICE_DISABLE_PEER_ACCESS: TRY(set_access(1)); break;
    default: break;
    }
    return cudaSuccess;
}

/* ... and its clean-up, the device idle (whether or not the call succeeded). */
static cudaError_t cleanup_other(const struct cts_case *c, struct plan *p, int ok)
{
    switch (c->api) {
    case CTS_API_MALLOC:
        if (ok)
            TRY(cudaFree(p->scratch));
        break;
    case CTS_API_MALLOC_HOST:
        if (ok)
            TRY(cudaFreeHost(p->scratch));
        break;
    case CTS_API_FREE:
        if (!ok)
            TRY(cudaFree(p->scratch));
        break;
    case CTS_API_FREE_HOST:
        if (!ok)
            TRY(cudaFreeHost(p->scratch));
        break;
    case CTS_API_HOST_REGISTER:
        if (ok)
            TRY(cudaHostUnregister(p->scratch));
        free(p->scratch);
        break;
    case CTS_API_DEVICE_ENABLE_PEER_ACCESS: peer_d.access[0] = ok; break; /* what the call left */
    case CTS_API_DEVICE_DISABLE_PEER_ACCESS: peer_d.access[0] = !ok; break;
    default: break;
    }
    p->scratch = NULL;
    return cudaSuccess;
}

/* ---- the call -------------------------------------------------------------------------- */

static int cu(CUresult r, const char **error) { return cts_driver_result(r, error); }

static int issue_copy(const struct cts_case *c, const struct plan *p, cudaStream_t s, const char **error)
{
    enum cudaMemcpyKind kind = cudaMemcpyDefault;
    if (c->kind == CTS_KIND_EXPLICIT)
        kind = c->dir == CTS_DIR_H2D ? cudaMemcpyHostToDevice : c->dir == CTS_DIR_D2H ? cudaMemcpyDeviceToHost
                                                                                    : cudaMemcpyDeviceToDevice;
    switch (c->api) {
    case CTS_API_MEMCPY_PEER_ASYNC:
        return cts_result(cudaMemcpyPeerAsync(p->dst, p->dstdev, p->src, p->srcdev, p->n, s), error);
    case CTS_API_MEMCPY_PEER: return cts_result(cudaMemcpyPeer(p->dst, p->dstdev, p->src, p->srcdev, p->n), error);
    case CTS_API_MEMCPY_ASYNC: return cts_result(cudaMemcpyAsync(p->dst, p->src, p->n, kind, s), error);
    case CTS_API_MEMCPY: return cts_result(cudaMemcpy(p->dst, p->src, p->n, kind), error);
    case CTS_API_MEMCPY_3D_PEER:
    case CTS_API_MEMCPY_3D_PEER_ASYNC: {
        struct cudaMemcpy3DPeerParms q;
        memset(&q, 0, sizeof q);
        q.srcPtr = (struct cudaPitchedPtr){(void *)p->src, WIDTH_3D, WIDTH_3D, p->n / WIDTH_3D};
        q.dstPtr = (struct cudaPitchedPtr){p->dst, WIDTH_3D, WIDTH_3D, p->n / WIDTH_3D};
        q.srcDevice = p->srcdev;
        q.dstDevice = p->dstdev;
        q.extent = (struct cudaExtent){WIDTH_3D, p->n / WIDTH_3D, 1};
        return cts_result(c->api == CTS_API_MEMCPY_3D_PEER ? cudaMemcpy3DPeer(&q) : cudaMemcpy3DPeerAsync(&q, s),
                          error);
    }
    case CTS_API_CU_MEMCPY_PEER:
        return cu(cts_drv.cuMemcpyPeer((CUdeviceptr)p->dst, peer_d.ctx[p->dstdev == peer_d.dev[0] ? 0 : 1],
                                       (CUdeviceptr)p->src, peer_d.ctx[p->srcdev == peer_d.dev[0] ? 0 : 1], p->n),
                  error);
    case CTS_API_CU_MEMCPY_PEER_ASYNC:
        return cu(cts_drv.cuMemcpyPeerAsync((CUdeviceptr)p->dst, peer_d.ctx[p->dstdev == peer_d.dev[0] ? 0 : 1],
                                            (CUdeviceptr)p->src, peer_d.ctx[p->srcdev == peer_d.dev[0] ? 0 : 1], p->n,
                                            (CUstream)s),
                  error);
#if CUDART_VERSION >= 12080
    case CTS_API_MEMCPY_BATCH_ASYNC: {
        void *dsts[1] = {p->dst};
        const void *srcs[1] = {p->src};
        size_t sizes[1] = {p->n}, idx[1] = {0};
        struct cudaMemcpyAttributes attr;
        memset(&attr, 0, sizeof attr);
        attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
#if CUDART_VERSION >= 13000
        return cts_result(cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, idx, 1, s), error);
#else
        size_t fail = 0;
        return cts_result(cudaMemcpyBatchAsync(dsts, (void **)srcs, sizes, 1, &attr, idx, 1, &fail, s), error);
#endif
    }
#endif
    default: *error = "harness: not a copy of the peer family"; return 1;
    }
}

static int issue_other(const struct cts_case *c, struct plan *p, cudaStream_t s, const char **error)
{
    switch (c->api) {
    case CTS_API_DEVICE_SYNCHRONIZE: return cts_result(cudaDeviceSynchronize(), error);
    case CTS_API_FREE: return cts_result(cudaFree(p->scratch), error);
    case CTS_API_FREE_HOST: return cts_result(cudaFreeHost(p->scratch), error);
    case CTS_API_MALLOC: return cts_result(cudaMalloc(&p->scratch, c->size), error);
    case CTS_API_MALLOC_HOST: return cts_result(cudaMallocHost(&p->scratch, c->size), error);
    case CTS_API_HOST_REGISTER:
        return cts_result(cudaHostRegister(p->scratch, c->size, cudaHostRegisterDefault), error);
    case CTS_API_STREAM_SYNCHRONIZE: return cts_result(cudaStreamSynchronize(s), error);
    case CTS_API_MEMCPY:
        return cts_result(cudaMemcpy(peer_d.buf[0], peer_d.pageable, c->size, cudaMemcpyHostToDevice), error);
    case CTS_API_SET_DEVICE: return cts_result(cudaSetDevice(peer_d.dev[1]), error);
    case CTS_API_LAUNCH: return cts_result(cts_launch_sleep(s, 0), error);
    case CTS_API_STREAM_WAIT_EVENT: return cts_result(cudaStreamWaitEvent(s, peer_d.event, 0), error);
    case CTS_API_EVENT_SYNCHRONIZE: return cts_result(cudaEventSynchronize(peer_d.event), error);
    case CTS_API_DEVICE_ENABLE_PEER_ACCESS: return cts_result(cudaDeviceEnablePeerAccess(peer_d.dev[1], 0), error);
    case CTS_API_DEVICE_DISABLE_PEER_ACCESS: return cts_result(cudaDeviceDisablePeerAccess(peer_d.dev[1]), error);
    default: *error = "harness: not a call of the peer family"; return 1;
    }
}

static int issue(const struct cts_case *c, struct plan *p, const char **error)
{
    cudaStream_t s = peer_op_stream(c);
    int bad = peer_is_copy(c) ? issue_copy(c, p, s, error) : issue_other(c, p, s, error);
    if (bad)
        (void)cudaGetLastError();
    return bad;
}

/* ---- one try ---------------------------------------------------------------------------- */

struct try {
    struct cts_beside_try t;   /* returned, early, call_us (cts_beside_decide) */
    int ok;                    /* the call returned success */
    const char *error;         /* ... else its error */
    double after_us;           /* from the first gate's opening to the return */
    enum cts_order ctl[MK_COUNT], seen[MK_COUNT];
    enum cts_dst dst, landed;
    long long moved;           /* a copy: destination bytes that are v (-1: not read) */
};

static int failed(char *why, size_t len, const char *what)
{
    (void)cudaGetLastError();
    snprintf(why, len, "harness: %s returned %s", peer_failed_at, what);
    char ignored[CTS_REASON_MAX];
    (void)peer_drain(ignored, sizeof ignored);
    (void)cudaSetDevice(peer_d.dev[0]);
    return -1;
}

/* 0; -1 with why (the harness); -2 (TIMEOUT). */
/* What one try made ready and holds (try_call). */
struct try_setup {
    struct plan p;
    unsigned seq;
    unsigned char v, u; /* the source's bytes and the destination's before the copy */
    int copy, nh, hk[2];
    cudaStream_t hs[2];
};

/* The call's memory or objects made, the work held on the peer (and here,
 * where the case says), an event recorded behind the peer's for a call that
 * waits on one, and the control's markers watched: 0; -1 with why. */
static int try_hold(const struct cts_case *c, struct try_setup *s, struct try *f, char *why, size_t len)
{
    s->seq = ++peer_d.seq;
    s->v = (unsigned char)(0x10 + s->seq % 0x60), s->u = s->v ^ 0x80;
    s->copy = peer_is_copy(c);
    cudaError_t err = s->copy ? plan_copy(c, &s->p, s->v, s->u) : prepare_other(c, &s->p);
    if (err != cudaSuccess)
        return failed(why, len, cudaGetErrorName(err));
    s->nh = peer_held_streams(c, s->hs, s->hk);
    for (int i = 0; i < s->nh; i++)
        if (peer_hold(s->hk[i], s->hs[i], why, len)) {
            char ignored[CTS_REASON_MAX];
            (void)peer_drain(ignored, sizeof ignored);
            return -1;
        }
    peer_failed_at = "";
    if (c->api == CTS_API_EVENT_SYNCHRONIZE || c->api == CTS_API_STREAM_WAIT_EVENT) {
        err = cudaSetDevice(peer_d.dev[1]);
        if (err == cudaSuccess)
            err = cudaEventRecord(peer_d.event, s->hs[0]);
        (void)cudaSetDevice(peer_d.dev[0]);
        if (err != cudaSuccess) {
            peer_failed_at = "cudaEventRecord on the peer's held stream";
            return failed(why, len, cudaGetErrorName(err));
        }
    }
    if ((err = peer_markers(c, s->seq)) != cudaSuccess)
        return failed(why, len, cudaGetErrorName(err));
    peer_watch(s->seq, s->hk, s->nh, f->ctl);
    for (int i = 0; i < MK_COUNT; i++)
        if (f->ctl[i] == CTS_ORDER_NA) {
            char ignored[CTS_REASON_MAX];
            (void)peer_drain(ignored, sizeof ignored);
            snprintf(why, len, "harness: a gate opened before the control's markers were seen");
            return -1;
        }
    return 0;
}

/* The call with the watchdogs armed for stall_us: its times, and whether it
 * returned with every gate closed, into f; 0, or -1 with why. */
static int try_the_call(const struct cts_case *c, struct try_setup *s, double stall_us, struct try *f, char *why,
                        size_t len)
{
    for (int i = 0; i < s->nh; i++)
        cts_sg_arm(&peer_d.g[s->hk[i]], stall_us);
    double t0 = cts_now_us();
    int bad = issue(c, &s->p, &f->error);
    double t1 = cts_now_us();
    int closed = 1;
    for (int i = 0; i < s->nh; i++)
        closed &= cts_sg_returned_closed(&peer_d.g[s->hk[i]]);
    if (c->api == CTS_API_SET_DEVICE && !bad && cudaSetDevice(peer_d.dev[0]) != cudaSuccess) {
        peer_failed_at = "cudaSetDevice back to this device";
        return failed(why, len, "an error");
    }
    f->ok = !bad;
    f->t.returned = closed;
    double rel = NAN;
    for (int i = 0; i < s->nh; i++) {
        double r = cts_sg_released_us(&peer_d.g[s->hk[i]]);
        if (!isnan(r) && (isnan(rel) || r < rel))
            rel = r;
    }
    f->t.early = !closed && (isnan(rel) || t1 < rel);
    f->t.filled = f->t.full = 1; /* nothing to fill: cts_beside_decide reads returned and the times */
    f->t.call_us = t1 - t0;
    f->after_us = closed ? NAN : t1 - rel;
    return 0;
}

/* After the call: a copy's landing and bytes, the markers (where it returned
 * with the gates closed), the drain, and the clean-up: 0; -1 or the drain's
 * status with why. */
static int try_finish(const struct cts_case *c, struct try_setup *s, struct try *f, char *why, size_t len)
{
    cudaError_t err;
    struct plan *p = &s->p;
    int copy = s->copy, closed = f->t.returned;
    if (copy && f->ok && c->op == CTS_OP_IMPLIED)
        f->landed = landed(p, s->v);
    if (copy && f->ok && p->dst_side < 0 && closed) {
        int all = 1;
        for (size_t i = 0; i < p->n; i += p->n / 4 > 0 ? p->n / 4 : 1)
            all &= ((volatile const unsigned char *)p->dst)[i] == s->v;
        f->dst = all ? CTS_DST_COMPLETE : CTS_DST_PENDING;
    }
    if (closed) {
        unsigned after = ++peer_d.seq;
        if ((err = peer_markers(c, after)) != cudaSuccess)
            return failed(why, len, cudaGetErrorName(err));
        peer_watch(after, s->hk, s->nh, f->seen);
    }
    int dr = peer_drain_held(s->hk, s->nh, why, len);
    if (dr)
        return dr;
    if (copy && f->ok)
        f->moved = count_moved(p, s->v);
    if ((err = cleanup_other(c, p, f->ok)) != cudaSuccess)
        return failed(why, len, cudaGetErrorName(err));
    if (copy && f->ok && f->moved < 0) {
        snprintf(why, len, "harness: the destination could not be read back");
        return -1;
    }
    return 0;
}

static int try_call(const struct cts_case *c, double stall_us, struct try *f, char *why, size_t len)
{
    struct try_setup s;
    memset(f, 0, sizeof *f);
    memset(&s, 0, sizeof s);
    f->moved = -1;
    int rc = try_hold(c, &s, f, why, len);
    if (rc == 0)
        rc = try_the_call(c, &s, stall_us, f, why, len);
    return rc ? rc : try_finish(c, &s, f, why, len);
}

/* ---- a case ------------------------------------------------------------------------------ */

/* The call on the idle GPU, IDLE_CALLS times: the slowest time (the stall time follows it). */
static int idle(const struct cts_case *c, double *slowest, char *why, size_t len)
{
    *slowest = 0;
    for (int i = 0; i < IDLE_CALLS; i++) {
        struct plan p;
        memset(&p, 0, sizeof p);
        unsigned char v = 0x33;
        cudaError_t err = peer_is_copy(c) ? plan_copy(c, &p, v, v ^ 0x80) : prepare_other(c, &p);
        if (err != cudaSuccess)
            return failed(why, len, cudaGetErrorName(err));
        const char *ename = NULL;
        double t0 = cts_now_us();
        int bad = issue(c, &p, &ename);
        double t1 = cts_now_us();
        if (c->api == CTS_API_SET_DEVICE)
            (void)cudaSetDevice(peer_d.dev[0]);
        if (t1 - t0 > *slowest)
            *slowest = t1 - t0;
        char ignored[CTS_REASON_MAX];
        int dr = peer_drain(ignored, sizeof ignored);
        if (dr) {
            snprintf(why, len, "%s", ignored);
            return dr;
        }
        if ((err = cleanup_other(c, &p, !bad)) != cudaSuccess)
            return failed(why, len, cudaGetErrorName(err));
    }
    return 0;
}

static void record(const struct cts_case *c, struct cts_rep *r, const struct try *f, int waited)
{
    r->host = waited ? CTS_HOST_WAITS : CTS_HOST_RETURNS;
    r->call_us = f->t.call_us;
    r->landed = f->landed;
    if (!waited) {
        r->op_after = f->seen[MK_OP];
        r->third_blocking = f->seen[MK_THIRD_BL];
        r->third_nonblocking = f->seen[MK_THIRD_NB];
        r->dst = f->dst;
    }
    const char *clause;
    if (!f->ok && peer_rejects(c, &clause)) {
        r->rejected = f->error; /* refused, as the clause allows */
    } else if (!f->ok) {
        r->status = CTS_FAIL;
        snprintf(r->reason, sizeof r->reason, "%s returned %s (refused)", cts_api_function(c->api), f->error);
    } else if (f->moved >= 0 && (size_t)f->moved != c->size) {
        r->status = CTS_FAIL;
        if (f->moved == 0)
            snprintf(r->reason, sizeof r->reason,
                     "%s returned cudaSuccess but moved nothing: all %zu destination bytes kept their old value",
                     cts_api_function(c->api), c->size);
        else
            snprintf(r->reason, sizeof r->reason,
                     "%s returned cudaSuccess but moved only %lld of %zu bytes (the rest kept their old value)",
                     cts_api_function(c->api), f->moved, c->size);
    }
}

static void rep_peer(const struct cts_case *c, double stall_us, struct cts_rep *r, struct cts_result *res)
{
    char seen[160] = "";
    double grow = (STALL_FACTOR - 1) * stall_us;
    for (int t = 0; t < TRIES; t++) {
        struct try a, b;
        int bad = try_call(c, stall_us, &a, r->reason, sizeof r->reason);
        if (bad) {
            r->status = bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
            return;
        }
        if (res->nreps == 1 && t == 0) { /* the control: the first try's */
            res->control.op_after = a.ctl[MK_OP];
            res->control.third_blocking = a.ctl[MK_THIRD_BL];
            res->control.third_nonblocking = a.ctl[MK_THIRD_NB];
        }
        r->timeout_us = stall_us;
        int again;
        enum cts_host h = cts_beside_decide(&a.t, NULL, grow, TRACK_FRACTION, &again);
        if (h == CTS_HOST_RETURNS) {
            record(c, r, &a, 0);
            return;
        }
        if (again) {
            bad = try_call(c, stall_us * STALL_FACTOR, &b, r->reason, sizeof r->reason);
            if (bad) {
                r->status = bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
                return;
            }
            if (cts_beside_decide(&a.t, &b.t, grow, TRACK_FRACTION, &again) == CTS_HOST_WAITS) {
                record(c, r, &b, 1);
                r->timeout_us = stall_us * STALL_FACTOR;
                r->release_to_return_us = b.after_us;
                r->tracked_from_timeout_us = stall_us;
                r->tracked_from_call_us = a.t.call_us;
                return;
            }
        }
        res->window_retries++;
        size_t n = strlen(seen);
        snprintf(seen + n, sizeof seen - n, "%s%s", t ? "; " : "",
                 a.t.returned ? "returned" : a.t.early ? "returned before the watchdog opened a gate" : "waited");
    }
    r->host = CTS_HOST_NA;
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason, "no try proved the call, %d tries: %s", TRIES, seen);
}

void peer_measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    res->control_own = 1;
    res->synchronous = !cts_api_takes_stream(c->api);
    if (peer_setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", peer_d.why);
        return;
    }
    double slowest = 0;
    int bad = idle(c, &slowest, res->reason, sizeof res->reason);
    if (bad) {
        res->status = bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
        return;
    }
    double stall_us = fmax(STALL_US, 4 * slowest);
    for (struct cts_rep *r; (r = cts_rep_next(res, repeat));)
        rep_peer(c, stall_us, r, res);
    cts_classify_measured(res, stall_us);
    res->idle_call_us = res->idle_call_max_us = slowest;
}
