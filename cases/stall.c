/* The stall family: does a call that waits, or takes long, stall the other
 * threads of the program (issue 20; vllm #37006, sglang #25225, cudf #23074)?
 *
 * A case: thread 1 (this one) makes the call under test while the gate holds
 * work on the GPU (busy_same: the call's own stream; busy_nonblocking:
 * another non-blocking stream), and a second host thread keeps making one
 * cheap command, the case's `with`, on a non-blocking stream of its own, one
 * every PACE_US: with_launch, a launch of the suite's sleep kernel (0 ns);
 * with_memcpy_async, a 4 KiB pinned-to-device cudaMemcpyAsync; with_event_record,
 * cudaEventRecord.  The second thread has made commands for LEAD_US before
 * the call begins, and begins one as the call begins (as soon as its command
 * in flight, if any, returns), so that one begins during any call longer
 * than the hand-over (under a microsecond).  A control window, the same hold and CONTROL_US long with
 * no call, gives the second thread's slowest command (and its median).
 *
 * Verdict `other_thread` (cts_stall_decide, harness/core/classify.c): "stalls", a
 * command that began during the call, early enough to have returned before
 * the call did had it taken no longer than the control's slowest, returned
 * only after the call returned (or was held three quarters of the call's own
 * time) and took more than twice the control's slowest; "unaffected", none
 * did, and at least one began and returned inside a call of 5 us or more;
 * "brief", neither (a call shorter than that, or over before a command could
 * begin and end inside it).  Times are the threads' own (less their run
 * delay), and a window where the second thread waited for a processor longer
 * than its pace at once, or the calling thread of a call that returned on its
 * own more than that in all, proves no "unaffected" or "brief": measured
 * again (KEPT_TRIES).  The second thread sleeps between commands with the
 * shortest slice; the calling thread sleeps outside the call with a long one
 * (cts_thread_slice: what a busy host's scheduler grants without privilege).
 *
 * Proof.  The held work is the gate (harness/families/stallgate.c), opened by its
 * watchdog (which makes no CUDA call) STALL_US after the call began, unless
 * the call returned first.  A call that returned while the flag was closed
 * did not wait for the held work (`host` returns); its window is its own
 * time, and the gate stays closed TAIL_US after it, so that a command of the
 * second thread still inside then waited for something else (the repetition
 * is measured again).  A call that returned only after the flag opened is
 * measured again with a stall time STALL_FACTOR times longer: it waited
 * (`host` waits) when its time grew by at least TRACK_FRACTION of the
 * difference, and a stalled command of the second thread is proven to have
 * waited for the call when its time grew likewise (cts_stall_tracked).  A try
 * that proves nothing is measured again, at most TRIES times, then
 * INCONCLUSIVE with what each try saw; where the call returned after the flag
 * opened but its time did not follow the stall time, it is a call longer than
 * the stall time (cudaMallocHost of 16 MiB took over 10 ms once in a full
 * run, H100, a6e8bff), and the next try's stall time is STALL_FACTOR times
 * longer.
 *
 * The calls (each prepared and cleaned up with the device idle, outside the
 * measured window, and made once at the family's first use): the
 * synchronizing calls (cudaDeviceSynchronize, cudaStreamSynchronize,
 * cudaEventSynchronize of an event recorded behind the held work), 4 KiB
 * copies that wait (cudaMemcpy pageable to device and device to pinned,
 * cudaMemcpyAsync device to pageable), frees (cudaFree, cudaFreeHost of
 * 4 KiB), 16 MiB allocations and registrations (cudaMalloc, cudaMallocHost,
 * cudaMallocManaged, cudaHostRegister, cudaHostUnregister), module loading
 * (cuModuleLoadData of the trigger family's image, unloaded after), a first
 * launch (a kernel of the first_launch family's pool, never launched before:
 * variant other_thread_first), and cudaMemGetInfo and cudaGetDeviceProperties.
 * And lent by their own families, made through those families' hooks (the
 * table `lends`): cuModuleUnload, cudaDeviceSetLimit of the stack size and
 * cudaDeviceSynchronize with a pool holding freed memory under release
 * threshold 0, which wait for the device; cudaFreeArray of 16 MiB;
 * cudaHostAlloc (mapped) of 16 MiB, cudaMemAdvise (accessed-by) and
 * cudaMemPrefetchAsync (to the host) of 16 MiB of managed memory, and a
 * 16 MiB pageable-to-device cudaMemcpy, which take long.
 *
 * The documentation says nothing of other threads beyond RT-SYNC-ANY ("Any
 * CUDA API call may block or synchronize for various reasons such as
 * contention for or unavailability of internal resources"): `other_thread`
 * is RECORDED; the call's own `host` is judged by its own clauses (spec.c). */
#define _GNU_SOURCE
#include "../harness/core/cts.h"
#include "../harness/families/driver.h"
#include "../harness/engine/engine.h" /* TRACK_FRACTION */
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"
#include "../harness/core/latch.h"
#include "../harness/families/stallgate.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SMALL 1 /* size index 1: 4 KiB */
#define LARGE 6 /* size index 6: 16 MiB */
#define STALL_US 10000.0    /* the watchdog opens the gate this long after the call began */
#define STALL_FACTOR 4.0    /* ... and this many times longer, to track a wait */
#define GROW(stall) ((STALL_FACTOR - 1) * (stall)) /* how much longer the tracking try's stall time is */
#define CONTROL_US 10000.0  /* the control window */
#define LEAD_US 500.0       /* the second thread runs this long before the call or the control */
#define TAIL_US 1000.0      /* after a call that returned, the gate stays closed this long */
#define PACE_US 50.0        /* the second thread begins a command this often (at most 800 in 40 ms:
                             * fewer than a stream queues before a launch blocks, 1,021) */
#define EXIT_LIMIT_US 50000.0 /* the second thread leaves its loop within this once told (gate closed);
                               * 5 ms was too short once on a loaded host (H100, b8b2769: the control's
                               * thread not out in time, with no call: BROKEN) */
