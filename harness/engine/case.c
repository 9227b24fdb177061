/* A case: its control, its repetitions with their retries, the wait that
 * one more repetition must confirm, and the recheck of timed verdicts. */
#define _GNU_SOURCE
#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One repetition into reps[i], with its retries: a wait or a window that
 * proved too short is measured again, grown (at most WAIT_RETRIES times
 * each).  With `defer`, a first prompt wait stands (REP_WAIT_TO_PROVE) for
 * the next repetition to prove; without, it is measured again in place.
 * `phase` is only what its attempts' trace lines say they are. */
static int measure_rep(struct cts_engine *e, const struct cts_case *c, struct cts_result *res, int i,
                       int defer, enum cts_trace_phase phase)
{
    int window_retries = 0, timeout_retries = 0, perturbed = 0, starved = 0;
    for (int attempt = 1;; attempt++) {
        double w0 = cts_now_us();
        int rc = cts_eng_run_rep(e, c, res, &res->reps[i]);
        if (cts_eng_trace_on())
            cts_eng_trace_attempt(c, i, rc, res, &res->reps[i], phase, attempt, cts_now_us() - w0);
        if (rc == REP_WAIT_TO_PROVE && defer)
            return rc;
        if (rc == REP_WAIT_TO_PROVE)
            rc = REP_TIMEOUT_SHORT;
        if (rc == REP_WINDOW_SHORT && window_retries < WAIT_RETRIES) {
            window_retries++;
            res->window_retries++;
            res->window_us = fmin(2 * res->window_us, WAIT_MAX_US);
        } else if (rc == REP_HOLD_TO_TRACK && window_retries < WAIT_RETRIES) {
            window_retries++;
            res->window_retries++;
            res->window_us = fmin(res->window_us + res->grow_us, WAIT_MAX_US);
        } else if (rc == REP_TIMEOUT_SHORT && timeout_retries < WAIT_RETRIES) {
            timeout_retries++;
            res->timeout_retries++;
            res->timeout_us = fmin(res->timeout_us + res->grow_us, WAIT_MAX_US);
        } else if (rc == REP_PERTURBED && perturbed < WAIT_RETRIES) {
            perturbed++;
            res->perturbed_retries++;
        } else if (rc == REP_STARVED && starved < STARVED_RETRIES) {
            starved++;
            res->perturbed_retries++;
            res->timeout_us = fmin(res->timeout_us + res->grow_us, WAIT_MAX_US);
        } else {
            return rc;
        }
    }
}

/* Whether the case's last repetition proved a wait by tracking it at a
 * timeout shorter than RECHECK_MIN_US.  A managed-memory copy slowed by the
 * held kernel ends its slowness when the gate opens, so twice in a row it
 * can pass for a wait tracked at a short timeout: about once a run with two
 * repetitions a case (H100, 580.159.04, 13 runs), and the repetition that
 * proved it had no successor to contradict it. */
static int confirm_wait(const struct cts_result *res)
{
    const struct cts_rep *r = &res->reps[res->nreps - 1];
    return r->status == CTS_PASS && r->host == CTS_HOST_WAITS && r->tracked_from_timeout_us > 0 &&
           r->timeout_us < RECHECK_MIN_US;
}

/* What the case's repetitions say before its recheck (recheck). */
struct recheck_scan {
    int returns, starved, runs[3]; /* a return; a starved wait; a marker that ran, by column */
    double slowest, run_delay_us;  /* the slowest call; the longest run delay of a wait */
};

