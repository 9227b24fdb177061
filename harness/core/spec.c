/* The judgement of a case against the spec table (spec.h; the table is
 * spec_table.c's, its JSON forms spec_json.c's).
 *
 * Quotes are the documentation's words: the CUDA 13.0 Runtime and Driver API
 * manuals ("API synchronization behavior", "Stream synchronization
 * behavior"), the CUDA C++ Programming Guide, and the reference comments of
 * the CUDA 13.0 headers.  ../shared/reference/cuda-sync-rules.md lists the
 * sources.  Where two documents disagree, both clauses apply and the case
 * names both: a case can conform to one and deviate from the other.
 *
 * How the rules read the documentation:
 * - "Its stream" is what the no-call control says: the op stream is ordered
 *   behind the held work when the control holds the op stream's marker.  A
 *   clause that makes a call wait for earlier work in its stream predicts a
 *   wait only there.
 * - A general statement gives way to an explicit exception in a more
 *   specific one (the Programming Guide's "memory set function calls" are
 *   read with the Runtime API's pinned-memory exception), but two clauses
 *   that simply disagree both apply (the 64 KB rule and the stream sync).
 * - The Programming Guide's implicit-synchronization list is read for
 *   blocking streams only, with the held work issued by this host thread:
 *   the guide is silent on non-blocking streams and other threads. */
#define _GNU_SOURCE
#include "spec.h"
#include "outcome.h"

#include <string.h>

/* ---- what a case is, in the documentation's terms ---------------------------- */

enum form { NONE, SYNC, ASYNC };

/* The copies the documentation's synchronization rules speak of (peer
 * copies are the peer family's to judge): synchronous where the call takes
 * no stream. */
static const enum cts_api copies[] = {
    CTS_API_MEMCPY, CTS_API_MEMCPY2D, CTS_API_MEMCPY3D, CTS_API_MEMCPY_TO_SYMBOL, CTS_API_MEMCPY_FROM_SYMBOL,
    CTS_API_MEMCPY2D_TO_ARRAY, CTS_API_MEMCPY2D_FROM_ARRAY, CTS_API_CU_MEMCPY_HTOD, CTS_API_CU_MEMCPY_DTOH,
    CTS_API_CU_MEMCPY_DTOD, CTS_API_CU_MEMCPY, CTS_API_CU_MEMCPY2D, CTS_API_CU_MEMCPY3D,
    CTS_API_CU_MEMCPY_HTOA, CTS_API_CU_MEMCPY_ATOH, CTS_API_CU_MEMCPY_DTOA, CTS_API_CU_MEMCPY_ATOD,
    CTS_API_CU_MEMCPY_ATOA,
    CTS_API_MEMCPY_ASYNC, CTS_API_MEMCPY2D_ASYNC, CTS_API_MEMCPY3D_ASYNC, CTS_API_MEMCPY_TO_SYMBOL_ASYNC,
    CTS_API_MEMCPY_FROM_SYMBOL_ASYNC, CTS_API_MEMCPY2D_TO_ARRAY_ASYNC, CTS_API_MEMCPY2D_FROM_ARRAY_ASYNC,
    CTS_API_MEMCPY_BATCH_ASYNC, CTS_API_CU_MEMCPY_HTOD_ASYNC, CTS_API_CU_MEMCPY_DTOH_ASYNC,
    CTS_API_CU_MEMCPY_DTOD_ASYNC, CTS_API_CU_MEMCPY_ASYNC, CTS_API_CU_MEMCPY2D_ASYNC, CTS_API_CU_MEMCPY3D_ASYNC,
    CTS_API_CU_MEMCPY_HTOA_ASYNC, CTS_API_CU_MEMCPY_ATOH_ASYNC,
};

static enum form copy_form(enum cts_api a)
{
    for (size_t i = 0; i < sizeof copies / sizeof *copies; i++)
        if (copies[i] == a)
            return cts_api_takes_stream(a) ? ASYNC : SYNC;
    return NONE;
}

