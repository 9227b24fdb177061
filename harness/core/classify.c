/* From repetitions to a verdict.  Pure: no CUDA, no clock; tests/ drives it. */
#include "cts.h"
#include "outcome.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hold the control shows too is the streams' doing, not the call's. */
static enum cts_order against(enum cts_order seen, enum cts_order control)
{
    return seen == CTS_ORDER_HELD && control == CTS_ORDER_HELD ? CTS_ORDER_HELD_ANYWAY : seen;
}

struct cts_verdict cts_rep_verdict(const struct cts_rep *r, const struct cts_control *ctl, int synchronous)
{
    struct cts_verdict v = {0};
    v.overlap = r->pair.overlap;
    if (v.overlap != CTS_OVERLAP_NA)
        return v; /* a pair: no gate, no call held */
    v.capture = r->cap.outcome;
    if (v.capture != CTS_CAP_NA)
        return v; /* a capture: no gate either */
    v.pool = r->pool.outcome;
    if (v.pool != CTS_POOL_NA) {
        v.host = r->host; /* the call's own, and what it got from the pool: its own markers */
        return v;
    }
    v.stall = r->stall.verdict;
    if (v.stall != CTS_STALL_NA) {
        v.host = r->host; /* the call's own, and what the other thread saw: no markers */
        return v;
    }
    v.depth = r->depth.limit;
    if (v.depth == CTS_DEPTH_FOUND || v.depth == CTS_DEPTH_NONE) {
        v.queued = r->depth.queued; /* a scan: its count is the verdict */
        return v;
    }
    if (v.depth == CTS_DEPTH_BESIDE) {
        v.host = r->host; /* beside a full queue: whether the call waited, nothing else */
        return v;
    }
    v.host = r->host;
    v.rejected = r->rejected;
    /* Data order is read from the bytes after the drain: it holds whether
     * or not the call waited. */
    v.data = r->data;
    v.reader = r->reader;
    /* Landing is a verdict for a synchronous call (whose documentation says
     * what has landed when it returns), where it waited or its own stream ran
     * on: behind held work in its own stream a copy cannot have landed.  An
     * asynchronous call's is evidence only: nothing is promised, and its copy
     * races the read (H100, 254b9efcb4bc: 2,419 of them pending, 57 varying). */
    if (synchronous &&
        (r->host == CTS_HOST_WAITS || (r->host == CTS_HOST_RETURNS && r->op_after == CTS_ORDER_RUNS)))
        v.landed = r->landed;
    if (r->host != CTS_HOST_RETURNS)
        return v; /* the gate was open before the call returned: no order to see */
    v.op_after = against(r->op_after, ctl->op_after);
    v.third_blocking = against(r->third_blocking, ctl->third_blocking);
    v.third_nonblocking = against(r->third_nonblocking, ctl->third_nonblocking);
    /* The data checks race with the copy unless the copy itself is provably
     * not running: work after it on its own stream was held by the gate. */
    if (r->op_after == CTS_ORDER_HELD) {
        v.src = r->src;
        v.dst = r->dst;
    }
    return v;
}

/* Harness trouble outranks a product failure: a broken measurement proves nothing. */
static const enum cts_status precedence[] = {CTS_BROKEN, CTS_TIMEOUT, CTS_FAIL, CTS_NOTSUPP,
                                             CTS_INCONCLUSIVE};

/* A field's value as a VARIES reason names it: "n/a" where NA, a count with the value that carries it. */
static const char *field_value(const struct cts_verdict *v, const struct cts_outcome *o, char *buf, size_t len)
{
    const char *s = cts_outcome_name(v, o);
    if (s && cts_outcome_counted(v, o)) {
        snprintf(buf, len, "%s %lld", s, cts_outcome_count_in(v, o));
        return buf;
    }
    return s ? s : "n/a";
}

int cts_starved(double closed_us, double starved_us, double prompt_us)
{
    return !isnan(starved_us) && closed_us >= prompt_us && closed_us - starved_us < prompt_us;
}

int cts_called_late(double closed_us, double timeout_us)
{
    return closed_us < 0.5 * timeout_us;
}

double cts_starved_closed(double at_release_us, double whole_us, double release_to_return_us)
{
    double a = isnan(at_release_us) ? 0 : at_release_us, b = whole_us - release_to_return_us;
    return isnan(b) || b < a ? a : b;
}