/* 0, or -1 where a repetition is not PASS (nothing is rechecked then). */
static int recheck_scan(const struct cts_case *c, const struct cts_result *res, struct recheck_scan *k)
{
    double prompt_us = PROMPT_FACTOR * res->idle_call_max_us + PROMPT_SLACK_US;
    memset(k, 0, sizeof *k);
    k->slowest = res->idle_call_max_us;
    for (int i = 0; i < res->nreps; i++) {
        const struct cts_rep *r = &res->reps[i];
        enum cts_order ord[3] = {r->op_after, r->third_blocking, r->third_nonblocking};
        if (r->status != CTS_PASS)
            return -1;
        k->returns |= r->host == CTS_HOST_RETURNS;
        /* Its own thread, or the others (the driver's) where it tracked */
        double kept_us = fmax(r->run_delay_us, r->others_delay_us); /* NAN only where both are */
        k->starved |= r->host == CTS_HOST_WAITS && kept_us > prompt_us && !cts_busy_is_hostfn(c->busy);
        k->slowest = fmax(k->slowest, r->call_us);
        if (r->host == CTS_HOST_WAITS && kept_us > k->run_delay_us)
            k->run_delay_us = kept_us;
        for (int j = 0; j < 3; j++)
            k->runs[j] |= r->host == CTS_HOST_RETURNS && ord[j] == CTS_ORDER_RUNS;
    }
    return 0;
}

/* "Returns" and "runs" are proven by the latch; "waits" and "held" by
 * timing (tracking).  Where one case has both in one column, timing may
 * have been fooled by a call or a marker that was merely slow: a managed-
 * memory copy that does not wait took up to 15x its idle time while a
 * kernel ran (H100 and H200, 580.159.04), and once in ~10 runs such a
 * copy's slow attempts passed for a tracked wait.  So each timed one is
 * measured again with ten times the timeout, past ten times the slowest
 * call the case made, or ten times the window (at least RECHECK_MIN_US):
 * what was only slow then returns or runs while the gate is closed, and
 * that replaces it; what waits or is held again stands, and the case
 * VARIES.  The slowest call counts the waits too: 1 MiB managed copies that
 * returned while the gate was closed took up to 5.3 ms, and at a 5 ms
 * recheck (ten times a 0.4 ms return) they were still slow when it opened.
 * A wait proven while its thread waited for a processor longer than the
 * prompt bound is rechecked too, and then every wait of its case: under
 * CPU load a managed-memory copy that returns on a quiet host took 2355 us,
 * then 7194 us at a timeout grown by 4710 us, returning 693 and 823 us after
 * the gate opened (H200, 32 busy threads on 16 processors; its thread
 * waited 4561 us for a processor), and passed for a tracked wait.  Its
 * recheck holds the gate past what such a call could take: SLOWED_FACTOR
 * times its idle time, RECHECK_MIN_US more, and twice the run delay its
 * waits saw, up to that much again.  Not ten times the slowest call: a
 * wait's call holds its own timeout, and rechecks grown so held 16 MiB
 * managed copies for 1 s under CPU load: the managed-memory cases passed
 * 300 s with 2,221 of 5,426 done, 100 s of it rechecks (H200; 165 s for all
 * before).  So too a wait whose tracking attempt left the process's other
 * threads (the driver's, which a call may wait on) waiting for a processor
 * longer than the prompt bound, in all: under CPU load a 1 MiB pageable
 * cudaMemcpyBatchAsync to the host that returns on a quiet host returned
 * 137 and 113 us after gates of 306 and 946 us had opened, its own thread
 * kept no more than 316 us, and passed for a tracked wait (H200, 32 busy
 * threads, once in each of two whole-suite runs).  One such recheck that waits again proves
 * its case's waits; one that returns has every other wait rechecked.
 * Starved again in the recheck, the repetition grows its timeout (rep.c);
 * undecided, it is no wait.  Not behind a host function: its thread is
 * starved too, and what waits for it waits (the writers of data order). */
