/* A repetition of the capture family (cases/capture.c says what the family
 * measures and why): the captured graph's facts, the lent call's set-up and
 * clean-up, the capture begun (a to-graph case's into a graph of its own) and
 * ended, one repetition, and the measurement. */
#define _GNU_SOURCE
#include "capture.h"

#include "../harness/core/latch.h" /* cts_now_us */

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* A to-graph case's stages (a crash names where it happened); none for a plain capture. */
static void to_graph_stage(const char *stage)
{
    if (cap_f.into)
        cts_case_stage(stage);
}

/* The captured graph: its nodes, and the effect of one launch of it. */
int cap_node_types(cudaGraph_t g, cudaGraphNode_t skip, unsigned *types, size_t *n, size_t *kernels)
{
    cudaGraphNode_t nodes[16];
    *n = *kernels = 0;
    SETUP(cudaGraphGetNodes(g, NULL, n));
    size_t k = *n < 16 ? *n : 16;
    if (k)
        SETUP(cudaGraphGetNodes(g, nodes, &k));
    for (size_t i = 0; i < k; i++) {
        enum cudaGraphNodeType t;
        if (skip && nodes[i] == skip) {
            --*n;
            continue;
        }
        SETUP(cudaGraphNodeGetType(nodes[i], &t));
        *types |= 1u << ((unsigned)t & 31u);
        *kernels += t == cudaGraphNodeTypeKernel;
    }
    return 0;
}

static int graph_facts(enum cts_api api, cudaGraph_t g, struct cts_capture_obs *o)
{
    size_t n, kernels;
    if (cap_node_types(g, cap_f.into_node, &o->nodes, &n, &kernels)) /* a to-graph case's captured nodes */
        return -1;
    o->node_count = (int)n;
    int seen;
    if (cap_effect(api, &seen))
        return -1;
    if (!n || (seen < 0 && !cap_f.lent)) /* a lent call's graph is launched anyway: what it allocated then exists */
        return 0;
    if (cap_reset())
        return -1;
    to_graph_stage("the graph cudaStreamEndCapture returned, launched");
    cudaGraphExec_t x;
    SETUP(cudaGraphInstantiate(&x, g, 0));
    SETUP(cudaGraphLaunch(x, cap_f.quiet));
    SETUP(cudaStreamSynchronize(cap_f.quiet));
    SETUP(cudaGraphExecDestroy(x));
    return cap_effect(api, &o->launched);
}

static cudaStream_t place(const struct cts_case *c, cudaStream_t cap)
{
    switch (c->busy) {
    case CTS_BUSY_BLOCKING: return cap_f.sib_blocking;
    case CTS_BUSY_NONBLOCKING: return cap_f.sib_nonblocking;
    case CTS_BUSY_LEGACY: return cudaStreamLegacy;
    case CTS_BUSY_PERTHREAD: return cudaStreamPerThread;
    default: return cap;
    }
}

static int from_worker(enum cts_busy b)
{
    return b == CTS_BUSY_THREAD_SAME || b == CTS_BUSY_THREAD_LEGACY || b == CTS_BUSY_THREAD_PERTHREAD ||
           b == CTS_BUSY_THREAD_PEER;
}

/* ---- whether the driver let go of a graph (a user object's destructor), for the to-graph
 * cases below and the conditional bodies (cases/capture_body.c) ---------------------------- */

/* The highest serial of a graph (cap_user_object) whose user object was released: raised by its
 * destructor, which the driver may run on a thread of its own, at any time after the release (a
 * serial, not a flag, so that an earlier repetition's late destructor is not taken for this one's,
 * nor undoes it). */
static atomic_uint cap_released;

static void CUDART_CB user_object_released(void *serial)
{
    unsigned s = (unsigned)(uintptr_t)serial, had = atomic_load(&cap_released);
    while (had < s && !atomic_compare_exchange_weak(&cap_released, &had, s))
        ;
}