#define MAX_CMDS 16384
#define MIN_CONTROL 20      /* commands a control window must have timed */
#define TRIES 3
#define SECOND_SLICE_US 100.0  /* the second thread's slice, the shortest (cts_thread_slice) */
#define CALLER_SLICE_US 50000.0 /* the calling thread's, while the family runs: longer than a 16 MiB
                                 * cudaHostAlloc under load (24 ms, H200) */
#define KEPT_TRIES 40       /* a try where the second thread was kept from a processor (a busy host) is
                             * made again, at most this many times a repetition, before it counts */
#define BRIEF_TRIES 10      /* a call that returned with no command of the second thread inside it is
                             * made again, at most this many times a repetition, before it is "brief"
                             * (cudaMemGetInfo, 11-64 us, fits a command of one every PACE_US only
                             * sometimes: H100, f8eae3d) */

/* The second thread's command; peer_*: the same on the other device (its stream and memory
 * there; NOTSUPP with one device): does a call on this device stall a thread working on another? */
static const char *const withs[] = {"launch", "memcpy_async", "event_record", "peer_launch", "peer_memcpy_async"};
enum { WITH_LAUNCH, WITH_MEMCPY, WITH_EVENT, WITH_PEER_LAUNCH, WITH_PEER_MEMCPY, NWITHS };
#define ON_PEER(w) ((w) >= WITH_PEER_LAUNCH)

static const struct call {
    enum cts_api api;
    const char *variant;
    enum cts_dir dir;
    enum cts_mem mem;
    int size_idx;
    enum cts_op op;
    enum cts_busy busy;
    const struct cts_case *lent; /* a lent call (below): its family's own case; NULL here */
} calls[] = {
    {CTS_API_DEVICE_SYNCHRONIZE, NULL, CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_STREAM_SYNCHRONIZE, NULL, CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_OP_NONBLOCKING, CTS_BUSY_SAME},
    {CTS_API_EVENT_SYNCHRONIZE, NULL, CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_MEMCPY, NULL, CTS_DIR_H2D, CTS_MEM_PAGEABLE, SMALL, CTS_OP_IMPLIED, CTS_BUSY_SAME},
    {CTS_API_MEMCPY, NULL, CTS_DIR_D2H, CTS_MEM_PINNED, SMALL, CTS_OP_IMPLIED, CTS_BUSY_SAME},
    {CTS_API_MEMCPY_ASYNC, NULL, CTS_DIR_D2H, CTS_MEM_PAGEABLE, SMALL, CTS_OP_NONBLOCKING, CTS_BUSY_SAME},
    {CTS_API_FREE, NULL, CTS_DIR_NONE, CTS_MEM_DEVICE, SMALL, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_FREE_HOST, NULL, CTS_DIR_NONE, CTS_MEM_PINNED, SMALL, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_MALLOC, NULL, CTS_DIR_NONE, CTS_MEM_DEVICE, LARGE, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_MALLOC_HOST, NULL, CTS_DIR_NONE, CTS_MEM_PINNED, LARGE, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_MALLOC_MANAGED, NULL, CTS_DIR_NONE, CTS_MEM_MANAGED, LARGE, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_HOST_REGISTER, NULL, CTS_DIR_NONE, CTS_MEM_REGISTERED, LARGE, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_HOST_UNREGISTER, NULL, CTS_DIR_NONE, CTS_MEM_REGISTERED, LARGE, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_CU_MODULE_LOAD_DATA, NULL, CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_LAUNCH, "other_thread_first", CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_OP_NONBLOCKING,
     CTS_BUSY_NONBLOCKING},
    {CTS_API_MEM_GET_INFO, NULL, CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
    {CTS_API_GET_DEVICE_PROPERTIES, NULL, CTS_DIR_NONE, CTS_MEM_NONE, -1, CTS_OP_IMPLIED, CTS_BUSY_NONBLOCKING},
};
#define NCALLS (sizeof calls / sizeof *calls)
#define VARIANT "other_thread"

/* Lent calls: calls other families make that wait for the device or take
 * long, each made through its own family's hooks (prepare, before, issue,
 * after, cleanup: before and after inside the window), as that family's case
 * `id` makes it, on this family's streams and with its own 16 MiB device and
 * pageable buffers where the case names those; the variant `variant`. */
static const struct lend {
    const struct cts_family *family;
    const char *id, *variant;
} lends[] = {
    {&cts_family_trigger, "cu_module_unload.op_implied.busy_nonblocking", VARIANT},
    {&cts_family_trigger, "device_set_limit.stack_size.op_implied.busy_nonblocking", "other_thread_stack_size"},
    {&cts_family_alloc, "device_synchronize.pool_release_0.device.op_implied.busy_nonblocking",
     "other_thread_pool_release_0"},
    {&cts_family_alloc, "free_array.16MiB.op_implied.busy_nonblocking", VARIANT},
    {&cts_family_alloc, "host_alloc.mapped.16MiB.op_implied.busy_nonblocking", VARIANT},
    /* a long copy (milliseconds), that does not wait: a CTest group of its own beside the 4 KiB ones */
    {&cts_family_memcpy, "memcpy.h2d.pageable.16MiB.explicit.op_implied.busy_nonblocking", "other_thread_long"},
    {&cts_family_managed, "mem_advise_accessed_by.managed.16MiB.op_implied.busy_nonblocking", VARIANT},
    {&cts_family_managed, "mem_prefetch_to_host_async.managed.16MiB.op_nonblocking.busy_nonblocking", VARIANT},
};
#define NLENDS (sizeof lends / sizeof *lends)

static struct {
    int made;
    struct cts_case of[NLENDS]; /* each lent case as its family makes it (api 0 and no id: not found) */
    struct call call[NLENDS];
} lent;

/* Finds each lent case in its family's table, once. */
static void lend(void)
{
    if (lent.made)
        return;
    lent.made = 1;
    for (size_t k = 0; k < NLENDS; k++) {
        const struct cts_family *f = lends[k].family;
        size_t n = f->generate(NULL, 0);
        struct cts_case *all = calloc(n ? n : 1, sizeof *all);
        if (!all)
            continue; /* the table is then short; `list` shows it */
        n = f->generate(all, n);
        for (size_t i = 0; i < n; i++)
            if (!strcmp(all[i].id, lends[k].id)) {
                const struct cts_case *x = &lent.of[k];
                lent.of[k] = all[i];
                lent.call[k] = (struct call){x->api, lends[k].variant, x->dir, x->mem, x->size_idx, x->op, x->busy, x};
            }
        free(all);
    }
}

/* The k-th call, own then lent (NULL: a lent one not found). */
static const struct call *call_at(size_t k)
{
    if (k < NCALLS)
        return &calls[k];
    lend();
    return lent.call[k - NCALLS].lent ? &lent.call[k - NCALLS] : NULL;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t k = 0; k < NCALLS + NLENDS; k++) {
        const struct call *x = call_at(k);
        for (int w = 0; x && w < NWITHS; w++, n++) {
            if (!out || n >= cap)
                continue;
            struct cts_case c = {.family = &cts_family_stall, .api = x->api,
                                 .variant = x->variant ? x->variant : VARIANT, .with = withs[w], .dir = x->dir,
                                 .mem = x->mem, .size_idx = x->size_idx, .kind = CTS_KIND_NONE, .op = x->op,
                                 .busy = x->busy};
            if (x->lent) {
                c.kind = x->lent->kind;
                c.width = x->lent->width, c.height = x->lent->height, c.depth = x->lent->depth;
            }
            if (c.size_idx >= 0)
                c.size = cts_size_bytes(c.size_idx);
            if (!x->lent && (c.api == CTS_API_MEMCPY || c.api == CTS_API_MEMCPY_ASYNC))
                c.kind = CTS_KIND_EXPLICIT;
            cts_case_make_id(&c);
            out[n] = c;
        }
    }
    return out ? (n < cap ? n : cap) : n;
}

