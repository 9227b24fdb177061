#define _GNU_SOURCE
/* The capture family: one CUDA call made while a stream captures a graph.
 * Which calls does a capture accept into the graph, let run at once, refuse
 * with the capture intact, or end (invalidate), and does that depend on the
 * capture's mode, the calling thread's own mode and where the call is made?
 *
 * A case: the op stream (blocking or non-blocking, created for the
 * repetition) begins capturing in mode `capture` (Global, ThreadLocal or
 * Relaxed); the calling thread sets its own interaction mode to `capture_by`
 * (cudaThreadExchangeStreamCaptureMode, restored right after) and makes the
 * call on the placement `busy` names: busy_same the capturing stream (a call
 * that takes no stream: made by the capturing thread), busy_blocking /
 * busy_nonblocking another stream of that thread, busy_legacy /
 * busy_perthread its legacy or per-thread default stream; busy_thread_same
 * the capturing stream from a second thread (a call that takes no stream:
 * that thread), busy_thread_legacy / busy_thread_perthread that thread's.
 *
 * Observed, each proven, never timed: the call's return code; the capture's
 * status right after (cudaStreamIsCapturing, from the capturing thread);
 * cudaStreamEndCapture's return and the graph's nodes (their types); the
 * operation's effect (bytes of a 1 MiB device buffer, or a host function's
 * flag) once the capture has ended and the device drained, before any launch
 * (ran at once) and after the graph's launch (captured).  cts_capture_judge
 * (harness/core/classify.c) names the outcome.  Every repetition ends its capture
 * and checks that no capture is left; nothing is held (no gate). */
#include "../harness/core/cts.h"
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"
#include "../harness/core/pattern.h"
#include "../harness/core/spec.h"

#include "../harness/families/driver.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES ((size_t)1 << 20)
#define SRC_BYTE 0x33
#define SET_BYTE 0x5a
#define SEED 7

/* The calls: those that take a stream, then those that do not. */
static const enum cts_api stream_calls[] = {
    CTS_API_MEMCPY_ASYNC, CTS_API_MEMSET_ASYNC, CTS_API_LAUNCH, CTS_API_LAUNCH_HOST_FUNC, CTS_API_EVENT_RECORD,
    CTS_API_STREAM_WAIT_EVENT, CTS_API_STREAM_QUERY, CTS_API_STREAM_SYNCHRONIZE, CTS_API_MALLOC_ASYNC,
    CTS_API_FREE_ASYNC, CTS_API_STREAM_IS_CAPTURING, CTS_API_STREAM_GET_CAPTURE_INFO, CTS_API_MEMCPY_BATCH_ASYNC,
};
static const enum cts_api plain_calls[] = {
    CTS_API_EVENT_QUERY, CTS_API_EVENT_SYNCHRONIZE, CTS_API_DEVICE_SYNCHRONIZE, CTS_API_MALLOC, CTS_API_FREE,
    CTS_API_MEMCPY, CTS_API_MEMSET, CTS_API_MALLOC_HOST, CTS_API_HOST_REGISTER, CTS_API_MEM_GET_INFO,
    CTS_API_MEMPOOL_TRIM_TO, CTS_API_MEMPOOL_SET_ATTRIBUTE, CTS_API_CU_MODULE_LOAD_DATA,
};
/* Variant "captured": the event queried or waited for was recorded into the
 * capturing stream right before the call (else it was recorded, and is
 * complete, before the capture began). */
#define CAPTURED "captured"
static const enum cts_api event_calls[] = {CTS_API_EVENT_QUERY, CTS_API_EVENT_SYNCHRONIZE};
/* Variant "external": cudaStreamWaitEvent with cudaEventWaitExternal, for an
 * event recorded (and complete) before the capture began. */
#define EXTERNAL "external"
/* The capture calls themselves, made while a capture runs: cudaStreamBeginCapture
 * (in the capture's mode) and cudaStreamEndCapture, on the capturing stream,
 * a non-blocking stream of the capturing thread, its legacy stream, and the
 * capturing stream from the second thread.  A second capture begun on the
 * non-blocking stream is ended by the capturing thread right after the call;
 * a graph that cudaStreamEndCapture returned is destroyed after the
 * repetition.  Neither is warmed up (the harness begins and ends a capture
 * every repetition). */
static const enum cts_api capture_calls[] = {CTS_API_STREAM_BEGIN_CAPTURE, CTS_API_STREAM_END_CAPTURE};
static const enum cts_busy capture_call_places[] = {CTS_BUSY_SAME, CTS_BUSY_NONBLOCKING, CTS_BUSY_LEGACY,
                                                    CTS_BUSY_THREAD_SAME};
static const enum cts_busy stream_places[] = {
    CTS_BUSY_SAME, CTS_BUSY_BLOCKING, CTS_BUSY_NONBLOCKING, CTS_BUSY_LEGACY, CTS_BUSY_PERTHREAD,
    CTS_BUSY_THREAD_SAME, CTS_BUSY_THREAD_LEGACY, CTS_BUSY_THREAD_PERTHREAD,
};
static const enum cts_busy plain_places[] = {CTS_BUSY_SAME, CTS_BUSY_THREAD_SAME};
/* Calls a second thread makes on the other device (busy_thread_peer: that device current;
 * NOTSUPP with one device): does a call on GPU 1 end a capture on GPU 0?  Those of the plain
 * calls that touch no memory of this device. */
static const enum cts_api peer_calls[] = {
    CTS_API_EVENT_QUERY, CTS_API_EVENT_SYNCHRONIZE, CTS_API_DEVICE_SYNCHRONIZE, CTS_API_MALLOC,
    CTS_API_MALLOC_HOST, CTS_API_HOST_REGISTER, CTS_API_MEM_GET_INFO,
};
/* The capturing stream: a blocking or non-blocking one made for the
 * repetition, or the capturing thread's per-thread default stream (whose
 * handle names another stream in the second thread: busy_thread_same is then
 * declared for the calls that take no stream only, and busy_perthread is the
 * capturing stream itself). */
static const enum cts_op capturing[] = {CTS_OP_BLOCKING, CTS_OP_NONBLOCKING, CTS_OP_PERTHREAD};

/* Variant "first": cudaLaunchKernel of a kernel never launched before in the
 * process (the first_launch family's pool, kernels/first_launch.cu): under
 * lazy loading the launch loads it.  Each repetition takes another. */
#define FIRST "first"
static const enum cts_busy first_places[] = {CTS_BUSY_SAME, CTS_BUSY_NONBLOCKING, CTS_BUSY_THREAD_SAME};
/* cuModuleLoadData of the trigger family's image (cases/trigger.c), unloaded after the capture. */
extern const unsigned char cts_module_image[];
extern const size_t cts_module_image_size;
int cts_fresh_take(void);
int cts_fresh_left(void);
cudaError_t cts_launch_fresh(int i, cudaStream_t s, unsigned int *where, unsigned int value);
#define FRESH_VALUE 0x5a5a0000u

#define N_OF(a) (sizeof(a) / sizeof *(a))

/* ---- lent calls: every other call of the catalogue, as its own family makes it ----
 *
 * Beside the calls above (made here, on the family's own 1 MiB buffers),
 * each call of the other families is made through that family's own
 * prepare / issue / cleanup, one representative case a call and memory: for
 * each (family, call, variant, direction, memory kind) of the family's
 * table, the case whose size is the largest up to 1 MiB, its explicit copy
 * kind; device, pinned and pageable memory only (the family's own memory, a
 * symbol or an array, too).  Calls this family makes itself are lent only
 * with another memory (a pinned or pageable host side); cudaStreamBeginCapture
 * and cudaStreamEndCapture are not lent (the stream family's hooks begin and
 * end captures of their own).  A lent case carries its representative's
 * direction, memory, size and kind in its id
 * (memcpy2d_async.capture_global.by_global.h2d.pinned.1MiB.explicit.op_blocking.busy_same)
 * and is made in the capture's own mode (by = capture), on a blocking or a
 * non-blocking capturing stream, from every placement of stream_places or
 * (a call that takes no stream) plain_places.  Its effect, where the call
 * moves bytes (a copy or a memset), is read from three sample bytes of its
 * destination (first, middle, last), set as the engine sets them.  The
 * lending families are every family the engine measures (cts_families, in
 * their order; not those that measure their own cases, this one and the
 * overlap family): a new family's calls join the capture axis with no edit
 * here. */
