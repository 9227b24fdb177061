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
 * cudaMemcpyBatchAsync below 12.8; a driver API copy the driver lacks. */
#define _GNU_SOURCE
#include "../harness/core/cts.h"
#include "../harness/families/driver.h"
#include "../harness/engine/engine.h" /* TRACK_FRACTION */
#include "../harness/families/family.h"
#include "../harness/engine/hold.h"
#include "../harness/families/kernels.h"
#include "../harness/core/latch.h"
#include "../harness/core/spec.h"
#include "../harness/families/stallgate.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES ((size_t)(16u << 20) + 4096u)
#define STALL_US 10000.0   /* the watchdog opens a gate this long after the last return, at least */
#define STALL_FACTOR 4.0
#define WINDOW_US 2000.0   /* a marker gets this long to run while the gates are closed */
#define TRIES 3
#define IDLE_CALLS 3
#define SIZE_4KIB 1
#define SIZE_16MIB 6
#define WIDTH_3D 1024      /* a 3D peer copy: rows of this many bytes, one slice */

/* ---- the grid -------------------------------------------------------------------------- */

struct variant {
    const char *name;
    int to_peer;   /* the destination is the peer's (else the source) */
    int access;    /* peer access enabled both ways (else disabled) */
    int pool;      /* the peer side is a pool block */
    int granted;   /* ... its pool's access granted to this device */
};
static const struct variant variants[] = {
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

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    /* By call, then variant (a CTest group: api.variant.dir), then each form of the call. */
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
    for (size_t a = 0; a < sizeof host_copies / sizeof *host_copies; a++)
        for (int to = 1; to >= 0; to--)
            for (size_t m = 0; m < sizeof host_kinds / sizeof *host_kinds; m++) {
                struct cts_case c = proto(host_copies[a], to ? "to_peer" : "from_peer", to ? CTS_DIR_H2D : CTS_DIR_D2H,
                                          host_kinds[m], SIZE_4KIB, CTS_KIND_DEFAULT);
                n = emit(&c, host_copies[a] == CTS_API_MEMCPY ? O_IMPLIED : O_NB, all_busy, NBUSY(all_busy), out,
                         cap, n);
            }
    for (size_t a = 0; a < sizeof device_wide / sizeof *device_wide; a++) {
        enum cts_api api = device_wide[a];
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
        if (c.mem != CTS_MEM_NONE)
            c.size_idx = api == CTS_API_FREE || api == CTS_API_FREE_HOST || api == CTS_API_MEMCPY ? SIZE_4KIB
                                                                                                 : SIZE_16MIB,
            c.size = cts_size_bytes(c.size_idx);
        n = emit(&c, api == CTS_API_STREAM_SYNCHRONIZE ? O_NULL : O_IMPLIED, peer_busy, NBUSY(peer_busy), out, cap,
                 n);
    }
    for (size_t a = 0; a < sizeof event_calls / sizeof *event_calls; a++) {
        struct cts_case c = proto(event_calls[a], "peer_event", CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_KIND_NONE);
        n = emit(&c, event_calls[a] == CTS_API_STREAM_WAIT_EVENT ? O_NB : O_IMPLIED, peer_busy, NBUSY(peer_busy),
                 out, cap, n);
    }
    {
        struct cts_case c = proto(CTS_API_LAUNCH, "this_device", CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_KIND_NONE);
        n = emit(&c, O_NB, all_busy, NBUSY(all_busy), out, cap, n);
    }
    for (size_t a = 0; a < sizeof access_calls / sizeof *access_calls; a++) {
        struct cts_case c = proto(access_calls[a], NULL, CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_KIND_NONE);
        n = emit(&c, O_IMPLIED, all_busy, NBUSY(all_busy), out, cap, n);
    }
    return out ? (n < cap ? n : cap) : n;
}

static const struct variant *variant_of(const struct cts_case *c)
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
static const char *rejects(const struct cts_case *c, const char **clause)
{
    const struct variant *v = variant_of(c);
    if (!v || !v->pool || v->granted)
        return NULL;
    *clause = "PG-POOL-ACCESS";
    return "";
}

/* A copy between the devices or between host memory and the peer's. */
static int is_copy(const struct cts_case *c) { return c->dir != CTS_DIR_NONE && c->variant && strcmp(c->variant, "this_device"); }

/* ---- what the family keeps ---------------------------------------------------------- */

enum { S_OP_NB, S_BUSY_NB, S_BUSY_BL, S_THIRD_NB, S_THIRD_BL, S_SIDE, S_COUNT };
enum { MK_OP, MK_THIRD_BL, MK_THIRD_NB, MK_COUNT };

static struct {
    int ready;
    char why[CTS_REASON_MAX];
    int dev[2];                 /* [0] this device, [1] the peer */
    int can_access;             /* cudaDeviceCanAccessPeer, both ways */
    int access[2];              /* device k's access to the other is enabled now */
    int pools;                  /* the peer has memory pools */
    cudaStream_t s[2][S_COUNT]; /* per device */
    struct cts_stallgate g[2];  /* one gate a device */
    struct cts_marker_record *mk_host, *mk_dev; /* MK_COUNT of them */
    unsigned seq;
    void *buf[2];               /* BYTES of device memory on each */
    void *pinned, *pageable;    /* BYTES of host memory */
    unsigned char *stage;       /* pinned: a device destination read back */
    unsigned char *land;        /* pinned: a synchronous copy's destination samples */
    cudaMemPool_t pool;         /* on the peer */
    void *block;                /* BYTES from it, kept */
    int granted;                /* its access granted to this device now */
    cudaEvent_t event;          /* on the peer */
    CUcontext ctx[2];           /* the primary contexts (cuMemcpyPeer) */
} d;

