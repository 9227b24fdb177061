/* The capture family's conditional bodies (cases/capture.c says what the
 * family measures): a call made while a second stream captures into the body
 * of a conditional node of the first stream's capture, and the two captures
 * ended in each order.  A driver was reported to crash in the parent's
 * cudaStreamEndCapture after an illegal call in such a body: a case whose
 * process dies is CRASH, naming the stage it died in (cts_case_stage).
 *
 * A case (variant body_if_<order> or body_while_<order>; the op segment the
 * kind of both streams, made for the repetition; busy_same): the parent
 * stream begins capturing (cudaStreamBeginCapture, mode `capture`); a
 * conditional handle (default 1, assigned at each launch) and an IF or WHILE
 * node are added to its capture graph (cudaStreamGetCaptureInfo for the graph
 * and its dependencies, cudaGraphAddNode, cudaStreamUpdateCaptureDependencies);
 * the body stream begins capturing into the node's body graph
 * (cudaStreamBeginCaptureToGraph, the same mode) and a kernel of the harness
 * sets the condition to 0 there first (kernels/capture_body.cu: a WHILE then
 * runs its body once); then the call, by the capturing thread in the
 * capture's mode, on the body stream: cudaMemsetAsync or a kernel launch (1
 * MiB, legal in a body) or an illegal one (cudaStreamSynchronize of the body
 * stream; cudaMalloc, prohibited outside Relaxed; the synchronous cudaMemcpy,
 * the legacy stream's use where the streams are blocking); then the ends:
 * end_body_first the body's cudaStreamEndCapture then the parent's,
 * end_parent_first the parent's then the body's, end_parent_only the
 * parent's, its graph instantiated while the body still captures, and only
 * then the body's.
 *
 * Observed, each proven: the call's return code; both captures' statuses
 * right after it; each cudaStreamEndCapture's return; the parent graph's node
 * types and the body's (read while the parent graph exists); whether the
 * parent graph instantiates, and launched, whether the body's work was done
 * (both ends of the 1 MiB buffer, read once the device drained, before the
 * launch and after it); whether the driver had let go of the body graph (a
 * user object of the harness takes its only reference there: cap_user_object),
 * in each stage after an end and once both returned.  A WHILE graph is
 * launched only where its body holds a kernel (the harness's, which ends the
 * loop), and waited for 10 s at most:
 * past that the process aborts, CRASH at that stage.  cts_capture_judge names
 * the outcome from the body's view (struct cts_capture_obs says which field is
 * whose). */
#define _GNU_SOURCE
#include "capture.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const variants[2][3] = {
    {"body_if_end_body_first", "body_if_end_parent_first", "body_if_end_parent_only"},
    {"body_while_end_body_first", "body_while_end_parent_first", "body_while_end_parent_only"},
};
static const enum cts_api calls[] = {CTS_API_MEMSET_ASYNC, CTS_API_LAUNCH, CTS_API_STREAM_SYNCHRONIZE,
                                     CTS_API_MALLOC, CTS_API_MEMCPY};
static const enum cts_op ops[] = {CTS_OP_BLOCKING, CTS_OP_NONBLOCKING};

int cap_is_body(const struct cts_case *c)
{
    return c->variant && !strncmp(c->variant, "body_", 5);
}

int cap_body_legal(enum cts_api api)
{
    return api == CTS_API_MEMSET_ASYNC || api == CTS_API_LAUNCH;
}

/* Capture mode m's (its CTest group's, contiguous). */
size_t cap_body_generate(struct cts_case *out, size_t cap, size_t n, enum cts_capture m)
{
    for (size_t o = 0; o < N_OF(ops); o++)
        for (int w = 0; w < 2; w++)
            for (int e = 0; e < 3; e++)
                for (size_t a = 0; a < N_OF(calls); a++, n++) {
                    if (!out || n >= cap)
                        continue;
                    out[n] = (struct cts_case){.family = &cts_family_capture, .api = calls[a],
                                               .variant = variants[w][e], .dir = CTS_DIR_NONE, .mem = CTS_MEM_NONE,
                                               .size_idx = -1, .kind = CTS_KIND_NONE, .op = ops[o],
                                               .busy = CTS_BUSY_SAME, .capture = m, .capture_by = m};
                    cts_case_make_id(&out[n]);
                }
    return n;
}

