/* The stream family: kernel launches, events, callbacks, graph launches, and
 * stream and event creation and destruction, while other work is held.
 *
 * Events the plain calls wait on or query are recorded before the gate, on an idle
 * device, so they are complete: what is measured is the call itself.  The
 * graph launched is one captured kernel, built once.  Host functions and
 * callbacks only count that they ran (they make no CUDA call).
 *
 * Stream capture: cudaStreamBeginCapture (relaxed mode) on the op stream,
 * with after() ending the capture so that the markers the engine queues after
 * the call run instead of being captured; cudaStreamEndCapture, with before()
 * beginning a relaxed capture on the op stream and capturing one sleep-kernel
 * launch.  cleanup() destroys the captured graph (and ends a capture a failed
 * call left open).  Capture of the legacy stream is not allowed: on it,
 * cudaStreamBeginCapture is tested as a rejection (RT-CAPTURE-LEGACY), and
 * cudaStreamEndCapture, which needs a capture begun there, is NOTSUPP.
 *
 * Synchronize calls, plain: cudaStreamSynchronize of the op stream;
 * cudaEventSynchronize of an event before() records on the op stream (the op
 * stream is implied: stream 0); cudaDeviceSynchronize.  (The alloc family
 * has the same calls with a pool's release threshold, variants pool_release_*.)
 *
 * Events recorded right before the call, behind the gate (variant pending):
 * event_query.pending queries, and event_synchronize waits for, an event
 * before() records on the op stream (implied: stream 0);
 * stream_wait_event.pending makes the op stream wait for an event before()
 * records on cudaStreamLegacy, so the op stream waits for whatever the legacy
 * stream waits for (a gate on it, on a blocking stream or on a per-thread
 * default stream) and for nothing when the gate is on a non-blocking stream.
 *
 * Events not yet recorded, or recorded again, when the call is made (issue
 * 41, cases/stream_event.c): the inference-server race, cudaStreamWaitEvent
 * issued before the event is ever recorded, or before it is recorded again.
 * The reference has the call wait for the event's state at the time of the
 * call: an event never recorded is an empty set of work, and later records
 * do not change it.  stream_wait_event.never_recorded waits for an event
 * never recorded; recorded_after for one never recorded before the call,
 * which after() records on cudaStreamLegacy, behind the held work;
 * rerecorded_after for one complete before the gate, which after() records
 * again there.  Work queued after the call on the op stream should not be
 * held.  The control runs after() too, so a hold that the record itself
 * brings (an op stream that synchronizes with the legacy stream) is not the
 * call's: the clean question is a non-blocking op stream beside work held in
 * a blocking one.  cudaEventElapsedTime (event_elapsed_time) of two events
 * complete before the gate, plain; pending, its end event recorded by
 * before() on cudaStreamLegacy behind the held work (NOTSUPP where the work
 * is held on a non-blocking stream); disable_timing, two complete events
 * made with cudaEventDisableTiming.  The last two are documented rejections
 * (cudaErrorNotReady, cudaErrorInvalidResourceHandle): does the refusal wait?
 *
 * Graphs, beside cudaGraphLaunch: cudaGraphInstantiate of a captured graph
 * (prepare captures it; cleanup destroys both), cudaGraphUpload of an
 * executable graph never launched or uploaded (prepare instantiates it), and
 * cudaGraphExecUpdate of one with a graph of the same topology whose kernel
 * has another argument (prepare makes both).  Each graph is one sleep-kernel
 * launch of 0 ns, captured from a private non-blocking stream.
 *
 * Busy work from a second host thread (busy_thread_*) for every call, and,
 * for a kernel launch, cudaLaunchHostFunc and cudaStreamAddCallback, a host
 * function as the held work (busy_hostfn, on another non-blocking stream):
 * its control says whether a host function holds kernels in other streams,
 * and the cases whether a second host function (or a kernel) waits for it. */
#include "stream_family.h"
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"