static const struct call *call_of(const struct cts_case *c)
{
    for (size_t k = 0; k < NCALLS + NLENDS; k++) {
        const struct call *x = call_at(k);
        if (x && x->api == c->api && x->dir == c->dir && x->mem == c->mem && x->size_idx == c->size_idx &&
            (!x->lent || !strcmp(x->variant, c->variant)))
            return x;
    }
    return NULL;
}

static int with_index(const struct cts_case *c)
{
    for (int w = 0; w < NWITHS; w++)
        if (c->with && !strcmp(c->with, withs[w]))
            return w;
    return -1;
}

extern const unsigned char cts_module_image[];
extern const size_t cts_module_image_size;
int cts_fresh_take(void);
int cts_fresh_left(void);
cudaError_t cts_launch_fresh(int i, cudaStream_t s, unsigned int *where, unsigned int value);

static int lent_needs(const struct cts_case *x, char *why, size_t len);

static int needs(const struct cts_case *c, char *why, size_t len)
{
    int w = with_index(c), count = 0;
    if (w >= 0 && ON_PEER(w) && (cudaGetDeviceCount(&count) != cudaSuccess || count < 2)) {
        (void)cudaGetLastError();
        snprintf(why, len, "one device: no other for the second thread's %s", withs[w]);
        return -1;
    }
    const struct call *x = call_of(c);
    if (x && x->lent)
        return lent_needs(x->lent, why, len);
    switch (c->api) {
    case CTS_API_CU_MODULE_LOAD_DATA:
        return cts_need_driver("cuModuleLoadData", why, len) ? -1 : cts_need_driver("cuModuleUnload", why, len);
    case CTS_API_MALLOC_MANAGED: return cts_need_attribute(cudaDevAttrManagedMemory, "cudaDevAttrManagedMemory", why, len);
    case CTS_API_LAUNCH:
        if (cts_fresh_left() >= 2 * (BRIEF_TRIES + KEPT_TRIES + 2 * TRIES))
            return 0;
        snprintf(why, len, "only %d never-launched kernels are left", cts_fresh_left());
        return -1;
    default: return 0;
    }
}

/* ---- what the family keeps ----------------------------------------------------- */

static struct {
    int ready, device;
    char why[CTS_REASON_MAX];
    struct cts_stallgate g;
    cudaStream_t own, held, second; /* the call's non-blocking stream, another held one, the second thread's */
    int peer;                      /* the other device (-1: none), and the second thread's stream and memory there */
    cudaStream_t second_peer;
    void *peer_dev;
    void *dev[2], *pinned[2], *pageable;
    cudaEvent_t behind, second_event; /* recorded behind the held work; the second thread's */
    unsigned int *word; /* where a first launch stores */
    unsigned int stores;
    void *image; /* the trigger family's module image, copied (cases/trigger.c does so too) */
    void *big_dev[2], *big_pageable; /* the lent calls' memory, LARGE bytes each */
} d;

static const char *failed_at = "";
#define TRY(call) CTS_TRY_AT(failed_at, call)

static cudaStream_t implied(void) { return cts_build_per_thread() ? cudaStreamPerThread : cudaStreamLegacy; }

/* The stream the case's held work is on. */
static cudaStream_t held_stream(const struct call *x)
{
    if (x->busy != CTS_BUSY_SAME)
        return d.held;
    return x->op == CTS_OP_IMPLIED ? implied() : d.own;
}

/* The stream a lent call is given: the handle 0 where it takes none, else its own non-blocking one. */
static cudaStream_t op_stream(const struct call *x)
{
    return x->op == CTS_OP_IMPLIED ? (cudaStream_t)0 : d.own;
}

/* ---- lent calls ---------------------------------------------------------------- */

static char lent_at[CTS_REASON_MAX]; /* what failed, for failed_at */

/* The memory a lent call is given for a kind (NULL: its family's own, or none). */
static void *lent_memory(enum cts_mem m, int side)
{
    return m == CTS_MEM_DEVICE ? d.big_dev[side] : m == CTS_MEM_PAGEABLE ? d.big_pageable : NULL;
}

