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
 * again (KEPT_TRIES; KEPT_TRIES_FIRST for a first launch).  The second
 * thread sleeps between commands with the shortest slice; the calling thread
 * sleeps outside the call with a long one (cts_thread_slice: what a busy
 * host's scheduler grants without privilege).
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
 * is RECORDED; the call's own `host` is judged by its own clauses (spec.c).
 *
 * This file: the calls, how each is prepared, made and undone, and the cases;
 * cases/stall_window.c: the resources, the window and a repetition. */
#include "stall.h"
#include "../harness/families/driver.h"
#include "../harness/families/family.h"

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const stall_withs[] = {"launch", "memcpy_async", "event_record", "peer_launch", "peer_memcpy_async"};

static const struct stall_call calls[] = {
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
    /* a file-backed range pinned (issue 41 item 5: users see it take hundreds of ms and stall threads),
     * writable (refused by some kernels: NOTSUPP) and read-only */
    {&cts_family_alloc, "host_register.file_backed.registered.16MiB.op_implied.busy_nonblocking",
     "other_thread_file_backed"},
    {&cts_family_alloc, "host_register.file_backed_read_only.registered.16MiB.op_implied.busy_nonblocking",
     "other_thread_file_backed_read_only"},
    /* a long copy (milliseconds), that does not wait: a CTest group of its own beside the 4 KiB ones */
    {&cts_family_memcpy, "memcpy.h2d.pageable.16MiB.explicit.op_implied.busy_nonblocking", "other_thread_long"},
    /* a batch copy against the same copy made alone (issue 41 item 1: cudaMemcpyBatchAsync "contends
     * less for the driver's lock"): 1 MiB device to pageable memory, which waits for its stream */
    {&cts_family_memcpy, "memcpy_async.d2h.pageable.1MiB.explicit.op_nonblocking.busy_nonblocking", "other_thread_1mib"},
    {&cts_family_copy, "memcpy_batch_async.stream.d2h.pageable.1MiB.op_nonblocking.busy_nonblocking",
     "other_thread_batch"},
    {&cts_family_managed, "mem_advise_accessed_by.managed.16MiB.op_implied.busy_nonblocking", VARIANT},
    {&cts_family_managed, "mem_prefetch_to_host_async.managed.16MiB.op_nonblocking.busy_nonblocking", VARIANT},
};
#define NLENDS (sizeof lends / sizeof *lends)

static struct {
    int made;
    struct cts_case of[NLENDS]; /* each lent case as its family makes it (api 0 and no id: not found) */
    struct stall_call call[NLENDS];
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
                lent.call[k] = (struct stall_call){x->api, lends[k].variant, x->dir, x->mem, x->size_idx, x->op, x->busy, x};
            }
        free(all);
    }
}

