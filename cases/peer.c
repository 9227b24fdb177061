/* The peer family (issue 36): calls that cross two devices.  "This device"
 * is the run's (--device N), "the peer" the next one the process sees.
 *
 *   copies      cudaMemcpyPeerAsync, cudaMemcpyPeer, cudaMemcpyAsync and cudaMemcpy between the
 *               devices (cudaMemcpyDefault, and the explicit device-to-device kind), cudaMemcpy3DPeer
 *               and its Async form, cuMemcpyPeer and its Async form, cudaMemcpyBatchAsync; the
 *               variant says which way and how the peer side is reached: to_peer / from_peer (peer
 *               access enabled both ways), ..._no_access (disabled both ways), ..._pool (the peer
 *               side a block of a pool made on the peer, cudaMemPoolSetAccess granting this device
 *               read-write), ..._pool_ungranted (not granted); and cudaMemcpyAsync / cudaMemcpy
 *               between pinned or pageable host memory and the peer's memory (h2d to_peer,
 *               d2h from_peer) on this device's stream
 *   this_device cudaDeviceSynchronize, cudaFree, cudaFreeHost, cudaMalloc, cudaMallocHost,
 *               cudaHostRegister, cudaStreamSynchronize of stream 0 and a 4 KiB pageable cudaMemcpy,
 *               all of this device, while only the peer is held
 *   to_peer     cudaSetDevice to the peer (the thread is put back on this device after it)
 *   peer_event  cudaStreamWaitEvent and cudaEventSynchronize on an event of the peer, recorded
 *               behind the held work there
 *   access      cudaDeviceEnablePeerAccess and cudaDeviceDisablePeerAccess of the peer
 *
 * Placements (the id's busy segment): same (the op stream), legacy, blocking and nonblocking
 * (another stream of this device), peer_legacy, peer_blocking and peer_nonblocking (a stream of
 * the peer), both (a non-blocking stream of each device); the device-wide calls and the events
 * only the peer's.  Each is held by a gate kernel of harness/families/stallgate.c on its device (both:
 * two gates, two watchdogs, armed together).
 *
 * One try, as the pool family's: the device idle, the source filled with a byte v and the
 * destination with u; the hold; a marker on the op stream and on a blocking and a non-blocking
 * stream of the peer must show, within WINDOW_US, whether the hold alone holds them (the
 * control); the call, the watchdogs armed; a call that returned while every gate was closed did
 * not wait (`host` returns), and right after it the same three markers say whether work queued
 * after it waits (a marker that did not run while the gates stayed closed for WINDOW_US is held).
 * A call that returned only after a gate opened is made again with a 4x longer stall time and
 * waited when its time grew with it (TRACK_FRACTION).  The third streams of this family's
 * verdicts (`+b`, `+n`) are the peer's: "does later work on the other device wait".
 *
 * Bytes: after the drain, every byte of the destination is read.  A call that returned an error
 * is FAIL with the error (refused); one that returned success and left the destination's bytes
 * u, all or some, is FAIL saying how many (moved nothing, or part): the two are told apart.  A
 * synchronous copy's destination samples are read right after it returns (`landed`); a host
 * destination's at the return too (`dst`, kept where the op stream's later work was held).
 *
 * NOTSUPP: fewer than two devices; peer access impossible between the two (the access, pool and
 * event-free variants that need it); no memory pools on the peer (the pool variants);
 * cudaMemcpyBatchAsync below 12.8; a driver API copy the driver lacks.
 *
 * This file: the cases, what each needs and what the documentation says; cases/peer_gates.c: what the
 * family keeps, the gates held, the markers and the draining; cases/peer_rep.c: a case's memory, the
 * call, a try, a repetition, measured; cases/peer_family.h: what they share. */
#define _GNU_SOURCE
#include "peer_family.h"
#include "../harness/core/spec.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define SIZE_4KIB 1
#define SIZE_16MIB 6

/* ---- the grid -------------------------------------------------------------------------- */

