/* The allocation family: allocating and freeing every kind of memory while
 * other work is held on the GPU.
 *
 * What a call frees is allocated by prepare() and what a call allocates is
 * freed by cleanup(), both with the device idle, outside the measured region.
 * The memory segment of an id names the kind allocated or freed; sizes are
 * small (4 KiB) and large (16 MiB).  2D and 3D allocations and arrays are
 * 1024 bytes wide and size/1024 rows high.
 *
 * The arrays' frees, beside cudaFreeArray of a cudaMallocArray array: cuArrayDestroy of a
 * cuArrayCreate array (one 8-bit unsigned channel, through the driver table; NOTSUPP where the
 * driver lacks either), and cudaFreeMipmappedArray of a cudaMallocMipmappedArray array with every
 * level down to 1 x 1 (NOTSUPP where the device's 2-D mipmapped limits,
 * cudaDevAttrMaxTexture2DMipmappedWidth and Height, are below its 1024 x size/1024, naming them).
 * Each is allocated by prepare() and freed by the call; cleanup() frees it where the call did not.
 *
 * The virtual memory API (cuMemCreate, cuMemMap, cuMemSetAccess, cuMemUnmap,
 * cuMemRelease, through the driver table) is called at the same two sizes,
 * each rounded up to the device's minimum allocation granularity (so 4KiB
 * in an id is in fact one granule, typically 2 MiB), pinned device memory of
 * the current device, memory segment `device`.  prepare() makes what the call
 * needs, in the order an application would: reserve an address range of that
 * size (map, set_access, unmap), create the allocation (map, set_access,
 * unmap, release), map it (set_access, unmap) and give the device read-write
 * access (unmap); cleanup() unmaps, releases and frees the range, whatever
 * of that is left.
 *
 * A pool's release threshold, seen through cudaStreamSynchronize (the op
 * stream), cudaEventSynchronize (an event before() records on the op stream;
 * the op stream is implied, so stream 0) and cudaDeviceSynchronize, variants
 * pool_release_0 and pool_release_max, memory segment `device`, no size:
 * prepare() sets the device's default pool's cudaMemPoolAttrReleaseThreshold
 * to 0 or UINT64_MAX and allocates 64 MiB from it with cudaMallocAsync on the
 * family's private non-blocking stream, synchronized there; before() frees it
 * with cudaFreeAsync on that stream (no synchronize), so the call is the first
 * synchronize after the free: with threshold 0 the pool gives the 64 MiB back
 * to the OS inside the call, and the call's idle time shows what that costs.
 * cleanup() restores the threshold found at first use.
 *
 * The virtual memory calls: cases/alloc_vmm.c; the host registrations, of
 * malloc'ed pages or a mapped file, with each flag: cases/alloc_register.c. */
#include "alloc.h"
#include "../harness/families/driver.h"
#include "../harness/families/family.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 1024

static const struct {
    enum cts_api api;
    enum cts_mem mem;
    int sized;
} calls[] = {
    {CTS_API_MALLOC, CTS_MEM_DEVICE, 1},
    {CTS_API_FREE, CTS_MEM_DEVICE, 1},
    {CTS_API_FREE_POOL_PTR, CTS_MEM_DEVICE, 1},
    {CTS_API_FREE_NULL, CTS_MEM_NONE, 0},
    {CTS_API_MALLOC_PITCH, CTS_MEM_DEVICE, 1},
    {CTS_API_MALLOC_3D, CTS_MEM_DEVICE, 1},
    {CTS_API_MALLOC_ARRAY, CTS_MEM_NONE, 1},
    {CTS_API_FREE_ARRAY, CTS_MEM_NONE, 1},
    {CTS_API_CU_ARRAY_DESTROY, CTS_MEM_NONE, 1},
    {CTS_API_FREE_MIPMAPPED_ARRAY, CTS_MEM_NONE, 1},
    {CTS_API_MALLOC_HOST, CTS_MEM_PINNED, 1},
    {CTS_API_FREE_HOST, CTS_MEM_PINNED, 1},
    {CTS_API_HOST_ALLOC, CTS_MEM_PINNED, 1}, /* cudaHostAllocDefault */
    {CTS_API_HOST_ALLOC, CTS_MEM_PORTABLE, 1},
    {CTS_API_HOST_ALLOC, CTS_MEM_MAPPED, 1},
    {CTS_API_HOST_ALLOC, CTS_MEM_WC, 1},
    {CTS_API_HOST_REGISTER, CTS_MEM_REGISTERED, 1},
    {CTS_API_HOST_UNREGISTER, CTS_MEM_REGISTERED, 1},
    {CTS_API_MALLOC_MANAGED, CTS_MEM_MANAGED, 1},
    {CTS_API_MALLOC_ASYNC, CTS_MEM_DEVICE, 1},
    {CTS_API_FREE_ASYNC, CTS_MEM_DEVICE, 1},
    {CTS_API_MALLOC_FROM_POOL_ASYNC, CTS_MEM_DEVICE, 1},
    {CTS_API_MEMPOOL_TRIM_TO, CTS_MEM_NONE, 0},
};
static const int sizes[] = {1 /* 4KiB */, 6 /* 16MiB */};

