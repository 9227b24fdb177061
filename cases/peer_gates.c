/* The peer family's resources and gates (cases/peer.c says what the family measures and why): what
 * it keeps, made once on first use; the gates held on either device, the markers launched and
 * watched, the streams drained. */
#define _GNU_SOURCE
#include "peer_family.h"
#include "../harness/families/driver.h"
#include "../harness/families/kernels.h"
#include "../harness/core/latch.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW_US 2000.0   /* a marker gets this long to run while the gates are closed */

/* ---- what the family keeps ---------------------------------------------------------- */

struct peer_state peer_d; /* peer_family.h */

const char *peer_failed_at = "";

static cudaError_t setup_side(int k)
{
    TRY(cudaSetDevice(peer_d.dev[k]));
    for (int i = 0; i < S_COUNT; i++)
        TRY(cudaStreamCreateWithFlags(&peer_d.s[k][i], i == S_BUSY_BL || i == S_THIRD_BL ? cudaStreamDefault
                                                                                         : cudaStreamNonBlocking));
    TRY(cudaMalloc(&peer_d.buf[k], BYTES));
    if (cts_drv.cuCtxGetCurrent) {
        TRY(cudaFree(NULL));
        if (cts_drv.cuCtxGetCurrent(&peer_d.ctx[k]) != CUDA_SUCCESS) {
            peer_failed_at = "cuCtxGetCurrent";
            return cudaErrorUnknown;
        }
    }
    return cudaSetDevice(peer_d.dev[0]);
}

static cudaError_t setup_pool(void)
{
#if CUDART_VERSION >= 11020
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = peer_d.dev[1];
    TRY(cudaMemPoolCreate(&peer_d.pool, &props));
    ON(1, cudaMallocFromPoolAsync(&peer_d.block, BYTES, peer_d.pool, peer_d.s[1][S_SIDE]));
    ON(1, cudaStreamSynchronize(peer_d.s[1][S_SIDE]));
#endif
    return cudaSuccess;
}

static cudaError_t setup_resources(void)
{
    int n = 0, v = 0;
    TRY(cudaGetDevice(&peer_d.dev[0]));
    TRY(cudaGetDeviceCount(&n));
    peer_d.dev[1] = (peer_d.dev[0] + 1) % n;
    int a = 0, b = 0;
    TRY(cudaDeviceCanAccessPeer(&a, peer_d.dev[0], peer_d.dev[1]));
    TRY(cudaDeviceCanAccessPeer(&b, peer_d.dev[1], peer_d.dev[0]));
    peer_d.can_access = a && b;
    TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, peer_d.dev[1]));
    peer_d.pools = v;
    for (int k = 0; k < 2; k++) {
        cudaError_t e = setup_side(k);
        if (e != cudaSuccess)
            return e;
    }
    TRY(cudaHostAlloc((void **)&peer_d.mk_host, MK_COUNT * sizeof *peer_d.mk_host, cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&peer_d.mk_dev, peer_d.mk_host, 0));
    memset((void *)peer_d.mk_host, 0, MK_COUNT * sizeof *peer_d.mk_host);
    TRY(cudaMallocHost(&peer_d.pinned, BYTES));
    TRY(cudaMallocHost((void **)&peer_d.stage, BYTES));
    TRY(cudaMallocHost((void **)&peer_d.land, 64));
    if (!(peer_d.pageable = malloc(BYTES))) {
        peer_failed_at = "malloc";
        return cudaErrorMemoryAllocation;
    }
    memset(peer_d.pageable, 0, BYTES);
    ON(1, cudaEventCreateWithFlags(&peer_d.event, cudaEventDisableTiming));
    if (peer_d.pools && peer_d.can_access) {
        cudaError_t e = setup_pool();
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

static int gate_init(int k)
{
    if (cudaSetDevice(peer_d.dev[k]) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(peer_d.why, sizeof peer_d.why, "harness: cudaSetDevice(%d) failed", peer_d.dev[k]);
        return -1;
    }
    int bad = cts_sg_init(&peer_d.g[k], peer_d.why, sizeof peer_d.why);
    if (cudaSetDevice(peer_d.dev[0]) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(peer_d.why, sizeof peer_d.why, "harness: cudaSetDevice(%d) failed", peer_d.dev[0]);
        return -1;
    }
    return bad;
}

static cudaError_t marker(cudaStream_t s, struct cts_marker_record *rec, unsigned seq);

int peer_setup(void)
{
    if (peer_d.ready)
        return peer_d.why[0] ? -1 : 0;
    peer_d.ready = 1;
    cudaError_t err = setup_resources();
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(peer_d.why, sizeof peer_d.why, "harness: the peer family's set-up: %s returned %s",
                 peer_failed_at, cudaGetErrorName(err));
        (void)cudaSetDevice(peer_d.dev[0]);
        return -1;
    }
    if (gate_init(0) || gate_init(1))
        return -1;
    /* First use: a marker and the sleep kernel on each device (module loading), with nothing held
     * (under CUDA_LAUNCH_BLOCKING=1 a launch waits for the device's held work: H200, 580.159.04),
     * then a gate, drained. */
    for (int k = 0; k < 2; k++) {
        cudaError_t e = cudaSetDevice(peer_d.dev[k]);
        if (e == cudaSuccess)
            e = marker(peer_d.s[k][S_SIDE], &peer_d.mk_dev[MK_OP], ++peer_d.seq);
        if (e == cudaSuccess)
            e = cts_launch_sleep(peer_d.s[k][S_SIDE], 0);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        if (e == cudaSuccess)
            e = cudaSetDevice(peer_d.dev[0]);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            snprintf(peer_d.why, sizeof peer_d.why, "harness: the peer family's first marker returned %s",
                     cudaGetErrorName(e));
            return -1;
        }
        if (peer_hold(k, peer_d.s[k][S_BUSY_NB], peer_d.why, sizeof peer_d.why))
            return -1;
        if (peer_drain_held(&k, 1, peer_d.why, sizeof peer_d.why)) {
            if (!peer_d.why[0])
                snprintf(peer_d.why, sizeof peer_d.why, "harness: the first drain failed");
            return -1;
        }
    }
    return 0;
}

