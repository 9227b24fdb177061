/* The copy family: every copy API the 1-D memcpy family does not cover,
 * through the same observations.
 *
 *   runtime 2D/3D   cudaMemcpy2D, cudaMemcpy3D and their Async forms
 *   symbol          cudaMemcpyToSymbol, cudaMemcpyFromSymbol and their Async forms, on the
 *                   family's own symbol (kernels/symbol.cu, 1 MiB + 4 KiB)
 *   array           cudaMemcpy2DToArray, cudaMemcpy2DFromArray and their Async forms, on the
 *                   family's own 1024 x 1024 cudaArray of unsigned char; the driver API's 1-D
 *                   array copies cuMemcpyHtoA, cuMemcpyAtoH, cuMemcpyDtoA, cuMemcpyAtoD,
 *                   cuMemcpyAtoA, cuMemcpyHtoAAsync and cuMemcpyAtoHAsync, on its own 1-D arrays
 *                   of 1 MiB (cases/copy_array.c)
 *   batch           cudaMemcpyBatchAsync with one copy, source access order "stream",
 *                   "during_call" or "any" (the id's variant)
 *   driver API      cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD, cuMemcpy (UVA), cuMemcpy2D,
 *                   cuMemcpy3D and their Async forms
 *
 * Grid, and why:
 * - Directions: h2d, d2h, d2d; h2h only where the API takes it (runtime 2D/3D with
 *   cudaMemcpyHostToHost, cuMemcpy, cuMemcpy2D, cuMemcpy3D and their Async forms).  A driver
 *   copy whose name implies its direction still carries the dir segment, so that every group
 *   is api.dir.  For a symbol or an array, h2d and d2h mean host <-> symbol/array, and d2d
 *   means device (or managed) memory <-> symbol/array; cuMemcpyAtoA's d2d is array <-> array,
 *   with no memory segment (both sides are the family's own).
 * - Memory kinds: the host side is pageable, pinned or managed (the 1-D family covers the
 *   other host kinds); a d2d copy is on device or managed memory, both sides (one side for a
 *   symbol or an array, whose other side is the family's own).
 * - Copy kinds: the explicit kind of the direction everywhere, and cudaMemcpyDefault too
 *   where a side is managed, for the runtime APIs that take a kind.  cudaMemcpyBatchAsync and
 *   the driver API take none.
 * - Sizes: 1 MiB, and 4 KiB as well for host-to-device copies from pinned memory.  In the
 *   committed 1-D memcpy matrix (H200, 580.159.04) every 4 KiB verdict equals its 1 MiB one
 *   except there: an async pinned host-to-device copy held behind another stream takes its
 *   source at the call at 4 KiB (Qc) and after the return at 1 MiB (Qr).  Both sizes
 *   everywhere would make 6,204 cases; this keeps the family near 3,400.
 * - Shapes: a 2D copy is 4 rows of size/4 bytes, a 3D copy 4 rows x 2 slices of size/8
 *   bytes, pitch = width, so that it covers `size` contiguous bytes where the engine samples
 *   them.  A 2-D array copy is 1024 bytes wide and size/1024 rows high, at (0, 0); a 1-D one
 *   `size` bytes at offset 0 (its sizes: whole 16-byte elements, up to the array's 1 MiB).
 *
 * The symbol and the arrays are the family's own memory (CTS_MEM_OWN): the engine sets and
 * reads their sample bytes through poke()/peek(), 1-byte copies through a pinned byte with
 * the device idle (an array's: copy_array.c).  The arrays are allocated once, by the first
 * prepare() or poke() that needs them, and kept for the process.  No other prepare, and no
 * cleanup/before/after.
 *
 * Data order (the id segment "written"): every copy, at the sizes above, with its explicit kind,
 * held by work in its own stream that writes its source as its last act (cts_emit_written;
 * docs/method.md "Data order"); a symbol by its device address (address()), written by a kernel;
 * an array, which has none, by copies (own_copy(), copy_array.c): the held work's writer is a
 * copy of the new bytes into it, the reader after the call a copy out of it.
 *
 * Rejections: cudaMemcpyBatchAsync given the handle 0 (in both builds) or cudaStreamLegacy,
 * whose reference says the stream "must not be legacy NULL stream" and lists
 * cudaErrorInvalidValue among its errors (RT-BATCH-NULL-STREAM).
 *
 * NOTSUPP: cudaMemcpyBatchAsync below driver 12.8; a driver API copy where the driver lacks
 * the function; a 1-D array copy where the device's 1-D array width is below its arrays'
 * (copy_array.c). */
