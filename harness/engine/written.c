/* Data order (issue 18): a case whose held work writes the call's source as
 * its last act (c->writes); a memset's, its destination, which the memset
 * must then set over.  Before each repetition, with the device idle,
 * the source holds the BEFORE pattern and the destination the CLEAR one
 * (harness/core/pattern.h); the held work writes AFTER (busy_same: the gate, then
 * a kernel; busy_same_hostfn: the host function itself, once released).  A
 * reader queued after the call on its own stream copies the destination
 * (a kernel for device-side memory, a host function for host memory).  After
 * the drain the whole destination says which bytes the copy moved, and the
 * reader's copy whether the work after the call saw them: proven from the
 * bytes, never from a time. */
#define _GNU_SOURCE
#include "dataorder.h"
#include "engine_int.h"
#include "kernels.h"

#include <stdlib.h>
#include <string.h>

/* Memory the harness sets and reads with kernels (so that managed pages
 * stay on the device, where every repetition puts them). */
static int device_side(enum cts_mem m)
{
    return m == CTS_MEM_DEVICE || m == CTS_MEM_DEVICE_SYNC || m == CTS_MEM_MANAGED || m == CTS_MEM_OWN;
}

/* A side of the family's own memory that it copies to and from (an array):
 * no address, an own_copy. */
static int by_copy(const struct rep_state *st, int side)
{
    const struct cts_family *f = st->c->family;
    return (side ? st->dm : st->sm) == CTS_MEM_OWN && (!f->address || !f->address(st->c, side)) && f->own_copy;
}

/* own_copy, its error as a cudaError_t (the family names it in ename). */
static cudaError_t own_copy(const struct rep_state *st, int side, int to_own, void *p, int p_device, int async,
                            cudaStream_t s)
{
    const char *ename = NULL;
    return st->c->family->own_copy(st->c, side, to_own, p, p_device, st->c->size, async, (void *)s, &ename)
               ? cudaErrorUnknown : cudaSuccess;
}

/* Where a side's bytes are: the engine's buffer, or the family's own memory
 * at its device address (a symbol: cts_family.address); NULL where none. */
static void *side_ptr(const struct rep_state *st, int side)
{
    enum cts_mem m = side ? st->dm : st->sm;
    if (m != CTS_MEM_OWN)
        return side ? st->dst : st->src;
    return st->c->family->address ? st->c->family->address(st->c, side) : NULL;
}

int cts_eng_data_ready(struct cts_engine *e, size_t need, char *why)
{
    if (e->data.bytes >= need)
        return 0;
    cts_eng_data_free(e);
    size_t n = need > e->buf_bytes ? CTS_BIG_BYTES : e->buf_bytes;
    unsigned char *p[3] = {malloc(n), malloc(n), malloc(n)};
    if (!p[0] || !p[1] || !p[2]) {
        free(p[0]), free(p[1]), free(p[2]);
        cts_eng_data_free(e);
        cts_eng_setf(why, "harness: cannot allocate the data-order patterns (3 x %zu bytes)", n);
        return -1;
    }
    for (int k = 0; k < 3; k++)
        cts_data_fill(p[k], n, 0, k);
    e->data.before = p[CTS_PATTERN_BEFORE];
    e->data.after = p[CTS_PATTERN_AFTER];
    e->data.clear = p[CTS_PATTERN_CLEAR];
    HCHECK(why, cudaMallocHost((void **)&e->data.read_host, n));
    /* Pinned too: the reader's device-side copy comes back in one DMA, not
     * staged through the driver's buffers as a pageable destination is. */
    HCHECK(why, cudaMallocHost((void **)&e->data.snap_host, n));
    HCHECK(why, cudaMalloc(&e->data.snap_dev, n));
    HCHECK(why, cudaMalloc(&e->data.after_dev, n));
    HCHECK(why, cts_launch_pattern(e->nonblocking[0], e->data.after_dev, n, 0, CTS_PATTERN_AFTER));
    HCHECK(why, cudaStreamSynchronize(e->nonblocking[0]));
    e->data.bytes = n;
    return 0;
fail:
    cts_eng_data_free(e);
    return -1;
}

/* Fills n bytes of memory of kind m with pattern `which`, on the host or
 * by a kernel on the harness's stream (synchronized by the caller). */
static cudaError_t fill(struct cts_engine *e, enum cts_mem m, void *p, size_t n, int which)
{
    if (device_side(m))
        return cts_launch_pattern(e->nonblocking[0], p, n, 0, which);
    const unsigned char *from = which == CTS_PATTERN_BEFORE  ? e->data.before
                                : which == CTS_PATTERN_AFTER ? e->data.after
                                                             : e->data.clear;
    memcpy(p, from, n);
    return cudaSuccess;
}

/* A memset: no source; the held work writes its destination. */
static int is_set(const struct rep_state *st) { return st->sm == CTS_MEM_NONE; }

cudaError_t cts_eng_data_setup(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    size_t n = st->c->size;
    void *src = side_ptr(st, 0), *dst = side_ptr(st, 1);
    int src_copy = !is_set(st) && by_copy(st, 0), dst_copy = by_copy(st, 1);
    if ((!is_set(st) && !src && !src_copy) || (!dst && !dst_copy))
        return cudaErrorInvalidValue; /* the family's own memory has no address: needs() says why */
    cudaError_t err = is_set(st) ? cudaSuccess
                      : src_copy ? own_copy(st, 0, 1, e->data.before, 0, 0, 0)
                                 : fill(e, st->sm, src, n, CTS_PATTERN_BEFORE);
    if (err == cudaSuccess)
        err = dst_copy ? own_copy(st, 1, 1, e->data.clear, 0, 0, 0) : fill(e, st->dm, dst, n, CTS_PATTERN_CLEAR);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(e->nonblocking[0]);
    e->data.write_to = is_set(st) ? dst : src;
    e->data.write_own = src_copy ? st->c : NULL; /* the writer copies AFTER into it (streams.c) */
    e->data.write_bytes = n;
    return err;
}