int cap_body_needs(const struct cts_case *c, char *why, size_t len)
{
    (void)c;
#if CUDART_VERSION < 12030
    snprintf(why, len, "not in runtime %d.%d: cudaGraphConditionalHandleCreate and cudaStreamBeginCaptureToGraph "
             "(conditional nodes) appeared in 12.3", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    return -1;
#else
    return cts_need_driver_version(12030, "a conditional node", why, len);
#endif
}

#if CUDART_VERSION >= 12030
/* kernels/capture_body.cu */
cudaError_t cts_launch_cond_stop(cudaStream_t s, unsigned long long handle);
cudaError_t cts_cond_stop_load(void);

enum order { BODY_FIRST, PARENT_FIRST, PARENT_ONLY };

static enum order order_of(const struct cts_case *c)
{
    return strstr(c->variant, "end_body_first") ? BODY_FIRST : strstr(c->variant, "end_parent_first") ? PARENT_FIRST
                                                                                                         : PARENT_ONLY;
}

static int is_while(const struct cts_case *c)
{
    return !strncmp(c->variant, "body_while", 10);
}

/* One repetition's streams and graphs. */
struct body_run {
    cudaStream_t parent, body;
    cudaGraph_t pg;     /* the parent's graph, returned by its cudaStreamEndCapture */
    cudaGraph_t bg;     /* the conditional node's body (the node's own) */
    cudaGraphExec_t x;  /* pg instantiated */
    cudaGraphConditionalHandle h;
    unsigned uo;        /* the serial of the body graph's user object (cap_user_object; 0: it took none) */
};

static enum cts_cap_status status_of(cudaStream_t s)
{
    enum cudaStreamCaptureStatus st;
    cudaError_t err = cudaStreamIsCapturing(s, &st);
    (void)cudaGetLastError();
    return err != cudaSuccess ? CTS_CAPST_NA : st == cudaStreamCaptureStatusActive ? CTS_CAPST_ACTIVE
           : st == cudaStreamCaptureStatusInvalidated                               ? CTS_CAPST_INVALIDATED
                                                                                    : CTS_CAPST_NONE;
}

static cudaError_t capture_info(cudaStream_t s, cudaGraph_t *g, const cudaGraphNode_t **deps, size_t *n)
{
    enum cudaStreamCaptureStatus st;
#if CUDART_VERSION >= 13000
    return cudaStreamGetCaptureInfo(s, &st, NULL, g, deps, NULL, n);
#else
    return cudaStreamGetCaptureInfo(s, &st, NULL, g, deps, n);
#endif
}

/* The conditional node, added to the parent's capture graph after its dependencies. */
static int add_node(const struct cts_case *c, struct body_run *b)
{
    cudaGraph_t g = NULL;
    const cudaGraphNode_t *deps = NULL;
    size_t nd = 0;
    cudaGraphNode_t node;
    SETUP(capture_info(b->parent, &g, &deps, &nd));
    SETUP(cudaGraphConditionalHandleCreate(&b->h, g, 1, cudaGraphCondAssignDefault));
    struct cudaGraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = b->h;
    p.conditional.type = is_while(c) ? cudaGraphCondTypeWhile : cudaGraphCondTypeIf;
    p.conditional.size = 1;
    cts_case_stage("the conditional node added to the parent's capture graph");
#if CUDART_VERSION >= 13000
    SETUP(cudaGraphAddNode(&node, g, deps, NULL, nd, &p));
    SETUP(cudaStreamUpdateCaptureDependencies(b->parent, &node, NULL, 1, cudaStreamSetCaptureDependencies));
#else
    SETUP(cudaGraphAddNode(&node, g, deps, nd, &p));
    SETUP(cudaStreamUpdateCaptureDependencies(b->parent, &node, 1, cudaStreamSetCaptureDependencies));
#endif
    b->bg = p.conditional.phGraph_out[0];
    /* Whether the driver lets go of the body graph the node owns (as it does of a to-graph capture's
     * graph after an invalidated capture: FINDINGS): a user object whose only reference it holds. */
    if (cap_user_object(b->bg, &b->uo) != cudaSuccess) {
        (void)cudaGetLastError();
        b->uo = 0;
    }
    return 0;
}

/* The parent's capture, its node, the body's capture begun, the harness's kernel in it. */
static int open_body(const struct cts_case *c, struct body_run *b)
{
    static int loaded;
    unsigned flags = c->op == CTS_OP_BLOCKING ? cudaStreamDefault : cudaStreamNonBlocking;
    enum cudaStreamCaptureMode mode = cap_capture_modes[c->capture];
    if (!loaded) /* its kernel loaded outside any capture: no first use falls in a repetition */
        SETUP(cts_cond_stop_load());
    loaded = 1;
    SETUP(cudaStreamCreateWithFlags(&b->parent, flags));
    SETUP(cudaStreamCreateWithFlags(&b->body, flags));
    cts_case_stage("the parent's capture begun");
    SETUP(cudaStreamBeginCapture(b->parent, mode));
    if (add_node(c, b))
        return -1;
    cts_case_stage("the body's capture begun (cudaStreamBeginCaptureToGraph)");
    SETUP(cudaStreamBeginCaptureToGraph(b->body, b->bg, NULL, NULL, 0, mode));
    SETUP(cts_launch_cond_stop(b->body, b->h));
    return 0;
}

/* Whatever the repetition left: captures ended (a body's graph is its node's), graphs, streams. */
static void discard(struct body_run *b)
{
    cudaStream_t s[2] = {b->body, b->parent};
    for (int i = 0; i < 2; i++) {
        cudaGraph_t g = NULL;
        if (s[i] && status_of(s[i]) != CTS_CAPST_NONE && cudaStreamEndCapture(s[i], &g) == cudaSuccess && i && g)
            (void)cudaGraphDestroy(g);
    }
    if (b->x)
        (void)cudaGraphExecDestroy(b->x);
    if (b->pg)
        (void)cudaGraphDestroy(b->pg);
    for (int i = 0; i < 2; i++)
        if (s[i])
            (void)cudaStreamDestroy(s[i]);
    (void)cudaGetLastError();
    memset(b, 0, sizeof *b);
}

/* Whether the body graph had let go of its user object by now: 1, 0, -1 where it took none. */
static int body_released(const struct body_run *b, int wait)
{
    return b->uo ? cap_user_object_released(b->uo, wait) : -1;
}

/* A stage that says what came before it: the call's return, the ends made so far and whether the
 * body graph was released by then, so that a CRASH's reason tells in which state the process died. */
static void stage_after(const char *stage, const struct body_run *b, const struct cts_capture_obs *o)
{
    static char text[320];
    static const char *const held[] = {"the body graph took no user object", "the body graph still held",
                                       "the body graph released by the driver"};
    int n = snprintf(text, sizeof text, "%s, after the call's %s", stage, o->rc ? o->rc : "-");
    if (o->body_end && n > 0 && (size_t)n < sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n, ", the body's end's %s", o->body_end);
    if (o->parent_end && n > 0 && (size_t)n < sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n, ", the parent's end's %s", o->parent_end);
    if ((o->body_end || o->parent_end) && n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n, " (%s)", held[body_released(b, 0) + 1]);
    cts_case_stage(text);
}

static void end_body(struct body_run *b, struct cts_capture_obs *o)
{
    cudaGraph_t g = NULL; /* the node's body graph again: not the caller's to destroy */
    stage_after("the body's cudaStreamEndCapture", b, o);
    o->body_end = cudaGetErrorName(cudaStreamEndCapture(b->body, &g));
    (void)cudaGetLastError();
    if (!o->end || !strcmp(o->end, "cudaSuccess"))
        o->end = o->body_end;
}

static void end_parent(struct body_run *b, struct cts_capture_obs *o)
{
    stage_after("the parent's cudaStreamEndCapture", b, o);
    cudaError_t err = cudaStreamEndCapture(b->parent, &b->pg);
    (void)cudaGetLastError();
    if (err != cudaSuccess)
        b->pg = NULL;
    o->parent_end = cudaGetErrorName(err);
    if (!o->end || !strcmp(o->end, "cudaSuccess"))
        o->end = o->parent_end;
}

static void instantiate(struct body_run *b, struct cts_capture_obs *o)
{
    if (!b->pg || o->instantiate)
        return;
    stage_after("the parent graph's cudaGraphInstantiate", b, o);
    cudaError_t err = cudaGraphInstantiate(&b->x, b->pg, 0);
    (void)cudaGetLastError();
    if (err != cudaSuccess)
        b->x = NULL;
    o->instantiate = cudaGetErrorName(err);
}

/* The body graph's node types, and the nodes the call added to it (less the harness's kernel). */
static int body_facts(struct body_run *b, struct cts_capture_obs *o)
{
    size_t n, kernels;
    stage_after("the body graph's nodes read", b, o);
    if (cap_node_types(b->bg, NULL, &o->body_nodes, &n, &kernels))
        return -1;
    o->node_count = (int)(n - (kernels > 0));
    return cap_node_types(b->pg, NULL, &o->nodes, &n, &kernels);
}

/* Waits for stream s, 10 s at most: a launch still running then never ends (a
 * WHILE whose body does not end it), and nothing after it could be trusted. */
static cudaError_t wait_bounded(cudaStream_t s)
{
    struct timespec t0, t, nap = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        cudaError_t err = cudaStreamQuery(s);
        if (err != cudaErrorNotReady)
            return err;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 10) {
            cts_case_stage("the parent graph's launch, still running after 10 s (aborted)");
            abort();
        }
        nanosleep(&nap, NULL);
    }
}

