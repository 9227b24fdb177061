/* The green family's contexts (cases/green.c): the device's SMs split in two groups by
 * cuDevSmResourceSplitByCount, a green context on each (cuGreenCtxCreate), their streams
 * (cuGreenCtxStreamCreate) and the primary context's, made for a case and destroyed at its end, the
 * primary context current again in this thread either way.  Every driver call through cts_drv. */
#include "../harness/core/cts.h"
#include "../harness/families/driver.h"
#include "../harness/families/family.h"
#include "green.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

int green_use(CUcontext ctx, char *why, size_t len)
{
    CUresult r = cts_drv.cuCtxSetCurrent(ctx);
    if (r == CUDA_SUCCESS)
        return 0;
    snprintf(why, len, "harness: cuCtxSetCurrent returned %s", cts_driver_error_name(r));
    return -1;
}

#if CUDA_VERSION >= 12040

/* A failed driver call of the green-context API: NOTSUPP where the driver says it is not supported
 * here, else FAIL (the product's), with why. */
static int api_failed(const char *fn, CUresult r, char *why, size_t len)
{
    snprintf(why, len, "%s returned %s", fn, cts_driver_error_name(r));
    return r == CUDA_ERROR_NOT_SUPPORTED ? CTS_NOTSUPP : CTS_FAIL;
}

static int harness_failed(const char *fn, const char *ename, char *why, size_t len)
{
    snprintf(why, len, "harness: %s returned %s", fn, ename);
    return CTS_BROKEN;
}

/* The SM granularity the driver documents for a split (cuda.h, "Green Contexts": a multiple of 2
 * before compute capability 9.0, of 8 from it); the split itself rounds minCount up to what the
 * device needs, so the search below steps down by it until two groups fit. */
static unsigned granularity(int major) { return major >= 9 ? 8u : 2u; }

/* Two groups of as many SMs as the split makes of about half the device's, into g[0] and g[1]. */
static int split(CUdevice dev, CUdevResource *g, char *why, size_t len)
{
    CUdevResource all;
    memset(&all, 0, sizeof all);
    CUresult r = cts_drv.cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM);
    if (r != CUDA_SUCCESS)
        return api_failed("cuDeviceGetDevResource", r, why, len);
    int major = 0;
    cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, (int)dev);
    if (e != cudaSuccess)
        return harness_failed("cudaDeviceGetAttribute", cudaGetErrorName(e), why, len);
    unsigned step = granularity(major), min = all.sm.smCount / 2 / step * step, n = 0;
    for (; min >= step; min -= step) {
        n = 0;
        if ((r = cts_drv.cuDevSmResourceSplitByCount(NULL, &n, &all, NULL, 0, min)) != CUDA_SUCCESS)
            return api_failed("cuDevSmResourceSplitByCount", r, why, len);
        if (n >= 2)
            break;
    }
    if (min < step) {
        snprintf(why, len, "the device's %u SMs do not split into two groups (cuDevSmResourceSplitByCount)",
                 all.sm.smCount);
        return CTS_NOTSUPP;
    }
    CUdevResource rest;
    n = 2;
    if ((r = cts_drv.cuDevSmResourceSplitByCount(g, &n, &all, &rest, 0, min)) != CUDA_SUCCESS)
        return api_failed("cuDevSmResourceSplitByCount", r, why, len);
    if (n < 2) {
        snprintf(why, len, "cuDevSmResourceSplitByCount made %u group of %u SMs, not two", n, min);
        return CTS_NOTSUPP;
    }
    return CTS_PASS;
}

/* A green context of group g and its CUcontext. */
static int make_one(CUdevice dev, CUdevResource *g, void **green, CUcontext *ctx, char *why, size_t len)
{
    CUdevResourceDesc desc;
    CUresult r = cts_drv.cuDevResourceGenerateDesc(&desc, g, 1);
    if (r != CUDA_SUCCESS)
        return api_failed("cuDevResourceGenerateDesc", r, why, len);
    CUgreenCtx h = NULL;
    if ((r = cts_drv.cuGreenCtxCreate(&h, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM)) != CUDA_SUCCESS)
        return api_failed("cuGreenCtxCreate", r, why, len);
    *green = h;
    if ((r = cts_drv.cuCtxFromGreenCtx(ctx, h)) != CUDA_SUCCESS)
        return api_failed("cuCtxFromGreenCtx", r, why, len);
    return CTS_PASS;
}