static void recheck(struct cts_engine *e, const struct cts_case *c, struct cts_result *res)
{
    struct recheck_scan k;
    if (recheck_scan(c, res, &k))
        return;
    int returns = k.returns, starved = k.starved;
    double timeout_us = res->timeout_us, window_us = res->window_us;
    double own_us = SLOWED_FACTOR * res->idle_call_max_us + RECHECK_MIN_US;
    double recheck_us = returns ? 10 * k.slowest : own_us + 2 * fmin(k.run_delay_us, own_us);
    int confirmed = 0; /* a starved wait rechecked waited again */
    for (int i = 0; i < res->nreps; i++) {
        struct cts_rep *r = &res->reps[i], old = *r;
        enum cts_order ord[3] = {r->op_after, r->third_blocking, r->third_nonblocking};
        int waits = (returns || (starved && !confirmed)) && r->host == CTS_HOST_WAITS, held = 0;
        for (int j = 0; j < 3; j++)
            held |= r->host == CTS_HOST_RETURNS && k.runs[j] && ord[j] == CTS_ORDER_HELD;
        if (!waits && !held)
            continue;
        res->late_call_us = res->late_timeout_us = res->late_run_delay_us = res->hold_window_us = 0;
        res->timeout_us = waits ? fmin(fmax(recheck_us, RECHECK_MIN_US), WAIT_MAX_US) : timeout_us;
        res->window_us = held ? fmin(fmax(10 * window_us, RECHECK_MIN_US), WAIT_MAX_US) : window_us;
        (void)measure_rep(e, c, res, i, 0, CTS_TRACE_RECHECK);
        res->rechecked++;
        /* The recheck itself undecided: the first measurement stands, unless
         * it was a wait its thread's starvation may have made (then nothing
         * is proven, and the repetition says why). */
        if (r->status != CTS_PASS && !(starved && waits))
            *r = old;
        confirmed |= !returns && waits && r->status == CTS_PASS && r->host == CTS_HOST_WAITS;
    }
    res->timeout_us = timeout_us;
    res->window_us = window_us;
}

/* Whether the case cannot be measured here: the engine broken, nothing
 * measurable, a need of its own missing (the idle measurement it was given
 * may be another placement's), or its idle measurement failed (res says why). */
static int case_unmeasurable(const struct cts_engine *e, const struct cts_case *c, const struct cts_idle *idle,
                             struct cts_result *res)
{
    if (e->broken[0]) {
        res->status = CTS_BROKEN;
        cts_eng_setf(res->reason, "%s", e->broken);
        return -1;
    }
    if (e->unmeasurable[0]) {
        res->status = CTS_NOTSUPP;
        cts_eng_setf(res->reason, "%s", e->unmeasurable);
        return -1;
    }
    if (c->family->needs && c->family->needs(c, res->reason, sizeof res->reason)) {
        res->status = CTS_NOTSUPP;
        return -1;
    }
    if (idle->status != CTS_PASS) {
        res->status = idle->status;
        cts_eng_setf(res->reason, "%s", idle->reason);
        return -1;
    }
    return 0;
}

/* The control the case is judged against: its own, or its pair's (measured
 * once); -1 where it could not be measured (res says why). */
static int case_control(struct cts_engine *e, const struct cts_case *c, struct cts_result *res)
{
    struct cts_control_entry own = {0}, *ce = NULL;
    double w0 = cts_now_us();
    if ((c->family->before || c->family->after) && cts_eng_measure_control(e, c->op, c->busy, c, &own) == 0)
        ce = &own;
    if (!ce && !(ce = &e->control[c->op][c->busy])->done)
        (void)cts_eng_measure_control(e, c->op, c->busy, NULL, ce);
    if (cts_eng_trace_on())
        fprintf(stderr, "trace %s control: wall %.0f\n", c->id, cts_now_us() - w0);
    if (ce->status != CTS_PASS) {
        res->status = ce->status;
        cts_eng_setf(res->reason, "%s", ce->reason);
        return -1;
    }
    res->control = ce->control;
    res->control_own = ce == &own;
    return 0;
}

