/* The allocation family: allocating and freeing every kind of memory while
 * other work is held on the GPU.
 *
 * What a call frees is allocated by prepare() and what a call allocates is
 * freed by cleanup(), both with the device idle, outside the measured region.
 * The memory segment of an id names the kind allocated or freed; sizes are
 * small (4 KiB) and large (16 MiB).  2D and 3D allocations and arrays are
 * 1024 bytes wide and size/1024 rows high.
 *
 * Not here yet (issue 3): a pool's release threshold seen through stream,
 * event and device synchronize, and the virtual memory API (cuMemCreate ...). */
#include "../harness/cts.h"
#include "../harness/family.h"

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
            if (c.api == CTS_API_MALLOC_PITCH || c.api == CTS_API_MALLOC_3D ||
                c.api == CTS_API_MALLOC_ARRAY || c.api == CTS_API_FREE_ARRAY) {
                c.width = WIDTH;
                c.height = c.size / WIDTH;
            }
            n = cts_emit(&c, out, cap, n);
        }
    return out ? (n < cap ? n : cap) : n;
}

static void buffers(const struct cts_case *c, enum cts_mem *src, enum cts_mem *dst)
{
    (void)c;
    *src = *dst = CTS_MEM_NONE; /* the family's memory is its own, made per call */
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    switch (c->api) {
    case CTS_API_FREE_POOL_PTR: case CTS_API_MALLOC_ASYNC: case CTS_API_FREE_ASYNC:
    case CTS_API_MALLOC_FROM_POOL_ASYNC: case CTS_API_MEMPOOL_TRIM_TO:
        return cts_need_attribute(cudaDevAttrMemoryPoolsSupported, "cudaDevAttrMemoryPoolsSupported", why, len);
    case CTS_API_HOST_REGISTER: case CTS_API_HOST_UNREGISTER:
        return cts_need_attribute(cudaDevAttrHostRegisterSupported, "cudaDevAttrHostRegisterSupported", why, len);
    case CTS_API_MALLOC_MANAGED:
        return cts_need_attribute(cudaDevAttrManagedMemory, "cudaDevAttrManagedMemory", why, len);
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

/* Page-aligned, touched host memory, as an application would register. */
static int host_pages(struct cts_scratch *s, size_t size, const char **error)
{
    s->ptr = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
    if (!s->ptr) {
        *error = "aligned_alloc failed";
        return 1;
    }
    memset(s->ptr, 0x5a, size);
    return 0;
}

static int prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaMemPool_t pool;
    cudaError_t err;
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
    case CTS_API_FREE_HOST:
        return cts_result(cudaMallocHost(&s->ptr, c->size), error);
    case CTS_API_HOST_REGISTER:
        return host_pages(s, c->size, error);
    case CTS_API_HOST_UNREGISTER:
        if (host_pages(s, c->size, error))
            return 1;
        return cts_result(cudaHostRegister(s->ptr, c->size, cudaHostRegisterDefault), error);
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

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    struct cts_scratch *s = call->scratch;
    cudaStream_t st = (cudaStream_t)call->stream;
    cudaError_t err;
    switch (c->api) {
    case CTS_API_MALLOC:
        return cts_result(cudaMalloc(&s->ptr, c->size), error);
    case CTS_API_FREE:
    case CTS_API_FREE_POOL_PTR:
        err = cudaFree(s->ptr);
        if (err == cudaSuccess)
            s->ptr = NULL;
        return cts_result(err, error);
    case CTS_API_FREE_NULL:
        return cts_result(cudaFree(NULL), error);
    case CTS_API_MALLOC_PITCH:
        return cts_result(cudaMallocPitch(&s->ptr, &s->pitch, c->width, c->height), error);
    case CTS_API_MALLOC_3D: {
        struct cudaPitchedPtr pp;
        struct cudaExtent ext = {.width = c->width, .height = c->height, .depth = 1};
        err = cudaMalloc3D(&pp, ext);
        s->ptr = err == cudaSuccess ? pp.ptr : NULL;
        return cts_result(err, error);
    }
    case CTS_API_MALLOC_ARRAY: {
        struct cudaChannelFormatDesc d = byte_channel();
        return cts_result(cudaMallocArray((cudaArray_t *)&s->handle, &d, c->width, c->height, 0), error);
    }
    case CTS_API_FREE_ARRAY:
        err = cudaFreeArray((cudaArray_t)s->handle);
        if (err == cudaSuccess)
            s->handle = NULL;
        return cts_result(err, error);
    case CTS_API_MALLOC_HOST:
        return cts_result(cudaMallocHost(&s->ptr, c->size), error);
    case CTS_API_FREE_HOST:
        err = cudaFreeHost(s->ptr);
        if (err == cudaSuccess)
            s->ptr = NULL;
        return cts_result(err, error);
    case CTS_API_HOST_ALLOC:
        return cts_result(cudaHostAlloc(&s->ptr, c->size, host_alloc_flags(c->mem)), error);
    case CTS_API_HOST_REGISTER:
        err = cudaHostRegister(s->ptr, c->size, cudaHostRegisterDefault);
        s->pitch = err == cudaSuccess; /* registered: cleanup unregisters */
        return cts_result(err, error);
    case CTS_API_HOST_UNREGISTER:
        return cts_result(cudaHostUnregister(s->ptr), error);
    case CTS_API_MALLOC_MANAGED:
        return cts_result(cudaMallocManaged(&s->ptr, c->size, cudaMemAttachGlobal), error);
    case CTS_API_MALLOC_ASYNC:
        return cts_result(cudaMallocAsync(&s->ptr, c->size, st), error);
    case CTS_API_FREE_ASYNC:
        err = cudaFreeAsync(s->ptr, st);
        if (err == cudaSuccess)
            s->ptr = NULL;
        return cts_result(err, error);
    case CTS_API_MALLOC_FROM_POOL_ASYNC:
        return cts_result(cudaMallocFromPoolAsync(&s->ptr, c->size, private_pool, st), error);
    case CTS_API_MEMPOOL_TRIM_TO:
        return cts_result(cudaMemPoolTrimTo((cudaMemPool_t)s->handle, 0), error);
    default:
        *error = "(not an allocation API)";
        return 1;
    }
}

/* Frees what the call (or prepare, if the call failed) left allocated. */
static int cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess;
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
    case CTS_API_MALLOC_HOST: case CTS_API_FREE_HOST: case CTS_API_HOST_ALLOC:
        if (s->ptr)
            err = cudaFreeHost(s->ptr);
        break;
    case CTS_API_HOST_REGISTER:
        if (s->ptr && s->pitch)
            err = cudaHostUnregister(s->ptr);
        free(s->ptr);
        break;
    case CTS_API_HOST_UNREGISTER:
        free(s->ptr);
        break;
    default:
        break;
    }
    s->ptr = s->handle = NULL;
    return cts_result(err, error);
}

const struct cts_family cts_family_alloc = {"alloc", generate, buffers, needs, issue, prepare, cleanup};