void cts_classify(struct cts_result *res)
{
    memset(&res->verdict, 0, sizeof res->verdict);
    res->reason[0] = '\0';
    res->symbol[0] = '\0';
    if (res->nreps <= 0) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "no repetition ran");
        return;
    }
    for (size_t p = 0; p < sizeof precedence / sizeof *precedence; p++)
        for (int i = 0; i < res->nreps; i++)
            if (res->reps[i].status == precedence[p]) {
                res->status = precedence[p];
                snprintf(res->reason, sizeof res->reason, "repetition %d: %s", i + 1,
                         res->reps[i].reason);
                return;
            }

    struct cts_verdict v[CTS_MAX_REPEAT];
    for (int i = 0; i < res->nreps; i++)
        v[i] = cts_rep_verdict(&res->reps[i], &res->control, res->synchronous);

    /* Every repetition was proven: what they agree on is the verdict, and
     * each field they differ on is named with every repetition's value. */
    res->status = CTS_PASS;
    res->verdict = v[0];
    size_t n = 0;
    char b0[48], bi[48];
    for (const struct cts_outcome *f = cts_outcomes; f < cts_outcomes + CTS_OUTCOME_COUNT; f++) {
        int agree = 1;
        for (int i = 1; i < res->nreps; i++)
            if (strcmp(field_value(&v[0], f, b0, sizeof b0), field_value(&v[i], f, bi, sizeof bi)) != 0)
                agree = 0;
        if (agree)
            continue;
        cts_outcome_clear(&res->verdict, f);
        res->status = CTS_VARIES;
        n += snprintf(res->reason + n, sizeof res->reason - n, "%s%s:",
                      n ? "; " : "repetitions differ on ", f->key);
        for (int i = 0; i < res->nreps && n < sizeof res->reason; i++)
            n += snprintf(res->reason + n, sizeof res->reason - n, " %s", field_value(&v[i], f, bi, sizeof bi));
        if (n >= sizeof res->reason)
            n = sizeof res->reason - 1;
    }
    if (res->status == CTS_PASS) {
        cts_verdict_symbol(&res->verdict, res->symbol, sizeof res->symbol);
        return;
    }
    for (int i = 0; i < res->nreps; i++) { /* each symbol seen, in order of first appearance */
        char sym[16], pad[20];
        cts_verdict_symbol(&v[i], sym, sizeof sym);
        snprintf(pad, sizeof pad, "/%s/", sym);
        char have[40];
        snprintf(have, sizeof have, "/%s/", res->symbol);
        if (strstr(have, pad))
            continue;
        size_t k = strlen(res->symbol);
        snprintf(res->symbol + k, sizeof res->symbol - k, "%s%s", k ? "/" : "", sym);
    }
}

/* What a capture made of the call, from what was seen: the call's return
 * code, the capture's status after it and cudaStreamEndCapture's, the graph's
 * nodes, and the operation's effect at once and from the graph's launch. */
enum cts_cap_outcome cts_capture_judge(const struct cts_capture_obs *o)
{
    if (!o->rc || !o->end)
        return CTS_CAP_NA;
    int ok = !strcmp(o->rc, "cudaSuccess");
    int ended = o->after != CTS_CAPST_ACTIVE || strcmp(o->end, "cudaSuccess") != 0;
    int full = o->eager == 2 || o->launched == 2, some = o->eager > 0 || o->launched > 0;
    if (!ok)
        return some ? CTS_CAP_REFUSED_EFFECT : ended ? CTS_CAP_ENDED : CTS_CAP_REFUSED;
    if (ended)
        return CTS_CAP_ACCEPTED_ENDED;
    if (o->node_count > 0 && (o->launched == 2 || o->launched < 0))
        return CTS_CAP_GRAPH; /* a node, and its launch had the whole effect (or it has none to see) */
    if (o->eager < 0 ? o->node_count == 0 : full)
        return CTS_CAP_RAN;
    return CTS_CAP_LOST; /* accepted, and its effect is not (all) there, at once or from the graph */
}

/* The engine's cases: the host verdict, then what data order, landing, the
 * source and the third streams add. */