/* The k-th call, own then lent (NULL: a lent one not found). */
const struct stall_call *stall_call_at(size_t k)
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
        const struct stall_call *x = stall_call_at(k);
        for (int w = 0; x && w < NWITHS; w++, n++) {
            if (!out || n >= cap)
                continue;
            struct cts_case c = {.family = &cts_family_stall, .api = x->api,
                                 .variant = x->variant ? x->variant : VARIANT, .with = stall_withs[w], .dir = x->dir,
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

const struct stall_call *stall_call_of(const struct cts_case *c)
{
    for (size_t k = 0; k < NCALLS + NLENDS; k++) {
        const struct stall_call *x = stall_call_at(k);
        if (x && x->api == c->api && x->dir == c->dir && x->mem == c->mem && x->size_idx == c->size_idx &&
            !strcmp(x->variant ? x->variant : VARIANT, c->variant))
            return x;
    }
    return NULL;
}

int stall_with_index(const struct cts_case *c)
{
    for (int w = 0; w < NWITHS; w++)
        if (c->with && !strcmp(c->with, stall_withs[w]))
            return w;
    return -1;
}

int cts_fresh_take(void);
int cts_fresh_left(void);
cudaError_t cts_launch_fresh(int i, cudaStream_t s, unsigned int *where, unsigned int value);

int stall_needs(const struct cts_case *c, char *why, size_t len)
{
    int w = stall_with_index(c), count = 0;
    if (w >= 0 && ON_PEER(w) && (cudaGetDeviceCount(&count) != cudaSuccess || count < 2)) {
        (void)cudaGetLastError();
        snprintf(why, len, "one device: no other for the second thread's %s", stall_withs[w]);
        return -1;
    }
    const struct stall_call *x = stall_call_of(c);
    if (x && x->lent)
        return stall_lent_needs(x->lent, why, len);
    switch (c->api) {
    case CTS_API_CU_MODULE_LOAD_DATA:
        return cts_need_driver("cuModuleLoadData", why, len) ? -1 : cts_need_driver("cuModuleUnload", why, len);
    case CTS_API_MALLOC_MANAGED: return cts_need_attribute(cudaDevAttrManagedMemory, "cudaDevAttrManagedMemory", why, len);
    case CTS_API_LAUNCH:
        if (cts_fresh_left() >= 2 * (BRIEF_TRIES + KEPT_TRIES_FIRST + 2 * TRIES))
            return 0;
        snprintf(why, len, "only %d never-launched kernels are left", cts_fresh_left());
        return -1;
    default: return 0;
    }
}

/* ---- what the family keeps (stall.h; made by stall_setup, cases/stall_window.c) ---- */

struct stall_state stall_d;
const char *stall_failed_at = "";

static cudaStream_t implied(void) { return cts_build_per_thread() ? cudaStreamPerThread : cudaStreamLegacy; }

/* The stream the case's held work is on. */
cudaStream_t stall_held_stream(const struct stall_call *x)
{
    if (x->busy != CTS_BUSY_SAME)
        return stall_d.held;
    return x->op == CTS_OP_IMPLIED ? implied() : stall_d.own;
}

/* The stream a lent call is given: the handle 0 where it takes none, else its own non-blocking one. */
static cudaStream_t op_stream(const struct stall_call *x)
{
    return x->op == CTS_OP_IMPLIED ? (cudaStream_t)0 : stall_d.own;
}

/* ---- lent calls ---------------------------------------------------------------- */

static char lent_at[CTS_REASON_MAX]; /* what failed, for stall_failed_at */

/* The memory a lent call is given for a kind (NULL: its family's own, or none). */
static void *lent_memory(enum cts_mem m, int side)
{
    return m == CTS_MEM_DEVICE ? stall_d.big_dev[side] : m == CTS_MEM_PAGEABLE ? stall_d.big_pageable : NULL;
}

int stall_lent_needs(const struct cts_case *x, char *why, size_t len)
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

/* A lent family's hook failed: its error as stall_failed_at, and a placeholder error. */
static cudaError_t lent_failed(const struct cts_case *x, const char *hook, const char *error)
{
    snprintf(lent_at, sizeof lent_at, "the %s family's %s of %s (%s)", x->family->name, hook,
             cts_api_function(x->api), error ? error : "?");
    stall_failed_at = lent_at;
    return cudaErrorUnknown;
}

/* What the call needs, made with the device idle (s: what cleanup undoes). */
cudaError_t stall_prepare(const struct stall_call *x, struct cts_scratch *s)
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
            stall_failed_at = "aligned_alloc";
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
            stall_failed_at = "cts_fresh_take (no never-launched kernel left)";
            return cudaErrorLaunchFailure;
        }
        break;
    default: break;
    }
    return cudaSuccess;
}

/* The call under test (an error that is not a cudaError_t, a driver API
 * call's or a lent family's: in stall_call_error). */
const char *stall_call_error;
static cudaStream_t op_stream(const struct stall_call *x);

/* A lent call: between its family's before and after hooks. */
static cudaError_t lent_call(const struct stall_call *x, struct cts_scratch *s)
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
        stall_call_error = e;
        return cudaErrorUnknown;
    }
    if (c->family->after && c->family->after(c, s, st, &e))
        return lent_failed(c, "after-hook", e);
    return cudaSuccess;
}

/* The frees and the registration's two ends: what they free is cleared in
 * the scratch once freed (a registration's range set once registered). */
