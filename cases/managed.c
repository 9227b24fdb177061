/* The managed family: cudaMemPrefetchAsync (to the device, to the host),
 * cudaMemAdvise (read-mostly, preferred location, accessed-by, each set on
 * the device), and cudaStreamAttachMemAsync (attach singly to the op
 * stream), on a 16 MiB managed allocation of the family's own, at 4 KiB and
 * 16 MiB, while other work is held.
 *
 * Before each call its memory is put where the call has work to do:
 * prefetched to the host before a prefetch to the device, and to the device
 * before anything else.  After it, advice is unset and the attachment made
 * global again.  Attaching singly to the NULL (legacy) stream is illegal: it
 * is tested as a rejection (RT-ATTACH-NULL-STREAM).  Driver 580.159.04
 * rejects the handle 0 (cudaErrorInvalidValue) but accepts cudaStreamLegacy,
 * the same stream: the op_legacy cases deviate (waivers.json).
 *
 * The prefetches and advice take a cudaMemLocation: cudaMemPrefetchAsync and
 * cudaMemAdvise since 13.0, cudaMemPrefetchAsync_v2 and cudaMemAdvise_v2 in
 * 12.2-12.9 (PREFETCH, ADVISE below).  Built against 12.0-12.1, which have
 * neither, those cases are NOTSUPP (apis.def's `since`, cts_need_runtime) and
 * the family places its memory with the older form (a device ordinal). */
#include "../harness/core/cts.h"
#include "../harness/families/family.h"
#include "../harness/core/spec.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

#define BYTES (16u << 20)

#if CUDART_VERSION >= 13000
#define PREFETCH cudaMemPrefetchAsync
#define ADVISE cudaMemAdvise
#elif CUDART_VERSION >= 12020
#define PREFETCH cudaMemPrefetchAsync_v2
#define ADVISE cudaMemAdvise_v2
#endif

static const enum cts_api apis[] = {
    CTS_API_MEM_PREFETCH_TO_DEVICE_ASYNC, CTS_API_MEM_PREFETCH_TO_HOST_ASYNC,
    CTS_API_MEM_ADVISE_READ_MOSTLY,       CTS_API_MEM_ADVISE_PREFERRED_LOCATION,
    CTS_API_MEM_ADVISE_ACCESSED_BY,       CTS_API_STREAM_ATTACH_MEM_ASYNC,
};
static const int sizes[] = {1 /* 4KiB */, 6 /* 16MiB */};

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t a = 0; a < sizeof apis / sizeof *apis; a++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            struct cts_case c = {.family = &cts_family_managed, .api = apis[a], .dir = CTS_DIR_NONE,
                                 .mem = CTS_MEM_MANAGED, .size_idx = sizes[s],
                                 .size = cts_size_bytes(sizes[s]), .kind = CTS_KIND_NONE};
            n = cts_emit(&c, out, cap, n);
            if (sizes[s] == 1) /* 4 KiB: busy work from a second host thread too */
                n = cts_emit_threads(&c, out, cap, n);
        }
    return out ? (n < cap ? n : cap) : n;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    (void)c;
    return cts_need_attribute(cudaDevAttrConcurrentManagedAccess, "cudaDevAttrConcurrentManagedAccess",
                            why, len);
}

static void *memory;

#ifdef PREFETCH
static struct cudaMemLocation device_location(void)
{
    struct cudaMemLocation loc = {.type = cudaMemLocationTypeDevice, .id = 0};
    (void)cudaGetDevice(&loc.id);
    return loc;
}

/* The memory prefetched to the host (on_host) or to the current device. */
static cudaError_t place(int on_host)
{
    struct cudaMemLocation host = {.type = cudaMemLocationTypeHost, .id = 0};
    cudaError_t err = PREFETCH(memory, BYTES, on_host ? host : device_location(), 0, (cudaStream_t)0);
    return err == cudaSuccess ? cudaStreamSynchronize((cudaStream_t)0) : err;
}
#else /* 12.0-12.1: the older form */
static cudaError_t place(int on_host)
{
    int dev = cudaCpuDeviceId;
    if (!on_host)
        (void)cudaGetDevice(&dev);
    cudaError_t err = cudaMemPrefetchAsync(memory, BYTES, dev, (cudaStream_t)0);
    return err == cudaSuccess ? cudaStreamSynchronize((cudaStream_t)0) : err;
}
#endif

