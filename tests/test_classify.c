/* From repetitions to verdicts: agreement, disagreement, precedence, and the
 * rule that data observations count only where they cannot race. */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "cts.h"
#include "latch.h"
#include "outcome.h"
#include "outcomes/outcomes.h"

/* A second thread of this process, parked on a pipe: its id. */
static int pipe_fds[2];
static _Atomic int parked_tid;
static void *parked(void *arg)
{
    char b;
    (void)arg;
    atomic_store(&parked_tid, (int)syscall(SYS_gettid));
    return read(pipe_fds[0], &b, 1) < 0 ? NULL : arg;
}

/* The other threads' run delay: another thread of the process is read, the
 * caller and the one skipped are not; what those in both readings waited,
 * in all, and the longest waiter. */
static void test_threads(void)
{
    pthread_t th;
    CHECK(pipe(pipe_fds) == 0 && pthread_create(&th, NULL, parked, NULL) == 0);
    while (!atomic_load(&parked_tid))
        usleep(100);
    int other = atomic_load(&parked_tid), self = (int)syscall(SYS_gettid), seen = 0, seen_self = 0;
    struct cts_threads t;
    CHECK(cts_threads_read(&t, 0) == 0);
    for (int i = 0; i < t.n; i++) {
        seen += t.tid[i] == other;
        seen_self += t.tid[i] == self;
        CHECK(t.delay_us[i] >= 0);
    }
    CHECK(seen == 1 && seen_self == 0);
    CHECK(cts_threads_read(&t, other) == 0);
    for (int i = 0; i < t.n; i++)
        CHECK(t.tid[i] != other);
    CHECK(write(pipe_fds[1], "x", 1) == 1 && pthread_join(th, NULL) == 0);

    struct cts_threads a = {.n = 2, .tid = {7, 8}, .delay_us = {10, 5}};
    struct cts_threads b = {.n = 3, .tid = {8, 9, 7}, .delay_us = {105, 50, 40}}; /* 9 began between */
    int tid;
    double most;
    CHECK(cts_threads_waited_us(&a, &b, &tid, &most) == 130.0 && tid == 8 && most == 100.0);
    struct cts_threads none = {0};
    CHECK(isnan(cts_threads_waited_us(&none, &b, &tid, &most)) && tid == 0);
}

static struct cts_rep returns_rep(enum cts_order op, enum cts_order tb, enum cts_order tn)
{
    struct cts_rep r = {0};
    r.status = CTS_PASS;
    r.host = CTS_HOST_RETURNS;
    r.op_after = op;
    r.third_blocking = tb;
    r.third_nonblocking = tn;
    return r;
}

static struct cts_rep waits_rep(void)
{
    struct cts_rep r = {0};
    r.status = CTS_PASS;
    r.host = CTS_HOST_WAITS;
    /* Raw fields a waiting repetition may carry; the verdict must ignore them. */
    r.op_after = CTS_ORDER_RUNS;
    r.src = CTS_SRC_AT_CALL;
    r.dst = CTS_DST_COMPLETE;
    return r;
}

/* One queues repetition (a kind in the verdict's kind slot): streams, the count at once and after
 * the longer wait, the late ones, whether a gate ended at its deadline. */
static void queues_rep(struct cts_rep *r, double n, double at, double at_long, double late, double deadline)
{
    const struct cts_outcome *o = &cts_queues_outcome;
    cts_rep_begin(r);
    CHECK_INT(cts_obs_set(r, o, "streams", n), 0);
    CHECK_INT(cts_obs_set(r, o, "at_once", at), 0);
    CHECK_INT(cts_obs_set(r, o, "at_once_long", at_long), 0);
    CHECK_INT(cts_obs_set(r, o, "late", late), 0);
    CHECK_INT(cts_obs_set(r, o, "deadline", deadline), 0);
}

/* The value the descriptor decides for one repetition (0: NA), and its count. */
static int queues_value(const struct cts_rep *r, long long *count)
{
    struct cts_verdict v = {0};
    CHECK_INT(cts_queues_outcome.from_rep(r, &v), 1);
    *count = cts_outcome_count_in(&v, &cts_queues_outcome);
    return cts_outcome_get(&v, &cts_queues_outcome);
}

/* Kernels at once: every one, some (each other one late), or nothing proven. */
static void test_queues(void)
{
    const struct cts_outcome *o = &cts_queues_outcome;
    struct cts_rep r;
    long long count;
    queues_rep(&r, 8, 8, 8, 0, 0);
    CHECK_STR(o->names[queues_value(&r, &count)], "all");
    CHECK_INT(count, 8);
    CHECK(isnan(cts_obs_get(&r, o, "behind"))); /* not set: not seen */
    CHECK_INT(cts_obs_set(&r, o, "no_such_name", 1), -1);
    queues_rep(&r, 64, 8, 8, 56, 0);
    CHECK_STR(o->names[queues_value(&r, &count)], "some");
    CHECK_INT(count, 8);
    queues_rep(&r, 64, 8, 9, 55, 0); /* one more started in the longer wait: slow, not held */
    CHECK_INT(queues_value(&r, &count), 0);
    queues_rep(&r, 64, 8, 8, 55, 0); /* one never proven to have waited for a gate */
    CHECK_INT(queues_value(&r, &count), 0);
    queues_rep(&r, 64, 8, 8, 56, 1); /* a gate ended at its deadline */
    CHECK_INT(queues_value(&r, &count), 0);
    cts_rep_begin(&r); /* another family's repetition: not this kind's */
    struct cts_verdict v = {0};
    CHECK_INT(o->from_rep(&r, &v), 0);

    /* Two repetitions: the symbol with its count; differing counts VARIES, naming the kind. */
    struct cts_result res;
    memset(&res, 0, sizeof res);
    res.nreps = 2;
    queues_rep(&res.reps[0], 16, 8, 8, 8, 0);
    queues_rep(&res.reps[1], 16, 8, 8, 8, 0);
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    CHECK_STR(res.symbol, "K8");
    queues_rep(&res.reps[1], 16, 16, 16, 0, 0);
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
    CHECK_STR(res.symbol, "K8/K16");
    CHECK_CONTAINS(res.reason, "queues: some 8 all 16");
    CHECK(res.verdict.kind == NULL);
}

/* Event timing: the elapsed time covers the kernel's run, to 1 us, or falls short; nothing where the
 * gate ended at its deadline.  Its clause is judged by the descriptor's holds(). */
