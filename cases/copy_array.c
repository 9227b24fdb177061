/* The copy family's array copies (cases/copy.c declares them, in its grid; copy.h).
 *
 *   2-D   cudaMemcpy2DToArray, cudaMemcpy2DFromArray and their Async forms, on the family's own
 *         1024 x 1024 cudaArray of unsigned char: 1024 bytes a row, size/1024 rows, at (0, 0)
 *   1-D   the driver API's cuMemcpyHtoA, cuMemcpyAtoH, cuMemcpyHtoAAsync, cuMemcpyAtoHAsync,
 *         cuMemcpyDtoA, cuMemcpyAtoD and cuMemcpyAtoA, on the family's own 1-D arrays (height 0)
 *         of 65536 elements of four unsigned 32-bit channels (1 MiB each, 16 bytes an element):
 *         `size` bytes at offset 0; cuMemcpyAtoA from the first array into the second
 *
 * A case is one such copy beside held work, observed as every copy is (docs/method.md): whether
 * the host waited, what work after it did, and the bytes it moved, proven from its sample bytes
 * (set with the device idle before the call, read after the drain) and, for the data-order cases,
 * from the whole destination.  The array side is the family's own memory (CTS_MEM_OWN): the
 * engine sets and reads its sample bytes through poke()/peek() and, for data order, fills it,
 * has the held work write it and reads it whole through own_copy(), since an array has no device
 * address.  For the 2-D array: 2D copies of one byte, and of `size` bytes in rows of 1024.  For
 * the 1-D arrays: the element holding the byte is read with cuMemcpyAtoH into pinned memory,
 * changed there and written back with cuMemcpyHtoA (whole elements: an array's offsets are
 * element-aligned); the whole buffer with cuMemcpyHtoA, AtoH, DtoA, AtoD, and queued on a stream
 * (the held work's write, the reader after the call) with the 2D forms of the runtime at (0, 0),
 * one row of `size` bytes, where it is device memory (no driver 1-D copy from device memory takes
 * a stream), cuMemcpyHtoAAsync and AtoHAsync where it is host memory.
 *
 * The arrays are allocated once, by the first prepare(), poke() or own_copy() that needs them,
 * and kept for the process.
 *
 * NOTSUPP: a 1-D copy where the driver lacks the call, or cuMemcpyHtoA and cuMemcpyAtoH, through
 * which the engine sets and reads the array's bytes; where the device's 1-D array width
 * (cudaDevAttrMaxTexture1DWidth) is below the arrays' 65536 elements, naming it. */
#include "copy.h"
#include "../harness/families/driver.h"
#include "../harness/families/family.h"

#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ARRAY1D_WIDTH (COPY_ARRAY1D_BYTES / COPY_ARRAY1D_ELEMENT)

static cudaArray_t array2d;      /* COPY_ARRAY_WIDTH x COPY_ARRAY_HEIGHT unsigned char, kept */
static cudaArray_t array1d[2];   /* the 1-D arrays: every 1-D copy's, and cuMemcpyAtoA's destination */
static unsigned char *staging;   /* pinned: one byte or one element, for poke()/peek() */

int copy_array_of(enum cts_api a)
{
    switch (a) {
    case CTS_API_MEMCPY2D_TO_ARRAY: case CTS_API_MEMCPY2D_TO_ARRAY_ASYNC:
    case CTS_API_MEMCPY2D_FROM_ARRAY: case CTS_API_MEMCPY2D_FROM_ARRAY_ASYNC:
        return 2;
    case CTS_API_CU_MEMCPY_HTOA: case CTS_API_CU_MEMCPY_ATOH: case CTS_API_CU_MEMCPY_HTOA_ASYNC:
    case CTS_API_CU_MEMCPY_ATOH_ASYNC: case CTS_API_CU_MEMCPY_DTOA: case CTS_API_CU_MEMCPY_ATOD:
    case CTS_API_CU_MEMCPY_ATOA:
        return 1;
    default:
        return 0;
    }
}

/* The 1-D array on a side of c (0 source, 1 destination): the second only as cuMemcpyAtoA's
 * destination. */
static int side_1d(const struct cts_case *c, int side)
{
    return c->api == CTS_API_CU_MEMCPY_ATOA && side == 1;
}

static cudaError_t get_array2d(void)
{
    if (array2d)
        return cudaSuccess;
    struct cudaChannelFormatDesc d = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
    return cudaMallocArray(&array2d, &d, COPY_ARRAY_WIDTH, COPY_ARRAY_HEIGHT, cudaArrayDefault);
}

static cudaError_t get_array1d(int i)
{
    if (array1d[i])
        return cudaSuccess;
    struct cudaChannelFormatDesc d = cudaCreateChannelDesc(32, 32, 32, 32, cudaChannelFormatKindUnsigned);
    return cudaMallocArray(&array1d[i], &d, ARRAY1D_WIDTH, 0, cudaArrayDefault);
}