static const enum cts_op lent_capturing[] = {CTS_OP_BLOCKING, CTS_OP_NONBLOCKING};
#define LEND_BYTES ((size_t)1 << 20)

static struct {
    struct cts_case *v; /* the representatives, each of its own family */
    size_t n;
    int made;
} lent;

static int own_call(enum cts_api api)
{
    for (size_t i = 0; i < N_OF(stream_calls); i++)
        if (stream_calls[i] == api)
            return 1;
    for (size_t i = 0; i < N_OF(plain_calls); i++)
        if (plain_calls[i] == api)
            return 1;
    return 0;
}

static int lendable_memory(enum cts_mem m)
{
    return m == CTS_MEM_NONE || m == CTS_MEM_OWN || m == CTS_MEM_DEVICE || m == CTS_MEM_PINNED ||
           m == CTS_MEM_PAGEABLE;
}

static int lendable(const struct cts_case *x)
{
    enum cts_mem src, dst;
    if (x->writes || x->with || x->capture != CTS_CAPTURE_NONE || x->kind == CTS_KIND_DEFAULT ||
        x->api == CTS_API_FAULT || x->api == CTS_API_STREAM_BEGIN_CAPTURE || x->api == CTS_API_STREAM_END_CAPTURE ||
        (x->size_idx >= 0 && x->size > LEND_BYTES))
        return 0;
    if (own_call(x->api) && (x->dir == CTS_DIR_NONE || x->dir == CTS_DIR_D2D) &&
        (x->mem == CTS_MEM_NONE || x->mem == CTS_MEM_DEVICE))
        return 0; /* made here already */
    cts_case_buffers(x, &src, &dst);
    return lendable_memory(src) && lendable_memory(dst);
}

static int same_variant(const struct cts_case *a, const struct cts_case *b)
{
    return a->variant == b->variant || (a->variant && b->variant && !strcmp(a->variant, b->variant));
}

static int same_key(const struct cts_case *a, const struct cts_case *b)
{
    return a->family == b->family && a->api == b->api && a->dir == b->dir && a->mem == b->mem && same_variant(a, b);
}

/* The representatives, chosen once from the lending families' tables. */
static void lend(void)
{
    if (lent.made)
        return;
    lent.made = 1;
    for (size_t l = 0; l < cts_family_count; l++) {
        const struct cts_family *lender = cts_families[l];
        if (lender->measure)
            continue;
        size_t n = lender->generate(NULL, 0);
        struct cts_case *all = calloc(n ? n : 1, sizeof *all);
        struct cts_case *grown = realloc(lent.v, (lent.n + n + 1) * sizeof *lent.v);
        if (!all || !grown) { /* the table is then short; `list` shows it */
            free(all);
            if (grown)
                lent.v = grown;
            return;
        }
        lent.v = grown;
        n = lender->generate(all, n);
        for (size_t i = 0; i < n; i++) {
            if (!lendable(&all[i]))
                continue;
            size_t k = 0;
            while (k < lent.n && !same_key(&lent.v[k], &all[i]))
                k++;
            if (k == lent.n)
                lent.v[lent.n++] = all[i];
            else if (all[i].size_idx >= 0 && all[i].size > lent.v[k].size)
                lent.v[k] = all[i];
        }
        free(all);
    }
}

/* The representative a lent case was made from; NULL for this family's own calls. */
static const struct cts_case *lent_of(const struct cts_case *c)
{
    lend();
    for (size_t k = 0; k < lent.n; k++) {
        const struct cts_case *x = &lent.v[k];
        if (x->api == c->api && x->dir == c->dir && x->mem == c->mem && x->size_idx == c->size_idx &&
            x->kind == c->kind && same_variant(x, c))
            return x;
    }
    return NULL;
}

static size_t put(struct cts_case *out, size_t cap, size_t n, enum cts_api api, const char *variant,
                  enum cts_capture m, enum cts_capture by, enum cts_op op, enum cts_busy busy)
{
    if (op == CTS_OP_PERTHREAD && (busy == CTS_BUSY_PERTHREAD || busy == CTS_BUSY_THREAD_SAME) &&
        cts_api_takes_stream(api))
        return n; /* the capturing stream itself; not addressable from the second thread */
    if (out && n < cap) {
        out[n] = (struct cts_case){.family = &cts_family_capture, .api = api, .variant = variant, .dir = CTS_DIR_NONE,
                                   .mem = CTS_MEM_NONE, .size_idx = -1, .kind = CTS_KIND_NONE, .op = op,
                                   .busy = busy, .capture = m, .capture_by = by};
        cts_case_make_id(&out[n]);
    }
    return n + 1;
}

/* A lent case: its representative's call, memory, size and kind; this family's placement. */
static size_t put_lent(struct cts_case *out, size_t cap, size_t n, const struct cts_case *x, enum cts_capture m,
                       enum cts_op op, enum cts_busy busy)
{
    if (out && n < cap) {
        out[n] = *x;
        out[n].family = &cts_family_capture;
        out[n].op = op;
        out[n].busy = busy;
        out[n].capture = out[n].capture_by = m;
        cts_case_make_id(&out[n]);
    }
    return n + 1;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (int m = CTS_CAPTURE_GLOBAL; m < CTS_CAPTURE_COUNT; m++) {
        for (int by = CTS_CAPTURE_GLOBAL; by < CTS_CAPTURE_COUNT; by++)
            for (size_t o = 0; o < N_OF(capturing); o++) {
                for (size_t a = 0; a < N_OF(stream_calls); a++)
                    for (size_t p = 0; p < N_OF(stream_places); p++)
                        n = put(out, cap, n, stream_calls[a], NULL, m, by, capturing[o], stream_places[p]);
                for (size_t a = 0; a < N_OF(plain_calls); a++)
                    for (size_t p = 0; p < N_OF(plain_places); p++)
                        n = put(out, cap, n, plain_calls[a], NULL, m, by, capturing[o], plain_places[p]);
                for (size_t a = 0; a < N_OF(peer_calls); a++)
                    n = put(out, cap, n, peer_calls[a], NULL, m, by, capturing[o], CTS_BUSY_THREAD_PEER);
                for (size_t a = 0; a < N_OF(event_calls); a++)
                    for (size_t p = 0; p < N_OF(plain_places); p++)
                        n = put(out, cap, n, event_calls[a], CAPTURED, m, by, capturing[o], plain_places[p]);
                for (size_t p = 0; p < N_OF(stream_places); p++)
                    n = put(out, cap, n, CTS_API_STREAM_WAIT_EVENT, EXTERNAL, m, by, capturing[o], stream_places[p]);
                for (size_t a = 0; a < N_OF(capture_calls); a++)
                    for (size_t p = 0; p < N_OF(capture_call_places); p++)
                        n = put(out, cap, n, capture_calls[a], NULL, m, by, capturing[o], capture_call_places[p]);
                for (size_t p = 0; p < N_OF(first_places); p++)
                    n = put(out, cap, n, CTS_API_LAUNCH, FIRST, m, by, capturing[o], first_places[p]);
            }
        lend(); /* the lent calls, in the capture's own mode (each group contiguous) */
        for (size_t o = 0; o < N_OF(lent_capturing); o++)
            for (size_t k = 0; k < lent.n; k++) {
                int takes = cts_api_takes_stream(lent.v[k].api);
                const enum cts_busy *places = takes ? stream_places : plain_places;
                size_t np = takes ? N_OF(stream_places) : N_OF(plain_places);
                for (size_t p = 0; p < np; p++)
                    n = put_lent(out, cap, n, &lent.v[k], m, lent_capturing[o], places[p]);
            }
    }
    return n;
}

/* ---- the family's own resources (made once, on first use) ------------------ */