/* Virtual memory management, in the order of an allocation's life. */
static const enum cts_api vmm_apis[] = {
    CTS_API_CU_MEM_CREATE, CTS_API_CU_MEM_MAP, CTS_API_CU_MEM_SET_ACCESS, CTS_API_CU_MEM_UNMAP,
    CTS_API_CU_MEM_RELEASE,
};
/* Synchronize calls that let a pool release freed memory. */
static const enum cts_api sync_apis[] = {
    CTS_API_STREAM_SYNCHRONIZE, CTS_API_EVENT_SYNCHRONIZE, CTS_API_DEVICE_SYNCHRONIZE,
};
static const char *const pool_variants[] = {"pool_release_0", "pool_release_max"};
#define POOL_BYTES ((size_t)64 << 20)

static int is_vmm(enum cts_api a)
{
    return a == CTS_API_CU_MEM_CREATE || a == CTS_API_CU_MEM_MAP || a == CTS_API_CU_MEM_SET_ACCESS ||
           a == CTS_API_CU_MEM_UNMAP || a == CTS_API_CU_MEM_RELEASE;
}

static int is_sync(enum cts_api a)
{
    return a == CTS_API_STREAM_SYNCHRONIZE || a == CTS_API_EVENT_SYNCHRONIZE ||
           a == CTS_API_DEVICE_SYNCHRONIZE;
}

/* One case of a registration at a size beside held work on a non-blocking stream: time against size. */
static size_t emit_big(const struct cts_case *proto, const char *variant, int size_idx, struct cts_case *out,
                       size_t cap, size_t n)
{
    if (out && n < cap) {
        out[n] = *proto;
        out[n].variant = variant;
        out[n].size_idx = size_idx;
        out[n].size = cts_size_bytes(size_idx);
        out[n].op = CTS_OP_IMPLIED;
        out[n].busy = CTS_BUSY_NONBLOCKING;
        cts_case_make_id(&out[n]);
    }
    return n + 1;
}

/* A registration's variants (cases/alloc_register.c), after its plain cases (each variant its own
 * CTest group, both sizes): cudaHostRegister each of them, cudaHostUnregister the file-backed one.
 * cudaHostRegister, plain and file-backed (writable and read-only), also at 256 MiB and 1 GiB, one
 * placement each. */