static const char *failed_at = "";
#define TRY(call) CTS_TRY_AT(failed_at, call)

/* Runs on device `side` (0 this, 1 the peer) and comes back to this one. */
#define ON(side, call)                                  \
    do {                                                \
        TRY(cudaSetDevice(d.dev[side]));                \
        cudaError_t on_ = (call);                       \
        cudaError_t back_ = cudaSetDevice(d.dev[0]);    \
        if (on_ != cudaSuccess) {                       \
            failed_at = #call;                          \
            return on_;                                 \
        }                                               \
        TRY(back_);                                     \
    } while (0)

static int count_devices(int *n)
{
    if (cudaGetDeviceCount(n) != cudaSuccess) {
        (void)cudaGetLastError();
        *n = 0;
        return -1;
    }
    return 0;
}

static cudaError_t setup_side(int k)
{
    TRY(cudaSetDevice(d.dev[k]));
    for (int i = 0; i < S_COUNT; i++)
        TRY(cudaStreamCreateWithFlags(&d.s[k][i], i == S_BUSY_BL || i == S_THIRD_BL ? cudaStreamDefault
                                                                                    : cudaStreamNonBlocking));
    TRY(cudaMalloc(&d.buf[k], BYTES));
    if (cts_drv.cuCtxGetCurrent) {
        TRY(cudaFree(NULL));
        if (cts_drv.cuCtxGetCurrent(&d.ctx[k]) != CUDA_SUCCESS) {
            failed_at = "cuCtxGetCurrent";
            return cudaErrorUnknown;
        }
    }
    return cudaSetDevice(d.dev[0]);
}

static cudaError_t setup_pool(void)
{
#if CUDART_VERSION >= 11020
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = d.dev[1];
    TRY(cudaMemPoolCreate(&d.pool, &props));
    ON(1, cudaMallocFromPoolAsync(&d.block, BYTES, d.pool, d.s[1][S_SIDE]));
    ON(1, cudaStreamSynchronize(d.s[1][S_SIDE]));
#endif
    return cudaSuccess;
}

static cudaError_t setup_resources(void)
{
    int n = 0, v = 0;
    TRY(cudaGetDevice(&d.dev[0]));
    TRY(cudaGetDeviceCount(&n));
    d.dev[1] = (d.dev[0] + 1) % n;
    int a = 0, b = 0;
    TRY(cudaDeviceCanAccessPeer(&a, d.dev[0], d.dev[1]));
    TRY(cudaDeviceCanAccessPeer(&b, d.dev[1], d.dev[0]));
    d.can_access = a && b;
    TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, d.dev[1]));
    d.pools = v;
    for (int k = 0; k < 2; k++) {
        cudaError_t e = setup_side(k);
        if (e != cudaSuccess)
            return e;
    }
    TRY(cudaHostAlloc((void **)&d.mk_host, MK_COUNT * sizeof *d.mk_host, cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&d.mk_dev, d.mk_host, 0));
    memset((void *)d.mk_host, 0, MK_COUNT * sizeof *d.mk_host);
    TRY(cudaMallocHost(&d.pinned, BYTES));
    TRY(cudaMallocHost((void **)&d.stage, BYTES));
    TRY(cudaMallocHost((void **)&d.land, 64));
    if (!(d.pageable = malloc(BYTES))) {
        failed_at = "malloc";
        return cudaErrorMemoryAllocation;
    }
    memset(d.pageable, 0, BYTES);
    ON(1, cudaEventCreateWithFlags(&d.event, cudaEventDisableTiming));
    if (d.pools && d.can_access) {
        cudaError_t e = setup_pool();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

static int gate_init(int k)
{
    if (cudaSetDevice(d.dev[k]) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(d.why, sizeof d.why, "harness: cudaSetDevice(%d) failed", d.dev[k]);
        return -1;
    }
    int bad = cts_sg_init(&d.g[k], d.why, sizeof d.why);
    if (cudaSetDevice(d.dev[0]) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(d.why, sizeof d.why, "harness: cudaSetDevice(%d) failed", d.dev[0]);
        return -1;
    }
    return bad;
}

static int hold(int k, cudaStream_t s, char *why, size_t len);
static cudaError_t marker(cudaStream_t s, struct cts_marker_record *rec, unsigned seq);
static int drain_held(const int *k, int nk, char *why, size_t len);

static int setup(void)
{
    if (d.ready)
        return d.why[0] ? -1 : 0;
    d.ready = 1;
    cudaError_t err = setup_resources();
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(d.why, sizeof d.why, "harness: the peer family's set-up: %s returned %s", failed_at,
                 cudaGetErrorName(err));
        (void)cudaSetDevice(d.dev[0]);
        return -1;
    }
    if (gate_init(0) || gate_init(1))
        return -1;
    /* First use: a marker and the sleep kernel on each device (module loading), with nothing held
     * (under CUDA_LAUNCH_BLOCKING=1 a launch waits for the device's held work: H200, 580.159.04),
     * then a gate, drained. */
    for (int k = 0; k < 2; k++) {
        cudaError_t e = cudaSetDevice(d.dev[k]);
        if (e == cudaSuccess)
            e = marker(d.s[k][S_SIDE], &d.mk_dev[MK_OP], ++d.seq);
        if (e == cudaSuccess)
            e = cts_launch_sleep(d.s[k][S_SIDE], 0);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e == cudaSuccess)
            e = cudaSetDevice(d.dev[0]);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            snprintf(d.why, sizeof d.why, "harness: the peer family's first marker returned %s", cudaGetErrorName(e));
            return -1;
        }
        if (hold(k, d.s[k][S_BUSY_NB], d.why, sizeof d.why))
            return -1;
        if (drain_held(&k, 1, d.why, sizeof d.why)) {
            if (!d.why[0])
                snprintf(d.why, sizeof d.why, "harness: the first drain failed");
            return -1;
        }
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
    const struct variant *v = variant_of(c);
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

