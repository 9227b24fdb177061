/* The idle latency of a case's call: measured with nothing held, it sets
 * the case's timeout and window (cts_engine_run_case). */
#define _GNU_SOURCE
#include "engine_int.h"
#include "family.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- idle latency ----------------------------------------------------------- */

/* Why c cannot run here (a memory kind or a run-time need missing), or NULL. */
static const char *missing_need(struct cts_engine *e, const struct cts_case *c, enum cts_mem *src,
                                enum cts_mem *dst)
{
    cts_case_buffers(c, src, dst);
    if (e->unmeasurable[0])
        return e->unmeasurable;
    if (*src >= 0 && e->notsupp[*src][0])
        return e->notsupp[*src];
    if (*dst >= 0 && e->notsupp[*dst][0])
        return e->notsupp[*dst];
    if (cts_need_runtime(c, e->need_why, sizeof e->need_why))
        return e->need_why;
    if (c->family->needs && c->family->needs(c, e->need_why, sizeof e->need_why))
        return e->need_why;
    return NULL;
}

/* What the phases of one idle measurement share (idle_inner). */
struct idle_state {
    struct cts_engine *e;
    const struct cts_case *c;
    struct cts_idle *idle;
    enum cts_mem sm, dm;
    void *src, *dst;
    cudaStream_t s;
    size_t off[3];
    int nsamp;
    unsigned seq;
    struct cts_scratch scratch;
    const char *ename;
    double t0, t1, t2; /* the call issued, returned, and its work complete */
};

/* The device idle, the sample bytes set, the family's set-up done.  Each
 * phase returns 0 to go on, -1 once idle->status says why it stopped. */
static int idle_prepare(struct idle_state *st)
{
    struct cts_engine *e = st->e;
    const struct cts_case *c = st->c;
    struct cts_idle *idle = st->idle;
    enum cts_mem sm = st->sm, dm = st->dm;
    void *src = st->src, *dst = st->dst;
    const size_t *off = st->off;
    int nsamp = st->nsamp;

    st->seq = ++e->seq;
    st->scratch = (struct cts_scratch){0};
    st->ename = "?";
    HCHECK(idle->reason, cudaDeviceSynchronize());
    if (cts_eng_prepare_samples(e, c, sm, src, dm, dst, off, nsamp, 0x11, 0x22, &st->ename) != cudaSuccess) {
        (void)cudaGetLastError();
        idle->status = CTS_BROKEN;
        cts_eng_setf(idle->reason, "harness: setting the sample bytes failed: %s", st->ename ? st->ename : "?");
        return -1;
    }
    if (c->family->prepare && c->family->prepare(c, &st->scratch, &st->ename)) {
        (void)cudaGetLastError();
        idle->status = CTS_BROKEN;
        cts_eng_setf(idle->reason, "harness: setting up %s failed: %s", cts_api_function(c->api), st->ename);
        (void)cudaDeviceSynchronize();
        return -1;
    }
    HCHECK(idle->reason, cudaDeviceSynchronize());
    return 0;
fail:
    idle->status = CTS_BROKEN;
    return -1;
}

/* The call between the family's hooks, timed. */
static int idle_call(struct idle_state *st)
{
    const struct cts_case *c = st->c;
    struct cts_idle *idle = st->idle;
    void *src = st->src, *dst = st->dst;
    cudaStream_t s = st->s;

    struct cts_call args = {dst, src, 0x11, s, &st->scratch};
    if (cts_eng_hook(c->family->before, c, &st->scratch, s, &st->ename)) {
        (void)cudaGetLastError();
        idle->status = CTS_BROKEN;
        if (cts_needs_newer_driver(c, st->ename, idle->reason, sizeof idle->reason))
            idle->status = CTS_NOTSUPP;
        else
            cts_eng_setf(idle->reason, "harness: before %s: %s", cts_api_function(c->api), st->ename);
        (void)cudaDeviceSynchronize();
        if (c->family->cleanup)
            (void)c->family->cleanup(c, &st->scratch, &st->ename); /* the failure is reported */
        return -1;
    }
    double t0 = cts_now_us();
    int err = c->family->issue(c, &args, &st->ename);
    double t1 = cts_now_us();
    st->t0 = t0;
    st->t1 = t1;
    const char *aname = "?";
    char other[CTS_REASON_MAX];
    if (err && cts_eng_rejected_as_documented(c, st->ename, other))
        err = 0; /* a documented rejection: measured like any call; no after-hook */
    else if (!err)
        err = -cts_eng_hook(c->family->after, c, &st->scratch, s, &aname);
    if (err) {
        (void)cudaGetLastError();
        idle->status = err > 0 ? CTS_FAIL : CTS_BROKEN;
        if (err > 0 && cts_needs_newer_driver(c, st->ename, idle->reason, sizeof idle->reason))
            idle->status = CTS_NOTSUPP;
        else if (err > 0)
            cts_eng_setf(idle->reason, "%s returned %s on an idle GPU%s", cts_api_function(c->api),
                         st->ename, other);
        else
            cts_eng_setf(idle->reason, "harness: after %s: %s", cts_api_function(c->api), aname);
        (void)cudaDeviceSynchronize();
        if (c->family->cleanup)
            (void)c->family->cleanup(c, &st->scratch, &st->ename); /* the failure is reported */
        return -1;
    }
    return 0;
}