static struct {
    int ready, device;
    int other;                /* another device (busy_thread_peer), or -1 */
    char why[CTS_REASON_MAX];
    unsigned char *src, *dst; /* device, BYTES each */
    unsigned char *host;      /* 64 KiB of pageable memory to register */
    cudaStream_t sib_blocking, sib_nonblocking, quiet; /* quiet: the harness's own work */
    cudaEvent_t done;         /* recorded (and complete) before any capture */
    cudaEvent_t fresh;        /* what the call records (and a "captured" case's capture) */
    cudaEvent_t asked;        /* what the call queries or waits for: done, or fresh */
    cudaMemPool_t pool;       /* the device's default pool */
    void *spare;              /* what cudaFree frees */
    void *pooled;             /* what cudaFreeAsync frees */
    void *made, *made_host, *made_pooled; /* what the call allocated: freed after the capture */
    CUmodule module;          /* what cuModuleLoadData loaded: unloaded after the capture */
    cudaGraph_t ended;        /* what cudaStreamEndCapture returned: destroyed after the capture */
    void *image;              /* the module image, in malloc'ed (aligned) memory */
    unsigned int *word;       /* what a first-launched kernel stores into */
    int fresh_kernel;         /* the kernel a "first" case launches (-1: none left) */
    const struct cts_case *c; /* the case being measured */
    const struct cts_case *lent; /* its representative, where the call is lent (else NULL) */
    struct cts_case lc;          /* ... the call as its own family makes it (its op stream) */
    struct cts_scratch scratch;  /* ... what that family's prepare() keeps for the call */
    const char *after_error;     /* ... its after()'s error, where that failed (made by the calling thread) */
    void *lbuf[CTS_MEM_COUNT][2]; /* ... its memory: device, pinned, pageable; LEND_BYTES each */
    int registered;
    pthread_t worker;
} f;

static volatile int host_flag;
static void CUDART_CB set_flag(void *arg)
{
    (void)arg;
    host_flag = 1;
}

/* enum cts_capture as cudaStreamCaptureMode (NONE: unused). */
static const enum cudaStreamCaptureMode capture_modes[] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeGlobal,
                                                           cudaStreamCaptureModeThreadLocal,
                                                           cudaStreamCaptureModeRelaxed};

/* The call under test, on stream s (ignored where it takes none). */
static cudaError_t issue_call(enum cts_api api, cudaStream_t s)
{
    cudaError_t err;
    switch (api) {
    case CTS_API_MEMCPY_ASYNC: return cudaMemcpyAsync(f.dst, f.src, BYTES, cudaMemcpyDeviceToDevice, s);
    case CTS_API_MEMSET_ASYNC: return cudaMemsetAsync(f.dst, SET_BYTE, BYTES, s);
    case CTS_API_LAUNCH:
        if (f.c && f.c->variant && !strcmp(f.c->variant, FIRST))
            return f.fresh_kernel < 0 ? cudaErrorInvalidValue : cts_launch_fresh(f.fresh_kernel, s, f.word, FRESH_VALUE);
        return cts_launch_pattern(s, f.dst, BYTES, SEED, CTS_PATTERN_AFTER);
    case CTS_API_CU_MODULE_LOAD_DATA: {
        CUresult r = cts_drv.cuModuleLoadData(&f.module, f.image);
        if (r != CUDA_SUCCESS)
            f.module = NULL;
        return r == CUDA_SUCCESS ? cudaSuccess : (cudaError_t)r; /* the codes agree; named below */
    }
    case CTS_API_LAUNCH_HOST_FUNC: return cudaLaunchHostFunc(s, set_flag, NULL);
    case CTS_API_EVENT_RECORD: return cudaEventRecord(f.fresh, s);
    case CTS_API_STREAM_WAIT_EVENT:
        return cudaStreamWaitEvent(s, f.done,
                                   f.c && f.c->variant && !strcmp(f.c->variant, EXTERNAL) ? cudaEventWaitExternal : 0);
    case CTS_API_STREAM_BEGIN_CAPTURE: return cudaStreamBeginCapture(s, capture_modes[f.c->capture]);
    case CTS_API_STREAM_END_CAPTURE: return cudaStreamEndCapture(s, &f.ended);
    case CTS_API_STREAM_QUERY: return cudaStreamQuery(s);
    case CTS_API_STREAM_SYNCHRONIZE: return cudaStreamSynchronize(s);
    case CTS_API_MALLOC_ASYNC: return cudaMallocAsync(&f.made_pooled, 4096, s);
    case CTS_API_FREE_ASYNC:
        if ((err = cudaFreeAsync(f.pooled, s)) == cudaSuccess)
            f.pooled = NULL;
        return err;
    case CTS_API_STREAM_IS_CAPTURING: {
        enum cudaStreamCaptureStatus st;
        return cudaStreamIsCapturing(s, &st);
    }
    case CTS_API_STREAM_GET_CAPTURE_INFO: { /* the status and the capture's id (13.0 added edge data) */
        enum cudaStreamCaptureStatus st;
        unsigned long long id = 0;
#if CUDART_VERSION >= 13000
        return cudaStreamGetCaptureInfo(s, &st, &id, NULL, NULL, NULL, NULL);
#else
        return cudaStreamGetCaptureInfo(s, &st, &id, NULL, NULL, NULL);
#endif
    }
    case CTS_API_EVENT_QUERY: return cudaEventQuery(f.asked);
    case CTS_API_EVENT_SYNCHRONIZE: return cudaEventSynchronize(f.asked);
    case CTS_API_MEMPOOL_TRIM_TO: return cudaMemPoolTrimTo(f.pool, 0);
    case CTS_API_MEMPOOL_SET_ATTRIBUTE: {
        unsigned long long keep = 0;
        if ((err = cudaMemPoolGetAttribute(f.pool, cudaMemPoolAttrReleaseThreshold, &keep)) != cudaSuccess)
            return err;
        return cudaMemPoolSetAttribute(f.pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    case CTS_API_DEVICE_SYNCHRONIZE: return cudaDeviceSynchronize();
    case CTS_API_MALLOC: return cudaMalloc(&f.made, 4096);
    case CTS_API_FREE:
        if ((err = cudaFree(f.spare)) == cudaSuccess)
            f.spare = NULL;
        return err;
    case CTS_API_MEMCPY: return cudaMemcpy(f.dst, f.src, BYTES, cudaMemcpyDeviceToDevice);
    case CTS_API_MEMSET: return cudaMemset(f.dst, SET_BYTE, BYTES);
    case CTS_API_MALLOC_HOST: return cudaMallocHost(&f.made_host, 4096);
    case CTS_API_HOST_REGISTER:
        if ((err = cudaHostRegister(f.host, 1 << 16, cudaHostRegisterDefault)) == cudaSuccess)
            f.registered = 1;
        return err;
    case CTS_API_MEM_GET_INFO: {
        size_t free_b, total_b;
        return cudaMemGetInfo(&free_b, &total_b);
    }
    default: return cudaErrorInvalidValue;
    }
}

/* A side's memory kind (0 source, 1 destination) of the lent call, and its buffer. */
static enum cts_mem lent_kind(int side)
{
    enum cts_mem src, dst;
    cts_case_buffers(&f.lc, &src, &dst);
    return side ? dst : src;
}

static void *lent_buffer(int side)
{
    enum cts_mem m = lent_kind(side);
    return m >= 0 ? f.lbuf[m][side] : NULL;
}

/* A call as its own family (lc->family) makes it, by the name of the error it returned. */
static const char *family_call(const struct cts_case *lc, void *dst, const void *src, cudaStream_t s)
{
    struct cts_call call = {.dst = dst, .src = src, .value = SET_BYTE, .stream = s, .scratch = &f.scratch};
    const char *e = NULL;
    if (!lc->family->issue(lc, &call, &e))
        return "cudaSuccess";
    return e ? e : "cudaErrorUnknown";
}

/* This family's cudaMemcpyBatchAsync: one 1 MiB copy between its device
 * buffers, source access order "stream", as the copy family makes it. */
static const struct cts_case batch = {.family = &cts_family_copy, .api = CTS_API_MEMCPY_BATCH_ASYNC,
                                      .variant = "stream", .dir = CTS_DIR_D2D, .mem = CTS_MEM_DEVICE,
                                      .size_idx = -1, .size = BYTES, .kind = CTS_KIND_NONE};

/* The call under test on stream s, by the name of the error it returned
 * ("cudaSuccess"): this family's own, or the lent one through its family. */
static const char *issue(const struct cts_case *c, cudaStream_t s)
{
    if (c && f.lent && c == f.c)
        return family_call(&f.lc, lent_buffer(1), lent_buffer(0), s);
    if (c->api == CTS_API_MEMCPY_BATCH_ASYNC)
        return family_call(&batch, f.dst, f.src, s);
    cudaError_t rc = issue_call(c->api, s);
    return rc == cudaSuccess ? "cudaSuccess"
           : c->api == CTS_API_CU_MODULE_LOAD_DATA ? cts_driver_error_name((CUresult)rc) : cudaGetErrorName(rc);
}

/* The call as a thread makes it: in its own interaction mode `by`, restored
 * after; the thread's last error cleared first (a launch reads it). */
static const char *call_in_mode(const struct cts_case *c, enum cts_capture by, cudaStream_t s, double *us)
{
    enum cudaStreamCaptureMode m = capture_modes[by], back;
    (void)cudaGetLastError();
    cudaError_t err = cudaThreadExchangeStreamCaptureMode(&m);
    if (err != cudaSuccess)
        return cudaGetErrorName(err);
    back = m;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const char *rc = issue(c, s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *us = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3;
    (void)cudaGetLastError(); /* the call's error is its result, not the thread's to carry */
    if (c == f.c && f.lent && f.lc.family->after) { /* its family's after(), in the thread that made the call */
        const char *e = NULL;
        f.after_error = f.lc.family->after(&f.lc, &f.scratch, s, &e) ? (e ? e : "an error") : NULL;
        (void)cudaGetLastError();
    }
    m = back;
    err = cudaThreadExchangeStreamCaptureMode(&m);
    return err != cudaSuccess && !strcmp(rc, "cudaSuccess") ? "cudaErrorUnknown" : rc;
}

/* ---- the second thread: one job at a time ------------------------------- */

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int pending, done;
    const struct cts_case *c;
    enum cts_capture by;
    cudaStream_t s; /* NULL: its own per-thread default stream... as the job says */
    enum cts_busy where;
    const char *rc;
    double us;
} job = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static void *worker(void *arg)
{
    (void)arg;
    if (cudaSetDevice(f.device) != cudaSuccess)
        return NULL; /* every job then waits in vain: setup() checks the thread runs first */
    for (;;) {
        pthread_mutex_lock(&job.mu);
        while (!job.pending)
            pthread_cond_wait(&job.cv, &job.mu);
        pthread_mutex_unlock(&job.mu);
        double us = 0;
        const char *rc;
        /* the device (the other one for busy_thread_peer), whatever a call of the last job made current */
        cudaError_t err = cudaSetDevice(job.where == CTS_BUSY_THREAD_PEER ? f.other : f.device);
        cudaStream_t s = job.where == CTS_BUSY_THREAD_LEGACY      ? cudaStreamLegacy
                         : job.where == CTS_BUSY_THREAD_PERTHREAD ? cudaStreamPerThread
                                                                  : job.s;
        rc = err == cudaSuccess ? call_in_mode(job.c, job.by, s, &us) : cudaGetErrorName(err);
        pthread_mutex_lock(&job.mu);
        job.rc = rc;
        job.us = us;
        job.pending = 0;
        job.done = 1;
        pthread_cond_broadcast(&job.cv);
        pthread_mutex_unlock(&job.mu);
    }
    return NULL;
}

static const char *in_worker(const struct cts_case *c, enum cts_capture by, cudaStream_t cap, enum cts_busy where,
                             double *us)
{
    pthread_mutex_lock(&job.mu);
    job.c = c, job.by = by, job.s = cap, job.where = where, job.done = 0, job.pending = 1;
    pthread_cond_broadcast(&job.cv);
    while (!job.done)
        pthread_cond_wait(&job.cv, &job.mu);
    const char *rc = job.rc;
    *us = job.us;
    pthread_mutex_unlock(&job.mu);
    return rc;
}

#define SETUP(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            snprintf(f.why, sizeof f.why, "harness: setting up the capture family: %s returned %s", #call, \
                     cudaGetErrorName(e_));                                                             \
            return -1;                                                                                  \
        }                                                                                               \
    } while (0)