/* The arrays c copies, and (own) the staging bytes poke() and peek() go through. */
static cudaError_t get_memory(const struct cts_case *c, int own)
{
    cudaError_t err = own && !staging ? cudaMallocHost((void **)&staging, 64) : cudaSuccess;
    if (err != cudaSuccess || copy_array_of(c->api) == 2)
        return err == cudaSuccess ? get_array2d() : err;
    if ((err = get_array1d(0)) == cudaSuccess && c->api == CTS_API_CU_MEMCPY_ATOA)
        err = get_array1d(1);
    return err;
}

static CUarray cu(cudaArray_t a) { return (CUarray)a; } /* the same handle in both APIs */
static CUdeviceptr dptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

int copy_array_needs(const struct cts_case *c, char *why, size_t len)
{
    static const char *const access[] = {"cuMemcpyHtoA", "cuMemcpyAtoH"}; /* poke(), peek() */
    if (copy_array_of(c->api) != 1)
        return 0;
    for (size_t i = 0; i < 2; i++)
        if (cts_need_driver(access[i], why, len))
            return -1;
    int dev = 0, w = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&w, cudaDevAttrMaxTexture1DWidth, dev);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "cannot read cudaDevAttrMaxTexture1DWidth: %s", cudaGetErrorName(err));
        return -1;
    }
    if ((unsigned)w < ARRAY1D_WIDTH) {
        snprintf(why, len, "the 1-D arrays are %u elements wide; this device's 1-D limit "
                           "(cudaDevAttrMaxTexture1DWidth) is %d", ARRAY1D_WIDTH, w);
        return -1;
    }
    return 0;
}

int copy_array_prepare(const struct cts_case *c, const char **error)
{
    return cts_result(get_memory(c, 0), error);
}

/* ---- poke() and peek(): a sample byte ------------------------------------------ */

/* The element holding byte `off` of a 1-D array, into staging. */
static int read_element(cudaArray_t a, size_t off, const char **error)
{
    size_t at = off - off % COPY_ARRAY1D_ELEMENT;
    return cts_driver_result(cts_drv.cuMemcpyAtoH(staging, cu(a), at, COPY_ARRAY1D_ELEMENT), error);
}

int copy_array_poke(const struct cts_case *c, int side, size_t off, unsigned char v, const char **error)
{
    cudaError_t err = get_memory(c, 1);
    if (err != cudaSuccess)
        return cts_result(err, error);
    if (copy_array_of(c->api) == 2) {
        staging[0] = v;
        return cts_result(cudaMemcpy2DToArray(array2d, off % COPY_ARRAY_WIDTH, off / COPY_ARRAY_WIDTH, staging,
                                              1, 1, 1, cudaMemcpyHostToDevice),
                          error);
    }
    cudaArray_t a = array1d[side_1d(c, side)];
    if (read_element(a, off, error))
        return 1;
    staging[off % COPY_ARRAY1D_ELEMENT] = v;
    return cts_driver_result(cts_drv.cuMemcpyHtoA(cu(a), off - off % COPY_ARRAY1D_ELEMENT, staging,
                                                  COPY_ARRAY1D_ELEMENT),
                             error);
}

int copy_array_peek(const struct cts_case *c, int side, size_t off, unsigned char *v, const char **error)
{
    cudaError_t err = get_memory(c, 1);
    if (err != cudaSuccess)
        return cts_result(err, error);
    if (copy_array_of(c->api) == 2) {
        err = cudaMemcpy2DFromArray(staging, 1, array2d, off % COPY_ARRAY_WIDTH, off / COPY_ARRAY_WIDTH, 1, 1,
                                    cudaMemcpyDeviceToHost);
        *v = staging[0];
        return cts_result(err, error);
    }
    if (read_element(array1d[side_1d(c, side)], off, error))
        return 1;
    *v = staging[off % COPY_ARRAY1D_ELEMENT];
    return 0;
}

/* ---- the call under test --------------------------------------------------------- */

/* The driver API's 1-D copies: `size` bytes at offset 0. */
static int issue_1d(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    CUstream cs = (CUstream)call->stream;
    CUarray a = cu(array1d[0]), b = cu(array1d[1]);
    size_t n = c->size;
    CUresult r;
    switch (c->api) {
    case CTS_API_CU_MEMCPY_HTOA: r = cts_drv.cuMemcpyHtoA(a, 0, call->src, n); break;
    case CTS_API_CU_MEMCPY_ATOH: r = cts_drv.cuMemcpyAtoH(call->dst, a, 0, n); break;
    case CTS_API_CU_MEMCPY_HTOA_ASYNC: r = cts_drv.cuMemcpyHtoAAsync(a, 0, call->src, n, cs); break;
    case CTS_API_CU_MEMCPY_ATOH_ASYNC: r = cts_drv.cuMemcpyAtoHAsync(call->dst, a, 0, n, cs); break;
    case CTS_API_CU_MEMCPY_DTOA: r = cts_drv.cuMemcpyDtoA(a, 0, dptr(call->src), n); break;
    case CTS_API_CU_MEMCPY_ATOD: r = cts_drv.cuMemcpyAtoD(dptr(call->dst), a, 0, n); break;
    default: r = cts_drv.cuMemcpyAtoA(b, 0, a, 0, n); break; /* CTS_API_CU_MEMCPY_ATOA */
    }
    return cts_driver_result(r, error);
}

