/* The spec table and the judgement: which clauses speak of a case, what they
 * predict, and CONFORMS / DEVIATES / RECORDED from what was observed. */
#include "check.h"
#include "cts.h"
#include "spec.h"

#include <stdlib.h>

static struct cts_observed seen(enum cts_status st, enum cts_host host, enum cts_order third_b,
                                enum cts_order control_op)
{
    struct cts_observed o;
    memset(&o, 0, sizeof o);
    o.status = st;
    o.nreps = 3;
    o.verdict.host = host;
    if (host == CTS_HOST_RETURNS) {
        o.verdict.op_after = CTS_ORDER_HELD;
        o.verdict.third_blocking = third_b;
        o.verdict.third_nonblocking = CTS_ORDER_RUNS;
    }
    for (int i = 0; i < 3; i++)
        o.host[i] = host;
    o.control.op_after = control_op;
    return o;
}

/* The judged entry for (clause, about), or NULL. */
static const struct cts_judged *find(const struct cts_judged *j, size_t n, const char *clause,
                                     enum cts_about a)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(j[i].clause, clause) && j[i].about == a)
            return &j[i];
    return NULL;
}

static enum cts_conformance judge(const char *id, const struct cts_observed *o, struct cts_judged *j,
                                  size_t *n)
{
    const struct cts_case *c = cts_case_find(id);
    if (!c) {
        fprintf(stderr, "no case %s\n", id);
        exit(1);
    }
    return cts_spec_judge(c, o, j, n);
}

