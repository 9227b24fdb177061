#define _GNU_SOURCE
/* A gate that opens on a stall (stallgate.h). */
#include "stallgate.h"

#include "driver.h"
#include "latch.h" /* cts_now_us, START_LIMIT_US, DRAIN_LIMIT_US */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define POLL_NS 100000L /* how often the watchdog looks */

enum { W_IDLE, W_ARMED, W_RELEASED, W_OPENED, W_QUIT };

static void open_flag(struct cts_stallgate *g)
{
    atomic_thread_fence(memory_order_seq_cst);
    *g->flag_host = 1u;
    atomic_thread_fence(memory_order_seq_cst);
}

static void *watchdog(void *arg)
{
    struct cts_stallgate *g = arg;
    struct timespec poll = {0, POLL_NS};
    (void)cts_thread_realtime();
    while (atomic_load(&g->state) != W_QUIT) {
        nanosleep(&poll, NULL);
        int armed = W_ARMED;
        double dl = atomic_load(&g->deadline_us);
        if (!isnan(dl) && *g->flag_host == 0u && cts_now_us() >= dl) { /* a wait-value hold's own deadline */
            atomic_store(&g->deadline_us, NAN);
            g->gate_host->reason = CTS_GATE_DEADLINE;
            open_flag(g);
        }
        if (atomic_load(&g->state) == W_ARMED &&
            cts_now_us() - atomic_load(&g->last_us) >= atomic_load(&g->stall_us) &&
            atomic_compare_exchange_strong(&g->state, &armed, W_RELEASED)) {
            atomic_store(&g->released_us, cts_now_us()); /* claimed first, then opened */
            open_flag(g);
        }
    }
    return NULL;
}

static int start_watchdog(struct cts_stallgate *g, char *why, size_t len);

int cts_sg_init(struct cts_stallgate *g, char *why, size_t len)
{
    memset(g, 0, sizeof *g);
    const char *at = "cudaHostAlloc";
    cudaError_t err = cudaHostAlloc((void **)&g->flag_host, sizeof *g->flag_host, cudaHostAllocMapped);
    if (err == cudaSuccess && (at = "cudaHostGetDevicePointer"))
        err = cudaHostGetDevicePointer((void **)&g->flag_dev, (void *)g->flag_host, 0);
    if (err == cudaSuccess && (at = "cudaHostAlloc"))
        err = cudaHostAlloc((void **)&g->gate_host, sizeof *g->gate_host, cudaHostAllocMapped);
    if (err == cudaSuccess && (at = "cudaHostGetDevicePointer"))
        err = cudaHostGetDevicePointer((void **)&g->gate_dev, g->gate_host, 0);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: the stall gate's %s returned %s", at, cudaGetErrorName(err));
        return -1;
    }
    return start_watchdog(g, why, len);
}

static int start_watchdog(struct cts_stallgate *g, char *why, size_t len)
{
    atomic_store(&g->deadline_us, NAN);
    memset((void *)g->gate_host, 0, sizeof *g->gate_host);
    *g->flag_host = 1u;
    atomic_store(&g->state, W_IDLE);
    if (pthread_create(&g->watchdog, NULL, watchdog, g)) {
        snprintf(why, len, "harness: the stall gate's watchdog thread could not start");
        return -1;
    }
    g->running = 1;
    return 0;
}

int cts_sg_init_shared(struct cts_stallgate *g, volatile unsigned int *flag, struct cts_gate_record *rec, char *why,
                       size_t len)
{
    memset(g, 0, sizeof *g);
    g->flag_host = flag;
    g->gate_host = rec;
    return start_watchdog(g, why, len);
}

int cts_sg_hold(struct cts_stallgate *g, cudaStream_t s, char *why, size_t len)
{
    return cts_sg_hold_by(g, s, 0, why, len);
}

