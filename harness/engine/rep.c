/* One repetition of a case (the steps are listed in engine_int.h): the gate,
 * the call and the latch, and what the call returned or waited for; drain.c
 * ends it (the drain, the markers' holds, the bytes it copied). */
#define _GNU_SOURCE
#include "engine_int.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- one repetition ------------------------------------------------------------ */

/* A harness CUDA call failed (HCHECK): the repetition is BROKEN. */
static int rep_broken(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    struct cts_rep *r = st->r;
    int latch_armed = st->latch_armed, markers = st->markers;

    r->status = CTS_BROKEN;
    if (latch_armed || markers)
        cts_latch_open(&e->latch);
    (void)cudaDeviceSynchronize();
    return 0;
}

/* The call or a hook around it failed: the error cleared, the gate opened,
 * the device drained, and the status set (the caller writes the reason). */
static void rep_call_failed(struct rep_state *st, enum cts_status status)
{
    (void)cudaGetLastError();
    cts_latch_open(&st->e->latch);
    (void)cudaDeviceSynchronize();
    st->r->status = status;
}

/* The device idle, the sample bytes set, the gate launched and spinning. */
static int rep_start(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    const struct cts_case *c = st->c;
    struct cts_result *res = st->res;
    struct cts_rep *r = st->r;
    enum cts_mem sm = st->sm, dm = st->dm;
    void *src = st->src, *dst = st->dst;
    const size_t *off = st->off;
    int nsamp = st->nsamp;

    HCHECK(r->reason, cudaDeviceSynchronize());
    unsigned seq = ++e->seq;
    unsigned char v = (unsigned char)(0x10 + seq % 0x60), u = v ^ 0x80, w = v ^ 0xC0;
    st->seq = seq;
    st->v = v;
    st->u = u;
    st->w = w;
    {
        const char *pname = NULL;
        if (cts_eng_prepare_samples(e, c, sm, src, dm, dst, off, nsamp, v, u, &pname) != cudaSuccess) {
            (void)cudaGetLastError();
            r->status = CTS_BROKEN;
            cts_eng_setf(r->reason, "harness: setting the sample bytes failed: %s", pname ? pname : "?");
            return 0;
        }
    }

    double d0 = cts_now_us();
    cudaError_t derr = c->writes ? cts_eng_data_setup(st) : cudaSuccess;
    cts_eng_trace_parts.data_setup = c->writes ? cts_now_us() - d0 : 0;
    if (derr != cudaSuccess) {
        (void)cudaGetLastError();
        e->data.write_to = NULL;
        e->data.write_own = NULL;
        r->status = CTS_BROKEN;
        cts_eng_setf(r->reason, "harness: setting the data-order patterns failed");
        return 0;
    }

    double budget_us = res->timeout_us + res->window_us + 1e6;
    cts_latch_close(&e->latch);
    cudaError_t gerr = busy_stream_gate(e, c->op, c->busy, (unsigned long long)(budget_us * 1e3), seq);
    e->data.write_to = NULL; /* the held work has it (a written case's writer), and nothing else may */
    e->data.write_own = NULL;
    HCHECK(r->reason, gerr);
    if (!cts_eng_wait_gate_started(e, seq)) {
        r->status = CTS_BROKEN;
        cts_eng_setf(r->reason, "the gate did not start within %.0f s", START_LIMIT_US / 1e6);
        cts_latch_open(&e->latch);
        (void)cudaDeviceSynchronize();
        return 0;
    }
    return REP_NEXT;
fail:
    return rep_broken(st);
}

/* The call, between the family's hooks, with the watchdog armed; right
 * after it returns, the latch claimed. */
