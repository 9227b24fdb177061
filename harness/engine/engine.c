/* The engine's set-up and teardown: the context, streams, buffers and
 * mapped records, the self-check that proves the latch, and the launch
 * probe.  See engine_int.h for how one repetition is measured. */
#define _GNU_SOURCE
#include "engine_int.h"
#include "driver.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void cts_eng_setf(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, CTS_REASON_MAX, fmt, ap);
    va_end(ap);
}

static cudaError_t set_device_job(void *arg)
{
    return cudaSetDevice(*(int *)arg);
}

/* ---- set-up ----------------------------------------------------------------- */

/* alloc_kind's step for a kind the device may lack (it uses alloc_kind's e,
 * m, why and attr): attribute a must be nonzero, else the kind is not
 * supported here and e->notsupp[m] names a.  A macro so that HCHECK still
 * quotes the query as written before, naming the attribute. */
#define REQUIRE_ATTR(a)                                                           \
    do {                                                                          \
        HCHECK(why, cudaDeviceGetAttribute(&attr, a, e->device));                 \
        if (!attr) {                                                              \
            cts_eng_setf(e->notsupp[m], #a " is 0 on this device");               \
            return 0;                                                             \
        }                                                                         \
    } while (0)

/* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set on the allocation at p (the kind's
 * buffer, kept in bufs[] so that teardown frees it either way): 0; else 1
 * with e->notsupp[m] saying why not (the kind's cases are NOTSUPP). */
static int sync_memops(struct cts_engine *e, enum cts_mem m, void *p)
{
    unsigned one = 1;
    if (!cts_drv.cuPointerSetAttribute) {
        cts_eng_setf(e->notsupp[m], "the driver has no cuPointerSetAttribute (%s)", CTS_DRIVER_LOOKUP);
        return 1;
    }
    CUresult r = cts_drv.cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)(uintptr_t)p);
    if (r != CUDA_SUCCESS) {
        cts_eng_setf(e->notsupp[m], "cuPointerSetAttribute(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) returned %s",
                     cts_driver_error_name(r));
        return 1;
    }
    return 0;
}