static enum form memset_form(enum cts_api a)
{
    if (a >= CTS_API_MEMSET && a <= CTS_API_CU_MEMSET_D2D32_ASYNC)
        return cts_api_takes_stream(a) ? ASYNC : SYNC;
    return NONE;
}

static int driver_api(enum cts_api a)
{
    const char *f = cts_api_function(a);
    return strncmp(f, "cu", 2) == 0 && strncmp(f, "cuda", 4) != 0;
}

static int pageable(enum cts_mem m) { return m == CTS_MEM_PAGEABLE; }
static int pinned(enum cts_mem m)
{
    return m == CTS_MEM_PINNED || m == CTS_MEM_PORTABLE || m == CTS_MEM_MAPPED || m == CTS_MEM_WC ||
           m == CTS_MEM_REGISTERED || m == CTS_MEM_PINNED_SYNC;
}
static int device_memory(enum cts_mem m) { return m == CTS_MEM_DEVICE || m == CTS_MEM_DEVICE_SYNC; }
/* A device-to-device copy of device memory (not managed): cuMemcpyAtoA's two arrays, which have
 * no memory kind, are device memory too. */
static int d2d_of_device(const struct cts_case *c, int sync_memops_too)
{
    return c->dir == CTS_DIR_D2D && ((sync_memops_too ? device_memory(c->mem) : c->mem == CTS_MEM_DEVICE) ||
                                     c->api == CTS_API_CU_MEMCPY_ATOA);
}

/* Does the call queue work in its stream? */
static int enqueues(enum cts_api a)
{
    if (copy_form(a) != NONE || memset_form(a) != NONE)
        return 1;
    switch (a) {
    case CTS_API_LAUNCH: case CTS_API_CU_LAUNCH_KERNEL: case CTS_API_EVENT_RECORD:
    case CTS_API_STREAM_WAIT_EVENT: case CTS_API_LAUNCH_HOST_FUNC: case CTS_API_STREAM_ADD_CALLBACK:
    case CTS_API_GRAPH_LAUNCH: case CTS_API_GRAPH_UPLOAD: case CTS_API_MEM_PREFETCH_TO_DEVICE_ASYNC:
    case CTS_API_MEM_PREFETCH_TO_HOST_ASYNC: case CTS_API_STREAM_ATTACH_MEM_ASYNC:
        return 1;
    default:
        return 0;
    }
}

/* Whether the case's harness set-up records an event on stream 0 or the
 * legacy stream right before the call (the "pending" variants, and the
 * event cudaEventSynchronize waits for) while its control left that out.
 * That record is itself an action on the legacy stream, which makes blocking
 * streams wait: in matrices whose controls were per stream pair (before
 * controls included a case's set-up), what third streams did is then not
 * the call's doing, and no clause is judged on it. */
static int setup_acts_on_legacy(const struct cts_case *c, const struct cts_observed *o)
{
    return !o->control_own &&
           (c->api == CTS_API_EVENT_SYNCHRONIZE || (c->variant && strcmp(c->variant, "pending") == 0));
}

/* Which default stream the op stream is, in the matrix's build. */
static int op_legacy(const struct cts_case *c, int per_thread)
{
    return c->op == CTS_OP_LEGACY || (!per_thread && (c->op == CTS_OP_NULL || c->op == CTS_OP_IMPLIED));
}
static int op_per_thread(const struct cts_case *c, int per_thread)
{
    return c->op == CTS_OP_PERTHREAD || (per_thread && (c->op == CTS_OP_NULL || c->op == CTS_OP_IMPLIED));
}

/* ---- judging ---------------------------------------------------------------- */

/* From the repetitions that showed the behaviour (yes) and those that showed
 * its absence (no): 1, 0, or -1 when none showed either.  Every repetition
 * must keep a guarantee, so a split contradicts either one. */