static int rep_call(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    const struct cts_case *c = st->c;
    struct cts_result *res = st->res;
    struct cts_rep *r = st->r;
    struct cts_scratch *scratch = st->scratch;
    void *src = st->src, *dst = st->dst;
    unsigned char v = st->v;
    cudaStream_t ops = st->ops;

    const char *ename = "?";
    if (cts_eng_hook(c->family->before, c, scratch, ops, &ename)) {
        rep_call_failed(st, CTS_BROKEN);
        cts_eng_setf(r->reason, "harness: before %s: %s", cts_api_function(c->api), ename);
        return 0;
    }
    /* An attempt that may prove a wait (it tracks a late one): what the
     * process's other threads waited too, for the recheck (case.c). */
    struct cts_threads th0, th1;
    int others = res->late_timeout_us > 0 && !cts_threads_read(&th0, atomic_load(&e->latch.tid));
    double rd0 = cts_run_delay_us();
    cts_latch_arm(&e->latch, res->timeout_us);
    r->timeout_us = res->timeout_us;
    r->window_us = res->window_us;
    st->latch_armed = 1;
    struct cts_call args = {dst, src, v, ops, scratch};
    double t0 = cts_now_us();
    int err = c->family->issue(c, &args, &ename);
    double t1 = cts_now_us();
    int closed = cts_latch_claim(&e->latch);
    double rd1 = cts_run_delay_us();
    double most_us;
    st->others_us = others && !cts_threads_read(&th1, atomic_load(&e->latch.tid))
                        ? cts_threads_waited_us(&th0, &th1, &st->others_tid, &most_us)
                        : NAN;
    cts_eng_trace_others_us = st->others_us;
    cts_eng_trace_others_tid = st->others_tid;
    st->t0 = t0;
    st->t1 = t1;
    st->closed = closed;
    st->starved_us = rd1 - rd0;
    st->run_delay0_us = rd0;
    if (st->starved_us >= PROMPT_SLACK_US) /* recorded where it could matter to a verdict */
        r->run_delay_us = st->starved_us;
    r->call_us = t1 - t0;
    cts_eng_trace_run_delay_us = st->starved_us;
    char other[CTS_REASON_MAX];
    if (err && cts_eng_rejected_as_documented(c, ename, other)) {
        r->rejected = ename; /* measured on: did the rejection wait, or hold other streams? */
    } else if (err) {
        rep_call_failed(st, CTS_FAIL);
        cts_eng_setf(r->reason, "%s returned %s%s", cts_api_function(c->api), ename, other);
        return 0;
    }
    if (!r->rejected && cts_eng_hook(c->family->after, c, scratch, ops, &ename)) {
        rep_call_failed(st, CTS_BROKEN);
        cts_eng_setf(r->reason, "harness: after %s: %s", cts_api_function(c->api), ename);
        return 0;
    }
    return REP_NEXT;
}

/* A return while the gate was closed, at once: whether the destination is
 * complete, where the host may read it; the source overwritten, where it
 * may write it (the drain reads which bytes the call took). */
static void returned_bytes(struct rep_state *st)
{
    struct cts_rep *r = st->r;
    void *src = st->src, *dst = st->dst;
    const size_t *off = st->off;
    int nsamp = st->nsamp;
    if (st->dst_live && !r->rejected) {
        int complete = 1;
        for (int i = 0; i < nsamp; i++)
            complete &= ((volatile unsigned char *)dst)[off[i]] == st->v;
        r->dst = complete ? CTS_DST_COMPLETE : CTS_DST_PENDING;
    }
    if (st->src_live && !r->rejected)
        for (int i = 0; i < nsamp; i++)
            ((volatile unsigned char *)src)[off[i]] = st->w;
}

/* The markers, and a written case's reader: 0, or -1 with the reason set. */
static int returned_markers(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    struct cts_rep *r = st->r;
    unsigned seq = st->seq;
    cudaStream_t ops = st->ops, *third = st->third;
    /* Third streams first: a marker on the op stream could itself make
     * them wait (the legacy stream does), and that would be ours, not the call's. */
    HCHECK(r->reason, cts_eng_marker(e, third[0], &e->mk_dev[1], seq));
    HCHECK(r->reason, cts_eng_marker(e, third[1], &e->mk_dev[2], seq));
    HCHECK(r->reason, cts_eng_marker(e, ops, &e->mk_dev[0], seq));
    st->markers = 3;
    if (st->c->writes && !r->rejected) /* after the markers: on the legacy stream it would hold the third ones */
        HCHECK(r->reason, cts_eng_data_reader(st));
    return 0;
fail:
    return -1;
}

/* The window: it ends early once every marker the control saw run has run
 * (one the control saw held is held by stream semantics alone, held_anyway,
 * and cannot run before the gate opens).  Which ran, into the repetition. */