/* What every repetition starts from: the destination cleared, the flag down,
 * what cudaFree and cudaFreeAsync free there, the device idle. */
static int lent_samples(void);
static int reset(void)
{
    host_flag = 0;
    if (f.lent && lent_samples())
        return -1;
    SETUP(cudaMemsetAsync(f.dst, 0, BYTES, f.quiet));
    SETUP(cudaMemsetAsync(f.word, 0, sizeof *f.word, f.quiet));
    if (!f.spare)
        SETUP(cudaMalloc(&f.spare, 4096));
    if (!f.pooled)
        SETUP(cudaMallocAsync(&f.pooled, 4096, f.quiet));
    SETUP(cudaDeviceSynchronize());
    return 0;
}

/* Frees what the call allocated (after the capture ended, the device idle). */
static int undo(void)
{
    if (f.made)
        SETUP(cudaFree(f.made));
    if (f.made_host)
        SETUP(cudaFreeHost(f.made_host));
    if (f.made_pooled)
        SETUP(cudaFreeAsync(f.made_pooled, f.quiet));
    if (f.registered)
        SETUP(cudaHostUnregister(f.host));
    if (f.module) {
        CUresult r = cts_drv.cuModuleUnload(f.module);
        f.module = NULL;
        if (r != CUDA_SUCCESS) {
            snprintf(f.why, sizeof f.why, "harness: cuModuleUnload returned %s", cts_driver_error_name(r));
            return -1;
        }
    }
    if (f.ended) {
        cudaGraph_t g = f.ended;
        f.ended = NULL;
        SETUP(cudaGraphDestroy(g));
    }
    f.made = f.made_host = f.made_pooled = NULL;
    f.registered = 0;
    SETUP(cudaDeviceSynchronize());
    return 0;
}

/* Every call once from each thread, outside any capture, and one graph
 * captured, instantiated and launched: no first use falls in a repetition. */
static int warm_up(void)
{
    for (size_t a = 0; a < N_OF(stream_calls) + N_OF(plain_calls); a++) {
        enum cts_api api = a < N_OF(stream_calls) ? stream_calls[a] : plain_calls[a - N_OF(stream_calls)];
        char why[CTS_REASON_MAX];
        if (cts_api_since(api) > CUDART_VERSION ||
            (api == CTS_API_CU_MODULE_LOAD_DATA && cts_need_driver("cuModuleLoadData", why, sizeof why)))
            continue; /* its cases are NOTSUPP (needs) */
        f.asked = f.done;
        struct cts_case w = {.api = api};
        for (int t = 0; t < 2; t++) {
            double us;
            if (reset())
                return -1;
            const char *rc = t ? in_worker(&w, CTS_CAPTURE_GLOBAL, f.sib_nonblocking, CTS_BUSY_THREAD_SAME, &us)
                               : call_in_mode(&w, CTS_CAPTURE_GLOBAL, f.sib_nonblocking, &us);
            if (strcmp(rc, "cudaSuccess")) {
                snprintf(f.why, sizeof f.why, "harness: warming up %s (thread %d) returned %s",
                         cts_api_function(api), t + 1, rc);
                return -1;
            }
            if (undo())
                return -1;
        }
    }
    cudaGraph_t g;
    cudaGraphExec_t x;
    SETUP(cudaStreamBeginCapture(f.sib_nonblocking, cudaStreamCaptureModeGlobal));
    SETUP(cudaMemsetAsync(f.dst, SET_BYTE, BYTES, f.sib_nonblocking));
    SETUP(cudaStreamEndCapture(f.sib_nonblocking, &g));
    SETUP(cudaGraphInstantiate(&x, g, 0));
    SETUP(cudaGraphLaunch(x, f.quiet));
    SETUP(cudaStreamSynchronize(f.quiet));
    SETUP(cudaGraphExecDestroy(x));
    SETUP(cudaGraphDestroy(g));
    return 0;
}