static size_t emit_registrations(const struct cts_case *plain, struct cts_case *out, size_t cap, size_t n)
{
    static const int big[] = {ALLOC_REGISTER_256MIB, ALLOC_REGISTER_1GIB};
    int reg = plain->api == CTS_API_HOST_REGISTER;
    for (size_t b = 0; reg && b < 2; b++)
        n = emit_big(plain, NULL, big[b], out, cap, n);
    for (int v = 0; v < ALLOC_REGISTER_VARIANTS; v++) {
        const char *variant = alloc_register_variants[v];
        if (!reg && strcmp(variant, "file_backed"))
            continue;
        for (size_t s = 0; s < 2; s++) {
            struct cts_case c = *plain;
            c.variant = variant;
            c.size_idx = sizes[s];
            c.size = cts_size_bytes(sizes[s]);
            n = cts_emit(&c, out, cap, n);
            n = cts_emit_threads(&c, out, cap, n);
        }
        int big_too = !strcmp(variant, "file_backed") || !strcmp(variant, "file_backed_read_only");
        for (size_t b = 0; reg && big_too && b < 2; b++)
            n = emit_big(plain, variant, big[b], out, cap, n);
    }
    return n;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t k = 0; k < sizeof calls / sizeof *calls; k++)
        for (size_t s = 0; s < (calls[k].sized ? 2u : 1u); s++) {
            struct cts_case c = {.family = &cts_family_alloc, .api = calls[k].api,
                                 .dir = CTS_DIR_NONE, .mem = calls[k].mem,
                                 .size_idx = calls[k].sized ? sizes[s] : -1,
                                 .size = calls[k].sized ? cts_size_bytes(sizes[s]) : 0,
                                 .kind = CTS_KIND_NONE};
            if (c.api == CTS_API_MALLOC_PITCH || c.api == CTS_API_MALLOC_3D || c.api == CTS_API_MALLOC_ARRAY ||
                c.api == CTS_API_FREE_ARRAY || c.api == CTS_API_CU_ARRAY_DESTROY ||
                c.api == CTS_API_FREE_MIPMAPPED_ARRAY) {
                c.width = WIDTH;
                c.height = c.size / WIDTH;
            }
            n = cts_emit(&c, out, cap, n);
            n = cts_emit_threads(&c, out, cap, n);
            if (s == 1 && (c.api == CTS_API_HOST_REGISTER || c.api == CTS_API_HOST_UNREGISTER))
                n = emit_registrations(&c, out, cap, n);
        }
    for (size_t k = 0; k < sizeof vmm_apis / sizeof *vmm_apis; k++)
        for (size_t s = 0; s < 2; s++) {
            struct cts_case c = {.family = &cts_family_alloc, .api = vmm_apis[k],
                                 .dir = CTS_DIR_NONE, .mem = CTS_MEM_DEVICE, .size_idx = sizes[s],
                                 .size = cts_size_bytes(sizes[s]), .kind = CTS_KIND_NONE};
            n = cts_emit(&c, out, cap, n);
            n = cts_emit_threads(&c, out, cap, n);
        }
    for (size_t k = 0; k < sizeof sync_apis / sizeof *sync_apis; k++)
        for (size_t v = 0; v < sizeof pool_variants / sizeof *pool_variants; v++) {
            struct cts_case c = {.family = &cts_family_alloc, .api = sync_apis[k],
                                 .variant = pool_variants[v], .dir = CTS_DIR_NONE,
                                 .mem = CTS_MEM_DEVICE, .size_idx = -1, .kind = CTS_KIND_NONE};
            n = cts_emit(&c, out, cap, n);
            n = cts_emit_threads(&c, out, cap, n);
        }
    return out ? (n < cap ? n : cap) : n;
}

/* cudaMallocMipmappedArray's: c's 1024 x size/1024 bytes, every level down to 1 x 1. */
static struct cudaExtent mip_extent(const struct cts_case *c)
{
    struct cudaExtent e = {.width = c->width, .height = c->height, .depth = 0};
    return e;
}

static unsigned mip_levels(const struct cts_case *c)
{
    unsigned n = 1;
    for (size_t m = c->width > c->height ? c->width : c->height; m > 1; m >>= 1)
        n++;
    return n;
}

