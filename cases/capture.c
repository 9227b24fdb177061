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
 * and checks that no capture is left; nothing is held (no gate).
 *
 * To-graph cases (segment capture_global.to_graph.by_global, group
 * capture_to_graph): each lent call's Global case (below), the same call,
 * placement, op stream, observations and judge, except that the capture is
 * begun with cudaStreamBeginCaptureToGraph (runtime and driver 12.3, else
 * NOTSUPP) into a graph made for the repetition that already holds one empty
 * node, the capture's one dependency.  Its graph's nodes are the captured
 * ones (less that node); beside them, observed (evidence capture_to_graph):
 * whether cudaStreamEndCapture returned that graph, whether it still holds
 * the node, whether the node is its only root (the captured nodes depend
 * on it), and whether the graph had let go of a user object whose only
 * reference it held (the driver releasing the caller's graph: it does, after
 * an invalidated capture, on 580.159.04).  An outcome other than the plain
 * case's is a finding.
 *
 * Calls in a conditional node's body capture (variants body_if_<order>,
 * body_while_<order>), each end order, are cases/capture_body.c's (its header
 * says what they observe).
 *
 * This file: the cases, the lent calls and what the documentation says;
 * cases/capture_calls.c: the resources, the call, the second thread, the
 * set-up and the call's effect; cases/capture_rep.c: a repetition, measured;
 * cases/capture_body.c: conditional bodies; cases/capture.h: what they share. */
#include "capture.h"
#include "../harness/core/spec.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The calls: those that take a stream, then those that do not. */
const enum cts_api cap_stream_calls[] = {
    CTS_API_MEMCPY_ASYNC, CTS_API_MEMSET_ASYNC, CTS_API_LAUNCH, CTS_API_LAUNCH_HOST_FUNC, CTS_API_EVENT_RECORD,
    CTS_API_STREAM_WAIT_EVENT, CTS_API_STREAM_QUERY, CTS_API_STREAM_SYNCHRONIZE, CTS_API_MALLOC_ASYNC,
    CTS_API_FREE_ASYNC, CTS_API_STREAM_IS_CAPTURING, CTS_API_STREAM_GET_CAPTURE_INFO, CTS_API_MEMCPY_BATCH_ASYNC,
};
const enum cts_api cap_plain_calls[] = {
    CTS_API_EVENT_QUERY, CTS_API_EVENT_SYNCHRONIZE, CTS_API_DEVICE_SYNCHRONIZE, CTS_API_MALLOC, CTS_API_FREE,
    CTS_API_MEMCPY, CTS_API_MEMSET, CTS_API_MALLOC_HOST, CTS_API_HOST_REGISTER, CTS_API_MEM_GET_INFO,
    CTS_API_MEMPOOL_TRIM_TO, CTS_API_MEMPOOL_SET_ATTRIBUTE, CTS_API_CU_MODULE_LOAD_DATA,
};
/* Variant "captured": the event queried or waited for was recorded into the
 * capturing stream right before the call (else it was recorded, and is
 * complete, before the capture began). */
static const enum cts_api event_calls[] = {CTS_API_EVENT_QUERY, CTS_API_EVENT_SYNCHRONIZE};
/* ... and cudaStreamWaitEvent (no flag) of that event, on every stream
 * placement: on another stream a cross-stream join.  Where the stream then
 * captures (cudaStreamIsCapturing: active), the call is followed, in the
 * same thread, by a 1 MiB cudaMemsetAsync on it and (on another stream than
 * the capturing one) that stream's rejoin: an event recorded on it, waited
 * for by the capturing stream.  The memset's bytes say what became of the
 * stream: captured into the graph (the join: a node, done by the launch),
 * run at once, or lost. */
/* Variant "external": cudaStreamWaitEvent with cudaEventWaitExternal, for an
 * event recorded (and complete) before the capture began. */
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
static const enum cts_busy first_places[] = {CTS_BUSY_SAME, CTS_BUSY_NONBLOCKING, CTS_BUSY_THREAD_SAME};

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
/* ... and each lent call's Global cases again, begun into an existing graph (to_graph, the
 * header): one group, after every mode's. */