/* The host-function reader: copies the destination as the stream reached it. */
static void CUDART_CB host_reader(void *arg)
{
    struct cts_engine *e = arg;
    memcpy(e->data.snap_host, e->data.read_from, e->data.read_bytes);
}

cudaError_t cts_eng_data_reader(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    size_t n = st->c->size;
    st->reader = 1;
    if (by_copy(st, 1))
        return own_copy(st, 1, 0, e->data.snap_dev, 1, 1, st->ops);
    if (device_side(st->dm))
        return cts_launch_snapshot(st->ops, e->data.snap_dev, side_ptr(st, 1), n);
    e->data.read_from = st->dst;
    e->data.read_bytes = n;
    return cudaLaunchHostFunc(st->ops, host_reader, e);
}

/* Judges n bytes (value < 0: a copy's; else a memset of value); the fast
 * paths are the two whole outcomes. */
static void judge(const struct cts_engine *e, const unsigned char *p, size_t n, int value,
                  struct cts_data_obs *o)
{
    int all_new = value < 0 ? memcmp(p, e->data.after, n) == 0
                            : p[0] == (unsigned char)value && memcmp(p, p + 1, n - 1) == 0;
    int all_old = !all_new && memcmp(p, value < 0 ? e->data.before : e->data.after, n) == 0;
    if (all_new || all_old) {
        memset(o, 0, sizeof *o);
        o->order = all_new ? CTS_DATA_ORDERED : CTS_DATA_STALE;
        *(all_new ? &o->new_bytes : &o->old_bytes) = n;
    } else if (value < 0) {
        cts_data_judge(p, n, 0, o);
    } else {
        cts_data_judge_set(p, n, (unsigned char)value, 0, o);
    }
}

/* The destination holds bytes no order explains: the repetition FAILs, naming the first. */
static void wrong_bytes(struct rep_state *st, const struct cts_data_obs *o)
{
    struct cts_rep *r = st->r;
    size_t n = st->c->size;
    r->status = CTS_FAIL;
    if (o->foreign_bytes && is_set(st))
        cts_eng_setf(r->reason, "the memset left wrong bytes: %zu of %zu destination bytes are neither its "
                                "value 0x%02x nor the held work's (the first at offset %zu)",
                     o->foreign_bytes, n, st->v, o->first_foreign);
    else if (o->foreign_bytes)
        cts_eng_setf(r->reason, "the copy moved wrong bytes: %zu of %zu destination bytes are neither the "
                                "source's before nor after the held work's write (the first at offset %zu)",
                     o->foreign_bytes, n, o->first_foreign);
    else
        cts_eng_setf(r->reason, "the %s left %zu of %zu destination bytes unwritten (the first at offset %zu)",
                     is_set(st) ? "memset and the held work" : "copy", o->unwritten_bytes, n, o->first_unwritten);
}

int cts_eng_data_judge(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    struct cts_rep *r = st->r;
    size_t n = st->c->size;
    const unsigned char *got = side_ptr(st, 1), *snap = e->data.snap_host;
    e->data.write_to = NULL;
    e->data.write_own = NULL;
    if (by_copy(st, 1)) {
        HCHECK(r->reason, own_copy(st, 1, 0, e->data.read_host, 0, 0, 0));
        got = e->data.read_host;
        if (st->reader)
            HCHECK(r->reason, cudaMemcpy(e->data.snap_host, e->data.snap_dev, n, cudaMemcpyDeviceToHost));
    } else if (device_side(st->dm)) {
        HCHECK(r->reason, cudaMemcpy(e->data.read_host, got, n, cudaMemcpyDeviceToHost));
        got = e->data.read_host;
        if (st->reader)
            HCHECK(r->reason, cudaMemcpy(e->data.snap_host, e->data.snap_dev, n, cudaMemcpyDeviceToHost));
    }
    struct cts_data_obs o;
    judge(e, got, n, is_set(st) ? st->v : -1, &o);
    if (o.foreign_bytes || o.unwritten_bytes) {
        wrong_bytes(st, &o);
        return 0;
    }
    r->data = o.order;
    /* A call that returned while its held work (whose last act is the
     * write) was still held, and moved written bytes, read them after it
     * returned: the source verdict, proven from the bytes.  Stale bytes say
     * only "before the write", not "during the call": no source verdict. */
    if (st->closed && !is_set(st))
        r->src = o.order == CTS_DATA_ORDERED ? CTS_SRC_AFTER_RETURN
                 : o.order == CTS_DATA_PARTIAL ? CTS_SRC_PARTIAL
                                               : CTS_SRC_NA;
    r->data_new_bytes = (long long)o.new_bytes;
    r->data_boundary = o.order == CTS_DATA_PARTIAL ? (long long)o.boundary : -1;
    if (st->reader)
        r->reader = memcmp(snap, got, n) == 0 ? CTS_READER_SAW : CTS_READER_MISSED;
    return REP_NEXT;
fail:
    (void)cudaGetLastError();
    r->status = CTS_BROKEN;
    return 0;
}