static int need_mipmapped(const struct cts_case *c, char *why, size_t len)
{
    int dev = 0, w = 0, h = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&w, cudaDevAttrMaxTexture2DMipmappedWidth, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&h, cudaDevAttrMaxTexture2DMipmappedHeight, dev);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "cannot read the 2-D mipmapped array limits: %s", cudaGetErrorName(err));
        return -1;
    }
    if ((size_t)w >= c->width && (size_t)h >= c->height)
        return 0;
    snprintf(why, len, "a %zu x %zu mipmapped array is beyond this device's 2-D mipmapped limits "
                       "(cudaDevAttrMaxTexture2DMipmappedWidth %d, cudaDevAttrMaxTexture2DMipmappedHeight %d)",
             c->width, c->height, w, h);
    return -1;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    if (is_vmm(c->api))
        return alloc_need_vmm(c, why, len);
    switch (c->api) {
    case CTS_API_FREE_POOL_PTR: case CTS_API_MALLOC_ASYNC: case CTS_API_FREE_ASYNC:
    case CTS_API_MALLOC_FROM_POOL_ASYNC: case CTS_API_MEMPOOL_TRIM_TO:
    case CTS_API_STREAM_SYNCHRONIZE: case CTS_API_EVENT_SYNCHRONIZE: case CTS_API_DEVICE_SYNCHRONIZE:
        return cts_need_attribute(cudaDevAttrMemoryPoolsSupported, "cudaDevAttrMemoryPoolsSupported", why, len);
    case CTS_API_HOST_REGISTER: case CTS_API_HOST_UNREGISTER:
        return alloc_register_needs(c, why, len);
    case CTS_API_MALLOC_MANAGED:
        return cts_need_attribute(cudaDevAttrManagedMemory, "cudaDevAttrManagedMemory", why, len);
    case CTS_API_CU_ARRAY_DESTROY:
        return cts_need_driver("cuArrayCreate", why, len) ? -1 : cts_need_driver("cuArrayDestroy", why, len);
    case CTS_API_FREE_MIPMAPPED_ARRAY:
        return need_mipmapped(c, why, len);
    case CTS_API_HOST_ALLOC:
        if (c->mem == CTS_MEM_MAPPED)
            return cts_need_attribute(cudaDevAttrCanMapHostMemory, "cudaDevAttrCanMapHostMemory", why, len);
        return 0;
    default:
        return 0;
    }
}

static unsigned host_alloc_flags(enum cts_mem m)
{
    switch (m) {
    case CTS_MEM_PORTABLE: return cudaHostAllocPortable;
    case CTS_MEM_MAPPED: return cudaHostAllocMapped;
    case CTS_MEM_WC: return cudaHostAllocWriteCombined;
    default: return cudaHostAllocDefault;
    }
}

static struct cudaChannelFormatDesc byte_channel(void)
{
    struct cudaChannelFormatDesc d = {8, 0, 0, 0, cudaChannelFormatKindUnsigned};
    return d;
}

/* The family's own pool, for cudaMallocFromPoolAsync and cudaMemPoolTrimTo.
 * Its release threshold is the maximum, so freed memory stays for TrimTo. */
static cudaMemPool_t private_pool;

static cudaError_t get_pool(cudaMemPool_t *pool)
{
    if (!private_pool) {
        int dev = 0;
        cudaError_t err = cudaGetDevice(&dev);
        if (err != cudaSuccess)
            return err;
        struct cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = dev;
        if ((err = cudaMemPoolCreate(&private_pool, &props)) != cudaSuccess)
            return err;
        uint64_t max = UINT64_MAX;
        if ((err = cudaMemPoolSetAttribute(private_pool, cudaMemPoolAttrReleaseThreshold, &max)) !=
            cudaSuccess)
            return err;
    }
    *pool = private_pool;
    return cudaSuccess;
}

/* ---- a pool's release threshold ----
 * scratch: ptr = the 64 MiB from the default pool (NULL once before() freed
 * it), handle = the event cudaEventSynchronize waits for. */
static cudaMemPool_t default_pool;
static uint64_t found_threshold; /* the default pool's threshold at first use */
static int have_found_threshold;
static cudaStream_t pool_stream; /* the family's private non-blocking stream */