static int split(int yes, int no, enum cts_pred p)
{
    if (yes + no == 0)
        return -1;
    if (yes && no)
        return p == CTS_PRED_GUARANTEED ? 0 : 1;
    return yes > 0;
}

/* Each repetition's observation of `about` as yes (1), no (0) or neither (-1):
 * the host waited; the source was taken at the call; the destination had
 * landed; the bytes were in order; a later reader saw them. */
static int rep_says(const struct cts_observed *o, enum cts_about a, int i)
{
    switch (a) {
    case CTS_ABOUT_HOST:
        return o->host[i] == CTS_HOST_WAITS ? 1 : o->host[i] == CTS_HOST_RETURNS ? 0 : -1;
    case CTS_ABOUT_SRC_AT_CALL:
        return o->src[i] == CTS_SRC_AT_CALL                                              ? 1
               : o->src[i] == CTS_SRC_AFTER_RETURN || o->src[i] == CTS_SRC_PARTIAL ? 0
                                                                                     : -1;
    case CTS_ABOUT_LANDED:
        return o->landed[i] == CTS_DST_COMPLETE ? 1 : o->landed[i] == CTS_DST_PENDING ? 0 : -1;
    case CTS_ABOUT_DATA_ORDERED:
        return o->data[i] == CTS_DATA_ORDERED                                         ? 1
               : o->data[i] == CTS_DATA_STALE || o->data[i] == CTS_DATA_PARTIAL ? 0
                                                                                  : -1;
    default: /* CTS_ABOUT_LATER_SEES */
        return o->reader[i] == CTS_READER_SAW ? 1 : o->reader[i] == CTS_READER_MISSED ? 0 : -1;
    }
}

/* An observation made once a repetition: the repetitions that show it against
 * those that show its absence (split()). */
static int reps_behave(const struct cts_observed *o, enum cts_about a, enum cts_pred p)
{
    int yes = 0, no = 0;
    for (int i = 0; i < o->nreps; i++) {
        int r = rep_says(o, a, i);
        yes += r == 1;
        no += r == 0;
    }
    return split(yes, no, p);
}

/* Later work held (op_after, a third blocking or non-blocking stream). */
static int order_behaves(const struct cts_observed *o, enum cts_about a, enum cts_pred p)
{
    enum cts_order ord = a == CTS_ABOUT_THIRD_BLOCKING      ? o->verdict.third_blocking
                         : a == CTS_ABOUT_THIRD_NONBLOCKING ? o->verdict.third_nonblocking
                                                            : o->verdict.op_after;
    if (ord == CTS_ORDER_NA)
        return -1;
    if (ord == CTS_ORDER_HELD_ANYWAY)
        return p == CTS_PRED_GUARANTEED ? 1 : -1;
    return ord == CTS_ORDER_HELD;
}

/* The capture family's: the capture ended, the call was captured, or (a
 * refusal, with no effect, leaves it open) accepted and captured. */
static int capture_behaves(const struct cts_observed *o, enum cts_about a)
{
    enum cts_cap_outcome v = o->verdict.capture;
    if (v == CTS_CAP_NA)
        return -1;
    if (a == CTS_ABOUT_CAPTURE_ENDED)
        return v == CTS_CAP_ENDED || v == CTS_CAP_ACCEPTED_ENDED;
    if (a == CTS_ABOUT_ACCEPTED_CAPTURED && (v == CTS_CAP_REFUSED || v == CTS_CAP_ENDED))
        return -1;
    return v == CTS_CAP_GRAPH;
}

/* Whether the observation `about` shows the behaviour (1), its absence (0),
 * or cannot tell (-1).  A waiting call launched no marker while the gate was
 * closed; a hold the control shows too cannot be blamed on the call. */
