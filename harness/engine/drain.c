/* The end of one repetition, once its gate is open: the drain, the
 * markers' holds, and the bytes the call copied (rep.c measures the rest). */
#define _GNU_SOURCE
#include "engine_int.h"

#include <math.h>

static int rep_drain(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    struct cts_rep *r = st->r;
    unsigned seq = st->seq;
    int markers = st->markers;

    /* Drain: the gate must end, opened by its flag, and every marker run. */
    double td = cts_now_us();
    while (e->gate_host->ended != seq ||
           (markers && !(e->mk_host[0].done == seq && e->mk_host[1].done == seq &&
                         e->mk_host[2].done == seq)))
        if (cts_now_us() - td > DRAIN_LIMIT_US) {
            r->status = CTS_TIMEOUT;
            cts_eng_setf(r->reason, "the device had not drained %.0f s after the gate opened",
                         DRAIN_LIMIT_US / 1e6);
            (void)cudaDeviceSynchronize();
            return 0;
        }
    {
        cudaError_t serr = cudaDeviceSynchronize();
        if (serr != cudaSuccess) {
            (void)cudaGetLastError();
            r->status = CTS_BROKEN;
            cts_eng_setf(r->reason, "cudaDeviceSynchronize after the case returned %s (the call or the "
                                    "harness; cannot tell which)", cudaGetErrorName(serr));
            return 0;
        }
    }
    if (e->gate_host->reason != CTS_GATE_OPENED) {
        r->status = CTS_BROKEN;
        cts_eng_setf(r->reason, "the gate reached its %%globaltimer deadline: the watchdog never opened it");
        return 0;
    }
    if (markers && !cts_busy_is_hostfn(st->c->busy) && cts_eng_gpu_stamps(e)) { /* else host-observed (rep.c) */
        double gate_end = (double)e->gate_host->end_ns;
        r->op_after_gpu_us = ((double)e->mk_host[0].stamp_ns - gate_end) / 1e3;
        r->third_blocking_gpu_us = ((double)e->mk_host[1].stamp_ns - gate_end) / 1e3;
        r->third_nonblocking_gpu_us = ((double)e->mk_host[2].stamp_ns - gate_end) / 1e3;
    }
    return REP_NEXT;
}

/* The markers' holds, once the device has drained (rep_returned launched them). */
static int rep_track_holds(struct rep_state *st)
{
    struct cts_result *res = st->res;
    struct cts_rep *r = st->r;

    /* "Held" must be proven both ways: the marker did not run while the
     * gate was closed, and its running tracks the gate's end.  One the
     * GPU clock puts before the gate's end ran while it was closed
     * (after the window): the window was too short to tell, and is
     * doubled.  One that ran promptly after the gate opened (within 2x
     * the idle completion + slack) was held by it.  One that ran later
     * (a staged copy's tail, a host function's thread waking late) is
     * tracked: measured again with the window grown by at least twice
     * that lateness, it must be held again and run no earlier against
     * the gate's end than half the growth.  A marker that was merely
     * slow by itself runs inside the longer window, or that much earlier
     * against the gate's end; a held one runs after the gate's end
     * (lateness >= 0), which passes whatever its first lateness was.
     * A hold the control does not show (the call's doing, the finding)
     * is tracked so too, the first in each column of a case; a later
     * prompt one is the one the first proved. */
    double gpu[3] = {r->op_after_gpu_us, r->third_blocking_gpu_us, r->third_nonblocking_gpu_us};
    enum cts_order ord[3] = {r->op_after, r->third_blocking, r->third_nonblocking};
    enum cts_order ctl[3] = {res->control.op_after, res->control.third_blocking,
                             res->control.third_nonblocking};
    double prompt_us = PROMPT_FACTOR * res->idle_complete_max_us + PROMPT_SLACK_US;
    for (int i = 0; i < 3; i++)
        if (ord[i] == CTS_ORDER_HELD && gpu[i] < 0) {
            r->status = CTS_INCONCLUSIVE;
            cts_eng_setf(r->reason, "a marker ran %.1f us before the gate opened but after the %.0f us "
                                    "window: the window was too short to tell",
                         -gpu[i], res->window_us);
            return REP_WINDOW_SHORT;
        }
    int unproven = -1;
    double lateness = 0;
    for (int i = 0; i < 3; i++) {
        if (ord[i] != CTS_ORDER_HELD)
            continue;
        int late = gpu[i] > prompt_us, the_call = ctl[i] == CTS_ORDER_RUNS;
        if (!late && !(the_call && !res->holds_tracked[i]))
            continue;
        if (res->hold_window_us > 0 && res->window_us > res->hold_window_us &&
            !isnan(res->hold_late_us[i]) &&
            gpu[i] - res->hold_late_us[i] >= -TRACK_FRACTION * (res->window_us - res->hold_window_us)) {
            if (the_call)
                res->holds_tracked[i]++;
            else
                res->late_holds_tracked++;
            continue;
        }
        if (unproven < 0)
            unproven = i;
        lateness = fmax(lateness, gpu[i]);
    }
    if (unproven >= 0) {
        static const char *const what[3] = {"its own stream", "a third blocking stream",
                                            "a third non-blocking stream"};
        for (int i = 0; i < 3; i++)
            res->hold_late_us[i] = ord[i] == CTS_ORDER_HELD ? gpu[i] : NAN;
        res->hold_window_us = res->window_us;
        res->grow_us = fmax(res->window_us, 2 * lateness);
        r->status = CTS_INCONCLUSIVE;
        cts_eng_setf(r->reason, "a marker on %s was held through the %.0f us window and ran %.1f us "
                                "after the gate opened (prompt: up to %.0f us), and was not held again "
                                "when measured with longer windows",
                     what[unproven], res->window_us, gpu[unproven], prompt_us);
        return REP_HOLD_TO_TRACK;
    }
    return REP_NEXT;
}

