/* The device family: calls that users suspect of synchronizing the device or
 * of holding a driver lock (sglang #25225, cudf #23074, kokkos #7562,
 * intel/llvm #16928), each issued while other work is held, on the engine's
 * usual grid (cts_emit, and from a second host thread, cts_emit_threads).
 * None touches the engine's buffers.
 *
 * - cudaMemGetInfo; cudaGetDeviceProperties; cudaDeviceGetAttribute
 *   (cudaDevAttrMultiProcessorCount).
 * - cudaSetDevice: `current`, the device the engine runs on; `other`, another
 *   device (NOTSUPP where there is one), made current again by after(), right
 *   after the call and before the engine's markers.
 * - cudaFuncSetAttribute on the suite's sleep kernel, one variant an
 *   attribute a program may set: the maximum dynamic shared memory, the
 *   preferred shared-memory carveout, non-portable cluster sizes and the
 *   cluster scheduling policy.  The call sets a value other than the one
 *   cudaFuncGetAttributes gave at first use; cleanup() sets that one back.
 *   Not the required cluster dimensions: they are for kernels compiled for
 *   clusters, and the suite has none.
 * - cudaStreamCreateWithPriority: a non-blocking stream of the greatest
 *   priority (cleanup destroys it).
 * - Interprocess events (cudaEventInterprocess | cudaEventDisableTiming):
 *   cudaEventCreateWithFlags (cleanup destroys it), cudaEventRecord of one
 *   (on the op stream), cudaEventDestroy of one, cudaIpcGetEventHandle.  Every
 *   such event is made by prepare(), outside the measured region.  And
 *   cudaIpcOpenEventHandle of a handle "exported from another process": the
 *   worker's exporting process (harness/families/peer.c), which runs only while these
 *   cases do; cleanup destroys the event opened.  (In the exporting process
 *   itself it returns cudaErrorDeviceUninitialized: H100, 580.159.04.)
 * - Interprocess memory: cudaIpcGetMemHandle of 4 KiB that prepare() allocated
 *   (cleanup frees it); cudaIpcOpenMemHandle of the memory the exporting
 *   process exported (cleanup closes it); cudaIpcCloseMemHandle of that memory,
 *   opened by prepare().  Opening a handle the process opened already counts
 *   a reference and returns the same pointer, so calls from several threads
 *   at once each open and close their own reference.
 * - cudaMemPoolGetAttribute and cudaMemPoolSetAttribute on the device's
 *   default pool, one variant an attribute: get each of the eight; set the
 *   release threshold and the three reuse flags to the value they have (the
 *   alloc family changes the threshold itself), and reset the two
 *   high-water marks (to 0, the only value they take).
 *
 * The Runtime API says of cudaSetDevice that it "will do no synchronization
 * with the previous or new device" (RT-SET-DEVICE); of the others nothing
 * beyond RT-SYNC-ANY (apis.def: documented 0): they are RECORDED. */
#include "../harness/core/cts.h"
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"
#include "../harness/core/spec.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define IPC_FLAGS (cudaEventInterprocess | cudaEventDisableTiming)
#define INTERPROCESS "interprocess"

static const struct {
    const char *variant;
    enum cudaFuncAttribute attr;
} func_attrs[] = {
    {"max_dynamic_shared_memory_size", cudaFuncAttributeMaxDynamicSharedMemorySize},
    {"preferred_shared_memory_carveout", cudaFuncAttributePreferredSharedMemoryCarveout},
    {"non_portable_cluster_size_allowed", cudaFuncAttributeNonPortableClusterSizeAllowed},
    {"cluster_scheduling_policy_preference", cudaFuncAttributeClusterSchedulingPolicyPreference},
};
#define NFUNC (sizeof func_attrs / sizeof *func_attrs)

/* The pool's attributes: get each; set those whose `set` is 1 (to the value
 * they have) or 2 (a high-water mark: reset to 0). */