/* The copies' variants (struct peer_variant: cases/peer_family.h). */
static const struct peer_variant variants[] = {
    {"to_peer", 1, 1, 0, 0},           {"from_peer", 0, 1, 0, 0},
    {"to_peer_no_access", 1, 0, 0, 0}, {"from_peer_no_access", 0, 0, 0, 0},
    {"to_peer_pool", 1, 1, 1, 1},      {"from_peer_pool", 0, 1, 1, 1},
    {"to_peer_pool_ungranted", 1, 1, 1, 0}, {"from_peer_pool_ungranted", 0, 1, 1, 0},
};
#define NVARIANTS (sizeof variants / sizeof *variants)
#define V_TOFROM 0x03u /* to_peer, from_peer */
#define V_DEVICE 0x0Fu /* ... and without peer access */
#define V_ALL 0xFFu    /* ... and the pool's */

#define S_4K (1u << SIZE_4KIB)
#define S_BOTH (1u << SIZE_4KIB | 1u << SIZE_16MIB)
#define O_IMPLIED (1u << CTS_OP_IMPLIED)
#define O_NB (1u << CTS_OP_NONBLOCKING)
#define O_NULL (1u << CTS_OP_NULL)

/* Copies between the devices: device memory on both sides (or a pool block on the peer's). */
static const struct {
    enum cts_api api;
    enum cts_kind kind;
    unsigned variants, sizes, ops;
} copies[] = {
    {CTS_API_MEMCPY_PEER_ASYNC, CTS_KIND_NONE, V_ALL, S_BOTH, O_NB | O_NULL},
    {CTS_API_MEMCPY_PEER, CTS_KIND_NONE, V_DEVICE, S_BOTH, O_IMPLIED},
    {CTS_API_MEMCPY_ASYNC, CTS_KIND_DEFAULT, V_ALL, S_BOTH, O_NB},
    {CTS_API_MEMCPY_ASYNC, CTS_KIND_EXPLICIT, V_DEVICE, S_4K, O_NB},
    {CTS_API_MEMCPY, CTS_KIND_DEFAULT, V_DEVICE, S_BOTH, O_IMPLIED},
    {CTS_API_MEMCPY, CTS_KIND_EXPLICIT, V_DEVICE, S_4K, O_IMPLIED},
    {CTS_API_MEMCPY_3D_PEER_ASYNC, CTS_KIND_NONE, V_TOFROM, S_4K, O_NB},
    {CTS_API_MEMCPY_3D_PEER, CTS_KIND_NONE, V_TOFROM, S_4K, O_IMPLIED},
    {CTS_API_CU_MEMCPY_PEER_ASYNC, CTS_KIND_NONE, V_TOFROM, S_4K, O_NB},
    {CTS_API_CU_MEMCPY_PEER, CTS_KIND_NONE, V_TOFROM, S_4K, O_IMPLIED},
    {CTS_API_MEMCPY_BATCH_ASYNC, CTS_KIND_NONE, V_TOFROM, S_4K, O_NB},
};
#define NCOPIES (sizeof copies / sizeof *copies)

/* Host memory to or from the peer's, on this device's stream. */
static const enum cts_api host_copies[] = {CTS_API_MEMCPY_ASYNC, CTS_API_MEMCPY};
static const enum cts_mem host_kinds[] = {CTS_MEM_PAGEABLE, CTS_MEM_PINNED};

/* Calls of this device made while only the peer is held ("this_device"), and cudaSetDevice to it. */
static const enum cts_api device_wide[] = {
    CTS_API_DEVICE_SYNCHRONIZE, CTS_API_FREE, CTS_API_FREE_HOST, CTS_API_MALLOC, CTS_API_MALLOC_HOST,
    CTS_API_HOST_REGISTER, CTS_API_STREAM_SYNCHRONIZE, CTS_API_MEMCPY, CTS_API_SET_DEVICE,
};
static const enum cts_api event_calls[] = {CTS_API_STREAM_WAIT_EVENT, CTS_API_EVENT_SYNCHRONIZE};
/* A kernel launch of this device (the sleep kernel, 0 ns), beside every placement: under
 * CUDA_LAUNCH_BLOCKING=1 and the wait-value hold, does a launch wait for the other device's work? */
static const enum cts_api access_calls[] = {CTS_API_DEVICE_ENABLE_PEER_ACCESS, CTS_API_DEVICE_DISABLE_PEER_ACCESS};