struct cap_lent_table cap_lent; /* the representatives (capture.h), chosen by lend() */

static int own_call(enum cts_api api)
{
    for (size_t i = 0; i < N_OF(cap_stream_calls); i++)
        if (cap_stream_calls[i] == api)
            return 1;
    for (size_t i = 0; i < N_OF(cap_plain_calls); i++)
        if (cap_plain_calls[i] == api)
            return 1;
    return 0;
}

static int lendable_memory(enum cts_mem m)
{
    return m == CTS_MEM_NONE || m == CTS_MEM_OWN || m == CTS_MEM_DEVICE || m == CTS_MEM_PINNED ||
           m == CTS_MEM_PAGEABLE;
}

/* A call its family refuses whatever stream it is given (a documented
 * rejection that does not follow from the stream: cudaEventElapsedTime of
 * an end event not yet complete, or of events made without timing) would
 * fail, or race, its warm-up outside any capture (lent_warm): not lent. */
static int refused_anywhere(const struct cts_case *x)
{
    struct cts_case nb = *x;
    const char *clause = NULL;
    if (cts_api_takes_stream(x->api))
        nb.op = CTS_OP_NONBLOCKING;
    return x->family->rejects && x->family->rejects(&nb, &clause) != NULL;
}

static int lendable(const struct cts_case *x)
{
    enum cts_mem src, dst;
    if (refused_anywhere(x))
        return 0;
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
    if (cap_lent.made)
        return;
    cap_lent.made = 1;
    for (size_t l = 0; l < cts_family_count; l++) {
        const struct cts_family *lender = cts_families[l];
        if (lender->measure)
            continue;
        size_t n = lender->generate(NULL, 0);
        struct cts_case *all = calloc(n ? n : 1, sizeof *all);
        struct cts_case *grown = realloc(cap_lent.v, (cap_lent.n + n + 1) * sizeof *cap_lent.v);
        if (!all || !grown) { /* the table is then short; `list` shows it */
            free(all);
            if (grown)
                cap_lent.v = grown;
            return;
        }
        cap_lent.v = grown;
        n = lender->generate(all, n);
        for (size_t i = 0; i < n; i++) {
            if (!lendable(&all[i]))
                continue;
            size_t k = 0;
            while (k < cap_lent.n && !same_key(&cap_lent.v[k], &all[i]))
                k++;
            if (k == cap_lent.n)
                cap_lent.v[cap_lent.n++] = all[i];
            else if (all[i].size_idx >= 0 && all[i].size > cap_lent.v[k].size)
                cap_lent.v[k] = all[i];
        }
        free(all);
    }
}

