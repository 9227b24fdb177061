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
    /* A self-measured family's repetition: its kind's verdict (outcomes/<kind>.c; a repetition holds at
     * most one kind's outcome). */
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++)
        if (cts_outcomes[k]->from_rep && cts_outcomes[k]->from_rep(r, &v))
            return v;
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
    CTS_FOR_EACH_OUTCOME(f) {
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

struct cts_rep *cts_rep_next(struct cts_result *res, int repeat)
{
    int n = repeat < CTS_MAX_REPEAT ? repeat : CTS_MAX_REPEAT;
    if (res->nreps >= n || (res->nreps > 0 && res->reps[res->nreps - 1].status != CTS_PASS))
        return NULL;
    struct cts_rep *r = &res->reps[res->nreps++];
    cts_rep_begin(r);
    return r;
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