static void engine_symbol(const struct cts_verdict *v, char *buf, size_t len)
{
    /* Data order (written cases): "s" the copy moved the bytes from before
     * the held work's write, "m" some of each; "u" work after the call on
     * its stream did not see what the copy moved.  Nothing where in order. */
    static const char *const data_letter[] = {"", "", "s", "m"};
    static const char *const src_letter[] = {"", "c", "r", "p"};
    const char *data = data_letter[(unsigned)v->data < 4 ? v->data : 0];
    const char *unseen = v->reader == CTS_READER_MISSED ? "u" : "";
    /* "~": the destination was not complete right after the call returned. */
    const char *pending = v->landed == CTS_DST_PENDING ? "~" : "";
    if (v->host == CTS_HOST_WAITS)
        snprintf(buf, len, "%sW%s%s%s", v->rejected ? "X" : "", data, unseen, pending);
    else if (v->host != CTS_HOST_RETURNS)
        snprintf(buf, len, "?");
    else
        snprintf(buf, len, "%s%s%s%s%s%s%s%s", v->rejected ? "X" : v->op_after == CTS_ORDER_RUNS ? "A" : "Q",
                 src_letter[(unsigned)v->src < 4 ? v->src : 0], data, unseen, pending,
                 v->dst == CTS_DST_COMPLETE ? "!" : "", v->third_blocking == CTS_ORDER_HELD ? "+b" : "",
                 v->third_nonblocking == CTS_ORDER_HELD ? "+n" : "");
}

void cts_verdict_symbol(const struct cts_verdict *v, char *buf, size_t len)
{
    const char *host = v->host == CTS_HOST_WAITS ? "W" : v->host == CTS_HOST_RETURNS ? "A" : "?";
    if (!cts_outcome_symbol(v, host, buf, len)) /* a self-measured family's (outcome.c) */
        engine_symbol(v, buf, len);
}

/* The bands, with no gap between them: a fraction of OVERLAP_MIN or more
 * overlaps (at least half of the shorter operation's time was hidden),
 * PARTIAL_MIN up to OVERLAP_MIN is partial, below PARTIAL_MIN serializes, or
 * shares when the first to end took SHARED_STRETCH times its time alone or
 * more (both ran at once and shared what bounds them).  B's start event at or
 * after A's end event (within EVENT_SLACK_US) proves B did not start before A
 * ended: serializes, whatever the times alone (a pageable copy that blocks the
 * host, one stream).  On the H100 (driver 580.159.04, 997697cbe854) pairs that
 * ran at once measured 0.86-1.0 (5th percentile to median), ones queued on
 * one copy engine or host-function thread 0.0-0.2 (the first to end
 * stretched 0.97-1.00), two 1 GiB device copies sharing the memory bandwidth
 * 0.02 (stretched 1.97); a pinned host-to-device and device-to-host copy at
 * once 0.62-0.93, a pinned host-to-device copy beside a pageable
 * device-to-host one 0.50-0.65 (both slowed), a 1 ms one-block kernel behind a
 * 1 GiB memset 0.10-0.42.  Bands with gaps re-measured in between (0.6 and
 * 0.3-0.5, then 0.5 and 0.25-0.45) left such stable in-between pairs
 * INCONCLUSIVE, which they are not: a pair near a border is partial in one
 * repetition and not in another, and says so (VARIES, with the fractions). */
#define OVERLAP_MIN 0.5
#define PARTIAL_MIN 0.2
#define SHARED_STRETCH 1.5
#define EVENT_SLACK_US 2.0

void cts_pair_judge(struct cts_pair_obs *p)
{
    double start = fmin(p->a_start_us, p->b_start_us);
    double end = fmax(p->a_end_us, p->b_end_us);
    double shorter = fmin(p->a_alone_us, p->b_alone_us);
    int a_first = p->a_end_us <= p->b_end_us;
    double first_end = a_first ? p->a_end_us : p->b_end_us;
    double first_alone = a_first ? p->a_alone_us : p->b_alone_us;
    p->makespan_us = end - start;
    p->fraction = shorter > 0 ? (p->a_alone_us + p->b_alone_us - p->makespan_us) / shorter : NAN;
    p->stretch = first_alone > 0 ? (first_end - start) / first_alone : NAN;
    p->overlap = CTS_OVERLAP_NA;
    if (p->b_start_us >= p->a_end_us - EVENT_SLACK_US) {
        p->overlap = CTS_OVERLAP_SERIALIZES;
        return;
    }
    if (isnan(p->fraction) || isnan(p->stretch))
        return;
    if (p->fraction >= OVERLAP_MIN)
        p->overlap = CTS_OVERLAP_OVERLAPS;
    else if (p->fraction >= PARTIAL_MIN)
        p->overlap = CTS_OVERLAP_PARTIAL;
    else
        p->overlap = p->stretch >= SHARED_STRETCH ? CTS_OVERLAP_SHARES : CTS_OVERLAP_SERIALIZES;
}

