/* The 1-D memcpy family: cudaMemcpy and cudaMemcpyAsync, explicit kinds and
 * cudaMemcpyDefault, every direction x every memory kind that applies x seven
 * sizes around the documented 64 KiB threshold x every op stream x every busy
 * placement.
 *
 * The memory kind names the buffer under test: the host side of an H2D or
 * D2H copy (the other side is cudaMalloc memory), or both sides of a D2D or
 * H2H copy (two buffers of that kind).
 *
 * At 4 KiB, 1 MiB and 16 MiB the held work is also a host function on the op
 * stream itself (busy_same_hostfn): does a copy behind a host function in its
 * own stream read its source before the host function ran (a public report,
 * cccl #3814, says pageable staging does)?  The source's bytes say.
 *
 * Data order (the id segment "written"): at 1 B, 4 KiB, 1, 2, 2 + 1 byte and
 * 16 MiB (2 MiB: the pageable staging threshold the thresholds search found),
 * and 64 MiB host to device and back from pageable, pinned and managed memory,
 * explicit kinds, the held work in the copy's own stream writes the source as
 * its last act: the whole destination says whether the copy moved those
 * bytes, and a reader queued after it whether later work saw them. */
#include "../harness/core/cts.h"

#include <cuda_runtime_api.h>

static const enum cts_mem host_kinds[] = {
    CTS_MEM_PAGEABLE, CTS_MEM_PINNED,     CTS_MEM_PORTABLE, CTS_MEM_MAPPED,
    CTS_MEM_WC,       CTS_MEM_REGISTERED, CTS_MEM_MANAGED,  CTS_MEM_PINNED_SYNC,
};
static const enum cts_mem device_kinds[] = {CTS_MEM_DEVICE, CTS_MEM_MANAGED, CTS_MEM_DEVICE_SYNC};

/* Memory with SYNC_MEMOPS set (issue 41: a synchronous device-to-device copy
 * reported complete before its bytes landed): does the attribute make the
 * synchronous copy wait (at 4 KiB, 1 and 16 MiB), and the asynchronous one
 * not (4 KiB)?  Explicit kinds; no data order (the plain kinds answer it). */
static int sync_memops_skips(enum cts_api a, enum cts_mem m, int size_idx, enum cts_kind k)
{
    if (m != CTS_MEM_DEVICE_SYNC && m != CTS_MEM_PINNED_SYNC)
        return 0;
    if (a == CTS_API_MEMCPY_ASYNC)
        return k != CTS_KIND_EXPLICIT || size_idx != 1;
    return k != CTS_KIND_EXPLICIT || (size_idx != 1 && size_idx != 5 && size_idx != 6);
}

/* Data order: the held work in the copy's own stream writes its source. */
static size_t written(const struct cts_case *c, struct cts_case *out, size_t cap, size_t n)
{
    return cts_emit_written(c, c->dir == CTS_DIR_D2H ? CTS_MEM_DEVICE : c->mem, out, cap, n);
}

