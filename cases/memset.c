/* The memset family: cudaMemset, cudaMemset2D, cudaMemset3D and their Async
 * forms, and the driver API's cuMemsetD8/D16/D32 and cuMemsetD2D8/16/32 with
 * theirs, on device, pinned, registered and managed memory, at the memcpy
 * family's sizes, on every op stream and busy placement.
 *
 * A 2D or 3D call covers the case's size as one contiguous block: pitch =
 * width, and the size is split into 4 rows (2D) or 4 rows x 2 slices (3D)
 * where it divides, else one row.  The 16- and 32-bit driver forms write
 * size/2 or size/4 elements and are declared only for sizes they divide.
 *
 * The runtime forms at 4 KiB, 1 MiB and 16 MiB also run behind a host
 * function on the op stream itself (busy_same_hostfn).
 *
 * Data order (the id segment "written"): every form at 4 KiB, 1 and 16 MiB,
 * its destination written by the held work in its own stream as its last act
 * (a kernel for device and managed memory, the host function for host
 * memory): the memset must set every byte over that write. */
#include "../harness/core/cts.h"
#include "../harness/families/driver.h"
#include "../harness/families/family.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

static const enum cts_api apis[] = {
    CTS_API_MEMSET,          CTS_API_MEMSET_ASYNC,        CTS_API_MEMSET2D,
    CTS_API_MEMSET2D_ASYNC,  CTS_API_MEMSET3D,            CTS_API_MEMSET3D_ASYNC,
    CTS_API_CU_MEMSET_D8,    CTS_API_CU_MEMSET_D16,       CTS_API_CU_MEMSET_D32,
    CTS_API_CU_MEMSET_D8_ASYNC, CTS_API_CU_MEMSET_D16_ASYNC, CTS_API_CU_MEMSET_D32_ASYNC,
    CTS_API_CU_MEMSET_D2D8,  CTS_API_CU_MEMSET_D2D16,     CTS_API_CU_MEMSET_D2D32,
    CTS_API_CU_MEMSET_D2D8_ASYNC, CTS_API_CU_MEMSET_D2D16_ASYNC, CTS_API_CU_MEMSET_D2D32_ASYNC,
};
static const enum cts_mem mems[] = {CTS_MEM_DEVICE, CTS_MEM_PINNED, CTS_MEM_REGISTERED,
                                    CTS_MEM_MANAGED, CTS_MEM_DEVICE_SYNC};

/* Device memory with SYNC_MEMOPS set (issue 41): does the attribute make a
 * synchronous memset wait (cudaMemset, cuMemsetD8 at 4 KiB, 1 and 16 MiB),
 * and the asynchronous one not (cudaMemsetAsync, cuMemsetD8Async at 4 KiB)?
 * No data order (the plain kinds answer it). */
static int sync_memops_skips(enum cts_api a, enum cts_mem m, int size_idx)
{
    if (m != CTS_MEM_DEVICE_SYNC)
        return 0;
    if (a == CTS_API_MEMSET_ASYNC || a == CTS_API_CU_MEMSET_D8_ASYNC)
        return size_idx != 1;
    return (a != CTS_API_MEMSET && a != CTS_API_CU_MEMSET_D8) || (size_idx != 1 && size_idx != 5 && size_idx != 6);
}

/* Bytes per element written: 1, 2 or 4. */
static size_t element(enum cts_api a)
{
    switch (a) {
    case CTS_API_CU_MEMSET_D16: case CTS_API_CU_MEMSET_D16_ASYNC:
    case CTS_API_CU_MEMSET_D2D16: case CTS_API_CU_MEMSET_D2D16_ASYNC:
        return 2;
    case CTS_API_CU_MEMSET_D32: case CTS_API_CU_MEMSET_D32_ASYNC:
    case CTS_API_CU_MEMSET_D2D32: case CTS_API_CU_MEMSET_D2D32_ASYNC:
        return 4;
    default:
        return 1;
    }
}

