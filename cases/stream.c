/* The stream family: kernel launches, events, callbacks, graph launches, and
 * stream and event creation and destruction, while other work is held.
 *
 * Events a call waits on or queries are recorded before the gate, on an idle
 * device, so they are complete: what is measured is the call itself.  The
 * graph launched is one captured kernel, built once.  Host functions and
 * callbacks only count that they ran (they make no CUDA call).
 *
 * Not here yet (issue 3): stream capture begin/end (the markers the harness
 * queues after the call would be captured, not run), events recorded behind
 * the gate, and whether callbacks in independent streams serialize each other. */
#include "../harness/cts.h"
#include "../harness/family.h"
#include "../harness/kernels.h"

#include <cuda_runtime_api.h>
#include <stdatomic.h>

static const enum cts_api apis[] = {
    CTS_API_LAUNCH,           CTS_API_EVENT_RECORD,    CTS_API_STREAM_WAIT_EVENT,
    CTS_API_EVENT_QUERY,      CTS_API_STREAM_QUERY,    CTS_API_LAUNCH_HOST_FUNC,
    CTS_API_STREAM_ADD_CALLBACK, CTS_API_GRAPH_LAUNCH, CTS_API_STREAM_CREATE,
    CTS_API_STREAM_DESTROY,   CTS_API_EVENT_CREATE,    CTS_API_EVENT_DESTROY,
};

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t a = 0; a < sizeof apis / sizeof *apis; a++) {
        struct cts_case c = {.family = &cts_family_stream, .api = apis[a], .dir = CTS_DIR_NONE,
                             .mem = CTS_MEM_NONE, .size_idx = -1, .kind = CTS_KIND_NONE};
        n = cts_emit(&c, out, cap, n);
    }
    return out ? (n < cap ? n : cap) : n;
}

static void buffers(const struct cts_case *c, enum cts_mem *src, enum cts_mem *dst)
{
    (void)c;
    *src = *dst = CTS_MEM_NONE;
}

static atomic_uint host_calls;

static void CUDART_CB host_fn(void *arg)
{
    (void)arg;
    atomic_fetch_add(&host_calls, 1);
}

static void CUDART_CB callback(cudaStream_t s, cudaError_t status, void *arg)
{
    (void)s;
    (void)status;
    (void)arg;
    atomic_fetch_add(&host_calls, 1);
}

/* One kernel, captured once from a private stream and instantiated. */
static cudaGraphExec_t graph_exec;

static cudaError_t get_graph(cudaGraphExec_t *exec)
{
    if (!graph_exec) {
        cudaStream_t s;
        cudaGraph_t g;
        cudaError_t err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        if (err != cudaSuccess)
            return err;
        if ((err = cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed)) == cudaSuccess) {
            cudaError_t launch = cts_launch_sleep(s, 0);
            err = cudaStreamEndCapture(s, &g);
            if (launch != cudaSuccess)
                err = launch;
        }
        if (err == cudaSuccess) {
            err = cudaGraphInstantiate(&graph_exec, g, 0);
            cudaError_t d = cudaGraphDestroy(g);
            if (err == cudaSuccess)
                err = d;
        }
        cudaError_t d = cudaStreamDestroy(s);
        if (err != cudaSuccess)
            return err;
        if (d != cudaSuccess)
            return d;
    }
    *exec = graph_exec;
    return cudaSuccess;
}

/* A complete event: created, recorded on an idle device and waited for. */
static cudaError_t complete_event(cudaEvent_t *ev)
{
    cudaError_t err = cudaEventCreateWithFlags(ev, cudaEventDisableTiming);
    if (err == cudaSuccess && (err = cudaEventRecord(*ev, (cudaStream_t)0)) == cudaSuccess)
        err = cudaEventSynchronize(*ev);
    return err;
}