static cudaError_t free_call(const struct stall_call *x, struct cts_scratch *s, size_t n)
{
    cudaError_t err;
    switch (x->api) {
    case CTS_API_HOST_REGISTER:
        if ((err = cudaHostRegister(s->extra, n, cudaHostRegisterDefault)) == cudaSuccess)
            s->ptr = s->extra;
        return err;
    case CTS_API_FREE: err = cudaFree(s->ptr); break;
    case CTS_API_FREE_HOST: err = cudaFreeHost(s->ptr); break;
    default: err = cudaHostUnregister(s->ptr); break; /* CTS_API_HOST_UNREGISTER */
    }
    if (err == cudaSuccess)
        s->ptr = NULL;
    return err;
}

/* cuModuleLoadData of the trigger family's image: its error's name, where it fails, in stall_call_error. */
static cudaError_t module_load(struct cts_scratch *s)
{
    CUmodule m = NULL;
    CUresult r = cts_drv.cuModuleLoadData(&m, stall_d.image);
    s->handle = m;
    if (r != CUDA_SUCCESS && cts_drv.cuGetErrorName(r, &stall_call_error) != CUDA_SUCCESS)
        stall_call_error = "an unknown CUresult";
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

cudaError_t stall_issue(const struct stall_call *x, struct cts_scratch *s)
{
    size_t n = x->size_idx >= 0 ? cts_size_bytes(x->size_idx) : 0;
    stall_call_error = NULL;
    if (x->lent)
        return lent_call(x, s);
    switch (x->api) {
    case CTS_API_DEVICE_SYNCHRONIZE: return cudaDeviceSynchronize();
    case CTS_API_STREAM_SYNCHRONIZE: return cudaStreamSynchronize(stall_d.own);
    case CTS_API_EVENT_SYNCHRONIZE: return cudaEventSynchronize(stall_d.behind);
    case CTS_API_MEMCPY:
        return x->dir == CTS_DIR_H2D ? cudaMemcpy(stall_d.dev[0], stall_d.pageable, n, cudaMemcpyHostToDevice)
                                     : cudaMemcpy(stall_d.pinned[0], stall_d.dev[1], n, cudaMemcpyDeviceToHost);
    case CTS_API_MEMCPY_ASYNC: return cudaMemcpyAsync(stall_d.pageable, stall_d.dev[1], n, cudaMemcpyDeviceToHost, stall_d.own);
    case CTS_API_FREE: case CTS_API_FREE_HOST: case CTS_API_HOST_REGISTER: case CTS_API_HOST_UNREGISTER:
        return free_call(x, s, n);
    case CTS_API_MALLOC: return cudaMalloc(&s->ptr, n);
    case CTS_API_MALLOC_HOST: return cudaMallocHost(&s->ptr, n);
    case CTS_API_MALLOC_MANAGED: return cudaMallocManaged(&s->ptr, n, cudaMemAttachGlobal);
    case CTS_API_CU_MODULE_LOAD_DATA: return module_load(s);
    case CTS_API_LAUNCH:
        if (++stall_d.stores == 0)
            stall_d.stores = 1;
        return cts_launch_fresh((int)s->value, stall_d.own, stall_d.word, stall_d.stores);
    case CTS_API_MEM_GET_INFO: {
        size_t free_b, total;
        return cudaMemGetInfo(&free_b, &total);
    }
    default: {
        struct cudaDeviceProp p;
        return cudaGetDeviceProperties(&p, stall_d.device);
    }
    }
}

/* Undoes stall_prepare() and the call, with the device idle. */
cudaError_t stall_cleanup(const struct stall_call *x, struct cts_scratch *s)
{
    if (x->lent) {
        const char *e = NULL;
        cudaError_t err = cudaDeviceSynchronize();
        if (err != cudaSuccess) {
            stall_failed_at = "cudaDeviceSynchronize";
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
            stall_failed_at = "cuModuleUnload";
            return cudaErrorUnknown;
        }
        break;
    default: break;
    }
    memset(s, 0, sizeof *s);
    return cudaSuccess;
}
size_t stall_ncalls(void) { return NCALLS + NLENDS; }

const struct cts_family cts_family_stall = {
    .name = "stall", .generate = generate, .needs = stall_needs, .measure = stall_measure,
};