static int pool_prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess;
    if (!default_pool) {
        int dev = 0;
        if ((err = cudaGetDevice(&dev)) == cudaSuccess)
            err = cudaDeviceGetDefaultMemPool(&default_pool, dev);
        if (err != cudaSuccess)
            return cts_result(err, error);
    }
    if (!have_found_threshold) {
        if ((err = cudaMemPoolGetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold,
                                           &found_threshold)) != cudaSuccess)
            return cts_result(err, error);
        have_found_threshold = 1;
    }
    if (!pool_stream && (err = cudaStreamCreateWithFlags(&pool_stream, cudaStreamNonBlocking)) !=
                            cudaSuccess)
        return cts_result(err, error);
    uint64_t threshold = strcmp(c->variant, "pool_release_max") == 0 ? UINT64_MAX : 0;
    if ((err = cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &threshold)) !=
            cudaSuccess ||
        (err = cudaMallocAsync(&s->ptr, POOL_BYTES, pool_stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(pool_stream)) != cudaSuccess)
        return cts_result(err, error);
    if (c->api == CTS_API_EVENT_SYNCHRONIZE)
        err = cudaEventCreateWithFlags((cudaEvent_t *)&s->handle, cudaEventDisableTiming);
    return cts_result(err, error);
}

/* Right before the call: free the 64 MiB (stream-ordered, not synchronized),
 * and for cudaEventSynchronize record its event on the op stream. */
static int before(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error)
{
    cudaError_t err;
    if (!is_sync(c->api))
        return 0;
    if ((err = cudaFreeAsync(s->ptr, pool_stream)) != cudaSuccess)
        return cts_result(err, error);
    s->ptr = NULL;
    if (c->api == CTS_API_EVENT_SYNCHRONIZE)
        return cts_result(cudaEventRecord((cudaEvent_t)s->handle, (cudaStream_t)stream), error);
    return 0;
}

static int pool_cleanup(struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess, e2;
    if (s->ptr)
        err = cudaFree(s->ptr);
    if (s->handle && (e2 = cudaEventDestroy((cudaEvent_t)s->handle)) != cudaSuccess &&
        err == cudaSuccess)
        err = e2;
    if (have_found_threshold &&
        (e2 = cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold,
                                      &found_threshold)) != cudaSuccess &&
        err == cudaSuccess)
        err = e2;
    s->ptr = s->handle = NULL;
    return cts_result(err, error);
}

/* cuArrayDestroy's array: cuArrayCreate, 1024 x size/1024 unsigned bytes. */
static int prepare_cu_array(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    CUDA_ARRAY_DESCRIPTOR d;
    memset(&d, 0, sizeof d);
    d.Width = c->width;
    d.Height = c->height;
    d.Format = CU_AD_FORMAT_UNSIGNED_INT8;
    d.NumChannels = 1;
    CUarray a = NULL;
    CUresult r = cts_drv.cuArrayCreate(&a, &d);
    if (r == CUDA_SUCCESS)
        s->handle = a;
    return cts_driver_result(r, error);
}

static int prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaMemPool_t pool;
    cudaError_t err;
    if (is_vmm(c->api))
        return alloc_vmm_prepare(c, s, error);
    if (is_sync(c->api))
        return pool_prepare(c, s, error);
    switch (c->api) {
    case CTS_API_FREE:
        return cts_result(cudaMalloc(&s->ptr, c->size), error);
    case CTS_API_FREE_POOL_PTR:
    case CTS_API_FREE_ASYNC:
        if ((err = cudaMallocAsync(&s->ptr, c->size, (cudaStream_t)0)) == cudaSuccess)
            err = cudaStreamSynchronize((cudaStream_t)0);
        return cts_result(err, error);
    case CTS_API_FREE_ARRAY: {
        struct cudaChannelFormatDesc d = byte_channel();
        return cts_result(cudaMallocArray((cudaArray_t *)&s->handle, &d, c->width, c->height, 0), error);
    }
    case CTS_API_CU_ARRAY_DESTROY:
        return prepare_cu_array(c, s, error);
    case CTS_API_FREE_MIPMAPPED_ARRAY: {
        struct cudaChannelFormatDesc d = byte_channel();
        return cts_result(cudaMallocMipmappedArray((cudaMipmappedArray_t *)&s->handle, &d, mip_extent(c),
                                                   mip_levels(c), 0),
                          error);
    }
    case CTS_API_FREE_HOST:
        return cts_result(cudaMallocHost(&s->ptr, c->size), error);
    case CTS_API_HOST_REGISTER: case CTS_API_HOST_UNREGISTER:
        return alloc_register_prepare(c, s, error);
    case CTS_API_MALLOC_FROM_POOL_ASYNC:
        return cts_result(get_pool(&pool), error);
    case CTS_API_MEMPOOL_TRIM_TO: {
        /* Leave 16 MiB of freed memory in the pool for TrimTo to release. */
        void *p = NULL;
        if ((err = get_pool(&pool)) == cudaSuccess &&
            (err = cudaMallocFromPoolAsync(&p, 16u << 20, pool, (cudaStream_t)0)) == cudaSuccess &&
            (err = cudaFreeAsync(p, (cudaStream_t)0)) == cudaSuccess)
            err = cudaStreamSynchronize((cudaStream_t)0);
        s->handle = pool;
        return cts_result(err, error);
    }
    default:
        return 0;
    }
}