static int lent_needs(const struct cts_case *x, char *why, size_t len)
{
    enum cts_mem src, dst;
    cts_case_buffers(x, &src, &dst);
    if (x->size_idx >= 0 && x->size > cts_size_bytes(LARGE)) {
        snprintf(why, len, "harness: a lent call of more than %zu bytes", cts_size_bytes(LARGE));
        return -1;
    }
    for (int side = 0; side < 2; side++) {
        enum cts_mem m = side ? dst : src;
        if (m != CTS_MEM_NONE && m != CTS_MEM_OWN && m != CTS_MEM_DEVICE && m != CTS_MEM_PAGEABLE) {
            snprintf(why, len, "harness: the stall family has no %s memory to lend", cts_mem_token(m));
            return -1;
        }
    }
    if (cts_need_runtime(x, why, len))
        return -1;
    return x->family->needs ? x->family->needs(x, why, len) : 0;
}

/* A lent family's hook failed: its error as failed_at, and a placeholder error. */
static cudaError_t lent_failed(const struct cts_case *x, const char *hook, const char *error)
{
    snprintf(lent_at, sizeof lent_at, "the %s family's %s of %s (%s)", x->family->name, hook,
             cts_api_function(x->api), error ? error : "?");
    failed_at = lent_at;
    return cudaErrorUnknown;
}

/* What the call needs, made with the device idle (s: what cleanup undoes). */
static cudaError_t prepare(const struct call *x, struct cts_scratch *s)
{
    memset(s, 0, sizeof *s);
    if (x->lent) {
        const char *e = NULL;
        if (x->lent->family->prepare && x->lent->family->prepare(x->lent, s, &e))
            return lent_failed(x->lent, "set-up", e);
        return cudaSuccess;
    }
    size_t n = x->size_idx >= 0 ? cts_size_bytes(x->size_idx) : 0;
    switch (x->api) {
    case CTS_API_FREE: TRY(cudaMalloc(&s->ptr, n)); break;
    case CTS_API_FREE_HOST: TRY(cudaMallocHost(&s->ptr, n)); break;
    case CTS_API_HOST_REGISTER:
    case CTS_API_HOST_UNREGISTER:
        if (!(s->extra = aligned_alloc(4096, n))) {
            failed_at = "aligned_alloc";
            return cudaErrorMemoryAllocation;
        }
        memset(s->extra, 1, n); /* its pages present */
        if (x->api == CTS_API_HOST_UNREGISTER) {
            TRY(cudaHostRegister(s->extra, n, cudaHostRegisterDefault));
            s->ptr = s->extra;
        }
        break;
    case CTS_API_LAUNCH:
        s->value = (unsigned long long)cts_fresh_take();
        if ((int)s->value < 0) {
            failed_at = "cts_fresh_take (no never-launched kernel left)";
            return cudaErrorLaunchFailure;
        }
        break;
    default: break;
    }
    return cudaSuccess;
}

/* The call under test (an error that is not a cudaError_t, a driver API
 * call's or a lent family's: in call_error). */
static const char *call_error;
static cudaStream_t op_stream(const struct call *x);

/* A lent call: between its family's before and after hooks. */
static cudaError_t lent_call(const struct call *x, struct cts_scratch *s)
{
    const struct cts_case *c = x->lent;
    enum cts_mem src, dst;
    cts_case_buffers(c, &src, &dst);
    cudaStream_t st = op_stream(x);
    struct cts_call args = {lent_memory(dst, 1), lent_memory(src, 0), 0x11, st, s};
    const char *e = "?";
    if (c->family->before && c->family->before(c, s, st, &e))
        return lent_failed(c, "before-hook", e);
    if (c->family->issue(c, &args, &e)) {
        call_error = e;
        return cudaErrorUnknown;
    }
    if (c->family->after && c->family->after(c, s, st, &e))
        return lent_failed(c, "after-hook", e);
    return cudaSuccess;
}

static cudaError_t call(const struct call *x, struct cts_scratch *s)
{
    size_t n = x->size_idx >= 0 ? cts_size_bytes(x->size_idx) : 0;
    call_error = NULL;
    if (x->lent)
        return lent_call(x, s);
    switch (x->api) {
    case CTS_API_DEVICE_SYNCHRONIZE: return cudaDeviceSynchronize();
    case CTS_API_STREAM_SYNCHRONIZE: return cudaStreamSynchronize(d.own);
    case CTS_API_EVENT_SYNCHRONIZE: return cudaEventSynchronize(d.behind);
    case CTS_API_MEMCPY:
        return x->dir == CTS_DIR_H2D ? cudaMemcpy(d.dev[0], d.pageable, n, cudaMemcpyHostToDevice)
                                     : cudaMemcpy(d.pinned[0], d.dev[1], n, cudaMemcpyDeviceToHost);
    case CTS_API_MEMCPY_ASYNC: return cudaMemcpyAsync(d.pageable, d.dev[1], n, cudaMemcpyDeviceToHost, d.own);
    case CTS_API_FREE: {
        cudaError_t err = cudaFree(s->ptr);
        if (err == cudaSuccess)
            s->ptr = NULL;
        return err;
    }
    case CTS_API_FREE_HOST: {
        cudaError_t err = cudaFreeHost(s->ptr);
        if (err == cudaSuccess)
            s->ptr = NULL;
        return err;
    }
    case CTS_API_MALLOC: return cudaMalloc(&s->ptr, n);
    case CTS_API_MALLOC_HOST: return cudaMallocHost(&s->ptr, n);
    case CTS_API_MALLOC_MANAGED: return cudaMallocManaged(&s->ptr, n, cudaMemAttachGlobal);
    case CTS_API_HOST_REGISTER: {
        cudaError_t err = cudaHostRegister(s->extra, n, cudaHostRegisterDefault);
        if (err == cudaSuccess)
            s->ptr = s->extra;
        return err;
    }
    case CTS_API_HOST_UNREGISTER: {
        cudaError_t err = cudaHostUnregister(s->ptr);
        if (err == cudaSuccess)
            s->ptr = NULL;
        return err;
    }
    case CTS_API_CU_MODULE_LOAD_DATA: {
        CUmodule m = NULL;
        CUresult r = cts_drv.cuModuleLoadData(&m, d.image);
        s->handle = m;
        if (r != CUDA_SUCCESS && cts_drv.cuGetErrorName(r, &call_error) != CUDA_SUCCESS)
            call_error = "an unknown CUresult";
        return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorUnknown;
    }
    case CTS_API_LAUNCH:
        if (++d.stores == 0)
            d.stores = 1;
        return cts_launch_fresh((int)s->value, d.own, d.word, d.stores);
    case CTS_API_MEM_GET_INFO: {
        size_t free_b, total;
        return cudaMemGetInfo(&free_b, &total);
    }
    default: {
        struct cudaDeviceProp p;
        return cudaGetDeviceProperties(&p, d.device);
    }
    }
}