/* 2 for a 2D call, 3 for 3D, 1 otherwise. */
static int dims(enum cts_api a)
{
    switch (a) {
    case CTS_API_MEMSET2D: case CTS_API_MEMSET2D_ASYNC:
    case CTS_API_CU_MEMSET_D2D8: case CTS_API_CU_MEMSET_D2D16: case CTS_API_CU_MEMSET_D2D32:
    case CTS_API_CU_MEMSET_D2D8_ASYNC: case CTS_API_CU_MEMSET_D2D16_ASYNC:
    case CTS_API_CU_MEMSET_D2D32_ASYNC:
        return 2;
    case CTS_API_MEMSET3D: case CTS_API_MEMSET3D_ASYNC:
        return 3;
    default:
        return 1;
    }
}

static void shape(struct cts_case *c)
{
    int d = dims(c->api);
    size_t rows = d > 1 && c->size % (4 * element(c->api)) == 0 ? 4 : 1;
    size_t slices = d == 3 && c->size % 8 == 0 ? 2 : 1;
    if (d == 1)
        return;
    c->height = rows;
    c->depth = d == 3 ? slices : 0;
    c->width = c->size / rows / slices;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t a = 0; a < sizeof apis / sizeof *apis; a++)
        for (size_t m = 0; m < sizeof mems / sizeof *mems; m++)
            for (int s = 0; s < CTS_SIZE_COUNT; s++) {
                if (cts_size_bytes(s) % element(apis[a]) || sync_memops_skips(apis[a], mems[m], s))
                    continue; /* a 16/32-bit memset cannot cover an odd size; SYNC_MEMOPS: above */
                struct cts_case c = {.family = &cts_family_memset, .api = apis[a],
                                     .dir = CTS_DIR_NONE, .mem = mems[m], .size_idx = s,
                                     .size = cts_size_bytes(s), .kind = CTS_KIND_NONE};
                shape(&c);
                n = cts_emit(&c, out, cap, n);
                /* 4 KiB runtime memsets: busy work from a second host thread too */
                if (s == 1 && apis[a] <= CTS_API_MEMSET3D_ASYNC)
                    n = cts_emit_threads(&c, out, cap, n);
                /* ... and, at 4 KiB, 1 and 16 MiB, a host function ahead in the op stream */
                if ((s == 1 || s >= 5) && apis[a] <= CTS_API_MEMSET3D_ASYNC)
                    n = cts_emit_same_hostfn(&c, out, cap, n);
            }
    /* Data order, after the rest (each CTest group contiguous): the held work
     * writes the destination, which the memset must set over. */
    static const int wsizes[] = {1, 5, 6}; /* 4 KiB, 1 and 16 MiB */
    for (size_t a = 0; a < sizeof apis / sizeof *apis; a++)
        for (size_t m = 0; m < sizeof mems / sizeof *mems; m++)
            for (size_t s = 0; s < sizeof wsizes / sizeof *wsizes && mems[m] != CTS_MEM_DEVICE_SYNC; s++) {
                struct cts_case c = {.family = &cts_family_memset, .api = apis[a], .dir = CTS_DIR_NONE,
                                     .mem = mems[m], .size_idx = wsizes[s], .size = cts_size_bytes(wsizes[s]),
                                     .kind = CTS_KIND_NONE};
                shape(&c);
                n = cts_emit_written(&c, mems[m], out, cap, n);
            }
    return out ? (n < cap ? n : cap) : n;
}