cudaError_t cap_user_object(cudaGraph_t g, unsigned *serial)
{
    static unsigned last;
    cudaUserObject_t obj;
    *serial = ++last; /* from 1: 0 is "none released yet" */
    cudaError_t err = cudaUserObjectCreate(&obj, (void *)(uintptr_t)*serial, user_object_released, 1,
                                           cudaUserObjectNoDestructorSync);
    if (err == cudaSuccess && (err = cudaGraphRetainUserObject(g, obj, 1, cudaGraphUserObjectMove)) != cudaSuccess)
        (void)cudaUserObjectRelease(obj, 1);
    return err;
}

int cap_user_object_released(unsigned serial, int wait)
{
    double t0 = cts_now_us();
    while (atomic_load(&cap_released) < serial) {
        if (!wait || cts_now_us() - t0 > 10000.0)
            return 0;
        nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);
    }
    return 1;
}

/* ---- a capture begun into an existing graph (to_graph) ------------------------- */

/* The capture begun: a plain case's with cudaStreamBeginCapture; a to-graph case's with
 * cudaStreamBeginCaptureToGraph into a graph made for the repetition that holds one empty node,
 * the capture's one dependency, and a user object (above) (needs() made it NOTSUPP on a runtime
 * before 12.3). */
static cudaError_t begin_capture(const struct cts_case *c, cudaStream_t s)
{
    enum cudaStreamCaptureMode mode = cap_capture_modes[c->capture];
    if (!c->to_graph)
        return cudaStreamBeginCapture(s, mode);
#if CUDART_VERSION >= 12030
    cudaError_t err = cudaGraphCreate(&cap_f.into, 0);
    if (err != cudaSuccess)
        cap_f.into = NULL;
    else if ((err = cudaGraphAddEmptyNode(&cap_f.into_node, cap_f.into, NULL, 0)) == cudaSuccess)
        err = cap_user_object(cap_f.into, &cap_f.into_gen);
    if (err == cudaSuccess) {
        to_graph_stage("the capture begun into the repetition's graph (cudaStreamBeginCaptureToGraph)");
        err = cudaStreamBeginCaptureToGraph(s, cap_f.into, &cap_f.into_node, NULL, 1, mode);
    }
    to_graph_stage("the call, in the capture begun into the repetition's graph");
    return err;
#else
    return cudaErrorNotSupported;
#endif
}

/* Of graph g, cudaStreamEndCapture's: whether it is the to-graph case's own, still holds its node
 * (among its first 64) and has that node as its only root, and whether the driver released the
 * graph's user object (struct cts_capture_obs). */
static int to_graph_facts(cudaGraph_t g, struct cts_capture_obs *o)
{
    cudaGraphNode_t nodes[64], root = NULL;
    size_t n = 0, k, roots = 0, one = 1;
    o->to_graph = 1;
    o->same_graph = g && g == cap_f.into;
    o->kept_node = o->depends = -1;
    o->released = cap_user_object_released(cap_f.into_gen, !g); /* none back: waited up to 10 ms */
    if (!g)
        return 0;
    to_graph_stage("the graph cudaStreamEndCapture returned, read (its nodes and roots)");
    SETUP(cudaGraphGetNodes(g, NULL, &n));
    k = n < N_OF(nodes) ? n : N_OF(nodes);
    if (k)
        SETUP(cudaGraphGetNodes(g, nodes, &k));
    o->kept_node = 0;
    for (size_t i = 0; i < k; i++)
        o->kept_node |= nodes[i] == cap_f.into_node;
    SETUP(cudaGraphGetRootNodes(g, NULL, &roots));
    if (roots == 1)
        SETUP(cudaGraphGetRootNodes(g, &root, &one));
    if (n > (size_t)o->kept_node) /* a node was captured */
        o->depends = o->kept_node && roots == 1 && root == cap_f.into_node;
    return 0;
}

/* The repetition's graphs: what cudaStreamEndCapture returned, and a to-graph case's own where
 * that is another; the first error.  A to-graph case's own graph after an end that returned none
 * (the capture invalidated) is left alone, never destroyed: at bd13241 (one H200, 580.159.04) its
 * cudaGraphDestroy returned cudaErrorInvalidValue in every such case and broke the heap, later
 * cases dying in glibc (reports/comparisons/.../h200.tograph-bd13241/): the driver has let go of
 * it by then (evidence capture_to_graph's `released`: in every such case at 94ad369).  One graph a
 * repetition is the cost where it does not. */
