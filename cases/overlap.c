#define _GNU_SOURCE
/* The overlap family: two operations A and B, issued one after the other
 * into two streams, A's (the op stream) and B's (the busy placement: `same`
 * is A's stream itself): do they run at once?
 *
 * A and B are each one of: a kernel of a set duration (1 block, 1 thread,
 * 1 ms), a pinned host-to-device and device-to-host copy (32 MiB), a pageable
 * one (8 MiB: past the 2 MiB where a pageable cudaMemcpyAsync starts to block
 * the host, so that B is issued only when A is done), a device-to-device copy
 * and a memset (1 GiB each), a host function (spinning 1 ms), and the pinned
 * copies as one cudaMemcpyBatchAsync of 8 copies of 4 MiB in stream order
 * (issue 41 item 1: do batched copies overlap a kernel, and each other?).
 * Every ordered pair, on the legacy, per-thread, blocking and non-blocking op
 * streams with B on each placement (a batch copy on the legacy stream, which
 * it refuses, left out).
 *
 * One repetition: A alone, B alone (each on its own stream), then the pair,
 * with events recorded right before and after each operation on its stream.
 * cts_pair_judge (harness/core/classify.c) compares the pair's makespan with the
 * times alone: overlaps, partial, shares or serializes; B's start event at
 * or after A's end event proves serializes.  An undecided measurement is
 * taken again (3 times at most), then INCONCLUSIVE.  Nothing is held: the
 * gate is not used, and settings under which the engine cannot hold work
 * (CUDA_DEVICE_MAX_CONNECTIONS=1) are measured too.
 *
 * Stream priority: B a kernel on a stream of the highest priority
 * (with_kernel_high, blocking and non-blocking placements), behind each A:
 * does a device copy or memset that holds the SMs let it in?
 *
 * The staged-copy patterns (variants staged_v1, staged_v2, staged_v3, on
 * STAGES blocking or non-blocking streams): one 32 MiB pinned array in
 * STAGES slices, each copied in, worked on by a kernel and copied out.
 * Sequential (the reference): all of it in one stream; V1: each stream its
 * slice's copy in, kernel, copy out; V2: every copy in, then every kernel,
 * then every copy out; V3: V2 with an event recorded after each kernel.
 * A repetition times each phase alone (the whole array), the sequential
 * version and the staged one; cts_staged_judge reads the share of the time
 * perfect overlap would save that the version saved. */
#include "../harness/core/cts.h"
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"
#include "../harness/core/spec.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum op { KERNEL, H2D_PINNED, D2H_PINNED, H2D_PAGEABLE, D2H_PAGEABLE, D2D, MEMSET, HOSTFN, H2D_BATCH, D2H_BATCH,
          NOPS };
static const char *const op_names[NOPS] = {"kernel", "h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable",
                                           "d2d", "memset", "hostfn", "h2d_batch", "d2h_batch"};
#define BATCH 8 /* the batch copies' copies: PINNED_BYTES in as many slices */
#define PINNED_BYTES ((size_t)32 << 20)
#define PAGEABLE_BYTES ((size_t)8 << 20)
#define DEVICE_BYTES ((size_t)1 << 30)
#define KERNEL_NS 1000000ull
#define HOSTFN_US 1000.0
#define TRIES 3
#define STAGES 4
#define STAGE_ITERS 1500
static const char *const staged[] = {"staged_v1", "staged_v2", "staged_v3"};
#define KERNEL_HIGH "kernel_high" /* B: the kernel, on a stream of the highest priority */


static const enum cts_op op_streams[] = {CTS_OP_LEGACY, CTS_OP_PERTHREAD, CTS_OP_BLOCKING,
                                         CTS_OP_NONBLOCKING};
static const enum cts_busy b_streams[] = {CTS_BUSY_SAME, CTS_BUSY_LEGACY, CTS_BUSY_BLOCKING,
                                          CTS_BUSY_NONBLOCKING, CTS_BUSY_PERTHREAD};

static int is_batch(int o) { return o == H2D_BATCH || o == D2H_BATCH; }

/* A batch copy would be made on the legacy stream, which cudaMemcpyBatchAsync refuses. */
static int batch_on_legacy(int a, int b, enum cts_op op, enum cts_busy busy)
{
    int a_legacy = op == CTS_OP_LEGACY, b_legacy = busy == CTS_BUSY_LEGACY || (busy == CTS_BUSY_SAME && a_legacy);
    return (is_batch(a) && a_legacy) || (is_batch(b) && b_legacy);
}