/* ---- holding, markers, draining ------------------------------------------------------ */

static int hold(int k, cudaStream_t s, char *why, size_t len)
{
    if (cudaSetDevice(d.dev[k]) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: cudaSetDevice(%d) failed", d.dev[k]);
        return -1;
    }
    int bad = cts_sg_hold_by(&d.g[k], s, cts_hold_selected == CTS_HOLD_WAIT_VALUE, why, len);
    if (cudaSetDevice(d.dev[0]) != cudaSuccess && !bad) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: cudaSetDevice(%d) failed", d.dev[0]);
        return -1;
    }
    return bad;
}

/* cudaStreamQuery until s is idle, or DRAIN_LIMIT_US after since_us (cudaErrorNotReady). */
static cudaError_t drained(cudaStream_t s, double since_us)
{
    struct timespec nap = {0, 100000L};
    cudaError_t err;
    while ((err = cudaStreamQuery(s)) == cudaErrorNotReady && cts_now_us() - since_us < DRAIN_LIMIT_US)
        nanosleep(&nap, NULL);
    return err;
}

/* Opens both gates and waits for every stream of both devices to drain; then checks that each
 * gate held this try (k[0..nk)) was ended by its flag, not by its own deadline.  0; -1 with why
 * (the harness); -2 (TIMEOUT). */
static int drain_held(const int *k, int nk, char *why, size_t len)
{
    for (int i = 0; i < 2; i++)
        cts_sg_open(&d.g[i]);
    double t0 = cts_now_us();
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < 2 && err == cudaSuccess; i++) {
        err = cudaSetDevice(d.dev[i]);
        cudaStream_t all[S_COUNT + 2] = {cudaStreamLegacy, cudaStreamPerThread};
        for (int j = 0; j < S_COUNT; j++)
            all[j + 2] = d.s[i][j];
        for (int j = 0; j < S_COUNT + 2 && err == cudaSuccess; j++)
            err = drained(all[j], t0);
    }
    cudaError_t back = cudaSetDevice(d.dev[0]);
    if (err == cudaErrorNotReady) {
        snprintf(why, len, "harness: the streams did not drain within %.0f s of the gates' opening",
                 DRAIN_LIMIT_US / 1e6);
        return -2;
    }
    if (err == cudaSuccess)
        err = back;
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: draining returned %s", cudaGetErrorName(err));
        return -1;
    }
    for (int i = 0; i < nk; i++) {
        const struct cts_stallgate *g = &d.g[k[i]];
        if (g->gate_host->ended != g->seq || g->gate_host->reason != CTS_GATE_OPENED) {
            snprintf(why, len, "harness: the gate on device %d ended by its own deadline, not by the flag",
                     d.dev[k[i]]);
            return -1;
        }
    }
    return 0;
}

static int drain(char *why, size_t len) { return drain_held(NULL, 0, why, len); }

/* The stream a placement or marker names, and its device. */
static cudaStream_t op_stream(const struct cts_case *c)
{
    return c->op == CTS_OP_NONBLOCKING ? d.s[0][S_OP_NB] : (cudaStream_t)0; /* 0: the build's default */
}

/* The held streams of c's placement (at most two) and their devices; returns how many. */
static int held_streams(const struct cts_case *c, cudaStream_t s[2], int k[2])
{
    switch (c->busy) {
    case CTS_BUSY_SAME: s[0] = op_stream(c), k[0] = 0; return 1;
    case CTS_BUSY_LEGACY: s[0] = cudaStreamLegacy, k[0] = 0; return 1;
    case CTS_BUSY_BLOCKING: s[0] = d.s[0][S_BUSY_BL], k[0] = 0; return 1;
    case CTS_BUSY_NONBLOCKING: s[0] = d.s[0][S_BUSY_NB], k[0] = 0; return 1;
    case CTS_BUSY_PEER_LEGACY: s[0] = cudaStreamLegacy, k[0] = 1; return 1;
    case CTS_BUSY_PEER_BLOCKING: s[0] = d.s[1][S_BUSY_BL], k[0] = 1; return 1;
    case CTS_BUSY_PEER_NONBLOCKING: s[0] = d.s[1][S_BUSY_NB], k[0] = 1; return 1;
    case CTS_BUSY_BOTH:
        s[0] = d.s[0][S_BUSY_NB], k[0] = 0;
        s[1] = d.s[1][S_BUSY_NB], k[1] = 1;
        return 2;
    default: return 0;
    }
}

/* A marker: a kernel, or under the wait-value hold a stream write (hold.c's: not a launch, which
 * CUDA_LAUNCH_BLOCKING=1 would make wait). */
static cudaError_t marker(cudaStream_t s, struct cts_marker_record *rec, unsigned seq)
{
    if (cts_hold_selected != CTS_HOLD_WAIT_VALUE)
        return cts_launch_marker(s, rec, seq);
    return cts_drv.cuStreamWriteValue32((CUstream)s, (CUdeviceptr)(uintptr_t)&rec->done, seq, 0) == CUDA_SUCCESS
               ? cudaSuccess
               : cudaErrorUnknown;
}

