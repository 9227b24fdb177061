/* Driver API functions the suite calls, found at run time through
 * cudaGetDriverEntryPointByVersion so that the program never links libcuda
 * and still starts where there is no driver.  A function the driver lacks
 * stays NULL, and the cases that need it are NOTSUPP with its name. */
#ifndef CTS_DRIVER_H
#define CTS_DRIVER_H

#include <cuda.h>
#include <cuda_runtime_api.h>

/* The runtime call that looks the functions up, as messages name it:
 * cudaGetDriverEntryPointByVersion appeared in 12.5. */
#if CUDART_VERSION >= 12050
#define CTS_DRIVER_LOOKUP "cudaGetDriverEntryPointByVersion"
#else
#define CTS_DRIVER_LOOKUP "cudaGetDriverEntryPoint"
#endif

/* A driver API function by name, at the ABI of 12.0 (from 12.5 on; before,
 * the runtime's own 12.x): CTS_DRIVER_LOOKUP with its arguments. */
cudaError_t cts_driver_entry_point(const char *name, void **fn, enum cudaDriverEntryPointQueryResult *q);

struct cts_driver {
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*cuMemsetD16)(CUdeviceptr, unsigned short, size_t);
    CUresult (*cuMemsetD32)(CUdeviceptr, unsigned int, size_t);
    CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
    CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
    CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned int, size_t, CUstream);
    CUresult (*cuMemsetD2D8)(CUdeviceptr, size_t, unsigned char, size_t, size_t);
    CUresult (*cuMemsetD2D16)(CUdeviceptr, size_t, unsigned short, size_t, size_t);
    CUresult (*cuMemsetD2D32)(CUdeviceptr, size_t, unsigned int, size_t, size_t);
    CUresult (*cuMemsetD2D8Async)(CUdeviceptr, size_t, unsigned char, size_t, size_t, CUstream);
    CUresult (*cuMemsetD2D16Async)(CUdeviceptr, size_t, unsigned short, size_t, size_t, CUstream);
    CUresult (*cuMemsetD2D32Async)(CUdeviceptr, size_t, unsigned int, size_t, size_t, CUstream);
    /* copies */
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*cuMemcpy)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*cuMemcpy2D)(const CUDA_MEMCPY2D *);
    CUresult (*cuMemcpy2DAsync)(const CUDA_MEMCPY2D *, CUstream);
    CUresult (*cuMemcpy3D)(const CUDA_MEMCPY3D *);
    CUresult (*cuMemcpy3DAsync)(const CUDA_MEMCPY3D *, CUstream);
    /* 1-D array copies; arrays */
    CUresult (*cuMemcpyHtoA)(CUarray, size_t, const void *, size_t);
    CUresult (*cuMemcpyAtoH)(void *, CUarray, size_t, size_t);
    CUresult (*cuMemcpyHtoAAsync)(CUarray, size_t, const void *, size_t, CUstream);
    CUresult (*cuMemcpyAtoHAsync)(void *, CUarray, size_t, size_t, CUstream);
    CUresult (*cuMemcpyDtoA)(CUarray, size_t, CUdeviceptr, size_t);
    CUresult (*cuMemcpyAtoD)(CUdeviceptr, CUarray, size_t, size_t);
    CUresult (*cuMemcpyAtoA)(CUarray, size_t, CUarray, size_t, size_t);
    CUresult (*cuArrayCreate)(CUarray *, const CUDA_ARRAY_DESCRIPTOR *);
    CUresult (*cuArrayDestroy)(CUarray);
    CUresult (*cuMemcpyPeer)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
    CUresult (*cuMemcpyPeerAsync)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
    /* virtual memory management */
    CUresult (*cuMemCreate)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                            unsigned long long);
    CUresult (*cuMemRelease)(CUmemGenericAllocationHandle);
    CUresult (*cuMemAddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*cuMemAddressFree)(CUdeviceptr, size_t);
    CUresult (*cuMemMap)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*cuMemUnmap)(CUdeviceptr, size_t);
    CUresult (*cuMemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*cuMemGetAllocationGranularity)(size_t *, const CUmemAllocationProp *,
                                              CUmemAllocationGranularity_flags);
    /* devices, modules, launches */
    CUresult (*cuCtxGetDevice)(CUdevice *);
    CUresult (*cuCtxGetCurrent)(CUcontext *);
    CUresult (*cuDeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*cuPointerSetAttribute)(const void *, CUpointer_attribute, CUdeviceptr);
    CUresult (*cuPointerGetAttribute)(void *, CUpointer_attribute, CUdeviceptr);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, CUstream, void **, void **);
    /* stream memory operations (the wait-value hold, hold.c) */
    CUresult (*cuStreamWaitValue32)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
    CUresult (*cuStreamWriteValue32)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
    /* contexts, streams and events (the green family) */
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuCtxSynchronize)(void);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuStreamQuery)(CUstream);
    CUresult (*cuStreamDestroy)(CUstream);
    CUresult (*cuEventSynchronize)(CUevent);
#if CUDA_VERSION >= 12040
    /* green contexts (12.4; cuGreenCtxStreamCreate 12.5), looked up at those versions */
    CUresult (*cuDeviceGetDevResource)(CUdevice, CUdevResource *, CUdevResourceType);
    CUresult (*cuDevSmResourceSplitByCount)(CUdevResource *, unsigned int *, const CUdevResource *, CUdevResource *,
                                            unsigned int, unsigned int);
    CUresult (*cuDevResourceGenerateDesc)(CUdevResourceDesc *, CUdevResource *, unsigned int);
    CUresult (*cuGreenCtxCreate)(CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned int);
    CUresult (*cuGreenCtxDestroy)(CUgreenCtx);
    CUresult (*cuCtxFromGreenCtx)(CUcontext *, CUgreenCtx);
    CUresult (*cuGreenCtxStreamCreate)(CUstream *, CUgreenCtx, unsigned int, int);
#endif
};

extern struct cts_driver cts_drv;

/* Looks every function up (a CUDA context must be current).  0, or -1 and
 * why if the lookup itself failed. */
int cts_driver_load(char *why, size_t len);
/* The function named `name` was not found (or not looked up yet). */
int cts_driver_missing(const char *name);
/* "CUDA_ERROR_INVALID_VALUE" for a CUresult. */
const char *cts_driver_error_name(CUresult r);

#endif