/* Writes one case into out[n] (if it fits) and returns n + 1. */
static size_t put(struct cts_case *out, size_t cap, size_t n, const char *a, const char *with, enum cts_op op,
                  enum cts_busy busy)
{
    if (out && n < cap) {
        out[n] = (struct cts_case){.family = &cts_family_overlap, .api = CTS_API_OVERLAP, .variant = a,
                                   .with = with, .dir = CTS_DIR_NONE, .mem = CTS_MEM_NONE, .size_idx = -1,
                                   .kind = CTS_KIND_NONE, .op = op, .busy = busy};
        cts_case_make_id(&out[n]);
    }
    return n + 1;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0, nops = sizeof op_streams / sizeof *op_streams, nb = sizeof b_streams / sizeof *b_streams;
    for (int a = 0; a < NOPS; a++) { /* A's cases together: one CTest group */
        for (int b = 0; b < NOPS; b++) /* every ordered pair, every (A's stream, B's) */
            for (size_t o = 0; o < nops; o++)
                for (size_t p = 0; p < nb; p++)
                    if (!cts_busy_is_op_stream(op_streams[o], b_streams[p]) &&
                        !batch_on_legacy(a, b, op_streams[o], b_streams[p]))
                        n = put(out, cap, n, op_names[a], op_names[b], op_streams[o], b_streams[p]);
        for (size_t o = 0; o < nops; o++) /* B a kernel of the highest priority, on a created stream */
            for (int k = 0; k < 2 && !batch_on_legacy(a, KERNEL, op_streams[o], CTS_BUSY_BLOCKING); k++)
                n = put(out, cap, n, op_names[a], KERNEL_HIGH, op_streams[o],
                        k ? CTS_BUSY_NONBLOCKING : CTS_BUSY_BLOCKING);
    }
    for (size_t v = 0; v < sizeof staged / sizeof *staged; v++) /* the staged copies, on created streams */
        for (int k = 0; k < 2; k++)
            n = put(out, cap, n, staged[v], NULL, k ? CTS_OP_NONBLOCKING : CTS_OP_BLOCKING,
                    k ? CTS_BUSY_NONBLOCKING : CTS_BUSY_BLOCKING);
    return out ? (n < cap ? n : cap) : n;
}

/* The family's own: streams, buffers, events; set up at its first case. */
static struct {
    int ready;
    char why[CTS_REASON_MAX]; /* set up failed: every case says why */
    cudaStream_t blocking[2], nonblocking[2];
    void *pinned[2], *pageable[2], *dev[2], *big[4];
    cudaEvent_t ev[4];
    cudaStream_t stage[2][STAGES]; /* blocking, non-blocking */
    cudaStream_t high[2];          /* blocking, non-blocking, the highest priority */
    cudaEvent_t stage_ev[2 + 2 * STAGES];
} f;

static void parse_ops(const struct cts_case *c, enum op *a, enum op *b)
{
    *a = *b = NOPS;
    for (int i = 0; i < NOPS; i++) {
        if (c->variant && !strcmp(c->variant, op_names[i]))
            *a = (enum op)i;
        if (c->with && !strcmp(c->with, op_names[i]))
            *b = (enum op)i;
    }
    if (c->with && !strcmp(c->with, KERNEL_HIGH))
        *b = KERNEL;
}

static int setup(void)
{
    if (f.ready)
        return f.why[0] ? -1 : 0;
    f.ready = 1;
    cudaError_t err = cudaSuccess;
    const char *what = "";
#define TRY(x) do { if (err == cudaSuccess && (err = (x)) != cudaSuccess) what = #x; } while (0)
    for (int i = 0; i < 2; i++) {
        TRY(cudaStreamCreateWithFlags(&f.blocking[i], cudaStreamDefault));
        TRY(cudaStreamCreateWithFlags(&f.nonblocking[i], cudaStreamNonBlocking));
        TRY(cudaMallocHost(&f.pinned[i], PINNED_BYTES));
        TRY(cudaMalloc(&f.dev[i], PINNED_BYTES));
        if (err == cudaSuccess && !(f.pageable[i] = malloc(PAGEABLE_BYTES)))
            err = cudaErrorMemoryAllocation, what = "malloc";
        if (err == cudaSuccess)
            memset(f.pageable[i], i + 1, PAGEABLE_BYTES); /* its pages exist */
    }
    for (int i = 0; i < 4; i++)
        TRY(cudaMalloc(&f.big[i], DEVICE_BYTES));
    for (int i = 0; i < 4; i++)
        TRY(cudaEventCreate(&f.ev[i]));
    int least = 0, greatest = 0;
    TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (int k = 0; k < 2; k++)
        TRY(cudaStreamCreateWithPriority(&f.high[k], k ? cudaStreamNonBlocking : cudaStreamDefault, greatest));
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < STAGES; i++)
            TRY(cudaStreamCreateWithFlags(&f.stage[k][i], k ? cudaStreamNonBlocking : cudaStreamDefault));
    for (int i = 0; i < 2 + 2 * STAGES; i++)
        TRY(cudaEventCreate(&f.stage_ev[i]));
    TRY(cudaDeviceSynchronize());
