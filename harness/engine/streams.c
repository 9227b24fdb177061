/* The second host thread, the streams, the gates, and polling their mapped records. */
#define _GNU_SOURCE
#include "engine_int.h"

#include "pattern.h"

#include <stdatomic.h>
#include <string.h>

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
    struct cts_engine *e;
    int perthread; /* cudaStreamPerThread (the worker's), else cudaStreamLegacy */
    int gate;      /* the gate, else a marker */
    unsigned long long budget_ns;
    struct cts_marker_record *marker_rec;
    unsigned int seq;
};

static cudaError_t launch_job(void *arg)
{
    struct launch_job *j = arg;
    cudaStream_t s = j->perthread ? cudaStreamPerThread : cudaStreamLegacy;
    return j->gate ? cts_eng_gate(j->e, s, j->budget_ns, j->seq) : cts_eng_marker(j->e, s, j->marker_rec, j->seq);
}

cudaError_t worker_launch_gate(struct cts_engine *e, int perthread,
                               unsigned long long budget_ns, unsigned seq)
{
    struct launch_job j = {e, perthread, 1, budget_ns, NULL, seq};
    return on_worker(e, launch_job, &j);
}

cudaError_t worker_launch_marker(struct cts_engine *e, int perthread,
                                 struct cts_marker_record *rec, unsigned seq)
{
    struct launch_job j = {e, perthread, 0, 0, rec, seq};
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
    if (e->hostfn_gate.write_to) /* a written case's writer: its last act */
        memcpy(e->hostfn_gate.write_to, e->data.after, e->hostfn_gate.write_bytes);
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
    if (cts_busy_is_hostfn(busy)) {
        e->hostfn_gate.e = e;
        e->hostfn_gate.seq = seq;
        e->hostfn_gate.budget_us = (double)budget_ns / 1e3;
        e->hostfn_gate.write_to = busy == CTS_BUSY_SAME_HOSTFN ? e->data.write_to : NULL;
        e->hostfn_gate.write_bytes = e->data.write_bytes;
        return cudaLaunchHostFunc(busy == CTS_BUSY_HOSTFN ? e->nonblocking[1] : cts_eng_op_stream(e, op),
                                  hostfn_gate, e);
    }
    cudaStream_t s = busy_stream(e, op, busy);
    cudaError_t err = cts_eng_gate(e, s, budget_ns, seq);
    if (err == cudaSuccess && busy == CTS_BUSY_SAME && e->data.write_to) /* a written case's writer */
        err = cts_launch_pattern(s, e->data.write_to, e->data.write_bytes, 0, CTS_PATTERN_AFTER);
    else if (err == cudaSuccess && busy == CTS_BUSY_SAME && e->data.write_own) { /* ... a copy into own memory */
        const char *ename = NULL;
        const struct cts_case *c = e->data.write_own;
        if (c->family->own_copy(c, 0, 1, e->data.after_dev, 1, e->data.write_bytes, 1, (void *)s, &ename))
            err = cudaErrorUnknown;
    }
    return err;
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