/* Launches the three markers (the peer's third streams first, as the engine does). */
static cudaError_t markers(const struct cts_case *c, unsigned seq)
{
    ON(1, marker(d.s[1][S_THIRD_BL], &d.mk_dev[MK_THIRD_BL], seq));
    ON(1, marker(d.s[1][S_THIRD_NB], &d.mk_dev[MK_THIRD_NB], seq));
    TRY(marker(op_stream(c), &d.mk_dev[MK_OP], seq));
    return cudaSuccess;
}

static int all_closed(const int *k, int nk)
{
    for (int i = 0; i < nk; i++)
        if (!cts_sg_flag_closed(&d.g[k[i]]))
            return 0;
    return 1;
}

/* Waits WINDOW_US for the markers of seq while the held gates stay closed: each RUNS if it ran,
 * HELD if not and the gates were closed throughout, else NA. */
static void watch(unsigned seq, const int *k, int nk, enum cts_order out[MK_COUNT])
{
    double t0 = cts_now_us();
    int done = 0;
    while (cts_now_us() - t0 < WINDOW_US && all_closed(k, nk)) {
        done = 1;
        for (int i = 0; i < MK_COUNT; i++)
            done &= d.mk_host[i].done == seq;
        if (done)
            break;
    }
    int closed = all_closed(k, nk);
    for (int i = 0; i < MK_COUNT; i++)
        out[i] = d.mk_host[i].done == seq ? CTS_ORDER_RUNS : closed ? CTS_ORDER_HELD : CTS_ORDER_NA;
}

/* ---- a case's memory and state ------------------------------------------------------ */

struct plan {
    void *src, *dst;
    int srcdev, dstdev;       /* device indices (cudaMemcpyPeer's) */
    int dst_side;             /* 0 this device, 1 the peer, -1 host */
    size_t n;
    void *scratch;            /* a device-wide call's pointer (freed, allocated, registered) */
};

/* Peer access enabled (on) or disabled both ways. */
static cudaError_t set_access(int on)
{
    for (int k = 0; k < 2; k++) {
        if (d.access[k] == on)
            continue;
        TRY(cudaSetDevice(d.dev[k]));
        cudaError_t e = on ? cudaDeviceEnablePeerAccess(d.dev[1 - k], 0) : cudaDeviceDisablePeerAccess(d.dev[1 - k]);
        if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaErrorPeerAccessNotEnabled)
            (void)cudaGetLastError(); /* the state wanted already */
        else if (e != cudaSuccess) {
            failed_at = on ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess";
            (void)cudaSetDevice(d.dev[0]);
            return e;
        }
        d.access[k] = on;
    }
    TRY(cudaSetDevice(d.dev[0]));
    return cudaSuccess;
}

static cudaError_t set_granted(int on)
{
#if CUDART_VERSION >= 11020
    if (!d.block || d.granted == on)
        return cudaSuccess;
    struct cudaMemAccessDesc a;
    memset(&a, 0, sizeof a);
    a.location.type = cudaMemLocationTypeDevice;
    a.location.id = d.dev[0];
    a.flags = on ? cudaMemAccessFlagsProtReadWrite : cudaMemAccessFlagsProtNone;
    TRY(cudaMemPoolSetAccess(d.pool, &a, 1));
    d.granted = on;
#else
    (void)on;
#endif
    return cudaSuccess;
}

/* The pointers of a copy, the state its variant wants set; the source filled with v and the
 * destination with u, the device idle. */
static cudaError_t plan_copy(const struct cts_case *c, struct plan *p, unsigned char v, unsigned char u)
{
    const struct variant *var = variant_of(c);
    int to = c->variant && !strncmp(c->variant, "to_", 3);
    void *peer_side = var && var->pool ? d.block : d.buf[1];
    void *this_side = c->dir == CTS_DIR_D2D ? d.buf[0] : c->mem == CTS_MEM_PINNED ? d.pinned : d.pageable;
    p->n = c->size;
    p->src = to ? this_side : peer_side;
    p->dst = to ? peer_side : this_side;
    p->srcdev = to ? d.dev[0] : d.dev[1];
    p->dstdev = to ? d.dev[1] : d.dev[0];
    p->dst_side = to ? 1 : c->dir == CTS_DIR_D2D ? 0 : -1;
    TRY(set_access(var ? var->access : 0));
    TRY(set_granted(var && var->pool ? var->granted : 0));
    int src_side = to ? (c->dir == CTS_DIR_D2D ? 0 : -1) : 1;
    if (src_side < 0)
        memset(p->src, v, p->n);
    else
        ON(src_side, cudaMemset(p->src, v, p->n));
    if (p->dst_side < 0)
        memset(p->dst, u, p->n);
    else
        ON(p->dst_side, cudaMemset(p->dst, u, p->n));
    ON(0, cudaDeviceSynchronize());
    ON(1, cudaDeviceSynchronize());
    return cudaSuccess;
}

/* How many of the destination's n bytes are v, the device idle (-1: it could not be read). */
static long long count_moved(const struct plan *p, unsigned char v)
{
    const unsigned char *b = p->dst;
    if (p->dst_side >= 0) {
        if (cudaSetDevice(d.dev[p->dst_side]) != cudaSuccess ||
            cudaMemcpy(d.stage, p->dst, p->n, cudaMemcpyDeviceToHost) != cudaSuccess) {
            (void)cudaGetLastError();
            (void)cudaSetDevice(d.dev[0]);
            return -1;
        }
        (void)cudaSetDevice(d.dev[0]);
        b = d.stage;
    }
    long long moved = 0;
    for (size_t i = 0; i < p->n; i++)
        moved += b[i] == v;
    return moved;
}