static const struct {
    const char *variant;
    enum cudaMemPoolAttr attr;
    int is_int; /* an int; else a cuuint64_t */
    int set;
} pool_attrs[] = {
    {"release_threshold", cudaMemPoolAttrReleaseThreshold, 0, 1},
    {"reuse_follow_event_dependencies", cudaMemPoolReuseFollowEventDependencies, 1, 1},
    {"reuse_allow_opportunistic", cudaMemPoolReuseAllowOpportunistic, 1, 1},
    {"reuse_allow_internal_dependencies", cudaMemPoolReuseAllowInternalDependencies, 1, 1},
    {"reserved_mem_current", cudaMemPoolAttrReservedMemCurrent, 0, 0},
    {"reserved_mem_high", cudaMemPoolAttrReservedMemHigh, 0, 2},
    {"used_mem_current", cudaMemPoolAttrUsedMemCurrent, 0, 0},
    {"used_mem_high", cudaMemPoolAttrUsedMemHigh, 0, 2},
};
#define NPOOL (sizeof pool_attrs / sizeof *pool_attrs)

static const struct {
    enum cts_api api;
    const char *variant;
} plain[] = {
    {CTS_API_MEM_GET_INFO, NULL},
    {CTS_API_GET_DEVICE_PROPERTIES, NULL},
    {CTS_API_DEVICE_GET_ATTRIBUTE, NULL},
    {CTS_API_SET_DEVICE, "current"},
    {CTS_API_SET_DEVICE, "other"},
    {CTS_API_STREAM_CREATE_WITH_PRIORITY, NULL},
    {CTS_API_EVENT_CREATE_WITH_FLAGS, INTERPROCESS},
    {CTS_API_EVENT_RECORD, INTERPROCESS},
    {CTS_API_EVENT_DESTROY, INTERPROCESS},
    {CTS_API_IPC_GET_EVENT_HANDLE, NULL},
    {CTS_API_IPC_OPEN_EVENT_HANDLE, NULL},
    {CTS_API_IPC_GET_MEM_HANDLE, NULL},
    {CTS_API_IPC_OPEN_MEM_HANDLE, NULL},
    {CTS_API_IPC_CLOSE_MEM_HANDLE, NULL},
};
#define NPLAIN (sizeof plain / sizeof *plain)

static size_t emit(enum cts_api api, const char *variant, struct cts_case *out, size_t cap, size_t n)
{
    struct cts_case c = {.family = &cts_family_device, .api = api, .variant = variant, .dir = CTS_DIR_NONE,
                         .mem = CTS_MEM_NONE, .size_idx = -1, .kind = CTS_KIND_NONE};
    n = cts_emit(&c, out, cap, n);
    return cts_emit_threads(&c, out, cap, n);
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t k = 0; k < NPLAIN; k++)
        n = emit(plain[k].api, plain[k].variant, out, cap, n);
    for (size_t k = 0; k < NFUNC; k++)
        n = emit(CTS_API_FUNC_SET_ATTRIBUTE, func_attrs[k].variant, out, cap, n);
    for (size_t k = 0; k < NPOOL; k++)
        n = emit(CTS_API_MEMPOOL_GET_ATTRIBUTE, pool_attrs[k].variant, out, cap, n);
    for (size_t k = 0; k < NPOOL; k++)
        if (pool_attrs[k].set)
            n = emit(CTS_API_MEMPOOL_SET_ATTRIBUTE, pool_attrs[k].variant, out, cap, n);
    return out ? (n < cap ? n : cap) : n;
}

static int is(const struct cts_case *c, const char *variant)
{
    return c->variant && !strcmp(c->variant, variant);
}

static size_t func_index(const struct cts_case *c)
{
    for (size_t i = 0; i < NFUNC; i++)
        if (is(c, func_attrs[i].variant))
            return i;
    return 0;
}

static size_t pool_index(const struct cts_case *c)
{
    for (size_t i = 0; i < NPOOL; i++)
        if (is(c, pool_attrs[i].variant))
            return i;
    return 0;
}

/* ---- what the family keeps between calls ------------------------------------ */