static int behaves(const struct cts_observed *o, enum cts_about a, enum cts_pred p)
{
    switch (a) {
    case CTS_ABOUT_HOST:
    case CTS_ABOUT_SRC_AT_CALL:
    case CTS_ABOUT_LANDED:
    case CTS_ABOUT_DATA_ORDERED:
    case CTS_ABOUT_LATER_SEES:
        return reps_behave(o, a, p);
    case CTS_ABOUT_THIRD_BLOCKING:
    case CTS_ABOUT_THIRD_NONBLOCKING:
    case CTS_ABOUT_OP_AFTER:
        return order_behaves(o, a, p);
    case CTS_ABOUT_REJECTED:
        return o->rejected;
    case CTS_ABOUT_CONCURRENT:
        return o->verdict.overlap == CTS_OVERLAP_NA ? -1 : o->verdict.overlap != CTS_OVERLAP_SERIALIZES;
    case CTS_ABOUT_CAPTURE_ENDED:
    case CTS_ABOUT_CAPTURED:
    case CTS_ABOUT_ACCEPTED_CAPTURED:
        return capture_behaves(o, a);
    case CTS_ABOUT_OUTCOME: /* the slot's kind says whether its value is what a guarantee promises */
        return o->verdict.kind && o->verdict.kind->holds ? o->verdict.kind->holds(o->verdict.kind_value) : -1;
    default:
        return -1;
    }
}

static void add(struct cts_judge *j, const char *clause, enum cts_about a, enum cts_pred p)
{
    if (j->n >= CTS_JUDGED_MAX)
        return;
    int b = behaves(j->o, a, p);
    int holds = -1;
    if (p == CTS_PRED_GUARANTEED && b >= 0)
        holds = b == 1;
    else if (p == CTS_PRED_GUARANTEED_NOT && b >= 0)
        holds = b == 0;
    j->out[j->n++] = (struct cts_judged){clause, a, p, holds};
}

/* A call that the clause makes wait for earlier work in its stream: a
 * prediction only where there is such work. */
static void waits_for_its_stream(struct cts_judge *j, const char *clause)
{
    if (j->held_in_stream)
        add(j, clause, CTS_ABOUT_HOST, CTS_PRED_GUARANTEED);
}

/* What a family's judge calls (spec.h). */
void cts_judge_add(struct cts_judge *j, const char *clause, enum cts_about a, enum cts_pred p)
{
    add(j, clause, a, p);
}

/* A "stream sync" (or a synchronize) waits for work *pending in* the stream:
 * the held work itself, or, for the legacy stream, the blocking streams it
 * synchronizes with.  That new work would be ordered behind the held work
 * (the control) is not enough: a per-thread or created stream has nothing
 * pending while only the legacy stream holds work. */
static int pending_in_stream(const struct cts_judge *j)
{
    return cts_busy_in_op_stream(j->c->busy) || (op_legacy(j->c, j->o->per_thread) && j->held_in_stream);
}

/* A written case (the held work writes the source): streams execute in
 * order, so the copy moves the held work's bytes and the work after it sees
 * what it moved; a batch copy's source access order says otherwise where it
 * allows an out-of-order read. */
static void data_rules(struct cts_judge *j)
{
    const struct cts_case *c = j->c;
    const char *v = c->variant ? c->variant : "";
    if (c->api != CTS_API_MEMCPY_BATCH_ASYNC)
        add(j, "PG-STREAM-ORDER", CTS_ABOUT_DATA_ORDERED, CTS_PRED_GUARANTEED);
    else if (!strcmp(v, "stream"))
        add(j, "RT-BATCH-STREAM", CTS_ABOUT_DATA_ORDERED, CTS_PRED_GUARANTEED);
    else
        add(j, !strcmp(v, "any") ? "RT-BATCH-ANY" : "RT-BATCH-DURING-CALL", CTS_ABOUT_DATA_ORDERED, CTS_PRED_MAY);
    /* "a stream sync is performed before the copy is initiated": after the held work's write */
    if (c->dir == CTS_DIR_H2D && pageable(c->mem) && copy_form(c->api) == SYNC)
        add(j, driver_api(c->api) ? "DRV-SYNC-MEMCPY-PAGEABLE-H2D" : "RT-SYNC-MEMCPY-PAGEABLE-H2D",
            CTS_ABOUT_DATA_ORDERED, CTS_PRED_GUARANTEED);
    add(j, "PG-STREAM-ORDER", CTS_ABOUT_LATER_SEES, CTS_PRED_GUARANTEED);
}