static void buffers(const struct cts_case *c, enum cts_mem *src, enum cts_mem *dst)
{
    *src = CTS_MEM_NONE;
    *dst = c->mem;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    const char *f = cts_api_function(c->api);
    int driver_api = strncmp(f, "cu", 2) == 0 && strncmp(f, "cuda", 4) != 0;
    return driver_api ? cts_need_driver(f, why, len) : 0;
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    cudaStream_t s = (cudaStream_t)call->stream;
    CUstream cs = (CUstream)call->stream;
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)call->dst;
    unsigned char v8 = call->value;
    unsigned short v16 = (unsigned short)(v8 * 0x0101u);
    unsigned int v32 = v8 * 0x01010101u;
    size_t n = c->size, w = c->width, h = c->height;
    struct cudaPitchedPtr pp = {.ptr = call->dst, .pitch = w, .xsize = w, .ysize = h};
    struct cudaExtent ext = {.width = w, .height = h, .depth = c->depth};

    switch (c->api) {
    case CTS_API_MEMSET: return cts_result(cudaMemset(call->dst, v8, n), error);
    case CTS_API_MEMSET_ASYNC: return cts_result(cudaMemsetAsync(call->dst, v8, n, s), error);
    case CTS_API_MEMSET2D: return cts_result(cudaMemset2D(call->dst, w, v8, w, h), error);
    case CTS_API_MEMSET2D_ASYNC:
        return cts_result(cudaMemset2DAsync(call->dst, w, v8, w, h, s), error);
    case CTS_API_MEMSET3D: return cts_result(cudaMemset3D(pp, v8, ext), error);
    case CTS_API_MEMSET3D_ASYNC: return cts_result(cudaMemset3DAsync(pp, v8, ext, s), error);
    case CTS_API_CU_MEMSET_D8: return cts_driver_result(cts_drv.cuMemsetD8(p, v8, n), error);
    case CTS_API_CU_MEMSET_D16: return cts_driver_result(cts_drv.cuMemsetD16(p, v16, n / 2), error);
    case CTS_API_CU_MEMSET_D32: return cts_driver_result(cts_drv.cuMemsetD32(p, v32, n / 4), error);
    case CTS_API_CU_MEMSET_D8_ASYNC:
        return cts_driver_result(cts_drv.cuMemsetD8Async(p, v8, n, cs), error);
    case CTS_API_CU_MEMSET_D16_ASYNC:
        return cts_driver_result(cts_drv.cuMemsetD16Async(p, v16, n / 2, cs), error);
    case CTS_API_CU_MEMSET_D32_ASYNC:
        return cts_driver_result(cts_drv.cuMemsetD32Async(p, v32, n / 4, cs), error);
    case CTS_API_CU_MEMSET_D2D8: return cts_driver_result(cts_drv.cuMemsetD2D8(p, w, v8, w, h), error);
    case CTS_API_CU_MEMSET_D2D16:
        return cts_driver_result(cts_drv.cuMemsetD2D16(p, w, v16, w / 2, h), error);
    case CTS_API_CU_MEMSET_D2D32:
        return cts_driver_result(cts_drv.cuMemsetD2D32(p, w, v32, w / 4, h), error);
    case CTS_API_CU_MEMSET_D2D8_ASYNC:
        return cts_driver_result(cts_drv.cuMemsetD2D8Async(p, w, v8, w, h, cs), error);
    case CTS_API_CU_MEMSET_D2D16_ASYNC:
        return cts_driver_result(cts_drv.cuMemsetD2D16Async(p, w, v16, w / 2, h, cs), error);
    case CTS_API_CU_MEMSET_D2D32_ASYNC:
        return cts_driver_result(cts_drv.cuMemsetD2D32Async(p, w, v32, w / 4, h, cs), error);
    default:
        *error = "(not a memset API)";
        return 1;
    }
}

/* The shape for any size the call can set whole elements of. */
static int resize(struct cts_case *c)
{
    if (c->size == 0 || c->size % element(c->api))
        return -1;
    c->width = c->height = c->depth = 0;
    shape(c);
    return 0;
}

const struct cts_family cts_family_memset = {
    .name = "memset", .generate = generate, .buffers = buffers, .needs = needs, .issue = issue, .resize = resize,
};
