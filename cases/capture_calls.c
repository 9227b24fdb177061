/* The capture family's resources and its call (cases/capture.c says what the
 * family measures and why): the call under test, as a thread makes it; the
 * second thread; the set-up and warm-up; the call's effect, seen. */
#define _GNU_SOURCE
#include "capture.h"
#include "../harness/families/kernels.h"
#include "../harness/core/pattern.h"
#include "../harness/families/driver.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES ((size_t)1 << 20)
#define SRC_BYTE 0x33
#define SET_BYTE 0x5a
#define SEED 7

/* cuModuleLoadData of the trigger family's image (cases/trigger.c), unloaded after the capture. */
extern const unsigned char cts_module_image[];
extern const size_t cts_module_image_size;
#define FRESH_VALUE 0x5a5a0000u /* what a "first" case's kernel stores, plus its index */

/* ---- the family's own resources (made once, on first use) ------------------ */

struct cap_state cap_f; /* capture.h */

static volatile int host_flag;
static void CUDART_CB set_flag(void *arg)
{
    (void)arg;
    host_flag = 1;
}

/* enum cts_capture as cudaStreamCaptureMode (NONE: unused). */
const enum cudaStreamCaptureMode cap_capture_modes[] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeGlobal,
                                                       cudaStreamCaptureModeThreadLocal,
                                                       cudaStreamCaptureModeRelaxed};

static int is_variant(const char *v)
{
    return cap_f.c && cap_f.c->variant && !strcmp(cap_f.c->variant, v);
}

/* After a "captured" wait that returned success on stream s: where s now
 * captures, a memset on it and (another stream than the capturing one) an
 * event recorded on it for its rejoin, which the capturing thread makes
 * (cap_rejoin: a second thread cannot name the capturing thread's per-thread
 * stream); cap_f.joined once made, cap_f.join_error where a call failed. */
static void join_back(cudaStream_t s)
{
    static char why[160];
    enum cudaStreamCaptureStatus st;
    int other = cap_f.c->busy != CTS_BUSY_SAME && cap_f.c->busy != CTS_BUSY_THREAD_SAME;
    const char *what = NULL;
    cudaError_t err = cudaStreamIsCapturing(s, &st);
    if (err != cudaSuccess || st != cudaStreamCaptureStatusActive)
        return; /* not joined (or its status not known): nothing follows the wait */
    if ((err = cudaMemsetAsync(cap_f.dst, SET_BYTE, BYTES, s)) != cudaSuccess)
        what = "cudaMemsetAsync on the joined stream";
    else if (other && (err = cudaEventRecord(cap_f.join, s)) != cudaSuccess)
        what = "cudaEventRecord on the joined stream";
    if (what) {
        snprintf(why, sizeof why, "%s returned %s", what, cudaGetErrorName(err));
        cap_f.join_error = why;
    } else {
        cap_f.joined = 1, cap_f.rejoin = other;
    }
}

void cap_rejoin(cudaStream_t capturing)
{
    static char why[160];
    cudaError_t err;
    if (!cap_f.rejoin || (err = cudaStreamWaitEvent(capturing, cap_f.join, 0)) == cudaSuccess)
        return;
    snprintf(why, sizeof why, "cudaStreamWaitEvent rejoining the capturing stream returned %s", cudaGetErrorName(err));
    cap_f.join_error = why;
}

static cudaError_t wait_event(cudaStream_t s)
{
    if (!is_variant(CAPTURED))
        return cudaStreamWaitEvent(s, cap_f.done, is_variant(EXTERNAL) ? cudaEventWaitExternal : 0);
    cudaError_t err = cudaStreamWaitEvent(s, cap_f.asked, 0);
    if (err == cudaSuccess)
        join_back(s);
    return err;
}