#undef TRY
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(f.why, sizeof f.why, "harness: the overlap family's set-up failed: %s returned %s", what,
                 cudaGetErrorName(err));
        return -1;
    }
    return 0;
}

static cudaStream_t a_stream(enum cts_op op)
{
    switch (op) {
    case CTS_OP_LEGACY: return cudaStreamLegacy;
    case CTS_OP_PERTHREAD: return cudaStreamPerThread;
    case CTS_OP_BLOCKING: return f.blocking[0];
    default: return f.nonblocking[0];
    }
}

static cudaStream_t b_stream(const struct cts_case *c)
{
    if (c->with && !strcmp(c->with, KERNEL_HIGH))
        return f.high[c->busy == CTS_BUSY_NONBLOCKING];
    switch (c->busy) {
    case CTS_BUSY_LEGACY: return cudaStreamLegacy;
    case CTS_BUSY_PERTHREAD: return cudaStreamPerThread;
    case CTS_BUSY_BLOCKING: return f.blocking[1];
    case CTS_BUSY_NONBLOCKING: return f.nonblocking[1];
    default: return a_stream(c->op);
    }
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void CUDART_CB host_spin(void *arg)
{
    (void)arg;
    double t0 = now_us();
    while (now_us() - t0 < HOSTFN_US)
        ;
}

/* The pinned copy of slot's buffers as one batch of BATCH copies, in stream order. */
static cudaError_t issue_batch(int to_device, int slot, cudaStream_t s)
{
#if CUDART_VERSION >= 12080
    void *dsts[BATCH];
    const void *srcs[BATCH];
    size_t sizes[BATCH], idx[1] = {0}, slice = PINNED_BYTES / BATCH;
    char *host = f.pinned[slot], *dev = f.dev[slot];
    for (int i = 0; i < BATCH; i++) {
        dsts[i] = (to_device ? dev : host) + i * slice;
        srcs[i] = (to_device ? host : dev) + i * slice;
        sizes[i] = slice;
    }
    struct cudaMemcpyAttributes attr;
    memset(&attr, 0, sizeof attr);
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
#if CUDART_VERSION >= 13000
    return cudaMemcpyBatchAsync(dsts, srcs, sizes, BATCH, &attr, idx, 1, s);
#else
    size_t fail = 0;
    return cudaMemcpyBatchAsync(dsts, (void **)srcs, sizes, BATCH, &attr, idx, 1, &fail, s);
#endif
#else
    (void)to_device, (void)slot, (void)s;
    return cudaErrorNotSupported; /* needs() says NOTSUPP first */
#endif
}

/* Issues operation o with slot's buffers (A: 0, B: 1) on s. */
static cudaError_t issue_op(enum op o, int slot, cudaStream_t s)
{
    switch (o) {
    case KERNEL: return cts_launch_sleep(s, KERNEL_NS);
    case H2D_PINNED: return cudaMemcpyAsync(f.dev[slot], f.pinned[slot], PINNED_BYTES, cudaMemcpyHostToDevice, s);
    case D2H_PINNED: return cudaMemcpyAsync(f.pinned[slot], f.dev[slot], PINNED_BYTES, cudaMemcpyDeviceToHost, s);
    case H2D_PAGEABLE:
        return cudaMemcpyAsync(f.dev[slot], f.pageable[slot], PAGEABLE_BYTES, cudaMemcpyHostToDevice, s);
    case D2H_PAGEABLE:
        return cudaMemcpyAsync(f.pageable[slot], f.dev[slot], PAGEABLE_BYTES, cudaMemcpyDeviceToHost, s);
    case D2D: return cudaMemcpyAsync(f.big[2 * slot + 1], f.big[2 * slot], DEVICE_BYTES, cudaMemcpyDeviceToDevice, s);
    case MEMSET: return cudaMemsetAsync(f.big[2 * slot + 1], slot + 1, DEVICE_BYTES, s);
    case HOSTFN: return cudaLaunchHostFunc(s, host_spin, NULL);
    case H2D_BATCH: return issue_batch(1, slot, s);
    case D2H_BATCH: return issue_batch(0, slot, s);
    default: return cudaErrorInvalidValue;
    }
}

/* Events ev[0], ev[1] around A on sa; ev[2], ev[3] around B on sb (b NOPS:
 * A alone).  Times from ev[0]; *issue_us: the host's time issuing them. */
static cudaError_t run(enum op a, cudaStream_t sa, enum op b, cudaStream_t sb, double t[4], double *issue_us,
                       const char **what)
{
    cudaError_t err;
#define STEP(x) do { if ((err = (x)) != cudaSuccess) { *what = #x; return err; } } while (0)
    STEP(cudaDeviceSynchronize());
    double t0 = now_us();
    STEP(cudaEventRecord(f.ev[0], sa));
    STEP(issue_op(a, 0, sa));
    STEP(cudaEventRecord(f.ev[1], sa));
    if (b != NOPS) {
        STEP(cudaEventRecord(f.ev[2], sb));
        STEP(issue_op(b, 1, sb));
        STEP(cudaEventRecord(f.ev[3], sb));
    }
    *issue_us = now_us() - t0;
    STEP(cudaDeviceSynchronize());
    t[0] = 0;
    for (int i = 1; i < (b != NOPS ? 4 : 2); i++) {
        float ms;
        STEP(cudaEventElapsedTime(&ms, f.ev[0], f.ev[i]));
        t[i] = (double)ms * 1e3;
    }
#undef STEP
    return cudaSuccess;
}

/* A harness call failed inside a repetition: clear the error, drain the
 * device, and mark the repetition BROKEN naming the call.  Returns -1. */
static int rep_broken(struct cts_rep *r, const char *what, cudaError_t err)
{
    (void)cudaGetLastError();
    (void)cudaDeviceSynchronize();
    r->status = CTS_BROKEN;
    snprintf(r->reason, sizeof r->reason, "harness: %s returned %s", what, cudaGetErrorName(err));
    return -1;
}

/* One measured repetition: A alone, B alone, the pair; judged. */
static int measure_rep(const struct cts_case *c, enum op a, enum op b, struct cts_rep *r, double *alone_issue)
{
    cudaStream_t sa = a_stream(c->op), sb = b_stream(c);
    double ta[4], tb[4], tp[4], ia, ib, ip;
    const char *what = "";
    cudaError_t err = run(a, sa, NOPS, sb, ta, &ia, &what);
    if (err == cudaSuccess)
        err = run(b, sb, NOPS, sa, tb, &ib, &what);
    if (err == cudaSuccess)
        err = run(a, sa, b, sb, tp, &ip, &what);
    if (err != cudaSuccess)
        return rep_broken(r, what, err);
    struct cts_pair_obs *p = &r->pair;
    p->a_alone_us = ta[1];
    p->b_alone_us = tb[1];
    p->a_start_us = tp[0];
    p->a_end_us = tp[1];
    p->b_start_us = tp[2];
    p->b_end_us = tp[3];
    p->issue_us = ip;
    r->call_us = ip;
    *alone_issue = ia + ib;
    cts_pair_judge(p);
    return 0;
}

cudaError_t cts_launch_stage(float *a, size_t n, int iters, cudaStream_t s);

/* One staged version (0 sequential, 1..3: V1..V3), or one phase alone
 * (-1 copy in, -2 kernel, -3 copy out), timed by events; in *us. */
static cudaError_t run_staged(int version, cudaStream_t *s, double *us, const char **what)
{
    cudaError_t err;
    float *h = f.pinned[0], *d = f.dev[0];
    size_t n = PINNED_BYTES / sizeof(float), slice = n / STAGES;
    cudaEvent_t start = f.stage_ev[0], end = f.stage_ev[1], *done = f.stage_ev + 2, *mid = done + STAGES;
#define STEP(x) do { if ((err = (x)) != cudaSuccess) { *what = #x; return err; } } while (0)
#define IN(i) cudaMemcpyAsync(d + (i) * slice, h + (i) * slice, slice * sizeof(float), cudaMemcpyHostToDevice, s[i])
#define WORK(i) cts_launch_stage(d + (i) * slice, slice, STAGE_ITERS, s[i])
#define OUT(i) cudaMemcpyAsync(h + (i) * slice, d + (i) * slice, slice * sizeof(float), cudaMemcpyDeviceToHost, s[i])
    STEP(cudaDeviceSynchronize());
    STEP(cudaEventRecord(start, s[0]));
    for (int i = 1; i < STAGES; i++)
        STEP(cudaStreamWaitEvent(s[i], start, 0));
    if (version == -1)
        STEP(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s[0]));
    else if (version == -2)
        STEP(cts_launch_stage(d, n, STAGE_ITERS, s[0]));
    else if (version == -3 || version == 0) {
        if (version == 0) {
            STEP(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s[0]));
            STEP(cts_launch_stage(d, n, STAGE_ITERS, s[0]));
        }
        STEP(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s[0]));
    } else if (version == 1) {
        for (int i = 0; i < STAGES; i++) {
            STEP(IN(i));
            STEP(WORK(i));
            STEP(OUT(i));
        }
    } else {
        for (int i = 0; i < STAGES; i++)
            STEP(IN(i));
        for (int i = 0; i < STAGES; i++) {
            STEP(WORK(i));
            if (version == 3)
                STEP(cudaEventRecord(mid[i], s[i]));
        }
        for (int i = 0; i < STAGES; i++)
            STEP(OUT(i));
    }
    for (int i = 1; i < STAGES; i++) {
        STEP(cudaEventRecord(done[i], s[i]));
        STEP(cudaStreamWaitEvent(s[0], done[i], 0));
    }
    STEP(cudaEventRecord(end, s[0]));
    STEP(cudaEventSynchronize(end));
    float ms;
    STEP(cudaEventElapsedTime(&ms, start, end));
    *us = (double)ms * 1e3;