/* Right after a synchronous copy returned: its destination's first, middle and last byte. */
static enum cts_dst landed(const struct plan *p, unsigned char v)
{
    size_t off[3] = {0, p->n / 2, p->n - 1};
    const unsigned char *b = p->dst;
    if (p->dst_side >= 0) {
        cudaStream_t s = d.s[p->dst_side][S_SIDE];
        int bad = cudaSetDevice(d.dev[p->dst_side]) != cudaSuccess;
        for (int i = 0; i < 3 && !bad; i++)
            bad = cudaMemcpyAsync(d.land + i, (const unsigned char *)p->dst + off[i], 1, cudaMemcpyDeviceToHost, s) !=
                  cudaSuccess;
        bad = bad || cudaStreamSynchronize(s) != cudaSuccess;
        if (bad)
            (void)cudaGetLastError();
        (void)cudaSetDevice(d.dev[0]);
        if (bad)
            return CTS_DST_NA;
        b = d.land;
        off[0] = 0, off[1] = 1, off[2] = 2;
    }
    for (int i = 0; i < 3; i++)
        if (((volatile const unsigned char *)b)[off[i]] != v)
            return CTS_DST_PENDING;
    return CTS_DST_COMPLETE;
}

/* A device-wide call's set-up, the device idle. */
static cudaError_t prepare_other(const struct cts_case *c, struct plan *p)
{
    p->scratch = NULL;
    switch (c->api) {
    case CTS_API_FREE: TRY(cudaMalloc(&p->scratch, c->size)); break;
    case CTS_API_FREE_HOST: TRY(cudaMallocHost(&p->scratch, c->size)); break;
    case CTS_API_HOST_REGISTER:
        if (!(p->scratch = malloc(c->size))) {
            failed_at = "malloc";
            return cudaErrorMemoryAllocation;
        }
        memset(p->scratch, 1, c->size);
        break;
    case CTS_API_MEMCPY: memset(d.pageable, 0x5a, c->size); break;
    case CTS_API_DEVICE_ENABLE_PEER_ACCESS: TRY(set_access(0)); break;
    case CTS_API_DEVICE_DISABLE_PEER_ACCESS: TRY(set_access(1)); break;
    default: break;
    }
    return cudaSuccess;
}

/* ... and its clean-up, the device idle (whether or not the call succeeded). */
static cudaError_t cleanup_other(const struct cts_case *c, struct plan *p, int ok)
{
    switch (c->api) {
    case CTS_API_MALLOC:
        if (ok)
            TRY(cudaFree(p->scratch));
        break;
    case CTS_API_MALLOC_HOST:
        if (ok)
            TRY(cudaFreeHost(p->scratch));
        break;
    case CTS_API_FREE:
        if (!ok)
            TRY(cudaFree(p->scratch));
        break;
    case CTS_API_FREE_HOST:
        if (!ok)
            TRY(cudaFreeHost(p->scratch));
        break;
    case CTS_API_HOST_REGISTER:
        if (ok)
            TRY(cudaHostUnregister(p->scratch));
        free(p->scratch);
        break;
    case CTS_API_DEVICE_ENABLE_PEER_ACCESS: d.access[0] = ok; break; /* what the call left */
    case CTS_API_DEVICE_DISABLE_PEER_ACCESS: d.access[0] = !ok; break;
    default: break;
    }
    p->scratch = NULL;
    return cudaSuccess;
}

/* ---- the call -------------------------------------------------------------------------- */

static int cu(CUresult r, const char **error) { return cts_driver_result(r, error); }

static int issue_copy(const struct cts_case *c, const struct plan *p, cudaStream_t s, const char **error)
{
    enum cudaMemcpyKind kind = cudaMemcpyDefault;
    if (c->kind == CTS_KIND_EXPLICIT)
        kind = c->dir == CTS_DIR_H2D ? cudaMemcpyHostToDevice : c->dir == CTS_DIR_D2H ? cudaMemcpyDeviceToHost
                                                                                    : cudaMemcpyDeviceToDevice;
    switch (c->api) {
    case CTS_API_MEMCPY_PEER_ASYNC:
        return cts_result(cudaMemcpyPeerAsync(p->dst, p->dstdev, p->src, p->srcdev, p->n, s), error);
    case CTS_API_MEMCPY_PEER: return cts_result(cudaMemcpyPeer(p->dst, p->dstdev, p->src, p->srcdev, p->n), error);
    case CTS_API_MEMCPY_ASYNC: return cts_result(cudaMemcpyAsync(p->dst, p->src, p->n, kind, s), error);
    case CTS_API_MEMCPY: return cts_result(cudaMemcpy(p->dst, p->src, p->n, kind), error);
    case CTS_API_MEMCPY_3D_PEER:
    case CTS_API_MEMCPY_3D_PEER_ASYNC: {
        struct cudaMemcpy3DPeerParms q;
        memset(&q, 0, sizeof q);
        q.srcPtr = (struct cudaPitchedPtr){(void *)p->src, WIDTH_3D, WIDTH_3D, p->n / WIDTH_3D};
        q.dstPtr = (struct cudaPitchedPtr){p->dst, WIDTH_3D, WIDTH_3D, p->n / WIDTH_3D};
        q.srcDevice = p->srcdev;
        q.dstDevice = p->dstdev;
        q.extent = (struct cudaExtent){WIDTH_3D, p->n / WIDTH_3D, 1};
        return cts_result(c->api == CTS_API_MEMCPY_3D_PEER ? cudaMemcpy3DPeer(&q) : cudaMemcpy3DPeerAsync(&q, s),
                          error);
    }
    case CTS_API_CU_MEMCPY_PEER:
        return cu(cts_drv.cuMemcpyPeer((CUdeviceptr)p->dst, d.ctx[p->dstdev == d.dev[0] ? 0 : 1], (CUdeviceptr)p->src,
                                       d.ctx[p->srcdev == d.dev[0] ? 0 : 1], p->n),
                  error);
    case CTS_API_CU_MEMCPY_PEER_ASYNC:
        return cu(cts_drv.cuMemcpyPeerAsync((CUdeviceptr)p->dst, d.ctx[p->dstdev == d.dev[0] ? 0 : 1],
                                            (CUdeviceptr)p->src, d.ctx[p->srcdev == d.dev[0] ? 0 : 1], p->n,
                                            (CUstream)s),
                  error);
#if CUDART_VERSION >= 12080
    case CTS_API_MEMCPY_BATCH_ASYNC: {
        void *dsts[1] = {p->dst};
        const void *srcs[1] = {p->src};
        size_t sizes[1] = {p->n}, idx[1] = {0};
        struct cudaMemcpyAttributes attr;
        memset(&attr, 0, sizeof attr);
        attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
#if CUDART_VERSION >= 13000
        return cts_result(cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, idx, 1, s), error);
#else
        size_t fail = 0;
        return cts_result(cudaMemcpyBatchAsync(dsts, (void **)srcs, sizes, 1, &attr, idx, 1, &fail, s), error);
#endif
    }
#endif
    default: *error = "harness: not a copy of the peer family"; return 1;
    }
}