static void returned_window(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    struct cts_result *res = st->res;
    struct cts_rep *r = st->r;
    unsigned seq = st->seq;
    enum cts_order ctl[3] = {res->control.op_after, res->control.third_blocking,
                             res->control.third_nonblocking};
    double tm = cts_now_us();
    for (;;) {
        int waiting = 0;
        for (int i = 0; i < 3; i++)
            waiting |= ctl[i] == CTS_ORDER_RUNS && e->mk_host[i].done != seq;
        if (!waiting || cts_now_us() - tm >= res->window_us)
            break;
    }
    enum cts_order *ord[3] = {&r->op_after, &r->third_blocking, &r->third_nonblocking};
    for (int i = 0; i < 3; i++)
        *ord[i] = e->mk_host[i].done == seq ? CTS_ORDER_RUNS : CTS_ORDER_HELD;
}

/* A host function ends on the host clock (and a wait-value hold's markers
 * carry no stamp), which the GPU's cannot be compared with: when each held
 * marker ran after the gate opened at t_open is what the host sees, polling
 * (sub-microsecond). */
static void held_latencies_on_host(struct rep_state *st, double t_open)
{
    struct cts_engine *e = st->e;
    struct cts_rep *r = st->r;
    unsigned seq = st->seq;
    enum cts_order *ord[3] = {&r->op_after, &r->third_blocking, &r->third_nonblocking};
    double *lat[3] = {&r->op_after_gpu_us, &r->third_blocking_gpu_us, &r->third_nonblocking_gpu_us};
    int left = 3;
    for (int i = 0; i < 3; i++)
        if (*ord[i] == CTS_ORDER_RUNS) {
            *lat[i] = NAN;
            left--;
        }
    while (left && cts_now_us() - t_open < DRAIN_LIMIT_US)
        for (int i = 0; i < 3; i++)
            if (*ord[i] == CTS_ORDER_HELD && isnan(*lat[i]) && e->mk_host[i].done == seq) {
                *lat[i] = cts_now_us() - t_open;
                left--;
            }
}

/* The call returned while the gate was closed: its bytes and the markers
 * are observed before the gate opens. */
static int rep_returned(struct rep_state *st)
{
    st->r->host = CTS_HOST_RETURNS;
    returned_bytes(st);
    if (returned_markers(st))
        return rep_broken(st);
    returned_window(st);
    double t_open = cts_now_us();
    cts_latch_open(&st->e->latch);
    if (cts_busy_is_hostfn(st->c->busy) || !cts_eng_gpu_stamps(st->e))
        held_latencies_on_host(st, t_open);
    return REP_NEXT;
}

/* The call returned after the gate opened.  Nothing is proven, and the
 * attempt is measured again, where its thread was descheduled between the
 * call and the claim, where the watchdog lost its processor while opening
 * the gate (when it opened is then not known), or where the caller was
 * starved while the gate was closed; otherwise its wait is tracked
 * (rep_track_wait). */