/* Undoes prepare() and the call, with the device idle. */
static cudaError_t cleanup(const struct call *x, struct cts_scratch *s)
{
    if (x->lent) {
        const char *e = NULL;
        cudaError_t err = cudaDeviceSynchronize();
        if (err != cudaSuccess) {
            failed_at = "cudaDeviceSynchronize";
            return err;
        }
        if (x->lent->family->cleanup && x->lent->family->cleanup(x->lent, s, &e))
            return lent_failed(x->lent, "clean-up", e);
        memset(s, 0, sizeof *s);
        return cudaSuccess;
    }
    switch (x->api) {
    case CTS_API_FREE:
    case CTS_API_MALLOC:
    case CTS_API_MALLOC_MANAGED:
        if (s->ptr)
            TRY(cudaFree(s->ptr));
        break;
    case CTS_API_FREE_HOST:
    case CTS_API_MALLOC_HOST:
        if (s->ptr)
            TRY(cudaFreeHost(s->ptr));
        break;
    case CTS_API_HOST_REGISTER:
    case CTS_API_HOST_UNREGISTER:
        if (s->ptr)
            TRY(cudaHostUnregister(s->ptr));
        free(s->extra);
        break;
    case CTS_API_CU_MODULE_LOAD_DATA:
        if (s->handle && cts_drv.cuModuleUnload((CUmodule)s->handle) != CUDA_SUCCESS) {
            failed_at = "cuModuleUnload";
            return cudaErrorUnknown;
        }
        break;
    default: break;
    }
    memset(s, 0, sizeof *s);
    return cudaSuccess;
}

/* The second thread's command (made with its device current: the peer's for ON_PEER). */
static cudaError_t command(int w)
{
    switch (w) {
    case WITH_LAUNCH: return cts_launch_sleep(d.second, 0);
    case WITH_MEMCPY:
        return cudaMemcpyAsync(d.dev[1], d.pinned[1], cts_size_bytes(SMALL), cudaMemcpyHostToDevice, d.second);
    case WITH_PEER_LAUNCH: return cts_launch_sleep(d.second_peer, 0);
    case WITH_PEER_MEMCPY:
        return cudaMemcpyAsync(d.peer_dev, d.pinned[1], cts_size_bytes(SMALL), cudaMemcpyHostToDevice, d.second_peer);
    default: return cudaEventRecord(d.second_event, d.second);
    }
}

static cudaStream_t second_stream(int w) { return ON_PEER(w) ? d.second_peer : d.second; }

/* The other device's stream and memory for the second thread, and its commands' first use there. */
static cudaError_t setup_peer(void)
{
    int count = 0;
    TRY(cudaGetDeviceCount(&count));
    d.peer = count > 1 ? (d.device + 1) % count : -1;
    if (d.peer < 0)
        return cudaSuccess;
    TRY(cudaSetDevice(d.peer));
    TRY(cudaStreamCreateWithFlags(&d.second_peer, cudaStreamNonBlocking));
    TRY(cudaMalloc(&d.peer_dev, cts_size_bytes(SMALL)));
    TRY(command(WITH_PEER_LAUNCH));
    TRY(command(WITH_PEER_MEMCPY));
    TRY(cudaStreamSynchronize(d.second_peer));
    return cudaSetDevice(d.device);
}

static cudaError_t setup_resources(void)
{
    TRY(cudaGetDevice(&d.device));
    TRY(cudaStreamCreateWithFlags(&d.own, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&d.held, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&d.second, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++) {
        TRY(cudaMalloc(&d.dev[i], cts_size_bytes(SMALL)));
        TRY(cudaMallocHost(&d.pinned[i], cts_size_bytes(SMALL)));
        TRY(cudaMemset(d.dev[i], 0, cts_size_bytes(SMALL)));
        memset(d.pinned[i], 0, cts_size_bytes(SMALL));
    }
    if (!(d.pageable = calloc(1, cts_size_bytes(SMALL)))) {
        failed_at = "calloc";
        return cudaErrorMemoryAllocation;
    }
    TRY(cudaMalloc((void **)&d.word, sizeof *d.word));
    for (int i = 0; i < 2; i++) {
        TRY(cudaMalloc(&d.big_dev[i], cts_size_bytes(LARGE)));
        TRY(cudaMemset(d.big_dev[i], 0, cts_size_bytes(LARGE)));
    }
    if (!(d.big_pageable = calloc(1, cts_size_bytes(LARGE)))) {
        failed_at = "calloc";
        return cudaErrorMemoryAllocation;
    }
    if (!(d.image = malloc(cts_module_image_size))) {
        failed_at = "malloc";
        return cudaErrorMemoryAllocation;
    }
    memcpy(d.image, cts_module_image, cts_module_image_size);
    TRY(cudaEventCreateWithFlags(&d.behind, cudaEventDisableTiming));
    TRY(cudaEventCreateWithFlags(&d.second_event, cudaEventDisableTiming));
    TRY(cudaEventRecord(d.behind, d.held));
    for (int w = 0; w < NWITHS; w++)
        if (!ON_PEER(w))
            TRY(command(w));
    cudaError_t perr = setup_peer();
    if (perr != cudaSuccess)
        return perr;
    TRY(cts_launch_sleep(d.own, 0));
    return cudaDeviceSynchronize();
}

/* Once: the resources, the gate, and every call made with the device idle
 * (not the first launch: each takes a kernel of its own, and launching is
 * warm already). */
static int setup(void)
{
    if (d.ready)
        return d.why[0] ? -1 : 0;
    d.ready = 1;
    cudaError_t err = setup_resources();
    for (size_t k = 0; err == cudaSuccess && k < NCALLS + NLENDS; k++) {
        const struct call *x = call_at(k);
        struct cts_scratch s;
        char why[CTS_REASON_MAX];
        struct cts_case probe = {.api = x ? x->api : CTS_API_FAULT, .with = withs[0]};
        if (!x || x->api == CTS_API_LAUNCH || (x->lent ? lent_needs(x->lent, why, sizeof why) : needs(&probe, why, sizeof why)))
            continue;
        if ((err = prepare(x, &s)) == cudaSuccess && (err = call(x, &s)) != cudaSuccess)
            failed_at = cts_api_function(x->api);
        if (err == cudaSuccess)
            err = cudaDeviceSynchronize();
        if (err == cudaSuccess)
            err = cleanup(x, &s);
    }
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(d.why, sizeof d.why, "harness: the stall family's set-up: %s returned %s", failed_at,
                 cudaGetErrorName(err));
        return -1;
    }
    return cts_sg_init(&d.g, d.why, sizeof d.why);
}