#include "copy.h"
#include "../harness/families/driver.h"
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define H2D (1u << CTS_DIR_H2D)
#define D2H (1u << CTS_DIR_D2H)
#define D2D (1u << CTS_DIR_D2D)
#define H2H (1u << CTS_DIR_H2H)

/* What a call copies to or from besides the engine's buffers. */
enum own { OWN_NONE, OWN_SYMBOL_DST, OWN_SYMBOL_SRC, OWN_ARRAY_DST, OWN_ARRAY_SRC, OWN_ARRAY_BOTH };

static const struct {
    enum cts_api api;
    unsigned dirs; /* the directions it is declared in */
    int kind;      /* takes a cudaMemcpyKind */
    int dims;      /* 1, 2 (4 rows), 3 (4 rows x 2 slices), or 0: a 2-D array copy */
    enum own own;
} apis[] = {
    {CTS_API_MEMCPY2D, H2D | D2H | D2D | H2H, 1, 2, OWN_NONE},
    {CTS_API_MEMCPY2D_ASYNC, H2D | D2H | D2D | H2H, 1, 2, OWN_NONE},
    {CTS_API_MEMCPY3D, H2D | D2H | D2D | H2H, 1, 3, OWN_NONE},
    {CTS_API_MEMCPY3D_ASYNC, H2D | D2H | D2D | H2H, 1, 3, OWN_NONE},
    {CTS_API_MEMCPY_TO_SYMBOL, H2D | D2D, 1, 1, OWN_SYMBOL_DST},
    {CTS_API_MEMCPY_TO_SYMBOL_ASYNC, H2D | D2D, 1, 1, OWN_SYMBOL_DST},
    {CTS_API_MEMCPY_FROM_SYMBOL, D2H | D2D, 1, 1, OWN_SYMBOL_SRC},
    {CTS_API_MEMCPY_FROM_SYMBOL_ASYNC, D2H | D2D, 1, 1, OWN_SYMBOL_SRC},
    {CTS_API_MEMCPY2D_TO_ARRAY, H2D | D2D, 1, 0, OWN_ARRAY_DST},
    {CTS_API_MEMCPY2D_TO_ARRAY_ASYNC, H2D | D2D, 1, 0, OWN_ARRAY_DST},
    {CTS_API_MEMCPY2D_FROM_ARRAY, D2H | D2D, 1, 0, OWN_ARRAY_SRC},
    {CTS_API_MEMCPY2D_FROM_ARRAY_ASYNC, D2H | D2D, 1, 0, OWN_ARRAY_SRC},
    {CTS_API_MEMCPY_BATCH_ASYNC, H2D | D2H | D2D, 0, 1, OWN_NONE},
    {CTS_API_CU_MEMCPY_HTOD, H2D, 0, 1, OWN_NONE},
    {CTS_API_CU_MEMCPY_DTOH, D2H, 0, 1, OWN_NONE},
    {CTS_API_CU_MEMCPY_DTOD, D2D, 0, 1, OWN_NONE},
    {CTS_API_CU_MEMCPY_HTOD_ASYNC, H2D, 0, 1, OWN_NONE},
    {CTS_API_CU_MEMCPY_DTOH_ASYNC, D2H, 0, 1, OWN_NONE},
    {CTS_API_CU_MEMCPY_DTOD_ASYNC, D2D, 0, 1, OWN_NONE},
    {CTS_API_CU_MEMCPY, H2D | D2H | D2D | H2H, 0, 1, OWN_NONE},
    {CTS_API_CU_MEMCPY_ASYNC, H2D | D2H | D2D | H2H, 0, 1, OWN_NONE},
    {CTS_API_CU_MEMCPY2D, H2D | D2H | D2D | H2H, 0, 2, OWN_NONE},
    {CTS_API_CU_MEMCPY2D_ASYNC, H2D | D2H | D2D | H2H, 0, 2, OWN_NONE},
    {CTS_API_CU_MEMCPY3D, H2D | D2H | D2D | H2H, 0, 3, OWN_NONE},
    {CTS_API_CU_MEMCPY3D_ASYNC, H2D | D2H | D2D | H2H, 0, 3, OWN_NONE},
    {CTS_API_CU_MEMCPY_HTOA, H2D, 0, 1, OWN_ARRAY_DST},
    {CTS_API_CU_MEMCPY_ATOH, D2H, 0, 1, OWN_ARRAY_SRC},
    {CTS_API_CU_MEMCPY_HTOA_ASYNC, H2D, 0, 1, OWN_ARRAY_DST},
    {CTS_API_CU_MEMCPY_ATOH_ASYNC, D2H, 0, 1, OWN_ARRAY_SRC},
    {CTS_API_CU_MEMCPY_DTOA, D2D, 0, 1, OWN_ARRAY_DST},
    {CTS_API_CU_MEMCPY_ATOD, D2D, 0, 1, OWN_ARRAY_SRC},
    {CTS_API_CU_MEMCPY_ATOA, D2D, 0, 1, OWN_ARRAY_BOTH},
};
#define NAPIS (sizeof apis / sizeof *apis)