static const enum cts_busy all_busy[] = {CTS_BUSY_SAME, CTS_BUSY_LEGACY, CTS_BUSY_BLOCKING, CTS_BUSY_NONBLOCKING,
                                         CTS_BUSY_PEER_LEGACY, CTS_BUSY_PEER_BLOCKING, CTS_BUSY_PEER_NONBLOCKING,
                                         CTS_BUSY_BOTH};
static const enum cts_busy peer_busy[] = {CTS_BUSY_PEER_LEGACY, CTS_BUSY_PEER_BLOCKING, CTS_BUSY_PEER_NONBLOCKING};

/* Emits proto once for each op stream in ops and each placement of busy[0..nbusy) (none that is
 * the op stream itself). */
static size_t emit(const struct cts_case *proto, unsigned ops, const enum cts_busy *busy, size_t nbusy,
                   struct cts_case *out, size_t cap, size_t n)
{
    for (int op = 0; op < CTS_OP_COUNT; op++) {
        if (!(ops & 1u << op))
            continue;
        for (size_t b = 0; b < nbusy; b++) {
            if (cts_busy_is_op_stream((enum cts_op)op, busy[b]))
                continue;
            if (out && n < cap) {
                out[n] = *proto;
                out[n].op = (enum cts_op)op;
                out[n].busy = busy[b];
                cts_case_make_id(&out[n]);
            }
            n++;
        }
    }
    return n;
}

static struct cts_case proto(enum cts_api api, const char *variant, enum cts_dir dir, enum cts_mem mem, int size_idx,
                             enum cts_kind kind)
{
    struct cts_case c = {.family = &cts_family_peer, .api = api, .variant = variant, .dir = dir, .mem = mem,
                         .size_idx = size_idx, .size = size_idx >= 0 ? cts_size_bytes(size_idx) : 0,
                         .kind = kind, .op = CTS_OP_IMPLIED, .busy = CTS_BUSY_SAME};
    return c;
}

#define NBUSY(a) (sizeof a / sizeof *a)

/* Device-to-device copies: by call, then variant (a CTest group:
 * api.variant.dir), then each form of the call. */
static size_t generate_copies(struct cts_case *out, size_t cap, size_t n)
{
    for (size_t first = 0; first < NCOPIES; first++) {
        size_t seen = 0;
        while (seen < first && copies[seen].api != copies[first].api)
            seen++;
        if (seen < first)
            continue; /* that call's forms were emitted with its first */
        for (size_t v = 0; v < NVARIANTS; v++)
            for (size_t f = first; f < NCOPIES; f++)
                for (int s = 0; s < CTS_SIZE_COUNT; s++) {
                    if (copies[f].api != copies[first].api || !(copies[f].variants & 1u << v) ||
                        !(copies[f].sizes & 1u << s))
                        continue;
                    struct cts_case c = proto(copies[f].api, variants[v].name, CTS_DIR_D2D, CTS_MEM_DEVICE, s,
                                              copies[f].kind);
                    n = emit(&c, copies[f].ops, all_busy, NBUSY(all_busy), out, cap, n);
                }
    }
    return n;
}