static void test_elapsed(void)
{
    const struct cts_outcome *o = &cts_elapsed_outcome;
    struct cts_rep r;
    struct cts_verdict v;
    const double cases[][4] = {/* elapsed_ns, kernel_ns, deadline, value */
                               {1002000, 1000000, 0, 1},
                               {999100, 1000000, 0, 1},
                               {998900, 1000000, 0, 2},
                               {1002000, 1000000, 1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cts_rep_begin(&r);
        CHECK_INT(cts_obs_set(&r, o, "elapsed_ns", cases[i][0]), 0);
        CHECK_INT(cts_obs_set(&r, o, "kernel_ns", cases[i][1]), 0);
        CHECK_INT(cts_obs_set(&r, o, "deadline", cases[i][2]), 0);
        memset(&v, 0, sizeof v);
        CHECK_INT(o->from_rep(&r, &v), 1);
        CHECK_INT(cts_outcome_get(&v, o), (int)cases[i][3]);
    }
    CHECK_STR(o->names[1], "covers");
    CHECK_INT(o->holds(1), 1);
    CHECK_INT(o->holds(2), 0);
    struct cts_result res;
    memset(&res, 0, sizeof res);
    res.nreps = 1;
    cts_rep_begin(&res.reps[0]);
    cts_obs_set(&res.reps[0], o, "elapsed_ns", 990000);
    cts_obs_set(&res.reps[0], o, "kernel_ns", 1000000);
    cts_obs_set(&res.reps[0], o, "deadline", 0);
    cts_classify(&res);
    CHECK_STR(res.symbol, "E<");
}

/* Green contexts: a repetition's observations as cases/green.c sets them, NAN where it sets none. */
static void green_rep(struct cts_rep *r, const double *x)
{
    static const char *const names[] = {"a_sms", "resident", "distinct_sms", "before_open",
                                        "after_release_us", "closed_us", "deadline", "not_ready"};
    cts_rep_begin(r);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (!isnan(x[k]))
            CHECK_INT(cts_obs_set(r, &cts_green_outcome, names[k], x[k]), 0);
}

/* B's kernel starts or is queued only where A's held kernel filled the SMs it was given, one block
 * an SM, and did not end itself; a call returns, waits (soon after the release, having met a gate
 * closed long enough), or, the query, answers done or not_ready while the gate was closed. */
static void test_green(void)
{
    const struct cts_outcome *o = &cts_green_outcome;
    const double N = NAN;
    const double cases[][9] = {
        /* a_sms, resident, distinct, before, after_us, closed_us, deadline, not_ready -> value */
        {64, 64, 64, 1, -15000, 20, 0, N, 1},    /* seen before the opening: starts */
        {64, 64, 64, 0, -3, 20000, 0, N, 1},     /* stamped before the release: starts */
        {132, 132, 132, 0, 4, 20000, 0, N, 2},   /* after the release, a long window: queued */
        {132, 132, 132, 0, 4, 2000, 0, N, 0},    /* too short a window */
        {64, 60, 60, 0, 4, 20000, 0, N, 0},      /* A held fewer SMs than it was given */
        {64, 64, 32, 1, -100, 20, 0, N, 0},      /* two blocks an SM */
        {64, 64, 64, 1, -100, 20, 1, N, 0},      /* a block at its deadline */
        {64, 64, N, 1, -20, 300, 0, N, 3},       /* a call before the opening: returns */
        {64, 64, N, 0, 30, 20000, 0, N, 4},      /* soon after it: waits */
        {64, 64, N, 0, 30000, 20000, 0, N, 0},   /* long after it: not proven */
        {64, 64, N, 0, 30, 5000, 0, N, 0},       /* a gate closed too briefly (a late call) */
        {64, 64, N, 1, -20, 10, 0, 0, 5},        /* the query: CUDA_SUCCESS while held */
        {64, 64, N, 1, -20, 10, 0, 1, 6},        /* CUDA_ERROR_NOT_READY */
        {64, 64, N, 0, 5, 20000, 0, 1, 0},       /* answered only after the opening */
        {64, 0, N, 1, -20, 10, 0, N, 0},         /* nothing held */
    };
    struct cts_rep r;
    struct cts_verdict v;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        green_rep(&r, cases[i]);
        memset(&v, 0, sizeof v);
        CHECK_INT(o->from_rep(&r, &v), 1);
        CHECK_INT(cts_outcome_get(&v, o), (int)cases[i][8]);
    }
    CHECK_STR(o->names[1], "starts");
    CHECK_STR(o->names[2], "queued");
    CHECK_INT(o->holds(4), 1); /* waits: what cuCtxSynchronize's clause promises */
    CHECK_INT(o->holds(5), 1); /* done: cuStreamQuery's */
    CHECK_INT(o->holds(3), 0);
    CHECK_INT(o->holds(6), 0);
    struct cts_result res;
    memset(&res, 0, sizeof res);
    res.nreps = 2;
    green_rep(&res.reps[0], cases[0]);
    green_rep(&res.reps[1], cases[1]);
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    CHECK_STR(res.symbol, "Ks");
    green_rep(&res.reps[1], cases[2]);
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
}