static int rep_waits(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    struct cts_result *res = st->res;
    struct cts_rep *r = st->r;
    double t0 = st->t0, t1 = st->t1;
    double prompt_us = PROMPT_FACTOR * res->idle_call_max_us + PROMPT_SLACK_US;

    r->host = CTS_HOST_WAITS;
    /* Under the latch's lock: the watchdog has finished opening the gate
     * (it claims the latch before it stamps the release). */
    cts_latch_open(&e->latch);
    r->release_to_return_us = t1 - e->latch.released_us;
    double opening_us = e->latch.released_end_us - e->latch.released_us;
    double released_delay_us = e->latch.released_delay_us - st->run_delay0_us;
    if (r->release_to_return_us < 0) {
        /* The call returned before the watchdog opened the gate, but this
         * thread claimed the latch only afterwards: it lost the processor
         * between the two.  Nothing is proven; measure it again. */
        (void)cudaDeviceSynchronize();
        r->status = CTS_INCONCLUSIVE;
        cts_eng_setf(r->reason, "the call returned %.1f us before the gate opened, but the host thread "
                                "claimed the latch only after it (the thread was descheduled), every "
                                "time it was measured",
                     -r->release_to_return_us);
        return REP_PERTURBED;
    }
    if (opening_us > PROMPT_SLACK_US) {
        /* The watchdog stamped the release and lost its processor before
         * writing the flag: the gate opened up to that much later, and the
         * call's lateness is not known to within a prompt bound. */
        (void)cudaDeviceSynchronize();
        r->status = CTS_INCONCLUSIVE;
        cts_eng_setf(r->reason, "the watchdog thread lost its processor for %.0f us while it opened the "
                                "gate, every time it was measured",
                     opening_us);
        return REP_PERTURBED;
    }
    double closed_us = e->latch.released_us - t0;
    if (cts_called_late(closed_us, r->timeout_us)) {
        /* Under CPU load a 22 us memset began 3 us after its 3200 us gate
         * opened, its thread having waited 5829 us for a processor (H200,
         * 32 busy threads on 16 processors): measure it again, the timeout
         * grown past that wait. */
        res->grow_us = fmax(res->timeout_us, 2 * fmax(released_delay_us, 0));
        (void)cudaDeviceSynchronize();
        r->status = CTS_INCONCLUSIVE;
        cts_eng_setf(r->reason, "the gate opened %.1f us after the call began, of a %.0f us timeout: its "
                                "thread lost its processor between arming the watchdog and the call, every "
                                "time it was measured",
                     closed_us, r->timeout_us);
        return REP_STARVED;
    }
    double starved_closed_us = cts_starved_closed(released_delay_us, st->starved_us, r->release_to_return_us);
    if (cts_starved(closed_us, starved_closed_us, prompt_us)) {
        /* Its thread could not run while the gate was closed: under CPU
         * load a call that does not wait returned 3-7 us after the
         * watchdog's wake-up handed the processor back (H100, 32 busy
         * host threads on 16 cores; 646 of 684 us starved).  Only the run
         * delay while the gate was closed counts: a call that waits
         * spinning is starved after the release too (H200, 32 busy
         * threads: 19956 us of a call whose gate was closed 12869 us).
         * Nothing is proven; measure it again with a timeout grown by at
         * least itself and twice the run delay it saw. */
        res->grow_us = fmax(res->timeout_us, 2 * starved_closed_us);
        (void)cudaDeviceSynchronize();
        r->status = CTS_INCONCLUSIVE;
        cts_eng_setf(r->reason, "the call returned after the gate opened, but its thread had waited for a "
                                "processor %.0f us of the %.0f us the gate was closed, every time it was "
                                "measured",
                     starved_closed_us, closed_us);
        return REP_STARVED;
    }
    return REP_NEXT;
}

static int rep_track_wait(struct rep_state *st)
{
    struct cts_result *res = st->res;
    struct cts_rep *r = st->r;

    /* "Waits" is proven, not inferred from returning after the gate
     * opened: a call slow by itself does that too (a synchronous memset
     * under blocking-sync took 330-400 us against a 270 us timeout; a
     * calling thread that loses its processor under CPU load takes
     * milliseconds).  So the attempt is measured again with a longer
     * timeout: a call that does not wait for the gate then returns
     * before it opens; one that waits returns after it again, its time
     * grown with the timeout by at least TRACK_FRACTION of the growth.
     * The growth is at least the timeout, twice the call's time and
     * twice its lateness: a waiting call's lateness after the release
     * is >= 0 each time, so with such a growth its time grows by at
     * least half of it whatever its lateness was; a call that does not
     * wait would have to take three times as long as it just did.  A
     * case's first wait is tracked so, and every late one (past
     * "promptly": a slow wake-up, a staged copy's tail, a thread that
     * lost its processor); a later prompt wait is the one the first
     * proved.  A case's first wait, when prompt, stands as a
     * repetition: it is finished (drain, bytes) and the next attempt,
     * the next repetition, is the one measured with the longer timeout;
     * if that one does not prove it, it does not stand. */
    double prompt_us = PROMPT_FACTOR * res->idle_call_max_us + PROMPT_SLACK_US;
    int late = r->release_to_return_us > prompt_us;
    int tracked = res->late_timeout_us > 0 && res->timeout_us > res->late_timeout_us &&
                  r->call_us - res->late_call_us >=
                      TRACK_FRACTION * (res->timeout_us - res->late_timeout_us);
    if (tracked) {
        res->waits_tracked++;
        r->tracked_from_timeout_us = res->late_timeout_us;
        r->tracked_from_call_us = res->late_call_us;
        /* Proven by two attempts: starved in either, or the threads of the
         * driver it may wait on in the second, it is rechecked (case.c). */
        if (res->late_run_delay_us > r->run_delay_us ||
            (isnan(r->run_delay_us) && res->late_run_delay_us >= PROMPT_SLACK_US))
            r->run_delay_us = res->late_run_delay_us;
        if (st->others_us >= PROMPT_SLACK_US)
            r->others_delay_us = st->others_us;
    } else if (late || !res->waits_tracked) {
        int again = res->late_timeout_us > 0;
        res->late_run_delay_us = isnan(r->run_delay_us) ? 0 : r->run_delay_us;
        res->late_call_us = r->call_us;
        res->late_timeout_us = res->timeout_us;
        res->grow_us = fmax(res->timeout_us, 2 * fmax(r->call_us, r->release_to_return_us));
        if (!late && !again) {
            st->to_prove = 1; /* the case's first wait, prompt: stands once the next proves it */
        } else {
            (void)cudaDeviceSynchronize();
            r->status = CTS_INCONCLUSIVE;
            if (late)
                cts_eng_setf(r->reason, "the call returned %.1f us after the gate opened (prompt: up to %.0f "
                                        "us) with a %.0f us timeout, and did not track the release when "
                                        "measured again with longer ones",
                             r->release_to_return_us, prompt_us, res->timeout_us);
            else
                cts_eng_setf(r->reason, "the call returned %.1f us after the gate opened with a %.0f us "
                                        "timeout (%.1f us inside it), and %s",
                             r->release_to_return_us, res->timeout_us, r->call_us,
                             again ? "did not track the release when measured again with longer ones: "
                                     "slow, or waiting on something else"
                                   : "was not measured again with a longer one");
            return REP_TIMEOUT_SHORT;
        }
    }
    return REP_NEXT;
}