#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static const enum cts_api apis[] = {
    CTS_API_LAUNCH,           CTS_API_EVENT_RECORD,    CTS_API_STREAM_WAIT_EVENT,
    CTS_API_EVENT_QUERY,      CTS_API_STREAM_QUERY,    CTS_API_LAUNCH_HOST_FUNC,
    CTS_API_STREAM_ADD_CALLBACK, CTS_API_GRAPH_LAUNCH, CTS_API_STREAM_CREATE,
    CTS_API_STREAM_DESTROY,   CTS_API_EVENT_CREATE,    CTS_API_EVENT_DESTROY,
};

/* Added later, after the first ones so that those keep their places. */
static const struct {
    enum cts_api api;
    const char *variant;
} more[] = {
    {CTS_API_STREAM_BEGIN_CAPTURE, NULL},
    {CTS_API_STREAM_END_CAPTURE, NULL},
    {CTS_API_STREAM_SYNCHRONIZE, NULL},
    {CTS_API_EVENT_SYNCHRONIZE, NULL},
    {CTS_API_DEVICE_SYNCHRONIZE, NULL},
    {CTS_API_EVENT_QUERY, "pending"},
    {CTS_API_STREAM_WAIT_EVENT, "pending"},
    {CTS_API_GRAPH_INSTANTIATE, NULL},
    {CTS_API_GRAPH_UPLOAD, NULL},
    {CTS_API_GRAPH_EXEC_UPDATE, NULL},
    /* Issue 41: events not yet recorded, or recorded again, when the call is
     * made; elapsed time (cases/stream_event.c). */
    {CTS_API_STREAM_WAIT_EVENT, "never_recorded"},
    {CTS_API_STREAM_WAIT_EVENT, "recorded_after"},
    {CTS_API_STREAM_WAIT_EVENT, "rerecorded_after"},
    {CTS_API_EVENT_ELAPSED_TIME, NULL},
    {CTS_API_EVENT_ELAPSED_TIME, "pending"},
    {CTS_API_EVENT_ELAPSED_TIME, "disable_timing"},
};

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t a = 0; a < sizeof apis / sizeof *apis; a++) {
        struct cts_case c = {.family = &cts_family_stream, .api = apis[a], .dir = CTS_DIR_NONE,
                             .mem = CTS_MEM_NONE, .size_idx = -1, .kind = CTS_KIND_NONE};
        n = cts_emit(&c, out, cap, n);
        n = cts_emit_threads(&c, out, cap, n);
        /* Held by a host function on another stream: does a kernel, or a
         * second host function, wait for it? */
        if (c.api == CTS_API_LAUNCH || c.api == CTS_API_LAUNCH_HOST_FUNC ||
            c.api == CTS_API_STREAM_ADD_CALLBACK)
            n = cts_emit_hostfn(&c, out, cap, n);
    }
    for (size_t a = 0; a < sizeof more / sizeof *more; a++) {
        struct cts_case c = {.family = &cts_family_stream, .api = more[a].api,
                             .variant = more[a].variant, .dir = CTS_DIR_NONE, .mem = CTS_MEM_NONE,
                             .size_idx = -1, .kind = CTS_KIND_NONE};
        n = cts_emit(&c, out, cap, n);
        n = cts_emit_threads(&c, out, cap, n);
    }
    return out ? (n < cap ? n : cap) : n;
}

/* An event recorded by before(), behind whatever the gate holds. */
static int pending(const struct cts_case *c)
{
    return c->api == CTS_API_EVENT_SYNCHRONIZE || (c->variant && strcmp(c->variant, "pending") == 0);
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    if (stream_event_case(c))
        return stream_event_needs(c, why, len);
    if (c->api == CTS_API_STREAM_END_CAPTURE && cts_op_is_legacy(c->op)) {
        snprintf(why, len, "the op stream is the legacy stream, and capture may not be initiated on "
                           "cudaStreamLegacy (cudaStreamBeginCapture), so there is none to end");
        return -1;
    }
    return 0;
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

/* A graph of one sleep-kernel launch (of ns nanoseconds), captured from a
 * private non-blocking stream. */
static cudaError_t capture_graph(cudaGraph_t *g, unsigned long long ns)
{
    cudaStream_t s;
    cudaError_t err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    *g = NULL;
    if (err != cudaSuccess)
        return err;
    if ((err = cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed)) == cudaSuccess) {
        cudaError_t launch = cts_launch_sleep(s, ns);
        err = cudaStreamEndCapture(s, g);
        if (launch != cudaSuccess)
            err = launch;
    }
    cudaError_t d = cudaStreamDestroy(s);
    return err != cudaSuccess ? err : d;
}

