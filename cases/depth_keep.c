/* The depth family's calls, what it keeps and the gate, shared by its
 * files (cases/depth_family.h).  cases/depth.c says what the family measures. */
#define _GNU_SOURCE
#include "depth_family.h"
#include "../harness/families/kernels.h"

#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

const struct depth_call depth_calls[] = {
    {CTS_API_LAUNCH, CTS_DIR_NONE, CTS_MEM_NONE},
    {CTS_API_MEMCPY_ASYNC, CTS_DIR_H2D, CTS_MEM_PINNED},
    {CTS_API_MEMCPY_ASYNC, CTS_DIR_H2D, CTS_MEM_PAGEABLE},
    {CTS_API_MEMCPY_ASYNC, CTS_DIR_D2H, CTS_MEM_PINNED},
    {CTS_API_MEMCPY_ASYNC, CTS_DIR_D2D, CTS_MEM_DEVICE},
    {CTS_API_MEMSET_ASYNC, CTS_DIR_NONE, CTS_MEM_DEVICE},
    {CTS_API_EVENT_RECORD, CTS_DIR_NONE, CTS_MEM_NONE},
    {CTS_API_STREAM_WAIT_EVENT, CTS_DIR_NONE, CTS_MEM_NONE},
    {CTS_API_LAUNCH_HOST_FUNC, CTS_DIR_NONE, CTS_MEM_NONE},
    {CTS_API_GRAPH_LAUNCH, CTS_DIR_NONE, CTS_MEM_NONE},
};
_Static_assert(sizeof depth_calls / sizeof *depth_calls == NCALLS, "NCALLS (cases/depth_family.h) counts depth_calls");

/* ---- what the family keeps (set up by cases/depth.c) ------------------------- */

struct depth_state depth_d;

static atomic_llong hostfn_ran; /* host functions run so far (what a stream that will not drain says) */
static void CUDART_CB nothing(void *arg)
{
    (void)arg;
    atomic_fetch_add(&hostfn_ran, 1);
}

cudaError_t depth_issue(size_t k, cudaStream_t s)
{
    const struct depth_call *x = &depth_calls[k];
    switch (x->api) {
    case CTS_API_LAUNCH: return cts_launch_sleep(s, 0);
    case CTS_API_MEMCPY_ASYNC:
        switch (x->dir) {
        case CTS_DIR_H2D:
            return cudaMemcpyAsync(depth_d.dev[1], x->mem == CTS_MEM_PAGEABLE ? depth_d.pageable : depth_d.pinned[0],
                                   BYTES, cudaMemcpyHostToDevice, s);
        case CTS_DIR_D2H: return cudaMemcpyAsync(depth_d.pinned[1], depth_d.dev[0], BYTES, cudaMemcpyDeviceToHost, s);
        default: return cudaMemcpyAsync(depth_d.dev[1], depth_d.dev[0], BYTES, cudaMemcpyDeviceToDevice, s);
        }
    case CTS_API_MEMSET_ASYNC: return cudaMemsetAsync(depth_d.dev[1], 0, BYTES, s);
    case CTS_API_EVENT_RECORD: return cudaEventRecord(depth_d.recorded, s);
    case CTS_API_STREAM_WAIT_EVENT: return cudaStreamWaitEvent(s, depth_d.complete, 0);
    case CTS_API_LAUNCH_HOST_FUNC: return cudaLaunchHostFunc(s, nothing, NULL);
    default: return cudaGraphLaunch(depth_d.graph, s);
    }
}

/* ---- the gate (harness/families/stallgate.c) ------------------------------------------ */

int depth_returned_closed(void) { return cts_sg_returned_closed(&depth_d.g); }

/* After the call(s): opens the gate and waits for the streams; 0, or -1 with
 * why, or -2 with why (and the host functions that ran) where they did not drain. */
int depth_drain(cudaStream_t a, cudaStream_t b, char *why, size_t len)
{
    long long ran = atomic_load(&hostfn_ran);
    int bad = cts_sg_drain(&depth_d.g, a, b, why, len);
    if (bad == -2) {
        size_t n = strlen(why);
        snprintf(why + n, len - n, "; %lld host functions ran meanwhile", atomic_load(&hostfn_ran) - ran);
    }
    return bad;
}