static int issue_other(const struct cts_case *c, struct plan *p, cudaStream_t s, const char **error)
{
    switch (c->api) {
    case CTS_API_DEVICE_SYNCHRONIZE: return cts_result(cudaDeviceSynchronize(), error);
    case CTS_API_FREE: return cts_result(cudaFree(p->scratch), error);
    case CTS_API_FREE_HOST: return cts_result(cudaFreeHost(p->scratch), error);
    case CTS_API_MALLOC: return cts_result(cudaMalloc(&p->scratch, c->size), error);
    case CTS_API_MALLOC_HOST: return cts_result(cudaMallocHost(&p->scratch, c->size), error);
    case CTS_API_HOST_REGISTER: return cts_result(cudaHostRegister(p->scratch, c->size, cudaHostRegisterDefault), error);
    case CTS_API_STREAM_SYNCHRONIZE: return cts_result(cudaStreamSynchronize(s), error);
    case CTS_API_MEMCPY: return cts_result(cudaMemcpy(d.buf[0], d.pageable, c->size, cudaMemcpyHostToDevice), error);
    case CTS_API_SET_DEVICE: return cts_result(cudaSetDevice(d.dev[1]), error);
    case CTS_API_LAUNCH: return cts_result(cts_launch_sleep(s, 0), error);
    case CTS_API_STREAM_WAIT_EVENT: return cts_result(cudaStreamWaitEvent(s, d.event, 0), error);
    case CTS_API_EVENT_SYNCHRONIZE: return cts_result(cudaEventSynchronize(d.event), error);
    case CTS_API_DEVICE_ENABLE_PEER_ACCESS: return cts_result(cudaDeviceEnablePeerAccess(d.dev[1], 0), error);
    case CTS_API_DEVICE_DISABLE_PEER_ACCESS: return cts_result(cudaDeviceDisablePeerAccess(d.dev[1]), error);
    default: *error = "harness: not a call of the peer family"; return 1;
    }
}

static int issue(const struct cts_case *c, struct plan *p, const char **error)
{
    cudaStream_t s = op_stream(c);
    int bad = is_copy(c) ? issue_copy(c, p, s, error) : issue_other(c, p, s, error);
    if (bad)
        (void)cudaGetLastError();
    return bad;
}

/* ---- one try ---------------------------------------------------------------------------- */

struct try {
    struct cts_beside_try t;   /* returned, early, call_us (cts_beside_decide) */
    int ok;                    /* the call returned success */
    const char *error;         /* ... else its error */
    double after_us;           /* from the first gate's opening to the return */
    enum cts_order ctl[MK_COUNT], seen[MK_COUNT];
    enum cts_dst dst, landed;
    long long moved;           /* a copy: destination bytes that are v (-1: not read) */
};

static int failed(char *why, size_t len, const char *what)
{
    (void)cudaGetLastError();
    snprintf(why, len, "harness: %s returned %s", failed_at, what);
    char ignored[CTS_REASON_MAX];
    (void)drain(ignored, sizeof ignored);
    (void)cudaSetDevice(d.dev[0]);
    return -1;
}