/* The runtime API's clause rt, or the driver API's dr where drv. */
static const char *by_api(int drv, const char *rt, const char *dr) { return drv ? dr : rt; }

/* A synchronous copy: is its destination complete when it returns?  (drv: the
 * driver API's clauses.) */
static void landing_rules(struct cts_judge *j, int drv)
{
    enum cts_mem m = j->c->mem;
    enum cts_dir d = j->c->dir;
    if ((d == CTS_DIR_D2H && (pageable(m) || pinned(m))) || d == CTS_DIR_H2H)
        add(j, by_api(drv, d == CTS_DIR_H2H ? "RT-SYNC-MEMCPY-H2H" : "RT-SYNC-MEMCPY-D2H",
                  d == CTS_DIR_H2H ? "DRV-SYNC-MEMCPY-H2H" : "DRV-SYNC-MEMCPY-D2H"),
            CTS_ABOUT_LANDED, CTS_PRED_GUARANTEED);
    if (d == CTS_DIR_H2D && pinned(m))
        add(j, by_api(drv, "RT-SYNC-MEMCPY-PINNED-H2D", "DRV-SYNC-MEMCPY-PINNED-H2D"), CTS_ABOUT_LANDED, CTS_PRED_GUARANTEED);
    if (d == CTS_DIR_H2D && pageable(m)) /* "the DMA to final destination may not have completed" */
        add(j, by_api(drv, "RT-SYNC-MEMCPY-PAGEABLE-H2D", "DRV-SYNC-MEMCPY-PAGEABLE-H2D"), CTS_ABOUT_LANDED, CTS_PRED_MAY);
}

/* A synchronous copy or memset of memory with SYNC_MEMOPS set "always synchronizes": it waits for
 * work pending in its stream and has landed when it returns (over the page's words for D2D and memset). */
static void sync_memops_rules(struct cts_judge *j)
{
    if (j->c->mem != CTS_MEM_DEVICE_SYNC && j->c->mem != CTS_MEM_PINNED_SYNC)
        return;
    waits_for_its_stream(j, "DRV-POINTER-SYNC-MEMOPS");
    if (!j->c->writes)
        add(j, "DRV-POINTER-SYNC-MEMOPS", CTS_ABOUT_LANDED, CTS_PRED_GUARANTEED);
}

/* A synchronous copy's rules (the runtime's or the driver API's page, and the
 * programming guide's concurrency list), and where its bytes landed. */