static int prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaGraphExec_t exec = NULL;
    cudaError_t err;
    switch (c->api) {
    case CTS_API_EVENT_RECORD:
        return cts_result(cudaEventCreateWithFlags((cudaEvent_t *)&s->handle, cudaEventDisableTiming), error);
    case CTS_API_STREAM_WAIT_EVENT:
    case CTS_API_EVENT_QUERY:
        return cts_result(complete_event((cudaEvent_t *)&s->handle), error);
    case CTS_API_GRAPH_LAUNCH:
        err = get_graph(&exec);
        s->handle = exec;
        return cts_result(err, error);
    case CTS_API_STREAM_DESTROY:
        return cts_result(cudaStreamCreate((cudaStream_t *)&s->handle), error);
    case CTS_API_EVENT_DESTROY:
        return cts_result(cudaEventCreate((cudaEvent_t *)&s->handle), error);
    default:
        return 0;
    }
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    struct cts_scratch *s = call->scratch;
    cudaStream_t st = (cudaStream_t)call->stream;
    cudaError_t err;
    switch (c->api) {
    case CTS_API_LAUNCH:
        return cts_result(cts_launch_sleep(st, 0), error);
    case CTS_API_EVENT_RECORD:
        return cts_result(cudaEventRecord((cudaEvent_t)s->handle, st), error);
    case CTS_API_STREAM_WAIT_EVENT:
        return cts_result(cudaStreamWaitEvent(st, (cudaEvent_t)s->handle, 0), error);
    case CTS_API_EVENT_QUERY:
        return cts_result(cudaEventQuery((cudaEvent_t)s->handle), error);
    case CTS_API_STREAM_QUERY:
        /* Not ready is an answer, not a failure: the stream may hold the gate. */
        err = cudaStreamQuery(st);
        if (err == cudaErrorNotReady) {
            (void)cudaGetLastError();
            err = cudaSuccess;
        }
        return cts_result(err, error);
    case CTS_API_LAUNCH_HOST_FUNC:
        return cts_result(cudaLaunchHostFunc(st, host_fn, NULL), error);
    case CTS_API_STREAM_ADD_CALLBACK:
        return cts_result(cudaStreamAddCallback(st, callback, NULL, 0), error);
    case CTS_API_GRAPH_LAUNCH:
        return cts_result(cudaGraphLaunch((cudaGraphExec_t)s->handle, st), error);
    case CTS_API_STREAM_CREATE:
        return cts_result(cudaStreamCreate((cudaStream_t *)&s->handle), error);
    case CTS_API_STREAM_DESTROY:
        err = cudaStreamDestroy((cudaStream_t)s->handle);
        if (err == cudaSuccess)
            s->handle = NULL;
        return cts_result(err, error);
    case CTS_API_EVENT_CREATE:
        return cts_result(cudaEventCreate((cudaEvent_t *)&s->handle), error);
    case CTS_API_EVENT_DESTROY:
        err = cudaEventDestroy((cudaEvent_t)s->handle);
        if (err == cudaSuccess)
            s->handle = NULL;
        return cts_result(err, error);
    default:
        *error = "(not a stream API)";
        return 1;
    }
}

static int cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess;
    switch (c->api) {
    case CTS_API_EVENT_RECORD: case CTS_API_STREAM_WAIT_EVENT: case CTS_API_EVENT_QUERY:
    case CTS_API_EVENT_CREATE: case CTS_API_EVENT_DESTROY:
        if (s->handle)
            err = cudaEventDestroy((cudaEvent_t)s->handle);
        break;
    case CTS_API_STREAM_CREATE: case CTS_API_STREAM_DESTROY:
        if (s->handle)
            err = cudaStreamDestroy((cudaStream_t)s->handle);
        break;
    default:
        break; /* the graph is built once and kept */
    }
    s->handle = NULL;
    return cts_result(err, error);
}

const struct cts_family cts_family_stream = {"stream", generate, buffers, NULL, issue, prepare, cleanup};