/* Two buffers of memory kind m, `bytes` each, into bufs[0..1]. */
static int alloc_kind(struct cts_engine *e, enum cts_mem m, void *bufs[2], size_t bytes, char *why)
{
    int attr = 0;
    for (int i = 0; i < 2; i++) {
        void *p = NULL;
        switch (m) { /* the kinds a device may lack first */
        case CTS_MEM_PAGEABLE:
        case CTS_MEM_REGISTERED:
            if (m == CTS_MEM_REGISTERED)
                REQUIRE_ATTR(cudaDevAttrHostRegisterSupported);
            p = aligned_alloc(4096, bytes);
            if (!p) {
                cts_eng_setf(why, "harness: out of host memory");
                return -1;
            }
            memset(p, 0, bytes); /* fault every page in before measuring */
            if (m == CTS_MEM_REGISTERED)
                HCHECK(why, cudaHostRegister(p, bytes, cudaHostRegisterDefault));
            break;
        case CTS_MEM_MAPPED:
            REQUIRE_ATTR(cudaDevAttrCanMapHostMemory);
            HCHECK(why, cudaHostAlloc(&p, bytes, cudaHostAllocMapped));
            break;
        case CTS_MEM_MANAGED:
            REQUIRE_ATTR(cudaDevAttrManagedMemory);
            HCHECK(why, cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
            break;
        case CTS_MEM_PINNED:
            HCHECK(why, cudaMallocHost(&p, bytes));
            break;
        case CTS_MEM_PORTABLE:
            HCHECK(why, cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
            break;
        case CTS_MEM_WC:
            HCHECK(why, cudaHostAlloc(&p, bytes, cudaHostAllocWriteCombined));
            break;
        case CTS_MEM_DEVICE:
            HCHECK(why, cudaMalloc(&p, bytes));
            break;
        case CTS_MEM_DEVICE_SYNC:
        case CTS_MEM_PINNED_SYNC:
            HCHECK(why, m == CTS_MEM_DEVICE_SYNC ? cudaMalloc(&p, bytes) : cudaMallocHost(&p, bytes));
            bufs[i] = p;
            if (sync_memops(e, m, p))
                return 0;
            break;
        default:
            cts_eng_setf(why, "harness: unknown memory kind %d", (int)m);
            return -1;
        }
        bufs[i] = p;
        if (m == CTS_MEM_DEVICE || m == CTS_MEM_DEVICE_SYNC)
            HCHECK(why, cudaMemset(p, 0, bytes));
        else if (m != CTS_MEM_PAGEABLE && m != CTS_MEM_REGISTERED)
            memset(p, 0, bytes);
    }
    return 0;
fail:
    return -1;
}
#undef REQUIRE_ATTR

/* The self-check's first part: how long a marker takes on an idle GPU (the median). */
static int selfcheck_marker_idle(struct cts_engine *e)
{
    struct cts_selfcheck *sc = &e->selfcheck;
    double lat[IDLE_SAMPLES];

    for (int i = 0; i < IDLE_SAMPLES; i++) {
        unsigned seq = ++e->seq;
        double t0 = cts_now_us();
        HCHECK(e->broken, cts_eng_marker(e, e->nonblocking[0], &e->mk_dev[0], seq));
        if (!cts_eng_wait_marker(e, 0, seq, START_LIMIT_US)) {
            cts_eng_setf(e->broken, "self-check: a marker on an idle GPU did not run within %.0f s",
                         START_LIMIT_US / 1e6);
            return -1;
        }
        lat[i] = cts_now_us() - t0;
        HCHECK(e->broken, cudaDeviceSynchronize());
    }
    for (int i = 1; i < IDLE_SAMPLES; i++) /* insertion sort for the median */
        for (int j = i; j > 0 && lat[j] < lat[j - 1]; j--) {
            double t = lat[j];
            lat[j] = lat[j - 1];
            lat[j - 1] = t;
        }
    sc->marker_idle_us = lat[IDLE_SAMPLES / 2];
    return 0;
fail:
    cts_latch_open(&e->latch);
    return -1;
}

/* The self-check's second part: each gate holds a marker behind it, and
 * markers on the streams independent of it run (sets sc->gate_holds and
 * sc->streams_independent, with sc->detail). */
/* *held counts the markers on independent streams that did not run. */
static int selfcheck_streams(struct cts_engine *e, int *held)
{
    struct cts_selfcheck *sc = &e->selfcheck;
    struct {
        cudaStream_t gate; /* NULL: the second host thread's per-thread stream */
        const char *name;
        int n;
        cudaStream_t run[6];
        const char *run_name[6];
    } checks[4] = {
        {e->blocking[1], "blocking", 5,
         {e->blocking[0], e->blocking[2], e->nonblocking[0], e->nonblocking[2], cudaStreamPerThread},
         {"blocking[0]", "blocking[2]", "nonblocking[0]", "nonblocking[2]", "perthread"}},
        {e->nonblocking[1], "nonblocking", 6,
         {e->blocking[0], e->blocking[2], e->nonblocking[0], e->nonblocking[2], cudaStreamPerThread,
          cudaStreamLegacy},
         {"blocking[0]", "blocking[2]", "nonblocking[0]", "nonblocking[2]", "perthread", "legacy"}},
        {cudaStreamPerThread, "perthread", 4,
         {e->blocking[0], e->blocking[2], e->nonblocking[0], e->nonblocking[2]},
         {"blocking[0]", "blocking[2]", "nonblocking[0]", "nonblocking[2]"}},
        {NULL, "second thread's per-thread", 5,
         {e->blocking[0], e->blocking[2], e->nonblocking[0], e->nonblocking[2], cudaStreamPerThread},
         {"blocking[0]", "blocking[2]", "nonblocking[0]", "nonblocking[2]", "perthread"}},
    };

    for (int k = 0; k < 4; k++) {
        unsigned seq = ++e->seq;
        HCHECK(e->broken, cudaDeviceSynchronize());
        cts_latch_close(&e->latch);
        if (checks[k].gate)
            HCHECK(e->broken, cts_eng_gate(e, checks[k].gate, 10000000000ull, seq));
        else
            HCHECK(e->broken, worker_launch_gate(e, 1, 10000000000ull, seq));
        if (!cts_eng_wait_gate_started(e, seq)) {
            cts_latch_open(&e->latch);
            cts_eng_setf(e->broken, "self-check: the gate on the %s stream did not start", checks[k].name);
            return -1;
        }
        if (checks[k].gate)
            HCHECK(e->broken, cts_eng_marker(e, checks[k].gate, &e->mk_dev[0], seq));
        else
            HCHECK(e->broken, worker_launch_marker(e, 1, &e->mk_dev[0], seq));
        for (int i = 0; i < checks[k].n; i++)
            HCHECK(e->broken, cts_eng_marker(e, checks[k].run[i], &e->mk_dev[1 + i], seq));
        for (int i = 0; i < checks[k].n; i++) {
            if (cts_eng_wait_marker(e, 1 + i, seq, 200000.0))
                continue;
            if (!(*held)++)
                cts_eng_setf(sc->detail, "a marker on %s did not run while a gate held the %s stream",
                             checks[k].run_name[i], checks[k].name);
            sc->streams_independent = 0;
        }
        if (e->mk_host[0].done == seq && sc->gate_holds) {
            sc->gate_holds = 0;
            cts_eng_setf(sc->detail, "a marker behind the gate on the %s stream ran while it was closed",
                         checks[k].name);
        }
        cts_latch_open(&e->latch);
        HCHECK(e->broken, cudaDeviceSynchronize());
        if (e->gate_host->reason != CTS_GATE_OPENED) {
            cts_eng_setf(e->broken, "self-check: the gate on the %s stream was not opened by its flag",
                         checks[k].name);
            return -1;
        }
    }
    return 0;
fail:
    cts_latch_open(&e->latch);
    return -1;
}

/* Proves the latch works with these streams before any case trusts it: a
 * marker behind the gate on its own stream is held, and markers on streams
 * that are independent of the gate's (by the documented stream semantics and
 * by the hardware queues the driver gave them) run while it is closed. */
static int selfcheck(struct cts_engine *e)
{
    e->selfcheck.ran = 1;
    e->selfcheck.gate_holds = 1;
    e->selfcheck.streams_independent = 1;
    int held = 0;
    const char *conn = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    if (selfcheck_marker_idle(e) || selfcheck_streams(e, &held))
        return -1;
    if (e->selfcheck.gate_holds && !e->selfcheck.streams_independent && conn) {
        /* The setting, not the harness: streams that share one of the fewer
         * hardware queues wait for each other (the false dependency), so no
         * stream can be held alone.  Every case is NOTSUPP, saying so. */
        cts_eng_setf(e->unmeasurable,
                     "streams are not independent with CUDA_DEVICE_MAX_CONNECTIONS=%s: %d of the self-check's "
                     "20 markers on other streams did not run while a gate held one (the first: %s), so no "
                     "single stream can be held",
                     conn, held, e->selfcheck.detail);
        return 0;
    }
    if (!e->selfcheck.gate_holds || !e->selfcheck.streams_independent) {
        cts_eng_setf(e->broken, "self-check failed: %s", e->selfcheck.detail);
        return -1;
    }
    cts_eng_setf(e->selfcheck.detail, "gate holds its stream; markers on 7 independent stream pairs ran "
                                      "(one gate issued from a second host thread)");
    return 0;
}

/* Every stream a case can name, in warm-up order: the NULL handle, the two
 * default streams, three blocking and three non-blocking streams. */
enum { ENGINE_STREAMS = 9 };
static void engine_streams(const struct cts_engine *e, cudaStream_t all[ENGINE_STREAMS])
{
    const cudaStream_t s[ENGINE_STREAMS] = {(cudaStream_t)0,  cudaStreamLegacy,  cudaStreamPerThread,
                                            e->blocking[0],   e->blocking[1],    e->blocking[2],
                                            e->nonblocking[0], e->nonblocking[1], e->nonblocking[2]};
    for (int i = 0; i < ENGINE_STREAMS; i++)
        all[i] = s[i];
}

/* The wait-value hold: its driver functions and deadline thread, and one
 * open wait and marker on every stream.  A driver or device without stream
 * memory operations leaves every case NOTSUPP, naming the error.  0, or -1
 * with e->broken or e->unmeasurable set. */
static int warm_wait_value(struct cts_engine *e)
{
    if (cts_hold_start(e)) {
        cts_eng_setf(e->unmeasurable, "the wait-value hold needs cuStreamWaitValue32 and "
                                      "cuStreamWriteValue32, which this driver does not give");
        return -1;
    }
    cudaStream_t all[ENGINE_STREAMS];
    engine_streams(e, all);
    *e->flag_host = 1u;
    for (size_t i = 0; i < ENGINE_STREAMS; i++) {
        unsigned seq = ++e->seq;
        if (cts_eng_gate(e, all[i], 1000000000ull, seq) != cudaSuccess ||
            cts_eng_marker(e, all[i], &e->mk_dev[i], seq) != cudaSuccess) {
            (void)cudaGetLastError();
            cts_eng_setf(e->unmeasurable, "the wait-value hold cannot be used here: a stream memory "
                                          "operation returned %s", cts_driver_error_name(e->hold_error));
            return -1;
        }
        HCHECK(e->broken, cudaDeviceSynchronize());
    }
    return 0;
fail:
    return -1;
}

/* Launches must return before their kernel ends, or nothing can be held:
 * under CUDA_LAUNCH_BLOCKING=1 the gate's own launch would wait for the gate.
 * A gate that ends itself after PROBE_BUDGET_NS tells which.  If launches are
 * synchronous, every case is NOTSUPP with the measured reason. */
static int launch_probe(struct cts_engine *e)
{
    unsigned seq = ++e->seq;
    HCHECK(e->broken, cudaDeviceSynchronize());
    cts_latch_close(&e->latch);
    double t0 = cts_now_us();
    HCHECK(e->broken, cts_launch_gate(e->nonblocking[1], e->flag_dev, PROBE_BUDGET_NS, e->gate_dev, seq));
    double t1 = cts_now_us();
    int ended = e->gate_host->ended == seq;
    cts_latch_open(&e->latch);
    HCHECK(e->broken, cudaDeviceSynchronize());
    e->selfcheck.launches_async = !ended;
    if (ended && e->hold == CTS_HOLD_KERNEL) { /* a wait-value hold is no launch */
        const char *lb = getenv("CUDA_LAUNCH_BLOCKING");
        cts_eng_setf(e->unmeasurable,
                     "kernel launches are synchronous here (CUDA_LAUNCH_BLOCKING=%s): the gate's launch "
                     "returned only after the gate had ended at its own deadline (%.1f ms), so no work "
                     "can be held",
                     lb ? lb : "unset", (t1 - t0) / 1e3);
    }
    return 0;
fail:
    cts_latch_open(&e->latch);
    return -1;
}

/* How late a host thread waiting in a synchronize wakes up once the work it
 * waits for ends: a gate is opened by the watchdog while the host sits in
 * cudaStreamSynchronize.  The slowest of IDLE_SAMPLES is recorded with the
 * self-check (spin: a few us; blocking-sync: hundreds): evidence of the
 * schedule.  Late waits are proven by tracking instead (run_rep_inner). */
static int measure_wake(struct cts_engine *e)
{
    double worst = 0;
    for (int i = 0; i < IDLE_SAMPLES; i++) {
        unsigned seq = ++e->seq;
        HCHECK(e->broken, cudaDeviceSynchronize());
        cts_latch_close(&e->latch);
        HCHECK(e->broken, cts_eng_gate(e, e->nonblocking[1], 10000000000ull, seq));
        if (!cts_eng_wait_gate_started(e, seq)) {
            cts_latch_open(&e->latch);
            cts_eng_setf(e->broken, "self-check: the gate did not start");
            return -1;
        }
        cts_latch_arm(&e->latch, TIMEOUT_FLOOR_US);
        cudaError_t err = cudaStreamSynchronize(e->nonblocking[1]);
        double t = cts_now_us();
        int closed = cts_latch_claim(&e->latch);
        cts_latch_open(&e->latch);
        HCHECK(e->broken, err);
        if (closed) {
            cts_eng_setf(e->broken, "self-check: cudaStreamSynchronize returned while its gate was closed");
            return -1;
        }
        worst = fmax(worst, t - e->latch.released_us);
    }
    e->selfcheck.wake_us = worst;
    return 0;
fail:
    cts_latch_open(&e->latch);
    return -1;
}

int cts_engine_init(struct cts_engine *e, int device)
{
    return cts_engine_init_sized(e, device, CTS_BUF_BYTES);
}

/* The streams, and the mapped memory the flag, the gate record, the
 * markers, the pokes and the landing peeks share: 0, or -1 (e->broken). */
static int engine_memory(struct cts_engine *e)
{
    void *mapped = NULL;
    for (int i = 0; i < 3; i++) {
        HCHECK(e->broken, cudaStreamCreateWithFlags(&e->blocking[i], cudaStreamDefault));
        HCHECK(e->broken, cudaStreamCreateWithFlags(&e->nonblocking[i], cudaStreamNonBlocking));
    }
    /* The flag, the gate record and the markers share one mapped page. */
    HCHECK(e->broken, cudaHostAlloc(&mapped, 4096, cudaHostAllocMapped));
    memset(mapped, 0, 4096);
    void *mapped_dev = NULL;
    HCHECK(e->broken, cudaHostGetDevicePointer(&mapped_dev, mapped, 0));
    e->flag_host = (volatile unsigned int *)mapped;
    e->flag_dev = (unsigned int *)mapped_dev;
    e->gate_host = (struct cts_gate_record *)((char *)mapped + 64);
    e->gate_dev = (struct cts_gate_record *)((char *)mapped_dev + 64);
    e->mk_host = (struct cts_marker_record *)((char *)mapped + 256);
    e->mk_dev = (struct cts_marker_record *)((char *)mapped_dev + 256);
    HCHECK(e->broken, cudaHostAlloc((void **)&e->poke_host, 64, cudaHostAllocMapped));
    HCHECK(e->broken, cudaHostGetDevicePointer((void **)&e->poke_dev, e->poke_host, 0));
    e->land_host = e->poke_host + 32;
    e->land_dev = e->poke_dev + 32;
    HCHECK(e->broken, cudaStreamCreateWithFlags(&e->landing, cudaStreamNonBlocking));
    return 0; /* the buffers of each memory kind: at its first case (cts_eng_kind) */
fail:
    return -1;
}

/* Warm-up: load the module and touch every stream with every kernel, the
 * second thread's too: 0, or -1 (e->broken). */
static int engine_warm(struct cts_engine *e)
{
    cudaStream_t all[ENGINE_STREAMS];
    engine_streams(e, all);
    *e->flag_host = 1u;
    for (size_t i = 0; i < ENGINE_STREAMS; i++) {
        unsigned seq = ++e->seq;
        HCHECK(e->broken, cts_launch_gate(all[i], e->flag_dev, 1000000000ull, e->gate_dev, seq));
        HCHECK(e->broken, cts_launch_marker(all[i], &e->mk_dev[i], seq));
        HCHECK(e->broken, cts_launch_sleep(all[i], 1000));
        HCHECK(e->broken, cudaDeviceSynchronize());
    }
    struct cts_bytes none = {.n = 0};
    HCHECK(e->broken, cts_launch_poke(e->nonblocking[0], &none));
    /* The data-order kernels (written.c), loaded before any case too. */
    HCHECK(e->broken, cts_launch_pattern(e->nonblocking[0], NULL, 0, 0, 0));
    HCHECK(e->broken, cts_launch_snapshot(e->nonblocking[0], NULL, NULL, 0));
    HCHECK(e->broken, cts_launch_peek(e->nonblocking[0], &none, e->poke_dev));
    HCHECK(e->broken, cts_launch_peek(e->landing, &none, e->land_dev)); /* the landing stream's first launch */
    HCHECK(e->broken, cudaDeviceSynchronize());
    for (int pt = 0; pt < 2; pt++) { /* the second thread's legacy and per-thread streams */
        unsigned seq = ++e->seq;
        HCHECK(e->broken, worker_launch_gate(e, pt, 1000000000ull, seq));
        HCHECK(e->broken, worker_launch_marker(e, pt, &e->mk_dev[0], seq));
        HCHECK(e->broken, cudaDeviceSynchronize());
    }
    return 0;
fail:
    return -1;
}

int cts_engine_init_sized(struct cts_engine *e, int device, size_t buf_bytes)
{
    memset(e, 0, sizeof *e);
    e->device = device;
    e->hold = cts_hold_selected;
    e->buf_bytes = buf_bytes;

    e->init_at[0] = cts_now_us();
    HCHECK(e->broken, cudaSetDevice(device));
    HCHECK(e->broken, cudaFree(NULL)); /* create the context now, not inside a case */
    HCHECK(e->broken, cudaDeviceGetAttribute(&e->prefetch_managed, cudaDevAttrConcurrentManagedAccess, device));
    e->init_at[1] = cts_now_us();
    if (cts_driver_load(e->broken, sizeof e->broken) || engine_memory(e))
        return -1;
    if (cts_latch_start(&e->latch, e->flag_host)) {
        cts_eng_setf(e->broken, "harness: cannot start the watchdog thread");
        return -1;
    }
    if (cts_eng_worker_start(e)) {
        cts_eng_setf(e->broken, "harness: cannot start the second host thread");
        return -1;
    }
    HCHECK(e->broken, on_worker(e, set_device_job, &e->worker.device));
    e->init_at[2] = cts_now_us();
    if (engine_warm(e))
        return -1;
    if (e->hold != CTS_HOLD_KERNEL && warm_wait_value(e))
        return e->broken[0] ? -1 : 0;
    e->init_at[3] = cts_now_us();
    if (launch_probe(e))
        return -1;
    e->init_at[4] = cts_now_us();
    if (e->unmeasurable[0])
        return 0; /* no self-check can hold anything either */
    if (selfcheck(e))
        return -1;
    e->init_at[5] = cts_now_us();
    if (measure_wake(e))
        return -1;
    e->init_at[6] = cts_now_us();
    return 0;
fail:
    return -1;
}

int cts_eng_kind(struct cts_engine *e, enum cts_mem m, char *why)
{
    if (m < 0 || e->buf[m][1] || e->notsupp[m][0])
        return 0;
    if (alloc_kind(e, m, e->buf[m], e->buf_bytes, why))
        return -1;
    HCHECK(why, cudaDeviceSynchronize());
    return 0;
fail:
    return -1;
}

int cts_eng_fit(struct cts_engine *e, const struct cts_case *c, char *why)
{
    if (c->size <= e->buf_bytes)
        return 0;
    enum cts_mem side[2];
    cts_case_buffers(c, &side[0], &side[1]);
    if (side[0] < 0 && side[1] < 0)
        return 0; /* none of the engine's memory: the family's own, of any size */
    if (c->size > CTS_BIG_BYTES) {
        cts_eng_setf(why, "harness: %zu bytes is more than the largest buffers (%zu)", c->size,
                     (size_t)CTS_BIG_BYTES);
        return -1;
    }
    for (int k = 0; k < 2; k++) {
        enum cts_mem m = side[k];
        if (m < 0 || e->big[m][0] || e->notsupp[m][0])
            continue;
        if (alloc_kind(e, m, e->big[m], CTS_BIG_BYTES, why))
            return -1;
        HCHECK(why, cudaDeviceSynchronize());
    }
    return 0;
fail:
    return -1;
}

/* The data-order buffers (written.c makes them), freed: at teardown, and
 * before written.c makes them larger. */
void cts_eng_data_free(struct cts_engine *e)
{
    free(e->data.before), free(e->data.after), free(e->data.clear);
    if (e->data.read_host)
        (void)cudaFreeHost(e->data.read_host);
    if (e->data.snap_host)
        (void)cudaFreeHost(e->data.snap_host);
    if (e->data.snap_dev)
        (void)cudaFree(e->data.snap_dev);
    if (e->data.after_dev)
        (void)cudaFree(e->data.after_dev);
    e->data.before = e->data.after = e->data.clear = e->data.snap_host = e->data.read_host = NULL;
    e->data.snap_dev = e->data.after_dev = NULL;
    e->data.bytes = 0;
}

void cts_engine_fini(struct cts_engine *e)
{
    cts_hold_stop(e);
    cts_eng_worker_stop(e);
    cts_latch_stop(&e->latch);
    (void)cudaDeviceSynchronize();
    for (int m = 0; m < CTS_MEM_COUNT; m++)
        for (int i = 0; i < 4; i++) {
            void *p = i < 2 ? e->buf[m][i] : e->big[m][i - 2];
            if (!p)
                continue;
            switch (m) {
            case CTS_MEM_PAGEABLE: free(p); break;
            case CTS_MEM_REGISTERED: (void)cudaHostUnregister(p); free(p); break;
            case CTS_MEM_MANAGED:
            case CTS_MEM_DEVICE:
            case CTS_MEM_DEVICE_SYNC: (void)cudaFree(p); break;
            default: (void)cudaFreeHost(p); break;
            }
        }
    for (int i = 0; i < 3; i++) {
        if (e->blocking[i])
            (void)cudaStreamDestroy(e->blocking[i]);
        if (e->nonblocking[i])
            (void)cudaStreamDestroy(e->nonblocking[i]);
    }
    if (e->flag_host)
        (void)cudaFreeHost((void *)e->flag_host);
    if (e->landing)
        (void)cudaStreamDestroy(e->landing);
    if (e->poke_host)
        (void)cudaFreeHost(e->poke_host);
    cts_eng_data_free(e);
}