/* The frees and the unregistration: what they free is cleared in the scratch once freed. */
static int issue_free(const struct cts_case *c, struct cts_scratch *s, cudaStream_t st, const char **error)
{
    cudaError_t err;
    switch (c->api) {
    case CTS_API_FREE_NULL:
        return cts_result(cudaFree(NULL), error);
    case CTS_API_FREE_ARRAY:
        if ((err = cudaFreeArray((cudaArray_t)s->handle)) == cudaSuccess)
            s->handle = NULL;
        return cts_result(err, error);
    case CTS_API_CU_ARRAY_DESTROY: {
        CUresult r = cts_drv.cuArrayDestroy((CUarray)s->handle);
        if (r == CUDA_SUCCESS)
            s->handle = NULL;
        return cts_driver_result(r, error);
    }
    case CTS_API_FREE_MIPMAPPED_ARRAY:
        if ((err = cudaFreeMipmappedArray((cudaMipmappedArray_t)s->handle)) == cudaSuccess)
            s->handle = NULL;
        return cts_result(err, error);
    case CTS_API_HOST_UNREGISTER:
        return alloc_register_issue(c, s, error);
    case CTS_API_FREE_HOST: err = cudaFreeHost(s->ptr); break;
    case CTS_API_FREE_ASYNC: err = cudaFreeAsync(s->ptr, st); break;
    default: err = cudaFree(s->ptr); break; /* cudaFree, of a block or of a pool's */
    }
    if (err == cudaSuccess)
        s->ptr = NULL;
    return cts_result(err, error);
}

/* Whether the call frees (issue_free). */
static int frees(enum cts_api a)
{
    return a == CTS_API_FREE || a == CTS_API_FREE_POOL_PTR || a == CTS_API_FREE_NULL || a == CTS_API_FREE_ARRAY ||
           a == CTS_API_CU_ARRAY_DESTROY || a == CTS_API_FREE_MIPMAPPED_ARRAY || a == CTS_API_FREE_HOST ||
           a == CTS_API_FREE_ASYNC || a == CTS_API_HOST_UNREGISTER;
}