/* 0; -1 with why (the harness); -2 (TIMEOUT). */
static int try_call(const struct cts_case *c, double stall_us, struct try *f, char *why, size_t len)
{
    memset(f, 0, sizeof *f);
    f->moved = -1;
    struct plan p;
    memset(&p, 0, sizeof p);
    unsigned seq = ++d.seq;
    unsigned char v = (unsigned char)(0x10 + seq % 0x60), u = v ^ 0x80;
    int copy = is_copy(c);
    cudaError_t err = copy ? plan_copy(c, &p, v, u) : prepare_other(c, &p);
    if (err != cudaSuccess)
        return failed(why, len, cudaGetErrorName(err));
    cudaStream_t hs[2];
    int hk[2], nh = held_streams(c, hs, hk);
    for (int i = 0; i < nh; i++)
        if (hold(hk[i], hs[i], why, len)) {
            char ignored[CTS_REASON_MAX];
            (void)drain(ignored, sizeof ignored);
            return -1;
        }
    failed_at = "";
    if (c->api == CTS_API_EVENT_SYNCHRONIZE || c->api == CTS_API_STREAM_WAIT_EVENT) {
        err = cudaSetDevice(d.dev[1]);
        if (err == cudaSuccess)
            err = cudaEventRecord(d.event, hs[0]);
        (void)cudaSetDevice(d.dev[0]);
        if (err != cudaSuccess) {
            failed_at = "cudaEventRecord on the peer's held stream";
            return failed(why, len, cudaGetErrorName(err));
        }
    }
    if ((err = markers(c, seq)) != cudaSuccess)
        return failed(why, len, cudaGetErrorName(err));
    watch(seq, hk, nh, f->ctl);
    for (int i = 0; i < MK_COUNT; i++)
        if (f->ctl[i] == CTS_ORDER_NA) {
            char ignored[CTS_REASON_MAX];
            (void)drain(ignored, sizeof ignored);
            snprintf(why, len, "harness: a gate opened before the control's markers were seen");
            return -1;
        }
    for (int i = 0; i < nh; i++)
        cts_sg_arm(&d.g[hk[i]], stall_us);
    double t0 = cts_now_us();
    int bad = issue(c, &p, &f->error);
    double t1 = cts_now_us();
    int closed = 1;
    for (int i = 0; i < nh; i++)
        closed &= cts_sg_returned_closed(&d.g[hk[i]]);
    if (c->api == CTS_API_SET_DEVICE && !bad && cudaSetDevice(d.dev[0]) != cudaSuccess) {
        failed_at = "cudaSetDevice back to this device";
        return failed(why, len, "an error");
    }
    f->ok = !bad;
    f->t.returned = closed;
    double rel = NAN;
    for (int i = 0; i < nh; i++) {
        double r = cts_sg_released_us(&d.g[hk[i]]);
        if (!isnan(r) && (isnan(rel) || r < rel))
            rel = r;
    }
    f->t.early = !closed && (isnan(rel) || t1 < rel);
    f->t.filled = f->t.full = 1; /* nothing to fill: cts_beside_decide reads returned and the times */
    f->t.call_us = t1 - t0;
    f->after_us = closed ? NAN : t1 - rel;
    if (copy && f->ok && c->op == CTS_OP_IMPLIED)
        f->landed = landed(&p, v);
    if (copy && f->ok && p.dst_side < 0 && closed) {
        int all = 1;
        for (size_t i = 0; i < p.n; i += p.n / 4 > 0 ? p.n / 4 : 1)
            all &= ((volatile const unsigned char *)p.dst)[i] == v;
        f->dst = all ? CTS_DST_COMPLETE : CTS_DST_PENDING;
    }
    if (closed) {
        unsigned after = ++d.seq;
        if ((err = markers(c, after)) != cudaSuccess)
            return failed(why, len, cudaGetErrorName(err));
        watch(after, hk, nh, f->seen);
    }
    int dr = drain_held(hk, nh, why, len);
    if (dr)
        return dr;
    if (copy && f->ok)
        f->moved = count_moved(&p, v);
    if ((err = cleanup_other(c, &p, f->ok)) != cudaSuccess)
        return failed(why, len, cudaGetErrorName(err));
    if (copy && f->ok && f->moved < 0) {
        snprintf(why, len, "harness: the destination could not be read back");
        return -1;
    }
    return 0;
}

/* ---- a case ------------------------------------------------------------------------------ */

/* The call on the idle GPU, IDLE_CALLS times: the slowest time (the stall time follows it). */
static int idle(const struct cts_case *c, double *slowest, char *why, size_t len)
{
    *slowest = 0;
    for (int i = 0; i < IDLE_CALLS; i++) {
        struct plan p;
        memset(&p, 0, sizeof p);
        unsigned char v = 0x33;
        cudaError_t err = is_copy(c) ? plan_copy(c, &p, v, v ^ 0x80) : prepare_other(c, &p);
        if (err != cudaSuccess)
            return failed(why, len, cudaGetErrorName(err));
        const char *ename = NULL;
        double t0 = cts_now_us();
        int bad = issue(c, &p, &ename);
        double t1 = cts_now_us();
        if (c->api == CTS_API_SET_DEVICE)
            (void)cudaSetDevice(d.dev[0]);
        if (t1 - t0 > *slowest)
            *slowest = t1 - t0;
        char ignored[CTS_REASON_MAX];
        int dr = drain(ignored, sizeof ignored);
        if (dr) {
            snprintf(why, len, "%s", ignored);
            return dr;
        }
        if ((err = cleanup_other(c, &p, !bad)) != cudaSuccess)
            return failed(why, len, cudaGetErrorName(err));
    }
    return 0;
}