/* ---- the second thread ----------------------------------------------------------- */

struct window {
    int with;
    pthread_t thread;
    atomic_int stop, left, kick; /* kick: begin a command now (the call is beginning); a futex word */
    atomic_long made;
    cudaError_t err;
    struct cts_stall_cmd cmd[MAX_CMDS];
};

/* This (the calling) thread's waits outside the call: asleep, 50 us at a time
 * (the scheduler keeps a thread that slept more of a turn than one that spun). */
static void nap(void)
{
    struct timespec t = {0, 50000};
    nanosleep(&t, NULL);
}

static void wake(atomic_int *word) { (void)syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }

/* Sleeps until `until` (monotonic us) or a kick, whichever comes first. */
static void pause_until(struct window *w, double until)
{
    struct timespec at = {(time_t)(until / 1e6), (long)(fmod(until, 1e6) * 1e3)};
    while (!atomic_load(&w->stop) && !atomic_load(&w->kick) && cts_now_us() < until)
        (void)syscall(SYS_futex, &w->kick, FUTEX_WAIT_BITSET_PRIVATE, 0, &at, NULL, FUTEX_BITSET_MATCH_ANY);
    atomic_store(&w->kick, 0);
}

/* What the second thread may ask of the scheduler without privilege: its
 * timers to the nanosecond (a pace of 50 us, not the default 50 us slack
 * late), and the shortest slice (cts_thread_slice: it wakes before busy
 * threads end theirs). */
static void ask_scheduler(void)
{
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    (void)cts_thread_slice(SECOND_SLICE_US);
}

/* The second thread: a command every PACE_US (or at once when kicked),
 * sleeping between them, each timed with its run delay. */
static void *second_thread(void *arg)
{
    struct window *w = arg;
    ask_scheduler();
    int fd = cts_schedstat_open();
    double last = cts_schedstat_delay_us(fd);
    w->err = cudaSetDevice(ON_PEER(w->with) ? d.peer : d.device);
    while (w->err == cudaSuccess && !atomic_load(&w->stop)) {
        long i = atomic_load(&w->made);
        double rb = cts_schedstat_delay_us(fd);
        double b = cts_now_us();
        cudaError_t err = command(w->with);
        double e = cts_now_us();
        double re = cts_schedstat_delay_us(fd);
        if (err != cudaSuccess) {
            w->err = err;
            break;
        }
        if (i < MAX_CMDS) {
            w->cmd[i] = (struct cts_stall_cmd){b, e, re - rb, rb - last};
            atomic_store(&w->made, i + 1);
        }
        last = re;
        pause_until(w, b + PACE_US);
    }
    if (fd >= 0)
        close(fd);
    atomic_store(&w->left, 1);
    return NULL;
}

/* Starts the second thread and waits until it has run LEAD_US: 0, or -1 with why. */
static int start_second(struct window *w, int with, char *why, size_t len)
{
    w->with = with;
    atomic_store(&w->stop, 0);
    atomic_store(&w->left, 0);
    atomic_store(&w->kick, 0);
    atomic_store(&w->made, 0);
    w->err = cudaSuccess;
    if (pthread_create(&w->thread, NULL, second_thread, w)) {
        snprintf(why, len, "harness: the second thread could not start");
        return -1;
    }
    /* Asleep meanwhile: a thread that wakes is given a fresh slice, and the
     * call comes right after (cts_thread_slice). */
    double t0 = cts_now_us();
    while (!atomic_load(&w->left) && (atomic_load(&w->made) < 2 || cts_now_us() - t0 < LEAD_US))
        nap();
    return 0;
}

/* Begins a command of the second thread now (it is asleep, or in one: then as that returns). */
static void kick_second(struct window *w)
{
    atomic_store(&w->kick, 1);
    wake(&w->kick);
}

/* Tells it to stop and waits EXIT_LIMIT_US for it to leave its loop (the gate
 * still as it is): 1 if it left, 0 if a command of its was still inside. */
static int stop_second(struct window *w)
{
    atomic_store(&w->stop, 1);
    wake(&w->kick);
    for (double t0 = cts_now_us(); !atomic_load(&w->left);)
        if (cts_now_us() - t0 > EXIT_LIMIT_US)
            return 0;
    return 1;
}

/* Drains, then joins the second thread; 0, or -1/-2 with why (cts_sg_drain), or
 * -1 where the second thread's command failed. */