#undef IN
#undef WORK
#undef OUT
#undef STEP
    return cudaSuccess;
}

/* One repetition of a staged-copy case: the phases alone, sequential, the version. */
static int measure_staged_rep(const struct cts_case *c, int version, struct cts_rep *r)
{
    cudaStream_t *s = f.stage[c->op == CTS_OP_NONBLOCKING];
    struct cts_staged_obs *o = &r->staged;
    double *at[] = {&o->h2d_us, &o->kernel_us, &o->d2h_us, &o->sequential_us, &o->version_us};
    int runs[] = {-1, -2, -3, 0, version};
    const char *what = "";
    for (int k = 0; k < 5; k++) {
        cudaError_t err = run_staged(runs[k], s, at[k], &what);
        if (err != cudaSuccess)
            return rep_broken(r, what, err);
    }
    r->pair.overlap = cts_staged_judge(o);
    r->call_us = 0; /* filled by the caller: the host's time is not this measurement's subject */
    return 0;
}

/* Once, before the first measurement: first-use costs (pageable staging, the
 * host-function thread, the stage kernel's module) outside the measurements.
 * 0, or -1 with res BROKEN. */
static int warm_up(struct cts_result *res)
{
    static int warm;
    const char *what = "";
    for (int o = 0; !warm && o < NOPS; o++) {
        double t[4], i;
        if (is_batch(o) && CUDART_VERSION < 12080)
            continue;
        if (run((enum op)o, f.nonblocking[0], NOPS, f.nonblocking[1], t, &i, &what) != cudaSuccess)
            goto fail;
    }
    for (int v = -3; !warm && v <= 3; v++) {
        double us;
        if (run_staged(v, f.stage[1], &us, &what) != cudaSuccess)
            goto fail;
    }
    warm = 1;
    return 0;
fail:
    (void)cudaGetLastError();
    res->status = CTS_BROKEN;
    snprintf(res->reason, sizeof res->reason, "harness: warming up the overlap family: %s failed", what);
    return -1;
}