/* cudaMemcpyBatchAsync's variants: the source access order of its one copy. */
static const char *const batch_variants[] = {"stream", "during_call", "any"};
#if CUDART_VERSION >= 12080 /* below, the batch cases are NOTSUPP (cts_need_runtime) */
static const enum cudaMemcpySrcAccessOrder batch_orders[] = {
    cudaMemcpySrcAccessOrderStream, cudaMemcpySrcAccessOrderDuringApiCall,
    cudaMemcpySrcAccessOrderAny,
};
#endif

static const enum cts_mem host_kinds[] = {CTS_MEM_PAGEABLE, CTS_MEM_PINNED, CTS_MEM_MANAGED};
static const enum cts_mem device_kinds[] = {CTS_MEM_DEVICE, CTS_MEM_MANAGED};
static const enum cts_mem no_kind[] = {CTS_MEM_NONE}; /* array to array: both sides the family's */

#define SIZE_4KIB 1
#define SIZE_1MIB 5

static size_t spec_of(enum cts_api a)
{
    for (size_t i = 0; i < NAPIS; i++)
        if (apis[i].api == a)
            return i;
    return 0; /* not reached: every case's api is in the table */
}

static void shape(struct cts_case *c, int dims)
{
    size_t rows = c->size % 4 == 0 ? 4 : 1, slices = c->size % 8 == 0 ? 2 : 1;
    switch (dims) {
    case 0:
        c->width = COPY_ARRAY_WIDTH;
        c->height = c->size / COPY_ARRAY_WIDTH;
        break;
    case 2:
        c->height = rows;
        c->width = c->size / rows;
        break;
    case 3:
        c->height = rows;
        c->depth = slices;
        c->width = c->size / rows / slices;
        break;
    default:
        break;
    }
}

static void buffers(const struct cts_case *c, enum cts_mem *src, enum cts_mem *dst);

/* What a written case's held work writes: its source's kind. */
static enum cts_mem written_kind(const struct cts_case *c)
{
    enum cts_mem src, dst;
    buffers(c, &src, &dst);
    return src;
}

/* One pass over the grid: the plain cases, or (written) the data-order ones,
 * after them so that each CTest group is contiguous. */