static int prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    (void)s;
    cudaError_t err = cudaSuccess;
    if (!memory && (err = cudaMallocManaged(&memory, BYTES, cudaMemAttachGlobal)) != cudaSuccess)
        return cts_result(err, error);
    return cts_result(place(c->api == CTS_API_MEM_PREFETCH_TO_DEVICE_ASYNC), error);
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    cudaStream_t st = (cudaStream_t)call->stream;
#ifdef PREFETCH
    struct cudaMemLocation dev = device_location(), host = {.type = cudaMemLocationTypeHost, .id = 0};
#endif
    switch (c->api) {
#ifdef PREFETCH
    case CTS_API_MEM_PREFETCH_TO_DEVICE_ASYNC:
        return cts_result(PREFETCH(memory, c->size, dev, 0, st), error);
    case CTS_API_MEM_PREFETCH_TO_HOST_ASYNC:
        return cts_result(PREFETCH(memory, c->size, host, 0, st), error);
    case CTS_API_MEM_ADVISE_READ_MOSTLY:
        return cts_result(ADVISE(memory, c->size, cudaMemAdviseSetReadMostly, dev), error);
    case CTS_API_MEM_ADVISE_PREFERRED_LOCATION:
        return cts_result(ADVISE(memory, c->size, cudaMemAdviseSetPreferredLocation, dev), error);
    case CTS_API_MEM_ADVISE_ACCESSED_BY:
        return cts_result(ADVISE(memory, c->size, cudaMemAdviseSetAccessedBy, dev), error);
#endif
    case CTS_API_STREAM_ATTACH_MEM_ASYNC:
        return cts_result(cudaStreamAttachMemAsync(st, memory, 0, cudaMemAttachSingle), error);
    default:
        *error = "(not a managed-memory API)";
        return 1;
    }
}

static int cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    (void)s;
#ifdef PREFETCH
    struct cudaMemLocation dev = device_location();
#endif
    cudaError_t err = cudaSuccess;
    switch (c->api) {
#ifdef PREFETCH
    case CTS_API_MEM_ADVISE_READ_MOSTLY:
        err = ADVISE(memory, BYTES, cudaMemAdviseUnsetReadMostly, dev);
        break;
    case CTS_API_MEM_ADVISE_PREFERRED_LOCATION:
        err = ADVISE(memory, BYTES, cudaMemAdviseUnsetPreferredLocation, dev);
        break;
    case CTS_API_MEM_ADVISE_ACCESSED_BY:
        err = ADVISE(memory, BYTES, cudaMemAdviseUnsetAccessedBy, dev);
        break;
#endif
    case CTS_API_STREAM_ATTACH_MEM_ASYNC:
        err = cudaStreamAttachMemAsync((cudaStream_t)0, memory, 0, cudaMemAttachGlobal);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize((cudaStream_t)0);
        break;
    default:
        break;
    }
    return cts_result(err, error);
}

/* "It is illegal to attach singly to the NULL stream [...] An error will be
 * returned in this case": the reference names no error. */
static const char *rejects(const struct cts_case *c, const char **clause)
{
    if (c->api != CTS_API_STREAM_ATTACH_MEM_ASYNC || !cts_op_is_legacy(c->op))
        return NULL;
    *clause = "RT-ATTACH-NULL-STREAM";
    return "";
}

static const struct cts_clause clauses[] = {
    {"RT-ATTACH-NULL-STREAM", "Runtime API reference, cudaStreamAttachMemAsync",
     "It is illegal to attach singly to the NULL stream, because the NULL stream is a virtual global "
     "stream and not a specific stream. An error will be returned in this case.",
     "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html", NULL},
    {NULL},
};

const struct cts_family cts_family_managed = {
    .name = "managed", .generate = generate, .needs = needs, .issue = issue,
    .prepare = prepare, .cleanup = cleanup, .rejects = rejects, .clauses = clauses,
};