static int setup(void)
{
    if (f.ready)
        return f.ready < 0 ? -1 : 0;
    f.ready = -1;
    SETUP(cudaGetDevice(&f.device));
    {
        int count = 0;
        SETUP(cudaGetDeviceCount(&count));
        f.other = count > 1 ? (f.device + 1) % count : -1;
    }
    SETUP(cudaMalloc((void **)&f.src, BYTES));
    SETUP(cudaMalloc((void **)&f.dst, BYTES));
    SETUP(cudaMalloc((void **)&f.word, sizeof *f.word));
    if (!(f.image = malloc(cts_module_image_size))) {
        snprintf(f.why, sizeof f.why, "harness: setting up the capture family: out of host memory");
        return -1;
    }
    memcpy(f.image, cts_module_image, cts_module_image_size);
    SETUP(cudaMemset(f.src, SRC_BYTE, BYTES));
    SETUP(cudaStreamCreateWithFlags(&f.sib_blocking, cudaStreamDefault));
    SETUP(cudaStreamCreateWithFlags(&f.sib_nonblocking, cudaStreamNonBlocking));
    SETUP(cudaStreamCreateWithFlags(&f.quiet, cudaStreamNonBlocking));
    SETUP(cudaEventCreate(&f.done));
    SETUP(cudaEventCreate(&f.fresh));
    SETUP(cudaEventRecord(f.done, f.quiet));
    SETUP(cudaDeviceGetDefaultMemPool(&f.pool, f.device));
    SETUP(cudaDeviceSynchronize());
    for (int side = 0; side < 2; side++) {
        SETUP(cudaMalloc(&f.lbuf[CTS_MEM_DEVICE][side], LEND_BYTES));
        SETUP(cudaMallocHost(&f.lbuf[CTS_MEM_PINNED][side], LEND_BYTES));
        if (!(f.lbuf[CTS_MEM_PAGEABLE][side] = malloc(LEND_BYTES))) {
            snprintf(f.why, sizeof f.why, "harness: setting up the capture family: out of host memory");
            return -1;
        }
        memset(f.lbuf[CTS_MEM_PAGEABLE][side], 0, LEND_BYTES);
    }
    if (!(f.host = aligned_alloc(4096, 1 << 16))) {
        snprintf(f.why, sizeof f.why, "harness: setting up the capture family: out of host memory");
        return -1;
    }
    if (pthread_create(&f.worker, NULL, worker, NULL)) {
        snprintf(f.why, sizeof f.why, "harness: setting up the capture family: no second thread");
        return -1;
    }
    if (warm_up())
        return -1;
    f.ready = 1;
    return 0;
}

/* ---- a lent call's sample bytes (the device idle) ------------------------- */

/* Does the lent call move bytes (a copy or a memset into a destination)? */
static int lent_moves(void)
{
    const struct cts_family *l = f.lc.family;
    return (l == &cts_family_memcpy || l == &cts_family_copy || l == &cts_family_memset) &&
           lent_kind(1) != CTS_MEM_NONE && f.lc.size_idx >= 0;
}

static void lent_offsets(size_t off[3])
{
    off[0] = 0, off[1] = f.lc.size / 2, off[2] = f.lc.size - 1;
}

/* A sample byte of a side: set (set != 0, to *v) or read (into *v). */
static int lent_byte(int side, size_t off, unsigned char *v, int set)
{
    enum cts_mem m = lent_kind(side);
    const char *e = NULL;
    if (m == CTS_MEM_OWN) {
        int rc = set ? f.lc.family->poke(&f.lc, side, off, *v, &e) : f.lc.family->peek(&f.lc, side, off, v, &e);
        if (rc)
            snprintf(f.why, sizeof f.why, "harness: the %s family's %s returned %s", f.lc.family->name,
                     set ? "poke" : "peek", e ? e : "an error");
        return rc ? -1 : 0;
    }
    unsigned char *p = (unsigned char *)lent_buffer(side) + off;
    if (m == CTS_MEM_DEVICE)
        SETUP(set ? cudaMemcpy(p, v, 1, cudaMemcpyHostToDevice) : cudaMemcpy(v, p, 1, cudaMemcpyDeviceToHost));
    else if (set)
        *p = *v;
    else
        *v = *p;
    return 0;
}

/* Before the call (and before the graph's launch): the source's samples
 * SRC_BYTE, the destination's cleared. */
static int lent_samples(void)
{
    if (!lent_moves())
        return 0;
    size_t off[3];
    lent_offsets(off);
    SETUP(cudaDeviceSynchronize());
    for (int i = 0; i < 3; i++) {
        unsigned char src = SRC_BYTE, clear = 0;
        if ((lent_kind(0) != CTS_MEM_NONE && lent_byte(0, off[i], &src, 1)) || lent_byte(1, off[i], &clear, 1))
            return -1;
    }
    return 0;
}

/* The lent call's effect: its destination's samples, the source's byte
 * (a copy) or the memset's (SET_BYTE), all 2, some 1, none 0; -1 none to see. */
static int lent_effect(int *out)
{
    *out = -1;
    if (!lent_moves())
        return 0;
    size_t off[3];
    lent_offsets(off);
    unsigned char want = lent_kind(0) != CTS_MEM_NONE ? SRC_BYTE : SET_BYTE;
    int seen = 0;
    for (int i = 0; i < 3; i++) {
        unsigned char b = 0;
        if (lent_byte(1, off[i], &b, 0))
            return -1;
        seen += b == want;
    }
    *out = seen == 3 ? 2 : seen ? 1 : 0;
    return 0;
}

/* The operation's effect (the device idle): 2 whole, 1 in part, 0 none; -1
 * for a call that has none to see. */
static int effect(enum cts_api api, int *out)
{
    unsigned char want, b[2];
    *out = -1;
    if (f.lent)
        return lent_effect(out);
    switch (api) {
    case CTS_API_LAUNCH_HOST_FUNC: *out = host_flag ? 2 : 0; return 0;
    case CTS_API_MEMCPY_ASYNC: case CTS_API_MEMCPY: case CTS_API_MEMCPY_BATCH_ASYNC: want = SRC_BYTE; break;
    case CTS_API_MEMSET_ASYNC: case CTS_API_MEMSET: want = SET_BYTE; break;
    case CTS_API_LAUNCH:
        if (f.c && f.c->variant && !strcmp(f.c->variant, FIRST)) { /* the fresh kernel's store */
            unsigned int w = 0;
            SETUP(cudaMemcpy(&w, f.word, sizeof w, cudaMemcpyDeviceToHost));
            *out = f.fresh_kernel >= 0 && w == FRESH_VALUE + (unsigned)f.fresh_kernel ? 2 : 0;
            return 0;
        }
        want = 0; /* the pattern's, below */
        break;
    default: return 0;
    }
    SETUP(cudaMemcpy(&b[0], f.dst, 1, cudaMemcpyDeviceToHost));
    SETUP(cudaMemcpy(&b[1], f.dst + BYTES - 1, 1, cudaMemcpyDeviceToHost));
    int first = api == CTS_API_LAUNCH ? b[0] == cts_pattern_byte(0, SEED, CTS_PATTERN_AFTER) : b[0] == want;
    int last = api == CTS_API_LAUNCH ? b[1] == cts_pattern_byte(BYTES - 1, SEED, CTS_PATTERN_AFTER) : b[1] == want;
    *out = first + last;
    return 0;
}