/* ---- holding, markers, draining ------------------------------------------------------ */

int peer_hold(int k, cudaStream_t s, char *why, size_t len)
{
    if (cudaSetDevice(peer_d.dev[k]) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: cudaSetDevice(%d) failed", peer_d.dev[k]);
        return -1;
    }
    int bad = cts_sg_hold_by(&peer_d.g[k], s, cts_hold_selected == CTS_HOLD_WAIT_VALUE, why, len);
    if (cudaSetDevice(peer_d.dev[0]) != cudaSuccess && !bad) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: cudaSetDevice(%d) failed", peer_d.dev[0]);
        return -1;
    }
    return bad;
}

/* Opens both gates and waits for every stream of both devices to drain; then checks that each
 * gate held this try (k[0..nk)) was ended by its flag, not by its own deadline.  0; -1 with why
 * (the harness); -2 (TIMEOUT). */
int peer_drain_held(const int *k, int nk, char *why, size_t len)
{
    for (int i = 0; i < 2; i++)
        cts_sg_open(&peer_d.g[i]);
    double t0 = cts_now_us();
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < 2 && err == cudaSuccess; i++) {
        err = cudaSetDevice(peer_d.dev[i]);
        cudaStream_t all[S_COUNT + 2] = {cudaStreamLegacy, cudaStreamPerThread};
        for (int j = 0; j < S_COUNT; j++)
            all[j + 2] = peer_d.s[i][j];
        for (int j = 0; j < S_COUNT + 2 && err == cudaSuccess; j++)
            err = cts_sg_drained(all[j], t0);
    }
    cudaError_t back = cudaSetDevice(peer_d.dev[0]);
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
        const struct cts_stallgate *g = &peer_d.g[k[i]];
        if (g->gate_host->ended != g->seq || g->gate_host->reason != CTS_GATE_OPENED) {
            snprintf(why, len, "harness: the gate on device %d ended by its own deadline, not by the flag",
                     peer_d.dev[k[i]]);
            return -1;
        }
    }
    return 0;
}

int peer_drain(char *why, size_t len) { return peer_drain_held(NULL, 0, why, len); }

/* The stream a placement or marker names, and its device. */
cudaStream_t peer_op_stream(const struct cts_case *c)
{
    return c->op == CTS_OP_NONBLOCKING ? peer_d.s[0][S_OP_NB] : (cudaStream_t)0; /* 0: the build's default */
}

/* The held streams of c's placement (at most two) and their devices; returns how many. */
int peer_held_streams(const struct cts_case *c, cudaStream_t s[2], int k[2])
{
    switch (c->busy) {
    case CTS_BUSY_SAME: s[0] = peer_op_stream(c), k[0] = 0; return 1;
    case CTS_BUSY_LEGACY: s[0] = cudaStreamLegacy, k[0] = 0; return 1;
    case CTS_BUSY_BLOCKING: s[0] = peer_d.s[0][S_BUSY_BL], k[0] = 0; return 1;
    case CTS_BUSY_NONBLOCKING: s[0] = peer_d.s[0][S_BUSY_NB], k[0] = 0; return 1;
    case CTS_BUSY_PEER_LEGACY: s[0] = cudaStreamLegacy, k[0] = 1; return 1;
    case CTS_BUSY_PEER_BLOCKING: s[0] = peer_d.s[1][S_BUSY_BL], k[0] = 1; return 1;
    case CTS_BUSY_PEER_NONBLOCKING: s[0] = peer_d.s[1][S_BUSY_NB], k[0] = 1; return 1;
    case CTS_BUSY_BOTH:
        s[0] = peer_d.s[0][S_BUSY_NB], k[0] = 0;
        s[1] = peer_d.s[1][S_BUSY_NB], k[1] = 1;
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
cudaError_t peer_markers(const struct cts_case *c, unsigned seq)
{
    ON(1, marker(peer_d.s[1][S_THIRD_BL], &peer_d.mk_dev[MK_THIRD_BL], seq));
    ON(1, marker(peer_d.s[1][S_THIRD_NB], &peer_d.mk_dev[MK_THIRD_NB], seq));
    TRY(marker(peer_op_stream(c), &peer_d.mk_dev[MK_OP], seq));
    return cudaSuccess;
}

static int all_closed(const int *k, int nk)
{
    for (int i = 0; i < nk; i++)
        if (!cts_sg_flag_closed(&peer_d.g[k[i]]))
            return 0;
    return 1;
}

/* Waits WINDOW_US for the markers of seq while the held gates stay closed: each RUNS if it ran,
 * HELD if not and the gates were closed throughout, else NA. */
void peer_watch(unsigned seq, const int *k, int nk, enum cts_order out[MK_COUNT])
{
    double t0 = cts_now_us();
    int done = 0;
    while (cts_now_us() - t0 < WINDOW_US && all_closed(k, nk)) {
        done = 1;
        for (int i = 0; i < MK_COUNT; i++)
            done &= peer_d.mk_host[i].done == seq;
        if (done)
            break;
    }
    int closed = all_closed(k, nk);
    for (int i = 0; i < MK_COUNT; i++)
        out[i] = peer_d.mk_host[i].done == seq ? CTS_ORDER_RUNS : closed ? CTS_ORDER_HELD : CTS_ORDER_NA;
}