static size_t generate_pass(struct cts_case *out, size_t cap, size_t n, int written)
{
    for (size_t a = 0; a < NAPIS; a++) {
        int batch = apis[a].api == CTS_API_MEMCPY_BATCH_ASYNC;
        size_t nvar = batch ? sizeof batch_variants / sizeof *batch_variants : 1;
        for (size_t v = 0; v < nvar; v++)
            for (int dir = 0; dir < CTS_DIR_COUNT; dir++) {
                if (!(apis[a].dirs & (1u << dir)))
                    continue;
                const enum cts_mem *mems = apis[a].own == OWN_ARRAY_BOTH ? no_kind
                                           : dir == CTS_DIR_D2D              ? device_kinds
                                                                             : host_kinds;
                size_t nmem = apis[a].own == OWN_ARRAY_BOTH ? 1
                              : dir == CTS_DIR_D2D ? sizeof device_kinds / sizeof *device_kinds
                                                   : sizeof host_kinds / sizeof *host_kinds;
                for (size_t m = 0; m < nmem; m++) {
                    /* 4 KiB only where the 1-D family saw it differ from 1 MiB */
                    int both = dir == CTS_DIR_H2D && mems[m] == CTS_MEM_PINNED;
                    static const int sizes[] = {SIZE_4KIB, SIZE_1MIB};
                    for (size_t s = both ? 0 : 1; s < 2; s++) {
                        int nkind = !apis[a].kind || written ? 1 : mems[m] == CTS_MEM_MANAGED ? 2 : 1;
                        for (int k = 0; k < nkind; k++) {
                            struct cts_case c = {
                                .family = &cts_family_copy, .api = apis[a].api,
                                .variant = batch ? batch_variants[v] : NULL, .dir = dir,
                                .mem = mems[m], .size_idx = sizes[s],
                                .size = cts_size_bytes(sizes[s]),
                                .kind = apis[a].kind ? (enum cts_kind)k : CTS_KIND_NONE};
                            shape(&c, apis[a].dims);
                            if (!written)
                                n = cts_emit(&c, out, cap, n);
                            else /* the held work writes the source */
                                n = cts_emit_written(&c, written_kind(&c), out, cap, n);
                        }
                    }
                }
            }
    }
    return n;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = generate_pass(out, cap, generate_pass(out, cap, 0, 0), 1);
    return out ? (n < cap ? n : cap) : n;
}

/* As the memcpy family names them: the memory kind under test is the host
 * side of an h2d/d2h copy (the other side cudaMalloc memory), or both sides
 * of a d2d/h2h one; a symbol or an array side is the family's own. */
static void buffers(const struct cts_case *c, enum cts_mem *src, enum cts_mem *dst)
{
    switch (apis[spec_of(c->api)].own) {
    case OWN_SYMBOL_DST:
    case OWN_ARRAY_DST:
        *src = c->mem;
        *dst = CTS_MEM_OWN;
        break;
    case OWN_SYMBOL_SRC:
    case OWN_ARRAY_SRC:
        *src = CTS_MEM_OWN;
        *dst = c->mem;
        break;
    case OWN_ARRAY_BOTH:
        *src = *dst = CTS_MEM_OWN;
        break;
    default:
        *src = c->dir == CTS_DIR_D2H ? CTS_MEM_DEVICE : c->mem;
        *dst = c->dir == CTS_DIR_H2D ? CTS_MEM_DEVICE : c->mem;
        break;
    }
}

static int is_array(const struct cts_case *c) { return copy_array_of(c->api) != 0; }

static int needs(const struct cts_case *c, char *why, size_t len)
{
    const char *f = cts_api_function(c->api);
    if (c->api == CTS_API_MEMCPY_BATCH_ASYNC) {
        return cts_need_driver_version(12080, f, why, len);
    }
    int driver_api = strncmp(f, "cu", 2) == 0 && strncmp(f, "cuda", 4) != 0;
    if (driver_api && cts_need_driver(f, why, len))
        return -1;
    return copy_array_needs(c, why, len);
}

/* ---- the family's own memory --------------------------------------------------- */

static unsigned char *pinned_byte; /* a symbol's poke()/peek() copy through it */

static int prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    (void)s;
    return is_array(c) ? copy_array_prepare(c, error) : 0;
}

static int poke(const struct cts_case *c, int side, size_t off, unsigned char v, const char **error)
{
    if (is_array(c))
        return copy_array_poke(c, side, off, v, error);
    cudaError_t err = pinned_byte ? cudaSuccess : cudaMallocHost((void **)&pinned_byte, 64);
    if (err != cudaSuccess)
        return cts_result(err, error);
    pinned_byte[0] = v;
    return cts_result(cudaMemcpyToSymbol(cts_symbol(), pinned_byte, 1, off, cudaMemcpyHostToDevice), error);
}