/* Landing: was the destination complete right after the call returned?  A
 * host destination is read by this thread at once; a device-side one (device
 * or managed memory) by a peek on the engine's landing stream, independent of
 * every other, launched at once and read after the drain (drain.c).  Either
 * reading is a fact about the bytes after the return: pending proves the call
 * returned before its copy landed (rust-cuda #15), complete that it had landed
 * by the time it was read.  Not for written cases (their samples are patterns)
 * nor rejected calls.  0, or -1 with the repetition BROKEN. */
static int landing_probe(struct rep_state *st)
{
    struct cts_engine *e = st->e;
    struct cts_rep *r = st->r;
    if (st->c->writes || r->rejected || st->dm == CTS_MEM_NONE || st->dm == CTS_MEM_OWN || !st->nsamp)
        return 0;
    if (cts_eng_touchable_while_busy(st->dm)) {
        int complete = 1;
        for (int i = 0; i < st->nsamp; i++)
            complete &= ((volatile unsigned char *)st->dst)[st->off[i]] == st->v;
        r->landed = complete ? CTS_DST_COMPLETE : CTS_DST_PENDING;
        return 0;
    }
    struct cts_bytes b = {.n = st->nsamp};
    for (int i = 0; i < st->nsamp; i++)
        b.at[i] = (unsigned char *)st->dst + st->off[i];
    cudaError_t err = cts_launch_peek(e->landing, &b, e->land_dev);
    if (err != cudaSuccess) {
        rep_call_failed(st, CTS_BROKEN);
        cts_eng_setf(r->reason, "harness: the landing peek returned %s", cudaGetErrorName(err));
        return -1;
    }
    st->landing = 1;
    return 0;
}

/* A written case's reader could not be queued after a call that waited. */
static int rep_reader_failed(struct rep_state *st, cudaError_t err)
{
    rep_call_failed(st, CTS_BROKEN);
    cts_eng_setf(st->r->reason, "harness: queuing the data-order reader returned %s", cudaGetErrorName(err));
    return 0;
}

/* Returns REP_DONE; or which wait proved too short to tell "held" from
 * "slow" (the repetition is then measured again with that wait grown); or
 * REP_WAIT_TO_PROVE: a complete repetition whose wait the next attempt, with
 * a longer timeout, must prove (see cts_engine_run_case). */