/* A call of this device made while only the peer is held: its memory and size, if any. */
static struct cts_case device_wide_case(enum cts_api api)
{
    struct cts_case c = proto(api, api == CTS_API_SET_DEVICE ? "to_peer" : "this_device", CTS_DIR_NONE,
                              CTS_MEM_NONE, -1, CTS_KIND_NONE);
    if (api == CTS_API_FREE || api == CTS_API_MALLOC)
        c.mem = CTS_MEM_DEVICE;
    else if (api == CTS_API_FREE_HOST || api == CTS_API_MALLOC_HOST)
        c.mem = CTS_MEM_PINNED;
    else if (api == CTS_API_HOST_REGISTER)
        c.mem = CTS_MEM_REGISTERED;
    else if (api == CTS_API_MEMCPY)
        c.mem = CTS_MEM_PAGEABLE, c.dir = CTS_DIR_H2D, c.kind = CTS_KIND_EXPLICIT;
    if (c.mem != CTS_MEM_NONE) {
        c.size_idx = api == CTS_API_FREE || api == CTS_API_FREE_HOST || api == CTS_API_MEMCPY ? SIZE_4KIB : SIZE_16MIB;
        c.size = cts_size_bytes(c.size_idx);
    }
    return c;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = generate_copies(out, cap, 0);
    for (size_t a = 0; a < sizeof host_copies / sizeof *host_copies; a++)
        for (int to = 1; to >= 0; to--)
            for (size_t m = 0; m < sizeof host_kinds / sizeof *host_kinds; m++) {
                struct cts_case c = proto(host_copies[a], to ? "to_peer" : "from_peer", to ? CTS_DIR_H2D : CTS_DIR_D2H,
                                          host_kinds[m], SIZE_4KIB, CTS_KIND_DEFAULT);
                n = emit(&c, host_copies[a] == CTS_API_MEMCPY ? O_IMPLIED : O_NB, all_busy, NBUSY(all_busy), out,
                         cap, n);
            }
    for (size_t a = 0; a < sizeof device_wide / sizeof *device_wide; a++) {
        struct cts_case c = device_wide_case(device_wide[a]);
        n = emit(&c, device_wide[a] == CTS_API_STREAM_SYNCHRONIZE ? O_NULL : O_IMPLIED, peer_busy, NBUSY(peer_busy),
                 out, cap, n);
    }
    for (size_t a = 0; a < sizeof event_calls / sizeof *event_calls; a++) {
        struct cts_case c = proto(event_calls[a], "peer_event", CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_KIND_NONE);
        n = emit(&c, event_calls[a] == CTS_API_STREAM_WAIT_EVENT ? O_NB : O_IMPLIED, peer_busy, NBUSY(peer_busy),
                 out, cap, n);
    }
    struct cts_case launch = proto(CTS_API_LAUNCH, "this_device", CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_KIND_NONE);
    n = emit(&launch, O_NB, all_busy, NBUSY(all_busy), out, cap, n);
    for (size_t a = 0; a < sizeof access_calls / sizeof *access_calls; a++) {
        struct cts_case c = proto(access_calls[a], NULL, CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_KIND_NONE);
        n = emit(&c, O_IMPLIED, all_busy, NBUSY(all_busy), out, cap, n);
    }
    return out ? (n < cap ? n : cap) : n;
}

const struct peer_variant *peer_variant_of(const struct cts_case *c)
{
    if (c->dir != CTS_DIR_D2D)
        return NULL;
    for (size_t v = 0; v < NVARIANTS; v++)
        if (c->variant && !strcmp(c->variant, variants[v].name))
            return &variants[v];
    return NULL;
}

/* A copy from or to a pool block whose pool grants this device no access: the Programming Guide
 * says such allocations are accessible only from the pool's device (PG-POOL-ACCESS), so a refusal
 * (any error) is allowed; the copy moving the bytes is allowed too (copies are the DMA engines'),
 * and RECORDED either way. */
const char *peer_rejects(const struct cts_case *c, const char **clause)
{
    const struct peer_variant *v = peer_variant_of(c);
    if (!v || !v->pool || v->granted)
        return NULL;
    *clause = "PG-POOL-ACCESS";
    return "";
}

/* A copy between the devices or between host memory and the peer's. */
int peer_is_copy(const struct cts_case *c)
{
    return c->dir != CTS_DIR_NONE && c->variant && strcmp(c->variant, "this_device");
}

/* ---- what a case needs ---------------------------------------------------------------- */