int main(void)
{
    struct cts_judged j[CTS_JUDGED_MAX];
    const struct cts_judged *k;
    size_t n;
    struct cts_observed o;

    /* A 4 KiB pageable cudaMemcpy that waits for work in its stream keeps
     * the Runtime API's stream sync and contradicts the Programming Guide's
     * 64 KB rule: both are named, and the case DEVIATES. */
    o = seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_HELD);
    CHECK_INT(judge("memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_same", &o, j, &n), CTS_DEVIATES);
    CHECK((k = find(j, n, "RT-SYNC-MEMCPY-PAGEABLE-H2D", CTS_ABOUT_HOST)) && k->holds == 1 &&
          k->pred == CTS_PRED_GUARANTEED);
    CHECK((k = find(j, n, "PG-CONC-64KB", CTS_ABOUT_HOST)) && k->holds == 0 &&
          k->pred == CTS_PRED_GUARANTEED_NOT);
    /* At 1 MiB the 64 KB rule does not speak: it CONFORMS. */
    CHECK_INT(judge("memcpy.h2d.pageable.1MiB.explicit.op_implied.busy_same", &o, j, &n), CTS_CONFORMS);
    CHECK(find(j, n, "PG-CONC-64KB", CTS_ABOUT_HOST) == NULL);
    /* Where the held work is not in its stream (the control ran), the stream
     * sync predicts nothing, and the 64 KB rule holds when it returns. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
    CHECK_INT(judge("memcpy.h2d.pageable.4KiB.explicit.op_implied.busy_nonblocking", &o, j, &n), CTS_CONFORMS);
    CHECK(find(j, n, "RT-SYNC-MEMCPY-PAGEABLE-H2D", CTS_ABOUT_HOST) == NULL);
    CHECK((k = find(j, n, "RT-STREAM-LEGACY", CTS_ABOUT_THIRD_NONBLOCKING)) && k->holds == 1);

    /* The Async memsets are always asynchronous: returning conforms,
     * waiting deviates, and one waiting repetition out of three (VARIES)
     * deviates too. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_HELD);
    CHECK_INT(judge("memset_async.device.4KiB.op_blocking.busy_same", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "RT-SYNC-MEMSET-ASYNC", CTS_ABOUT_HOST)) && k->holds == 1);
    o = seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_HELD);
    CHECK_INT(judge("memset_async.device.4KiB.op_blocking.busy_same", &o, j, &n), CTS_DEVIATES);
    o = seen(CTS_VARIES, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_HELD);
    o.host[1] = CTS_HOST_WAITS;
    o.verdict.host = CTS_HOST_NA;
    CHECK_INT(judge("memset_async.device.4KiB.op_blocking.busy_same", &o, j, &n), CTS_DEVIATES);
    /* The driver API's memset rule names Unified Memory, the runtime's does not. */
    o = seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_HELD);
    CHECK_INT(judge("cu_memset_d8.managed.4KiB.op_implied.busy_same", &o, j, &n), CTS_CONFORMS);
    CHECK_INT(judge("memset.managed.4KiB.op_implied.busy_same", &o, j, &n), CTS_RECORDED);
    CHECK((k = find(j, n, "RT-SYNC-MANAGED", CTS_ABOUT_HOST)) && k->pred == CTS_PRED_UNDOCUMENTED &&
          k->holds == -1);

    /* cudaMalloc returning without serializing contradicts the guide twice. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
    CHECK_INT(judge("malloc.device.4KiB.op_implied.busy_blocking", &o, j, &n), CTS_DEVIATES);
    CHECK((k = find(j, n, "PG-SOMA", CTS_ABOUT_HOST)) && k->holds == 0);
    CHECK((k = find(j, n, "PG-IMPLICIT", CTS_ABOUT_THIRD_BLOCKING)) && k->holds == 0);
    /* The guide is silent on non-blocking streams and other threads. */
    CHECK_INT(judge("malloc.device.4KiB.op_implied.busy_nonblocking", &o, j, &n), CTS_DEVIATES);
    CHECK(find(j, n, "PG-IMPLICIT", CTS_ABOUT_THIRD_BLOCKING) == NULL);
    CHECK_INT(judge("malloc.device.4KiB.op_implied.busy_thread_legacy", &o, j, &n), CTS_DEVIATES);
    CHECK(find(j, n, "PG-IMPLICIT", CTS_ABOUT_THIRD_BLOCKING) == NULL);

    /* A hold the control shows too cannot be blamed on the call: a
     * "guaranteed not" on it is not judged; a "guaranteed" one holds. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_HELD_ANYWAY, CTS_ORDER_HELD);
    o.verdict.third_nonblocking = CTS_ORDER_HELD_ANYWAY;
    CHECK_INT(judge("launch.op_legacy.busy_blocking", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "RT-STREAM-LEGACY", CTS_ABOUT_THIRD_BLOCKING)) && k->holds == 1);
    CHECK((k = find(j, n, "RT-STREAM-LEGACY", CTS_ABOUT_THIRD_NONBLOCKING)) && k->holds == -1);

    /* Stream 0 is the legacy stream in one build and the per-thread stream
     * in the other: the clause follows the matrix's build. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
    CHECK_INT(judge("launch.op_null.busy_nonblocking", &o, j, &n), CTS_CONFORMS);
    CHECK(find(j, n, "RT-STREAM-LEGACY", CTS_ABOUT_THIRD_NONBLOCKING) != NULL);
    o.per_thread = 1;
    CHECK_INT(judge("launch.op_null.busy_nonblocking", &o, j, &n), CTS_CONFORMS);
    CHECK(find(j, n, "RT-STREAM-LEGACY", CTS_ABOUT_THIRD_NONBLOCKING) == NULL);
    CHECK((k = find(j, n, "RT-STREAM-PER-THREAD", CTS_ABOUT_THIRD_BLOCKING)) && k->holds == 1);

    /* "A stream sync is performed" waits for work pending in the stream: on
     * the per-thread stream 0 nothing is pending while only the legacy stream
     * holds work, even though new work would be ordered behind it. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_HELD, CTS_ORDER_HELD);
    o.per_thread = 1;
    {
        /* the per-thread build declares this case; this (legacy) build does not */
        struct cts_case pt = *cts_case_find("memcpy.h2d.pageable.1MiB.explicit.op_implied.busy_blocking");
        pt.busy = CTS_BUSY_LEGACY;
        cts_spec_judge(&pt, &o, j, &n);
        CHECK(find(j, n, "RT-SYNC-MEMCPY-PAGEABLE-H2D", CTS_ABOUT_HOST) == NULL);
    }
    o.per_thread = 0;
    o = seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_HELD);
    CHECK_INT(judge("memcpy.h2d.pageable.1MiB.explicit.op_implied.busy_blocking", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "RT-SYNC-MEMCPY-PAGEABLE-H2D", CTS_ABOUT_HOST)) && k->holds == 1);

    /* A synchronize waits for its stream's own work only. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_HELD, CTS_ORDER_HELD);
    CHECK_INT(judge("stream_synchronize.op_blocking.busy_legacy", &o, j, &n), CTS_RECORDED);
    o = seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_HELD);
    CHECK_INT(judge("stream_synchronize.op_blocking.busy_same", &o, j, &n), CTS_CONFORMS);
    CHECK_INT(judge("stream_synchronize.op_legacy.busy_blocking", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "RT-STREAM-LEGACY", CTS_ABOUT_HOST)) && k->holds == 1);

    /* DuringApiCall: a source read after the return contradicts it. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_HELD);
    for (int i = 0; i < 3; i++)
        o.src[i] = CTS_SRC_AFTER_RETURN;
    CHECK_INT(judge("memcpy_batch_async.during_call.h2d.pageable.1MiB.op_blocking.busy_same", &o, j, &n),
              CTS_DEVIATES);
    CHECK((k = find(j, n, "RT-BATCH-DURING-CALL", CTS_ABOUT_SRC_AT_CALL)) && k->holds == 0);
    for (int i = 0; i < 3; i++)
        o.src[i] = CTS_SRC_AT_CALL;
    CHECK_INT(judge("memcpy_batch_async.during_call.h2d.pageable.1MiB.op_blocking.busy_same", &o, j, &n),
              CTS_CONFORMS);

    /* A harness set-up that acts on the legacy stream right before the call
     * makes third-stream observations not the call's: nothing is judged on
     * them. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_HELD, CTS_ORDER_RUNS);
    CHECK_INT(judge("stream_wait_event.pending.op_perthread.busy_blocking", &o, j, &n), CTS_RECORDED);
    CHECK(find(j, n, "RT-STREAM-PER-THREAD", CTS_ABOUT_THIRD_BLOCKING) == NULL);
    /* A control measured with the case's own set-up takes that record's
     * effect out: the columns are judged again.  A hold the control shows
     * too is the set-up's (nothing to blame on the call); one it does not
     * show is the call's, and contradicts the per-thread stream's rule. */
    o.control_own = 1;
    o.control.third_blocking = CTS_ORDER_HELD;
    o.verdict.third_blocking = CTS_ORDER_HELD_ANYWAY;
    CHECK_INT(judge("stream_wait_event.pending.op_perthread.busy_blocking", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "RT-STREAM-PER-THREAD", CTS_ABOUT_THIRD_BLOCKING)) && k->holds == -1);
    o.control.third_blocking = CTS_ORDER_RUNS;
    o.verdict.third_blocking = CTS_ORDER_HELD;
    CHECK_INT(judge("stream_wait_event.pending.op_perthread.busy_blocking", &o, j, &n), CTS_DEVIATES);
    CHECK((k = find(j, n, "RT-STREAM-PER-THREAD", CTS_ABOUT_THIRD_BLOCKING)) && k->holds == 0);

    /* No verdict, no judgement; nothing documented: "may". */
    o = seen(CTS_FAIL, CTS_HOST_NA, CTS_ORDER_NA, CTS_ORDER_RUNS);
    CHECK_INT(judge("malloc.device.4KiB.op_implied.busy_blocking", &o, j, &n), CTS_CONF_NONE);
    CHECK_INT((int)n, 0);
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
    CHECK_INT(judge("event_create.op_implied.busy_blocking", &o, j, &n), CTS_RECORDED);
    CHECK((k = find(j, n, "RT-SYNC-ANY", CTS_ABOUT_HOST)) && k->pred == CTS_PRED_MAY);

    /* The table: unique ids; every clause a case cites exists; every clause
     * is cited by some case under some observation, or says why none can.
     * And every call is as apis.def declares it: named by a clause of its
     * own in some case (documented 1), or by none but RT-SYNC-ANY
     * (documented 0), so that a call added without a clause is an error
     * here, not a silent RECORDED. */
    size_t nclauses = cts_clause_total();
    for (size_t a = 0; a < nclauses; a++)
        for (size_t b = a + 1; b < nclauses; b++)
            CHECK(strcmp(cts_clause_at(a)->id, cts_clause_at(b)->id) != 0);
    CHECK(cts_clause_at(nclauses) == NULL);
    int *cited = calloc(nclauses, sizeof *cited);
    int named[CTS_API_COUNT] = {0};
    size_t total;
    const struct cts_case *all = cts_all_cases(&total);
    struct cts_observed variants[4] = {
        seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS),
        seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_HELD),
        seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_HELD),
        seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_HELD, CTS_ORDER_HELD),
    };
    int missing = 0;
    for (size_t i = 0; i < total; i++)
        for (int v = 0; v < 4; v++) {
            cts_spec_judge(&all[i], &variants[v], j, &n);
            for (size_t x = 0; x < n; x++) {
                size_t at = cts_clause_index(j[x].clause);
                if (at == nclauses) {
                    missing++;
                    continue;
                }
                cited[at]++;
                named[all[i].api] |= strcmp(j[x].clause, "RT-SYNC-ANY") != 0;
            }
        }
    CHECK_INT(missing, 0);
    for (size_t a = 0; a < nclauses; a++)
        if (!cited[a] && !cts_clause_at(a)->no_case) {
            fprintf(stderr, "clause %s: no case cites it and it says no why\n", cts_clause_at(a)->id);
            CHECK(0);
        }
    free(cited);
    for (int a = 0; a < CTS_API_COUNT; a++)
        if (a != CTS_API_FAULT && named[a] != cts_api_documented((enum cts_api)a)) {
            fprintf(stderr, "%s: apis.def says documented %d, but %s\n", cts_api_token((enum cts_api)a),
                    cts_api_documented((enum cts_api)a),
                    named[a] ? "a clause of its own names it" : "no clause but RT-SYNC-ANY names it");
            CHECK(0);
        }

    /* A family's own clauses are in the table after spec.c's (managed's
     * RT-ATTACH-NULL-STREAM), and its judge names clauses (trigger's
     * cuLaunchKernel: RT-SYNC-LAUNCH). */
    CHECK(cts_clause_find("RT-ATTACH-NULL-STREAM") != NULL);
    CHECK(cts_clause_index("RT-ATTACH-NULL-STREAM") > cts_clause_index("RT-CAPTURE-LEGACY"));
    CHECK(cts_clause_index("RT-MEMCPY-PEER") > cts_clause_index("RT-ATTACH-NULL-STREAM")); /* the peer family's, last */
    CHECK(cts_clause_find("NO-SUCH-CLAUSE") == NULL);
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
    CHECK_INT(judge("cu_launch_kernel.first.op_blocking.busy_blocking", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "RT-SYNC-LAUNCH", CTS_ABOUT_HOST)) && k->pred == CTS_PRED_GUARANTEED_NOT &&
          k->holds == 1);
    o = seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_RUNS);
    CHECK_INT(judge("cu_launch_kernel.first.op_blocking.busy_blocking", &o, j, &n), CTS_DEVIATES);

    /* The driver API's 1-D array copies are its memcpys: an array is device memory.  A pinned
     * cuMemcpyHtoA that waits for the work in its stream keeps the pinned rule; cuMemcpyAtoA
     * (two arrays, no memory kind) returning beside held work keeps the device-to-device one,
     * waiting contradicts it; the Async forms keep the asynchronous rules. */
    o = seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_HELD);
    CHECK_INT(judge("cu_memcpy_htoa.h2d.pinned.1MiB.op_implied.busy_same", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "DRV-SYNC-MEMCPY-PINNED-H2D", CTS_ABOUT_HOST)) && k->holds == 1);
    CHECK((k = find(j, n, "DRV-SYNC-MEMCPY-D2H", CTS_ABOUT_HOST)) == NULL);
    CHECK_INT(judge("cu_memcpy_atoh.d2h.pageable.1MiB.op_implied.busy_same", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "DRV-SYNC-MEMCPY-D2H", CTS_ABOUT_HOST)) && k->holds == 1);
    CHECK_INT(judge("cu_memcpy_atoa.d2d.1MiB.op_implied.busy_nonblocking", &o, j, &n), CTS_DEVIATES);
    CHECK((k = find(j, n, "DRV-SYNC-MEMCPY-D2D", CTS_ABOUT_HOST)) && k->holds == 0);
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
    CHECK_INT(judge("cu_memcpy_atoa.d2d.1MiB.op_implied.busy_nonblocking", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "DRV-SYNC-MEMCPY-D2D", CTS_ABOUT_HOST)) && k->holds == 1);
    CHECK(find(j, n, "PG-IMPLICIT", CTS_ABOUT_THIRD_BLOCKING) == NULL);
    CHECK_INT(judge("cu_memcpy_dtoa.d2d.device.1MiB.op_implied.busy_blocking", &o, j, &n), CTS_DEVIATES);
    CHECK((k = find(j, n, "PG-IMPLICIT", CTS_ABOUT_THIRD_BLOCKING)) && k->holds == 0);
    CHECK_INT(judge("cu_memcpy_htoa_async.h2d.pinned.1MiB.op_blocking.busy_same", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "DRV-SYNC-MEMCPYASYNC-OTHER", CTS_ABOUT_HOST)) && k->holds == 1);
    CHECK_INT(judge("cu_memcpy_atoh_async.d2h.pageable.1MiB.op_blocking.busy_same", &o, j, &n), CTS_RECORDED);
    CHECK((k = find(j, n, "DRV-SYNC-MEMCPYASYNC-PAGEABLE", CTS_ABOUT_HOST)) && k->pred == CTS_PRED_MAY);

    /* As a matrix records it. */
    json_t *cj = json_pack("{s:s,s:{s:s,s:s,s:s,s:s},s:{s:[s,s,s],s:{s:s}}}", "status", "PASS",
                           "verdict", "host", "returns", "op_after", "held", "third_blocking", "runs",
                           "third_nonblocking", "runs", "evidence", "host", "returns", "returns",
                           "returns", "control", "op_after", "held");
    json_t *sj = cts_spec_case_json(cts_case_find("memset_async.device.4KiB.op_blocking.busy_same"), cj, 0);
    CHECK_STR(json_string_value(json_object_get(sj, "conformance")), "CONFORMS");
    const json_t *first = json_array_get(json_object_get(sj, "clauses"), 0);
    CHECK_STR(json_string_value(json_object_get(first, "id")), "RT-SYNC-MEMSET-ASYNC");
    CHECK_STR(json_string_value(json_object_get(first, "prediction")), "guaranteed_not");
    CHECK(json_is_true(json_object_get(first, "holds")));
    json_decref(sj);
    json_decref(cj);
    /* A kind in the verdict's kind slot, read from the matrix and judged by its descriptor's holds():
     * event timing's elapsed time covering the kernel conforms, falling short deviates. */
    const char *const et = "event_timing.in_order.with_hold_1ms.op_implied.busy_same";
    const char *const values[][2] = {{"covers", "CONFORMS"}, {"short", "DEVIATES"}};
    for (int i = 0; i < 2; i++) {
        cj = json_pack("{s:s,s:{s:s}}", "status", "PASS", "verdict", "elapsed", values[i][0]);
        sj = cts_spec_case_json(cts_case_find(et), cj, 0);
        CHECK_STR(json_string_value(json_object_get(sj, "conformance")), values[i][1]);
        first = json_array_get(json_object_get(sj, "clauses"), 0);
        CHECK_STR(json_string_value(json_object_get(first, "about")), "outcome");
        json_decref(sj);
        json_decref(cj);
    }
    json_t *table = cts_spec_table_json();
    CHECK(json_object_get(json_object_get(json_object_get(table, "clauses"), "PG-CONC-64KB"), "url") != NULL);
    CHECK(json_object_get(json_object_get(json_object_get(table, "clauses"), "RT-ATTACH-NULL-STREAM"), "url"));
    CHECK_INT((int)json_object_size(json_object_get(table, "clauses")), (int)nclauses);
    json_decref(table);
    /* A documented rejection: the case is judged on the rejection alone,
     * CONFORMS when the call was rejected, DEVIATES when it was accepted. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
    o.rejected = 1;
    CHECK_INT(judge("memcpy_batch_async.stream.h2d.pinned.4KiB.op_null.busy_nonblocking", &o, j, &n),
              CTS_CONFORMS);
    k = find(j, n, "RT-BATCH-NULL-STREAM", CTS_ABOUT_REJECTED);
    CHECK(k && k->pred == CTS_PRED_GUARANTEED && k->holds == 1);
    CHECK(!find(j, n, "RT-BATCH-STREAM", CTS_ABOUT_SRC_AT_CALL));
    o.rejected = 0;
    CHECK_INT(judge("stream_begin_capture.op_legacy.busy_nonblocking", &o, j, &n), CTS_DEVIATES);
    k = find(j, n, "RT-CAPTURE-LEGACY", CTS_ABOUT_REJECTED);
    CHECK(k && k->holds == 0);
    CHECK_INT(judge("stream_begin_capture.op_blocking.busy_nonblocking", &o, j, &n), CTS_RECORDED);
    CHECK(!find(j, n, "RT-CAPTURE-LEGACY", CTS_ABOUT_REJECTED));
    /* cudaEventElapsedTime: refused as its reference says (an end event not
     * complete, events without timing); of two complete events, RECORDED. */
    o.rejected = 1;
    CHECK_INT(judge("event_elapsed_time.pending.op_implied.busy_blocking", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "RT-EVENT-ELAPSED-NOT-READY", CTS_ABOUT_REJECTED)) && k->holds == 1);
    o.rejected = 0;
    CHECK_INT(judge("event_elapsed_time.disable_timing.op_implied.busy_same", &o, j, &n), CTS_DEVIATES);
    CHECK((k = find(j, n, "RT-EVENT-ELAPSED-NO-TIMING", CTS_ABOUT_REJECTED)) && k->holds == 0);
    CHECK_INT(judge("event_elapsed_time.op_implied.busy_same", &o, j, &n), CTS_RECORDED);
    /* cudaStreamWaitEvent of an event not recorded when the call is made (or
     * recorded again after it): work after it on its stream is not held by it. */
    o = seen(CTS_PASS, CTS_HOST_RETURNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
    o.verdict.op_after = CTS_ORDER_RUNS;
    CHECK_INT(judge("stream_wait_event.recorded_after.op_nonblocking.busy_blocking", &o, j, &n), CTS_CONFORMS);
    CHECK((k = find(j, n, "RT-EVENT-RECORD-LATER", CTS_ABOUT_OP_AFTER)) && k->holds == 1);
    CHECK((k = find(j, n, "RT-EVENT-RECORD-EMPTY", CTS_ABOUT_OP_AFTER)) && k->holds == 1);
    CHECK(!find(j, n, "RT-EVENT-RECORD-LATER", CTS_ABOUT_HOST));
    o.verdict.op_after = CTS_ORDER_HELD;
    CHECK_INT(judge("stream_wait_event.never_recorded.op_nonblocking.busy_blocking", &o, j, &n), CTS_DEVIATES);
    CHECK((k = find(j, n, "RT-STREAM-WAIT-EVENT", CTS_ABOUT_OP_AFTER)) && k->holds == 0);
    CHECK(!find(j, n, "RT-EVENT-RECORD-LATER", CTS_ABOUT_OP_AFTER));
    o.control.op_after = CTS_ORDER_HELD; /* held in the control too: not the call's */
    o.verdict.op_after = CTS_ORDER_HELD_ANYWAY;
    CHECK_INT(judge("stream_wait_event.rerecorded_after.op_blocking.busy_blocking", &o, j, &n), CTS_RECORDED);
    CHECK((k = find(j, n, "RT-EVENT-RECORD-LATER", CTS_ABOUT_OP_AFTER)) && k->holds < 0);
    CHECK(!find(j, n, "RT-EVENT-RECORD-EMPTY", CTS_ABOUT_OP_AFTER));
    CHECK_INT(judge("stream_wait_event.pending.op_nonblocking.busy_blocking", &o, j, &n), CTS_RECORDED);
    CHECK(!find(j, n, "RT-STREAM-WAIT-EVENT", CTS_ABOUT_OP_AFTER)); /* the earlier variants: as before */
    /* Data order: a written case's copy must move the held work's bytes
     * (PG-STREAM-ORDER), and a synchronous pageable one is a stream sync
     * first; a batch copy's access order speaks instead; the work after it
     * must see them.  (It waits: PG-CONC-ASYNC-PAGEABLE has it so.) */
    o = seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_HELD);
    for (int i = 0; i < 3; i++) {
        o.data[i] = CTS_DATA_ORDERED;
        o.reader[i] = CTS_READER_SAW;
    }
    CHECK_INT(judge("memcpy_async.written.h2d.pageable.4KiB.explicit.op_nonblocking.busy_same_hostfn", &o, j, &n),
              CTS_CONFORMS);
    CHECK((k = find(j, n, "PG-STREAM-ORDER", CTS_ABOUT_DATA_ORDERED)) && k->holds == 1);
    CHECK((k = find(j, n, "PG-STREAM-ORDER", CTS_ABOUT_LATER_SEES)) && k->holds == 1);
    o.data[1] = CTS_DATA_STALE; /* one repetition stale: the guarantee is broken */
    CHECK_INT(judge("memcpy_async.written.h2d.pageable.4KiB.explicit.op_nonblocking.busy_same_hostfn", &o, j, &n),
              CTS_DEVIATES);
    CHECK((k = find(j, n, "PG-STREAM-ORDER", CTS_ABOUT_DATA_ORDERED)) && k->holds == 0);
    o = seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_HELD);
    for (int i = 0; i < 3; i++) {
        o.data[i] = CTS_DATA_STALE;
        o.reader[i] = CTS_READER_SAW;
    }
    CHECK_INT(judge("memcpy.written.h2d.pageable.1MiB.explicit.op_implied.busy_same_hostfn", &o, j, &n),
              CTS_DEVIATES);
    CHECK((k = find(j, n, "RT-SYNC-MEMCPY-PAGEABLE-H2D", CTS_ABOUT_DATA_ORDERED)) && k->holds == 0);
    CHECK((k = find(j, n, "RT-SYNC-MEMCPY-PAGEABLE-H2D", CTS_ABOUT_HOST)) && k->holds == 1);
    CHECK_INT(judge("memcpy_batch_async.any.written.h2d.pageable.1MiB.op_nonblocking.busy_same_hostfn", &o, j, &n),
              CTS_CONFORMS);
    CHECK((k = find(j, n, "RT-BATCH-ANY", CTS_ABOUT_DATA_ORDERED)) && k->pred == CTS_PRED_MAY && k->holds < 0);
    CHECK(!find(j, n, "PG-STREAM-ORDER", CTS_ABOUT_DATA_ORDERED));
    CHECK_INT(judge("memcpy_batch_async.stream.written.h2d.pageable.1MiB.op_nonblocking.busy_same_hostfn", &o, j, &n),
              CTS_DEVIATES);
    CHECK((k = find(j, n, "RT-BATCH-STREAM", CTS_ABOUT_DATA_ORDERED)) && k->holds == 0);
    for (int i = 0; i < 3; i++) {
        o.data[i] = CTS_DATA_ORDERED;
        o.reader[i] = CTS_READER_MISSED;
    }
    CHECK_INT(judge("memcpy_batch_async.stream.written.h2d.pageable.1MiB.op_nonblocking.busy_same_hostfn", &o, j, &n),
              CTS_DEVIATES);
    CHECK((k = find(j, n, "PG-STREAM-ORDER", CTS_ABOUT_LATER_SEES)) && k->holds == 0);
    /* A case that writes nothing is judged as before. */
    judge("memcpy_async.h2d.pageable.4KiB.explicit.op_blocking.busy_same", &o, j, &n);
    CHECK(!find(j, n, "PG-STREAM-ORDER", CTS_ABOUT_LATER_SEES));

    /* Landing: a synchronous copy to the host must be complete when it returns
     * (RT-SYNC-MEMCPY-D2H); a pageable one to the device may not be. */
    o = seen(CTS_PASS, CTS_HOST_WAITS, CTS_ORDER_NA, CTS_ORDER_HELD);
    for (int i = 0; i < 3; i++)
        o.landed[i] = i == 1 ? CTS_DST_PENDING : CTS_DST_COMPLETE;
    judge("memcpy.d2h.pinned.1MiB.explicit.op_implied.busy_same", &o, j, &n);
    CHECK((k = find(j, n, "RT-SYNC-MEMCPY-D2H", CTS_ABOUT_LANDED)) && k->holds == 0);
    judge("memcpy.h2d.pageable.1MiB.explicit.op_implied.busy_same", &o, j, &n);
    CHECK((k = find(j, n, "RT-SYNC-MEMCPY-PAGEABLE-H2D", CTS_ABOUT_LANDED)) && k->pred == CTS_PRED_MAY);
    for (int i = 0; i < 3; i++)
        o.landed[i] = CTS_DST_COMPLETE;
    judge("cu_memcpy_dtoh.d2h.pinned.1MiB.op_implied.busy_same", &o, j, &n);
    CHECK((k = find(j, n, "DRV-SYNC-MEMCPY-D2H", CTS_ABOUT_LANDED)) && k->holds == 1);

    CHECK_DONE();
}
