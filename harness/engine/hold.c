/* The two ways to hold a stream (hold.h). */
#define _GNU_SOURCE
#include "hold.h"

#include "driver.h"
#include "engine.h"
#include "latch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/* cts_hold_names and cts_hold_selected: family.c (the families that hold
 * their own work read the method too). */

static CUdeviceptr dptr(const volatile void *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

/* A CUresult as the runtime's error: the harness reports cudaError_t. */
static cudaError_t as_runtime(CUresult r)
{
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

cudaError_t cts_eng_gate(struct cts_engine *e, cudaStream_t s, unsigned long long budget_ns, unsigned seq)
{
    if (e->hold == CTS_HOLD_KERNEL)
        return cts_launch_gate(s, e->flag_dev, budget_ns, e->gate_dev, seq);
    /* started, the wait, ended: three operations in s.  The reason is the
     * host's to write: opened, unless the deadline thread opens the flag. */
    CUstream cs = (CUstream)s;
    e->gate_host->reason = CTS_GATE_OPENED;
    e->gate_host->start_ns = e->gate_host->end_ns = 0;
    atomic_store(&e->hold_seq, seq);
    atomic_store(&e->hold_deadline_us, cts_now_us() + (double)budget_ns / 1e3);
    CUresult r = cts_drv.cuStreamWriteValue32(cs, dptr(&e->gate_dev->started), seq, 0);
    if (r == CUDA_SUCCESS)
        r = cts_drv.cuStreamWaitValue32(cs, dptr(e->flag_dev), 1u, CU_STREAM_WAIT_VALUE_GEQ);
    if (r == CUDA_SUCCESS)
        r = cts_drv.cuStreamWriteValue32(cs, dptr(&e->gate_dev->ended), seq, 0);
    if (r != CUDA_SUCCESS)
        e->hold_error = r;
    return as_runtime(r);
}

cudaError_t cts_eng_marker(const struct cts_engine *e, cudaStream_t s, struct cts_marker_record *rec_dev,
                           unsigned seq)
{
    if (e->hold == CTS_HOLD_KERNEL)
        return cts_launch_marker(s, rec_dev, seq);
    return as_runtime(cts_drv.cuStreamWriteValue32((CUstream)s, dptr(&rec_dev->done), seq, 0));
}

int cts_eng_gpu_stamps(const struct cts_engine *e)
{
    return e->hold == CTS_HOLD_KERNEL;
}

/* Opens a closed flag whose wait (the one of hold_seq, started and not
 * ended) has passed its deadline, marking the gate record's reason, as the
 * gate kernel's own deadline does.  No CUDA call. */
static void *deadline_main(void *arg)
{
    struct cts_engine *e = arg;
    struct timespec tick = {0, 1000000}; /* 1 ms */
    while (!atomic_load(&e->hold_quit)) {
        double d = atomic_load(&e->hold_deadline_us);
        unsigned seq = atomic_load(&e->hold_seq);
        if (d > 0 && *e->flag_host == 0u && e->gate_host->started == seq && e->gate_host->ended != seq &&
            cts_now_us() >= d) {
            e->gate_host->reason = CTS_GATE_DEADLINE;
            atomic_thread_fence(memory_order_seq_cst);
            *e->flag_host = 1u;
        }
        nanosleep(&tick, NULL);
    }
    return NULL;
}

int cts_hold_start(struct cts_engine *e)
{
    if (e->hold == CTS_HOLD_KERNEL)
        return 0;
    if (!cts_drv.cuStreamWaitValue32 || !cts_drv.cuStreamWriteValue32)
        return -1;
    atomic_store(&e->hold_quit, 0);
    if (pthread_create(&e->hold_thread, NULL, deadline_main, e))
        return -1;
    e->hold_running = 1;
    return 0;
}

void cts_hold_stop(struct cts_engine *e)
{
    if (!e->hold_running)
        return;
    atomic_store(&e->hold_quit, 1);
    pthread_join(e->hold_thread, NULL);
    e->hold_running = 0;
}