/* The calls under test that queue work on stream s; *handled 0 for the others. */
static cudaError_t issue_queued(enum cts_api api, cudaStream_t s, int *handled)
{
    cudaError_t err;
    *handled = 1;
    switch (api) {
    case CTS_API_MEMCPY_ASYNC: return cudaMemcpyAsync(cap_f.dst, cap_f.src, BYTES, cudaMemcpyDeviceToDevice, s);
    case CTS_API_MEMSET_ASYNC: return cudaMemsetAsync(cap_f.dst, SET_BYTE, BYTES, s);
    case CTS_API_LAUNCH:
        if (cap_f.c && cap_f.c->variant && !strcmp(cap_f.c->variant, FIRST))
            return cap_f.fresh_kernel < 0 ? cudaErrorInvalidValue
                                          : cts_launch_fresh(cap_f.fresh_kernel, s, cap_f.word, FRESH_VALUE);
        return cts_launch_pattern(s, cap_f.dst, BYTES, SEED, CTS_PATTERN_AFTER);
    case CTS_API_LAUNCH_HOST_FUNC: return cudaLaunchHostFunc(s, set_flag, NULL);
    case CTS_API_EVENT_RECORD: return cudaEventRecord(cap_f.fresh, s);
    case CTS_API_STREAM_WAIT_EVENT: return wait_event(s);
    case CTS_API_MALLOC_ASYNC: return cudaMallocAsync(&cap_f.made_pooled, 4096, s);
    case CTS_API_FREE_ASYNC:
        if ((err = cudaFreeAsync(cap_f.pooled, s)) == cudaSuccess)
            cap_f.pooled = NULL;
        return err;
    default:
        *handled = 0;
        return cudaSuccess;
    }
}

/* The calls under test about stream s: its capture, its state; *handled 0 for the others. */
static cudaError_t issue_about_stream(enum cts_api api, cudaStream_t s, int *handled)
{
    enum cudaStreamCaptureStatus st;
    unsigned long long id = 0;
    *handled = 1;
    switch (api) {
    case CTS_API_STREAM_BEGIN_CAPTURE: return cudaStreamBeginCapture(s, cap_capture_modes[cap_f.c->capture]);
    case CTS_API_STREAM_END_CAPTURE: return cudaStreamEndCapture(s, &cap_f.ended);
    case CTS_API_STREAM_QUERY: return cudaStreamQuery(s);
    case CTS_API_STREAM_SYNCHRONIZE: return cudaStreamSynchronize(s);
    case CTS_API_STREAM_IS_CAPTURING: return cudaStreamIsCapturing(s, &st);
    case CTS_API_STREAM_GET_CAPTURE_INFO: /* the status and the capture's id (13.0 added edge data) */
#if CUDART_VERSION >= 13000
        return cudaStreamGetCaptureInfo(s, &st, &id, NULL, NULL, NULL, NULL);
#else
        return cudaStreamGetCaptureInfo(s, &st, &id, NULL, NULL, NULL);
#endif
    default:
        *handled = 0;
        return cudaSuccess;
    }
}