static cudaError_t drop_graphs(cudaGraph_t g)
{
    to_graph_stage("the repetition's graphs destroyed");
    cudaError_t err = g ? cudaGraphDestroy(g) : cudaSuccess;
    if (cap_f.into && g && cap_f.into != g) {
        cudaError_t e = cudaGraphDestroy(cap_f.into);
        err = err != cudaSuccess ? err : e;
    }
    cap_f.into = NULL;
    cap_f.into_node = NULL;
    return err;
}

/* ---- one repetition ---------------------------------------------------------- */

/* A lent call's set-up, before its capture begins: its family's prepare(),
 * then before() on the stream the call will be given. */
static int lent_begin(const struct cts_case *c, cudaStream_t cap)
{
    const char *e = NULL;
    const struct cts_family *l = cap_f.lc.family;
    if (l->prepare && l->prepare(&cap_f.lc, &cap_f.scratch, &e)) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: the %s family's prepare returned %s", l->name,
                 e ? e : "an error");
        return -1;
    }
    if (l->before && l->before(&cap_f.lc, &cap_f.scratch, place(c, cap), &e)) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: the %s family's before returned %s", l->name,
                 e ? e : "an error");
        return -1;
    }
    return 0;
}

/* ... and its clean-up once the capture ended and its graph was launched
 * (its after() ran right after the call, in the thread that made it: a call
 * that changes its thread's current device puts it back there).  A clean-up
 * that checks the call's work (a launch's store, a limit set) fails where
 * that work never ran: the harness broke only where the call was captured or
 * ran. */
static int lent_end(enum cts_cap_outcome outcome)
{
    const char *e = NULL;
    const struct cts_family *l = cap_f.lc.family;
    if (cap_f.after_error) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: the %s family's after returned %s", l->name, cap_f.after_error);
        cap_f.after_error = NULL;
        return -1;
    }
    int rc = l->cleanup ? l->cleanup(&cap_f.lc, &cap_f.scratch, &e) : 0;
    (void)cudaGetLastError();
    if (rc && (outcome == CTS_CAP_GRAPH || outcome == CTS_CAP_RAN)) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: the %s family's clean-up returned %s", l->name,
                 e ? e : "an error");
        return -1;
    }
    return 0;
}

/* The op stream a lent call is given, as its family names it. */
static enum cts_op lent_op(const struct cts_case *c)
{
    switch (c->busy) {
    case CTS_BUSY_BLOCKING: return CTS_OP_BLOCKING;
    case CTS_BUSY_NONBLOCKING: return CTS_OP_NONBLOCKING;
    case CTS_BUSY_LEGACY: case CTS_BUSY_THREAD_LEGACY: return CTS_OP_LEGACY;
    case CTS_BUSY_PERTHREAD: case CTS_BUSY_THREAD_PERTHREAD: return CTS_OP_PERTHREAD;
    default: return c->op; /* the capturing stream */
    }
}

/* Its first use, outside any capture, once a representative: no first use
 * (a module, a pool, a pinned buffer) falls in a repetition. */
static int lent_warm(const struct cts_case *c)
{
    static unsigned char warm[1024];
    size_t k = (size_t)(cap_f.lent - cap_lent.v);
    if (k < sizeof warm && warm[k])
        return 0;
    struct cts_case w = *c;
    w.busy = CTS_BUSY_NONBLOCKING;
    double us;
    if (cap_reset() || lent_begin(&w, cap_f.sib_nonblocking))
        return -1;
    const char *rc =
        cap_call_in_mode(c, CTS_CAPTURE_GLOBAL, cts_api_takes_stream(c->api) ? cap_f.sib_nonblocking : NULL, &us);
    SETUP(cudaDeviceSynchronize());
    if (lent_end(CTS_CAP_RAN))
        return -1;
    if (strcmp(rc, "cudaSuccess")) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: warming up %s outside any capture returned %s", c->id, rc);
        return -1;
    }
    if (k < sizeof warm)
        warm[k] = 1;
    return 0;
}