/* The parent graph's launch and its effect (the device idle, the captures ended). */
static int launch(const struct cts_case *c, struct body_run *b, struct cts_capture_obs *o)
{
    o->launched = -1;
    if (!b->x)
        return 0;
    if (is_while(c) && !(o->body_nodes & (1u << cudaGraphNodeTypeKernel)))
        return 0; /* no kernel to end the loop: not launched */
    if (cap_reset())
        return -1;
    cts_case_stage("the parent graph's cudaGraphLaunch");
    cudaError_t err = cudaGraphLaunch(b->x, cap_f.quiet);
    if (err == cudaSuccess)
        err = wait_bounded(cap_f.quiet);
    (void)cudaGetLastError();
    o->launch = cudaGetErrorName(err);
    return err == cudaSuccess ? cap_effect(c->api, &o->launched) : 0;
}

/* The call, then the ends in the case's order; no capture may be left. */
static int call_and_end(const struct cts_case *c, struct body_run *b, struct cts_rep *r)
{
    struct cts_capture_obs *o = &r->cap;
    double us = 0;
    cts_case_stage("the call in the body's capture");
    o->rc = cap_call_in_mode(c, c->capture_by, b->body, &us);
    r->call_us = us;
    o->after = status_of(b->body);
    o->parent_after = status_of(b->parent);
    enum order e = order_of(c);
    if (e == BODY_FIRST)
        end_body(b, o);
    end_parent(b, o);
    if (e == PARENT_ONLY)
        instantiate(b, o); /* the body still captures */
    if (e != BODY_FIRST)
        end_body(b, o);
    if (status_of(b->body) != CTS_CAPST_NONE || status_of(b->parent) != CTS_CAPST_NONE) {
        snprintf(cap_f.why, sizeof cap_f.why, "harness: after both ends, a stream still captures");
        return -1;
    }
    cts_case_stage("the device drained after the ends");
    SETUP(cudaDeviceSynchronize());
    /* Waited for (10 ms at most) only where an end failed: the node still owns its body graph. */
    o->body_released = body_released(b, strcmp(o->body_end, "cudaSuccess") || strcmp(o->parent_end, "cudaSuccess"));
    return 0;
}