/* Data order, after the rest: each CTest group (api.written.dir) contiguous. */
static size_t generate_written(struct cts_case *out, size_t cap, size_t n)
{
    static const enum cts_api apis[] = {CTS_API_MEMCPY, CTS_API_MEMCPY_ASYNC};
    static const int wsizes[] = {0, 1, 5, CTS_SIZE_2MIB, CTS_SIZE_2MIB_1, 6}; /* 1 B .. 16 MiB, in order */
    for (size_t a = 0; a < sizeof apis / sizeof *apis; a++)
        for (int dir = 0; dir < CTS_DIR_COUNT; dir++) {
            const enum cts_mem *mems = dir == CTS_DIR_D2D ? device_kinds : host_kinds;
            size_t nmem = dir == CTS_DIR_D2D ? sizeof device_kinds / sizeof *device_kinds
                                             : sizeof host_kinds / sizeof *host_kinds;
            for (size_t m = 0; m < nmem; m++) {
                /* and 64 MiB host to device and back, from pageable, pinned and managed memory */
                int big = (dir == CTS_DIR_H2D || dir == CTS_DIR_D2H) &&
                          (mems[m] == CTS_MEM_PAGEABLE || mems[m] == CTS_MEM_PINNED || mems[m] == CTS_MEM_MANAGED);
                if (sync_memops_skips(apis[a], mems[m], -1, CTS_KIND_EXPLICIT))
                    continue;
                for (size_t s = 0; s < sizeof wsizes / sizeof *wsizes + (size_t)big; s++) {
                    int size = s < sizeof wsizes / sizeof *wsizes ? wsizes[s] : CTS_SIZE_64MIB;
                    struct cts_case c = {.family = &cts_family_memcpy, .api = apis[a], .dir = dir,
                                         .mem = mems[m], .size_idx = size, .size = cts_size_bytes(size),
                                         .kind = CTS_KIND_EXPLICIT};
                    n = written(&c, out, cap, n);
                }
            }
        }
    return n;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    static const enum cts_api apis[] = {CTS_API_MEMCPY, CTS_API_MEMCPY_ASYNC};
    for (size_t a = 0; a < sizeof apis / sizeof *apis; a++)
        for (int dir = 0; dir < CTS_DIR_COUNT; dir++) {
            enum cts_api api = apis[a];
            const enum cts_mem *mems = dir == CTS_DIR_D2D ? device_kinds : host_kinds;
            size_t nmem = dir == CTS_DIR_D2D ? sizeof device_kinds / sizeof *device_kinds
                                             : sizeof host_kinds / sizeof *host_kinds;
            for (size_t m = 0; m < nmem; m++)
                for (int s = 0; s < CTS_SIZE_COUNT; s++)
                    for (int k = 0; k < CTS_KIND_COUNT; k++) {
                        if (sync_memops_skips(api, mems[m], s, k))
                            continue;
                        struct cts_case c = {.family = &cts_family_memcpy, .api = api, .dir = dir,
                                             .mem = mems[m], .size_idx = s, .size = cts_size_bytes(s),
                                             .kind = k};
                        n = cts_emit(&c, out, cap, n);
                        if (s == 1) /* 4 KiB: busy work from a second host thread too */
                            n = cts_emit_threads(&c, out, cap, n);
                        if (s == 1 || s >= 5) /* 4 KiB, 1 and 16 MiB: a host function ahead in the stream */
                            n = cts_emit_same_hostfn(&c, out, cap, n);
                    }
        }
    n = generate_written(out, cap, n);
    return out ? (n < cap ? n : cap) : n;
}

static void buffers(const struct cts_case *c, enum cts_mem *src, enum cts_mem *dst)
{
    *src = c->dir == CTS_DIR_D2H ? CTS_MEM_DEVICE : c->mem;
    *dst = c->dir == CTS_DIR_H2D ? CTS_MEM_DEVICE : c->mem;
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    static const enum cudaMemcpyKind explicit_kinds[CTS_DIR_COUNT] = {
        cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
        cudaMemcpyDeviceToDevice, cudaMemcpyHostToHost,
    };
    enum cudaMemcpyKind k = c->kind == CTS_KIND_DEFAULT ? cudaMemcpyDefault : explicit_kinds[c->dir];
    cudaError_t err = c->api == CTS_API_MEMCPY
                          ? cudaMemcpy(call->dst, call->src, c->size, k)
                          : cudaMemcpyAsync(call->dst, call->src, c->size, k, (cudaStream_t)call->stream);
    *error = cudaGetErrorName(err);
    return err != cudaSuccess;
}

/* The cheap copy users time (and the stall family's second thread makes): 4 KiB
 * pinned to device, queued. */
static int cheap(const struct cts_case *c)
{
    return c->api == CTS_API_MEMCPY_ASYNC && c->dir == CTS_DIR_H2D && c->mem == CTS_MEM_PINNED && c->size_idx == 1 &&
           c->kind == CTS_KIND_EXPLICIT && !c->writes;
}

const struct cts_family cts_family_memcpy = {
    .name = "memcpy", .generate = generate, .buffers = buffers, .issue = issue, .cheap = cheap,
};