/* That graph, instantiated (and the graph destroyed). */
static cudaError_t instantiate_graph(cudaGraphExec_t *exec, unsigned long long ns)
{
    cudaGraph_t g;
    cudaError_t err = capture_graph(&g, ns);
    if (err == cudaSuccess)
        err = cudaGraphInstantiate(exec, g, 0);
    if (g) {
        cudaError_t d = cudaGraphDestroy(g);
        if (err == cudaSuccess)
            err = d;
    }
    return err;
}

/* The graph cudaGraphLaunch launches: instantiated once and kept. */
static cudaGraphExec_t graph_exec;

static cudaError_t get_graph(cudaGraphExec_t *exec)
{
    cudaError_t err = graph_exec ? cudaSuccess : instantiate_graph(&graph_exec, 0);
    *exec = graph_exec;
    return err;
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
    if (stream_event_case(c))
        return stream_event_prepare(c, s, error);
    if (pending(c))
        return cts_result(cudaEventCreateWithFlags((cudaEvent_t *)&s->handle, cudaEventDisableTiming), error);
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
    case CTS_API_GRAPH_INSTANTIATE: /* extra: the graph; handle: what the call instantiates */
        return cts_result(capture_graph((cudaGraph_t *)&s->extra, 0), error);
    case CTS_API_GRAPH_UPLOAD: /* handle: the executable graph */
        return cts_result(instantiate_graph((cudaGraphExec_t *)&s->handle, 0), error);
    case CTS_API_GRAPH_EXEC_UPDATE: /* handle: instantiated from a 0 ns graph; extra: a 1 ns one */
        err = instantiate_graph((cudaGraphExec_t *)&s->handle, 0);
        if (err == cudaSuccess)
            err = capture_graph((cudaGraph_t *)&s->extra, 1);
        return cts_result(err, error);
    case CTS_API_STREAM_DESTROY:
        return cts_result(cudaStreamCreate((cudaStream_t *)&s->handle), error);
    case CTS_API_EVENT_DESTROY:
        return cts_result(cudaEventCreate((cudaEvent_t *)&s->handle), error);
    default:
        return 0;
    }
}

/* Capture cases: scratch value = 1 while a capture this case began may be
 * open, extra = the stream it is on, handle = the captured graph. */
static cudaError_t end_capture(struct cts_scratch *s)
{
    cudaGraph_t g = NULL;
    cudaError_t err = cudaStreamEndCapture((cudaStream_t)s->extra, &g);
    if (err == cudaSuccess || err == cudaErrorStreamCaptureInvalidated)
        s->value = 0; /* the capture is over either way */
    if (g)
        s->handle = g;
    return err;
}

/* Right before the call, while the gate may hold work: record the event the
 * call queries or waits for, or begin the capture the call ends. */
static int before(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error)
{
    cudaStream_t st = (cudaStream_t)stream;
    cudaError_t err;
    if (stream_event_case(c))
        return stream_event_before(c, s, stream, error);
    if (c->api == CTS_API_STREAM_END_CAPTURE) {
        if ((err = cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed)) != cudaSuccess)
            return cts_result(err, error);
        s->value = 1;
        s->extra = stream;
        return cts_result(cts_launch_sleep(st, 0), error);
    }
    if (!pending(c))
        return 0;
    if (c->api == CTS_API_STREAM_WAIT_EVENT) /* the op stream will wait for the legacy stream */
        st = cudaStreamLegacy;
    return cts_result(cudaEventRecord((cudaEvent_t)s->handle, st), error);
}

/* Right after the call: end the capture it began, so that the engine's
 * markers after it are run, not captured; or record the event waited for
 * (cases/stream_event.c). */