int main(void)
{
    struct cts_result res;
    char sym[16];

    test_threads();

    /* Starved: a call whose thread waited for a processor through most of
     * the time the gate was closed proves nothing by returning after it
     * (H100 under 32 busy host threads: 646 of 684 us). */
    CHECK(cts_starved(684.0, 646.5, 200.0));
    CHECK(cts_starved(200.0, 148.5, 120.0));
    /* A gate closed for less than the bound: the timeout was short, not the
     * thread starved (a 16 MiB pageable copy, 0 us run delay, 3805 us
     * closed against a bound of 4000 us); tracking measures it again. */
    CHECK(!cts_starved(3805.0, 0.0, 4000.0));
    CHECK(!cts_starved(200.0, 150.0, 260.0));
    CHECK(!cts_starved(684.0, 0.0, 200.0));
    CHECK(!cts_starved(700.0, 460.0, 120.0)); /* a spinning waiter given a third of a core */
    CHECK(!cts_starved(684.0, NAN, 200.0));   /* no schedstat: nothing to say */
    CHECK(cts_starved(300.0, 100.0, 200.0 + 1e-9));
    CHECK(!cts_starved(300.0, 100.0, 200.0));

    /* The run delay while the gate was closed: the larger lower bound.  A
     * spinning waiter under load had 19956 us of run delay in a call whose
     * gate was closed 12869 us (H200, 32 busy threads, measured); had it
     * returned 17100 us after the opening and the watchdog read 8400 us
     * there (figures for the test), two thirds of the closed time starved
     * still leaves it time to have returned: not starved. */
    CHECK(cts_starved_closed(8400.0, 19956.0, 17100.0) == 8400.0);
    CHECK(!cts_starved(12869.0, cts_starved_closed(8400.0, 19956.0, 17100.0), 700.0));
    /* A wait in progress at the opening, which the watchdog's reading
     * misses: the whole call's less the 5 us after the opening. */
    CHECK(cts_starved_closed(40.0, 650.0, 5.0) == 645.0);
    CHECK(cts_starved(684.0, cts_starved_closed(40.0, 650.0, 5.0), 200.0));
    CHECK(cts_starved_closed(NAN, 300.0, 100.0) == 200.0); /* the watchdog could not read it */
    CHECK(cts_starved_closed(NAN, NAN, 100.0) == 0.0);     /* no schedstat at all */

    /* Late to its gate: a 21.7 us memset that returned 24.6 us after its
     * 3200 us gate opened began 2.9 us after it (H200, 32 busy threads);
     * one that met the gate closed for its whole timeout did not. */
    CHECK(cts_called_late(21.7 - 24.6, 3200.0));
    CHECK(cts_called_late(1599.0, 3200.0));
    CHECK(!cts_called_late(1600.0, 3200.0));
    CHECK(!cts_called_late(3199.5, 3200.0));

    /* Three agreeing repetitions: PASS with their verdict. */
    memset(&res, 0, sizeof res);
    res.nreps = 3;
    for (int i = 0; i < 3; i++)
        res.reps[i] = returns_rep(CTS_ORDER_HELD, CTS_ORDER_HELD, CTS_ORDER_RUNS);
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    CHECK_INT(res.verdict.host, CTS_HOST_RETURNS);
    CHECK_INT(res.verdict.op_after, CTS_ORDER_HELD);
    CHECK_INT(res.verdict.third_blocking, CTS_ORDER_HELD);
    CHECK_INT(res.verdict.third_nonblocking, CTS_ORDER_RUNS);
    cts_verdict_symbol(&res.verdict, sym, sizeof sym);
    CHECK_STR(sym, "Q+b");

    CHECK_STR(res.symbol, "Q+b");

    /* One proven repetition out of three differs: VARIES, never a majority.
     * The verdict keeps only what all three agree on; the symbol shows each
     * one seen. */
    res.reps[1].third_blocking = CTS_ORDER_RUNS;
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
    CHECK_STR(res.reason, "repetitions differ on third_blocking: held runs held");
    CHECK_INT(res.verdict.host, CTS_HOST_RETURNS);
    CHECK_INT(res.verdict.op_after, CTS_ORDER_HELD);
    CHECK_INT(res.verdict.third_blocking, CTS_ORDER_NA);
    CHECK_STR(res.symbol, "Q+b/Q");

    /* Every field that differs is named; a waiting repetition has no order. */
    res.reps[1] = waits_rep();
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
    CHECK_STR(res.reason, "repetitions differ on host: returns waits returns; op_after: held n/a "
                          "held; third_blocking: held n/a held; third_nonblocking: runs n/a runs");
    CHECK_INT(res.verdict.host, CTS_HOST_NA);
    CHECK_STR(res.symbol, "Q+b/W");

    /* A repetition left undecided after its retries makes the case
     * INCONCLUSIVE, whatever the others proved; harness trouble outranks it. */
    res.reps[1] = returns_rep(CTS_ORDER_HELD, CTS_ORDER_HELD, CTS_ORDER_RUNS);
    res.reps[1].status = CTS_INCONCLUSIVE;
    snprintf(res.reps[1].reason, sizeof res.reps[1].reason, "a held marker ran 900.0 us after the gate opened");
    cts_classify(&res);
    CHECK_INT(res.status, CTS_INCONCLUSIVE);
    CHECK_STR(res.reason, "repetition 2: a held marker ran 900.0 us after the gate opened");
    CHECK_STR(res.symbol, "");
    res.reps[2].status = CTS_BROKEN;
    snprintf(res.reps[2].reason, sizeof res.reps[2].reason, "the gate did not start");
    cts_classify(&res);
    CHECK_INT(res.status, CTS_BROKEN);

    /* A waiting call shows no order and no data observation. */
    for (int i = 0; i < 3; i++)
        res.reps[i] = waits_rep();
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    CHECK_INT(res.verdict.host, CTS_HOST_WAITS);
    CHECK_INT(res.verdict.op_after, CTS_ORDER_NA);
    CHECK_INT(res.verdict.src, CTS_SRC_NA);
    CHECK_INT(res.verdict.dst, CTS_DST_NA);
    cts_verdict_symbol(&res.verdict, sym, sizeof sym);
    CHECK_STR(sym, "W");

    /* Data order (written cases) is read from the bytes after the drain: it
     * stands whether the call waited or not, and a split is VARIES. */
    for (int i = 0; i < 3; i++) {
        res.reps[i] = waits_rep();
        res.reps[i].data = CTS_DATA_STALE;
        res.reps[i].reader = CTS_READER_SAW;
    }
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    CHECK_INT(res.verdict.data, CTS_DATA_STALE);
    cts_verdict_symbol(&res.verdict, sym, sizeof sym);
    CHECK_STR(sym, "Ws");
    res.reps[2].data = CTS_DATA_ORDERED;
    res.reps[1].reader = CTS_READER_MISSED;
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
    CHECK_INT(res.verdict.data, CTS_DATA_NA);
    CHECK(strstr(res.reason, "data: stale stale ordered") != NULL);
    CHECK(strstr(res.reason, "reader: saw missed saw") != NULL);
    CHECK_STR(res.symbol, "Ws/Wsu/W");
    for (int i = 0; i < 3; i++) {
        res.reps[i] = returns_rep(CTS_ORDER_HELD, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
        res.reps[i].data = CTS_DATA_PARTIAL;
        res.reps[i].reader = CTS_READER_SAW;
    }
    cts_classify(&res);
    CHECK_STR(res.symbol, "Qm");
    for (int i = 0; i < 3; i++)
        res.reps[i].data = CTS_DATA_ORDERED;
    cts_classify(&res);
    CHECK_STR(res.symbol, "Q"); /* in order: nothing added */

    /* Landing: a synchronous call's, kept where it waited or its stream ran
     * on ("~": not complete right after the return); behind held work in its
     * own stream, never (it cannot have landed); an asynchronous call's is
     * evidence only (nothing promised: its copy races the read). */
    for (int i = 0; i < 3; i++) {
        res.reps[i] = returns_rep(CTS_ORDER_RUNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
        res.reps[i].landed = CTS_DST_PENDING;
    }
    res.reps[1].landed = CTS_DST_COMPLETE;
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS); /* asynchronous: a race, not a verdict */
    CHECK_INT(res.verdict.landed, CTS_DST_NA);
    CHECK_STR(res.symbol, "A");
    res.synchronous = 1;
    res.reps[1].landed = CTS_DST_PENDING;
    cts_classify(&res);
    CHECK_INT(res.verdict.landed, CTS_DST_PENDING);
    CHECK_STR(res.symbol, "A~");
    res.reps[1].landed = CTS_DST_COMPLETE;
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
    CHECK(strstr(res.reason, "landed: pending complete pending") != NULL);
    for (int i = 0; i < 3; i++) {
        res.reps[i] = waits_rep();
        res.reps[i].landed = CTS_DST_PENDING;
    }
    cts_classify(&res);
    CHECK_STR(res.symbol, "W~");
    for (int i = 0; i < 3; i++) {
        res.reps[i] = returns_rep(CTS_ORDER_HELD, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
        res.reps[i].landed = CTS_DST_PENDING;
    }
    cts_classify(&res);
    CHECK_INT(res.verdict.landed, CTS_DST_NA);
    CHECK_STR(res.symbol, "Q");
    res.synchronous = 0;

    /* A capture's outcome, from the codes, the graph and the bytes
     * (cts_capture_judge), and its cell letter. */
    {
        struct cts_capture_obs o = {.rc = "cudaSuccess", .after = CTS_CAPST_ACTIVE, .end = "cudaSuccess",
                                    .node_count = 1, .eager = 0, .launched = 2};
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_GRAPH);
        o.launched = 1; /* a node whose launch did part of it: not the call */
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_LOST);
        o.node_count = 0, o.launched = -1, o.eager = 2;
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_RAN);
        o.eager = 0; /* accepted, not in the graph, not done */
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_LOST);
        o.eager = -1; /* a query: nothing to see, nothing captured */
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_RAN);
        o.node_count = 1; /* an allocation node: no effect to see */
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_GRAPH);
        o.node_count = 0, o.rc = "cudaErrorInvalidValue";
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_REFUSED);
        o.eager = 1; /* refused, yet done in part */
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_REFUSED_EFFECT);
        o.eager = -1, o.rc = "cudaErrorStreamCaptureUnsupported", o.after = CTS_CAPST_INVALIDATED,
        o.end = "cudaErrorStreamCaptureInvalidated";
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_ENDED);
        o.rc = "cudaSuccess";
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_ACCEPTED_ENDED);
        o.after = CTS_CAPST_ACTIVE; /* only cudaStreamEndCapture says so */
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_ACCEPTED_ENDED);
        o.rc = NULL;
        CHECK_INT(cts_capture_judge(&o), CTS_CAP_NA);
        /* In a conditional node's body (cases/capture_body.c): `end` the first end that failed, node_count
         * the body's nodes less the harness's kernel, launched 0 where the parent graph did not launch. */
        struct cts_capture_obs b = {.rc = "cudaSuccess", .after = CTS_CAPST_ACTIVE, .end = "cudaSuccess",
                                    .node_count = 1, .eager = 0, .launched = 2, .body = 1};
        CHECK_INT(cts_capture_judge(&b), CTS_CAP_GRAPH);
        b.launched = 0; /* the parent graph would not instantiate: the body's memset never ran */
        CHECK_INT(cts_capture_judge(&b), CTS_CAP_LOST);
        b.end = "cudaErrorStreamCaptureUnjoined"; /* the parent's end failed, the body's succeeded */
        CHECK_INT(cts_capture_judge(&b), CTS_CAP_ACCEPTED_ENDED);
        b.rc = "cudaErrorStreamCaptureUnsupported", b.after = CTS_CAPST_INVALIDATED, b.eager = b.launched = -1;
        b.node_count = 0; /* cudaStreamSynchronize of the body stream */
        CHECK_INT(cts_capture_judge(&b), CTS_CAP_ENDED);
        b = (struct cts_capture_obs){.rc = "cudaSuccess", .after = CTS_CAPST_ACTIVE, .end = "cudaSuccess",
                                     .eager = -1, .launched = -1, .body = 1}; /* cudaMalloc, Relaxed */
        CHECK_INT(cts_capture_judge(&b), CTS_CAP_RAN);
        struct cts_verdict cv = {.capture = CTS_CAP_ENDED};
        cts_verdict_symbol(&cv, sym, sizeof sym);
        CHECK_STR(sym, "E");
        cv.capture = CTS_CAP_GRAPH;
        cts_verdict_symbol(&cv, sym, sizeof sym);
        CHECK_STR(sym, "G");
        struct cts_result cr;
        memset(&cr, 0, sizeof cr);
        cr.nreps = 2;
        for (int i = 0; i < 2; i++) {
            cr.reps[i].status = CTS_PASS;
            cr.reps[i].cap.outcome = i ? CTS_CAP_RAN : CTS_CAP_ENDED;
        }
        cts_classify(&cr);
        CHECK_INT(cr.status, CTS_VARIES);
        CHECK(strstr(cr.reason, "capture: ended ran") != NULL);
        CHECK_STR(cr.symbol, "E/R");
    }

    /* Data observations count only when the op stream was held: otherwise
     * the copy may finish between the return and the check. */
    for (int i = 0; i < 3; i++) {
        res.reps[i] = returns_rep(CTS_ORDER_RUNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
        res.reps[i].src = i == 1 ? CTS_SRC_AFTER_RETURN : CTS_SRC_AT_CALL; /* a race */
        res.reps[i].dst = i == 2 ? CTS_DST_COMPLETE : CTS_DST_PENDING;
    }
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    CHECK_INT(res.verdict.src, CTS_SRC_NA);
    CHECK_INT(res.verdict.dst, CTS_DST_NA);
    cts_verdict_symbol(&res.verdict, sym, sizeof sym);
    CHECK_STR(sym, "A");

    for (int i = 0; i < 3; i++) {
        res.reps[i] = returns_rep(CTS_ORDER_HELD, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
        res.reps[i].src = CTS_SRC_AT_CALL;
        res.reps[i].dst = CTS_DST_PENDING;
    }
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    CHECK_INT(res.verdict.src, CTS_SRC_AT_CALL);
    CHECK_INT(res.verdict.dst, CTS_DST_PENDING);
    cts_verdict_symbol(&res.verdict, sym, sizeof sym);
    CHECK_STR(sym, "Qc");
    res.reps[2].src = CTS_SRC_PARTIAL;
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
    CHECK_STR(res.reason, "repetitions differ on src: at_call at_call partial");
    CHECK_STR(res.symbol, "Qc/Qp");

    /* A broken repetition outranks a failed one, which outranks agreement. */
    for (int i = 0; i < 3; i++)
        res.reps[i] = returns_rep(CTS_ORDER_RUNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
    res.reps[1].status = CTS_FAIL;
    snprintf(res.reps[1].reason, sizeof res.reps[1].reason, "cudaMemcpyAsync returned cudaErrorInvalidValue");
    cts_classify(&res);
    CHECK_INT(res.status, CTS_FAIL);
    CHECK_STR(res.reason, "repetition 2: cudaMemcpyAsync returned cudaErrorInvalidValue");
    res.reps[2].status = CTS_BROKEN;
    snprintf(res.reps[2].reason, sizeof res.reps[2].reason, "the gate did not start");
    cts_classify(&res);
    CHECK_INT(res.status, CTS_BROKEN);
    CHECK_STR(res.reason, "repetition 3: the gate did not start");

    /* No repetition at all is the harness's fault. */
    res.nreps = 0;
    cts_classify(&res);
    CHECK_INT(res.status, CTS_BROKEN);

    /* A hold the control shows too is the streams' doing: held_anyway, and
     * not counted against the call in the symbol. */
    res.nreps = 3;
    for (int i = 0; i < 3; i++)
        res.reps[i] = returns_rep(CTS_ORDER_HELD, CTS_ORDER_HELD, CTS_ORDER_HELD);
    res.control.op_after = CTS_ORDER_HELD;
    res.control.third_blocking = CTS_ORDER_HELD;
    res.control.third_nonblocking = CTS_ORDER_RUNS;
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    CHECK_INT(res.verdict.op_after, CTS_ORDER_HELD_ANYWAY);
    CHECK_INT(res.verdict.third_blocking, CTS_ORDER_HELD_ANYWAY);
    CHECK_INT(res.verdict.third_nonblocking, CTS_ORDER_HELD);
    CHECK_STR(cts_order_name(res.verdict.third_blocking), "held_anyway");
    cts_verdict_symbol(&res.verdict, sym, sizeof sym);
    CHECK_STR(sym, "Q+n");
    memset(&res.control, 0, sizeof res.control);

    /* A single repetition is its own verdict. */
    res.nreps = 1;
    res.reps[0] = returns_rep(CTS_ORDER_RUNS, CTS_ORDER_HELD, CTS_ORDER_HELD);
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    cts_verdict_symbol(&res.verdict, sym, sizeof sym);
    CHECK_STR(sym, "A+b+n");

    /* A documented rejection is a verdict of its own: "X", and "XW" where
     * the rejection waited; repetitions rejected and accepted differ. */
    res.nreps = 3;
    for (int i = 0; i < 3; i++) {
        res.reps[i] = returns_rep(CTS_ORDER_RUNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
        res.reps[i].rejected = "cudaErrorInvalidValue";
    }
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    CHECK_STR(res.verdict.rejected, "cudaErrorInvalidValue");
    CHECK_STR(res.symbol, "X");
    for (int i = 0; i < 3; i++)
        res.reps[i] = waits_rep(), res.reps[i].rejected = "cudaErrorInvalidValue";
    cts_classify(&res);
    CHECK_STR(res.symbol, "XW");
    res.reps[2] = returns_rep(CTS_ORDER_RUNS, CTS_ORDER_RUNS, CTS_ORDER_RUNS);
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
    CHECK(res.verdict.rejected == NULL);
    CHECK_CONTAINS(res.reason, "rejected: cudaErrorInvalidValue cudaErrorInvalidValue n/a");

    /* A pair (the overlap family), from the H100 prototype's medians: times
     * alone, then A's and B's start and end events in the pair. */
    struct { double aa, ba, a0, a1, b0, b1; enum cts_overlap want; } pairs[] = {
        {2014.6, 1235.3, 0, 2011.8, 5, 1241.0, CTS_OVERLAP_OVERLAPS},    /* kernel, h2d pinned */
        {1235.3, 1229.2, 0, 1579.0, 4, 1500.0, CTS_OVERLAP_OVERLAPS},    /* h2d and d2h pinned: 0.72, contended */
        {1235.3, 1235.3, 0, 1222.5, 4, 2447.1, CTS_OVERLAP_SERIALIZES},  /* h2d, h2d: one engine */
        {723.7, 723.7, 0, 1421.0, 3, 1425.7, CTS_OVERLAP_SHARES},         /* d2d, d2d: bandwidth */
        {723.7, 2014.6, 0, 716.1, 6, 2710.2, CTS_OVERLAP_SERIALIZES},    /* d2d, then a kernel */
        {9632.3, 2014.6, 0, 8762.2, 8770.0, 10784.6, CTS_OVERLAP_SERIALIZES}, /* pageable first */
        {612, 579, 0, 866, 12, 774, CTS_OVERLAP_OVERLAPS},  /* h2d pinned, d2h pageable: 0.57, both slowed */
        {1000, 1000, 0, 1000, 2, 1500, CTS_OVERLAP_OVERLAPS},              /* 0.50: half hidden */
        {1000, 1000, 0, 1000, 2, 1600, CTS_OVERLAP_PARTIAL},               /* 0.40 */
        {1000, 1000, 0, 1000, 2, 1510, CTS_OVERLAP_PARTIAL},              /* 0.49: no gap below overlaps */
        {1000, 1000, 0, 1000, 2, 1800, CTS_OVERLAP_PARTIAL},              /* 0.20 */
        {1000, 1000, 0, 1000, 2, 1810, CTS_OVERLAP_SERIALIZES},           /* 0.19, not slowed */
        {1000, 1000, 0, 1400, 2, 1900, CTS_OVERLAP_SERIALIZES},           /* 0.10, slowed 1.4 times */
        {1000, 1000, 0, 1500, 2, 1900, CTS_OVERLAP_SHARES},               /* 0.10, slowed 1.5 times */
        {0, 1000, 0, 1000, 2, 1900, CTS_OVERLAP_NA},                      /* no time alone: no fraction */
    };
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        struct cts_pair_obs p = {.a_alone_us = pairs[k].aa, .b_alone_us = pairs[k].ba,
                                 .a_start_us = pairs[k].a0, .a_end_us = pairs[k].a1,
                                 .b_start_us = pairs[k].b0, .b_end_us = pairs[k].b1};
        cts_pair_judge(&p);
        CHECK_INT(p.overlap, pairs[k].want);
    }
    /* Same stream: B's start event after A's end proves it, whatever the times say. */
    struct cts_pair_obs same = {.a_alone_us = 1000, .b_alone_us = 10, .a_start_us = 0, .a_end_us = 500,
                                .b_start_us = 500.5, .b_end_us = 600};
    cts_pair_judge(&same);
    CHECK_INT(same.overlap, CTS_OVERLAP_SERIALIZES);
    CHECK(fabs(same.makespan_us - 600) < 1e-9 && fabs(same.fraction - 41.0) < 1e-9);
    /* A staged-copy version: the share of the saving perfect overlap would give. */
    struct cts_staged_obs st = {.sequential_us = 2590, .version_us = 1690, .h2d_us = 620, .kernel_us = 1300,
                                .d2h_us = 620};
    CHECK_INT(cts_staged_judge(&st), CTS_OVERLAP_OVERLAPS); /* (2590-1690)/(2590-1300) = 0.70 */
    st.version_us = 2500;
    CHECK_INT(cts_staged_judge(&st), CTS_OVERLAP_SERIALIZES);
    st.version_us = 2100; /* 0.38 */
    CHECK_INT(cts_staged_judge(&st), CTS_OVERLAP_PARTIAL);
    st.version_us = 2330; /* 0.20 */
    CHECK_INT(cts_staged_judge(&st), CTS_OVERLAP_PARTIAL);
    st.version_us = 2340; /* 0.19 */
    CHECK_INT(cts_staged_judge(&st), CTS_OVERLAP_SERIALIZES);
    st.kernel_us = 3000; /* no phase may be longer than the whole */
    CHECK_INT(cts_staged_judge(&st), CTS_OVERLAP_NA);
    /* Repetitions of a pair: their verdicts agree (PASS, the letter) or not (VARIES). */
    memset(&res, 0, sizeof res);
    res.nreps = 3;
    for (int i = 0; i < 3; i++)
        res.reps[i].pair.overlap = CTS_OVERLAP_SHARES;
    cts_classify(&res);
    CHECK_INT(res.status, CTS_PASS);
    CHECK_STR(res.symbol, "C");
    CHECK_INT(res.verdict.host, CTS_HOST_NA);
    res.reps[1].pair.overlap = CTS_OVERLAP_OVERLAPS;
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
    CHECK_STR(res.symbol, "C/O");
    CHECK_CONTAINS(res.reason, "overlap: shares overlaps shares");

    /* Queue depth: two scans, the second's stall time 30 ms longer (simulated
     * answers; the H100's kernel launches stopped at 1,021, the waiting call
     * took 10.1 and 40.2 ms). */
    {
        struct cts_depth_scan a = {.queued = 1021, .stopped = 1, .blocked_us = 10089},
                              b = {.queued = 1021, .stopped = 1, .blocked_us = 40167};
        CHECK_INT(cts_depth_decide(&a, &b, 30000, 0.5), CTS_DEPTH_FOUND);
        b.blocked_us = 24000; /* grew by less than half the difference: not the gate's doing */
        CHECK_INT(cts_depth_decide(&a, &b, 30000, 0.5), CTS_DEPTH_NA);
        b.blocked_us = 40167, b.queued = 1022; /* stopped a call later (pageable copies): the first count stands */
        CHECK_INT(cts_depth_decide(&a, &b, 30000, 0.5), CTS_DEPTH_FOUND);
        b.queued = 1021, a.early = 1; /* returned before the watchdog opened the gate: descheduled */
        CHECK_INT(cts_depth_decide(&a, &b, 30000, 0.5), CTS_DEPTH_NA);
        a.early = 0, b.stopped = 0; /* one scan stopped, the other did not */
        CHECK_INT(cts_depth_decide(&a, &b, 30000, 0.5), CTS_DEPTH_NA);
        a.stopped = 0, a.queued = b.queued = 65536;
        CHECK_INT(cts_depth_decide(&a, &b, 30000, 0.5), CTS_DEPTH_NONE);

        int again;
        struct cts_beside_try t1 = {.filled = 1, .full = 1, .returned = 1, .call_us = 8},
                              t2 = {.filled = 1, .full = 1, .call_us = 40100};
        CHECK_INT(cts_beside_decide(&t1, NULL, 30000, 0.5, &again), CTS_HOST_RETURNS);
        CHECK_INT(again, 0);
        t1.full = 0; /* the full stream took another launch: its queue was not full */
        CHECK_INT(cts_beside_decide(&t1, NULL, 30000, 0.5, &again), CTS_HOST_NA);
        CHECK_INT(again, 0);
        t1.full = 1, t1.returned = 0, t1.call_us = 8200; /* waited: a second try is wanted */
        CHECK_INT(cts_beside_decide(&t1, NULL, 30000, 0.5, &again), CTS_HOST_NA);
        CHECK_INT(again, 1);
        CHECK_INT(cts_beside_decide(&t1, &t2, 30000, 0.5, &again), CTS_HOST_WAITS);
        t2.call_us = 9000; /* did not follow the stall time */
        CHECK_INT(cts_beside_decide(&t1, &t2, 30000, 0.5, &again), CTS_HOST_NA);
        t2.call_us = 40100, t2.filled = 0; /* the second fill came short */
        CHECK_INT(cts_beside_decide(&t1, &t2, 30000, 0.5, &again), CTS_HOST_NA);
        t1.filled = 0;
        CHECK_INT(cts_beside_decide(&t1, NULL, 30000, 0.5, &again), CTS_HOST_NA);
        CHECK_INT(again, 0);

        /* Repetitions: the count is the verdict; counts that differ VARY. */
        memset(&res, 0, sizeof res);
        res.nreps = 2;
        for (int i = 0; i < 2; i++) {
            res.reps[i].status = CTS_PASS;
            res.reps[i].depth.limit = CTS_DEPTH_FOUND;
            res.reps[i].depth.queued = 1021;
        }
        cts_classify(&res);
        CHECK_INT(res.status, CTS_PASS);
        CHECK_STR(res.symbol, "D1021");
        CHECK_INT(res.verdict.queued, 1021);
        CHECK_INT(res.verdict.host, CTS_HOST_NA);
        res.reps[1].depth.queued = 987;
        cts_classify(&res);
        CHECK_INT(res.status, CTS_VARIES);
        CHECK_STR(res.symbol, "D1021/D987");
        CHECK_CONTAINS(res.reason, "depth: found 1021 found 987");
        res.reps[1].depth.limit = res.reps[0].depth.limit = CTS_DEPTH_NONE;
        res.reps[1].depth.queued = res.reps[0].depth.queued = 65536;
        cts_classify(&res);
        CHECK_STR(res.symbol, "D>65536");
        for (int i = 0; i < 2; i++) { /* beside a full queue: the host's letter */
            res.reps[i].depth.limit = CTS_DEPTH_BESIDE;
            res.reps[i].host = CTS_HOST_WAITS;
        }
        cts_classify(&res);
        CHECK_INT(res.status, CTS_PASS);
        CHECK_STR(res.symbol, "W");
    }
    /* Latency from several threads: nearest-rank quantiles. */
    {
        double t[100];
        for (int i = 0; i < 100; i++)
            t[i] = i + 1; /* 1 .. 100 */
        CHECK(fabs(cts_quantile(t, 100, 0.99) - 99) < 1e-9); /* 0.99 * 100 is 99.000...01 in binary */
        CHECK(fabs(cts_quantile(t, 100, 0.5) - 50) < 1e-9);
        CHECK(fabs(cts_quantile(t, 100, 1.0) - 100) < 1e-9);
        CHECK(fabs(cts_quantile(t, 1, 0.99) - 1) < 1e-9);
        CHECK(fabs(cts_quantile(t, 3, 0.5) - 2) < 1e-9);
        CHECK(isnan(cts_quantile(t, 0, 0.5)));
        double w[960];
        for (int i = 0; i < 960; i++)
            w[i] = i; /* the 951st smallest is the 99th percentile of 960 calls */
        CHECK(fabs(cts_quantile(w, 960, 0.99) - 950) < 1e-9);
        CHECK(fabs(cts_quantile(w, 960, 0.5) - 479) < 1e-9);
    }
    /* Other-thread stalls: the second thread's commands against a call from
     * 1,000 to 11,000 us (simulated; the control's slowest command 12 us). */
    {
        struct cts_stall_obs o;
        struct cts_stall_cmd ran_on[] = {{900, 905}, {1000, 1006}, {5000, 5009}, {10990, 10996}, {11001, 11004}};
        CHECK_INT(cts_stall_decide(ran_on, 5, 1000, 11000, 12, 0, &o), CTS_STALL_UNAFFECTED);
        CHECK_INT(o.commands, 3); /* begun during the call: not the one before, nor the one after */
        CHECK_INT(o.inside, 3);
        CHECK(fabs(o.slowest_us - 9) < 1e-9);
        CHECK(isnan(o.stalled_us));
        /* One began at 2,000 and returned only after the call (at 11,004): stalled. */
        struct cts_stall_cmd held[] = {{1000, 1006}, {2000, 11004}, {11010, 11014}};
        CHECK_INT(cts_stall_decide(held, 3, 1000, 11000, 12, 0, &o), CTS_STALL_STALLS);
        CHECK_INT(o.commands, 2);
        CHECK_INT(o.inside, 1);
        CHECK(fabs(o.stalled_us - 9004) < 1e-9);
        /* Began 5 us before the return, returned 4 us after it: it would have
         * run over the call's end anyway (less than the control's slowest before it). */
        struct cts_stall_cmd late[] = {{1000, 1006}, {10995, 11004}};
        CHECK_INT(cts_stall_decide(late, 2, 1000, 11000, 12, 0, &o), CTS_STALL_UNAFFECTED);
        /* Began early enough, but took no more than twice the control's slowest. */
        struct cts_stall_cmd slowish[] = {{10980, 11003}};
        CHECK_INT(cts_stall_decide(slowish, 1, 1000, 11000, 12, 0, &o), CTS_STALL_BRIEF);
        slowish[0].end_us = 11005; /* 25 us: more than twice 12 */
        CHECK_INT(cts_stall_decide(slowish, 1, 1000, 11000, 12, 0, &o), CTS_STALL_STALLS);
        /* The control's slowest 0.7 us (event records): a stall must also be 10 us longer. */
        struct cts_stall_cmd jitter[] = {{10995, 11003}}; /* 8 us, over the call's end */
        CHECK_INT(cts_stall_decide(jitter, 1, 1000, 11000, 0.7, 0, &o), CTS_STALL_BRIEF);
        jitter[0].end_us = 11007; /* 12 us */
        CHECK_INT(cts_stall_decide(jitter, 1, 1000, 11000, 0.7, 0, &o), CTS_STALL_STALLS);
        /* A call of 3 us: no command began and returned inside it. */
        struct cts_stall_cmd brief[] = {{990, 996}, {1001, 1007}};
        CHECK_INT(cts_stall_decide(brief, 2, 1000, 1003, 12, 0, &o), CTS_STALL_BRIEF);
        CHECK_INT(o.commands, 1);
        CHECK_INT(o.inside, 0);
        /* A call of 1 us with an event record of 0.6 us inside it: still brief (under 5 us). */
        struct cts_stall_cmd fits[] = {{1000.2, 1000.8}};
        CHECK_INT(cts_stall_decide(fits, 1, 1000, 1001, 0.7, 0, &o), CTS_STALL_BRIEF);
        CHECK_INT(o.inside, 1);
        CHECK_INT(cts_stall_decide(fits, 1, 1000, 1005, 0.7, 0, &o), CTS_STALL_UNAFFECTED);
        CHECK_INT(cts_stall_decide(NULL, 0, 1000, 11000, 12, 0, &o), CTS_STALL_BRIEF);
        CHECK_INT(o.commands, 0);

        /* A busy host: what the second thread waited for a processor (run
         * delay) is not a stall, and a window where it waited longer than its
         * pace at once proves no UNAFFECTED or BRIEF (NA: measured again). */
        struct cts_stall_cmd preempted[] = {{1000, 1006, 0, 0}, {2000, 6020, 4005, 0}, {6030, 6036, 0, 2}};
        CHECK_INT(cts_stall_decide(preempted, 3, 1000, 6010, 12, 0, &o), CTS_STALL_NA); /* 4,020 us, 15 its own */
        CHECK(fabs(o.slowest_us - 15) < 1e-9);
        CHECK(isnan(o.stalled_us));
        CHECK(fabs(o.kept_us - 4005) < 1e-9);
        preempted[1].delay_us = 40; /* 40 us kept: within the pace; the rest is its own, held */
        CHECK_INT(cts_stall_decide(preempted, 3, 1000, 6010, 12, 0, &o), CTS_STALL_STALLS);
        CHECK(fabs(o.stalled_us - 3980) < 1e-9);
        CHECK(fabs(o.kept_us - 40) < 1e-9);
        preempted[1].delay_us = 4005;
        preempted[1].end_us = 10000; /* held 3,995 us of its own besides: a stall, however long kept */
        CHECK_INT(cts_stall_decide(preempted, 3, 1000, 6010, 12, 0, &o), CTS_STALL_STALLS);
        /* Kept between two commands: the gap that overlaps the call counts, one before it does not. */
        struct cts_stall_cmd gap[] = {{900, 905, 0, 0}, {1001, 1006, 0, 90}, {5000, 5006, 0, 3900}, {5050, 5056, 0, 1}};
        CHECK_INT(cts_stall_decide(gap, 4, 1000, 5060, 12, 0, &o), CTS_STALL_NA);
        CHECK(fabs(o.kept_us - 3900) < 1e-9);
        gap[2].gap_delay_us = 30;
        CHECK_INT(cts_stall_decide(gap, 4, 1000, 5060, 12, 0, &o), CTS_STALL_NA); /* 90 us, from 905 to 1001 */
        gap[1].gap_delay_us = 20;
        CHECK_INT(cts_stall_decide(gap, 4, 1000, 5060, 12, 0, &o), CTS_STALL_UNAFFECTED);
        CHECK(fabs(o.kept_us - 30) < 1e-9);
        gap[0].delay_us = 4000; /* over before the call began: not the call's */
        CHECK_INT(cts_stall_decide(gap, 4, 1000, 5060, 12, 0, &o), CTS_STALL_UNAFFECTED);
        /* A gap that ends after the call but began inside it counts. */
        CHECK_INT(cts_stall_decide(gap, 3, 1000, 1020, 12, 0, &o), CTS_STALL_UNAFFECTED);
        gap[2].gap_delay_us = 3900; /* kept from 1006 until 5000: past the call's end at 1020 */
        CHECK_INT(cts_stall_decide(gap, 3, 1000, 1020, 12, 0, &o), CTS_STALL_NA);
        gap[2].gap_delay_us = NAN; /* not known (no schedstat): judged as before */
        CHECK_INT(cts_stall_decide(gap, 3, 1000, 1020, 12, 0, &o), CTS_STALL_UNAFFECTED);
        CHECK(isnan(o.kept_us));

        /* Held through the call, all but its end, and returned just inside it:
         * the call's last work after letting it go was slower under load (H200,
         * cudaMalloc of 16 MiB: 287 us, its command held 280 us of its own). */
        struct cts_stall_cmd whole[] = {{1002, 1282, 0, 0}, {1283, 1284, 0, 0}};
        CHECK_INT(cts_stall_decide(whole, 2, 1000, 1287, 5.8, 0, &o), CTS_STALL_STALLS);
        CHECK(fabs(o.stalled_us - 280) < 1e-9);
        CHECK_INT(o.inside, 2);
        whole[0].end_us = 1200; /* 198 us: under three quarters of the call, and inside it */
        CHECK_INT(cts_stall_decide(whole, 2, 1000, 1287, 5.8, 0, &o), CTS_STALL_UNAFFECTED);
        /* ... but three quarters of the call's own time: its thread waited 40 us for a processor */
        CHECK_INT(cts_stall_decide(whole, 2, 1000, 1287, 5.8, 40, &o), CTS_STALL_STALLS);

        /* The calling thread kept from a processor in the call: a command held
         * by it may have returned before its late return: no proof of
         * UNAFFECTED; a stall stays one. */
        struct cts_stall_cmd caller[] = {{1000, 1030, 0, 0}, {2500, 2506, 0, 1}};
        CHECK_INT(cts_stall_decide(caller, 2, 1000, 2554, 0.7, 0, &o), CTS_STALL_UNAFFECTED);
        CHECK_INT(cts_stall_decide(caller, 2, 1000, 2554, 0.7, 1300, &o), CTS_STALL_NA);
        CHECK(fabs(o.kept_us - 1300) < 1e-9);
        CHECK_INT(cts_stall_decide(caller, 2, 1000, 2554, 0.7, 49, &o), CTS_STALL_UNAFFECTED);
        caller[0].end_us = 2600; /* returned after the call: held by it, however late it returned */
        CHECK_INT(cts_stall_decide(caller, 1, 1000, 2554, 0.7, 1300, &o), CTS_STALL_STALLS);
        CHECK_INT(cts_stall_decide(caller, 1, 1000, 2554, 0.7, NAN, &o), CTS_STALL_STALLS);
        CHECK(isnan(o.kept_us));

        /* Nothing fitted inside a call of 40 us whose second thread waited 30 us
         * for a processor (H200 under load: cudaMemGetInfo came out brief in
         * some repetitions): the wait may be why; under 10 us it is not. */
        struct cts_stall_cmd nofit[] = {{990, 996, 0, 0}, {1035, 1041, 0, 30}};
        CHECK_INT(cts_stall_decide(nofit, 2, 1000, 1040, 5, 0, &o), CTS_STALL_NA);
        nofit[1].gap_delay_us = 8;
        CHECK_INT(cts_stall_decide(nofit, 2, 1000, 1040, 5, 0, &o), CTS_STALL_BRIEF);
        CHECK_INT(cts_stall_decide(nofit, 2, 1000, 1040, 5, 12, &o), CTS_STALL_NA); /* the caller's */
        CHECK_INT(cts_stall_decide(nofit, 2, 1000, 1004, 5, 12, &o), CTS_STALL_BRIEF); /* under 5 us */

        /* The control: own times, sorted; and its longest wait for a processor. */
        {
            struct cts_stall_cmd ctl[] = {{0, 3, 0, 0}, {50, 52, 0, 1}, {100, 4110, 4000, 2}, {4150, 4151, 0, 7}};
            double times[4], slowest, median, kept;
            CHECK_INT(cts_stall_control(ctl, 4, 40, 5000, times, &slowest, &median, &kept), 3);
            CHECK(fabs(slowest - 10) < 1e-9); /* 4,010 us, 4,000 of them kept */
            CHECK(fabs(median - 2) < 1e-9);
            CHECK(fabs(kept - 4000) < 1e-9);
            CHECK_INT(cts_stall_control(ctl, 4, 4120, 5000, times, &slowest, &median, &kept), 1);
            CHECK(fabs(kept - 7) < 1e-9);
            CHECK_INT(cts_stall_control(ctl, 4, 9000, 9100, times, &slowest, &median, &kept), 0);
            CHECK(isnan(slowest) && isnan(median));
        }

        /* Tracking a call that waited: the stalled command's time must grow
         * with the stall time (10 ms, then 40 ms: 30 ms longer). */
        struct cts_stall_obs a = {.verdict = CTS_STALL_STALLS, .stalled_us = 9004},
                             b = {.verdict = CTS_STALL_STALLS, .stalled_us = 39010};
        CHECK_INT(cts_stall_tracked(&a, &b, 30000, 0.5), CTS_STALL_STALLS);
        b.stalled_us = 12000; /* stalled, but not for the call's wait */
        CHECK_INT(cts_stall_tracked(&a, &b, 30000, 0.5), CTS_STALL_NA);
        b.verdict = CTS_STALL_UNAFFECTED;
        CHECK_INT(cts_stall_tracked(&a, &b, 30000, 0.5), CTS_STALL_NA);
        a.verdict = CTS_STALL_UNAFFECTED; /* proven in the first try: the second does not matter */
        CHECK_INT(cts_stall_tracked(&a, &b, 30000, 0.5), CTS_STALL_UNAFFECTED);

        /* Repetitions: the call's letter and the second thread's. */
        memset(&res, 0, sizeof res);
        res.nreps = 2;
        for (int i = 0; i < 2; i++) {
            res.reps[i].status = CTS_PASS;
            res.reps[i].host = CTS_HOST_WAITS;
            res.reps[i].op_after = CTS_ORDER_RUNS; /* no markers here: ignored */
            res.reps[i].stall.verdict = CTS_STALL_STALLS;
        }
        cts_classify(&res);
        CHECK_INT(res.status, CTS_PASS);
        CHECK_STR(res.symbol, "W:S");
        CHECK_INT(res.verdict.stall, CTS_STALL_STALLS);
        CHECK_INT(res.verdict.op_after, CTS_ORDER_NA);
        res.reps[1].stall.verdict = CTS_STALL_UNAFFECTED;
        cts_classify(&res);
        CHECK_INT(res.status, CTS_VARIES);
        CHECK_STR(res.symbol, "W:S/W:U");
        CHECK_CONTAINS(res.reason, "other_thread: stalls unaffected");
        CHECK_INT(res.verdict.stall, CTS_STALL_NA);
        CHECK_INT(res.verdict.host, CTS_HOST_WAITS);
        res.reps[0].host = res.reps[1].host = CTS_HOST_RETURNS;
        res.reps[0].stall.verdict = res.reps[1].stall.verdict = CTS_STALL_BRIEF;
        cts_classify(&res);
        CHECK_STR(res.symbol, "A:B");
        CHECK_STR(cts_stall_name(res.verdict.stall), "brief");
    }

    /* A tight pool: what an allocation on B got while the block's free was held on A. */
    CHECK_INT(cts_pool_decide(0, 0, -1, 0), CTS_POOL_REFUSED);
    CHECK_INT(cts_pool_decide(1, 0, 0, 0), CTS_POOL_OTHER);
    CHECK_INT(cts_pool_decide(1, 1, 1, 0), CTS_POOL_REUSED_AFTER);
    CHECK_INT(cts_pool_decide(1, 1, 0, 0), CTS_POOL_REUSED_NOW);
    CHECK_INT(cts_pool_decide(1, 1, -1, 1), CTS_POOL_REUSED_AFTER); /* the call waited for the free */
    CHECK_INT(cts_pool_decide(1, 1, -1, 0), CTS_POOL_NA);           /* nothing seen */
    memset(&res, 0, sizeof res);
    res.nreps = 2;
    for (int i = 0; i < 2; i++) {
        res.reps[i].status = CTS_PASS;
        res.reps[i].host = CTS_HOST_RETURNS;
        res.reps[i].pool.outcome = CTS_POOL_REUSED_AFTER;
    }
    cts_classify(&res);
    CHECK_STR(res.symbol, "A:D");
    res.reps[1].pool.outcome = CTS_POOL_REFUSED;
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
    CHECK_CONTAINS(res.reason, "pool: reused_after refused");
    test_queues();
    test_elapsed();
    test_green();
    CHECK_DONE();
}