static int peek(const struct cts_case *c, int side, size_t off, unsigned char *v, const char **error)
{
    if (is_array(c))
        return copy_array_peek(c, side, off, v, error);
    cudaError_t err = pinned_byte ? cudaSuccess : cudaMallocHost((void **)&pinned_byte, 64);
    if (err == cudaSuccess)
        err = cudaMemcpyFromSymbol(pinned_byte, cts_symbol(), 1, off, cudaMemcpyDeviceToHost);
    *v = pinned_byte ? pinned_byte[0] : 0;
    return cts_result(err, error);
}

/* ---- the call under test -------------------------------------------------------- */

static CUmemorytype driver_memtype(enum cts_mem m)
{
    return m == CTS_MEM_DEVICE ? CU_MEMORYTYPE_DEVICE
           : m == CTS_MEM_MANAGED ? CU_MEMORYTYPE_UNIFIED
                                  : CU_MEMORYTYPE_HOST;
}

static CUdeviceptr dptr(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

/* The driver's 2D/3D copy descriptor for c: src and dst are typed by the
 * memory kind behind them (host, device, or unified for managed memory). */
static CUDA_MEMCPY3D driver_3d(const struct cts_case *c, const struct cts_call *call)
{
    enum cts_mem sm, dm;
    buffers(c, &sm, &dm);
    CUDA_MEMCPY3D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = driver_memtype(sm);
    if (p.srcMemoryType == CU_MEMORYTYPE_HOST)
        p.srcHost = call->src;
    else
        p.srcDevice = dptr(call->src);
    p.dstMemoryType = driver_memtype(dm);
    if (p.dstMemoryType == CU_MEMORYTYPE_HOST)
        p.dstHost = call->dst;
    else
        p.dstDevice = dptr(call->dst);
    p.srcPitch = p.dstPitch = p.WidthInBytes = c->width;
    p.srcHeight = p.dstHeight = p.Height = c->height;
    p.Depth = c->depth ? c->depth : 1;
    return p;
}

static CUDA_MEMCPY2D driver_2d(const struct cts_case *c, const struct cts_call *call)
{
    CUDA_MEMCPY3D q = driver_3d(c, call);
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = q.srcMemoryType;
    p.srcHost = q.srcHost;
    p.srcDevice = q.srcDevice;
    p.srcPitch = q.srcPitch;
    p.dstMemoryType = q.dstMemoryType;
    p.dstHost = q.dstHost;
    p.dstDevice = q.dstDevice;
    p.dstPitch = q.dstPitch;
    p.WidthInBytes = q.WidthInBytes;
    p.Height = q.Height;
    return p;
}

static struct cudaPitchedPtr pitched(const void *p, const struct cts_case *c)
{
    struct cudaPitchedPtr r = {(void *)(uintptr_t)p, c->width, c->width, c->height};
    return r;
}

/* The runtime API's kind for c: cudaMemcpyDefault, or the direction's explicit kind (copy.h). */
enum cudaMemcpyKind copy_kind(const struct cts_case *c)
{
    static const enum cudaMemcpyKind explicit_kinds[CTS_DIR_COUNT] = {
        cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
        cudaMemcpyDeviceToDevice, cudaMemcpyHostToHost,
    };
    return c->kind == CTS_KIND_DEFAULT ? cudaMemcpyDefault : explicit_kinds[c->dir];
}

/* cudaMemcpy3D and cudaMemcpy3DAsync: c's 4 rows x c->depth slices, pitch = width. */
static int issue_3d(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    cudaStream_t s = (cudaStream_t)call->stream;
    struct cudaMemcpy3DParms p3;

    memset(&p3, 0, sizeof p3);
    p3.srcPtr = pitched(call->src, c);
    p3.dstPtr = pitched(call->dst, c);
    p3.extent.width = c->width;
    p3.extent.height = c->height;
    p3.extent.depth = c->depth;
    p3.kind = copy_kind(c);
    return cts_result(c->api == CTS_API_MEMCPY3D ? cudaMemcpy3D(&p3) : cudaMemcpy3DAsync(&p3, s),
                      error);
}

/* cudaMemcpyBatchAsync with one copy, in the source access order the variant names.
 * 12.8-12.9 take non-const sources and a failIdx before the stream (13.0 dropped it). */
#if CUDART_VERSION >= 12080
static int issue_batch(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    cudaStream_t s = (cudaStream_t)call->stream;
    void *dsts[1] = {call->dst};
    const void *srcs[1] = {call->src};
    size_t sizes[1] = {c->size}, idx[1] = {0};
    struct cudaMemcpyAttributes attr;

    memset(&attr, 0, sizeof attr); /* no location hints, no flags */
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    for (size_t v = 0; v < sizeof batch_variants / sizeof *batch_variants; v++)
        if (c->variant && strcmp(c->variant, batch_variants[v]) == 0)
            attr.srcAccessOrder = batch_orders[v];
#if CUDART_VERSION >= 13000
    return cts_result(cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, idx, 1, s), error);
#else
    size_t fail = 0;
    return cts_result(cudaMemcpyBatchAsync(dsts, (void **)srcs, sizes, 1, &attr, idx, 1, &fail, s),
                      error);
#endif
}
#endif