static int rep_bytes(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    const struct cts_case *c = st->c;
    struct cts_rep *r = st->r;
    enum cts_mem dm = st->dm;
    void *dst = st->dst;
    const size_t *off = st->off;
    int nsamp = st->nsamp, to_prove = st->to_prove, src_live = st->src_live, closed = st->closed;
    unsigned char v = st->v, u = st->u, w = st->w;

    /* Did the copy happen, and when did it read its source? */
    if (r->rejected)
        return to_prove ? REP_WAIT_TO_PROVE : REP_DONE; /* nothing was copied or set */
    if (st->landing) { /* the landing peek ran right after the return (rep.c); the device has drained */
        int complete = 1;
        for (int i = 0; i < nsamp; i++)
            complete &= e->land_host[i] == v;
        r->landed = complete ? CTS_DST_COMPLETE : CTS_DST_PENDING;
    }
    if (c->writes) { /* the whole destination, and the reader's copy (written.c) */
        double j0 = cts_now_us();
        int jrc = cts_eng_data_judge(st);
        cts_eng_trace_parts.data_judge = cts_now_us() - j0;
        return jrc != REP_NEXT ? 0 : to_prove ? REP_WAIT_TO_PROVE : REP_DONE;
    }
    int got_v = 0, got_w = 0;
    unsigned char got[3] = {0};
    if (dm != CTS_MEM_NONE && nsamp) {
        const char *pname = NULL;
        if (cts_eng_peek_samples(e, c, dm, dst, off, nsamp, got, &pname) != cudaSuccess) {
            (void)cudaGetLastError();
            r->status = CTS_BROKEN;
            cts_eng_setf(r->reason, "harness: reading the destination's samples failed: %s",
                         pname ? pname : "?");
            return 0;
        }
    }
    for (int i = 0; i < nsamp && dm != CTS_MEM_NONE; i++) {
        unsigned char b = got[i];
        if (b == v)
            got_v++;
        else if (b == w && src_live && closed)
            got_w++;
        else {
            r->status = CTS_FAIL;
            cts_eng_setf(r->reason, "destination byte %zu is 0x%02x after the copy; expected 0x%02x%s",
                         off[i], b, v, b == u ? " (never written)" : "");
            return 0;
        }
    }
    if (src_live && closed)
        r->src = got_w == 0 ? CTS_SRC_AT_CALL : got_v == 0 ? CTS_SRC_AFTER_RETURN : CTS_SRC_PARTIAL;
    return to_prove ? REP_WAIT_TO_PROVE : REP_DONE;
}

/* Once the gate is open (rep.c: run_rep_inner): REP_DONE, REP_WAIT_TO_PROVE,
 * or why the repetition is measured again. */
int cts_eng_rep_finish(struct rep_state *st)
{
    int rc = rep_drain(st);
    if (rc == REP_NEXT && st->markers)
        rc = rep_track_holds(st);
    return rc == REP_NEXT ? rep_bytes(st) : rc;
}