enum cts_overlap cts_staged_judge(struct cts_staged_obs *s)
{
    double longest = fmax(s->h2d_us, fmax(s->kernel_us, s->d2h_us));
    s->fraction = s->sequential_us > longest ? (s->sequential_us - s->version_us) / (s->sequential_us - longest)
                                             : NAN;
    if (isnan(s->fraction))
        return CTS_OVERLAP_NA;
    if (s->fraction >= OVERLAP_MIN)
        return CTS_OVERLAP_OVERLAPS;
    return s->fraction >= PARTIAL_MIN ? CTS_OVERLAP_PARTIAL : CTS_OVERLAP_SERIALIZES;
}

enum cts_depth cts_depth_decide(const struct cts_depth_scan *a, const struct cts_depth_scan *b, double grow_us,
                                double fraction)
{
    if (!a->stopped && !b->stopped)
        return CTS_DEPTH_NONE;
    if (a->stopped && b->stopped && !a->early && !b->early && b->blocked_us - a->blocked_us >= fraction * grow_us)
        return CTS_DEPTH_FOUND;
    return CTS_DEPTH_NA;
}

enum cts_host cts_beside_decide(const struct cts_beside_try *a, const struct cts_beside_try *b, double grow_us,
                                double fraction, int *again)
{
    *again = 0;
    if (!a->filled || !a->full || a->early)
        return CTS_HOST_NA; /* not beside a full queue, or it proves nothing */
    if (a->returned)
        return CTS_HOST_RETURNS;
    if (!b) {
        *again = 1;
        return CTS_HOST_NA;
    }
    if (b->filled && b->full && !b->returned && !b->early && b->call_us - a->call_us >= fraction * grow_us)
        return CTS_HOST_WAITS;
    return CTS_HOST_NA;
}

/* A stalled command took more than twice the control's slowest, and this
 * much more than it: a control of event records whose slowest took 0.7 us
 * (H100) would otherwise call any 2 us of jitter a stall. */
#define STALL_SLACK_US 10.0
/* A call shorter than this (about a kernel launch) is brief whatever fitted
 * inside it: cudaGetDeviceProperties, 0.3-1 us, had an event record of 0.6 us
 * inside it in some runs and not in others (H100, 5392ca14bb47). */
#define STALL_BRIEF_US 5.0
/* A command held for this share of the call's own time or more (less what
 * the calling thread waited for a processor in it) was held by the call even
 * where it returned just before the call did: the call's last work after it
 * let the command go, and the command's start after the kick, took longer
 * under load than quiet (H200, 16 MiB cudaMalloc, cudaHostRegister and
 * pageable cudaMemcpy: their commands held 88-98 % of the call's own time,
 * and returned inside it); the slow commands of quiet runs that returned
 * inside a call took at most 65 % of it (a first launch of 65 us, 42 us;
 * 93b6dfa, 676519b). */
#define STALL_WHOLE 0.75

/* A command's own time: less what its thread waited for a processor during it. */
static double own_time(const struct cts_stall_cmd *c)
{
    return c->end_us - c->begin_us - (isnan(c->delay_us) ? 0 : c->delay_us);
}

/* The second thread's longest wait for a processor at once over [from, to):
 * during a command that overlaps it, or between two commands where that gap
 * does (NAN: one of those not known). */
static double kept_over(const struct cts_stall_cmd *cmd, size_t n, double from, double to)
{
    double kept = 0;
    for (size_t i = 0; i < n; i++) {
        double gap_from = i ? cmd[i - 1].end_us : -INFINITY;
        double during = cmd[i].begin_us < to && cmd[i].end_us > from ? cmd[i].delay_us : 0;
        double before = gap_from < to && cmd[i].begin_us > from ? cmd[i].gap_delay_us : 0;
        if (isnan(during) || isnan(before))
            return NAN;
        kept = fmax(kept, fmax(during, before));
    }
    return kept;
}