static void run_case(struct cts_engine *e, const struct cts_case *c, const struct cts_idle *idle, int repeat,
                     struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    res->synchronous = !cts_api_takes_stream(c->api);
    res->idle_call_us = idle->call_us;
    res->idle_call_max_us = idle->call_max_us;
    res->idle_complete_us = idle->complete_us;
    res->idle_complete_max_us = idle->complete_max_us;
    memcpy(res->latency, idle->latency, sizeof res->latency);
    memcpy(res->latency_error, idle->latency_error, sizeof res->latency_error);
    enum cts_mem sm, dm;
    cts_case_buffers(c, &sm, &dm);
    int managed = c->mem == CTS_MEM_MANAGED || sm == CTS_MEM_MANAGED || dm == CTS_MEM_MANAGED;
    res->timeout_us = fmax(TIMEOUT_FLOOR_US,
                           (managed ? TIMEOUT_FACTOR_MANAGED : TIMEOUT_FACTOR) * idle->call_max_us);
    res->window_us = fmax(WINDOW_FLOOR_US, WINDOW_FACTOR * idle->complete_max_us);
    if (case_unmeasurable(e, c, idle, res) || case_control(e, c, res))
        return;
    if (cts_eng_fit(e, c, res->reason) || (c->writes && cts_eng_data_ready(e, c->size, res->reason))) {
        res->status = CTS_BROKEN;
        return;
    }
    if (repeat > CTS_MAX_REPEAT)
        repeat = CTS_MAX_REPEAT;
    double first_timeout_us = res->timeout_us;
    int pending = -1; /* a repetition whose wait this one, measured longer, must prove */
    for (int i = 0; i < repeat; i++) {
        /* Retries and tracking are each repetition's own: every repetition
         * starts from the case's first timeout, and may need a longer one
         * to prove its wait; except the one after a repetition whose wait
         * it proves, which keeps that one's longer timeout. */
        if (pending < 0) {
            res->late_call_us = res->late_timeout_us = res->late_run_delay_us = res->hold_window_us = 0;
            res->timeout_us = first_timeout_us;
        }
        int rc = measure_rep(e, c, res, i, i + 1 < repeat, CTS_TRACE_REP);
        if (rc == REP_WAIT_TO_PROVE) {
            res->timeout_retries++;
            res->timeout_us = fmin(res->timeout_us + res->grow_us, WAIT_MAX_US);
            pending = i;
        } else if (pending >= 0) {
            /* This repetition proved the pending one's wait (tracked), or
             * showed that the call does not wait (it returned while the
             * gate was closed): then the pending one waited for nothing but
             * its own slowness and gives way to this one.  Otherwise this
             * one's status decides the case. */
            if (res->reps[i].status == CTS_PASS && res->reps[i].host == CTS_HOST_RETURNS) {
                res->reps[pending] = res->reps[i];
                i = pending;
            }
            pending = -1;
        }
        res->nreps = i + 1;
        if (res->reps[i].status != CTS_PASS)
            break; /* one broken or failed repetition decides; don't pile on */
    }
    if (res->nreps == repeat && managed && confirm_wait(res) && repeat < CTS_MAX_REPEAT) {
        /* The wait proven last is confirmed by one more repetition, from
         * the case's first timeout: a managed-memory copy the held kernel
         * only slowed returns while the gate is closed there, and the
         * recheck below then measures the timed ones again. */
        res->late_call_us = res->late_timeout_us = res->late_run_delay_us = res->hold_window_us = 0;
        res->timeout_us = first_timeout_us;
        (void)measure_rep(e, c, res, res->nreps, 0, CTS_TRACE_CONFIRM);
        res->nreps++;
    }
    if (res->nreps >= repeat)
        recheck(e, c, res);
    res->timeout_us = first_timeout_us; /* each repetition's own are in reps[] */
    cts_classify(res);
}

void cts_engine_run_case(struct cts_engine *e, const struct cts_case *c, const struct cts_idle *idle,
                         int repeat, struct cts_result *res)
{
    run_case(e, c, idle, repeat, res);
    if (c->family->release)
        c->family->release();
}