/* The allocations of a shape (pitched, 3-D, an array). */
static int issue_shaped(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err;
    if (c->api == CTS_API_MALLOC_PITCH)
        return cts_result(cudaMallocPitch(&s->ptr, &s->pitch, c->width, c->height), error);
    if (c->api == CTS_API_MALLOC_3D) {
        struct cudaPitchedPtr pp;
        struct cudaExtent ext = {.width = c->width, .height = c->height, .depth = 1};
        err = cudaMalloc3D(&pp, ext);
        s->ptr = err == cudaSuccess ? pp.ptr : NULL;
        return cts_result(err, error);
    }
    struct cudaChannelFormatDesc d = byte_channel(); /* cudaMallocArray */
    return cts_result(cudaMallocArray((cudaArray_t *)&s->handle, &d, c->width, c->height, 0), error);
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    struct cts_scratch *s = call->scratch;
    cudaStream_t st = (cudaStream_t)call->stream;
    if (is_vmm(c->api))
        return alloc_vmm_issue(c, s, error);
    if (frees(c->api))
        return issue_free(c, s, st, error);
    switch (c->api) {
    case CTS_API_MALLOC:
        return cts_result(cudaMalloc(&s->ptr, c->size), error);
    case CTS_API_MALLOC_PITCH: case CTS_API_MALLOC_3D: case CTS_API_MALLOC_ARRAY:
        return issue_shaped(c, s, error);
    case CTS_API_MALLOC_HOST:
        return cts_result(cudaMallocHost(&s->ptr, c->size), error);
    case CTS_API_HOST_ALLOC:
        return cts_result(cudaHostAlloc(&s->ptr, c->size, host_alloc_flags(c->mem)), error);
    case CTS_API_HOST_REGISTER:
        return alloc_register_issue(c, s, error);
    case CTS_API_MALLOC_MANAGED:
        return cts_result(cudaMallocManaged(&s->ptr, c->size, cudaMemAttachGlobal), error);
    case CTS_API_MALLOC_ASYNC:
        return cts_result(cudaMallocAsync(&s->ptr, c->size, st), error);
    case CTS_API_MALLOC_FROM_POOL_ASYNC:
        return cts_result(cudaMallocFromPoolAsync(&s->ptr, c->size, private_pool, st), error);
    case CTS_API_MEMPOOL_TRIM_TO:
        return cts_result(cudaMemPoolTrimTo((cudaMemPool_t)s->handle, 0), error);
    case CTS_API_STREAM_SYNCHRONIZE:
        return cts_result(cudaStreamSynchronize(st), error);
    case CTS_API_EVENT_SYNCHRONIZE:
        return cts_result(cudaEventSynchronize((cudaEvent_t)s->handle), error);
    case CTS_API_DEVICE_SYNCHRONIZE:
        return cts_result(cudaDeviceSynchronize(), error);
    default:
        *error = "(not an allocation API)";
        return 1;
    }
}

/* Frees what the call (or prepare, if the call failed) left allocated. */
static int cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess;
    if (is_vmm(c->api))
        return alloc_vmm_cleanup(s, error);
    if (is_sync(c->api))
        return pool_cleanup(s, error);
    switch (c->api) {
    case CTS_API_MALLOC: case CTS_API_FREE: case CTS_API_FREE_POOL_PTR: case CTS_API_MALLOC_PITCH:
    case CTS_API_MALLOC_3D: case CTS_API_MALLOC_MANAGED: case CTS_API_MALLOC_ASYNC:
    case CTS_API_FREE_ASYNC: case CTS_API_MALLOC_FROM_POOL_ASYNC:
        if (s->ptr)
            err = cudaFree(s->ptr);
        break;
    case CTS_API_MALLOC_ARRAY: case CTS_API_FREE_ARRAY:
        if (s->handle)
            err = cudaFreeArray((cudaArray_t)s->handle);
        break;
    case CTS_API_CU_ARRAY_DESTROY: {
        CUresult r = s->handle ? cts_drv.cuArrayDestroy((CUarray)s->handle) : CUDA_SUCCESS;
        s->handle = NULL;
        return cts_driver_result(r, error);
    }
    case CTS_API_FREE_MIPMAPPED_ARRAY:
        if (s->handle)
            err = cudaFreeMipmappedArray((cudaMipmappedArray_t)s->handle);
        break;
    case CTS_API_MALLOC_HOST: case CTS_API_FREE_HOST: case CTS_API_HOST_ALLOC:
        if (s->ptr)
            err = cudaFreeHost(s->ptr);
        break;
    case CTS_API_HOST_REGISTER: case CTS_API_HOST_UNREGISTER:
        return alloc_register_cleanup(c, s, error);
    default:
        break;
    }
    s->ptr = s->handle = NULL;
    return cts_result(err, error);
}

const struct cts_family cts_family_alloc = {
    .name = "alloc", .generate = generate, .needs = needs, .issue = issue,
    .prepare = prepare, .cleanup = cleanup, .before = before, .release = alloc_register_release,
};