int copy_array_issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    enum cudaMemcpyKind k = copy_kind(c);
    cudaStream_t s = (cudaStream_t)call->stream;
    void *dst = call->dst;
    const void *src = call->src;
    size_t w = c->width, h = c->height;

    switch (c->api) {
    case CTS_API_MEMCPY2D_TO_ARRAY:
        return cts_result(cudaMemcpy2DToArray(array2d, 0, 0, src, w, w, h, k), error);
    case CTS_API_MEMCPY2D_TO_ARRAY_ASYNC:
        return cts_result(cudaMemcpy2DToArrayAsync(array2d, 0, 0, src, w, w, h, k, s), error);
    case CTS_API_MEMCPY2D_FROM_ARRAY:
        return cts_result(cudaMemcpy2DFromArray(dst, w, array2d, 0, 0, w, h, k), error);
    case CTS_API_MEMCPY2D_FROM_ARRAY_ASYNC:
        return cts_result(cudaMemcpy2DFromArrayAsync(dst, w, array2d, 0, 0, w, h, k, s), error);
    default:
        return issue_1d(c, call, error);
    }
}

/* 0 where c->size can be copied: whole rows of the 2-D array, whole elements of a 1-D one, up to
 * its size. */
int copy_array_fits(const struct cts_case *c)
{
    if (copy_array_of(c->api) == 2)
        return c->size && c->size % COPY_ARRAY_WIDTH == 0 ? 0 : -1;
    return c->size && c->size % COPY_ARRAY1D_ELEMENT == 0 && c->size <= COPY_ARRAY1D_BYTES ? 0 : -1;
}

/* ---- data order: the arrays' bytes, whole --------------------------------------- */

/* The 2-D array: n bytes, COPY_ARRAY_WIDTH a row, from (0, 0), to or from p. */
static cudaError_t copy_2d(int to_own, void *p, int p_device, size_t n, int async, cudaStream_t s)
{
    size_t w = COPY_ARRAY_WIDTH, h = n / COPY_ARRAY_WIDTH;
    if (to_own) {
        enum cudaMemcpyKind k = p_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
        return async ? cudaMemcpy2DToArrayAsync(array2d, 0, 0, p, w, w, h, k, s)
                     : cudaMemcpy2DToArray(array2d, 0, 0, p, w, w, h, k);
    }
    enum cudaMemcpyKind k = p_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
    return async ? cudaMemcpy2DFromArrayAsync(p, w, array2d, 0, 0, w, h, k, s)
                 : cudaMemcpy2DFromArray(p, w, array2d, 0, 0, w, h, k);
}

/* A 1-D array queued on s to or from device memory: the runtime's 2D copy, one row of n bytes. */
static cudaError_t copy_1d_device_async(cudaArray_t a, int to_own, void *p, size_t n, cudaStream_t s)
{
    return to_own ? cudaMemcpy2DToArrayAsync(a, 0, 0, p, n, n, 1, cudaMemcpyDeviceToDevice, s)
                  : cudaMemcpy2DFromArrayAsync(p, n, a, 0, 0, n, 1, cudaMemcpyDeviceToDevice, s);
}

/* A 1-D array: n bytes at offset 0, to or from p, by the driver's 1-D copies.  A synchronous copy
 * from pageable host memory may return before its DMA lands: the device (idle) is synchronized. */
static int copy_1d(cudaArray_t a, int to_own, void *p, int p_device, size_t n, int async, cudaStream_t s,
                   const char **error)
{
    CUstream cs = (CUstream)s;
    CUresult r;
    if (async && p_device)
        return cts_result(copy_1d_device_async(a, to_own, p, n, s), error);
    if (p_device)
        r = to_own ? cts_drv.cuMemcpyDtoA(cu(a), 0, dptr(p), n) : cts_drv.cuMemcpyAtoD(dptr(p), cu(a), 0, n);
    else if (async)
        r = to_own ? cts_drv.cuMemcpyHtoAAsync(cu(a), 0, p, n, cs) : cts_drv.cuMemcpyAtoHAsync(p, cu(a), 0, n, cs);
    else
        r = to_own ? cts_drv.cuMemcpyHtoA(cu(a), 0, p, n) : cts_drv.cuMemcpyAtoH(p, cu(a), 0, n);
    if (r != CUDA_SUCCESS)
        return cts_driver_result(r, error);
    return !async && to_own && !p_device ? cts_result(cudaDeviceSynchronize(), error) : 0;
}

int copy_array_own_copy(const struct cts_case *c, int side, int to_own, void *p, int p_device, size_t n,
                        int async, void *stream, const char **error)
{
    cudaError_t err = copy_array_of(c->api) ? get_memory(c, 0) : cudaErrorInvalidValue;
    if (err != cudaSuccess)
        return cts_result(err, error);
    if (copy_array_of(c->api) == 2)
        return cts_result(copy_2d(to_own, p, p_device, n, async, (cudaStream_t)stream), error);
    return copy_1d(array1d[side_1d(c, side)], to_own, p, p_device, n, async, (cudaStream_t)stream, error);
}