static int count_devices(int *n)
{
    if (cudaGetDeviceCount(n) != cudaSuccess) {
        (void)cudaGetLastError();
        *n = 0;
        return -1;
    }
    return 0;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    int n = 0;
    if (count_devices(&n) || n < 2) {
        snprintf(why, len, "one device: no peer to cross to (%d visible)", n);
        return -1;
    }
    int dev = 0, a = 0, b = 0, pools = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceCanAccessPeer(&a, dev, (dev + 1) % n) != cudaSuccess ||
        cudaDeviceCanAccessPeer(&b, (dev + 1) % n, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, (dev + 1) % n) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: the devices' peer access could not be read");
        return -1;
    }
    const struct peer_variant *v = peer_variant_of(c);
    int wants_access = (v && (v->access || v->pool)) || c->api == CTS_API_DEVICE_ENABLE_PEER_ACCESS ||
                       c->api == CTS_API_DEVICE_DISABLE_PEER_ACCESS;
    if (wants_access && !(a && b)) {
        snprintf(why, len, "devices %d and %d cannot access each other (cudaDeviceCanAccessPeer %d and %d)", dev,
                 (dev + 1) % n, a, b);
        return -1;
    }
    if (v && v->pool && !pools) {
        snprintf(why, len, "cudaDevAttrMemoryPoolsSupported is 0 on device %d", (dev + 1) % n);
        return -1;
    }
    if (c->api == CTS_API_CU_MEMCPY_PEER || c->api == CTS_API_CU_MEMCPY_PEER_ASYNC)
        return cts_need_driver(c->api == CTS_API_CU_MEMCPY_PEER ? "cuMemcpyPeer" : "cuMemcpyPeerAsync", why, len);
    if (c->api == CTS_API_MEMCPY_BATCH_ASYNC)
        return cts_need_driver_version(12080, "cudaMemcpyBatchAsync", why, len);
    return 0;
}

/* ---- the documentation ------------------------------------------------------------------ */

#define RT_MEMORY "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__MEMORY.html"
#define RT_STREAM_MGMT "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html"

static const struct cts_clause clauses[] = {
    {"RT-MEMCPY-PEER", "Runtime API reference, cudaMemcpyPeer",
     "Note that this function is asynchronous with respect to the host, but serialized with respect all pending "
     "and future asynchronous work in to the current device, srcDevice, and dstDevice (use cudaMemcpyPeerAsync to "
     "avoid this synchronization).",
     RT_MEMORY, NULL},
    {"RT-MEMCPY-PEER-ASYNC", "Runtime API reference, cudaMemcpyPeerAsync",
     "Note that this function is asynchronous with respect to the host and all work on other devices.", RT_MEMORY,
     NULL},
    {"RT-MEMCPY-3D-PEER", "Runtime API reference, cudaMemcpy3DPeer",
     "Note that this function is synchronous with respect to the host only if the source or destination of the "
     "transfer is host memory. Note also that this copy is serialized with respect to all pending and future "
     "asynchronous work in to the current device, the copy's source device, and the copy's destination device "
     "(use cudaMemcpy3DPeerAsync to avoid this synchronization).",
     RT_MEMORY, NULL},
    {"PG-POOL-ACCESS",
     "CUDA C++ Programming Guide, Stream Ordered Memory Allocator, Device Accessibility for Multi-GPU Support",
     "Just like allocation accessibility controlled through the virtual memory management APIs, memory pool "
     "allocation accessibility does not follow cudaDeviceEnablePeerAccess or cuCtxEnablePeerAccess. Instead, the "
     "memory pool API, cudaMemPoolSetAccess, modifies what devices can access allocations from a pool. By default, "
     "allocations are accessible from the device where the allocations are located.",
     "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#device-accessibility-for-multi-gpu-support",
     NULL},
    {"RT-STREAM-WAIT-EVENT-PEER", "Runtime API reference, cudaStreamWaitEvent",
     "Makes all future work submitted to stream wait for all work captured in event. [...] event may be from a "
     "different device than stream.",
     RT_STREAM_MGMT, NULL},
    {NULL},
};

/* RT-MEMCPY-PEER and RT-MEMCPY-3D-PEER: the host does not wait, and work queued after the call on
 * the other device (this family's third streams) is serialized behind it, so behind the held work
 * (every placement holds pending work on the current, source or destination device).
 * RT-MEMCPY-PEER-ASYNC: the host does not wait, and the other device's work does not wait for it.
 * The copies between the devices through cudaMemcpyAsync and cudaMemcpy are judged by the
 * general clauses of device-to-device copies; cudaStreamWaitEvent on the peer's event makes later
 * work on its stream wait; cudaEventSynchronize waits for it.  The rest say nothing (RECORDED). */