/* The capturing stream, made for the repetition (or the per-thread default), and the call's own set-up. */
static int begin(const struct cts_case *c, cudaStream_t *cap)
{
    cudaError_t err = cudaSuccess;
    if (c->op != CTS_OP_PERTHREAD)
        SETUP(cudaStreamCreateWithFlags(cap, c->op == CTS_OP_BLOCKING ? cudaStreamDefault : cudaStreamNonBlocking));
    else
        *cap = cudaStreamPerThread;
    if (cap_f.lent && lent_begin(c, *cap))
        return -1;
    cap_f.capturing = *cap;
    err = begin_capture(c, *cap);
    cap_f.asked = cap_f.done;
    if (err == cudaSuccess && c->variant && !strcmp(c->variant, CAPTURED)) {
        err = cudaEventRecord(cap_f.fresh, *cap); /* an event of the capture */
        cap_f.asked = cap_f.fresh;
    }
    if (err != cudaSuccess) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: beginning the capture returned %s", cudaGetErrorName(err));
        return -1;
    }
    return 0;
}

/* Right after the call: the capture's status, cudaStreamEndCapture's result;
 * then no capture may be left, the device drained. */
static int end(cudaStream_t cap, struct cts_capture_obs *o, cudaGraph_t *g)
{
    enum cudaStreamCaptureStatus st;
    cudaError_t err = cudaStreamIsCapturing(cap, &st);
    o->after = err != cudaSuccess ? CTS_CAPST_NA : st == cudaStreamCaptureStatusActive ? CTS_CAPST_ACTIVE
               : st == cudaStreamCaptureStatusInvalidated                               ? CTS_CAPST_INVALIDATED
                                                                                        : CTS_CAPST_NONE;
    to_graph_stage("cudaStreamEndCapture of the capture begun into the repetition's graph");
    o->end = cudaGetErrorName(cudaStreamEndCapture(cap, g));
    (void)cudaGetLastError();
    if ((err = cudaDeviceSynchronize()) != cudaSuccess || (err = cudaStreamIsCapturing(cap, &st)) != cudaSuccess ||
        st != cudaStreamCaptureStatusNone) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: after the capture ended, %s",
                 err != cudaSuccess ? cudaGetErrorName(err) : "the stream still captures");
        return -1;
    }
    return 0;
}

/* A second capture the call began on the non-blocking stream: ended by this
 * (the capturing) thread, its graph destroyed in cap_undo(). */
static int end_second(void)
{
    enum cudaStreamCaptureStatus st;
    SETUP(cudaStreamIsCapturing(cap_f.sib_nonblocking, &st));
    if (st == cudaStreamCaptureStatusNone)
        return 0;
    cudaError_t err = cudaStreamEndCapture(cap_f.sib_nonblocking, &cap_f.ended);
    (void)cudaGetLastError();
    if (st == cudaStreamCaptureStatusActive && err != cudaSuccess) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: ending the second capture returned %s", cudaGetErrorName(err));
        return -1;
    }
    return 0;
}

/* After a "captured" wait, its capture ended: no stream of this thread the
 * wait may have joined to it still captures (one left so, invalidated, is
 * ended here; the second thread's per-thread stream rejoined by cap_rejoin). */
static int end_joined(void)
{
    cudaStream_t s[] = {cap_f.sib_blocking, cap_f.sib_nonblocking, cudaStreamPerThread};
    for (size_t i = 0; i < N_OF(s); i++) {
        enum cudaStreamCaptureStatus st;
        cudaGraph_t g = NULL;
        SETUP(cudaStreamIsCapturing(s[i], &st));
        if (st == cudaStreamCaptureStatusNone)
            continue;
        (void)cudaStreamEndCapture(s[i], &g);
        (void)cudaGetLastError();
        if (g)
            SETUP(cudaGraphDestroy(g));
        SETUP(cudaStreamIsCapturing(s[i], &st));
        if (st != cudaStreamCaptureStatusNone) {
            snprintf(cap_f.why, sizeof cap_f.why, "harness: a stream the wait joined still captures");
            return -1;
        }
    }
    return 0;
}