/* One repetition into r, measured again while its times give no fraction
 * (TRIES times at most, then INCONCLUSIVE); *host_us: the host's time for it. */
static void one_rep(const struct cts_case *c, enum op a, enum op b, int version, struct cts_result *res,
                    struct cts_rep *r, double *host_us)
{
    *host_us = 0; /* where the repetition breaks before it is measured */
    for (int t = 0; t < TRIES; t++) {
        cts_rep_begin(r);
        r->timeout_us = NAN;
        if (version) {
            double t0 = now_us();
            if (measure_staged_rep(c, version, r))
                return;
            *host_us = r->call_us = now_us() - t0; /* the host's time for the five runs */
        } else if (measure_rep(c, a, b, r, host_us)) {
            return;
        }
        if (r->pair.overlap != CTS_OVERLAP_NA)
            return;
        res->window_retries++; /* no fraction: measured again */
    }
    r->status = CTS_INCONCLUSIVE;
    if (version)
        snprintf(r->reason, sizeof r->reason,
                 "the staged version's times gave no fraction %d times (the sequential run was not longer "
                 "than its longest phase)", TRIES);
    else
        snprintf(r->reason, sizeof r->reason,
                 "the pair's times gave no overlap fraction %d times (an operation alone took no time)",
                 TRIES);
}