static void judge(struct cts_judge *j)
{
    const struct cts_case *c = j->c;
    const char *clause;
    if (peer_rejects(c, &clause))
        cts_judge_add(j, clause, CTS_ABOUT_REJECTED, CTS_PRED_MAY);
    switch (c->api) {
    case CTS_API_MEMCPY_PEER:
    case CTS_API_MEMCPY_3D_PEER: {
        /* Serialized behind every pending work of both devices (each placement is such work):
         * work after it on its stream waits; and, the copy held, so does the other device's. */
        const char *id = c->api == CTS_API_MEMCPY_PEER ? "RT-MEMCPY-PEER" : "RT-MEMCPY-3D-PEER";
        cts_judge_add(j, id, CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        cts_judge_add(j, id, CTS_ABOUT_OP_AFTER, CTS_PRED_GUARANTEED);
        if (j->o->verdict.op_after == CTS_ORDER_HELD || j->o->verdict.op_after == CTS_ORDER_HELD_ANYWAY) {
            cts_judge_add(j, id, CTS_ABOUT_THIRD_BLOCKING, CTS_PRED_GUARANTEED);
            cts_judge_add(j, id, CTS_ABOUT_THIRD_NONBLOCKING, CTS_PRED_GUARANTEED);
        }
        break;
    }
    case CTS_API_MEMCPY_PEER_ASYNC:
        cts_judge_add(j, "RT-MEMCPY-PEER-ASYNC", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        cts_judge_add(j, "RT-MEMCPY-PEER-ASYNC", CTS_ABOUT_THIRD_BLOCKING, CTS_PRED_GUARANTEED_NOT);
        cts_judge_add(j, "RT-MEMCPY-PEER-ASYNC", CTS_ABOUT_THIRD_NONBLOCKING, CTS_PRED_GUARANTEED_NOT);
        break;
    case CTS_API_MEMCPY_ASYNC:
        if (c->dir == CTS_DIR_D2D)
            cts_judge_add(j, "RT-SYNC-MEMCPYASYNC-OTHER", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        else if (c->mem == CTS_MEM_PAGEABLE)
            cts_judge_add(j, "RT-SYNC-MEMCPYASYNC-PAGEABLE", CTS_ABOUT_HOST, CTS_PRED_MAY);
        else
            cts_judge_add(j, "RT-SYNC-MEMCPYASYNC-OTHER", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        break;
    case CTS_API_MEMCPY:
        if (c->dir == CTS_DIR_D2D && peer_is_copy(c))
            cts_judge_add(j, "RT-SYNC-MEMCPY-D2D", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        else if (c->dir == CTS_DIR_D2H)
            cts_judge_add(j, "RT-SYNC-MEMCPY-D2H", CTS_ABOUT_LANDED, CTS_PRED_GUARANTEED);
        else if (c->dir == CTS_DIR_H2D && c->mem == CTS_MEM_PINNED && peer_is_copy(c))
            cts_judge_add(j, "RT-SYNC-MEMCPY-PINNED-H2D", CTS_ABOUT_LANDED, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_STREAM_WAIT_EVENT:
        cts_judge_add(j, "RT-STREAM-WAIT-EVENT-PEER", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        cts_judge_add(j, "RT-STREAM-WAIT-EVENT-PEER", CTS_ABOUT_OP_AFTER, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_EVENT_SYNCHRONIZE:
        cts_judge_add(j, "RT-EVENT-SYNCHRONIZE", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_DEVICE_SYNCHRONIZE: cts_judge_add(j, "RT-DEVICE-SYNCHRONIZE", CTS_ABOUT_HOST, CTS_PRED_MAY); break;
    case CTS_API_MALLOC:
    case CTS_API_FREE: cts_judge_add(j, "PG-SOMA", CTS_ABOUT_HOST, CTS_PRED_MAY); break;
    case CTS_API_SET_DEVICE:
        cts_judge_add(j, "RT-SET-DEVICE", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        cts_judge_add(j, "RT-SET-DEVICE", CTS_ABOUT_THIRD_BLOCKING, CTS_PRED_GUARANTEED_NOT);
        cts_judge_add(j, "RT-SET-DEVICE", CTS_ABOUT_THIRD_NONBLOCKING, CTS_PRED_GUARANTEED_NOT);
        break;
    default: break;
    }
}

const struct cts_family cts_family_peer = {
    .name = "peer", .crosses = 1, .generate = generate, .needs = needs, .measure = peer_measure,
    .rejects = peer_rejects, .clauses = clauses, .judge = judge, .judges_alone = 1,
};