static int after(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error)
{
    if (stream_event_case(c))
        return stream_event_after(c, s, stream, error);
    if (c->api != CTS_API_STREAM_BEGIN_CAPTURE || !s->value)
        return 0;
    return cts_result(end_capture(s), error);
}

/* The queries: not ready is an answer, not a failure, for a stream that
 * may hold the gate and for a pending event (recorded behind it). */
static int issue_query(const struct cts_case *c, cudaStream_t st, struct cts_scratch *s, const char **error)
{
    cudaError_t err = c->api == CTS_API_STREAM_QUERY ? cudaStreamQuery(st) : cudaEventQuery((cudaEvent_t)s->handle);
    if (err == cudaErrorNotReady && (c->api == CTS_API_STREAM_QUERY || c->variant)) {
        (void)cudaGetLastError();
        err = cudaSuccess;
    }
    return cts_result(err, error);
}

/* The graph calls, on the graph and executable graph prepare() made. */
static int issue_graph(const struct cts_case *c, cudaStream_t st, struct cts_scratch *s, const char **error)
{
    cudaGraphExecUpdateResultInfo info;
    switch (c->api) {
    case CTS_API_GRAPH_LAUNCH:
        return cts_result(cudaGraphLaunch((cudaGraphExec_t)s->handle, st), error);
    case CTS_API_GRAPH_INSTANTIATE:
        return cts_result(cudaGraphInstantiate((cudaGraphExec_t *)&s->handle, (cudaGraph_t)s->extra, 0),
                          error);
    case CTS_API_GRAPH_UPLOAD:
        return cts_result(cudaGraphUpload((cudaGraphExec_t)s->handle, st), error);
    default: /* CTS_API_GRAPH_EXEC_UPDATE */
        return cts_result(cudaGraphExecUpdate((cudaGraphExec_t)s->handle, (cudaGraph_t)s->extra, &info), error);
    }
}

/* Creation and destruction of a stream or an event (destroyed: cleared in the scratch). */
static int issue_lifetime(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err;
    switch (c->api) {
    case CTS_API_STREAM_CREATE: return cts_result(cudaStreamCreate((cudaStream_t *)&s->handle), error);
    case CTS_API_EVENT_CREATE: return cts_result(cudaEventCreate((cudaEvent_t *)&s->handle), error);
    case CTS_API_STREAM_DESTROY: err = cudaStreamDestroy((cudaStream_t)s->handle); break;
    default: err = cudaEventDestroy((cudaEvent_t)s->handle); break; /* CTS_API_EVENT_DESTROY */
    }
    if (err == cudaSuccess)
        s->handle = NULL;
    return cts_result(err, error);
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    struct cts_scratch *s = call->scratch;
    cudaStream_t st = (cudaStream_t)call->stream;
    cudaError_t err;
    if (stream_event_case(c))
        return stream_event_issue(c, call, error);
    switch (c->api) {
    case CTS_API_LAUNCH:
        return cts_result(cts_launch_sleep(st, 0), error);
    case CTS_API_EVENT_RECORD:
        return cts_result(cudaEventRecord((cudaEvent_t)s->handle, st), error);
    case CTS_API_STREAM_WAIT_EVENT:
        return cts_result(cudaStreamWaitEvent(st, (cudaEvent_t)s->handle, 0), error);
    case CTS_API_EVENT_QUERY: case CTS_API_STREAM_QUERY:
        return issue_query(c, st, s, error);
    case CTS_API_LAUNCH_HOST_FUNC:
        return cts_result(cudaLaunchHostFunc(st, host_fn, NULL), error);
    case CTS_API_STREAM_ADD_CALLBACK:
        return cts_result(cudaStreamAddCallback(st, callback, NULL, 0), error);
    case CTS_API_GRAPH_LAUNCH: case CTS_API_GRAPH_INSTANTIATE: case CTS_API_GRAPH_UPLOAD:
    case CTS_API_GRAPH_EXEC_UPDATE:
        return issue_graph(c, st, s, error);
    case CTS_API_STREAM_CREATE: case CTS_API_STREAM_DESTROY: case CTS_API_EVENT_CREATE: case CTS_API_EVENT_DESTROY:
        return issue_lifetime(c, s, error);
    case CTS_API_STREAM_BEGIN_CAPTURE:
        err = cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed);
        if (err == cudaSuccess) {
            s->value = 1;
            s->extra = call->stream;
        }
        return cts_result(err, error);
    case CTS_API_STREAM_END_CAPTURE:
        return cts_result(end_capture(s), error);
    case CTS_API_STREAM_SYNCHRONIZE:
        return cts_result(cudaStreamSynchronize(st), error);
    case CTS_API_EVENT_SYNCHRONIZE:
        return cts_result(cudaEventSynchronize((cudaEvent_t)s->handle), error);
    case CTS_API_DEVICE_SYNCHRONIZE:
        return cts_result(cudaDeviceSynchronize(), error);
    default:
        *error = "(not a stream API)";
        return 1;
    }
}