static int finish(struct window *w, cudaStream_t held, char *why, size_t len)
{
    int bad = cts_sg_drain(&d.g, held, d.own, why, len);
    atomic_store(&w->stop, 1);
    wake(&w->kick);
    pthread_join(w->thread, NULL);
    cudaError_t err = cudaStreamSynchronize(second_stream(w->with));
    if (!bad && (w->err != cudaSuccess || err != cudaSuccess)) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: the second thread's %s returned %s", withs[w->with],
                 cudaGetErrorName(w->err != cudaSuccess ? w->err : err));
        return -1;
    }
    return bad;
}

/* The control: the same hold, the second thread CONTROL_US long, no call.
 * Its slowest and median command (their own times) into *slowest, *median:
 * 0; -1 with why (the harness failed); 1 with why (it proves nothing: the
 * second thread was not out of a command in time, or timed too few: a loaded
 * host; measured again); 2 with why (likewise: it was kept from a processor). */
static struct window win; /* one window at a time (big: in static storage) */
static int control(const struct call *x, int with, double *slowest, double *median, char *why, size_t len)
{
    cudaStream_t held = held_stream(x);
    if (cts_sg_hold(&d.g, held, why, len))
        return -1;
    if (start_second(&win, with, why, len)) {
        (void)cts_sg_drain(&d.g, held, NULL, why, len);
        return -1;
    }
    double t0 = cts_now_us(), t1;
    while ((t1 = cts_now_us()) - t0 < CONTROL_US && !atomic_load(&win.left))
        nap(); /* this thread asleep, as it is not in a call: it keeps its turn for the call */
    int left = stop_second(&win);
    int bad = finish(&win, held, why, len);
    if (bad)
        return -1;
    if (!left) {
        snprintf(why, len, "the control's command still inside %.0f ms after it was over", EXIT_LIMIT_US / 1e3);
        return 1;
    }
    static double t[MAX_CMDS];
    double kept;
    size_t n = cts_stall_control(win.cmd, (size_t)atomic_load(&win.made), t0, t1, t, slowest, median, &kept);
    if (n < MIN_CONTROL) {
        snprintf(why, len, "the control timed only %zu commands in %.0f ms", n, CONTROL_US / 1e3);
        return 1;
    }
    if (kept > CTS_STALL_KEPT_US) {
        snprintf(why, len, "the control's second thread waited %.0f us at once for a processor", kept);
        return 2;
    }
    return 0;
}

/* One try of the call with the second thread beside it. */
struct stall_try {
    struct cts_beside_try t;   /* returned, early, call_us (cts_beside_decide) */
    struct cts_stall_obs obs;  /* cts_stall_decide's */
    int stuck;                 /* a command of the second thread was still inside TAIL_US after a call that
                                * returned, the gate closed */
    double after_us;           /* where the call waited: from the opening to its return */
};

/* 0; -1 with why (the harness); -2 (TIMEOUT); 1 with why (the call failed: FAIL). */
static int try_call(const struct call *x, int with, double stall_us, double control_us, struct stall_try *f,
                    char *why, size_t len)
{
    memset(f, 0, sizeof *f);
    struct cts_scratch s;
    cudaStream_t held = held_stream(x);
    cudaError_t err = prepare(x, &s);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: preparing the call: %s returned %s", failed_at, cudaGetErrorName(err));
        return -1;
    }
    if (cts_sg_hold(&d.g, held, why, len)) {
        (void)cleanup(x, &s);
        return -1;
    }
    if ((x->api == CTS_API_EVENT_SYNCHRONIZE && (err = cudaEventRecord(d.behind, held)) != cudaSuccess) ||
        start_second(&win, with, why, len)) {
        if (err != cudaSuccess)
            snprintf(why, len, "harness: recording the event behind the held work returned %s",
                     cudaGetErrorName(err));
        (void)cts_sg_drain(&d.g, held, NULL, why, len);
        (void)cleanup(x, &s);
        return -1;
    }
    cts_sg_arm(&d.g, stall_us);
    double rd0 = cts_run_delay_us();
    kick_second(&win); /* its command begins as the call does (a wake-up takes microseconds) */
    double t0 = cts_now_us();
    cudaError_t cerr = call(x, &s);
    double t1 = cts_now_us();
    double caller_delay = cts_run_delay_us() - rd0;
    f->t.returned = cerr == cudaSuccess && cts_sg_returned_closed(&d.g);
    double rel = cts_sg_released_us(&d.g);
    f->t.early = !f->t.returned && (isnan(rel) || t1 < rel);
    f->t.filled = f->t.full = 1; /* nothing to fill here: cts_beside_decide reads returned and the times */
    f->t.call_us = t1 - t0;
    f->after_us = f->t.returned ? NAN : t1 - rel;
    if (f->t.returned)
        while (cts_now_us() - t1 < TAIL_US)
            nap();
    f->stuck = !stop_second(&win) && f->t.returned && cts_sg_closed(&d.g);
    int bad = finish(&win, held, why, len);
    cudaError_t cl = cleanup(x, &s);
    if (bad)
        return bad;
    if (cerr != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "%s returned %s", cts_api_function(x->api), call_error ? call_error : cudaGetErrorName(cerr));
        return 1;
    }
    if (cl != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: cleaning up after the call: %s returned %s", failed_at, cudaGetErrorName(cl));
        return -1;
    }
    /* A call that waited is judged while it waited, up to the release: a command
     * begun after the release met the call waking up, not waiting (the H100 at
     * 37a734b: an event record begun as cudaDeviceSynchronize woke took tens of us
     * in every try, at either hold, and the case was INCONCLUSIVE). */
    double end = !f->t.returned && !f->t.early && !isnan(rel) ? rel : t1;
    cts_stall_decide(win.cmd, (size_t)atomic_load(&win.made), t0, end, control_us, end == t1 ? caller_delay : 0,
                     &f->obs);
    f->obs.control_us = control_us;
    f->obs.tracked_us = f->obs.stall_us = f->obs.tracked_stall_us = NAN; /* a wait's, where tracked */
    return 0;
}