int cap_body_rep(const struct cts_case *c, struct cts_rep *r)
{
    struct cts_capture_obs *o = &r->cap;
    struct body_run b;
    memset(&b, 0, sizeof b);
    memset(&cap_f.scratch, 0, sizeof cap_f.scratch);
    o->body = 1;
    o->eager = o->launched = o->body_released = -1;
    if (cap_reset() || open_body(c, &b) || call_and_end(c, &b, r) || cap_effect(c->api, &o->eager) ||
        (b.pg && body_facts(&b, o)))
        goto broken;
    instantiate(&b, o);
    if (launch(c, &b, o))
        goto broken;
    if (b.pg && o->eager >= 0 && o->launched < 0)
        o->launched = 0; /* a graph that did not launch did none of the call's work */
    o->outcome = cts_capture_judge(o);
    cts_case_stage("the repetition's clean-up");
    discard(&b);
    if (cap_undo())
        goto broken;
    return 0;
broken:
    discard(&b);
    (void)cap_undo();
    r->status = CTS_BROKEN;
    snprintf(r->reason, sizeof r->reason, "%s", cap_f.why);
    return -1;
}
#else
int cap_body_rep(const struct cts_case *c, struct cts_rep *r)
{
    (void)c;
    r->status = CTS_BROKEN; /* needs() made it NOTSUPP */
    snprintf(r->reason, sizeof r->reason, "harness: conditional nodes need runtime 12.3");
    return -1;
}
#endif