/* The captured graph: its nodes, and the effect of one launch of it. */
static int graph_facts(enum cts_api api, cudaGraph_t g, struct cts_capture_obs *o)
{
    size_t n = 0;
    SETUP(cudaGraphGetNodes(g, NULL, &n));
    o->node_count = (int)n;
    if (n) {
        cudaGraphNode_t nodes[16];
        size_t k = n < 16 ? n : 16;
        SETUP(cudaGraphGetNodes(g, nodes, &k));
        for (size_t i = 0; i < k; i++) {
            enum cudaGraphNodeType t;
            SETUP(cudaGraphNodeGetType(nodes[i], &t));
            o->nodes |= 1u << ((unsigned)t & 31u);
        }
    }
    int seen;
    if (effect(api, &seen))
        return -1;
    if (!n || (seen < 0 && !f.lent)) /* a lent call's graph is launched anyway: what it allocated then exists */
        return 0;
    if (reset())
        return -1;
    cudaGraphExec_t x;
    SETUP(cudaGraphInstantiate(&x, g, 0));
    SETUP(cudaGraphLaunch(x, f.quiet));
    SETUP(cudaStreamSynchronize(f.quiet));
    SETUP(cudaGraphExecDestroy(x));
    return effect(api, &o->launched);
}

static cudaStream_t place(const struct cts_case *c, cudaStream_t cap)
{
    switch (c->busy) {
    case CTS_BUSY_BLOCKING: return f.sib_blocking;
    case CTS_BUSY_NONBLOCKING: return f.sib_nonblocking;
    case CTS_BUSY_LEGACY: return cudaStreamLegacy;
    case CTS_BUSY_PERTHREAD: return cudaStreamPerThread;
    default: return cap;
    }
}

static int from_worker(enum cts_busy b)
{
    return b == CTS_BUSY_THREAD_SAME || b == CTS_BUSY_THREAD_LEGACY || b == CTS_BUSY_THREAD_PERTHREAD ||
           b == CTS_BUSY_THREAD_PEER;
}

/* ---- one repetition ---------------------------------------------------------- */

/* A lent call's set-up, before its capture begins: its family's prepare(),
 * then before() on the stream the call will be given. */
static int lent_begin(const struct cts_case *c, cudaStream_t cap)
{
    const char *e = NULL;
    const struct cts_family *l = f.lc.family;
    if (l->prepare && l->prepare(&f.lc, &f.scratch, &e)) {
        snprintf(f.why, sizeof f.why, "harness: the %s family's prepare returned %s", l->name, e ? e : "an error");
        return -1;
    }
    if (l->before && l->before(&f.lc, &f.scratch, place(c, cap), &e)) {
        snprintf(f.why, sizeof f.why, "harness: the %s family's before returned %s", l->name, e ? e : "an error");
        return -1;
    }
    return 0;
}

/* ... and its clean-up once the capture ended and its graph was launched
 * (its after() ran right after the call, in the thread that made it: a call
 * that changes its thread's current device puts it back there).  A clean-up
 * that checks the call's work (a launch's store, a limit set) fails where
 * that work never ran: the harness broke only where the call was captured or
 * ran. */
static int lent_end(enum cts_cap_outcome outcome)
{
    const char *e = NULL;
    const struct cts_family *l = f.lc.family;
    if (f.after_error) {
        snprintf(f.why, sizeof f.why, "harness: the %s family's after returned %s", l->name, f.after_error);
        f.after_error = NULL;
        return -1;
    }
    int rc = l->cleanup ? l->cleanup(&f.lc, &f.scratch, &e) : 0;
    (void)cudaGetLastError();
    if (rc && (outcome == CTS_CAP_GRAPH || outcome == CTS_CAP_RAN)) {
        snprintf(f.why, sizeof f.why, "harness: the %s family's clean-up returned %s", l->name, e ? e : "an error");
        return -1;
    }
    return 0;
}

/* The op stream a lent call is given, as its family names it. */
static enum cts_op lent_op(const struct cts_case *c)
{
    switch (c->busy) {
    case CTS_BUSY_BLOCKING: return CTS_OP_BLOCKING;
    case CTS_BUSY_NONBLOCKING: return CTS_OP_NONBLOCKING;
    case CTS_BUSY_LEGACY: case CTS_BUSY_THREAD_LEGACY: return CTS_OP_LEGACY;
    case CTS_BUSY_PERTHREAD: case CTS_BUSY_THREAD_PERTHREAD: return CTS_OP_PERTHREAD;
    default: return c->op; /* the capturing stream */
    }
}

/* Its first use, outside any capture, once a representative: no first use
 * (a module, a pool, a pinned buffer) falls in a repetition. */
static int lent_warm(const struct cts_case *c)
{
    static unsigned char warm[1024];
    size_t k = (size_t)(f.lent - lent.v);
    if (k < sizeof warm && warm[k])
        return 0;
    struct cts_case w = *c;
    w.busy = CTS_BUSY_NONBLOCKING;
    double us;
    if (reset() || lent_begin(&w, f.sib_nonblocking))
        return -1;
    const char *rc = call_in_mode(c, CTS_CAPTURE_GLOBAL, cts_api_takes_stream(c->api) ? f.sib_nonblocking : NULL, &us);
    SETUP(cudaDeviceSynchronize());
    if (lent_end(CTS_CAP_RAN))
        return -1;
    if (strcmp(rc, "cudaSuccess")) {
        snprintf(f.why, sizeof f.why, "harness: warming up %s outside any capture returned %s", c->id, rc);
        return -1;
    }
    if (k < sizeof warm)
        warm[k] = 1;
    return 0;
}

/* The capturing stream, made for the repetition (or the per-thread default), and the call's own set-up. */
static int begin(const struct cts_case *c, cudaStream_t *cap)
{
    cudaError_t err = cudaSuccess;
    if (c->op != CTS_OP_PERTHREAD)
        SETUP(cudaStreamCreateWithFlags(cap, c->op == CTS_OP_BLOCKING ? cudaStreamDefault : cudaStreamNonBlocking));
    else
        *cap = cudaStreamPerThread;
    if (f.lent && lent_begin(c, *cap))
        return -1;
    err = cudaStreamBeginCapture(*cap, capture_modes[c->capture]);
    f.asked = f.done;
    if (err == cudaSuccess && c->variant && !strcmp(c->variant, CAPTURED)) {
        err = cudaEventRecord(f.fresh, *cap); /* an event of the capture */
        f.asked = f.fresh;
    }
    if (err != cudaSuccess) {
        snprintf(f.why, sizeof f.why, "harness: beginning the capture returned %s", cudaGetErrorName(err));
        return -1;
    }
    return 0;
}

/* Right after the call: the capture's status, cudaStreamEndCapture's result;
 * then no capture may be left, the device drained. */
static int end(cudaStream_t cap, struct cts_capture_obs *o, cudaGraph_t *g)
{
    enum cudaStreamCaptureStatus st;
    cudaError_t err = cudaStreamIsCapturing(cap, &st);
    o->after = err != cudaSuccess ? CTS_CAPST_NA : st == cudaStreamCaptureStatusActive ? CTS_CAPST_ACTIVE
               : st == cudaStreamCaptureStatusInvalidated                               ? CTS_CAPST_INVALIDATED
                                                                                        : CTS_CAPST_NONE;
    o->end = cudaGetErrorName(cudaStreamEndCapture(cap, g));
    (void)cudaGetLastError();
    if ((err = cudaDeviceSynchronize()) != cudaSuccess || (err = cudaStreamIsCapturing(cap, &st)) != cudaSuccess ||
        st != cudaStreamCaptureStatusNone) {
        snprintf(f.why, sizeof f.why, "harness: after the capture ended, %s",
                 err != cudaSuccess ? cudaGetErrorName(err) : "the stream still captures");
        return -1;
    }
    return 0;
}

/* A second capture the call began on the non-blocking stream: ended by this
 * (the capturing) thread, its graph destroyed in undo(). */
static int end_second(void)
{
    enum cudaStreamCaptureStatus st;
    SETUP(cudaStreamIsCapturing(f.sib_nonblocking, &st));
    if (st == cudaStreamCaptureStatusNone)
        return 0;
    cudaError_t err = cudaStreamEndCapture(f.sib_nonblocking, &f.ended);
    (void)cudaGetLastError();
    if (st == cudaStreamCaptureStatusActive && err != cudaSuccess) {
        snprintf(f.why, sizeof f.why, "harness: ending the second capture returned %s", cudaGetErrorName(err));
        return -1;
    }
    return 0;
}