static int device = -1, other = -1; /* the engine's device; another one, or -1 */
static int greatest;                /* the greatest stream priority */
static cudaMemPool_t pool;
static struct cudaFuncAttributes found; /* the sleep kernel's attributes at first use */

static int setup(const char **error)
{
    if (device >= 0)
        return 0;
    int count = 0, least = 0, d;
    cudaError_t err = cudaGetDevice(&d);
    if (err == cudaSuccess)
        err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess)
        err = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (err == cudaSuccess)
        err = cudaDeviceGetDefaultMemPool(&pool, d);
    if (err == cudaSuccess)
        err = cudaFuncGetAttributes(&found, cts_sleep_kernel_fn());
    if (err != cudaSuccess)
        return cts_result(err, error);
    other = count > 1 ? (d + 1) % count : -1;
    device = d;
    return 0;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    const char *e = NULL;
    if (setup(&e)) {
        snprintf(why, len, "harness: setting up the device family returned %s", e);
        return -1;
    }
    if (c->api == CTS_API_SET_DEVICE && is(c, "other") && other < 0) {
        snprintf(why, len, "there is one device: no other to make current");
        return -1;
    }
    return 0;
}

/* The value a cudaFuncSetAttribute case sets: another than the one found. */
static int func_value(size_t i)
{
    switch (func_attrs[i].attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        return found.maxDynamicSharedSizeBytes == 1024 ? 2048 : 1024;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        return found.preferredShmemCarveout == 50 ? 25 : 50;
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
        return !found.nonPortableClusterSizeAllowed;
    default: /* the scheduling policy */
        return found.clusterSchedulingPolicyPreference == cudaClusterSchedulingPolicySpread
                   ? cudaClusterSchedulingPolicyDefault
                   : cudaClusterSchedulingPolicySpread;
    }
}

/* ... and the one found, which cleanup() sets back. */
static int func_found(size_t i)
{
    switch (func_attrs[i].attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: return found.maxDynamicSharedSizeBytes;
    case cudaFuncAttributePreferredSharedMemoryCarveout: return found.preferredShmemCarveout;
    case cudaFuncAttributeNonPortableClusterSizeAllowed: return found.nonPortableClusterSizeAllowed;
    default: return found.clusterSchedulingPolicyPreference;
    }
}

static int prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess;
    if (setup(error))
        return 1;
    switch (c->api) {
    case CTS_API_IPC_OPEN_EVENT_HANDLE: /* the other process's event must be there */
        return cts_peer_event(error) ? 0 : 1;
    case CTS_API_IPC_OPEN_MEM_HANDLE: /* ... and its memory */
        return cts_peer_memory(error) ? 0 : 1;
    case CTS_API_IPC_CLOSE_MEM_HANDLE: { /* its memory, opened */
        const cudaIpcMemHandle_t *h = cts_peer_memory(error);
        if (!h)
            return 1;
        if ((err = cudaIpcOpenMemHandle(&s->ptr, *h, cudaIpcMemLazyEnablePeerAccess)) != cudaSuccess)
            s->ptr = NULL;
        break;
    }
    case CTS_API_IPC_GET_MEM_HANDLE:
        if ((err = cudaMalloc(&s->ptr, 4096)) != cudaSuccess)
            s->ptr = NULL;
        break;
    case CTS_API_EVENT_RECORD: case CTS_API_EVENT_DESTROY: case CTS_API_IPC_GET_EVENT_HANDLE:
        /* an interprocess event, in s->handle */
        if ((err = cudaEventCreateWithFlags((cudaEvent_t *)&s->handle, IPC_FLAGS)) != cudaSuccess)
            s->handle = NULL;
        break;
    default:
        break;
    }
    return cts_result(err, error);
}

/* The interprocess calls: handles of this process's event and memory, and
 * the other process's opened (cases/process.c hands them over). */