static int run_rep_inner(struct cts_engine *e, const struct cts_case *c, struct cts_result *res,
                         struct cts_rep *r, struct cts_scratch *scratch)
{
    struct rep_state st = {.e = e, .c = c, .res = res, .r = r, .scratch = scratch};
    cts_case_buffers(c, &st.sm, &st.dm);
    st.src = cts_eng_buffer(e, c, st.sm, 0);
    st.dst = cts_eng_buffer(e, c, st.dm, 1);
    st.ops = cts_eng_op_stream(e, c->op);
    st.third[0] = e->blocking[2];
    st.third[1] = e->nonblocking[2];
    st.nsamp = st.sm == CTS_MEM_NONE && st.dm == CTS_MEM_NONE ? 0 : cts_eng_sample_offsets(c->size, st.off);

    struct cts_trace_parts *parts = &cts_eng_trace_parts;
    double p0 = cts_now_us();
    int rc = rep_start(&st);
    double p1 = cts_now_us();
    parts->start = p1 - p0;
    if (rc == REP_NEXT)
        rc = rep_call(&st);
    double p2 = cts_now_us();
    parts->call = p2 - p1;
    if (rc != REP_NEXT)
        return rc;
    if (landing_probe(&st))
        return 0;
    /* A written case's bytes are judged whole after the drain (written.c), not sampled. */
    cudaError_t rerr;
    st.dst_live = !c->writes && cts_eng_touchable_while_busy(st.dm);
    st.src_live = !c->writes && cts_eng_touchable_while_busy(st.sm);
    if (st.closed)
        rc = rep_returned(&st);
    else if (c->writes && !r->rejected && (rerr = cts_eng_data_reader(&st)) != cudaSuccess)
        rc = rep_reader_failed(&st, rerr);
    else if ((rc = rep_waits(&st)) == REP_NEXT)
        rc = rep_track_wait(&st);
    double p3 = cts_now_us();
    parts->after = p3 - p2; /* from the call's return to here */
    if (rc != REP_NEXT)
        return rc;
    st.latch_armed = 0;

    rc = cts_eng_rep_finish(&st);
    parts->finish = cts_now_us() - p3;
    return rc;
}


/* One repetition, between the family's set-up and clean-up. */
int cts_eng_run_rep(struct cts_engine *e, const struct cts_case *c, struct cts_result *res,
                    struct cts_rep *r)
{
    struct cts_scratch scratch = {0};
    const char *ename = "?";
    memset(&cts_eng_trace_parts, 0, sizeof cts_eng_trace_parts);
    memset(r, 0, sizeof *r);
    r->status = CTS_PASS;
    r->release_to_return_us = r->op_after_gpu_us = NAN;
    r->timeout_us = r->window_us = r->tracked_from_timeout_us = r->tracked_from_call_us = NAN;
    r->third_blocking_gpu_us = r->third_nonblocking_gpu_us = r->run_delay_us = r->others_delay_us = NAN;
    r->data_boundary = r->data_new_bytes = -1;
    double u0 = cts_now_us();
    if (c->family->prepare) {
        const char *why = NULL;
        cudaError_t err = cudaDeviceSynchronize();
        if (err != cudaSuccess)
            why = cudaGetErrorName(err);
        else if (c->family->prepare(c, &scratch, &ename))
            why = ename;
        else if ((err = cudaDeviceSynchronize()) != cudaSuccess)
            why = cudaGetErrorName(err);
        if (why) {
            (void)cudaGetLastError();
            r->status = CTS_BROKEN;
            cts_eng_setf(r->reason, "harness: setting up %s failed: %s", cts_api_function(c->api), why);
            (void)cudaDeviceSynchronize();
            if (c->family->cleanup)
                (void)c->family->cleanup(c, &scratch, &ename); /* the failure is reported */
            return REP_DONE;
        }
    }
    cts_eng_trace_parts.set_up = cts_now_us() - u0;
    int rc = run_rep_inner(e, c, res, r, &scratch);
    double u1 = cts_now_us();
    if (c->family->cleanup) {
        cudaError_t err = cudaDeviceSynchronize(); /* the call's work is done before its memory goes */
        int bad = c->family->cleanup(c, &scratch, &ename);
        if ((bad || err != cudaSuccess) && r->status == CTS_PASS) {
            r->status = CTS_BROKEN;
            cts_eng_setf(r->reason, "harness: cleaning up after %s failed: %s", cts_api_function(c->api),
                         bad ? ename : cudaGetErrorName(err));
            return REP_DONE;
        }
    }
    cts_eng_trace_parts.clean_up = cts_now_us() - u1;
    return rc;
}