enum cts_stall cts_stall_decide(const struct cts_stall_cmd *cmd, size_t n, double call_begin_us,
                                double call_end_us, double control_us, double caller_delay_us,
                                struct cts_stall_obs *o)
{
    o->commands = o->inside = 0;
    o->slowest_us = o->stalled_us = NAN;
    double own_call = call_end_us - call_begin_us - (isnan(caller_delay_us) ? 0 : caller_delay_us);
    for (size_t i = 0; i < n; i++) {
        double b = cmd[i].begin_us, e = cmd[i].end_us, took = own_time(&cmd[i]);
        if (b < call_begin_us || b >= call_end_us)
            continue;
        o->commands++;
        if (isnan(o->slowest_us) || took > o->slowest_us)
            o->slowest_us = took;
        if (e <= call_end_us)
            o->inside++;
        if ((e > call_end_us || took >= STALL_WHOLE * own_call) && b <= call_end_us - control_us &&
            took > 2.0 * control_us && took > control_us + STALL_SLACK_US && (isnan(o->stalled_us) || took > o->stalled_us))
            o->stalled_us = took; /* began early enough to return before the call, yet returned after it
                                   * (or was held through the call's own time, all but its ends) */
    }
    o->kept_us = kept_over(cmd, n, call_begin_us, call_end_us);
    if (caller_delay_us > o->kept_us || isnan(caller_delay_us))
        o->kept_us = caller_delay_us;
    double call = call_end_us - call_begin_us;
    o->verdict = !isnan(o->stalled_us)                   ? CTS_STALL_STALLS
                 : o->kept_us > CTS_STALL_KEPT_US        ? CTS_STALL_NA
                 : call < STALL_BRIEF_US                 ? CTS_STALL_BRIEF
                 : o->inside                             ? CTS_STALL_UNAFFECTED
                 : o->kept_us > STALL_SLACK_US           ? CTS_STALL_NA /* nothing fitted: the wait may be why */
                                                         : CTS_STALL_BRIEF;
    return o->verdict;
}

size_t cts_stall_control(const struct cts_stall_cmd *cmd, size_t n, double begin_us, double end_us, double *times,
                         double *slowest, double *median, double *kept)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (cmd[i].begin_us >= begin_us && cmd[i].begin_us < end_us)
            times[k++] = own_time(&cmd[i]);
    qsort(times, k, sizeof *times, cts_cmp_double);
    *slowest = k ? times[k - 1] : NAN;
    *median = k ? times[k / 2] : NAN;
    *kept = kept_over(cmd, n, begin_us, end_us);
    return k;
}

enum cts_stall cts_stall_tracked(const struct cts_stall_obs *a, const struct cts_stall_obs *b, double grow_us,
                                 double fraction)
{
    if (a->verdict != CTS_STALL_STALLS)
        return a->verdict;
    if (b->verdict == CTS_STALL_STALLS && b->stalled_us - a->stalled_us >= fraction * grow_us)
        return CTS_STALL_STALLS;
    return CTS_STALL_NA;
}

int cts_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

const int cts_latency_threads[CTS_LATENCY_COUNTS] = {1, 4, CTS_LATENCY_MOST};

double cts_quantile(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double rank = ceil(q * (double)n - 1e-9); /* 1-based; 0.99 * 100 is 99.000...01 */
    size_t i = rank < 1 ? 0 : (size_t)rank - 1;
    return sorted[i < n ? i : n - 1];
}

void cts_rep_begin(struct cts_rep *r)
{
    memset(r, 0, sizeof *r);
    r->status = CTS_PASS;
    r->release_to_return_us = r->op_after_gpu_us = r->third_blocking_gpu_us = NAN;
    r->third_nonblocking_gpu_us = r->window_us = NAN;
    r->tracked_from_timeout_us = r->tracked_from_call_us = r->run_delay_us = r->others_delay_us = NAN;
}

void cts_classify_measured(struct cts_result *res, double timeout_us)
{
    double t[CTS_MAX_REPEAT];
    int n = res->nreps < CTS_MAX_REPEAT ? res->nreps : CTS_MAX_REPEAT;
    for (int i = 0; i < n; i++)
        t[i] = res->reps[i].call_us;
    qsort(t, (size_t)n, sizeof *t, cts_cmp_double);
    res->idle_call_us = res->idle_call_max_us = n > 0 ? t[n / 2] : NAN;
    res->idle_complete_us = res->idle_complete_max_us = NAN;
    res->window_us = NAN;
    res->timeout_us = timeout_us;
    cts_classify(res);
}

enum cts_pool cts_pool_decide(int ok, int same_block, int later_held, int waited)
{
    if (!ok)
        return CTS_POOL_REFUSED;
    if (!same_block)
        return CTS_POOL_OTHER;
    return waited || later_held > 0 ? CTS_POOL_REUSED_AFTER : later_held == 0 ? CTS_POOL_REUSED_NOW : CTS_POOL_NA;
}