static int cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess;
    if (stream_event_case(c))
        return stream_event_cleanup(c, s, error);
    switch (c->api) {
    case CTS_API_EVENT_RECORD: case CTS_API_STREAM_WAIT_EVENT: case CTS_API_EVENT_QUERY:
    case CTS_API_EVENT_CREATE: case CTS_API_EVENT_DESTROY: case CTS_API_EVENT_SYNCHRONIZE:
        if (s->handle)
            err = cudaEventDestroy((cudaEvent_t)s->handle);
        break;
    case CTS_API_STREAM_BEGIN_CAPTURE: case CTS_API_STREAM_END_CAPTURE:
        if (s->value) { /* a capture left open (the call or after() failed): end it */
            enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
            err = cudaStreamIsCapturing((cudaStream_t)s->extra, &st);
            if (err == cudaSuccess && st != cudaStreamCaptureStatusNone)
                err = end_capture(s);
            s->value = 0;
        }
        if (s->handle) {
            cudaError_t d = cudaGraphDestroy((cudaGraph_t)s->handle);
            if (err == cudaSuccess)
                err = d;
        }
        s->extra = NULL;
        break;
    case CTS_API_STREAM_CREATE: case CTS_API_STREAM_DESTROY:
        if (s->handle)
            err = cudaStreamDestroy((cudaStream_t)s->handle);
        break;
    case CTS_API_GRAPH_INSTANTIATE: case CTS_API_GRAPH_UPLOAD: case CTS_API_GRAPH_EXEC_UPDATE:
        if (s->handle)
            err = cudaGraphExecDestroy((cudaGraphExec_t)s->handle);
        if (s->extra) {
            cudaError_t d = cudaGraphDestroy((cudaGraph_t)s->extra);
            if (err == cudaSuccess)
                err = d;
        }
        s->extra = NULL;
        break;
    default:
        break; /* the graph is built once and kept */
    }
    s->handle = NULL;
    return cts_result(err, error);
}

/* "Capture may not be initiated if stream is cudaStreamLegacy": the
 * reference names no error.  cudaEventElapsedTime's: cases/stream_event.c. */
static const char *rejects(const struct cts_case *c, const char **clause)
{
    if (stream_event_case(c))
        return stream_event_rejects(c, clause);
    if (c->api != CTS_API_STREAM_BEGIN_CAPTURE || !cts_op_is_legacy(c->op))
        return NULL;
    *clause = "RT-CAPTURE-LEGACY";
    return "";
}

/* The cheap commands (a launch, an event record) and queries, plain. */
static int cheap(const struct cts_case *c)
{
    return !c->variant && (c->api == CTS_API_LAUNCH || c->api == CTS_API_EVENT_RECORD ||
                           c->api == CTS_API_EVENT_QUERY || c->api == CTS_API_STREAM_QUERY);
}

const struct cts_family cts_family_stream = {
    .name = "stream", .generate = generate, .needs = needs, .issue = issue,
    .prepare = prepare, .cleanup = cleanup, .before = before, .after = after, .rejects = rejects,
    .clauses = stream_clauses, .judge = stream_judge, .cheap = cheap,
};
