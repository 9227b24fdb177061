/* The case table: its size, its ids, and what the generator must not emit. */
#include "../cases/stall.h"
#include "check.h"
#include "cts.h"
#include "family.h"
#include "spec.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

static int count_in(const char *glob, const char *family, const char *group)
{
    const struct cts_case **sel;
    size_t n = cts_select(glob, family, group, 0, &sel);
    free(sel);
    return (int)n;
}

static int count_glob(const char *glob) { return count_in(glob, NULL, NULL); }
/* Within the 1-D memcpy family ("memcpy*" also names copy-family APIs). */
static int count_memcpy(const char *glob) { return count_in(glob, "memcpy", NULL); }
static int count_family(const char *family) { return count_in(NULL, family, NULL); }

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(void)
{
    size_t n;
    const struct cts_case *all = cts_all_cases(&n);

    /* The devices a case needs (run --devices): two exactly where it crosses to
     * a second one, which its id says ("peer", or cudaSetDevice to the other),
     * or where its family does (the peer family's "this_device" placements). */
    size_t two = 0;
    for (size_t i = 0; i < n; i++) {
        int says = strstr(all[i].id, "peer") || !strncmp(all[i].id, "set_device.other.", 17) ||
                   !strcmp(all[i].family->name, "peer");
        CHECK(cts_case_devices(&all[i]) == (says ? 2 : 1));
        two += cts_case_devices(&all[i]) == 2;
    }
    CHECK(two > 0 && two < n);
    {
        const struct cts_case **sel;
        size_t n1 = cts_select(NULL, NULL, NULL, 1, &sel);
        free(sel);
        size_t n2 = cts_select(NULL, NULL, NULL, 2, &sel);
        CHECK(n2 == two && n1 + n2 == n);
        for (size_t i = 0; i < n2; i++)
            CHECK(cts_case_devices(sel[i]) == 2);
        free(sel);
    }

    /* The API table (harness/core/apis.def): a token and a function for every
     * call, tokens unique (they begin every id), and an introducing runtime
     * that is 0 (older) or a CUDART_VERSION from 11.0 to the newest. */
    for (int a = 0; a < CTS_API_COUNT; a++) {
        CHECK(cts_api_token(a)[0] != '\0' && strcmp(cts_api_token(a), "?") != 0);
        CHECK(cts_api_function(a)[0] != '\0');
        CHECK(cts_api_since(a) == 0 || (cts_api_since(a) >= 11000 && cts_api_since(a) <= 13050));
        for (int b = 0; b < a; b++)
            if (strcmp(cts_api_token(a), cts_api_token(b)) == 0) {
                fprintf(stderr, "api token %s twice\n", cts_api_token(a));
                check_failures++;
            }
    }
    CHECK_INT(cts_api_since(CTS_API_MEMCPY_BATCH_ASYNC), 12080);
    CHECK_INT(cts_api_takes_stream(CTS_API_MEMCPY), 0);
    CHECK_INT(cts_api_takes_stream(CTS_API_LAUNCH), 1);
    CHECK_INT(cts_api_takes_stream(CTS_API_CU_MEMCPY_DTOH_ASYNC), 1);

    /* 23 copies (7 host kinds for h2d, d2h, h2h; device and managed for d2d)
     * x 7 sizes x 2 copy kinds x 26 (stream, busy) pairs: cudaMemcpy has the
     * implied stream with 4 placements; cudaMemcpyAsync has 0, cudaStreamLegacy
     * and cudaStreamPerThread with 4 each and two created streams with 5.
     * At 4 KiB the 12 second-thread placements; at 4 KiB, 1 and 16 MiB a host
     * function on the op stream (6: one an op stream).  Then data order
     * (written): 6 sizes, the explicit kind, on the 1 (cudaMemcpy) or 2 op
     * streams (0 and a non-blocking one), held by a writer of the source: 28 placements a size and
     * stream (h2d 9: every host kind by a host function, mapped and managed
     * by a kernel too; d2h 7, a kernel; d2d 3; h2h 9); and at 64 MiB h2d and
     * d2h from pageable, pinned and managed memory (7 placements).
     * SYNC_MEMOPS: 4 copies (d2d device_sync_memops; h2d, d2h, h2h
     * pinned_sync_memops), the explicit kind: cudaMemcpy at 4 KiB (4 + 2
     * threads + 1 host function), 1 and 16 MiB (4 + 1), cudaMemcpyAsync at
     * 4 KiB (22 + 10 + 5); no data order. */
#define SYNC_MEMOPS_SYNC (4 * (7 + 5 + 5))
#define SYNC_MEMOPS_ASYNC (4 * (22 + 10 + 5))
    CHECK_INT(count_memcpy("memcpy*"), 23 * 7 * 2 * 26 + 23 * 2 * 12 + 23 * 2 * 3 * 6 + 28 * 6 * 3 + 7 * 3 +
                                           SYNC_MEMOPS_SYNC + SYNC_MEMOPS_ASYNC);
    CHECK_INT(count_memcpy("memcpy.*"), 23 * 7 * 2 * 4 + 23 * 2 * 2 + 23 * 2 * 3 + 28 * 6 + 7 + SYNC_MEMOPS_SYNC);
    CHECK_INT(count_memcpy("memcpy_async.*"),
              23 * 7 * 2 * 22 + 23 * 2 * 10 + 23 * 2 * 3 * 5 + 28 * 6 * 2 + 7 * 2 + SYNC_MEMOPS_ASYNC);
    CHECK_INT(count_memcpy("*.d2d.*"), 2 * 7 * 2 * 26 + 2 * 2 * 12 + 2 * 2 * 3 * 6 + 3 * 6 * 3 + (SYNC_MEMOPS_SYNC + SYNC_MEMOPS_ASYNC) / 4);
    CHECK_INT(count_memcpy("*_sync_memops.*"), SYNC_MEMOPS_SYNC + SYNC_MEMOPS_ASYNC);
    CHECK_INT(count_memcpy("memcpy*.busy_same_hostfn"), 23 * 2 * 3 * 6 + 15 * 6 * 3 + 3 * 3 + 4 * (3 + 5));
    CHECK_INT(count_memcpy("memcpy*.64KiB.*.busy_same_hostfn"), 0);
    CHECK_INT(count_memcpy("memcpy*.busy_same"), 23 * 7 * 2 * 6 + 13 * 6 * 3 + 4 * 3 + 4 * (3 + 5));
    CHECK_INT(count_memcpy("memcpy*.written.*"), 28 * 6 * 3 + 7 * 3);
    CHECK_INT(count_memcpy("memcpy*.written.*.64MiB.*"), 7 * 3); /* h2d and d2h, pageable, pinned, managed */
    CHECK_INT(count_memcpy("memcpy_async.written.d2h.pageable.2MiB+1.explicit.op_nonblocking.busy_same"), 1);
    CHECK_INT(count_glob("*.written.*.op_blocking.*"), 0); /* two op streams: 0 and a non-blocking one */
    CHECK_INT(count_glob("*.written.*.device.*.busy_same_hostfn"), 0); /* the host cannot write it */
    CHECK_INT(count_glob("*.written.h2d.pageable.*.busy_same"), 0);    /* nor a kernel this */
    CHECK_INT(count_glob("*.written.*.default.*"), 0);
    CHECK_INT(count_glob("*.op_null.busy_legacy"), 0);      /* 0 is the legacy stream here */
    CHECK_INT(count_glob("*.op_legacy.busy_legacy"), 0);
    CHECK_INT(count_glob("*.op_perthread.busy_perthread"), 0);
    CHECK_INT(count_glob("*.op_implied.busy_legacy"), 0);
    CHECK_INT(count_glob("memcpy_async.*.op_implied.*"), 0);
    CHECK_INT(count_in("memcpy.*.op_nonblocking.*", "memcpy", NULL), 0);
    CHECK_INT(count_glob("*.d2d.pageable.*"), 0);
    CHECK_INT(count_glob("*.h2d.device.*"), 0);
    CHECK_INT(count_memcpy("memcpy*.64KiB+1.*"), 23 * 2 * 26);
    CHECK_INT(count_glob("nothing*"), 0);

    /* memset: 4 memory kinds; 10 byte-wide APIs (5 with a stream: 22 stream
     * and busy pairs; 5 without: 4) at 7 sizes; 8 16/32-bit driver APIs
     * (half with a stream) only at the 4 sizes they divide; the 6 runtime
     * ones at 4 KiB with the second-thread placements, and at 4 KiB, 1 and
     * 16 MiB behind a host function on the op stream.  SYNC_MEMOPS device
     * memory: cudaMemset (4 + 2 + 1 at 4 KiB, 4 + 1 at 1 and 16 MiB) and
     * cuMemsetD8 (4 at each) at 3 sizes, cudaMemsetAsync (22 + 10 + 5) and
     * cuMemsetD8Async (22) at 4 KiB. */
    CHECK_INT(count_in("*memset*", "memset", NULL), 4 * (5 * 7 * 4 + 5 * 7 * 22 + 4 * 4 * 4 + 4 * 4 * 22) + 4 * (3 * 2 + 3 * 10) +
                                          4 * 3 * (3 * 1 + 3 * 5) + 405 + (7 + 5 + 5) + 3 * 4 + 37 + 22);
    CHECK_INT(count_in("*.device_sync_memops.*", "memset", NULL), (7 + 5 + 5) + 3 * 4 + 37 + 22);
    /* written memsets: 18 forms x 3 sizes x (device, pinned, registered, managed by both
     * writers: 5) x (1 or 2 op streams) */
    CHECK_INT(count_in("*memset*.written.*", "memset", NULL), 9 * 3 * 5 * 1 + 9 * 3 * 5 * 2);
    /* written ones only: 12 forms on 18 op streams x 3 sizes x pinned, registered, managed */
    CHECK_INT(count_glob("cu_memset*.busy_same_hostfn"), 18 * 3 * 3);
    CHECK_INT(count_glob("cu_memset*.busy_same_hostfn"), count_glob("cu_memset*.written.*.busy_same_hostfn"));
    /* alloc: 21 sized calls at 2 sizes and 2 sizeless ones; 3 of them take a
     * stream (22 pairs), the rest 4; 5 VMM calls at 2 sizes (4 each); the
     * pool-release synchronizes in 2 variants (the stream's 22, event and
     * device 4 each); the registrations' variants (cudaHostRegister 5: read_only, mapped,
     * file_backed and its read_only and mapped; cudaHostUnregister file_backed) at 2 sizes (6 each);
     * cudaHostRegister, plain, file_backed and file_backed_read_only, at 256 MiB and 1 GiB beside a
     * non-blocking stream. */
    CHECK_INT(count_family("alloc"),
              (18 * 2 + 2) * 6 + 3 * 2 * 32 + 5 * 2 * 6 + 2 * (32 + 6 + 6) + (5 + 1) * 2 * 6 + 3 * 2);
    CHECK_INT(count_in("host_register.file_backed*", "alloc", NULL), 3 * 2 * 6 + 2 * 2);
    CHECK_INT(count_in("host_register.*.1GiB.*", "alloc", NULL), 3);
    CHECK_STR(cts_size_token(11), "1GiB");
    CHECK(cts_size_bytes(11) == (size_t)1 << 30);
    /* stream: 5 calls without a stream argument, 7 with one; then capture
     * begin/end, stream synchronize and stream_wait_event.pending (22 each),
     * event/device synchronize and event_query.pending (4 each); graph
     * instantiate and exec update (6 each), graph upload (32); issue 41's
     * three stream_wait_event variants (32 each) and event_elapsed_time's
     * three (6 each). */
    CHECK_INT(count_family("stream"), 5 * 6 + 7 * 32 + 4 * 32 + 3 * 6 + 3 * 5 + 2 * 6 + 32 + 3 * 32 + 3 * 6);
    /* trigger: 9 calls without a stream, 2 with one. */
    CHECK_INT(count_family("trigger"), 9 * 6 + 2 * 32);
    /* first_launch: the first launch of a fresh kernel, on every op stream and placement. */
    CHECK_INT(count_family("first_launch"), 32);
    CHECK_INT(count_in("launch.first.*", "first_launch", "launch.first"), 32);
    /* copy: the grid in cases/copy.c's header comment; the 1-D array copies (issue 41):
     * cuMemcpyHtoA (pageable, pinned at 2 sizes, managed), AtoH (3 host kinds), DtoA and AtoD
     * (device, managed), AtoA (no memory kind) on the implied stream's 4 placements, the Async
     * forms on 22; written: the host sources by the host function (and managed by a kernel
     * too), an array source by a copy into it (own_copy), on 1 or 2 op streams. */
    CHECK_INT(count_family("copy"), 3376 + (4 + 3 + 2 + 2 + 1) * 4 + (4 + 3) * 22 + 402 + 30);
    CHECK_INT(count_in("*.written.*", "copy", NULL), 402 + 30);
    CHECK_INT(count_in("cu_memcpy_atoa.*", "copy", NULL), 4 + 1);
    CHECK_INT(count_in("cu_memcpy_htoa_async.written.*", "copy", NULL), (3 + 2) * 2);
    CHECK_INT(count_in("cu_memcpy_atoh_async.written.*", "copy", NULL), 3 * 2);
    CHECK_INT(count_in("cu_memcpy_atoa.written.d2d.1MiB.op_implied.busy_same", "copy", NULL), 1);
    /* the symbol by its device address: from it only a kernel writes (5 kinds: 3 host, 2 device; x 3 op streams) */
    CHECK_INT(count_glob("memcpy_from_symbol*.written.*"), 15);
    CHECK_INT(count_glob("memcpy_from_symbol*.written.*.busy_same_hostfn"), 0);
    CHECK_INT(count_glob("memcpy_to_symbol*.written.*"), 24);
    CHECK_INT(count_glob("memcpy2d_*array*.written.*"), 39); /* the array by 2D copies (own_copy) */
    /* declared on every stream; NOTSUPP on the legacy one is decided at run time */
    CHECK_INT(count_in("memcpy_batch_async.during_call.h2d.pinned.1MiB.op_null.*", "copy", NULL), 4);
    CHECK_INT(count_in("memcpy_to_symbol.h2d.pinned.4KiB.explicit.op_implied.busy_same", "copy", NULL), 1);
    CHECK_INT(count_in("cu_memcpy_htod.h2d.pageable.1MiB.op_implied.busy_blocking", "copy", NULL), 1);
    CHECK_INT(count_family("memcpy"),
              23 * 7 * 2 * 26 + 23 * 2 * 12 + 23 * 2 * 3 * 6 + 28 * 6 * 3 + 7 * 3 + SYNC_MEMOPS_SYNC + SYNC_MEMOPS_ASYNC);
    /* pointer: cuPointerSetAttribute, 3 variants on the implied stream's 4 placements and 2 threads' */
    CHECK_INT(count_family("pointer"), 3 * (4 + 2));
    /* managed: 2 prefetches and the attach take a stream; 3 advices do not; 2 sizes. */
    CHECK_INT(count_family("managed"), (3 * 22 + 3 * 4) * 2 + 3 * 10 + 3 * 2);
    CHECK_INT(count_glob("stream_attach_mem_async.managed.4KiB.op_null.busy_same"), 1);
    CHECK(cts_api_takes_stream(CTS_API_STREAM_ATTACH_MEM_ASYNC));
    CHECK(!cts_api_takes_stream(CTS_API_MEM_ADVISE_ACCESSED_BY));
    CHECK_INT(count_family("nope"), 0);
    CHECK_INT(n, (size_t)(count_family("memcpy") + count_family("copy") + count_family("memset") +
                          count_family("alloc") + count_family("pointer") + count_family("stream") + count_family("managed") +
                          count_family("trigger") + count_family("first_launch") + count_family("device") +
                          count_family("depth") + count_family("stall") + count_family("pool") + count_family("queues") + count_family("event_timing") + count_family("overlap") + count_family("capture") + count_family("green") + count_family("peer") +
                          count_family("process")));
    /* capture: 3 capture modes x 3 calling-thread modes x 3 capturing streams; 13 calls that take
     * a stream and cudaStreamWaitEvent "external" and "captured" on 8 placements (6 where the per-thread default
     * stream captures: it is busy_perthread, and the second thread cannot name it), cudaStreamBeginCapture
     * and cudaStreamEndCapture on 4 (3), 13 calls that take none and the 2 "captured" event calls on
     * 2 (this thread, the other); one CTest group a capture mode, the modes after the call.
     * Lent: every other call of the catalogue as its family makes it, a representative a (family, call,
     * variant, direction, memory): 99 that take a stream on 8 placements, 155 that take none on 2, in
     * the capture's own mode, on a blocking or a non-blocking capturing stream.
     * Conditional bodies: 3 modes x 2 kinds of stream x IF and WHILE x 3 end orders x 5 calls.
     * To-graph: the lent calls' Global cases again, begun into an existing graph (group capture_to_graph). */
    CHECK_INT(count_family("capture"), 3 * 3 * ((13 + 2) * (8 + 8 + 6) + 2 * (4 + 4 + 3) + (13 + 2) * 2 * 3 + 3 + 3 + 2 +
                                                3 * 7) +
                                           (3 + 1) * 2 * (99 * 8 + 155 * 2) + 3 * 2 * 2 * 3 * 5);
    CHECK_INT(count_in(NULL, NULL, "capture_to_graph"), 2 * (99 * 8 + 155 * 2));
    CHECK_INT(count_in("*.capture_global.to_graph.by_global.*", "capture", "capture_to_graph"), 2 * (99 * 8 + 155 * 2));
    CHECK_INT(count_in("*.to_graph.*", NULL, NULL), 2 * (99 * 8 + 155 * 2)); /* Global only, lent calls only */
    CHECK_INT(count_in("memcpy2d_async.capture_global.to_graph.by_global.h2d.pinned.1MiB.explicit.op_blocking.busy_same",
                       "capture", "capture_to_graph"), 1);
    CHECK_INT(count_in("malloc_host.capture_global.to_graph.by_global.pinned.4KiB.op_nonblocking.busy_thread_same",
                       "capture", NULL), 1);
    CHECK_INT(count_in("memset_async.capture_global.to_graph.by_global.device.*", "capture", NULL), 0); /* made here */
    CHECK_INT(count_in("*.body_*.to_graph.*", "capture", NULL), 0);
    CHECK_INT(count_in(NULL, NULL, "capture_global"),
              3 * ((13 + 2) * (8 + 8 + 6) + 2 * (4 + 4 + 3) + (13 + 2) * 2 * 3 + 3 + 3 + 2 + 3 * 7) + 2 * (99 * 8 + 155 * 2) +
                  2 * 2 * 3 * 5);
    CHECK_INT(count_in("*.body_while_end_parent_only.*", "capture", NULL), 3 * 2 * 5);
    CHECK_INT(count_in("memset_async.body_if_end_body_first.capture_relaxed.by_relaxed.op_nonblocking.busy_same",
                       "capture", NULL), 1);
    /* ... and 7 of the calls that take none by a second thread with the other device current */
    CHECK_INT(count_in("*.busy_thread_peer", "capture", NULL), 27 * 7);
    CHECK_INT(count_in("malloc.capture_global.by_global.op_blocking.busy_thread_peer", "capture", NULL), 1);
    CHECK_INT(count_in("memcpy2d_async.capture_global.by_global.h2d.pinned.1MiB.explicit.op_blocking.busy_same", "capture",
                       NULL), 1);
    CHECK_INT(count_in("stream_attach_mem_async.capture_relaxed.by_relaxed.managed.4KiB.op_nonblocking.busy_legacy",
                       "capture", NULL), 1);
    CHECK_INT(count_in("*.capture_global.by_relaxed.*.4KiB.*", "capture", NULL), 0); /* lent: by its own mode */
    CHECK_INT(count_in("memcpy_async.capture_*.d2d.device.*", "capture", NULL), 0);   /* made here already */
    CHECK_INT(count_in("stream_begin_capture.capture_*", "capture", NULL), 9 * (4 + 4 + 3)); /* not lent */
    CHECK_INT(count_in("stream_end_capture.capture_relaxed.by_global.op_blocking.busy_thread_same", "capture", NULL), 1);
    CHECK_INT(count_in("stream_wait_event.external.capture_*.op_perthread.*", "capture", NULL), 9 * 6);
    CHECK_INT(count_in("*.capture_*.16MiB.*", "capture", NULL), 0);
    CHECK_INT(count_in("event_query.captured.capture_relaxed.by_relaxed.op_perthread.busy_thread_same", "capture", NULL), 1);
    CHECK_INT(count_in("*.op_perthread.busy_perthread", "capture", NULL), 0);
    CHECK_INT(count_in("malloc.capture_thread_local.by_relaxed.op_blocking.busy_thread_same", "capture", NULL), 1);
    CHECK_INT(count_in("malloc.capture_*.busy_blocking", "capture", NULL), 0); /* it takes no stream */
    CHECK_INT(count_in("*.capture_*", NULL, NULL), count_family("capture"));
    /* device: 10 calls (cudaSetDevice current and other, the interprocess events, ...), 4
     * cudaFuncSetAttribute attributes, 8 pool attributes got and 6 set, each on the implied stream's
     * placements and from a second thread (6 cases); cudaEventRecord of an interprocess event on
     * every op stream (32) */
    CHECK_INT(count_family("device"), (13 + 4 + 8 + 6) * 6 + 32); /* 13: with the 3 interprocess-memory calls */
    /* depth: 10 enqueueing calls x 4 op streams x 3 (the scan behind its own stream; beside a full
     * non-blocking stream, filled by this thread or blocked in another) */
    CHECK_INT(count_family("depth"), 10 * 4 * 3);
    CHECK_INT(count_in("launch.queue_depth.op_legacy.busy_same", "depth", NULL), 1);
    CHECK_INT(count_in("*.queue_full*.busy_nonblocking", "depth", NULL), 10 * 4 * 2);
    CHECK_INT(count_in("*.queue_depth.*", "capture", NULL), 0); /* measured by its family: not lent */
    /* stall: 27 calls x 5 commands of the second thread (a launch, a copy, an event record; a launch
     * and a copy on the other device) */
    CHECK_INT(count_family("stall"), (17 + 12) * 5); /* its own 17 calls, 12 lent by other families */
    CHECK_INT(count_in("memcpy_batch_async.other_thread_batch.*", "stall", NULL), 5);
    CHECK_INT(count_in("free.other_thread.with_peer_launch.device.4KiB.op_implied.busy_nonblocking", "stall", NULL), 1);
    /* ... each case made by the call it names, its variant too: the lent file-backed registration
     * beside the family's own of the same size measured the own one until 843ead1's run showed it */
    for (size_t i = 0; i < n; i++)
        if (!strcmp(all[i].family->name, "stall")) {
            const struct stall_call *x = stall_call_of(&all[i]);
            CHECK(x && !strcmp(x->variant ? x->variant : "other_thread", all[i].variant));
        }
    CHECK_INT(count_in("free_array.other_thread.with_*.16MiB.op_implied.busy_nonblocking", "stall", NULL), 5);
    CHECK_INT(count_in("memcpy.other_thread_long.with_launch.h2d.pageable.16MiB.explicit.op_implied.busy_nonblocking",
                       "stall", NULL), 1);
    CHECK_INT(count_in("free.other_thread.with_launch.device.4KiB.op_implied.busy_nonblocking", "stall", NULL), 1);
    CHECK_INT(count_in("launch.other_thread_first.with_*", "stall", NULL), 5);
    CHECK_INT(count_in("*.other_thread*", "capture", NULL), 0);
    /* peer (legacy build; op_null is then the legacy stream, and no busy_legacy beside it): copies
     * between the devices by call (variants x sizes x op streams x placements: 8 on a created stream,
     * 7 on stream 0 or the implied one), host memory to and from the peer's, this device's calls
     * beside the peer's 3 placements, the peer's events, a launch, peer access */
    CHECK_INT(count_family("peer"), 8 * 2 * (8 + 7) + 4 * 2 * 7 + 8 * 2 * 8 + 4 * 8 + 4 * 2 * 7 + 4 * 7 +
                                        2 * 8 + 2 * 7 + 2 * 8 + 2 * 7 + 2 * 8 + 4 * 8 + 4 * 7 + 9 * 3 + 2 * 3 + 8 +
                                        2 * 7);
    CHECK_INT(count_in("memcpy_peer_async.to_peer_pool_ungranted.d2d.device.16MiB.op_nonblocking.busy_both", "peer",
                       NULL), 1);
    CHECK_INT(count_in("*.busy_peer_*", "peer", NULL) + count_in("*.busy_both", "peer", NULL) > 0, 1);
    CHECK_INT(count_in("*.busy_peer_*", NULL, NULL), count_in("*.busy_peer_*", "peer", NULL)); /* its own */
    /* process: 7 calls, on this device and the peer (cudaMemcpyPeerAsync on the peer only) */
    CHECK_INT(count_family("process"), 6 * 2 + 1);
    CHECK_INT(count_in("*.busy_other_process*", NULL, NULL), count_family("process"));
    /* pool: 5 reuse policies x (with and without an event after the free) */
    CHECK_INT(count_family("pool"), 5 * 2);
    CHECK_INT(count_in("malloc_from_pool_async.tight_none.device.64MiB.op_nonblocking.busy_nonblocking", "pool", NULL),
              1);
    /* queues: 4 shapes (one kernel a stream; two, with 3 priority settings) x 9 stream counts, none lent to
     * the capture family (it measures itself) */
    CHECK_INT(count_family("queues"), 4 * 9);
    CHECK_INT(count_in("kernels_at_once.two_kernels_priority_mixed.with_09_streams.op_nonblocking.busy_nonblocking", "queues",
                       NULL), 1);
    CHECK_INT(count_in("kernels_at_once.*", "capture", NULL), 0);
    /* event_timing: 4 placements (one stream, its start held or not; two, ordered or not) x 3 holds */
    CHECK_INT(count_family("event_timing"), 4 * 3);
    CHECK_INT(count_in("event_timing.unordered.with_hold_1ms.op_implied.busy_nonblocking", "event_timing", NULL), 1);
    /* green: the kernel's 3 placements; 5 calls x 3 contexts calling; none lent to the capture family */
    CHECK_INT(count_family("green"), 3 + 5 * 3);
    CHECK_INT(count_in("green_kernel_start.split.op_nonblocking.busy_nonblocking", "green", NULL), 1);
    CHECK_INT(count_in("green_stream_query.in_b.op_nonblocking.busy_nonblocking", "green", NULL), 1);
    CHECK_INT(count_in("green_ctx_synchronize.in_primary.op_implied.busy_nonblocking", "green", NULL), 1);
    CHECK_INT(count_in("green_*", "capture", NULL), 0);
    CHECK_INT(count_in("set_device.other.op_implied.busy_same", "device", NULL), 1);
    CHECK_INT(count_in("func_set_attribute.*.busy_same", "device", NULL), 4);
    CHECK_INT(count_in("set_device.capture_relaxed.by_relaxed.*", "capture", NULL), 0); /* variants lent */
    CHECK_INT(count_in("set_device.current.capture_relaxed.by_relaxed.*", "capture", NULL), 2 * 2);
    /* overlap: 64 ordered pairs of 8 operations x 18 (A's stream, B's) pairs: 4 op streams x 5
     * placements, less B on the legacy or per-thread stream that is A's.  The 2 batch copies: never
     * on the legacy stream (A's: 4 pairs of streams less; B's: 4 less), so 14 with one of the 8, 11
     * with each other */
    /* and B a kernel on a high-priority stream: 8 A x 4 op streams x 2 placements (a batch A: 3 op
     * streams); and 3 staged-copy versions x 2 stream kinds */
    CHECK_INT(count_family("overlap"), 64 * 18 + 2 * (2 * 8 * 14) + 4 * 11 + 8 * 4 * 2 + 2 * 3 * 2 + 3 * 2);
    CHECK_INT(count_in("overlap.kernel.with_h2d_pinned.*", "overlap", NULL), 18);
    CHECK_INT(count_in("overlap.kernel.with_h2d_batch.*", "overlap", NULL), 14);
    CHECK_INT(count_in("overlap.h2d_batch.with_d2h_batch.*", "overlap", NULL), 11);
    CHECK_INT(count_glob("overlap.*_batch.with_*.op_legacy.*"), 0);           /* A: never the legacy stream */
    CHECK_INT(count_glob("overlap.*.with_*_batch.*.busy_legacy"), 0);          /* nor B */
    CHECK_INT(count_glob("overlap.*.with_*_batch.op_legacy.busy_same"), 0);
    CHECK_INT(count_in(NULL, NULL, "overlap.kernel"), 8 * 18 + 2 * 14 + 4 * 2); /* B does not split A's group */
    CHECK_INT(count_glob("launch_host_func.op_perthread.busy_legacy"), 1);
    CHECK_INT(count_glob("event_query.op_implied.busy_nonblocking"), 1);
    CHECK_INT(count_glob("stream_query.op_implied.*"), 0);
    CHECK(cts_api_takes_stream(CTS_API_EVENT_RECORD));
    CHECK(!cts_api_takes_stream(CTS_API_EVENT_QUERY));
    CHECK_INT(count_glob("free_null.op_implied.busy_same"), 1);
    CHECK_INT(count_glob("host_alloc.wc.16MiB.op_implied.busy_nonblocking"), 1);
    CHECK_INT(count_glob("malloc_array.4KiB.op_implied.busy_perthread"), 1);
    CHECK_INT(count_glob("free_async.device.4KiB.op_nonblocking.busy_legacy"), 1);
    CHECK_INT(count_in("memset.*", "memset", NULL), 4 * 7 * 4 + 4 * 2 + 4 * 3 + 3 * 5 + (7 + 5 + 5));
    CHECK_INT(count_glob("cu_memset_d8_async.*"), 4 * 7 * 22 + 3 * 5 * 2 + 2 * 8 * 2 * (3 + 1) + 22); /* + capture's lent (and to-graph) */
    CHECK_INT(count_glob("cu_memset_d16.*.1B.*"), 0);
    CHECK_INT(count_glob("cu_memset_d2d32*.64KiB+1.*"), 0);
    CHECK_INT(count_glob("memset*.pageable.*"), 0);
    CHECK_INT(count_in("memset_async.pinned.4KiB.op_nonblocking.busy_legacy", NULL, NULL), 1);
    CHECK_INT(count_in("cu_memset_d32.managed.16MiB.op_implied.busy_same", NULL, NULL), 1);

    /* Busy work from a second host thread: 2 placements on every op stream
     * (2 for an implied stream, 10 for the 5 op streams), where a family
     * declares them; cudaMemcpy at 4 KiB does, copy-family calls do not. */
    CHECK(cts_busy_from_thread(CTS_BUSY_THREAD_PERTHREAD) && !cts_busy_from_thread(CTS_BUSY_PERTHREAD));
    CHECK_INT(count_in("memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_thread_*", NULL, NULL), 2);
    CHECK_INT(count_in("memcpy.h2d.pageable.1MiB.*.busy_thread_*", NULL, NULL), 0);
    CHECK_INT(count_in("*.busy_thread_*", "copy", NULL), 0);
    /* A host function as the held work: a launch, cudaLaunchHostFunc and
     * cudaStreamAddCallback on each of the 5 op streams. */
    CHECK_INT(count_in("*.busy_hostfn", NULL, NULL), 3 * 5);
    CHECK_INT(count_in("launch_host_func.op_blocking.busy_hostfn", "stream", NULL), 1);
    CHECK(cts_busy_is_hostfn(CTS_BUSY_SAME_HOSTFN) && cts_busy_in_op_stream(CTS_BUSY_SAME_HOSTFN) &&
          !cts_busy_is_hostfn(CTS_BUSY_SAME) && !cts_busy_in_op_stream(CTS_BUSY_HOSTFN));
    CHECK_INT(count_in("memset_async.device.16MiB.op_legacy.busy_same_hostfn", "memset", NULL), 1);
    CHECK_INT(count_in("*.busy_thread_*", NULL, NULL), 23 * 2 * 12 + 4 * 36 + 176 + 126 + 36 + 38 + 14 + 10 +
                                                        9 * ((13 + 2) * (3 + 3 + 2) + 2 * 2 + (13 + 2) * 3 + 2 +
                                                             3 * 7) + /* capture (busy_thread_peer: 7 calls) */
                                                        (3 + 1) * 2 * (99 * 3 + 155) + /* ... lent (and to-graph) */
                                                        12 * 2 + /* alloc: the registrations' variants */
                                                        2 * 2 * 2 + /* alloc: cuArrayDestroy, cudaFreeMipmappedArray */
                                                        30 * 2 + 12 + /* device: 30 calls that take no stream, one that does */
                                                        3 * 10 + 3 * 2 + /* stream: issue 41's event cases */
                                                        4 * (2 + 10) + 2 + 10 + /* SYNC_MEMOPS: memcpy, memset */
                                                        3 * 2); /* pointer */

    /* A variant is its own segment and its own group: --group selects one
     * group exactly, where the glob "launch.*" also reaches launch.<variant>. */
    CHECK_INT(count_in("launch.*", NULL, "launch"), 37);
    CHECK(count_in("launch.*", NULL, NULL) > 37);
    CHECK_INT(count_in(NULL, NULL, "launch.after_cache_config"), 32);
    CHECK_INT(count_in("launch.after_cache_config.op_null.busy_same", "trigger", NULL), 1);

    /* Ids are unique, dotted in as many segments as apply (seven for a
     * memcpy, five for a memset, three for cudaFree(NULL)), and rebuilt
     * identically. */
    for (size_t i = 0; i < n; i++) {
        int dots = 0;
        for (const char *p = all[i].id; *p; p++)
            dots += *p == '.';
        CHECK_INT(dots, 2 + (all[i].variant != NULL) + (all[i].with != NULL) + all[i].writes +
                            2 * (all[i].capture != CTS_CAPTURE_NONE) + all[i].to_graph +
                            (all[i].dir != CTS_DIR_NONE) +
                            (all[i].mem >= 0) + (all[i].size_idx >= 0) +
                            (all[i].kind != CTS_KIND_NONE));
        struct cts_case copy = all[i];
        copy.id[0] = '\0';
        CHECK_INT(cts_case_make_id(&copy), 0);
        CHECK_STR(copy.id, all[i].id);
        CHECK(all[i].size == cts_size_bytes(all[i].size_idx));
    }
    {
        const char **ids = malloc(n * sizeof *ids);
        for (size_t i = 0; i < n; i++)
            ids[i] = all[i].id;
        qsort(ids, n, sizeof *ids, cmp_str);
        int dup = 0;
        for (size_t i = 1; i < n; i++)
            dup += strcmp(ids[i - 1], ids[i]) == 0;
        CHECK_INT(dup, 0);
        free(ids);
    }

    /* Known ids, written out: these are committed in reports and must not drift. */
    CHECK_INT(count_glob("memcpy_async.h2d.pageable.4KiB.explicit.op_nonblocking.busy_legacy"), 1);
    CHECK_INT(count_glob("memcpy.d2h.pinned.64KiB+1.default.op_implied.busy_same"), 1);
    CHECK_INT(count_glob("memcpy_async.h2h.wc.16MiB.explicit.op_perthread.busy_nonblocking"), 1);
    CHECK_STR(all[0].id, "memcpy.h2d.pageable.1B.explicit.op_implied.busy_same");

    /* Each CTest group is one contiguous run of the table (list --groups, the
     * run's per-group times and the GPU tests rely on it): a group never
     * comes back once another has begun. */
    {
        char last[CTS_ID_MAX] = "", g[CTS_ID_MAX];
        int split = 0;
        for (size_t i = 0; i < n; i++) {
            cts_case_group(&all[i], g, sizeof g);
            if (strcmp(g, last)) {
                for (size_t j = 0; j < i && !split; j++) {
                    char h[CTS_ID_MAX];
                    cts_case_group(&all[j], h, sizeof h);
                    if (!strcmp(g, h)) {
                        fprintf(stderr, "group %s comes back at %s\n", g, all[i].id);
                        split = 1;
                    }
                }
                snprintf(last, sizeof last, "%s", g);
            }
        }
        CHECK_INT(split, 0);
    }

    /* The cudaMemcpyKind a case passes. */
    for (size_t i = 0; i < n; i++)
        if (!strcmp(all[i].id, "memcpy_async.d2h.mapped.1MiB.explicit.op_blocking.busy_same")) {
            CHECK_STR(cts_copy_kind_name(&all[i]), "cudaMemcpyDeviceToHost");
            char g[64];
            cts_case_group(&all[i], g, sizeof g);
            CHECK_STR(g, "memcpy_async.d2h");
        } else if (!strcmp(all[i].id, "memcpy.h2h.managed.1B.default.op_implied.busy_same")) {
            CHECK_STR(cts_copy_kind_name(&all[i]), "cudaMemcpyDefault");
        }

    /* 2D and 3D memsets cover their size as one contiguous block. */
    for (size_t i = 0; i < n; i++) {
        const struct cts_case *c = &all[i];
        if (!strcmp(c->id, "memset2d.device.4KiB.op_implied.busy_same")) {
            CHECK_INT(c->width, 1024);
            CHECK_INT(c->height, 4);
            CHECK_INT(c->depth, 0);
        } else if (!strcmp(c->id, "memset3d_async.pinned.4KiB.op_null.busy_same")) {
            CHECK_INT(c->width * c->height * c->depth, 4096);
            CHECK_INT(c->depth, 2);
        } else if (!strcmp(c->id, "memset2d.device.64KiB-1.op_implied.busy_same")) {
            CHECK_INT(c->width, 65535);
            CHECK_INT(c->height, 1);
        } else if (!strcmp(c->id, "cu_memset_d2d32.device.4KiB.op_implied.busy_same")) {
            CHECK_INT(c->width % 4, 0);
            CHECK_INT(c->width * c->height, 4096);
        } else if (!strcmp(c->id, "memset.device.4KiB.op_implied.busy_same")) {
            CHECK_INT(c->height, 0);
            CHECK(cts_copy_kind_name(c) == NULL);
            char g[64];
            cts_case_group(c, g, sizeof g);
            CHECK_STR(g, "memset");
        }
        if (c->height)
            CHECK_INT(c->width * c->height * (c->depth ? c->depth : 1), c->size);
    }
    /* Run-time needs: with no driver looked up (none here), a driver API
     * case is NOTSUPP naming its function; a runtime one needs nothing. */
    for (size_t i = 0; i < n; i++) {
        char why[256] = "";
        if (!strcmp(all[i].id, "memset_async.device.4KiB.op_null.busy_same")) {
            CHECK_INT(all[i].family->needs(&all[i], why, sizeof why), 0);
        } else if (!strcmp(all[i].id, "cu_memset_d8_async.device.4KiB.op_null.busy_same")) {
            CHECK_INT(all[i].family->needs(&all[i], why, sizeof why), -1);
            CHECK_CONTAINS(why, "cuMemsetD8Async was not found");
        } else if (!strcmp(all[i].id, "event_elapsed_time.pending.op_implied.busy_nonblocking")) {
            CHECK_INT(all[i].family->needs(&all[i], why, sizeof why), -1); /* nothing to record it behind */
            CHECK_CONTAINS(why, "non-blocking stream");
        } else if (!strcmp(all[i].id, "event_elapsed_time.pending.op_implied.busy_blocking")) {
            CHECK_INT(all[i].family->needs(&all[i], why, sizeof why), 0);
        }
    }
    /* Documented rejections are declared by the family: the error its
     * reference names ("" where it names none) and the clause; the same
     * call on another stream is no rejection. */
    struct {
        const char *id, *error, *clause;
    } rej[] = {
        {"stream_attach_mem_async.managed.4KiB.op_null.busy_same", "", "RT-ATTACH-NULL-STREAM"},
        {"stream_attach_mem_async.managed.4KiB.op_blocking.busy_same", NULL, NULL},
        {"memcpy_batch_async.stream.h2d.pinned.4KiB.op_null.busy_same", "cudaErrorInvalidValue",
         "RT-BATCH-NULL-STREAM"},
        {"memcpy_batch_async.stream.h2d.pinned.4KiB.op_legacy.busy_same", "cudaErrorInvalidValue",
         "RT-BATCH-NULL-STREAM"},
        {"memcpy_batch_async.stream.h2d.pinned.4KiB.op_perthread.busy_same", NULL, NULL},
        {"stream_begin_capture.op_legacy.busy_same", "", "RT-CAPTURE-LEGACY"},
        {"stream_begin_capture.op_blocking.busy_same", NULL, NULL},
        {"event_elapsed_time.pending.op_implied.busy_same", "cudaErrorNotReady", "RT-EVENT-ELAPSED-NOT-READY"},
        {"event_elapsed_time.disable_timing.op_implied.busy_blocking", "cudaErrorInvalidResourceHandle",
         "RT-EVENT-ELAPSED-NO-TIMING"},
        {"event_elapsed_time.op_implied.busy_same", NULL, NULL},
        {"stream_wait_event.recorded_after.op_nonblocking.busy_blocking", NULL, NULL},
    };
    for (size_t k = 0; k < sizeof rej / sizeof *rej; k++) {
        const struct cts_case *c = cts_case_find(rej[k].id);
        const char *clause = NULL, *error = NULL;
        CHECK(c != NULL);
        if (!c)
            continue;
        if (c->family->rejects)
            error = c->family->rejects(c, &clause);
        CHECK(error == NULL ? rej[k].error == NULL : rej[k].error && !strcmp(error, rej[k].error));
        CHECK(clause == NULL ? rej[k].clause == NULL : rej[k].clause && !strcmp(clause, rej[k].clause));
        CHECK(!rej[k].clause || cts_clause_find(rej[k].clause));
    }
    CHECK(cts_api_takes_stream(CTS_API_CU_MEMSET_D2D16_ASYNC));
    CHECK(!cts_api_takes_stream(CTS_API_MEMSET3D));

    /* Built against an older runtime (CTS_CUDA_RUNTIME), a case whose call
     * is newer is NOTSUPP, saying so; the table is the same either way. */
    {
        char why[256], want[128];
        snprintf(want, sizeof want, "not in runtime %d.%d: ", CUDART_VERSION / 1000,
                 CUDART_VERSION % 1000 / 10);
        for (size_t i = 0; i < n; i++) {
            why[0] = '\0';
            int r = cts_need_runtime(&all[i], why, sizeof why);
            CHECK_INT(r, cts_api_since(all[i].api) > CUDART_VERSION ? -1 : 0);
            CHECK(r == 0 || strncmp(why, want, strlen(want)) == 0);
        }
        const struct cts_case *b = cts_case_find(
            "memcpy_batch_async.stream.h2d.pageable.1MiB.op_null.busy_same");
        CHECK(b != NULL);
        if (b && CUDART_VERSION < 12080) {
            CHECK_INT(cts_need_runtime(b, why, sizeof why), -1);
            snprintf(want + strlen(want), sizeof want - strlen(want),
                     "cudaMemcpyBatchAsync (the form called here) appeared in 12.8");
            CHECK_STR(why, want);
        }
    }

    /* A call that answers that it needs a newer driver (a runtime newer than
     * the driver) is NOTSUPP saying so, from either API's error name; any
     * other error is not. */
    {
        char why[256] = "";
        const struct cts_case *b = cts_case_find(
            "memcpy_batch_async.stream.h2d.pageable.1MiB.op_null.busy_same");
        CHECK(b != NULL);
        if (b) {
            CHECK_INT(cts_needs_newer_driver(b, "cudaErrorNotSupported", why, sizeof why), 0);
            CHECK_INT(cts_needs_newer_driver(b, NULL, why, sizeof why), 0);
            CHECK_STR(why, "");
            CHECK_INT(cts_needs_newer_driver(b, "cudaErrorCallRequiresNewerDriver", why, sizeof why), 1);
            CHECK(strncmp(why, "needs a newer driver: cudaMemcpyBatchAsync returned "
                               "cudaErrorCallRequiresNewerDriver (driver API ", 97) == 0);
            CHECK_INT(cts_needs_newer_driver(b, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", why, sizeof why), 1);
            CHECK(strstr(why, "returned CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER (driver API ") != NULL);
        }
    }

    CHECK_STR(cts_size_token(2), "64KiB-1");
    CHECK_INT(cts_size_bytes(4), 65537);
    CHECK_INT(cts_status_parse("INCONCLUSIVE"), CTS_INCONCLUSIVE);
    CHECK_INT(cts_status_parse("pass"), -1);
    CHECK_DONE();
}
