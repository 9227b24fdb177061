#include "driver.h"

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct cts_driver cts_drv;

/* Each entry: its name, where its pointer goes and the ABI version asked for:
 * 12.0 (E), where every function here but the green contexts' has had its
 * current signature since (cuCtxSynchronize's of no argument: 13.0 added one
 * of a context); the version that introduced it for those (EV: 12.4, 12.5).
 * (Built against a runtime before 12.5, which lacks ..._ByVersion, the
 * version is that runtime's own, 12.0-12.4: the same signatures, and a
 * function newer than that runtime stays NULL.) */
static const struct {
    const char *name;
    size_t offset;
    int version;
} entries[] = {
#define E(f) {#f, offsetof(struct cts_driver, f), 12000}
#define EV(f, v) {#f, offsetof(struct cts_driver, f), v}
    E(cuGetErrorName),    E(cuMemsetD8),        E(cuMemsetD16),        E(cuMemsetD32),
    E(cuMemsetD8Async),   E(cuMemsetD16Async),  E(cuMemsetD32Async),   E(cuMemsetD2D8),
    E(cuMemsetD2D16),     E(cuMemsetD2D32),     E(cuMemsetD2D8Async),  E(cuMemsetD2D16Async),
    E(cuMemsetD2D32Async),
    E(cuMemcpyHtoD),      E(cuMemcpyDtoH),      E(cuMemcpyDtoD),       E(cuMemcpyHtoDAsync),
    E(cuMemcpyDtoHAsync), E(cuMemcpyDtoDAsync), E(cuMemcpy),           E(cuMemcpyAsync),
    E(cuMemcpy2D),        E(cuMemcpy2DAsync),   E(cuMemcpy3D),         E(cuMemcpy3DAsync),
    E(cuMemcpyHtoA),      E(cuMemcpyAtoH),      E(cuMemcpyHtoAAsync),  E(cuMemcpyAtoHAsync),
    E(cuMemcpyDtoA),      E(cuMemcpyAtoD),      E(cuMemcpyAtoA),       E(cuArrayCreate),
    E(cuArrayDestroy),
    E(cuMemcpyPeer),      E(cuMemcpyPeerAsync),
    E(cuMemCreate),       E(cuMemRelease),      E(cuMemAddressReserve), E(cuMemAddressFree),
    E(cuMemMap),          E(cuMemUnmap),        E(cuMemSetAccess),
    E(cuMemGetAllocationGranularity),
    E(cuCtxGetDevice),    E(cuCtxGetCurrent),   E(cuDeviceGetAttribute), E(cuPointerSetAttribute), E(cuPointerGetAttribute),
    E(cuModuleLoadData), E(cuModuleUnload),
    E(cuModuleGetFunction), E(cuLaunchKernel), E(cuStreamWaitValue32), E(cuStreamWriteValue32),
    E(cuCtxSetCurrent),   E(cuCtxSynchronize),  E(cuStreamSynchronize), E(cuStreamQuery),
    E(cuStreamDestroy),   E(cuEventSynchronize),
#if CUDA_VERSION >= 12040
    EV(cuDeviceGetDevResource, 12040), EV(cuDevSmResourceSplitByCount, 12040),
    EV(cuDevResourceGenerateDesc, 12040), EV(cuGreenCtxCreate, 12040), EV(cuGreenCtxDestroy, 12040),
    EV(cuCtxFromGreenCtx, 12040), EV(cuGreenCtxStreamCreate, 12050),
#endif
#undef EV
#undef E
};

static cudaError_t entry_point_at(const char *name, void **fn, int version, enum cudaDriverEntryPointQueryResult *q)
{
#if CUDART_VERSION >= 12050
    return cudaGetDriverEntryPointByVersion(name, fn, (unsigned int)version, cudaEnableDefault, q);
#else /* no ByVersion before 12.5: the version of the runtime built against (12.x) */
    (void)version;
    return cudaGetDriverEntryPoint(name, fn, cudaEnableDefault, q);
#endif
}

cudaError_t cts_driver_entry_point(const char *name, void **fn, enum cudaDriverEntryPointQueryResult *q)
{
    return entry_point_at(name, fn, 12000, q);
}

int cts_driver_load(char *why, size_t len)
{
    for (size_t i = 0; i < sizeof entries / sizeof *entries; i++) {
        void *fn = NULL;
        enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        cudaError_t err = entry_point_at(entries[i].name, &fn, entries[i].version, &q);
        /* A function newer than 12.0 that a driver cannot give at its version stays NULL, whatever
         * the lookup returned: its cases are NOTSUPP, the others unaffected. */
        if (err != cudaSuccess && err != cudaErrorSymbolNotFound && entries[i].version == 12000) {
            snprintf(why, len, CTS_DRIVER_LOOKUP "(%s) returned %s", entries[i].name,
                     cudaGetErrorName(err));
            (void)cudaGetLastError();
            return -1;
        }
        (void)cudaGetLastError();
        if (q == cudaDriverEntryPointSuccess)
            memcpy((char *)&cts_drv + entries[i].offset, &fn, sizeof fn);
    }
    return 0;
}

int cts_driver_missing(const char *name)
{
    for (size_t i = 0; i < sizeof entries / sizeof *entries; i++)
        if (strcmp(entries[i].name, name) == 0) {
            void *fn;
            memcpy(&fn, (const char *)&cts_drv + entries[i].offset, sizeof fn);
            return fn == NULL;
        }
    return 1;
}

const char *cts_driver_error_name(CUresult r)
{
    const char *s = NULL;
    if (cts_drv.cuGetErrorName && cts_drv.cuGetErrorName(r, &s) == CUDA_SUCCESS && s)
        return s;
    return "CUresult (unnamed)";
}