/* The driver API's copies (cuMemcpy*). */
static int issue_driver(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    CUstream cs = (CUstream)call->stream;
    void *dst = call->dst;
    const void *src = call->src;
    size_t n = c->size;
    CUDA_MEMCPY2D d2;
    CUDA_MEMCPY3D d3;

    switch (c->api) {
    case CTS_API_CU_MEMCPY_HTOD:
        return cts_driver_result(cts_drv.cuMemcpyHtoD(dptr(dst), src, n), error);
    case CTS_API_CU_MEMCPY_DTOH:
        return cts_driver_result(cts_drv.cuMemcpyDtoH(dst, dptr(src), n), error);
    case CTS_API_CU_MEMCPY_DTOD:
        return cts_driver_result(cts_drv.cuMemcpyDtoD(dptr(dst), dptr(src), n), error);
    case CTS_API_CU_MEMCPY_HTOD_ASYNC:
        return cts_driver_result(cts_drv.cuMemcpyHtoDAsync(dptr(dst), src, n, cs), error);
    case CTS_API_CU_MEMCPY_DTOH_ASYNC:
        return cts_driver_result(cts_drv.cuMemcpyDtoHAsync(dst, dptr(src), n, cs), error);
    case CTS_API_CU_MEMCPY_DTOD_ASYNC:
        return cts_driver_result(cts_drv.cuMemcpyDtoDAsync(dptr(dst), dptr(src), n, cs), error);
    case CTS_API_CU_MEMCPY:
        return cts_driver_result(cts_drv.cuMemcpy(dptr(dst), dptr(src), n), error);
    case CTS_API_CU_MEMCPY_ASYNC:
        return cts_driver_result(cts_drv.cuMemcpyAsync(dptr(dst), dptr(src), n, cs), error);
    case CTS_API_CU_MEMCPY2D:
        d2 = driver_2d(c, call);
        return cts_driver_result(cts_drv.cuMemcpy2D(&d2), error);
    case CTS_API_CU_MEMCPY2D_ASYNC:
        d2 = driver_2d(c, call);
        return cts_driver_result(cts_drv.cuMemcpy2DAsync(&d2, cs), error);
    case CTS_API_CU_MEMCPY3D:
        d3 = driver_3d(c, call);
        return cts_driver_result(cts_drv.cuMemcpy3D(&d3), error);
    case CTS_API_CU_MEMCPY3D_ASYNC:
        d3 = driver_3d(c, call);
        return cts_driver_result(cts_drv.cuMemcpy3DAsync(&d3, cs), error);
    default:
        *error = "(not a copy API)";
        return 1;
    }
}

/* The runtime API's 2D and symbol copies here; 3D, batch and the driver API's in the
 * helpers above; the array copies in copy_array.c. */