/* The call under test, on stream s (ignored where it takes none). */
static cudaError_t issue_call(enum cts_api api, cudaStream_t s)
{
    int handled;
    cudaError_t err = issue_queued(api, s, &handled);
    if (!handled)
        err = issue_about_stream(api, s, &handled);
    if (handled)
        return err;
    switch (api) {
    case CTS_API_CU_MODULE_LOAD_DATA: {
        CUresult r = cts_drv.cuModuleLoadData(&cap_f.module, cap_f.image);
        if (r != CUDA_SUCCESS)
            cap_f.module = NULL;
        return r == CUDA_SUCCESS ? cudaSuccess : (cudaError_t)r; /* the codes agree; named below */
    }
    case CTS_API_EVENT_QUERY: return cudaEventQuery(cap_f.asked);
    case CTS_API_EVENT_SYNCHRONIZE: return cudaEventSynchronize(cap_f.asked);
    case CTS_API_MEMPOOL_TRIM_TO: return cudaMemPoolTrimTo(cap_f.pool, 0);
    case CTS_API_MEMPOOL_SET_ATTRIBUTE: {
        unsigned long long keep = 0;
        if ((err = cudaMemPoolGetAttribute(cap_f.pool, cudaMemPoolAttrReleaseThreshold, &keep)) != cudaSuccess)
            return err;
        return cudaMemPoolSetAttribute(cap_f.pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    case CTS_API_DEVICE_SYNCHRONIZE: return cudaDeviceSynchronize();
    case CTS_API_MALLOC: return cudaMalloc(&cap_f.made, 4096);
    case CTS_API_FREE:
        if ((err = cudaFree(cap_f.spare)) == cudaSuccess)
            cap_f.spare = NULL;
        return err;
    case CTS_API_MEMCPY: return cudaMemcpy(cap_f.dst, cap_f.src, BYTES, cudaMemcpyDeviceToDevice);
    case CTS_API_MEMSET: return cudaMemset(cap_f.dst, SET_BYTE, BYTES);
    case CTS_API_MALLOC_HOST: return cudaMallocHost(&cap_f.made_host, 4096);
    case CTS_API_HOST_REGISTER:
        if ((err = cudaHostRegister(cap_f.host, 1 << 16, cudaHostRegisterDefault)) == cudaSuccess)
            cap_f.registered = 1;
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
    cts_case_buffers(&cap_f.lc, &src, &dst);
    return side ? dst : src;
}

static void *lent_buffer(int side)
{
    enum cts_mem m = lent_kind(side);
    return m >= 0 ? cap_f.lbuf[m][side] : NULL;
}

/* A call as its own family (lc->family) makes it, by the name of the error it returned. */
static const char *family_call(const struct cts_case *lc, void *dst, const void *src, cudaStream_t s)
{
    struct cts_call call = {.dst = dst, .src = src, .value = SET_BYTE, .stream = s, .scratch = &cap_f.scratch};
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
    if (c && cap_f.lent && c == cap_f.c)
        return family_call(&cap_f.lc, lent_buffer(1), lent_buffer(0), s);
    if (c->api == CTS_API_MEMCPY_BATCH_ASYNC)
        return family_call(&batch, cap_f.dst, cap_f.src, s);
    cudaError_t rc = issue_call(c->api, s);
    return rc == cudaSuccess ? "cudaSuccess"
           : c->api == CTS_API_CU_MODULE_LOAD_DATA ? cts_driver_error_name((CUresult)rc) : cudaGetErrorName(rc);
}

/* The call as a thread makes it: in its own interaction mode `by`, restored
 * after; the thread's last error cleared first (a launch reads it). */
const char *cap_call_in_mode(const struct cts_case *c, enum cts_capture by, cudaStream_t s, double *us)
{
    enum cudaStreamCaptureMode m = cap_capture_modes[by], back;
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
    /* its family's after(), in the thread that made the call */
    if (c == cap_f.c && cap_f.lent && cap_f.lc.family->after) {
        const char *e = NULL;
        cap_f.after_error = cap_f.lc.family->after(&cap_f.lc, &cap_f.scratch, s, &e) ? (e ? e : "an error") : NULL;
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
    if (cudaSetDevice(cap_f.device) != cudaSuccess)
        return NULL; /* every job then waits in vain: cap_setup() checks the thread runs first */
    for (;;) {
        pthread_mutex_lock(&job.mu);
        while (!job.pending)
            pthread_cond_wait(&job.cv, &job.mu);
        pthread_mutex_unlock(&job.mu);
        double us = 0;
        const char *rc;
        /* the device (the other one for busy_thread_peer), whatever a call of the last job made current */
        cudaError_t err = cudaSetDevice(job.where == CTS_BUSY_THREAD_PEER ? cap_f.other : cap_f.device);
        cudaStream_t s = job.where == CTS_BUSY_THREAD_LEGACY      ? cudaStreamLegacy
                         : job.where == CTS_BUSY_THREAD_PERTHREAD ? cudaStreamPerThread
                                                                  : job.s;
        rc = err == cudaSuccess ? cap_call_in_mode(job.c, job.by, s, &us) : cudaGetErrorName(err);
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

const char *cap_in_worker(const struct cts_case *c, enum cts_capture by, cudaStream_t cap, enum cts_busy where,
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

/* What every repetition starts from: the destination cleared, the flag down,
 * what cudaFree and cudaFreeAsync free there, the device idle. */
static int lent_samples(void);
int cap_reset(void)
{
    host_flag = 0;
    if (cap_f.lent && lent_samples())
        return -1;
    SETUP(cudaMemsetAsync(cap_f.dst, 0, BYTES, cap_f.quiet));
    SETUP(cudaMemsetAsync(cap_f.word, 0, sizeof *cap_f.word, cap_f.quiet));
    if (!cap_f.spare)
        SETUP(cudaMalloc(&cap_f.spare, 4096));
    if (!cap_f.pooled)
        SETUP(cudaMallocAsync(&cap_f.pooled, 4096, cap_f.quiet));
    SETUP(cudaDeviceSynchronize());
    return 0;
}

/* Frees what the call allocated (after the capture ended, the device idle). */
int cap_undo(void)
{
    if (cap_f.made)
        SETUP(cudaFree(cap_f.made));
    if (cap_f.made_host)
        SETUP(cudaFreeHost(cap_f.made_host));
    if (cap_f.made_pooled)
        SETUP(cudaFreeAsync(cap_f.made_pooled, cap_f.quiet));
    if (cap_f.registered)
        SETUP(cudaHostUnregister(cap_f.host));
    if (cap_f.module) {
        CUresult r = cts_drv.cuModuleUnload(cap_f.module);
        cap_f.module = NULL;
        if (r != CUDA_SUCCESS) {
            snprintf(cap_f.why, sizeof cap_f.why, "harness: cuModuleUnload returned %s", cts_driver_error_name(r));
            return -1;
        }
    }
    if (cap_f.ended) {
        cudaGraph_t g = cap_f.ended;
        cap_f.ended = NULL;
        SETUP(cudaGraphDestroy(g));
    }
    cap_f.made = cap_f.made_host = cap_f.made_pooled = NULL;
    cap_f.registered = 0;
    SETUP(cudaDeviceSynchronize());
    return 0;
}

/* Every call once from each thread, outside any capture, and one graph
 * captured, instantiated and launched: no first use falls in a repetition. */
static int warm_up(void)
{
    for (size_t a = 0; a < N_OF(cap_stream_calls) + N_OF(cap_plain_calls); a++) {
        enum cts_api api =
            a < N_OF(cap_stream_calls) ? cap_stream_calls[a] : cap_plain_calls[a - N_OF(cap_stream_calls)];
        char why[CTS_REASON_MAX];
        if (cts_api_since(api) > CUDART_VERSION ||
            (api == CTS_API_CU_MODULE_LOAD_DATA && cts_need_driver("cuModuleLoadData", why, sizeof why)))
            continue; /* its cases are NOTSUPP (needs) */
        cap_f.asked = cap_f.done;
        struct cts_case w = {.api = api};
        for (int t = 0; t < 2; t++) {
            double us;
            if (cap_reset())
                return -1;
            const char *rc = t ? cap_in_worker(&w, CTS_CAPTURE_GLOBAL, cap_f.sib_nonblocking, CTS_BUSY_THREAD_SAME, &us)
                               : cap_call_in_mode(&w, CTS_CAPTURE_GLOBAL, cap_f.sib_nonblocking, &us);
            if (strcmp(rc, "cudaSuccess")) {
                snprintf(cap_f.why, sizeof cap_f.why, "harness: warming up %s (thread %d) returned %s",
                         cts_api_function(api), t + 1, rc);
                return -1;
            }
            if (cap_undo())
                return -1;
        }
    }
    cudaGraph_t g;
    cudaGraphExec_t x;
    SETUP(cudaStreamBeginCapture(cap_f.sib_nonblocking, cudaStreamCaptureModeGlobal));
    SETUP(cudaMemsetAsync(cap_f.dst, SET_BYTE, BYTES, cap_f.sib_nonblocking));
    SETUP(cudaStreamEndCapture(cap_f.sib_nonblocking, &g));
    SETUP(cudaGraphInstantiate(&x, g, 0));
    SETUP(cudaGraphLaunch(x, cap_f.quiet));
    SETUP(cudaStreamSynchronize(cap_f.quiet));
    SETUP(cudaGraphExecDestroy(x));
    SETUP(cudaGraphDestroy(g));
    return 0;
}

int cap_setup(void)
{
    if (cap_f.ready)
        return cap_f.ready < 0 ? -1 : 0;
    cap_f.ready = -1;
    SETUP(cudaGetDevice(&cap_f.device));
    {
        int count = 0;
        SETUP(cudaGetDeviceCount(&count));
        cap_f.other = count > 1 ? (cap_f.device + 1) % count : -1;
    }
    SETUP(cudaMalloc((void **)&cap_f.src, BYTES));
    SETUP(cudaMalloc((void **)&cap_f.dst, BYTES));
    SETUP(cudaMalloc((void **)&cap_f.word, sizeof *cap_f.word));
    if (!(cap_f.image = malloc(cts_module_image_size))) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: setting up the capture family: out of host memory");
        return -1;
    }
    memcpy(cap_f.image, cts_module_image, cts_module_image_size);
    SETUP(cudaMemset(cap_f.src, SRC_BYTE, BYTES));
    SETUP(cudaStreamCreateWithFlags(&cap_f.sib_blocking, cudaStreamDefault));
    SETUP(cudaStreamCreateWithFlags(&cap_f.sib_nonblocking, cudaStreamNonBlocking));
    SETUP(cudaStreamCreateWithFlags(&cap_f.quiet, cudaStreamNonBlocking));
    SETUP(cudaEventCreate(&cap_f.done));
    SETUP(cudaEventCreate(&cap_f.fresh));
    SETUP(cudaEventCreateWithFlags(&cap_f.join, cudaEventDisableTiming));
    SETUP(cudaEventRecord(cap_f.done, cap_f.quiet));
    SETUP(cudaDeviceGetDefaultMemPool(&cap_f.pool, cap_f.device));
    SETUP(cudaDeviceSynchronize());
    for (int side = 0; side < 2; side++) {
        SETUP(cudaMalloc(&cap_f.lbuf[CTS_MEM_DEVICE][side], LEND_BYTES));
        SETUP(cudaMallocHost(&cap_f.lbuf[CTS_MEM_PINNED][side], LEND_BYTES));
        if (!(cap_f.lbuf[CTS_MEM_PAGEABLE][side] = malloc(LEND_BYTES))) {
            snprintf(cap_f.why, sizeof cap_f.why, "harness: setting up the capture family: out of host memory");
            return -1;
        }
        memset(cap_f.lbuf[CTS_MEM_PAGEABLE][side], 0, LEND_BYTES);
    }
    if (!(cap_f.host = aligned_alloc(4096, 1 << 16))) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: setting up the capture family: out of host memory");
        return -1;
    }
    if (pthread_create(&cap_f.worker, NULL, worker, NULL)) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: setting up the capture family: no second thread");
        return -1;
    }
    if (warm_up())
        return -1;
    cap_f.ready = 1;
    return 0;
}

/* ---- a lent call's sample bytes (the device idle) ------------------------- */

/* Does the lent call move bytes (a copy or a memset into a destination)? */
static int lent_moves(void)
{
    const struct cts_family *l = cap_f.lc.family;
    return (l == &cts_family_memcpy || l == &cts_family_copy || l == &cts_family_memset) &&
           lent_kind(1) != CTS_MEM_NONE && cap_f.lc.size_idx >= 0;
}

static void lent_offsets(size_t off[3])
{
    off[0] = 0, off[1] = cap_f.lc.size / 2, off[2] = cap_f.lc.size - 1;
}

/* A sample byte of a side: set (set != 0, to *v) or read (into *v). */
static int lent_byte(int side, size_t off, unsigned char *v, int set)
{
    enum cts_mem m = lent_kind(side);
    const char *e = NULL;
    if (m == CTS_MEM_OWN) {
        int rc = set ? cap_f.lc.family->poke(&cap_f.lc, side, off, *v, &e)
                     : cap_f.lc.family->peek(&cap_f.lc, side, off, v, &e);
        if (rc)
            snprintf(cap_f.why, sizeof cap_f.why, "harness: the %s family's %s returned %s", cap_f.lc.family->name,
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
int cap_effect(enum cts_api api, int *out)
{
    unsigned char want, b[2];
    *out = -1;
    if (cap_f.lent)
        return lent_effect(out);
    switch (api) {
    case CTS_API_LAUNCH_HOST_FUNC: *out = host_flag ? 2 : 0; return 0;
    case CTS_API_MEMCPY_ASYNC: case CTS_API_MEMCPY: case CTS_API_MEMCPY_BATCH_ASYNC: want = SRC_BYTE; break;
    case CTS_API_MEMSET_ASYNC: case CTS_API_MEMSET: want = SET_BYTE; break;
    case CTS_API_STREAM_WAIT_EVENT: /* a "captured" wait: the memset after it, where its stream joined */
        if (!cap_f.joined)
            return 0;
        want = SET_BYTE;
        break;
    case CTS_API_LAUNCH:
        if (cap_f.c && cap_f.c->variant && !strcmp(cap_f.c->variant, FIRST)) { /* the fresh kernel's store */
            unsigned int w = 0;
            SETUP(cudaMemcpy(&w, cap_f.word, sizeof w, cudaMemcpyDeviceToHost));
            *out = cap_f.fresh_kernel >= 0 && w == FRESH_VALUE + (unsigned)cap_f.fresh_kernel ? 2 : 0;
            return 0;
        }
        want = 0; /* the pattern's, below */
        break;
    default: return 0;
    }
    SETUP(cudaMemcpy(&b[0], cap_f.dst, 1, cudaMemcpyDeviceToHost));
    SETUP(cudaMemcpy(&b[1], cap_f.dst + BYTES - 1, 1, cudaMemcpyDeviceToHost));
    int first = api == CTS_API_LAUNCH ? b[0] == cts_pattern_byte(0, SEED, CTS_PATTERN_AFTER) : b[0] == want;
    int last = api == CTS_API_LAUNCH ? b[1] == cts_pattern_byte(BYTES - 1, SEED, CTS_PATTERN_AFTER) : b[1] == want;
    *out = first + last;
    return 0;
}