/* The call's work complete (a marker behind it ran), then the family's clean-up. */
static int idle_complete(struct idle_state *st)
{
    struct cts_engine *e = st->e;
    const struct cts_case *c = st->c;
    struct cts_idle *idle = st->idle;
    cudaStream_t s = st->s;
    unsigned seq = st->seq;

    HCHECK(idle->reason, cts_eng_marker(e, s, &e->mk_dev[0], seq));
    /* Nothing is held here, so the stream may be asked after a while:
     * work that failed (a lost context) ends the wait at once. */
    cudaError_t qerr = cudaSuccess;
    for (double tw = cts_now_us(); !cts_eng_wait_marker(e, 0, seq, 1000.0);) {
        qerr = cudaStreamQuery(s);
        if ((qerr != cudaSuccess && qerr != cudaErrorNotReady) || cts_now_us() - tw > DRAIN_LIMIT_US)
            break;
    }
    if (qerr != cudaSuccess && qerr != cudaErrorNotReady) {
        (void)cudaGetLastError();
        idle->status = CTS_BROKEN;
        cts_eng_setf(idle->reason, "the call's work failed on an idle GPU: %s", cudaGetErrorName(qerr));
        return -1;
    }
    if (e->mk_host[0].done != seq) {
        idle->status = CTS_TIMEOUT;
        cts_eng_setf(idle->reason, "the call did not complete on an idle GPU within %.0f s",
                     DRAIN_LIMIT_US / 1e6);
        (void)cudaDeviceSynchronize();
        return -1;
    }
    st->t2 = cts_now_us();
    if (c->family->cleanup) {
        HCHECK(idle->reason, cudaDeviceSynchronize());
        if (c->family->cleanup(c, &st->scratch, &st->ename)) {
            idle->status = CTS_BROKEN;
            cts_eng_setf(idle->reason, "harness: cleaning up after %s failed: %s",
                         cts_api_function(c->api), st->ename);
            return -1;
        }
    }
    return 0;
fail:
    idle->status = CTS_BROKEN;
    return -1;
}

static void idle_inner(struct cts_engine *e, const struct cts_case *c, struct cts_idle *idle)
{
    double call[IDLE_SAMPLES], done[IDLE_SAMPLES];
    struct idle_state st = {.e = e, .c = c, .idle = idle};
    enum cts_mem sm, dm;
    const char *why;

    memset(idle, 0, sizeof *idle);
    idle->done = 1;
    idle->status = CTS_PASS;
    cts_case_buffers(c, &sm, &dm);
    if (!e->unmeasurable[0] && (cts_eng_kind(e, sm, idle->reason) || cts_eng_kind(e, dm, idle->reason))) {
        idle->status = CTS_BROKEN;
        return;
    }
    if ((why = missing_need(e, c, &sm, &dm))) {
        idle->status = CTS_NOTSUPP;
        cts_eng_setf(idle->reason, "%s", why);
        return;
    }
    if (cts_eng_fit(e, c, idle->reason)) {
        idle->status = CTS_BROKEN;
        return;
    }
    st.sm = sm;
    st.dm = dm;
    st.src = cts_eng_buffer(e, c, sm, 0);
    st.dst = cts_eng_buffer(e, c, dm, 1);
    st.s = cts_eng_op_stream(e, c->op);
    st.nsamp = sm == CTS_MEM_NONE && dm == CTS_MEM_NONE ? 0 : cts_eng_sample_offsets(c->size, st.off);
    for (int i = 0; i < IDLE_WARMUP + IDLE_SAMPLES; i++) {
        if (idle_prepare(&st) || idle_call(&st) || idle_complete(&st))
            return;
        if (i >= IDLE_WARMUP) {
            call[i - IDLE_WARMUP] = st.t1 - st.t0;
            done[i - IDLE_WARMUP] = st.t2 - st.t0;
        }
    }
    HCHECK(idle->reason, cudaDeviceSynchronize());
    qsort(call, IDLE_SAMPLES, sizeof *call, cts_cmp_double);
    qsort(done, IDLE_SAMPLES, sizeof *done, cts_cmp_double);
    idle->call_us = call[IDLE_SAMPLES / 2];
    idle->call_max_us = call[IDLE_SAMPLES - 1];
    idle->complete_us = done[IDLE_SAMPLES / 2];
    idle->complete_max_us = done[IDLE_SAMPLES - 1];
    return;
fail:
    idle->status = CTS_BROKEN;
}

void cts_engine_idle(struct cts_engine *e, const struct cts_case *c, struct cts_idle *idle)
{
    double w0 = cts_now_us();
    idle_inner(e, c, idle);
    if (idle->status == CTS_PASS && c->family->cheap && c->family->cheap(c))
        cts_engine_latency(e, c, idle);
    if (cts_eng_trace_on())
        fprintf(stderr, "trace %s idle: %s call %.1f max %.1f complete %.1f max %.1f wall %.0f\n", c->id,
                cts_status_name(idle->status), idle->call_us, idle->call_max_us, idle->complete_us,
                idle->complete_max_us, cts_now_us() - w0);
    if (cts_eng_trace_on() && (idle->latency[0].threads || idle->latency_error[0]))
        fprintf(stderr, "trace %s latency: 1 thread %.2f/%.2f, 4 %.2f/%.2f, 16 %.2f/%.2f us (median/p99)%s%s\n",
                c->id, idle->latency[0].median_us, idle->latency[0].p99_us, idle->latency[1].median_us,
                idle->latency[1].p99_us, idle->latency[2].median_us, idle->latency[2].p99_us,
                idle->latency_error[0] ? ": " : "", idle->latency_error);
}