static int stream_in(void *green, cudaStream_t *s, char *why, size_t len)
{
    CUstream h = NULL;
    CUresult r = cts_drv.cuGreenCtxStreamCreate(&h, (CUgreenCtx)green, CU_STREAM_NON_BLOCKING, 0);
    if (r != CUDA_SUCCESS)
        return api_failed("cuGreenCtxStreamCreate", r, why, len);
    *s = (cudaStream_t)h;
    return CTS_PASS;
}

/* In context ctx: the kernels' shared memory allowed, and an event (none where ev is NULL). */
static int prepare_in(CUcontext ctx, size_t smem, cudaEvent_t *ev, char *why, size_t len)
{
    if (green_use(ctx, why, len))
        return CTS_BROKEN;
    cudaError_t e = cts_green_allow_smem(smem);
    if (e != cudaSuccess)
        return harness_failed("cudaFuncSetAttribute", cudaGetErrorName(e), why, len);
    if (ev && (e = cudaEventCreateWithFlags(ev, cudaEventDisableTiming)) != cudaSuccess)
        return harness_failed("cudaEventCreateWithFlags", cudaGetErrorName(e), why, len);
    return CTS_PASS;
}

static int make_all(struct green_ctxs *x, size_t smem, char *why, size_t len)
{
    CUdevice dev = 0;
    CUresult r = cts_drv.cuCtxGetDevice(&dev);
    if (r != CUDA_SUCCESS)
        return harness_failed("cuCtxGetDevice", cts_driver_error_name(r), why, len);
    int sms = 0;
    cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, (int)dev);
    if (e != cudaSuccess)
        return harness_failed("cudaDeviceGetAttribute", cudaGetErrorName(e), why, len);
    x->sms_device = (unsigned)sms;
    CUdevResource g[2];
    memset(g, 0, sizeof g);
    int st = split(dev, g, why, len);
    if (st == CTS_PASS)
        st = make_one(dev, &g[0], &x->green_a, &x->ctx_a, why, len);
    if (st == CTS_PASS)
        st = make_one(dev, &g[1], &x->green_b, &x->ctx_b, why, len);
    if (st != CTS_PASS)
        return st;
    x->sms_a = g[0].sm.smCount;
    x->sms_b = g[1].sm.smCount;
    for (int i = 0; i < 2 && st == CTS_PASS; i++)
        st = stream_in(x->green_a, &x->a[i], why, len);
    if (st == CTS_PASS)
        st = stream_in(x->green_b, &x->b, why, len);
    for (int i = 0; i < 2 && st == CTS_PASS; i++)
        if ((e = cudaStreamCreateWithFlags(&x->p[i], cudaStreamNonBlocking)) != cudaSuccess)
            st = harness_failed("cudaStreamCreateWithFlags", cudaGetErrorName(e), why, len);
    if (st == CTS_PASS)
        st = prepare_in(x->ctx_a, smem, &x->ev_a, why, len);
    if (st == CTS_PASS)
        st = prepare_in(x->ctx_b, smem, &x->ev_b, why, len);
    if (st == CTS_PASS)
        st = prepare_in(x->primary, smem, &x->ev_p, why, len);
    return st;
}

int green_make(struct green_ctxs *x, size_t smem, char *why, size_t len)
{
    memset(x, 0, sizeof *x);
    CUresult r = cts_drv.cuCtxGetCurrent(&x->primary);
    if (r != CUDA_SUCCESS || !x->primary) {
        snprintf(why, len, "harness: cuCtxGetCurrent returned %s, no context current",
                 r != CUDA_SUCCESS ? cts_driver_error_name(r) : "CUDA_SUCCESS");
        return CTS_BROKEN;
    }
    int st = make_all(x, smem, why, len);
    char more[CTS_REASON_MAX];
    if (st != CTS_PASS) {
        (void)cudaGetLastError();
        (void)green_destroy(x, more, sizeof more);
    } else if (green_use(x->primary, why, len)) {
        st = CTS_BROKEN;
    }
    return st;
}