/* The wait-value hold: started, the wait, ended, as three stream memory operations (hold.c's). */
static cudaError_t hold_wait_value(struct cts_stallgate *g, cudaStream_t s, unsigned seq)
{
    if (!cts_drv.cuStreamWaitValue32 || !cts_drv.cuStreamWriteValue32)
        return cudaErrorNotSupported;
    CUstream cs = (CUstream)s;
    g->gate_host->reason = CTS_GATE_OPENED; /* the watchdog's deadline marks it otherwise (as the kernel's own) */
    atomic_store(&g->deadline_us, cts_now_us() + CTS_SG_BUDGET_NS / 1e3);
    CUresult r = cts_drv.cuStreamWriteValue32(cs, (CUdeviceptr)(uintptr_t)&g->gate_dev->started, seq, 0);
    if (r == CUDA_SUCCESS)
        r = cts_drv.cuStreamWaitValue32(cs, (CUdeviceptr)(uintptr_t)g->flag_dev, 1u, CU_STREAM_WAIT_VALUE_GEQ);
    if (r == CUDA_SUCCESS)
        r = cts_drv.cuStreamWriteValue32(cs, (CUdeviceptr)(uintptr_t)&g->gate_dev->ended, seq, 0);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

int cts_sg_hold_by(struct cts_stallgate *g, cudaStream_t s, int wait_value, char *why, size_t len)
{
    *g->flag_host = 0u;
    atomic_thread_fence(memory_order_seq_cst);
    unsigned seq = ++g->seq;
    cudaError_t err = wait_value ? hold_wait_value(g, s, seq)
                                 : cts_launch_gate(s, g->flag_dev, CTS_SG_BUDGET_NS, g->gate_dev, seq);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        open_flag(g);
        snprintf(why, len, "harness: %s returned %s", wait_value ? "holding by a stream wait" : "launching the gate",
                 cudaGetErrorName(err));
        return -1;
    }
    return cts_sg_started(g, why, len);
}

unsigned cts_sg_close_for_other(struct cts_stallgate *g)
{
    *g->flag_host = 0u;
    atomic_thread_fence(memory_order_seq_cst);
    return ++g->seq;
}

int cts_sg_started(struct cts_stallgate *g, char *why, size_t len)
{
    for (double t0 = cts_now_us(); g->gate_host->started != g->seq;)
        if (cts_now_us() - t0 > START_LIMIT_US) {
            open_flag(g);
            snprintf(why, len, "harness: the gate did not start within %.0f s", START_LIMIT_US / 1e6);
            return -1;
        }
    return 0;
}

int cts_sg_ended_by_flag(const struct cts_stallgate *g, char *why, size_t len)
{
    if (g->gate_host->ended != g->seq || g->gate_host->reason != CTS_GATE_OPENED) {
        snprintf(why, len, "harness: the gate ended by its own deadline, not by the flag");
        return -1;
    }
    return 0;
}

void cts_sg_arm(struct cts_stallgate *g, double stall_us)
{
    atomic_store(&g->stall_us, stall_us);
    atomic_store(&g->last_us, cts_now_us());
    atomic_store(&g->released_us, NAN);
    atomic_store(&g->state, W_ARMED);
}

int cts_sg_returned_closed(struct cts_stallgate *g)
{
    if (atomic_load(&g->state) != W_ARMED)
        return 0;
    atomic_store(&g->last_us, cts_now_us());
    return 1;
}

int cts_sg_closed(struct cts_stallgate *g) { return atomic_load(&g->state) == W_ARMED; }

int cts_sg_flag_closed(struct cts_stallgate *g) { return *g->flag_host == 0u; }

double cts_sg_released_us(struct cts_stallgate *g) { return atomic_load(&g->released_us); }

void cts_sg_open(struct cts_stallgate *g)
{
    atomic_store(&g->state, W_OPENED); /* the watchdog, if it claimed it first, opens it too */
    atomic_store(&g->deadline_us, NAN);
    open_flag(g);
}

cudaError_t cts_sg_drained(cudaStream_t s, double since_us)
{
    struct timespec nap = {0, 100000L};
    cudaError_t err;
    while ((err = cudaStreamQuery(s)) == cudaErrorNotReady && cts_now_us() - since_us < DRAIN_LIMIT_US)
        nanosleep(&nap, NULL);
    return err;
}

int cts_sg_drain(struct cts_stallgate *g, cudaStream_t a, cudaStream_t b, char *why, size_t len)
{
    cts_sg_open(g);
    double t0 = cts_now_us();
    cudaError_t err = cts_sg_drained(a, t0);
    if (err == cudaSuccess && b)
        err = cts_sg_drained(b, t0);
    atomic_store(&g->state, W_IDLE);
    if (err == cudaErrorNotReady) {
        snprintf(why, len, "harness: the streams did not drain within %.0f s of the gate's opening (gate %s)",
                 DRAIN_LIMIT_US / 1e6, g->gate_host->ended == g->seq ? "ended" : "still running");
        return -2;
    }
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: draining returned %s", cudaGetErrorName(err));
        return -1;
    }
    if (g->gate_host->ended != g->seq || g->gate_host->reason != CTS_GATE_OPENED) {
        snprintf(why, len, "harness: the gate ended by its own deadline, not by the flag");
        return -1;
    }
    return 0;
}
