/* The no-call control a case is judged against. */
#define _GNU_SOURCE
#include "engine_int.h"

#include <string.h>

/* What the phases of one control repetition share (cts_eng_measure_control). */
struct control_state {
    struct cts_engine *e;
    enum cts_op op;
    enum cts_busy busy;
    const struct cts_case *c;
    struct cts_control_entry *ce;
    cudaStream_t s[3];
    enum cts_order first[3]; /* what the first repetition saw; the others must agree */
    struct cts_scratch scratch;
    int prepared;
    const char *ename;
    unsigned seq;
};

/* What a phase of a control repetition returns. */
enum { CONTROL_NEXT, CONTROL_FAILED, CONTROL_CAPTURING = -1 };

/* The family's set-up (c set), the gate launched and spinning, the hooks run. */
static int control_start(struct control_state *st)
{
    struct cts_engine *e = st->e;
    enum cts_op op = st->op;
    enum cts_busy busy = st->busy;
    const struct cts_case *c = st->c;
    struct cts_control_entry *ce = st->ce;
    cudaStream_t *s = st->s;

    HCHECK(ce->reason, cudaDeviceSynchronize());
    memset(&st->scratch, 0, sizeof st->scratch);
    if (c && c->family->prepare) {
        st->prepared = 1;
        if (c->family->prepare(c, &st->scratch, &st->ename)) {
            cts_eng_setf(ce->reason, "control: setting up %s failed: %s", cts_api_function(c->api), st->ename);
            goto fail;
        }
        HCHECK(ce->reason, cudaDeviceSynchronize());
    }
    unsigned seq = ++e->seq;
    st->seq = seq;
    cts_latch_close(&e->latch);
    HCHECK(ce->reason, busy_stream_gate(e, op, busy, 10000000000ull, seq));
    if (!cts_eng_wait_gate_started(e, seq)) {
        cts_latch_open(&e->latch);
        cts_eng_setf(ce->reason, "control: the gate did not start");
        goto fail;
    }
    if (c && (cts_eng_hook(c->family->before, c, &st->scratch, s[0], &st->ename) ||
              cts_eng_hook(c->family->after, c, &st->scratch, s[0], &st->ename))) {
        cts_latch_open(&e->latch);
        cts_eng_setf(ce->reason, "control: a hook of %s failed: %s", cts_api_function(c->api), st->ename);
        goto fail;
    }
    if (c) {
        enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
        HCHECK(ce->reason, cudaStreamIsCapturing(s[0], &cs));
        if (cs != cudaStreamCaptureStatusNone) {
            const char *why = NULL;
            st->prepared = 0;
            if (c->family->cleanup && c->family->cleanup(c, &st->scratch, &why))
                (void)cudaGetLastError(); /* the pair's control and the case will show it */
            cts_latch_open(&e->latch);
            (void)cudaDeviceSynchronize();
            ce->done = 0;
            return CONTROL_CAPTURING;
        }
    }
    return CONTROL_NEXT;
fail:
    return CONTROL_FAILED;
}

/* The markers launched and watched through the window, the gate opened,
 * the family's clean-up run. */
static int control_observe(struct control_state *st, int rep)
{
    static const char *const names[3] = {"op_after", "third_blocking", "third_nonblocking"};
    struct cts_engine *e = st->e;
    const struct cts_case *c = st->c;
    struct cts_control_entry *ce = st->ce;
    cudaStream_t *s = st->s;
    enum cts_order *first = st->first;
    unsigned seq = st->seq;

    HCHECK(ce->reason, cts_eng_marker(e, s[1], &e->mk_dev[1], seq));
    HCHECK(ce->reason, cts_eng_marker(e, s[2], &e->mk_dev[2], seq));
    HCHECK(ce->reason, cts_eng_marker(e, s[0], &e->mk_dev[0], seq));
    double tm = cts_now_us();
    while (cts_now_us() - tm < CONTROL_WINDOW_US &&
           !(e->mk_host[0].done == seq && e->mk_host[1].done == seq && e->mk_host[2].done == seq))
        ;
    for (int i = 0; i < 3; i++) {
        enum cts_order o = e->mk_host[i].done == seq ? CTS_ORDER_RUNS : CTS_ORDER_HELD;
        if (rep == 0)
            first[i] = o;
        else if (o != first[i]) {
            cts_latch_open(&e->latch);
            cts_eng_setf(ce->reason, "control (no call): repetitions disagree on %s", names[i]);
            goto fail;
        }
    }
    cts_latch_open(&e->latch);
    HCHECK(ce->reason, cudaDeviceSynchronize());
    if (e->gate_host->reason != CTS_GATE_OPENED) {
        cts_eng_setf(ce->reason, "control: the gate reached its deadline");
        goto fail;
    }
    if (st->prepared && c->family->cleanup) {
        st->prepared = 0;
        if (c->family->cleanup(c, &st->scratch, &st->ename)) {
            cts_eng_setf(ce->reason, "control: cleaning up after %s failed: %s",
                         cts_api_function(c->api), st->ename);
            goto fail;
        }
    }
    st->prepared = 0;
    return CONTROL_NEXT;
fail:
    return CONTROL_FAILED;
}

/* The control: the gate and the same markers in the same order, with no
 * call.  What it holds, the streams hold by themselves; a case is judged
 * against it.  For a family with before/after hooks it is the case's own
 * (c set): its set-up and hooks run where they run around the call, because
 * they may act on streams themselves (an event recorded on the legacy stream
 * makes blocking streams wait).  Otherwise it is the (op stream, busy
 * placement) pair's, measured once (c NULL).  A set-up that leaves the op
 * stream capturing (the capture cudaStreamEndCapture ends) queues no work
 * to control for, and markers cannot run behind it: returns -1, and the
 * pair's control is used. */
int cts_eng_measure_control(struct cts_engine *e, enum cts_op op, enum cts_busy busy,
                             const struct cts_case *c, struct cts_control_entry *ce)
{
    struct control_state st = {.e = e, .op = op, .busy = busy, .c = c, .ce = ce,
                               .s = {cts_eng_op_stream(e, op), e->blocking[2], e->nonblocking[2]},
                               .ename = "?"};
    ce->done = 1;
    ce->status = CTS_PASS;
    for (int rep = 0; rep < 3; rep++) {
        int rc = control_start(&st);
        if (rc == CONTROL_CAPTURING)
            return -1;
        if (rc == CONTROL_FAILED || control_observe(&st, rep) == CONTROL_FAILED)
            goto fail;
    }
    ce->control.op_after = st.first[0];
    ce->control.third_blocking = st.first[1];
    ce->control.third_nonblocking = st.first[2];
    return 0;
fail:
    ce->status = CTS_BROKEN;
    cts_latch_open(&e->latch);
    (void)cudaDeviceSynchronize();
    if (st.prepared && c->family->cleanup)
        (void)c->family->cleanup(c, &st.scratch, &st.ename); /* the failure is reported */
    (void)cudaGetLastError();
    return 0;
}