static void measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    enum op a, b;
    parse_ops(c, &a, &b);
    memset(res, 0, sizeof *res);
    int version = 0;
    for (size_t v = 0; v < sizeof staged / sizeof *staged; v++)
        if (c->variant && !strcmp(c->variant, staged[v]))
            version = (int)v + 1;
    int unknown = a == NOPS && !version;
    if (unknown || setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", unknown ? "harness: not an overlap case" : f.why);
        return;
    }
    if (warm_up(res))
        return;
    if (repeat > CTS_MAX_REPEAT)
        repeat = CTS_MAX_REPEAT;
    double host[CTS_MAX_REPEAT];
    for (int i = 0; i < repeat; i++) {
        res->nreps = i + 1;
        one_rep(c, a, b, version, res, &res->reps[i], &host[i]);
        if (res->reps[i].status != CTS_PASS)
            break;
    }
    qsort(host, (size_t)res->nreps, sizeof *host, cts_cmp_double);
    res->idle_call_us = res->idle_call_max_us = host[res->nreps / 2];
    res->idle_complete_us = res->idle_complete_max_us = NAN;
    res->timeout_us = res->window_us = NAN;
    cts_classify(res);
}

/* Whether stream kind a is one the legacy default stream synchronizes with
 * (a blocking stream, the per-thread default stream), or is it. */
static int legacy_side(enum cts_busy b)
{
    return b == CTS_BUSY_LEGACY || b == CTS_BUSY_BLOCKING || b == CTS_BUSY_PERTHREAD;
}

/* One stream: in order.  The legacy stream against a blocking one (either
 * side): PG-IMPLICIT, "any CUDA command to the NULL stream" between them.
 * The rest, which the documentation allows but never promises, RECORDED. */
static void judge(struct cts_judge *j)
{
    const struct cts_case *c = j->c;
    enum cts_busy a = c->op == CTS_OP_LEGACY ? CTS_BUSY_LEGACY
                      : c->op == CTS_OP_PERTHREAD ? CTS_BUSY_PERTHREAD
                      : c->op == CTS_OP_BLOCKING  ? CTS_BUSY_BLOCKING
                                                  : CTS_BUSY_NONBLOCKING;
    if (c->busy == CTS_BUSY_SAME)
        cts_judge_add(j, "PG-STREAM-ORDER", CTS_ABOUT_CONCURRENT, CTS_PRED_GUARANTEED_NOT);
    else if ((a == CTS_BUSY_LEGACY && legacy_side(c->busy)) || (c->busy == CTS_BUSY_LEGACY && legacy_side(a)))
        cts_judge_add(j, "PG-IMPLICIT", CTS_ABOUT_CONCURRENT, CTS_PRED_GUARANTEED_NOT);
}

/* A batch copy needs a runtime that has cudaMemcpyBatchAsync (12.8). */
static int needs(const struct cts_case *c, char *why, size_t len)
{
    enum op a, b;
    parse_ops(c, &a, &b);
    if (CUDART_VERSION >= 12080 || (!is_batch(a) && !is_batch(b)))
        return 0;
    snprintf(why, len, "not in runtime %d.%d: cudaMemcpyBatchAsync appeared in 12.8", CUDART_VERSION / 1000,
             CUDART_VERSION % 1000 / 10);
    return -1;
}

const struct cts_family cts_family_overlap = {
    .name = "overlap", .generate = generate, .measure = measure, .needs = needs,
    .judge = judge, /* PG-STREAM-ORDER and PG-IMPLICIT: harness/core/clauses.def */
};
