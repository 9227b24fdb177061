/* The measuring engine.
 *
 * One repetition of a case:
 *   1. the device is idle; sample bytes of the source get a fresh pattern v,
 *      those of the destination another value u;
 *   2. the gate kernel is launched on the busy placement and the host waits
 *      until it is spinning;
 *   3. the watchdog is armed; the call under test is issued; right after it
 *      returns the host claims the latch.  A successful claim proves the gate
 *      was closed for the whole call: the call did not wait for held work;
 *   4. while the gate is still closed: host samples of the destination are
 *      read (did the copy complete before returning?), host samples of the
 *      source are overwritten with w (did the copy take its bytes before
 *      returning?), and markers are launched on the op stream and on two third
 *      streams; each marker that runs before the gate opens provably does not
 *      wait for it;
 *   5. the gate opens, the device drains, and the destination's samples say
 *      whether the copy happened (v or w, never u) and when it read its source.
 * Every harness CUDA call is checked; a failure makes the repetition BROKEN,
 * never a verdict. */
#define _GNU_SOURCE
#include "engine.h"
#include "driver.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>


void cts_eng_setf(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, CTS_REASON_MAX, fmt, ap);
    va_end(ap);
}

/* Checks a harness CUDA call; on failure writes the reason and jumps out. */
#define HCHECK(reason, call)                                                                  \
    do {                                                                                      \
        cudaError_t err_ = (call);                                                            \
        if (err_ != cudaSuccess) {                                                            \
            cts_eng_setf((reason), "harness: %s returned %s", #call, cudaGetErrorName(err_)); \
            (void)cudaGetLastError();                                                         \
            goto fail;                                                                        \
        }                                                                                     \
    } while (0)

/* ---- the second host thread ------------------------------------------------ */

static void *worker_main(void *arg)
{
    struct cts_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->pending && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->quit)
            break;
        w->result = w->fn(w->arg);
        w->pending = 0;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static cudaError_t set_device_job(void *arg)
{
    return cudaSetDevice(*(int *)arg);
}

/* Runs fn(arg) on the worker and returns its result. */
cudaError_t on_worker(struct cts_engine *e, cudaError_t (*fn)(void *), void *arg)
{
    struct cts_worker *w = &e->worker;
    pthread_mutex_lock(&w->mu);
    w->fn = fn;
    w->arg = arg;
    w->pending = 1;
    pthread_cond_broadcast(&w->cv);
    while (w->pending)
        pthread_cond_wait(&w->cv, &w->mu);
    cudaError_t r = w->result;
    pthread_mutex_unlock(&w->mu);
    return r;
}

int cts_eng_worker_start(struct cts_engine *e)
{
    struct cts_worker *w = &e->worker;
    if (pthread_mutex_init(&w->mu, NULL) || pthread_cond_init(&w->cv, NULL) ||
        pthread_create(&w->thread, NULL, worker_main, w))
        return -1;
    w->running = 1;
    w->device = e->device;
    return 0;
}

void cts_eng_worker_stop(struct cts_engine *e)
{
    struct cts_worker *w = &e->worker;
    if (!w->running)
        return;
    pthread_mutex_lock(&w->mu);
    w->quit = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    w->running = 0;
}

/* A launch the worker makes on its own legacy or per-thread default stream. */
struct launch_job {
    int perthread; /* cudaStreamPerThread (the worker's), else cudaStreamLegacy */
    int gate;      /* the gate, else a marker */
    const volatile unsigned int *flag;
    unsigned long long budget_ns;
    struct cts_gate_record *gate_rec;
    struct cts_marker_record *marker_rec;
    unsigned int seq;
};

static cudaError_t launch_job(void *arg)
{
    struct launch_job *j = arg;
    cudaStream_t s = j->perthread ? cudaStreamPerThread : cudaStreamLegacy;
    return j->gate ? cts_launch_gate(s, j->flag, j->budget_ns, j->gate_rec, j->seq)
                   : cts_launch_marker(s, j->marker_rec, j->seq);
}

cudaError_t worker_launch_gate(struct cts_engine *e, int perthread,
                               unsigned long long budget_ns, unsigned seq)
{
    struct launch_job j = {perthread, 1, e->flag_dev, budget_ns, e->gate_dev, NULL, seq};
    return on_worker(e, launch_job, &j);
}

cudaError_t worker_launch_marker(struct cts_engine *e, int perthread,
                                 struct cts_marker_record *rec, unsigned seq)
{
    struct launch_job j = {perthread, 0, NULL, 0, NULL, rec, seq};
    return on_worker(e, launch_job, &j);
}

/* ---- streams -------------------------------------------------------------- */

cudaStream_t cts_eng_op_stream(const struct cts_engine *e, enum cts_op op)
{
    switch (op) {
    case CTS_OP_LEGACY: return cudaStreamLegacy;
    case CTS_OP_PERTHREAD: return cudaStreamPerThread;
    case CTS_OP_BLOCKING: return e->blocking[0];
    case CTS_OP_NONBLOCKING: return e->nonblocking[0];
    default: return (cudaStream_t)0; /* the handle 0, and what synchronous APIs imply */
    }
}

static cudaStream_t busy_stream(const struct cts_engine *e, enum cts_op op, enum cts_busy busy)
{
    switch (busy) {
    case CTS_BUSY_LEGACY: return cudaStreamLegacy;
    case CTS_BUSY_BLOCKING: return e->blocking[1];
    case CTS_BUSY_NONBLOCKING: return e->nonblocking[1];
    case CTS_BUSY_PERTHREAD: return cudaStreamPerThread;
    default: return cts_eng_op_stream(e, op); /* busy_same; busy_thread_*: see busy_stream_gate */
    }
}

/* The host-function gate (busy_hostfn): a host function that spins on the
 * flag, as the gate kernel does, and ends by itself at its deadline.  It
 * makes no CUDA call.  Its record is the gate's, in host-clock time. */
static void CUDART_CB hostfn_gate(void *arg)
{
    struct cts_engine *e = arg;
    struct cts_gate_record *g = e->gate_host;
    unsigned seq = e->hostfn_gate.seq;
    double t0 = cts_now_us(), deadline = t0 + e->hostfn_gate.budget_us;
    unsigned reason = CTS_GATE_OPENED;
    g->start_ns = (unsigned long long)(t0 * 1e3);
    atomic_thread_fence(memory_order_seq_cst);
    g->started = seq;
    atomic_thread_fence(memory_order_seq_cst);
    while (*e->flag_host == 0u)
        if (cts_now_us() >= deadline) {
            reason = CTS_GATE_DEADLINE;
            break;
        }
    g->end_ns = (unsigned long long)(cts_now_us() * 1e3);
    g->reason = reason;
    atomic_thread_fence(memory_order_seq_cst);
    g->ended = seq;
    atomic_thread_fence(memory_order_seq_cst);
}

/* The gate on the busy placement: launched by this thread, by the worker
 * for the placements issued from a second host thread, or a host function. */
cudaError_t busy_stream_gate(struct cts_engine *e, enum cts_op op, enum cts_busy busy,
                             unsigned long long budget_ns, unsigned seq)
{
    if (cts_busy_from_thread(busy))
        return worker_launch_gate(e, busy == CTS_BUSY_THREAD_PERTHREAD, budget_ns, seq);
    if (busy == CTS_BUSY_HOSTFN) {
        e->hostfn_gate.e = e;
        e->hostfn_gate.seq = seq;
        e->hostfn_gate.budget_us = (double)budget_ns / 1e3;
        return cudaLaunchHostFunc(e->nonblocking[1], hostfn_gate, e);
    }
    return cts_launch_gate(busy_stream(e, op, busy), e->flag_dev, budget_ns, e->gate_dev, seq);
}

/* ---- polling mapped records (no CUDA call) -------------------------------- */

int cts_eng_wait_marker(const struct cts_engine *e, int i, unsigned seq, double limit_us)
{
    double t0 = cts_now_us();
    while (e->mk_host[i].done != seq)
        if (cts_now_us() - t0 > limit_us)
            return 0;
    return 1;
}

int cts_eng_wait_gate_started(const struct cts_engine *e, unsigned seq)
{
    double t0 = cts_now_us();
    while (e->gate_host->started != seq)
        if (cts_now_us() - t0 > START_LIMIT_US)
            return 0;
    return 1;
}

/* ---- sample bytes ----------------------------------------------------------- */

int cts_eng_sample_offsets(size_t n, size_t off[3])
{
    int k = 0;
    size_t cand[3] = {0, n / 2, n - 1};
    for (int i = 0; i < 3; i++) {
        int dup = 0;
        for (int j = 0; j < k; j++)
            dup |= off[j] == cand[i];
        if (!dup)
            off[k++] = cand[i];
    }
    return k;
}

/* Harness access to a sample byte while the device is idle.  Host memory
 * is written by the host.  Device and managed memory are written by one
 * poke kernel for all the samples of a repetition (queued in *dev, launched
 * by flush_pokes), so managed pages stay on the device where they were put;
 * a family's own memory (CTS_MEM_OWN) through the family's poke and peek.
 * `side` is 0 for the source, 1 for the destination. */
static cudaError_t poke(const struct cts_case *c, int side, enum cts_mem m, void *base, size_t off,
                        unsigned char v, struct cts_bytes *dev, const char **ename)
{
    *ename = NULL;
    if (m == CTS_MEM_OWN) {
        if (!c->family->poke) {
            *ename = "the family names its own memory but has no poke()";
            return cudaErrorInvalidValue;
        }
        return c->family->poke(c, side, off, v, ename) ? cudaErrorUnknown : cudaSuccess;
    }
    if (cts_mem_host_accessible(m) && m != CTS_MEM_MANAGED) {
        ((volatile unsigned char *)base)[off] = v;
        return cudaSuccess;
    }
    if (dev->n == CTS_BYTES_MAX) {
        *ename = "harness: more device-side sample bytes than one poke takes";
        return cudaErrorInvalidValue;
    }
    dev->at[dev->n] = (unsigned char *)base + off;
    dev->value[dev->n++] = v;
    return cudaSuccess;
}

/* The destination's sample bytes, read while the device is idle; device
 * and managed memory by one peek kernel into the mapped page. */
cudaError_t cts_eng_peek_samples(struct cts_engine *e, const struct cts_case *c, enum cts_mem m,
                                 const void *base, const size_t *off, int nsamp, unsigned char *v,
                                 const char **ename)
{
    *ename = NULL;
    struct cts_bytes dev = {.n = 0};
    for (int i = 0; i < nsamp; i++) {
        if (m == CTS_MEM_OWN) {
            if (!c->family->peek) {
                *ename = "the family names its own memory but has no peek()";
                return cudaErrorInvalidValue;
            }
            if (c->family->peek(c, 1, off[i], &v[i], ename))
                return cudaErrorUnknown;
        } else if (cts_mem_host_accessible(m) && m != CTS_MEM_MANAGED) {
            v[i] = ((const volatile unsigned char *)base)[off[i]];
        } else {
            dev.at[dev.n++] = (unsigned char *)base + off[i];
        }
    }
    if (!dev.n)
        return cudaSuccess;
    cudaError_t err = cts_launch_peek(e->nonblocking[0], &dev, e->poke_dev);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(e->nonblocking[0]);
    for (int i = 0, k = 0; i < nsamp && err == cudaSuccess; i++)
        if (m != CTS_MEM_OWN && !(cts_mem_host_accessible(m) && m != CTS_MEM_MANAGED))
            v[i] = ((volatile unsigned char *)e->poke_host)[k++];
    return err;
}

/* May the host touch memory of kind m while the copy may be running?  Not
 * managed memory: a host touch faults its page across, and the migration
 * stalls the copy and other work for up to a millisecond (seen on an H200,
 * 580.159.04), which would be the harness perturbing what it measures. */
int cts_eng_touchable_while_busy(enum cts_mem m)
{
    return cts_mem_host_accessible(m) && m != CTS_MEM_MANAGED;
}

/* Puts pattern v in the source's sample bytes and u in the destination's.
 * Repetitions and idle calls alike start from this state, managed memory
 * included: prefetched whole to the device (where the device supports it),
 * so that no copy pays a page migration whose cost varies from one
 * repetition to the next.  (Left where the host last touched it, a held
 * managed copy finished 80 us to over 1 ms after its gate opened: H200,
 * 580.159.04.) */
cudaError_t cts_eng_prepare_samples(struct cts_engine *e, const struct cts_case *c, enum cts_mem sm,
                                    void *src, enum cts_mem dm, void *dst, const size_t *off,
                                    int nsamp, unsigned char v, unsigned char u, const char **ename)
{
    cudaError_t err = cudaSuccess;
    int prefetched = e->prefetch_managed && (sm == CTS_MEM_MANAGED || dm == CTS_MEM_MANAGED);
    if (prefetched) { /* the pokes below follow it in the same stream */
        struct cudaMemLocation loc = {cudaMemLocationTypeDevice, e->device};
        for (int i = 0; i < 2 && err == cudaSuccess; i++)
            err = cudaMemPrefetchAsync(e->buf[CTS_MEM_MANAGED][i], CTS_BUF_BYTES, loc, 0,
                                       e->nonblocking[0]);
    }
    struct cts_bytes dev = {.n = 0};
    for (int i = 0; i < nsamp && err == cudaSuccess; i++) {
        if (sm != CTS_MEM_NONE)
            err = poke(c, 0, sm, src, off[i], v, &dev, ename);
        if (err == cudaSuccess && dm != CTS_MEM_NONE)
            err = poke(c, 1, dm, dst, off[i], u, &dev, ename);
    }
    if (err == cudaSuccess && dev.n)
        err = cts_launch_poke(e->nonblocking[0], &dev);
    if (err == cudaSuccess && (dev.n || prefetched))
        err = cudaStreamSynchronize(e->nonblocking[0]);
    return err;
}

/* ---- set-up ----------------------------------------------------------------- */

static int alloc_kind(struct cts_engine *e, enum cts_mem m, char *why)
{
    int attr = 0;
    for (int i = 0; i < 2; i++) {
        void *p = NULL;
        switch (m) {
        case CTS_MEM_PAGEABLE:
        case CTS_MEM_REGISTERED:
            if (m == CTS_MEM_REGISTERED) {
                HCHECK(why, cudaDeviceGetAttribute(&attr, cudaDevAttrHostRegisterSupported, e->device));
                if (!attr) {
                    cts_eng_setf(e->notsupp[m], "cudaDevAttrHostRegisterSupported is 0 on this device");
                    return 0;
                }
            }
            p = aligned_alloc(4096, CTS_BUF_BYTES);
            if (!p) {
                cts_eng_setf(why, "harness: out of host memory");
                return -1;
            }
            memset(p, 0, CTS_BUF_BYTES); /* fault every page in before measuring */
            if (m == CTS_MEM_REGISTERED)
                HCHECK(why, cudaHostRegister(p, CTS_BUF_BYTES, cudaHostRegisterDefault));
            break;
        case CTS_MEM_PINNED:
            HCHECK(why, cudaMallocHost(&p, CTS_BUF_BYTES));
            break;
        case CTS_MEM_PORTABLE:
            HCHECK(why, cudaHostAlloc(&p, CTS_BUF_BYTES, cudaHostAllocPortable));
            break;
        case CTS_MEM_MAPPED:
            HCHECK(why, cudaDeviceGetAttribute(&attr, cudaDevAttrCanMapHostMemory, e->device));
            if (!attr) {
                cts_eng_setf(e->notsupp[m], "cudaDevAttrCanMapHostMemory is 0 on this device");
                return 0;
            }
            HCHECK(why, cudaHostAlloc(&p, CTS_BUF_BYTES, cudaHostAllocMapped));
            break;
        case CTS_MEM_WC:
            HCHECK(why, cudaHostAlloc(&p, CTS_BUF_BYTES, cudaHostAllocWriteCombined));
            break;
        case CTS_MEM_MANAGED:
            HCHECK(why, cudaDeviceGetAttribute(&attr, cudaDevAttrManagedMemory, e->device));
            if (!attr) {
                cts_eng_setf(e->notsupp[m], "cudaDevAttrManagedMemory is 0 on this device");
                return 0;
            }
            HCHECK(why, cudaMallocManaged(&p, CTS_BUF_BYTES, cudaMemAttachGlobal));
            break;
        case CTS_MEM_DEVICE:
            HCHECK(why, cudaMalloc(&p, CTS_BUF_BYTES));
            break;
        default:
            cts_eng_setf(why, "harness: unknown memory kind %d", (int)m);
            return -1;
        }
        e->buf[m][i] = p;
        if (m == CTS_MEM_DEVICE)
            HCHECK(why, cudaMemset(p, 0, CTS_BUF_BYTES));
        else if (m != CTS_MEM_PAGEABLE && m != CTS_MEM_REGISTERED)
            memset(p, 0, CTS_BUF_BYTES);
    }
    return 0;
fail:
    return -1;
}

/* Proves the latch works with these streams before any case trusts it: a
 * marker behind the gate on its own stream is held, and markers on streams
 * that are independent of the gate's (by the documented stream semantics and
 * by the hardware queues the driver gave them) run while it is closed. */
static int selfcheck(struct cts_engine *e)
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
    double lat[IDLE_SAMPLES];

    sc->ran = 1;
    sc->gate_holds = 1;
    sc->streams_independent = 1;
    for (int i = 0; i < IDLE_SAMPLES; i++) {
        unsigned seq = ++e->seq;
        double t0 = cts_now_us();
        HCHECK(e->broken, cts_launch_marker(e->nonblocking[0], &e->mk_dev[0], seq));
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

    for (int k = 0; k < 4; k++) {
        unsigned seq = ++e->seq;
        HCHECK(e->broken, cudaDeviceSynchronize());
        cts_latch_close(&e->latch);
        if (checks[k].gate)
            HCHECK(e->broken, cts_launch_gate(checks[k].gate, e->flag_dev, 10000000000ull, e->gate_dev, seq));
        else
            HCHECK(e->broken, worker_launch_gate(e, 1, 10000000000ull, seq));
        if (!cts_eng_wait_gate_started(e, seq)) {
            cts_latch_open(&e->latch);
            cts_eng_setf(e->broken, "self-check: the gate on the %s stream did not start", checks[k].name);
            return -1;
        }
        if (checks[k].gate)
            HCHECK(e->broken, cts_launch_marker(checks[k].gate, &e->mk_dev[0], seq));
        else
            HCHECK(e->broken, worker_launch_marker(e, 1, &e->mk_dev[0], seq));
        for (int i = 0; i < checks[k].n; i++)
            HCHECK(e->broken, cts_launch_marker(checks[k].run[i], &e->mk_dev[1 + i], seq));
        for (int i = 0; i < checks[k].n; i++)
            if (!cts_eng_wait_marker(e, 1 + i, seq, 200000.0) && sc->streams_independent) {
                sc->streams_independent = 0;
                cts_eng_setf(sc->detail, "a marker on %s did not run while a gate held the %s stream",
                             checks[k].run_name[i], checks[k].name);
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
    if (!sc->gate_holds || !sc->streams_independent) {
        cts_eng_setf(e->broken, "self-check failed: %s", sc->detail);
        return -1;
    }
    cts_eng_setf(sc->detail, "gate holds its stream; markers on 7 independent stream pairs ran (one gate "
                             "issued from a second host thread)");
    return 0;
fail:
    cts_latch_open(&e->latch);
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
    if (ended) {
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
        HCHECK(e->broken, cts_launch_gate(e->nonblocking[1], e->flag_dev, 10000000000ull, e->gate_dev, seq));
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
    memset(e, 0, sizeof *e);
    e->device = device;
    void *mapped = NULL;

    HCHECK(e->broken, cudaSetDevice(device));
    HCHECK(e->broken, cudaFree(NULL)); /* create the context now, not inside a case */
    HCHECK(e->broken, cudaDeviceGetAttribute(&e->prefetch_managed, cudaDevAttrConcurrentManagedAccess, device));
    if (cts_driver_load(e->broken, sizeof e->broken))
        return -1;
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

    for (int m = 0; m < CTS_MEM_COUNT; m++)
        if (alloc_kind(e, m, e->broken))
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

    /* Warm-up: load the module and touch every stream with every kernel. */
    {
        cudaStream_t all[] = {(cudaStream_t)0,  cudaStreamLegacy,  cudaStreamPerThread,
                              e->blocking[0],   e->blocking[1],    e->blocking[2],
                              e->nonblocking[0], e->nonblocking[1], e->nonblocking[2]};
        *e->flag_host = 1u;
        for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
            unsigned seq = ++e->seq;
            HCHECK(e->broken, cts_launch_gate(all[i], e->flag_dev, 1000000000ull, e->gate_dev, seq));
            HCHECK(e->broken, cts_launch_marker(all[i], &e->mk_dev[i], seq));
            HCHECK(e->broken, cts_launch_sleep(all[i], 1000));
            HCHECK(e->broken, cudaDeviceSynchronize());
        }
        struct cts_bytes none = {.n = 0};
        HCHECK(e->broken, cts_launch_poke(e->nonblocking[0], &none));
        HCHECK(e->broken, cts_launch_peek(e->nonblocking[0], &none, e->poke_dev));
        HCHECK(e->broken, cudaDeviceSynchronize());
        for (int pt = 0; pt < 2; pt++) { /* the second thread's legacy and per-thread streams */
            unsigned seq = ++e->seq;
            HCHECK(e->broken, worker_launch_gate(e, pt, 1000000000ull, seq));
            HCHECK(e->broken, worker_launch_marker(e, pt, &e->mk_dev[0], seq));
            HCHECK(e->broken, cudaDeviceSynchronize());
        }
    }
    if (launch_probe(e))
        return -1;
    if (e->unmeasurable[0])
        return 0; /* no self-check can hold anything either */
    return selfcheck(e) || measure_wake(e) ? -1 : 0;
fail:
    return -1;
}

void cts_engine_fini(struct cts_engine *e)
{
    cts_eng_worker_stop(e);
    cts_latch_stop(&e->latch);
    (void)cudaDeviceSynchronize();
    for (int m = 0; m < CTS_MEM_COUNT; m++)
        for (int i = 0; i < 2; i++) {
            void *p = e->buf[m][i];
            if (!p)
                continue;
            switch (m) {
            case CTS_MEM_PAGEABLE: free(p); break;
            case CTS_MEM_REGISTERED: (void)cudaHostUnregister(p); free(p); break;
            case CTS_MEM_MANAGED:
            case CTS_MEM_DEVICE: (void)cudaFree(p); break;
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
    if (e->poke_host)
        (void)cudaFreeHost(e->poke_host);
}

/* ---- idle latency ----------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Why c cannot run here (a memory kind or a run-time need missing), or NULL. */
static const char *missing_need(struct cts_engine *e, const struct cts_case *c, enum cts_mem *src,
                                enum cts_mem *dst)
{
    c->family->buffers(c, src, dst);
    if (e->unmeasurable[0])
        return e->unmeasurable;
    if (*src >= 0 && e->notsupp[*src][0])
        return e->notsupp[*src];
    if (*dst >= 0 && e->notsupp[*dst][0])
        return e->notsupp[*dst];
    if (c->family->needs && c->family->needs(c, e->need_why, sizeof e->need_why))
        return e->need_why;
    return NULL;
}

void *cts_eng_buffer(struct cts_engine *e, enum cts_mem m, int slot)
{
    return m < 0 ? NULL : e->buf[m][slot];
}

/* Whether the error c's call returned (named ename) is the rejection its
 * documentation declares (cts_family.rejects): 1, the error cleared from
 * the runtime's last-error state; 0 otherwise, with why in why[] where a
 * rejection was declared but another error came. */
int cts_eng_rejected_as_documented(const struct cts_case *c, const char *ename, char *why)
{
    const char *clause = NULL, *want = c->family->rejects ? c->family->rejects(c, &clause) : NULL;
    why[0] = '\0';
    if (!want)
        return 0;
    if (!*want || (ename && strcmp(ename, want) == 0)) {
        (void)cudaGetLastError();
        return 1;
    }
    cts_eng_setf(why, "; its documented rejection (%s) is %s", clause ? clause : "?", want);
    return 0;
}

/* A family hook that may be absent: 0 if it is, or if it succeeded. */
int cts_eng_hook(int (*fn)(const struct cts_case *, struct cts_scratch *, void *, const char **),
                 const struct cts_case *c, struct cts_scratch *s, cudaStream_t st, const char **ename)
{
    return fn ? fn(c, s, (void *)st, ename) : 0;
}

/* CTS_TRACE=1: one line per idle measurement, control and attempt on stderr
 * (cts_eng_trace_attempt), with its wall time: for studying the harness, never part
 * of a verdict. */
int cts_eng_trace_on(void)
{
    static int on = -1;
    if (on < 0)
        on = getenv("CTS_TRACE") && strcmp(getenv("CTS_TRACE"), "0") != 0;
    return on;
}

static void idle_inner(struct cts_engine *e, const struct cts_case *c, struct cts_idle *idle)
{
    double call[IDLE_SAMPLES], done[IDLE_SAMPLES];
    enum cts_mem sm, dm;
    const char *why;

    memset(idle, 0, sizeof *idle);
    idle->done = 1;
    idle->status = CTS_PASS;
    if ((why = missing_need(e, c, &sm, &dm))) {
        idle->status = CTS_NOTSUPP;
        cts_eng_setf(idle->reason, "%s", why);
        return;
    }
    void *src = cts_eng_buffer(e, sm, 0), *dst = cts_eng_buffer(e, dm, 1);
    cudaStream_t s = cts_eng_op_stream(e, c->op);
    size_t off[3];
    int nsamp = sm == CTS_MEM_NONE && dm == CTS_MEM_NONE ? 0 : cts_eng_sample_offsets(c->size, off);
    for (int i = 0; i < IDLE_WARMUP + IDLE_SAMPLES; i++) {
        unsigned seq = ++e->seq;
        struct cts_scratch scratch = {0};
        const char *ename = "?";
        HCHECK(idle->reason, cudaDeviceSynchronize());
        if (cts_eng_prepare_samples(e, c, sm, src, dm, dst, off, nsamp, 0x11, 0x22, &ename) != cudaSuccess) {
            (void)cudaGetLastError();
            idle->status = CTS_BROKEN;
            cts_eng_setf(idle->reason, "harness: setting the sample bytes failed: %s", ename ? ename : "?");
            return;
        }
        if (c->family->prepare && c->family->prepare(c, &scratch, &ename)) {
            (void)cudaGetLastError();
            idle->status = CTS_BROKEN;
            cts_eng_setf(idle->reason, "harness: setting up %s failed: %s", cts_api_function(c->api), ename);
            (void)cudaDeviceSynchronize();
            return;
        }
        HCHECK(idle->reason, cudaDeviceSynchronize());
        struct cts_call args = {dst, src, 0x11, s, &scratch};
        if (cts_eng_hook(c->family->before, c, &scratch, s, &ename)) {
            (void)cudaGetLastError();
            idle->status = CTS_BROKEN;
            cts_eng_setf(idle->reason, "harness: before %s: %s", cts_api_function(c->api), ename);
            (void)cudaDeviceSynchronize();
            if (c->family->cleanup)
                (void)c->family->cleanup(c, &scratch, &ename); /* the failure is reported */
            return;
        }
        double t0 = cts_now_us();
        int err = c->family->issue(c, &args, &ename);
        double t1 = cts_now_us();
        const char *aname = "?";
        char other[CTS_REASON_MAX];
        if (err && cts_eng_rejected_as_documented(c, ename, other))
            err = 0; /* a documented rejection: measured like any call; no after-hook */
        else if (!err)
            err = -cts_eng_hook(c->family->after, c, &scratch, s, &aname);
        if (err) {
            (void)cudaGetLastError();
            idle->status = err > 0 ? CTS_FAIL : CTS_BROKEN;
            if (err > 0)
                cts_eng_setf(idle->reason, "%s returned %s on an idle GPU%s", cts_api_function(c->api),
                             ename, other);
            else
                cts_eng_setf(idle->reason, "harness: after %s: %s", cts_api_function(c->api), aname);
            (void)cudaDeviceSynchronize();
            if (c->family->cleanup)
                (void)c->family->cleanup(c, &scratch, &ename); /* the failure is reported */
            return;
        }
        HCHECK(idle->reason, cts_launch_marker(s, &e->mk_dev[0], seq));
        /* Nothing is held here, so the stream may be asked after a while:
         * work that failed (a lost context) ends the wait at once. */
        cudaError_t qerr = cudaSuccess;
        for (double tw = cts_now_us(); !cts_eng_wait_marker(e, 0, seq, 1000.0);) {
            qerr = cudaStreamQuery(s);
            if ((qerr != cudaSuccess && qerr != cudaErrorNotReady) || cts_now_us() - tw > DRAIN_LIMIT_US)
                break;
        }
        if (qerr != cudaSuccess && qerr != cudaErrorNotReady) {
            (void)cudaGetLastError();
            idle->status = CTS_BROKEN;
            cts_eng_setf(idle->reason, "the call's work failed on an idle GPU: %s", cudaGetErrorName(qerr));
            return;
        }
        if (e->mk_host[0].done != seq) {
            idle->status = CTS_TIMEOUT;
            cts_eng_setf(idle->reason, "the call did not complete on an idle GPU within %.0f s",
                         DRAIN_LIMIT_US / 1e6);
            (void)cudaDeviceSynchronize();
            return;
        }
        double t2 = cts_now_us();
        if (c->family->cleanup) {
            HCHECK(idle->reason, cudaDeviceSynchronize());
            if (c->family->cleanup(c, &scratch, &ename)) {
                idle->status = CTS_BROKEN;
                cts_eng_setf(idle->reason, "harness: cleaning up after %s failed: %s",
                             cts_api_function(c->api), ename);
                return;
            }
        }
        if (i >= IDLE_WARMUP) {
            call[i - IDLE_WARMUP] = t1 - t0;
            done[i - IDLE_WARMUP] = t2 - t0;
        }
    }
    HCHECK(idle->reason, cudaDeviceSynchronize());
    qsort(call, IDLE_SAMPLES, sizeof *call, cmp_double);
    qsort(done, IDLE_SAMPLES, sizeof *done, cmp_double);
    idle->call_us = call[IDLE_SAMPLES / 2];
    idle->call_max_us = call[IDLE_SAMPLES - 1];
    idle->complete_us = done[IDLE_SAMPLES / 2];
    idle->complete_max_us = done[IDLE_SAMPLES - 1];
    return;
fail:
    idle->status = CTS_BROKEN;
}

void cts_engine_idle(struct cts_engine *e, const struct cts_case *c, struct cts_idle *idle)
{
    double w0 = cts_now_us();
    idle_inner(e, c, idle);
    if (cts_eng_trace_on())
        fprintf(stderr, "trace %s idle: %s call %.1f max %.1f complete %.1f max %.1f wall %.0f\n", c->id,
                cts_status_name(idle->status), idle->call_us, idle->call_max_us, idle->complete_us,
                idle->complete_max_us, cts_now_us() - w0);
}

/* ---- one repetition ------------------------------------------------------------ */

/* How long this thread has waited for a processor, in all (schedstat's run
 * delay, microseconds; NAN where the kernel does not say).  The file is
 * opened once per thread that asks and read again in place. */
static double run_delay_us(void)
{
    static int fd = -1;
    static pid_t owner;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    if (fd < 0 || owner != tid) {
        if (fd >= 0)
            close(fd);
        fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
        owner = tid;
    }
    char buf[128];
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    unsigned long long on = 0, wait = 0;
    if (n <= 0)
        return NAN;
    buf[n] = 0;
    return sscanf(buf, "%llu %llu", &on, &wait) == 2 ? (double)wait / 1e3 : NAN;
}

/* An attempt's trace line says how long this thread waited for a processor
 * during the call. */
double cts_eng_trace_run_delay_us;


enum { REP_DONE, REP_WINDOW_SHORT, REP_TIMEOUT_SHORT, REP_HOLD_TO_TRACK, REP_PERTURBED,
       REP_WAIT_TO_PROVE, REP_STARVED };

/* Returns REP_DONE; or which wait proved too short to tell "held" from
 * "slow" (the repetition is then measured again with that wait grown); or
 * REP_WAIT_TO_PROVE: a complete repetition whose wait the next attempt, with
 * a longer timeout, must prove (see cts_engine_run_case). */
static int run_rep_inner(struct cts_engine *e, const struct cts_case *c, struct cts_result *res,
                         struct cts_rep *r, struct cts_scratch *scratch)
{
    enum cts_mem sm, dm;
    c->family->buffers(c, &sm, &dm);
    void *src = cts_eng_buffer(e, sm, 0), *dst = cts_eng_buffer(e, dm, 1);
    cudaStream_t ops = cts_eng_op_stream(e, c->op);
    cudaStream_t third[2] = {e->blocking[2], e->nonblocking[2]};
    size_t off[3];
    int nsamp = sm == CTS_MEM_NONE && dm == CTS_MEM_NONE ? 0 : cts_eng_sample_offsets(c->size, off);
    int latch_armed = 0, markers = 0, to_prove = 0;

    HCHECK(r->reason, cudaDeviceSynchronize());
    unsigned seq = ++e->seq;
    unsigned char v = (unsigned char)(0x10 + seq % 0x60), u = v ^ 0x80, w = v ^ 0xC0;
    {
        const char *pname = NULL;
        if (cts_eng_prepare_samples(e, c, sm, src, dm, dst, off, nsamp, v, u, &pname) != cudaSuccess) {
            (void)cudaGetLastError();
            r->status = CTS_BROKEN;
            cts_eng_setf(r->reason, "harness: setting the sample bytes failed: %s", pname ? pname : "?");
            return 0;
        }
    }

    double budget_us = res->timeout_us + res->window_us + 1e6;
    cts_latch_close(&e->latch);
    HCHECK(r->reason, busy_stream_gate(e, c->op, c->busy, (unsigned long long)(budget_us * 1e3), seq));
    if (!cts_eng_wait_gate_started(e, seq)) {
        r->status = CTS_BROKEN;
        cts_eng_setf(r->reason, "the gate did not start within %.0f s", START_LIMIT_US / 1e6);
        cts_latch_open(&e->latch);
        (void)cudaDeviceSynchronize();
        return 0;
    }

    const char *ename = "?";
    if (cts_eng_hook(c->family->before, c, scratch, ops, &ename)) {
        (void)cudaGetLastError();
        cts_latch_open(&e->latch);
        (void)cudaDeviceSynchronize();
        r->status = CTS_BROKEN;
        cts_eng_setf(r->reason, "harness: before %s: %s", cts_api_function(c->api), ename);
        return 0;
    }
    double rd0 = run_delay_us();
    cts_latch_arm(&e->latch, res->timeout_us);
    r->timeout_us = res->timeout_us;
    r->window_us = res->window_us;
    latch_armed = 1;
    struct cts_call args = {dst, src, v, ops, scratch};
    double t0 = cts_now_us();
    int err = c->family->issue(c, &args, &ename);
    double t1 = cts_now_us();
    int closed = cts_latch_claim(&e->latch);
    double starved_us = run_delay_us() - rd0;
    r->call_us = t1 - t0;
    cts_eng_trace_run_delay_us = starved_us;
    char other[CTS_REASON_MAX];
    if (err && cts_eng_rejected_as_documented(c, ename, other)) {
        r->rejected = ename; /* measured on: did the rejection wait, or hold other streams? */
    } else if (err) {
        (void)cudaGetLastError();
        cts_latch_open(&e->latch);
        (void)cudaDeviceSynchronize();
        r->status = CTS_FAIL;
        cts_eng_setf(r->reason, "%s returned %s%s", cts_api_function(c->api), ename, other);
        return 0;
    }
    if (!r->rejected && cts_eng_hook(c->family->after, c, scratch, ops, &ename)) {
        (void)cudaGetLastError();
        cts_latch_open(&e->latch);
        (void)cudaDeviceSynchronize();
        r->status = CTS_BROKEN;
        cts_eng_setf(r->reason, "harness: after %s: %s", cts_api_function(c->api), ename);
        return 0;
    }

    int dst_live = cts_eng_touchable_while_busy(dm), src_live = cts_eng_touchable_while_busy(sm);
    if (closed) {
        r->host = CTS_HOST_RETURNS;
        if (dst_live && !r->rejected) {
            int complete = 1;
            for (int i = 0; i < nsamp; i++)
                complete &= ((volatile unsigned char *)dst)[off[i]] == v;
            r->dst = complete ? CTS_DST_COMPLETE : CTS_DST_PENDING;
        }
        if (src_live && !r->rejected)
            for (int i = 0; i < nsamp; i++)
                ((volatile unsigned char *)src)[off[i]] = w;
        /* Third streams first: a marker on the op stream could itself make
         * them wait (the legacy stream does), and that would be ours, not the call's. */
        HCHECK(r->reason, cts_launch_marker(third[0], &e->mk_dev[1], seq));
        HCHECK(r->reason, cts_launch_marker(third[1], &e->mk_dev[2], seq));
        HCHECK(r->reason, cts_launch_marker(ops, &e->mk_dev[0], seq));
        markers = 3;
        /* The window ends early once every marker the control saw run has
         * run: one the control saw held is held by stream semantics alone
         * (held_anyway) and cannot run before the gate opens. */
        enum cts_order ctl[3] = {res->control.op_after, res->control.third_blocking,
                                 res->control.third_nonblocking};
        double tm = cts_now_us();
        for (;;) {
            int waiting = 0;
            for (int i = 0; i < 3; i++)
                waiting |= ctl[i] == CTS_ORDER_RUNS && e->mk_host[i].done != seq;
            if (!waiting || cts_now_us() - tm >= res->window_us)
                break;
        }
        enum cts_order *ord[3] = {&r->op_after, &r->third_blocking, &r->third_nonblocking};
        for (int i = 0; i < 3; i++)
            *ord[i] = e->mk_host[i].done == seq ? CTS_ORDER_RUNS : CTS_ORDER_HELD;
        double t_open = cts_now_us();
        cts_latch_open(&e->latch);
        if (c->busy == CTS_BUSY_HOSTFN) {
            /* A host function ends on the host clock, which the GPU's cannot
             * be compared with: when each marker ran after the gate opened is
             * what the host sees, polling (sub-microsecond). */
            double *lat[3] = {&r->op_after_gpu_us, &r->third_blocking_gpu_us,
                              &r->third_nonblocking_gpu_us};
            int left = 3;
            for (int i = 0; i < 3; i++)
                if (*ord[i] == CTS_ORDER_RUNS) {
                    *lat[i] = NAN;
                    left--;
                }
            while (left && cts_now_us() - t_open < DRAIN_LIMIT_US)
                for (int i = 0; i < 3; i++)
                    if (*ord[i] == CTS_ORDER_HELD && isnan(*lat[i]) && e->mk_host[i].done == seq) {
                        *lat[i] = cts_now_us() - t_open;
                        left--;
                    }
        }
    } else {
        r->host = CTS_HOST_WAITS;
        r->release_to_return_us = t1 - e->latch.released_us;
        cts_latch_open(&e->latch);
        if (r->release_to_return_us < 0) {
            /* The call returned before the watchdog opened the gate, but this
             * thread claimed the latch only afterwards: it lost the processor
             * between the two.  Nothing is proven; measure it again. */
            (void)cudaDeviceSynchronize();
            r->status = CTS_INCONCLUSIVE;
            cts_eng_setf(r->reason, "the call returned %.1f us before the gate opened, but the host thread "
                                    "claimed the latch only after it (the thread was descheduled), every "
                                    "time it was measured",
                         -r->release_to_return_us);
            return REP_PERTURBED;
        }
        double closed_us = e->latch.released_us - t0;
        if (cts_starved(closed_us, starved_us, PROMPT_FACTOR * res->idle_call_max_us + PROMPT_SLACK_US)) {
            /* Its thread could not run while the gate was closed: under CPU
             * load a call that does not wait returned 3-7 us after the
             * watchdog's wake-up handed the processor back (H100, 32 busy
             * host threads on 16 cores; 646 of 684 us starved).  Nothing is
             * proven; measure it again with twice the timeout. */
            (void)cudaDeviceSynchronize();
            r->status = CTS_INCONCLUSIVE;
            cts_eng_setf(r->reason, "the call returned after the gate opened, but its thread had waited for a "
                                    "processor %.0f us of the %.0f us the gate was closed, every time it was "
                                    "measured",
                         starved_us, closed_us);
            return REP_STARVED;
        }
        /* "Waits" is proven, not inferred from returning after the gate
         * opened: a call slow by itself does that too (a synchronous memset
         * under blocking-sync took 330-400 us against a 270 us timeout; a
         * calling thread that loses its processor under CPU load takes
         * milliseconds).  So the attempt is measured again with a longer
         * timeout: a call that does not wait for the gate then returns
         * before it opens; one that waits returns after it again, its time
         * grown with the timeout by at least TRACK_FRACTION of the growth.
         * The growth is at least the timeout, twice the call's time and
         * twice its lateness: a waiting call's lateness after the release
         * is >= 0 each time, so with such a growth its time grows by at
         * least half of it whatever its lateness was; a call that does not
         * wait would have to take three times as long as it just did.  A
         * case's first wait is tracked so, and every late one (past
         * "promptly": a slow wake-up, a staged copy's tail, a thread that
         * lost its processor); a later prompt wait is the one the first
         * proved.  A case's first wait, when prompt, stands as a
         * repetition: it is finished (drain, bytes) and the next attempt,
         * the next repetition, is the one measured with the longer timeout;
         * if that one does not prove it, it does not stand. */
        double prompt_us = PROMPT_FACTOR * res->idle_call_max_us + PROMPT_SLACK_US;
        int late = r->release_to_return_us > prompt_us;
        int tracked = res->late_timeout_us > 0 && res->timeout_us > res->late_timeout_us &&
                      r->call_us - res->late_call_us >=
                          TRACK_FRACTION * (res->timeout_us - res->late_timeout_us);
        if (tracked) {
            res->waits_tracked++;
            r->tracked_from_timeout_us = res->late_timeout_us;
            r->tracked_from_call_us = res->late_call_us;
        } else if (late || !res->waits_tracked) {
            int again = res->late_timeout_us > 0;
            res->late_call_us = r->call_us;
            res->late_timeout_us = res->timeout_us;
            res->grow_us = fmax(res->timeout_us, 2 * fmax(r->call_us, r->release_to_return_us));
            if (!late && !again) {
                to_prove = 1; /* the case's first wait, prompt: stands once the next proves it */
            } else {
                (void)cudaDeviceSynchronize();
                r->status = CTS_INCONCLUSIVE;
                if (late)
                    cts_eng_setf(r->reason, "the call returned %.1f us after the gate opened (prompt: up to %.0f "
                                            "us) with a %.0f us timeout, and did not track the release when "
                                            "measured again with longer ones",
                                 r->release_to_return_us, prompt_us, res->timeout_us);
                else
                    cts_eng_setf(r->reason, "the call returned %.1f us after the gate opened with a %.0f us "
                                            "timeout (%.1f us inside it), and %s",
                                 r->release_to_return_us, res->timeout_us, r->call_us,
                                 again ? "did not track the release when measured again with longer ones: "
                                         "slow, or waiting on something else"
                                       : "was not measured again with a longer one");
                return REP_TIMEOUT_SHORT;
            }
        }
    }
    latch_armed = 0;

    /* Drain: the gate must end, opened by its flag, and every marker run. */
    double td = cts_now_us();
    while (e->gate_host->ended != seq ||
           (markers && !(e->mk_host[0].done == seq && e->mk_host[1].done == seq &&
                         e->mk_host[2].done == seq)))
        if (cts_now_us() - td > DRAIN_LIMIT_US) {
            r->status = CTS_TIMEOUT;
            cts_eng_setf(r->reason, "the device had not drained %.0f s after the gate opened",
                         DRAIN_LIMIT_US / 1e6);
            (void)cudaDeviceSynchronize();
            return 0;
        }
    {
        cudaError_t serr = cudaDeviceSynchronize();
        if (serr != cudaSuccess) {
            (void)cudaGetLastError();
            r->status = CTS_BROKEN;
            cts_eng_setf(r->reason, "cudaDeviceSynchronize after the case returned %s (the call or the "
                                    "harness; cannot tell which)", cudaGetErrorName(serr));
            return 0;
        }
    }
    if (e->gate_host->reason != CTS_GATE_OPENED) {
        r->status = CTS_BROKEN;
        cts_eng_setf(r->reason, "the gate reached its %%globaltimer deadline: the watchdog never opened it");
        return 0;
    }
    if (markers && c->busy != CTS_BUSY_HOSTFN) { /* a host-function gate's: host-observed, above */
        double gate_end = (double)e->gate_host->end_ns;
        r->op_after_gpu_us = ((double)e->mk_host[0].stamp_ns - gate_end) / 1e3;
        r->third_blocking_gpu_us = ((double)e->mk_host[1].stamp_ns - gate_end) / 1e3;
        r->third_nonblocking_gpu_us = ((double)e->mk_host[2].stamp_ns - gate_end) / 1e3;
    }
    if (markers) {
        /* "Held" must be proven both ways: the marker did not run while the
         * gate was closed, and its running tracks the gate's end.  One the
         * GPU clock puts before the gate's end ran while it was closed
         * (after the window): the window was too short to tell, and is
         * doubled.  One that ran promptly after the gate opened (within 2x
         * the idle completion + slack) was held by it.  One that ran later
         * (a staged copy's tail, a host function's thread waking late) is
         * tracked: measured again with the window grown by at least twice
         * that lateness, it must be held again and run no earlier against
         * the gate's end than half the growth.  A marker that was merely
         * slow by itself runs inside the longer window, or that much earlier
         * against the gate's end; a held one runs after the gate's end
         * (lateness >= 0), which passes whatever its first lateness was.
         * A hold the control does not show (the call's doing, the finding)
         * is tracked so too, the first in each column of a case; a later
         * prompt one is the one the first proved. */
        double gpu[3] = {r->op_after_gpu_us, r->third_blocking_gpu_us, r->third_nonblocking_gpu_us};
        enum cts_order ord[3] = {r->op_after, r->third_blocking, r->third_nonblocking};
        enum cts_order ctl[3] = {res->control.op_after, res->control.third_blocking,
                                 res->control.third_nonblocking};
        double prompt_us = PROMPT_FACTOR * res->idle_complete_max_us + PROMPT_SLACK_US;
        for (int i = 0; i < 3; i++)
            if (ord[i] == CTS_ORDER_HELD && gpu[i] < 0) {
                r->status = CTS_INCONCLUSIVE;
                cts_eng_setf(r->reason, "a marker ran %.1f us before the gate opened but after the %.0f us "
                                        "window: the window was too short to tell",
                             -gpu[i], res->window_us);
                return REP_WINDOW_SHORT;
            }
        int unproven = -1;
        double lateness = 0;
        for (int i = 0; i < 3; i++) {
            if (ord[i] != CTS_ORDER_HELD)
                continue;
            int late = gpu[i] > prompt_us, the_call = ctl[i] == CTS_ORDER_RUNS;
            if (!late && !(the_call && !res->holds_tracked[i]))
                continue;
            if (res->hold_window_us > 0 && res->window_us > res->hold_window_us &&
                !isnan(res->hold_late_us[i]) &&
                gpu[i] - res->hold_late_us[i] >= -TRACK_FRACTION * (res->window_us - res->hold_window_us)) {
                if (the_call)
                    res->holds_tracked[i]++;
                else
                    res->late_holds_tracked++;
                continue;
            }
            if (unproven < 0)
                unproven = i;
            lateness = fmax(lateness, gpu[i]);
        }
        if (unproven >= 0) {
            static const char *const what[3] = {"its own stream", "a third blocking stream",
                                                "a third non-blocking stream"};
            for (int i = 0; i < 3; i++)
                res->hold_late_us[i] = ord[i] == CTS_ORDER_HELD ? gpu[i] : NAN;
            res->hold_window_us = res->window_us;
            res->grow_us = fmax(res->window_us, 2 * lateness);
            r->status = CTS_INCONCLUSIVE;
            cts_eng_setf(r->reason, "a marker on %s was held through the %.0f us window and ran %.1f us "
                                    "after the gate opened (prompt: up to %.0f us), and was not held again "
                                    "when measured with longer windows",
                         what[unproven], res->window_us, gpu[unproven], prompt_us);
            return REP_HOLD_TO_TRACK;
        }
    }

    /* Did the copy happen, and when did it read its source? */
    if (r->rejected)
        return to_prove ? REP_WAIT_TO_PROVE : REP_DONE; /* nothing was copied or set */
    int got_v = 0, got_w = 0;
    unsigned char got[3] = {0};
    if (dm != CTS_MEM_NONE && nsamp) {
        const char *pname = NULL;
        if (cts_eng_peek_samples(e, c, dm, dst, off, nsamp, got, &pname) != cudaSuccess) {
            (void)cudaGetLastError();
            r->status = CTS_BROKEN;
            cts_eng_setf(r->reason, "harness: reading the destination's samples failed: %s",
                         pname ? pname : "?");
            return 0;
        }
    }
    for (int i = 0; i < nsamp && dm != CTS_MEM_NONE; i++) {
        unsigned char b = got[i];
        if (b == v)
            got_v++;
        else if (b == w && src_live && closed)
            got_w++;
        else {
            r->status = CTS_FAIL;
            cts_eng_setf(r->reason, "destination byte %zu is 0x%02x after the copy; expected 0x%02x%s",
                         off[i], b, v, b == u ? " (never written)" : "");
            return 0;
        }
    }
    if (src_live && closed)
        r->src = got_w == 0 ? CTS_SRC_AT_CALL : got_v == 0 ? CTS_SRC_AFTER_RETURN : CTS_SRC_PARTIAL;
    return to_prove ? REP_WAIT_TO_PROVE : REP_DONE;
fail:
    r->status = CTS_BROKEN;
    if (latch_armed || markers)
        cts_latch_open(&e->latch);
    (void)cudaDeviceSynchronize();
    return 0;
}

void cts_eng_trace_attempt(const struct cts_case *c, int rep, int rc, const struct cts_result *res,
                           const struct cts_rep *r, double wall_us)
{
    static const char *const rcs[] = {"done", "window_short", "timeout_short", "hold_to_track",
                                      "perturbed", "wait_to_prove", "starved"};
    fprintf(stderr,
            "trace %s rep %d %s: %s timeout %.0f window %.0f call %.1f host %s tail %.1f "
            "run_delay %.1f markers %s/%s/%s at %.1f/%.1f/%.1f wall %.0f%s%s\n",
            c->id, rep + 1, rcs[rc], cts_status_name(r->status), res->timeout_us, res->window_us,
            r->call_us, r->host == CTS_HOST_WAITS ? "waits" : "returns", r->release_to_return_us,
            cts_eng_trace_run_delay_us, r->op_after == CTS_ORDER_RUNS ? "runs" : "held",
            r->third_blocking == CTS_ORDER_RUNS ? "runs" : "held",
            r->third_nonblocking == CTS_ORDER_RUNS ? "runs" : "held", r->op_after_gpu_us,
            r->third_blocking_gpu_us, r->third_nonblocking_gpu_us, wall_us, r->reason[0] ? ": " : "",
            r->reason);
}

/* One repetition, between the family's set-up and clean-up. */
int cts_eng_run_rep(struct cts_engine *e, const struct cts_case *c, struct cts_result *res,
                    struct cts_rep *r)
{
    struct cts_scratch scratch = {0};
    const char *ename = "?";
    memset(r, 0, sizeof *r);
    r->status = CTS_PASS;
    r->release_to_return_us = r->op_after_gpu_us = NAN;
    r->timeout_us = r->window_us = r->tracked_from_timeout_us = r->tracked_from_call_us = NAN;
    r->third_blocking_gpu_us = r->third_nonblocking_gpu_us = NAN;
    if (c->family->prepare) {
        const char *why = NULL;
        cudaError_t err = cudaDeviceSynchronize();
        if (err != cudaSuccess)
            why = cudaGetErrorName(err);
        else if (c->family->prepare(c, &scratch, &ename))
            why = ename;
        else if ((err = cudaDeviceSynchronize()) != cudaSuccess)
            why = cudaGetErrorName(err);
        if (why) {
            (void)cudaGetLastError();
            r->status = CTS_BROKEN;
            cts_eng_setf(r->reason, "harness: setting up %s failed: %s", cts_api_function(c->api), why);
            (void)cudaDeviceSynchronize();
            if (c->family->cleanup)
                (void)c->family->cleanup(c, &scratch, &ename); /* the failure is reported */
            return REP_DONE;
        }
    }
    int rc = run_rep_inner(e, c, res, r, &scratch);
    if (c->family->cleanup) {
        cudaError_t err = cudaDeviceSynchronize(); /* the call's work is done before its memory goes */
        int bad = c->family->cleanup(c, &scratch, &ename);
        if ((bad || err != cudaSuccess) && r->status == CTS_PASS) {
            r->status = CTS_BROKEN;
            cts_eng_setf(r->reason, "harness: cleaning up after %s failed: %s", cts_api_function(c->api),
                         bad ? ename : cudaGetErrorName(err));
            return REP_DONE;
        }
    }
    return rc;
}

/* The control: the gate and the same markers in the same order, with no
 * call.  What it holds, the streams hold by themselves; a case is judged
 * against it.  For a family with before/after hooks it is the case's own
 * (c set): its set-up and hooks run where they run around the call, because
 * they may act on streams themselves (an event recorded on the legacy stream
 * makes blocking streams wait).  Otherwise it is the (op stream, busy
 * placement) pair's, measured once (c NULL).  A set-up that leaves the op
 * stream capturing (the capture cudaStreamEndCapture ends) queues no work
 * to control for, and markers cannot run behind it: returns -1, and the
 * pair's control is used. */
int cts_eng_measure_control(struct cts_engine *e, enum cts_op op, enum cts_busy busy,
                             const struct cts_case *c, struct cts_control_entry *ce)
{
    static const char *const names[3] = {"op_after", "third_blocking", "third_nonblocking"};
    cudaStream_t s[3] = {cts_eng_op_stream(e, op), e->blocking[2], e->nonblocking[2]};
    enum cts_order first[3] = {0};
    struct cts_scratch scratch;
    int prepared = 0;
    const char *ename = "?";
    ce->done = 1;
    ce->status = CTS_PASS;
    for (int rep = 0; rep < 3; rep++) {
        HCHECK(ce->reason, cudaDeviceSynchronize());
        memset(&scratch, 0, sizeof scratch);
        if (c && c->family->prepare) {
            prepared = 1;
            if (c->family->prepare(c, &scratch, &ename)) {
                cts_eng_setf(ce->reason, "control: setting up %s failed: %s", cts_api_function(c->api), ename);
                goto fail;
            }
            HCHECK(ce->reason, cudaDeviceSynchronize());
        }
        unsigned seq = ++e->seq;
        cts_latch_close(&e->latch);
        HCHECK(ce->reason, busy_stream_gate(e, op, busy, 10000000000ull, seq));
        if (!cts_eng_wait_gate_started(e, seq)) {
            cts_latch_open(&e->latch);
            cts_eng_setf(ce->reason, "control: the gate did not start");
            goto fail;
        }
        if (c && (cts_eng_hook(c->family->before, c, &scratch, s[0], &ename) ||
                  cts_eng_hook(c->family->after, c, &scratch, s[0], &ename))) {
            cts_latch_open(&e->latch);
            cts_eng_setf(ce->reason, "control: a hook of %s failed: %s", cts_api_function(c->api), ename);
            goto fail;
        }
        if (c) {
            enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
            HCHECK(ce->reason, cudaStreamIsCapturing(s[0], &cs));
            if (cs != cudaStreamCaptureStatusNone) {
                const char *why = NULL;
                prepared = 0;
                if (c->family->cleanup && c->family->cleanup(c, &scratch, &why))
                    (void)cudaGetLastError(); /* the pair's control and the case will show it */
                cts_latch_open(&e->latch);
                (void)cudaDeviceSynchronize();
                ce->done = 0;
                return -1;
            }
        }
        HCHECK(ce->reason, cts_launch_marker(s[1], &e->mk_dev[1], seq));
        HCHECK(ce->reason, cts_launch_marker(s[2], &e->mk_dev[2], seq));
        HCHECK(ce->reason, cts_launch_marker(s[0], &e->mk_dev[0], seq));
        double tm = cts_now_us();
        while (cts_now_us() - tm < CONTROL_WINDOW_US &&
               !(e->mk_host[0].done == seq && e->mk_host[1].done == seq && e->mk_host[2].done == seq))
            ;
        for (int i = 0; i < 3; i++) {
            enum cts_order o = e->mk_host[i].done == seq ? CTS_ORDER_RUNS : CTS_ORDER_HELD;
            if (rep == 0)
                first[i] = o;
            else if (o != first[i]) {
                cts_latch_open(&e->latch);
                cts_eng_setf(ce->reason, "control (no call): repetitions disagree on %s", names[i]);
                goto fail;
            }
        }
        cts_latch_open(&e->latch);
        HCHECK(ce->reason, cudaDeviceSynchronize());
        if (e->gate_host->reason != CTS_GATE_OPENED) {
            cts_eng_setf(ce->reason, "control: the gate reached its deadline");
            goto fail;
        }
        if (prepared && c->family->cleanup) {
            prepared = 0;
            if (c->family->cleanup(c, &scratch, &ename)) {
                cts_eng_setf(ce->reason, "control: cleaning up after %s failed: %s",
                             cts_api_function(c->api), ename);
                goto fail;
            }
        }
        prepared = 0;
    }
    ce->control.op_after = first[0];
    ce->control.third_blocking = first[1];
    ce->control.third_nonblocking = first[2];
    return 0;
fail:
    ce->status = CTS_BROKEN;
    cts_latch_open(&e->latch);
    (void)cudaDeviceSynchronize();
    if (prepared && c->family->cleanup)
        (void)c->family->cleanup(c, &scratch, &ename); /* the failure is reported */
    (void)cudaGetLastError();
    return 0;
}

/* One repetition into reps[i], with its retries: a wait or a window that
 * proved too short is measured again, grown (at most WAIT_RETRIES times
 * each).  With `defer`, a first prompt wait stands (REP_WAIT_TO_PROVE) for
 * the next repetition to prove; without, it is measured again in place. */
static int measure_rep(struct cts_engine *e, const struct cts_case *c, struct cts_result *res, int i,
                       int defer)
{
    int window_retries = 0, timeout_retries = 0, perturbed = 0, starved = 0;
    for (;;) {
        double w0 = cts_now_us();
        int rc = cts_eng_run_rep(e, c, res, &res->reps[i]);
        if (cts_eng_trace_on())
            cts_eng_trace_attempt(c, i, rc, res, &res->reps[i], cts_now_us() - w0);
        if (rc == REP_WAIT_TO_PROVE && defer)
            return rc;
        if (rc == REP_WAIT_TO_PROVE)
            rc = REP_TIMEOUT_SHORT;
        if (rc == REP_WINDOW_SHORT && window_retries < WAIT_RETRIES) {
            window_retries++;
            res->window_retries++;
            res->window_us = fmin(2 * res->window_us, WAIT_MAX_US);
        } else if (rc == REP_HOLD_TO_TRACK && window_retries < WAIT_RETRIES) {
            window_retries++;
            res->window_retries++;
            res->window_us = fmin(res->window_us + res->grow_us, WAIT_MAX_US);
        } else if (rc == REP_TIMEOUT_SHORT && timeout_retries < WAIT_RETRIES) {
            timeout_retries++;
            res->timeout_retries++;
            res->timeout_us = fmin(res->timeout_us + res->grow_us, WAIT_MAX_US);
        } else if (rc == REP_PERTURBED && perturbed < WAIT_RETRIES) {
            perturbed++;
            res->perturbed_retries++;
        } else if (rc == REP_STARVED && starved < STARVED_RETRIES) {
            starved++;
            res->perturbed_retries++;
            res->timeout_us = fmin(2 * res->timeout_us, WAIT_MAX_US);
        } else {
            return rc;
        }
    }
}

/* Whether the case's last repetition proved a wait by tracking it at a
 * timeout shorter than RECHECK_MIN_US.  A managed-memory copy slowed by the
 * held kernel ends its slowness when the gate opens, so twice in a row it
 * can pass for a wait tracked at a short timeout: about once a run with two
 * repetitions a case (H100, 580.159.04, 13 runs), and the repetition that
 * proved it had no successor to contradict it. */
static int confirm_wait(const struct cts_result *res)
{
    const struct cts_rep *r = &res->reps[res->nreps - 1];
    return r->status == CTS_PASS && r->host == CTS_HOST_WAITS && r->tracked_from_timeout_us > 0 &&
           r->timeout_us < RECHECK_MIN_US;
}

/* "Returns" and "runs" are proven by the latch; "waits" and "held" by
 * timing (tracking).  Where one case has both in one column, timing may
 * have been fooled by a call or a marker that was merely slow: a managed-
 * memory copy that does not wait took up to 15x its idle time while a
 * kernel ran (H100 and H200, 580.159.04), and once in ~10 runs such a
 * copy's slow attempts passed for a tracked wait.  So each timed one is
 * measured again with ten times the timeout, past ten times the slowest
 * call the case made, or ten times the window (at least RECHECK_MIN_US):
 * what was only slow then returns or runs while the gate is closed, and
 * that replaces it; what waits or is held again stands, and the case
 * VARIES.  The slowest call counts the waits too: 1 MiB managed copies that
 * returned while the gate was closed took up to 5.3 ms, and at a 5 ms
 * recheck (ten times a 0.4 ms return) they were still slow when it opened. */
static void recheck(struct cts_engine *e, const struct cts_case *c, struct cts_result *res)
{
    double slowest = res->idle_call_max_us;
    int returns = 0, runs[3] = {0};
    for (int i = 0; i < res->nreps; i++) {
        const struct cts_rep *r = &res->reps[i];
        enum cts_order ord[3] = {r->op_after, r->third_blocking, r->third_nonblocking};
        if (r->status != CTS_PASS)
            return;
        returns |= r->host == CTS_HOST_RETURNS;
        slowest = fmax(slowest, r->call_us);
        for (int j = 0; j < 3; j++)
            runs[j] |= r->host == CTS_HOST_RETURNS && ord[j] == CTS_ORDER_RUNS;
    }
    double timeout_us = res->timeout_us, window_us = res->window_us;
    for (int i = 0; i < res->nreps; i++) {
        struct cts_rep *r = &res->reps[i], old = *r;
        enum cts_order ord[3] = {r->op_after, r->third_blocking, r->third_nonblocking};
        int waits = returns && r->host == CTS_HOST_WAITS, held = 0;
        for (int j = 0; j < 3; j++)
            held |= r->host == CTS_HOST_RETURNS && runs[j] && ord[j] == CTS_ORDER_HELD;
        if (!waits && !held)
            continue;
        res->late_call_us = res->late_timeout_us = res->hold_window_us = 0;
        res->timeout_us = waits ? fmin(fmax(10 * slowest, RECHECK_MIN_US), WAIT_MAX_US) : timeout_us;
        res->window_us = held ? fmin(fmax(10 * window_us, RECHECK_MIN_US), WAIT_MAX_US) : window_us;
        (void)measure_rep(e, c, res, i, 0);
        res->rechecked++;
        if (r->status != CTS_PASS)
            *r = old; /* the recheck itself was undecided: the first measurement stands */
    }
    res->timeout_us = timeout_us;
    res->window_us = window_us;
}

void cts_engine_run_case(struct cts_engine *e, const struct cts_case *c, const struct cts_idle *idle,
                         int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    res->idle_call_us = idle->call_us;
    res->idle_call_max_us = idle->call_max_us;
    res->idle_complete_us = idle->complete_us;
    res->idle_complete_max_us = idle->complete_max_us;
    enum cts_mem sm, dm;
    c->family->buffers(c, &sm, &dm);
    int managed = c->mem == CTS_MEM_MANAGED || sm == CTS_MEM_MANAGED || dm == CTS_MEM_MANAGED;
    res->timeout_us = fmax(TIMEOUT_FLOOR_US,
                           (managed ? TIMEOUT_FACTOR_MANAGED : TIMEOUT_FACTOR) * idle->call_max_us);
    res->window_us = fmax(WINDOW_FLOOR_US, WINDOW_FACTOR * idle->complete_max_us);
    if (e->broken[0]) {
        res->status = CTS_BROKEN;
        cts_eng_setf(res->reason, "%s", e->broken);
        return;
    }
    if (e->unmeasurable[0]) {
        res->status = CTS_NOTSUPP;
        cts_eng_setf(res->reason, "%s", e->unmeasurable);
        return;
    }
    if (idle->status != CTS_PASS) {
        res->status = idle->status;
        cts_eng_setf(res->reason, "%s", idle->reason);
        return;
    }
    struct cts_control_entry own = {0}, *ce = NULL;
    double w0 = cts_now_us();
    if ((c->family->before || c->family->after) && cts_eng_measure_control(e, c->op, c->busy, c, &own) == 0)
        ce = &own;
    if (!ce && !(ce = &e->control[c->op][c->busy])->done)
        (void)cts_eng_measure_control(e, c->op, c->busy, NULL, ce);
    if (cts_eng_trace_on())
        fprintf(stderr, "trace %s control: wall %.0f\n", c->id, cts_now_us() - w0);
    if (ce->status != CTS_PASS) {
        res->status = ce->status;
        cts_eng_setf(res->reason, "%s", ce->reason);
        return;
    }
    res->control = ce->control;
    res->control_own = ce == &own;
    if (repeat > CTS_MAX_REPEAT)
        repeat = CTS_MAX_REPEAT;
    double first_timeout_us = res->timeout_us;
    int pending = -1; /* a repetition whose wait this one, measured longer, must prove */
    for (int i = 0; i < repeat; i++) {
        /* Retries and tracking are each repetition's own: every repetition
         * starts from the case's first timeout, and may need a longer one
         * to prove its wait; except the one after a repetition whose wait
         * it proves, which keeps that one's longer timeout. */
        if (pending < 0) {
            res->late_call_us = res->late_timeout_us = res->hold_window_us = 0;
            res->timeout_us = first_timeout_us;
        }
        int rc = measure_rep(e, c, res, i, i + 1 < repeat);
        if (rc == REP_WAIT_TO_PROVE) {
            res->timeout_retries++;
            res->timeout_us = fmin(res->timeout_us + res->grow_us, WAIT_MAX_US);
            pending = i;
        } else if (pending >= 0) {
            /* This repetition proved the pending one's wait (tracked), or
             * showed that the call does not wait (it returned while the
             * gate was closed): then the pending one waited for nothing but
             * its own slowness and gives way to this one.  Otherwise this
             * one's status decides the case. */
            if (res->reps[i].status == CTS_PASS && res->reps[i].host == CTS_HOST_RETURNS) {
                res->reps[pending] = res->reps[i];
                i = pending;
            }
            pending = -1;
        }
        res->nreps = i + 1;
        if (res->reps[i].status != CTS_PASS)
            break; /* one broken or failed repetition decides; don't pile on */
    }
    if (res->nreps == repeat && managed && confirm_wait(res) && repeat < CTS_MAX_REPEAT) {
        /* The wait proven last is confirmed by one more repetition, from
         * the case's first timeout: a managed-memory copy the held kernel
         * only slowed returns while the gate is closed there, and the
         * recheck below then measures the timed ones again. */
        res->late_call_us = res->late_timeout_us = res->hold_window_us = 0;
        res->timeout_us = first_timeout_us;
        (void)measure_rep(e, c, res, res->nreps, 0);
        res->nreps++;
    }
    if (res->nreps >= repeat)
        recheck(e, c, res);
    res->timeout_us = first_timeout_us; /* each repetition's own are in reps[] */
    cts_classify(res);
}