/* One repetition; -1 with r BROKEN where the harness failed. */
static int one_rep(const struct cts_case *c, struct cts_rep *r)
{
    struct cts_capture_obs *o = &r->cap;
    cudaStream_t cap = NULL;
    cudaGraph_t g = NULL;
    int own = c->op != CTS_OP_PERTHREAD; /* a stream made for the repetition */
    cudaError_t err;
    f.fresh_kernel = c->variant && !strcmp(c->variant, FIRST) ? cts_fresh_take() : -1;
    memset(&f.scratch, 0, sizeof f.scratch);
    if (reset() || begin(c, &cap))
        goto broken;
    double us = 0;
    o->rc = from_worker(c->busy) ? in_worker(c, c->capture_by, cap, c->busy, &us)
                                 : call_in_mode(c, c->capture_by, place(c, cap), &us);
    r->call_us = us;
    if (c->api == CTS_API_STREAM_BEGIN_CAPTURE && end_second())
        goto broken;
    if (end(cap, o, &g))
        goto broken;
    o->eager = o->launched = -1;
    if (effect(c->api, &o->eager) || (g && graph_facts(c->api, g, o)))
        goto broken;
    o->outcome = cts_capture_judge(o);
    if (o->node_count > 0)
        f.made_pooled = NULL; /* the graph's allocation: it exists only while a launch runs */
    if ((f.lent && lent_end(o->outcome)) || undo())
        goto broken;
    err = g ? cudaGraphDestroy(g) : cudaSuccess;
    g = NULL;
    if (err == cudaSuccess && own)
        err = cudaStreamDestroy(cap);
    cap = NULL;
    if (err != cudaSuccess) {
        snprintf(f.why, sizeof f.why, "harness: destroying the graph or the capturing stream returned %s",
                 cudaGetErrorName(err));
        goto broken;
    }
    return 0;
broken:
    (void)cudaGetLastError();
    if (g)
        (void)cudaGraphDestroy(g);
    if (cap && own)
        (void)cudaStreamDestroy(cap);
    r->status = CTS_BROKEN;
    snprintf(r->reason, sizeof r->reason, "%s", f.why);
    return -1;
}

static void measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    if (setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", f.why);
        return;
    }
    if (repeat > CTS_MAX_REPEAT)
        repeat = CTS_MAX_REPEAT;
    f.c = c;
    if ((f.lent = lent_of(c))) {
        f.lc = *f.lent; /* the call as its family makes it, given the stream of this placement */
        if (cts_api_takes_stream(c->api))
            f.lc.op = lent_op(c);
        if (lent_warm(c)) {
            res->status = CTS_BROKEN;
            snprintf(res->reason, sizeof res->reason, "%s", f.why);
            return;
        }
    }
    for (int i = 0; i < repeat; i++) {
        struct cts_rep *r = &res->reps[i];
        memset(r, 0, sizeof *r);
        r->status = CTS_PASS;
        r->release_to_return_us = r->op_after_gpu_us = r->third_blocking_gpu_us = NAN;
        r->third_nonblocking_gpu_us = r->timeout_us = r->window_us = NAN;
        r->tracked_from_timeout_us = r->tracked_from_call_us = NAN;
        res->nreps = i + 1;
        if (one_rep(c, r))
            break;
    }
    res->idle_call_us = res->idle_call_max_us = res->reps[0].call_us;
    res->idle_complete_us = res->idle_complete_max_us = NAN;
    res->timeout_us = res->window_us = NAN;
    cts_classify(res);
}

/* ---- what the documentation says --------------------------------------------- */

#define RT_STREAM "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html"
#define PG_GRAPHS "https://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/cuda-graphs.html"
static const struct cts_clause clauses[] = {
    {"RT-CAPTURE-BEGIN", "Runtime API, Stream Management, cudaStreamBeginCapture",
     "When a stream is in capture mode, all operations pushed into the stream will not be executed, but will "
     "instead be captured into a graph, which will be returned via cudaStreamEndCapture.", RT_STREAM, NULL},
    {"RT-CAPTURE-GLOBAL", "Runtime API, Stream Management, cudaThreadExchangeStreamCaptureMode",
     "cudaStreamCaptureModeGlobal: This is the default mode. If the local thread has an ongoing capture "
     "sequence that was not initiated with cudaStreamCaptureModeRelaxed at cuStreamBeginCapture, or if any "
     "other thread has a concurrent capture sequence initiated with cudaStreamCaptureModeGlobal, this thread "
     "is prohibited from potentially unsafe API calls.", RT_STREAM, NULL},
    {"RT-CAPTURE-THREADLOCAL", "Runtime API, Stream Management, cudaThreadExchangeStreamCaptureMode",
     "cudaStreamCaptureModeThreadLocal: If the local thread has an ongoing capture sequence not initiated with "
     "cudaStreamCaptureModeRelaxed, it is prohibited from potentially unsafe API calls. Concurrent capture "
     "sequences in other threads are ignored.", RT_STREAM, NULL},
    {"RT-CAPTURE-RELAXED", "Runtime API, Stream Management, cudaThreadExchangeStreamCaptureMode",
     "cudaStreamCaptureModeRelaxed: The local thread is not prohibited from potentially unsafe API calls.",
     RT_STREAM, NULL},
    {"RT-CAPTURE-STATUS-LEGACY", "Runtime API, Stream Management, cudaStreamIsCapturing",
     "Note that, if this is called on cudaStreamLegacy (the \"null stream\") while a blocking stream on the "
     "same device is capturing, it will return cudaErrorStreamCaptureImplicit and *pCaptureStatus is "
     "unspecified after the call. The blocking stream capture is not invalidated.", RT_STREAM, NULL},
    {"RT-CAPTURE-END", "Runtime API, Stream Management, cudaStreamEndCapture",
     "End capture on stream, returning the captured graph via pGraph. Capture must have been initiated on stream "
     "via a call to cudaStreamBeginCapture. If capture was invalidated, due to a violation of the rules of stream "
     "capture, then a NULL graph will be returned.", RT_STREAM, NULL},
    {"RT-CAPTURE-END-THREAD", "Runtime API, Stream Management, cudaStreamEndCapture",
     "If the mode argument to cudaStreamBeginCapture was not cudaStreamCaptureModeRelaxed, this call must be from "
     "the same thread as cudaStreamBeginCapture.", RT_STREAM, NULL},
    {"PG-CAPTURE-SYNC", "CUDA Programming Guide, CUDA Graphs, Prohibited and Unhandled Operations",
     "It is invalid to synchronize or query the execution status of a stream which is being captured or a "
     "captured event, because they do not represent items scheduled for execution. It is also invalid to "
     "query the execution status of or synchronize a broader handle which encompasses an active stream "
     "capture, such as a device or context handle when any associated stream is in capture mode.",
     PG_GRAPHS, NULL},
    {"PG-CAPTURE-LEGACY-USE", "CUDA Programming Guide, CUDA Graphs, Prohibited and Unhandled Operations",
     "When any stream in the same context is being captured, and it was not created with "
     "cudaStreamNonBlocking, any attempted use of the legacy stream is invalid. [...] It is therefore also "
     "invalid to call synchronous APIs in this case.", PG_GRAPHS, NULL},
    {"PG-CAPTURE-EXTERNAL-WAIT", "CUDA Programming Guide, CUDA Graphs, Prohibited and Unhandled Operations",
     "It is invalid to wait on a non-captured event from a stream which is being captured without specifying "
     "the cudaEventWaitExternal flag.", PG_GRAPHS, NULL},
    {"PG-CAPTURE-UNSUPPORTED-API", "CUDA Programming Guide, CUDA Graphs, Prohibited and Unhandled Operations",
     "A small number of APIs that enqueue asynchronous operations into streams are not currently supported in "
     "graphs and will return an error if called with a stream which is being captured, such as "
     "cudaStreamAttachMemAsync().", PG_GRAPHS, NULL},
    {NULL},
};

static int on_capturing(const struct cts_case *c)
{
    return c->busy == CTS_BUSY_SAME || c->busy == CTS_BUSY_THREAD_SAME;
}