static int issue_ipc(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err;
    switch (c->api) {
    case CTS_API_IPC_GET_EVENT_HANDLE: {
        cudaIpcEventHandle_t h;
        return cts_result(cudaIpcGetEventHandle(&h, (cudaEvent_t)s->handle), error);
    }
    case CTS_API_IPC_OPEN_EVENT_HANDLE: {
        const char *why;
        const cudaIpcEventHandle_t *h = cts_peer_event(&why);
        if (!h) {
            *error = why;
            return 1;
        }
        if ((err = cudaIpcOpenEventHandle((cudaEvent_t *)&s->handle, *h)) != cudaSuccess)
            s->handle = NULL;
        return cts_result(err, error);
    }
    case CTS_API_IPC_GET_MEM_HANDLE: {
        cudaIpcMemHandle_t h;
        return cts_result(cudaIpcGetMemHandle(&h, s->ptr), error);
    }
    case CTS_API_IPC_OPEN_MEM_HANDLE: {
        const char *why;
        const cudaIpcMemHandle_t *h = cts_peer_memory(&why);
        if (!h) {
            *error = why;
            return 1;
        }
        if ((err = cudaIpcOpenMemHandle(&s->ptr, *h, cudaIpcMemLazyEnablePeerAccess)) != cudaSuccess)
            s->ptr = NULL;
        return cts_result(err, error);
    }
    default: /* CTS_API_IPC_CLOSE_MEM_HANDLE */
        break;
    }
    if ((err = cudaIpcCloseMemHandle(s->ptr)) == cudaSuccess)
        s->ptr = NULL;
    return cts_result(err, error);
}

/* A memory pool's attribute, got or set (set: to the value got, or the
 * table's). */
static int issue_pool(const struct cts_case *c, const char **error)
{
    cudaError_t err;
    unsigned long long v64 = 0;
    int v = 0;
    size_t i = pool_index(c);
    void *p = pool_attrs[i].is_int ? (void *)&v : &v64;
    if (c->api == CTS_API_MEMPOOL_GET_ATTRIBUTE)
        return cts_result(cudaMemPoolGetAttribute(pool, pool_attrs[i].attr, p), error);
    if (pool_attrs[i].set == 1 && (err = cudaMemPoolGetAttribute(pool, pool_attrs[i].attr, p)) != cudaSuccess)
        return cts_result(err, error);
    return cts_result(cudaMemPoolSetAttribute(pool, pool_attrs[i].attr, p), error);
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    struct cts_scratch *s = call->scratch;
    cudaStream_t st = (cudaStream_t)call->stream;
    cudaError_t err;
    switch (c->api) {
    case CTS_API_MEM_GET_INFO: {
        size_t free_b, total_b;
        return cts_result(cudaMemGetInfo(&free_b, &total_b), error);
    }
    case CTS_API_GET_DEVICE_PROPERTIES: {
        struct cudaDeviceProp p;
        return cts_result(cudaGetDeviceProperties(&p, device), error);
    }
    case CTS_API_DEVICE_GET_ATTRIBUTE: {
        int v;
        return cts_result(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, device), error);
    }
    case CTS_API_SET_DEVICE:
        return cts_result(cudaSetDevice(is(c, "other") ? other : device), error);
    case CTS_API_FUNC_SET_ATTRIBUTE: {
        size_t i = func_index(c);
        err = cudaFuncSetAttribute(cts_sleep_kernel_fn(), func_attrs[i].attr, func_value(i));
        s->value = err == cudaSuccess; /* set: cleanup sets the value found back */
        return cts_result(err, error);
    }
    case CTS_API_STREAM_CREATE_WITH_PRIORITY:
        err = cudaStreamCreateWithPriority((cudaStream_t *)&s->handle, cudaStreamNonBlocking, greatest);
        if (err != cudaSuccess)
            s->handle = NULL;
        return cts_result(err, error);
    case CTS_API_EVENT_CREATE_WITH_FLAGS:
        err = cudaEventCreateWithFlags((cudaEvent_t *)&s->handle, IPC_FLAGS);
        if (err != cudaSuccess)
            s->handle = NULL;
        return cts_result(err, error);
    case CTS_API_EVENT_RECORD: return cts_result(cudaEventRecord((cudaEvent_t)s->handle, st), error);
    case CTS_API_EVENT_DESTROY:
        if ((err = cudaEventDestroy((cudaEvent_t)s->handle)) == cudaSuccess)
            s->handle = NULL;
        return cts_result(err, error);
    case CTS_API_IPC_GET_EVENT_HANDLE: case CTS_API_IPC_OPEN_EVENT_HANDLE: case CTS_API_IPC_GET_MEM_HANDLE:
    case CTS_API_IPC_OPEN_MEM_HANDLE: case CTS_API_IPC_CLOSE_MEM_HANDLE:
        return issue_ipc(c, s, error);
    case CTS_API_MEMPOOL_GET_ATTRIBUTE: case CTS_API_MEMPOOL_SET_ATTRIBUTE:
        return issue_pool(c, error);
    default:
        *error = "(not a device-family API)";
        return 1;
    }
}