/* The representative a lent case was made from; NULL for this family's own calls. */
const struct cts_case *cap_lent_of(const struct cts_case *c)
{
    lend();
    for (size_t k = 0; k < cap_lent.n; k++) {
        const struct cts_case *x = &cap_lent.v[k];
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
                       int to_graph, enum cts_op op, enum cts_busy busy)
{
    if (out && n < cap) {
        out[n] = *x;
        out[n].family = &cts_family_capture;
        out[n].op = op;
        out[n].busy = busy;
        out[n].capture = out[n].capture_by = m;
        out[n].to_graph = to_graph;
        cts_case_make_id(&out[n]);
    }
    return n + 1;
}

/* Every lent call on both capturing streams, from each of its placements, in mode m. */
static size_t put_lents(struct cts_case *out, size_t cap, size_t n, enum cts_capture m, int to_graph)
{
    lend();
    for (size_t o = 0; o < N_OF(lent_capturing); o++)
        for (size_t k = 0; k < cap_lent.n; k++) {
            int takes = cts_api_takes_stream(cap_lent.v[k].api);
            const enum cts_busy *places = takes ? stream_places : plain_places;
            size_t np = takes ? N_OF(stream_places) : N_OF(plain_places);
            for (size_t p = 0; p < np; p++)
                n = put_lent(out, cap, n, &cap_lent.v[k], m, to_graph, lent_capturing[o], places[p]);
        }
    return n;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (int m = CTS_CAPTURE_GLOBAL; m < CTS_CAPTURE_COUNT; m++) {
        for (int by = CTS_CAPTURE_GLOBAL; by < CTS_CAPTURE_COUNT; by++)
            for (size_t o = 0; o < N_OF(capturing); o++) {
                for (size_t a = 0; a < N_OF(cap_stream_calls); a++)
                    for (size_t p = 0; p < N_OF(stream_places); p++)
                        n = put(out, cap, n, cap_stream_calls[a], NULL, m, by, capturing[o], stream_places[p]);
                for (size_t a = 0; a < N_OF(cap_plain_calls); a++)
                    for (size_t p = 0; p < N_OF(plain_places); p++)
                        n = put(out, cap, n, cap_plain_calls[a], NULL, m, by, capturing[o], plain_places[p]);
                for (size_t a = 0; a < N_OF(peer_calls); a++)
                    n = put(out, cap, n, peer_calls[a], NULL, m, by, capturing[o], CTS_BUSY_THREAD_PEER);
                for (size_t a = 0; a < N_OF(event_calls); a++)
                    for (size_t p = 0; p < N_OF(plain_places); p++)
                        n = put(out, cap, n, event_calls[a], CAPTURED, m, by, capturing[o], plain_places[p]);
                for (size_t p = 0; p < N_OF(stream_places); p++)
                    n = put(out, cap, n, CTS_API_STREAM_WAIT_EVENT, EXTERNAL, m, by, capturing[o], stream_places[p]);
                for (size_t p = 0; p < N_OF(stream_places); p++)
                    n = put(out, cap, n, CTS_API_STREAM_WAIT_EVENT, CAPTURED, m, by, capturing[o], stream_places[p]);
                for (size_t a = 0; a < N_OF(capture_calls); a++)
                    for (size_t p = 0; p < N_OF(capture_call_places); p++)
                        n = put(out, cap, n, capture_calls[a], NULL, m, by, capturing[o], capture_call_places[p]);
                for (size_t p = 0; p < N_OF(first_places); p++)
                    n = put(out, cap, n, CTS_API_LAUNCH, FIRST, m, by, capturing[o], first_places[p]);
            }
        n = put_lents(out, cap, n, m, 0); /* the lent calls, in the capture's own mode (each group contiguous) */
        n = cap_body_generate(out, cap, n, m); /* conditional bodies: cases/capture_body.c */
    }
    return put_lents(out, cap, n, CTS_CAPTURE_GLOBAL, 1); /* begun into an existing graph: its own group */
}

/* ---- what the documentation says --------------------------------------------- */

#define RT_STREAM "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html"
#define PG_GRAPHS "https://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/cuda-graphs.html"
static const struct cts_clause clauses[] = {
    {"RT-CAPTURE-BEGIN", "Runtime API, Stream Management, cudaStreamBeginCapture",
     "When a stream is in capture mode, all operations pushed into the stream will not be executed, but will "
     "instead be captured into a graph, which will be returned via cudaStreamEndCapture.", RT_STREAM, NULL},
    {"RT-CAPTURE-TO-GRAPH", "Runtime API, Stream Management, cudaStreamBeginCaptureToGraph",
     "Begins graph capture on a stream to an existing graph. [...] When a stream is in capture mode, all "
     "operations pushed into the stream will not be executed, but will instead be captured into graph, which "
     "will be returned via cudaStreamEndCapture.", RT_STREAM, NULL},
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
    {"PG-CAPTURE-CROSS-STREAM", "CUDA Programming Guide, CUDA Graphs, Cross-stream Dependencies and Events",
     "When a captured event is waited on by a stream, it places the stream in capture mode if it is not already, "
     "and the next item in the stream will have additional dependencies on the nodes in the captured event. The "
     "two streams are then being captured to the same capture graph.", PG_GRAPHS, NULL},
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
static const char *begin_clause(const struct cts_case *c) /* the reference of the function that began it */
{
    return c->to_graph ? "RT-CAPTURE-TO-GRAPH" : "RT-CAPTURE-BEGIN";
}

static void lent_judge(struct cts_judge *j, const struct cts_case *x)
{
    const struct cts_case *c = j->c;
    int blocking = c->op != CTS_OP_NONBLOCKING;
    int legacy = c->busy == CTS_BUSY_LEGACY || c->busy == CTS_BUSY_THREAD_LEGACY;
    if (cts_api_takes_stream(c->api) && on_capturing(c)) {
        if (c->api == CTS_API_STREAM_ATTACH_MEM_ASYNC)
            cts_judge_add(j, "PG-CAPTURE-UNSUPPORTED-API", CTS_ABOUT_CAPTURED, CTS_PRED_GUARANTEED_NOT);
        else
            cts_judge_add(j, begin_clause(c), CTS_ABOUT_ACCEPTED_CAPTURED, CTS_PRED_GUARANTEED);
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

/* The family's own calls queued on, or made about, the capturing stream:
 * what capture does with each, judged where it is made on the capturing
 * stream; `last`: no other clause speaks of it (not even the legacy
 * stream's use: cudaMemcpyBatchAsync is refused there whatever captures,
 * copy.c's rejection). */
static const struct {
    enum cts_api api;
    const char *clause;
    enum cts_about about;
    enum cts_pred pred;
    int last;
} on_capturing_rules[] = {
    {CTS_API_MEMCPY_ASYNC, "RT-CAPTURE-BEGIN", CTS_ABOUT_CAPTURED, CTS_PRED_GUARANTEED, 0},
    {CTS_API_MEMSET_ASYNC, "RT-CAPTURE-BEGIN", CTS_ABOUT_CAPTURED, CTS_PRED_GUARANTEED, 0},
    {CTS_API_LAUNCH, "RT-CAPTURE-BEGIN", CTS_ABOUT_CAPTURED, CTS_PRED_GUARANTEED, 0},
    {CTS_API_LAUNCH_HOST_FUNC, "RT-CAPTURE-BEGIN", CTS_ABOUT_CAPTURED, CTS_PRED_GUARANTEED, 0},
    {CTS_API_STREAM_QUERY, "PG-CAPTURE-SYNC", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED, 0},
    {CTS_API_STREAM_SYNCHRONIZE, "PG-CAPTURE-SYNC", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED, 0},
    {CTS_API_STREAM_WAIT_EVENT, "PG-CAPTURE-EXTERNAL-WAIT", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED, 0},
    {CTS_API_MEMCPY_BATCH_ASYNC, "PG-CAPTURE-UNSUPPORTED-API", CTS_ABOUT_CAPTURED, CTS_PRED_MAY, 1},
};

/* The family's other calls: 1 where the legacy stream's use may be judged
 * too, 0 where nothing more speaks of the call. */
static int own_call_judge(struct cts_judge *j, int blocking, int legacy)
{
    const struct cts_case *c = j->c;
    switch (c->api) {
    case CTS_API_DEVICE_SYNCHRONIZE:
        cts_judge_add(j, "PG-CAPTURE-SYNC", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
        return 1;
    case CTS_API_STREAM_END_CAPTURE: /* ends it from its thread; from another, only a Relaxed capture */
        if (c->busy == CTS_BUSY_SAME || (c->busy == CTS_BUSY_THREAD_SAME && c->capture == CTS_CAPTURE_RELAXED))
            cts_judge_add(j, "RT-CAPTURE-END", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
        else if (c->busy == CTS_BUSY_THREAD_SAME)
            cts_judge_add(j, "RT-CAPTURE-END-THREAD", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED_NOT);
        return 1;
    case CTS_API_STREAM_IS_CAPTURING:
        if (legacy && blocking)
            cts_judge_add(j, "RT-CAPTURE-STATUS-LEGACY", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED_NOT);
        return 0;
    case CTS_API_STREAM_GET_CAPTURE_INFO: /* on the legacy stream it returns ...Implicit; invalidation unsaid */
        return 0;
    case CTS_API_MEMCPY: case CTS_API_MEMSET: /* synchronous: the legacy stream, in the legacy build */
        if (blocking && !j->o->per_thread)
            cts_judge_add(j, "PG-CAPTURE-LEGACY-USE", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
        return 1;
    case CTS_API_MALLOC:
        cts_judge_add(j, c->capture_by == CTS_CAPTURE_GLOBAL         ? "RT-CAPTURE-GLOBAL"
                         : c->capture_by == CTS_CAPTURE_THREAD_LOCAL ? "RT-CAPTURE-THREADLOCAL"
                                                                     : "RT-CAPTURE-RELAXED",
                      CTS_ABOUT_CAPTURE_ENDED, malloc_prohibited(c) ? CTS_PRED_GUARANTEED : CTS_PRED_GUARANTEED_NOT);
        return 1;
    default:
        return 1;
    }
}

/* The family's own calls (those lent: lent_judge): 1 where the legacy
 * stream's use may be judged too. */
static int call_judge(struct cts_judge *j, int blocking, int legacy)
{
    const struct cts_case *c = j->c;
    for (size_t i = 0; i < sizeof on_capturing_rules / sizeof *on_capturing_rules; i++) {
        if (on_capturing_rules[i].api != c->api)
            continue;
        if (on_capturing(c))
            cts_judge_add(j, on_capturing_rules[i].clause, on_capturing_rules[i].about, on_capturing_rules[i].pred);
        return !on_capturing_rules[i].last;
    }
    return own_call_judge(j, blocking, legacy);
}

static void judge(struct cts_judge *j)
{
    const struct cts_case *c = j->c;
    int blocking = c->op != CTS_OP_NONBLOCKING; /* the per-thread default stream is not non-blocking */
    const struct cts_case *x = cap_lent_of(c);
    if (x) {
        lent_judge(j, x);
        return;
    }
    if (cap_is_body(c)) { /* in a body capture: the call's own rules; a legal one's, ended in the usual order */
        if (!cap_body_legal(c->api) || strstr(c->variant, "end_body_first"))
            (void)call_judge(j, blocking, 0);
        return;
    }
    if (c->variant && !strcmp(c->variant, CAPTURED) && c->api == CTS_API_STREAM_WAIT_EVENT) {
        /* a stream joined: the memset after the wait is captured (not the legacy stream: its use, below) */
        if (c->busy != CTS_BUSY_LEGACY && c->busy != CTS_BUSY_THREAD_LEGACY)
            cts_judge_add(j, "PG-CAPTURE-CROSS-STREAM", CTS_ABOUT_CAPTURED, CTS_PRED_GUARANTEED);
        else if (blocking)
            cts_judge_add(j, "PG-CAPTURE-LEGACY-USE", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
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
    if (call_judge(j, blocking, legacy) && legacy && blocking)
        cts_judge_add(j, "PG-CAPTURE-LEGACY-USE", CTS_ABOUT_CAPTURE_ENDED, CTS_PRED_GUARANTEED);
}

/* cudaStreamBeginCaptureToGraph: runtime and driver 12.3. */
static int to_graph_needs(char *why, size_t len)
{
#if CUDART_VERSION < 12030
    snprintf(why, len, "not in runtime %d.%d: cudaStreamBeginCaptureToGraph appeared in 12.3", CUDART_VERSION / 1000,
             CUDART_VERSION % 1000 / 10);
    return -1;
#else
    return cts_need_driver_version(12030, "cudaStreamBeginCaptureToGraph", why, len);
#endif
}

/* A lent call: what its own family needs, and a to-graph case cudaStreamBeginCaptureToGraph. */
static int lent_needs(const struct cts_case *c, char *why, size_t len)
{
    const struct cts_case *x = cap_lent_of(c);
    if (x && x->family->needs && x->family->needs(x, why, len))
        return -1;
    return c->to_graph ? to_graph_needs(why, len) : 0;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    int count = 0;
    if (cap_is_body(c))
        return cap_body_needs(c, why, len);
    if (c->busy == CTS_BUSY_THREAD_PEER && (cudaGetDeviceCount(&count) != cudaSuccess || count < 2)) {
        (void)cudaGetLastError();
        snprintf(why, len, "one device: no other for the second thread to call on (%d visible)", count);
        return -1;
    }
    if (lent_needs(c, why, len))
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
    .name = "capture", .generate = generate, .needs = needs, .measure = cap_measure,
    .clauses = clauses, .judge = judge, .judges_alone = 1,
};