/* The first error of a clean-up, kept in why. */
static void keep(int *failed, char *why, size_t len, const char *fn, const char *ename)
{
    if (!*failed)
        snprintf(why, len, "harness: %s returned %s", fn, ename);
    *failed = 1;
}

/* Destroys ev with ctx current. */
static void destroy_event(CUcontext ctx, cudaEvent_t *ev, int *failed, char *why, size_t len)
{
    if (!*ev)
        return;
    CUresult r = cts_drv.cuCtxSetCurrent(ctx);
    cudaError_t e = r == CUDA_SUCCESS ? cudaEventDestroy(*ev) : cudaSuccess;
    if (r != CUDA_SUCCESS)
        keep(failed, why, len, "cuCtxSetCurrent", cts_driver_error_name(r));
    else if (e != cudaSuccess)
        keep(failed, why, len, "cudaEventDestroy", cudaGetErrorName(e));
    *ev = NULL;
}

/* A green context's stream (cuStreamDestroy, as cuGreenCtxStreamCreate says), or the primary
 * context's (cudaStreamDestroy, the primary context current), once it is idle. */
static void destroy_stream(cudaStream_t *s, int green, int *failed, char *why, size_t len)
{
    if (!*s)
        return;
    CUresult r = cts_drv.cuStreamSynchronize((CUstream)*s);
    if (r == CUDA_SUCCESS && green)
        r = cts_drv.cuStreamDestroy((CUstream)*s);
    cudaError_t e = r == CUDA_SUCCESS && !green ? cudaStreamDestroy(*s) : cudaSuccess;
    if (r != CUDA_SUCCESS)
        keep(failed, why, len, green ? "cuStreamSynchronize or cuStreamDestroy" : "cuStreamSynchronize",
             cts_driver_error_name(r));
    else if (e != cudaSuccess)
        keep(failed, why, len, "cudaStreamDestroy", cudaGetErrorName(e));
    *s = NULL;
}

int green_destroy(struct green_ctxs *x, char *why, size_t len)
{
    int failed = 0;
    destroy_event(x->ctx_a, &x->ev_a, &failed, why, len);
    destroy_event(x->ctx_b, &x->ev_b, &failed, why, len);
    destroy_event(x->primary, &x->ev_p, &failed, why, len); /* last: the primary context current */
    if (x->primary && cts_drv.cuCtxSetCurrent(x->primary) != CUDA_SUCCESS)
        keep(&failed, why, len, "cuCtxSetCurrent", "an error");
    cudaStream_t *all[] = {&x->a[0], &x->a[1], &x->b, &x->p[0], &x->p[1]};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        destroy_stream(all[i], i < 3, &failed, why, len); /* the green ones before their contexts */
    void **green[] = {&x->green_a, &x->green_b};
    for (int i = 0; i < 2; i++) {
        CUresult r = *green[i] ? cts_drv.cuGreenCtxDestroy((CUgreenCtx)*green[i]) : CUDA_SUCCESS;
        if (r != CUDA_SUCCESS)
            keep(&failed, why, len, "cuGreenCtxDestroy", cts_driver_error_name(r));
        *green[i] = NULL;
    }
    x->ctx_a = x->ctx_b = NULL;
    CUcontext now = NULL;
    CUresult r = x->primary ? cts_drv.cuCtxSetCurrent(x->primary) : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS && x->primary)
        r = cts_drv.cuCtxGetCurrent(&now);
    if (r != CUDA_SUCCESS)
        keep(&failed, why, len, "cuCtxSetCurrent or cuCtxGetCurrent", cts_driver_error_name(r));
    else if (x->primary && now != x->primary)
        keep(&failed, why, len, "cuCtxSetCurrent", "success, and another context stayed current");
    (void)cudaGetLastError();
    return failed ? -1 : 0;
}

#else /* built against a runtime before 12.4: no green contexts (cts_need_runtime says so first) */

int green_make(struct green_ctxs *x, size_t smem, char *why, size_t len)
{
    (void)smem;
    memset(x, 0, sizeof *x);
    snprintf(why, len, "not in runtime %d.%d: green contexts appeared in 12.4", CUDART_VERSION / 1000,
             CUDART_VERSION % 1000 / 10);
    return CTS_NOTSUPP;
}

int green_destroy(struct green_ctxs *x, char *why, size_t len)
{
    (void)x, (void)why, (void)len;
    return 0;
}

#endif