/* cudaMalloc, the documentation's example of a potentially unsafe call: is
 * the calling thread prohibited from it, by its own mode and the capture's? */
static int malloc_prohibited(const struct cts_case *c)
{
    if (c->busy == CTS_BUSY_SAME) /* the capturing thread */
        return c->capture_by != CTS_CAPTURE_RELAXED && c->capture != CTS_CAPTURE_RELAXED;
    return c->capture_by == CTS_CAPTURE_GLOBAL && c->capture == CTS_CAPTURE_GLOBAL;
}

/* Which clauses speak of the case: an operation pushed into the capturing
 * stream is captured; what the guide calls invalid ends the capture (its
 * Invalidation rule); cudaMalloc follows the calling thread's mode.  The
 * rest (what is "potentially unsafe" beyond cudaMalloc) RECORDED. */
/* A lent call: an operation it pushes into the capturing stream is captured,
 * or refused (an unsupported API); cudaStreamAttachMemAsync is the guide's
 * example of one refused.  A runtime synchronous copy or memset uses the
 * legacy stream (the legacy build); the driver API's are not judged (which
 * default stream its entry points use is not documented beside them). */
static void lent_judge(struct cts_judge *j, const struct cts_case *x)
{
    const struct cts_case *c = j->c;
    int blocking = c->op != CTS_OP_NONBLOCKING;
    int legacy = c->busy == CTS_BUSY_LEGACY || c->busy == CTS_BUSY_THREAD_LEGACY;
    if (cts_api_takes_stream(c->api) && on_capturing(c)) {
        if (c->api == CTS_API_STREAM_ATTACH_MEM_ASYNC)
            cts_judge_add(j, "PG-CAPTURE-UNSUPPORTED-API", CTS_ABOUT_CAPTURED, CTS_PRED_GUARANTEED_NOT);
        else
            cts_judge_add(j, "RT-CAPTURE-BEGIN", CTS_ABOUT_ACCEPTED_CAPTURED, CTS_PRED_GUARANTEED);
    }
    int moves = x->family == &cts_family_memcpy || x->family == &cts_family_copy || x->family == &cts_family_memset;
    if (!cts_api_takes_stream(c->api) && moves && !strncmp(cts_api_function(c->api), "cuda", 4) && blocking &&
        !j->o->per_thread)
        cts_judge_add(j, "PG-CAPTURE-LEGACY-USE", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
    struct cts_case on_legacy = *x; /* refused by its own documentation there (cudaMemcpyBatchAsync): unused */
    on_legacy.op = CTS_OP_LEGACY;
    const char *clause;
    if (legacy && blocking && !(x->family->rejects && x->family->rejects(&on_legacy, &clause)))
        cts_judge_add(j, "PG-CAPTURE-LEGACY-USE", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
}

static void judge(struct cts_judge *j)
{
    const struct cts_case *c = j->c;
    int blocking = c->op != CTS_OP_NONBLOCKING; /* the per-thread default stream is not non-blocking */
    const struct cts_case *x = lent_of(c);
    if (x) {
        lent_judge(j, x);
        return;
    }
    if (c->variant && !strcmp(c->variant, CAPTURED)) { /* a captured event, queried or waited for */
        cts_judge_add(j, "PG-CAPTURE-SYNC", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
        return;
    }
    if (c->variant && !strcmp(c->variant, EXTERNAL) && on_capturing(c)) { /* the flag the guide asks for */
        cts_judge_add(j, "PG-CAPTURE-EXTERNAL-WAIT", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED_NOT);
        cts_judge_add(j, "RT-CAPTURE-BEGIN", CTS_ABOUT_ACCEPTED_CAPTURED, CTS_PRED_GUARANTEED);
        return;
    }
    int legacy = c->busy == CTS_BUSY_LEGACY || c->busy == CTS_BUSY_THREAD_LEGACY;
    if (c->busy == CTS_BUSY_THREAD_PEER && c->api != CTS_API_MALLOC)
        return; /* on another device, where nothing captures: only the modes speak of it (cudaMalloc) */
    switch (c->api) {
    case CTS_API_MEMCPY_ASYNC: case CTS_API_MEMSET_ASYNC: case CTS_API_LAUNCH: case CTS_API_LAUNCH_HOST_FUNC:
        if (on_capturing(c))
            cts_judge_add(j, "RT-CAPTURE-BEGIN", CTS_ABOUT_CAPTURED, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_STREAM_QUERY: case CTS_API_STREAM_SYNCHRONIZE:
        if (on_capturing(c))
            cts_judge_add(j, "PG-CAPTURE-SYNC", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_DEVICE_SYNCHRONIZE:
        cts_judge_add(j, "PG-CAPTURE-SYNC", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_STREAM_END_CAPTURE: /* ends it from its thread; from another, only a Relaxed capture */
        if (c->busy == CTS_BUSY_SAME || (c->busy == CTS_BUSY_THREAD_SAME && c->capture == CTS_CAPTURE_RELAXED))
            cts_judge_add(j, "RT-CAPTURE-END", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
        else if (c->busy == CTS_BUSY_THREAD_SAME)
            cts_judge_add(j, "RT-CAPTURE-END-THREAD", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED_NOT);
        break;
    case CTS_API_STREAM_WAIT_EVENT:
        if (on_capturing(c))
            cts_judge_add(j, "PG-CAPTURE-EXTERNAL-WAIT", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_MEMCPY_BATCH_ASYNC: /* refused on the legacy stream whatever captures (copy.c's rejection) */
        if (on_capturing(c))
            cts_judge_add(j, "PG-CAPTURE-UNSUPPORTED-API", CTS_ABOUT_CAPTURED, CTS_PRED_MAY);
        return;
    case CTS_API_STREAM_IS_CAPTURING:
        if (legacy && blocking)
            cts_judge_add(j, "RT-CAPTURE-STATUS-LEGACY", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED_NOT);
        return;
    case CTS_API_STREAM_GET_CAPTURE_INFO: /* on the legacy stream it returns ...Implicit; invalidation unsaid */
        return;
    case CTS_API_MEMCPY: case CTS_API_MEMSET: /* synchronous: the legacy stream, in the legacy build */
        if (blocking && !j->o->per_thread)
            cts_judge_add(j, "PG-CAPTURE-LEGACY-USE", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_MALLOC:
        cts_judge_add(j, c->capture_by == CTS_CAPTURE_GLOBAL         ? "RT-CAPTURE-GLOBAL"
                         : c->capture_by == CTS_CAPTURE_THREAD_LOCAL ? "RT-CAPTURE-THREADLOCAL"
                                                                     : "RT-CAPTURE-RELAXED",
                      CTS_ABOUT_CAPTURE_ENDED, malloc_prohibited(c) ? CTS_PRED_GUARANTEED : CTS_PRED_GUARANTEED_NOT);
        break;
    default:
        break;
    }
    if (legacy && blocking)
        cts_judge_add(j, "PG-CAPTURE-LEGACY-USE", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    int count = 0;
    if (c->busy == CTS_BUSY_THREAD_PEER && (cudaGetDeviceCount(&count) != cudaSuccess || count < 2)) {
        (void)cudaGetLastError();
        snprintf(why, len, "one device: no other for the second thread to call on (%d visible)", count);
        return -1;
    }
    const struct cts_case *x = lent_of(c);
    if (x && x->family->needs && x->family->needs(x, why, len))
        return -1;
    if (c->api == CTS_API_CU_MODULE_LOAD_DATA &&
        (cts_need_driver("cuModuleLoadData", why, len) || cts_need_driver("cuModuleUnload", why, len)))
        return -1;
    if (c->variant && !strcmp(c->variant, FIRST) && cts_fresh_left() < 4) {
        snprintf(why, len, "only %d of the never-launched kernels are left (a case takes 2 to 4)", cts_fresh_left());
        return -1;
    }
    return cts_need_runtime(c, why, len);
}

const struct cts_family cts_family_capture = {
    .name = "capture", .generate = generate, .needs = needs, .measure = measure,
    .clauses = clauses, .judge = judge, .judges_alone = 1,
};