static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    enum cudaMemcpyKind k = copy_kind(c);
    cudaStream_t s = (cudaStream_t)call->stream;
    void *dst = call->dst;
    const void *src = call->src;
    size_t n = c->size, w = c->width, h = c->height;

    if (is_array(c))
        return copy_array_issue(c, call, error);
    switch (c->api) {
    case CTS_API_MEMCPY2D: return cts_result(cudaMemcpy2D(dst, w, src, w, w, h, k), error);
    case CTS_API_MEMCPY2D_ASYNC:
        return cts_result(cudaMemcpy2DAsync(dst, w, src, w, w, h, k, s), error);
    case CTS_API_MEMCPY3D:
    case CTS_API_MEMCPY3D_ASYNC: return issue_3d(c, call, error);
    case CTS_API_MEMCPY_TO_SYMBOL:
        return cts_result(cudaMemcpyToSymbol(cts_symbol(), src, n, 0, k), error);
    case CTS_API_MEMCPY_TO_SYMBOL_ASYNC:
        return cts_result(cudaMemcpyToSymbolAsync(cts_symbol(), src, n, 0, k, s), error);
    case CTS_API_MEMCPY_FROM_SYMBOL:
        return cts_result(cudaMemcpyFromSymbol(dst, cts_symbol(), n, 0, k), error);
    case CTS_API_MEMCPY_FROM_SYMBOL_ASYNC:
        return cts_result(cudaMemcpyFromSymbolAsync(dst, cts_symbol(), n, 0, k, s), error);
#if CUDART_VERSION >= 12080
    case CTS_API_MEMCPY_BATCH_ASYNC: return issue_batch(c, call, error);
#endif
    default: return issue_driver(c, call, error);
    }
}

/* The handle 0 is read as the "legacy NULL stream" in both builds: the
 * per-thread build's runtime rejects it too (H100 and H200, 580.159.04). */
static const char *rejects(const struct cts_case *c, const char **clause)
{
    if (c->api != CTS_API_MEMCPY_BATCH_ASYNC || (c->op != CTS_OP_NULL && c->op != CTS_OP_LEGACY))
        return NULL;
    *clause = "RT-BATCH-NULL-STREAM";
    return "cudaErrorInvalidValue";
}

/* The shape for any size, as generate() gives it; an array copy only as copy_array_fits()
 * says (whole rows of the 2-D array, whole elements of a 1-D one), a symbol copy up to 1 MiB. */
static int resize(struct cts_case *c)
{
    int dims = apis[spec_of(c->api)].dims;
    enum own own = apis[spec_of(c->api)].own;
    if (is_array(c) && copy_array_fits(c))
        return -1;
    if ((own == OWN_SYMBOL_DST || own == OWN_SYMBOL_SRC) && c->size > CTS_SYMBOL_BYTES - 4096u)
        return -1; /* the symbol's size */
    c->width = c->height = c->depth = 0;
    shape(c, dims);
    return 0;
}

/* Data order: the symbol's device address (an array has none: own_copy). */
static void *address(const struct cts_case *c, int side)
{
    (void)side;
    void *p = NULL;
    if (is_array(c) || cudaGetSymbolAddress(&p, cts_symbol()) != cudaSuccess)
        return NULL;
    return p;
}

/* The cheap copy users compare with cudaMemcpyAsync's (issue 41 item 1: "contends less for the
 * driver's lock"): a batch of one 4 KiB pinned-to-device copy in stream order, on every stream it
 * accepts, timed from 1, 4 and 16 threads at once like the memcpy family's 4 KiB cudaMemcpyAsync. */
static int cheap(const struct cts_case *c)
{
    return c->api == CTS_API_MEMCPY_BATCH_ASYNC && c->variant && !strcmp(c->variant, "stream") &&
           c->dir == CTS_DIR_H2D && c->mem == CTS_MEM_PINNED && c->size_idx == SIZE_4KIB && !c->writes &&
           c->op != CTS_OP_NULL && c->op != CTS_OP_LEGACY;
}

const struct cts_family cts_family_copy = {
    .name = "copy", .generate = generate, .buffers = buffers, .needs = needs, .issue = issue,
    .prepare = prepare, .poke = poke, .peek = peek, .rejects = rejects, .resize = resize,
    .address = address, .own_copy = copy_array_own_copy, .cheap = cheap,
};