static void record(const struct cts_case *c, struct cts_rep *r, const struct try *f, int waited)
{
    r->host = waited ? CTS_HOST_WAITS : CTS_HOST_RETURNS;
    r->call_us = f->t.call_us;
    r->landed = f->landed;
    if (!waited) {
        r->op_after = f->seen[MK_OP];
        r->third_blocking = f->seen[MK_THIRD_BL];
        r->third_nonblocking = f->seen[MK_THIRD_NB];
        r->dst = f->dst;
    }
    const char *clause;
    if (!f->ok && rejects(c, &clause)) {
        r->rejected = f->error; /* refused, as the clause allows */
    } else if (!f->ok) {
        r->status = CTS_FAIL;
        snprintf(r->reason, sizeof r->reason, "%s returned %s (refused)", cts_api_function(c->api), f->error);
    } else if (f->moved >= 0 && (size_t)f->moved != c->size) {
        r->status = CTS_FAIL;
        if (f->moved == 0)
            snprintf(r->reason, sizeof r->reason,
                     "%s returned cudaSuccess but moved nothing: all %zu destination bytes kept their old value",
                     cts_api_function(c->api), c->size);
        else
            snprintf(r->reason, sizeof r->reason,
                     "%s returned cudaSuccess but moved only %lld of %zu bytes (the rest kept their old value)",
                     cts_api_function(c->api), f->moved, c->size);
    }
}

static void rep_peer(const struct cts_case *c, double stall_us, struct cts_rep *r, struct cts_result *res)
{
    char seen[160] = "";
    double grow = (STALL_FACTOR - 1) * stall_us;
    for (int t = 0; t < TRIES; t++) {
        struct try a, b;
        int bad = try_call(c, stall_us, &a, r->reason, sizeof r->reason);
        if (bad) {
            r->status = bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
            return;
        }
        if (res->nreps == 1 && t == 0) { /* the control: the first try's */
            res->control.op_after = a.ctl[MK_OP];
            res->control.third_blocking = a.ctl[MK_THIRD_BL];
            res->control.third_nonblocking = a.ctl[MK_THIRD_NB];
        }
        r->timeout_us = stall_us;
        int again;
        enum cts_host h = cts_beside_decide(&a.t, NULL, grow, TRACK_FRACTION, &again);
        if (h == CTS_HOST_RETURNS) {
            record(c, r, &a, 0);
            return;
        }
        if (again) {
            bad = try_call(c, stall_us * STALL_FACTOR, &b, r->reason, sizeof r->reason);
            if (bad) {
                r->status = bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
                return;
            }
            if (cts_beside_decide(&a.t, &b.t, grow, TRACK_FRACTION, &again) == CTS_HOST_WAITS) {
                record(c, r, &b, 1);
                r->timeout_us = stall_us * STALL_FACTOR;
                r->release_to_return_us = b.after_us;
                r->tracked_from_timeout_us = stall_us;
                r->tracked_from_call_us = a.t.call_us;
                return;
            }
        }
        res->window_retries++;
        size_t n = strlen(seen);
        snprintf(seen + n, sizeof seen - n, "%s%s", t ? "; " : "",
                 a.t.returned ? "returned" : a.t.early ? "returned before the watchdog opened a gate" : "waited");
    }
    r->host = CTS_HOST_NA;
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason, "no try proved the call, %d tries: %s", TRIES, seen);
}

static void measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    res->control_own = 1;
    res->synchronous = !cts_api_takes_stream(c->api);
    if (setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", d.why);
        return;
    }
    double slowest = 0;
    int bad = idle(c, &slowest, res->reason, sizeof res->reason);
    if (bad) {
        res->status = bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
        return;
    }
    double stall_us = fmax(STALL_US, 4 * slowest);
    if (repeat > CTS_MAX_REPEAT)
        repeat = CTS_MAX_REPEAT;
    for (int i = 0; i < repeat; i++) {
        struct cts_rep *r = &res->reps[i];
        cts_rep_begin(r);
        res->nreps = i + 1;
        rep_peer(c, stall_us, r, res);
        if (r->status != CTS_PASS)
            break;
    }
    cts_classify_measured(res, stall_us);
    res->idle_call_us = res->idle_call_max_us = slowest;
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
    {"PG-POOL-ACCESS", "CUDA C++ Programming Guide, Stream Ordered Memory Allocator, Device Accessibility for Multi-GPU Support",
     "Just like allocation accessibility controlled through the virtual memory management APIs, memory pool "
     "allocation accessibility does not follow cudaDeviceEnablePeerAccess or cuCtxEnablePeerAccess. Instead, the "
     "memory pool API, cudaMemPoolSetAccess, modifies what devices can access allocations from a pool. By default, "
     "allocations are accessible from the device where the allocations are located.",
     "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#device-accessibility-for-multi-gpu-support", NULL},
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
    if (rejects(c, &clause))
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
        if (c->dir == CTS_DIR_D2D && is_copy(c))
            cts_judge_add(j, "RT-SYNC-MEMCPY-D2D", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        else if (c->dir == CTS_DIR_D2H)
            cts_judge_add(j, "RT-SYNC-MEMCPY-D2H", CTS_ABOUT_LANDED, CTS_PRED_GUARANTEED);
        else if (c->dir == CTS_DIR_H2D && c->mem == CTS_MEM_PINNED && is_copy(c))
            cts_judge_add(j, "RT-SYNC-MEMCPY-PINNED-H2D", CTS_ABOUT_LANDED, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_STREAM_WAIT_EVENT:
        cts_judge_add(j, "RT-STREAM-WAIT-EVENT-PEER", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        cts_judge_add(j, "RT-STREAM-WAIT-EVENT-PEER", CTS_ABOUT_OP_AFTER, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_EVENT_SYNCHRONIZE: cts_judge_add(j, "RT-EVENT-SYNCHRONIZE", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED); break;
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
    .name = "peer", .crosses = 1, .generate = generate, .needs = needs, .measure = measure,
    .rejects = rejects, .clauses = clauses, .judge = judge, .judges_alone = 1,
};