/* One repetition; -1 with r BROKEN where the harness failed. */
static int one_rep(const struct cts_case *c, struct cts_rep *r)
{
    struct cts_capture_obs *o = &r->cap;
    cudaStream_t cap = NULL;
    cudaGraph_t g = NULL;
    int own = c->op != CTS_OP_PERTHREAD; /* a stream made for the repetition */
    cudaError_t err;
    cap_f.fresh_kernel = c->variant && !strcmp(c->variant, FIRST) ? cts_fresh_take() : -1;
    memset(&cap_f.scratch, 0, sizeof cap_f.scratch);
    cap_f.joined = cap_f.rejoin = 0, cap_f.join_error = NULL;
    cap_f.into = NULL, cap_f.into_node = NULL;
    if (cap_reset() || begin(c, &cap))
        goto broken;
    double us = 0;
    o->rc = from_worker(c->busy) ? cap_in_worker(c, c->capture_by, cap, c->busy, &us)
                                 : cap_call_in_mode(c, c->capture_by, place(c, cap), &us);
    r->call_us = us;
    cap_rejoin(cap);
    if (c->api == CTS_API_STREAM_BEGIN_CAPTURE && end_second())
        goto broken;
    if (end(cap, o, &g) || (c->api == CTS_API_STREAM_WAIT_EVENT && end_joined()))
        goto broken;
    if (cap_f.join_error) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: after the wait, %s", cap_f.join_error);
        goto broken;
    }
    o->eager = o->launched = -1;
    if ((c->to_graph && to_graph_facts(g, o)) || cap_effect(c->api, &o->eager) || (g && graph_facts(c->api, g, o)))
        goto broken;
    o->outcome = cts_capture_judge(o);
    if (o->node_count > 0)
        cap_f.made_pooled = NULL; /* the graph's allocation: it exists only while a launch runs */
    if ((cap_f.lent && lent_end(o->outcome)) || cap_undo())
        goto broken;
    err = drop_graphs(g);
    g = NULL;
    if (err == cudaSuccess && own)
        err = cudaStreamDestroy(cap);
    cap = NULL;
    if (err != cudaSuccess) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: destroying the graph or the capturing stream returned %s",
                 cudaGetErrorName(err));
        goto broken;
    }
    return 0;
broken:
    (void)cudaGetLastError();
    (void)drop_graphs(g);
    (void)cudaGetLastError();
    if (cap && own)
        (void)cudaStreamDestroy(cap);
    r->status = CTS_BROKEN;
    snprintf(r->reason, sizeof r->reason, "%s", cap_f.why);
    return -1;
}

void cap_measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    if (cap_setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", cap_f.why);
        return;
    }
    if (repeat > CTS_MAX_REPEAT)
        repeat = CTS_MAX_REPEAT;
    cap_f.c = c;
    if ((cap_f.lent = cap_lent_of(c))) {
        cap_f.lc = *cap_f.lent; /* the call as its family makes it, given the stream of this placement */
        if (cts_api_takes_stream(c->api))
            cap_f.lc.op = lent_op(c);
        if (lent_warm(c)) {
            res->status = CTS_BROKEN;
            snprintf(res->reason, sizeof res->reason, "%s", cap_f.why);
            return;
        }
    }
    for (int i = 0; i < repeat; i++) {
        struct cts_rep *r = &res->reps[i];
        cts_rep_begin(r);
        r->timeout_us = NAN;
        res->nreps = i + 1;
        if (cap_is_body(c) ? cap_body_rep(c, r) : one_rep(c, r))
            break;
    }
    res->idle_call_us = res->idle_call_max_us = res->reps[0].call_us;
    res->idle_complete_us = res->idle_complete_max_us = NAN;
    res->timeout_us = res->window_us = NAN;
    cts_classify(res);
}