/* Right after cudaSetDevice(other): the engine's device current again, before its markers. */
static int after(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error)
{
    (void)s, (void)stream;
    if (c->api != CTS_API_SET_DEVICE || !is(c, "other"))
        return 0;
    return cts_result(cudaSetDevice(device), error);
}

/* With the device idle: what the call made destroyed, what it set set back. */
static int cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess;
    switch (c->api) {
    case CTS_API_FUNC_SET_ATTRIBUTE:
        if (s->value) {
            size_t i = func_index(c);
            err = cudaFuncSetAttribute(cts_sleep_kernel_fn(), func_attrs[i].attr, func_found(i));
        }
        break;
    case CTS_API_STREAM_CREATE_WITH_PRIORITY:
        if (s->handle)
            err = cudaStreamDestroy((cudaStream_t)s->handle);
        break;
    case CTS_API_EVENT_CREATE_WITH_FLAGS: case CTS_API_EVENT_RECORD: case CTS_API_EVENT_DESTROY:
    case CTS_API_IPC_GET_EVENT_HANDLE: case CTS_API_IPC_OPEN_EVENT_HANDLE:
        if (s->handle)
            err = cudaEventDestroy((cudaEvent_t)s->handle);
        break;
    case CTS_API_IPC_OPEN_MEM_HANDLE: case CTS_API_IPC_CLOSE_MEM_HANDLE:
        if (s->ptr)
            err = cudaIpcCloseMemHandle(s->ptr);
        break;
    case CTS_API_IPC_GET_MEM_HANDLE:
        if (s->ptr)
            err = cudaFree(s->ptr);
        break;
    default:
        break;
    }
    s->handle = s->extra = s->ptr = NULL;
    s->value = 0;
    return cts_result(err, error);
}

#define RT_DEVICE "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__DEVICE.html"
static const struct cts_clause clauses[] = {
    {"RT-SET-DEVICE", "Runtime API, Device Management, cudaSetDevice",
     "This call may be made from any host thread, to any device, and at any time. This function will do no "
     "synchronization with the previous or new device, and should be considered a very low overhead call.",
     RT_DEVICE, NULL},
    {NULL},
};

/* cudaSetDevice does no synchronization: it does not wait for held work, and
 * later work in other streams does not wait for it. */
static void judge(struct cts_judge *j)
{
    if (j->c->api != CTS_API_SET_DEVICE)
        return;
    cts_judge_add(j, "RT-SET-DEVICE", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
    cts_judge_add(j, "RT-SET-DEVICE", CTS_ABOUT_THIRD_BLOCKING, CTS_PRED_GUARANTEED_NOT);
    cts_judge_add(j, "RT-SET-DEVICE", CTS_ABOUT_THIRD_NONBLOCKING, CTS_PRED_GUARANTEED_NOT);
}

/* Every call of the family is one whose cost users ask about. */
static int every(const struct cts_case *c)
{
    (void)c;
    return 1;
}

const struct cts_family cts_family_device = {
    .name = "device", .generate = generate, .needs = needs, .issue = issue,
    .prepare = prepare, .after = after, .cleanup = cleanup, .clauses = clauses, .judge = judge,
    .cheap = every,
};