static void sync_copy_rules(struct cts_judge *j, int drv)
{
    const struct cts_case *c = j->c;
    enum cts_mem m = c->mem;
    enum cts_dir d = c->dir;
    if (!c->writes)
        landing_rules(j, drv);
    sync_memops_rules(j);
    if (d == CTS_DIR_H2D && pageable(m) && pending_in_stream(j))
        add(j, by_api(drv, "RT-SYNC-MEMCPY-PAGEABLE-H2D", "DRV-SYNC-MEMCPY-PAGEABLE-H2D"), CTS_ABOUT_HOST,
            CTS_PRED_GUARANTEED);
    if (d == CTS_DIR_H2D && pinned(m))
        waits_for_its_stream(j, by_api(drv, "RT-SYNC-MEMCPY-PINNED-H2D", "DRV-SYNC-MEMCPY-PINNED-H2D"));
    if (d == CTS_DIR_D2H && (pageable(m) || pinned(m)))
        waits_for_its_stream(j, by_api(drv, "RT-SYNC-MEMCPY-D2H", "DRV-SYNC-MEMCPY-D2H"));
    if (d2d_of_device(c, 0))
        add(j, by_api(drv, "RT-SYNC-MEMCPY-D2D", "DRV-SYNC-MEMCPY-D2D"), CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
    if (d == CTS_DIR_H2H)
        waits_for_its_stream(j, by_api(drv, "RT-SYNC-MEMCPY-H2H", "DRV-SYNC-MEMCPY-H2H"));
    if (!drv && d == CTS_DIR_H2D && c->size <= 65536)
        add(j, "PG-CONC-64KB", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
    if (!drv && d == CTS_DIR_D2D && m == CTS_MEM_DEVICE)
        add(j, "PG-CONC-D2D", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
}

/* cudaMemcpyBatchAsync's source-access orders (its variants); 1 where the
 * order alone speaks of the call (during the call: it may need to wait). */
static int batch_rules(struct cts_judge *j)
{
    const struct cts_case *c = j->c;
    const char *v = c->variant;
    if (c->api != CTS_API_MEMCPY_BATCH_ASYNC || !v)
        return 0;
    if (strcmp(v, "during_call") == 0) {
        add(j, "RT-BATCH-DURING-CALL", CTS_ABOUT_SRC_AT_CALL, CTS_PRED_GUARANTEED);
        return 1; /* reading the source during the call may need the call to wait */
    }
    if (strcmp(v, "stream") == 0 && j->held_in_stream && (c->dir == CTS_DIR_H2D || c->dir == CTS_DIR_D2D))
        add(j, "RT-BATCH-STREAM", CTS_ABOUT_SRC_AT_CALL, CTS_PRED_GUARANTEED_NOT);
    if (strcmp(v, "any") == 0)
        add(j, "RT-BATCH-ANY", CTS_ABOUT_SRC_AT_CALL, CTS_PRED_MAY);
    return 0;
}

static void copy_rules(struct cts_judge *j, enum form f)
{
    const struct cts_case *c = j->c;
    int drv = driver_api(c->api);
    enum cts_mem m = c->mem;
    enum cts_dir d = c->dir;
    if (m == CTS_MEM_MANAGED) {
        add(j, "RT-SYNC-MANAGED", CTS_ABOUT_HOST, CTS_PRED_UNDOCUMENTED);
        return;
    }
    if (f == SYNC) {
        sync_copy_rules(j, drv);
        return;
    }
    /* asynchronous forms */
    if (batch_rules(j))
        return;
    if ((d == CTS_DIR_H2D || d == CTS_DIR_D2H) && pageable(m)) {
        add(j, by_api(drv, "RT-SYNC-MEMCPYASYNC-PAGEABLE", "DRV-SYNC-MEMCPYASYNC-PAGEABLE"), CTS_ABOUT_HOST,
            CTS_PRED_MAY);
        if (!drv && j->held_in_stream)
            add(j, "PG-CONC-ASYNC-PAGEABLE", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED);
        return;
    }
    if (d == CTS_DIR_H2H) {
        waits_for_its_stream(j, by_api(drv, "RT-SYNC-MEMCPYASYNC-H2H", "DRV-SYNC-MEMCPYASYNC-H2H"));
        return;
    }
    add(j, by_api(drv, "RT-SYNC-MEMCPYASYNC-OTHER", "DRV-SYNC-MEMCPYASYNC-OTHER"), CTS_ABOUT_HOST,
        CTS_PRED_GUARANTEED_NOT);
    if (!drv)
        add(j, "PG-CONC-ASYNC", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
}

static void memset_rules(struct cts_judge *j, enum form f)
{
    const struct cts_case *c = j->c;
    int drv = driver_api(c->api);
    enum cts_mem m = c->mem;
    if (f == ASYNC) {
        add(j, drv ? "DRV-SYNC-MEMSET-ASYNC" : "RT-SYNC-MEMSET-ASYNC", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        if (!drv)
            add(j, "PG-CONC-MEMSET", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        return;
    }
    const char *sync = drv ? "DRV-SYNC-MEMSET" : "RT-SYNC-MEMSET";
    sync_memops_rules(j);
    if (m == CTS_MEM_DEVICE) {
        add(j, sync, CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        if (!drv)
            add(j, "PG-CONC-MEMSET", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        if (!c->writes) /* asynchronous with respect to the host: it may return before it lands */
            add(j, sync, CTS_ABOUT_LANDED, CTS_PRED_MAY);
    } else if (pinned(m) || (drv && m == CTS_MEM_MANAGED)) {
        waits_for_its_stream(j, sync);
        if (!c->writes) /* "fully synchronous": set when it returns */
            add(j, sync, CTS_ABOUT_LANDED, CTS_PRED_GUARANTEED);
    } else if (m == CTS_MEM_MANAGED) {
        add(j, "RT-SYNC-MANAGED", CTS_ABOUT_HOST, CTS_PRED_UNDOCUMENTED);
    }
}

/* PG-IMPLICIT: the operations it lists, in their synchronous forms. */
static int implicit_sync_op(const struct cts_case *c)
{
    switch (c->api) {
    case CTS_API_MALLOC_HOST: case CTS_API_HOST_ALLOC:            /* page-locked allocation */
    case CTS_API_MALLOC: case CTS_API_MALLOC_PITCH: case CTS_API_MALLOC_3D:
    case CTS_API_MALLOC_ARRAY:                                     /* device allocation */
        return 1;
    case CTS_API_LAUNCH:                                           /* a cache-config switch */
        return c->variant && strcmp(c->variant, "after_cache_config") == 0;
    default:
        break;
    }
    if (memset_form(c->api) == SYNC && device_memory(c->mem)) /* device memory set */
        return 1;
    /* a copy between two addresses of the same device memory */
    return copy_form(c->api) == SYNC && d2d_of_device(c, 1);
}

static void stream_rules(struct cts_judge *j)
{
    const struct cts_case *c = j->c;
    int per_thread = j->o->per_thread;
    if (!enqueues(c->api) || setup_acts_on_legacy(c, j->o))
        return;
    if (op_legacy(c, per_thread)) {
        if (j->held_in_stream)
            add(j, "RT-STREAM-LEGACY", CTS_ABOUT_THIRD_BLOCKING, CTS_PRED_GUARANTEED);
        add(j, "RT-STREAM-LEGACY", CTS_ABOUT_THIRD_NONBLOCKING, CTS_PRED_GUARANTEED_NOT);
    } else if (op_per_thread(c, per_thread)) {
        add(j, "RT-STREAM-PER-THREAD", CTS_ABOUT_THIRD_BLOCKING, CTS_PRED_GUARANTEED_NOT);
        add(j, "RT-STREAM-PER-THREAD", CTS_ABOUT_THIRD_NONBLOCKING, CTS_PRED_GUARANTEED_NOT);
    }
}

/* The rules of one call, by its API: launches, allocation and frees, the
 * synchronizing calls, host functions. */
static void api_rules(struct cts_judge *j)
{
    const struct cts_case *c = j->c;
    switch (c->api) {
    case CTS_API_LAUNCH:
        add(j, "RT-SYNC-LAUNCH", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        add(j, "PG-CONC-LAUNCH", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        if (c->variant && strcmp(c->variant, "after_cache_config") == 0)
            add(j, "RT-CACHE-CONFIG", CTS_ABOUT_THIRD_NONBLOCKING, CTS_PRED_MAY);
        break;
    case CTS_API_MALLOC: case CTS_API_FREE:
        add(j, "PG-SOMA", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED);
        if (c->api == CTS_API_FREE)
            add(j, "RT-FREE-OTHER", CTS_ABOUT_HOST, CTS_PRED_MAY);
        break;
    case CTS_API_FREE_POOL_PTR:
        add(j, "RT-FREE-POOL", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED_NOT);
        break;
    case CTS_API_STREAM_SYNCHRONIZE:
        /* A synchronize queues nothing: it waits for work already in its
         * stream (the held work itself), and the legacy stream's for the
         * blocking streams' work it synchronizes with. */
        if (cts_busy_in_op_stream(c->busy))
            add(j, "RT-STREAM-SYNCHRONIZE", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED);
        else if (op_legacy(c, j->o->per_thread) && j->held_in_stream)
            add(j, "RT-STREAM-LEGACY", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_EVENT_SYNCHRONIZE:
        waits_for_its_stream(j, "RT-EVENT-SYNCHRONIZE"); /* the event is recorded on stream 0 */
        break;
    case CTS_API_DEVICE_SYNCHRONIZE:
        add(j, "RT-DEVICE-SYNCHRONIZE", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED);
        break;
    case CTS_API_LAUNCH_HOST_FUNC: case CTS_API_STREAM_ADD_CALLBACK:
        if (c->busy == CTS_BUSY_HOSTFN)
            add(j, "RT-HOSTFUNC", CTS_ABOUT_HOST, CTS_PRED_MAY);
        break;
    default:
        break;
    }
}

/* PG-IMPLICIT: blocking streams only, held work issued by this thread. */
static int implicit_applies(const struct cts_case *c)
{
    return implicit_sync_op(c) && !cts_busy_from_thread(c->busy) && c->busy != CTS_BUSY_NONBLOCKING &&
           c->busy != CTS_BUSY_HOSTFN && !(cts_busy_in_op_stream(c->busy) && c->op == CTS_OP_NONBLOCKING);
}

static void call_rules(struct cts_judge *j)
{
    const struct cts_case *c = j->c;
    enum form f;
    const char *clause = NULL;
    if (c->family->rejects && c->family->rejects(c, &clause)) {
        add(j, clause, CTS_ABOUT_REJECTED, CTS_PRED_GUARANTEED); /* nothing else applies */
        return;
    }
    if ((f = copy_form(c->api)) != NONE)
        copy_rules(j, f);
    else if ((f = memset_form(c->api)) != NONE)
        memset_rules(j, f);
    api_rules(j);
    if (c->writes)
        data_rules(j);
    if (c->family->judge)
        c->family->judge(j);
    if (c->variant && strncmp(c->variant, "pool_release_", 13) == 0)
        add(j, "RT-POOL-RELEASE", CTS_ABOUT_HOST, CTS_PRED_MAY);
    if (implicit_applies(c))
        add(j, "PG-IMPLICIT", CTS_ABOUT_THIRD_BLOCKING, CTS_PRED_GUARANTEED);
    stream_rules(j);
}

enum cts_conformance cts_spec_judge(const struct cts_case *c, const struct cts_observed *o,
                                    struct cts_judged *out, size_t *n)
{
    struct cts_judge j = {c, o, out, 0, o->control.op_after == CTS_ORDER_HELD};
    *n = 0;
    if (o->status != CTS_PASS && o->status != CTS_VARIES)
        return CTS_CONF_NONE;
    if (c->family->judges_alone) /* its judge names every clause (cts_family.judges_alone) */
        c->family->judge(&j);
    else
        call_rules(&j);
    int host = 0;
    for (size_t i = 0; i < j.n; i++)
        host |= out[i].about == CTS_ABOUT_HOST;
    if (!host && !c->family->measure) /* a case its family measures (overlap) observes no host wait */
        add(&j, "RT-SYNC-ANY", CTS_ABOUT_HOST, CTS_PRED_MAY);
    *n = j.n;
    int held = 0, broken = 0;
    for (size_t i = 0; i < j.n; i++) {
        held += out[i].holds == 1;
        broken += out[i].holds == 0;
    }
    return broken ? CTS_DEVIATES : held ? CTS_CONFORMS : CTS_RECORDED;
}