/* ---- one repetition ------------------------------------------------------------- */

/* A note of a try that proved nothing, for the reason of an INCONCLUSIVE. */
static void note(char *seen, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(char *seen, size_t len, const char *fmt, ...)
{
    size_t n = strlen(seen);
    if (n + 2 >= len)
        return;
    if (n)
        n += (size_t)snprintf(seen + n, len - n, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(seen + n, len - n, fmt, ap);
    va_end(ap);
}

static void rep_stall(const struct call *x, int with, struct cts_rep *r, struct cts_result *res)
{
    char seen[240] = "";
    double stall = STALL_US; /* made longer after a wait that did not follow it (a long call) */
    for (int t = 0, brief = 0, kept = 0; t < TRIES; t++) {
        double slowest, median;
        struct stall_try a, b = {0};
        int ctl = control(x, with, &slowest, &median, r->reason, sizeof r->reason);
        if (ctl < 0) {
            r->status = CTS_BROKEN;
            return;
        }
        if (ctl > 0) { /* proves nothing: another try (one that does not count, if the host was busy) */
            if (ctl == 2 && ++kept < KEPT_TRIES)
                t--;
            else
                note(seen, sizeof seen, "%.80s", r->reason);
            r->reason[0] = '\0';
            res->window_retries++;
            continue;
        }
        int bad = try_call(x, with, stall, slowest, &a, r->reason, sizeof r->reason);
        if (bad) {
            r->status = bad > 0 ? CTS_FAIL : bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
            return;
        }
        r->timeout_us = stall;
        int again;
        enum cts_host h = a.stuck ? CTS_HOST_NA : cts_beside_decide(&a.t, NULL, GROW(stall), TRACK_FRACTION, &again);
        enum cts_stall v = CTS_STALL_NA;
        if (h == CTS_HOST_RETURNS && ((a.obs.verdict == CTS_STALL_BRIEF && ++brief < BRIEF_TRIES) ||
                                      (a.obs.verdict == CTS_STALL_NA && ++kept < KEPT_TRIES))) {
            t--; /* nothing fitted inside the call, or the second thread was kept from a processor: again
                  * (not a failed try) */
            res->window_retries++;
            continue;
        }
        if (h == CTS_HOST_RETURNS) {
            v = a.obs.verdict;
            r->call_us = a.t.call_us;
            r->stall = a.obs;
        } else if (!a.stuck && again) { /* waited: tracked with a longer stall */
            bad = try_call(x, with, stall * STALL_FACTOR, slowest, &b, r->reason, sizeof r->reason);
            if (bad) {
                r->status = bad > 0 ? CTS_FAIL : bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
                return;
            }
            h = cts_beside_decide(&a.t, &b.t, GROW(stall), TRACK_FRACTION, &again);
            v = h == CTS_HOST_WAITS ? cts_stall_tracked(&a.obs, &b.obs, GROW(stall), TRACK_FRACTION) : CTS_STALL_NA;
            if (v != CTS_STALL_NA) {
                r->call_us = b.t.call_us;
                r->timeout_us = stall * STALL_FACTOR;
                r->release_to_return_us = b.after_us;
                r->tracked_from_timeout_us = stall;
                r->tracked_from_call_us = a.t.call_us;
                r->stall = a.obs;
                r->stall.tracked_us = b.obs.stalled_us;
                r->stall.stall_us = stall;
                r->stall.tracked_stall_us = stall * STALL_FACTOR;
            }
        }
        if (v != CTS_STALL_NA) {
            r->host = h;
            r->stall.verdict = v;
            r->stall.control_median_us = median;
            return;
        }
        res->window_retries++;
        int starved = a.obs.verdict == CTS_STALL_NA || (h == CTS_HOST_WAITS && b.obs.verdict == CTS_STALL_NA);
        if (starved && ++kept < KEPT_TRIES) {
            t--;
            continue;
        }
        note(seen, sizeof seen, "%s at %.0f ms%s", a.stuck        ? "a command still inside after the call"
                                                   : a.t.returned ? "returned"
                                                   : a.t.early    ? "returned before the watchdog opened the gate"
                                                                  : "waited",
             stall / 1e3, h == CTS_HOST_WAITS ? ", the stall not tracked" : "");
        if (starved)
            note(seen, sizeof seen, "a thread waited %.0f us for a processor (kept_us)",
                 fmax(a.obs.kept_us, h == CTS_HOST_WAITS ? b.obs.kept_us : 0));
        else if (h == CTS_HOST_WAITS)
            note(seen, sizeof seen, "stalled %.0f us, then %.0f us", a.obs.stalled_us, b.obs.stalled_us);
        if (!a.stuck && !a.t.returned && !a.t.early && h != CTS_HOST_WAITS)
            stall *= STALL_FACTOR; /* its time did not follow the release: a call longer than the stall time */
    }
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason, "no try proved the call and the second thread, %d tries: %s", TRIES,
             seen);
}

static void measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    int w = with_index(c);
    if (w < 0 || setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", w < 0 ? "harness: not a stall case" : d.why);
        return;
    }
    if (repeat > CTS_MAX_REPEAT)
        repeat = CTS_MAX_REPEAT;
    const struct call *x = call_of(c);
    if (!x) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "harness: no such stall call");
        return;
    }
    double slice = cts_thread_slice_us(); /* the calling thread's, given back after */
    (void)cts_thread_slice(CALLER_SLICE_US);
    for (int i = 0; i < repeat; i++) {
        struct cts_rep *r = &res->reps[i];
        cts_rep_begin(r);
        res->nreps = i + 1;
        rep_stall(x, w, r, res);
        if (r->status != CTS_PASS)
            break;
    }
    if (!isnan(slice))
        (void)cts_thread_slice(slice);
    cts_classify_measured(res, STALL_US); /* the repetitions' median call time stands in for an idle one */
}

const struct cts_family cts_family_stall = {
    .name = "stall", .generate = generate, .needs = needs, .measure = measure,
};
