/* sync-cts cite: one case of a matrix as one paragraph for a bug report: the
 * call and its arguments, what was observed with numbers, where, and the
 * clauses it conforms to or deviates from.  Everything comes from the
 * matrix (its environment, the case, the clause table it was judged with). */
#define _GNU_SOURCE
#include "report.h"
#include "spec.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define s_of cts_json_str

static const char *op_words(const char *op, const char *default_stream)
{
    /* No stream, or stream 0: the default stream of this build. */
    static const struct cts_words legacy[] = {
        {"implied", "on the legacy default stream (no stream argument)"},
        {"null", "on stream 0 (the legacy default stream in this build)"},
        {NULL, NULL}};
    static const struct cts_words per_thread[] = {
        {"implied", "on the per-thread default stream (no stream argument)"},
        {"null", "on stream 0 (the per-thread default stream in this build)"},
        {NULL, NULL}};
    static const struct cts_words streams[] = {
        {"legacy", "on cudaStreamLegacy"},
        {"perthread", "on cudaStreamPerThread"},
        {"blocking", "on a stream created with cudaStreamDefault"},
        {"nonblocking", "on a stream created with cudaStreamNonBlocking"},
        {NULL, NULL}};
    const char *w = cts_words(strcmp(default_stream, "per-thread") ? legacy : per_thread, op);
    return w != op ? w : cts_words(streams, op);
}

static const char *busy_words(const char *busy)
{
    static const struct cts_words words[] = {
        {"same", "a kernel held that same stream"},
        {"legacy", "a kernel held the legacy default stream"},
        {"blocking", "a kernel held another blocking stream"},
        {"nonblocking", "a kernel held a non-blocking stream"},
        {"perthread", "a kernel held this thread's per-thread default stream"},
        {"thread_legacy", "a kernel launched by a second host thread held the legacy default stream"},
        {"thread_perthread", "a kernel held a second host thread's per-thread default stream"},
        {"hostfn", "a host function (cudaLaunchHostFunc) held a non-blocking stream"},
        {"same_hostfn", "a host function (cudaLaunchHostFunc) held that same stream"},
        {"peer_legacy", "a kernel held the other device's legacy default stream"},
        {"peer_blocking", "a kernel held a blocking stream of the other device"},
        {"peer_nonblocking", "a kernel held a non-blocking stream of the other device"},
        {"both", "kernels held a non-blocking stream of each device"},
        {"other_process", "a kernel of a second process held a non-blocking stream of that process on this device"},
        {"other_process_peer", "a kernel of a second process held a non-blocking stream of that process on the other device"},
        {NULL, NULL}};
    return cts_words(words, busy);
}

struct buf {
    char *s;
    size_t n;
    FILE *f;
};

static void say(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(b->f, fmt, ap);
    va_end(ap);
}

/* What third streams did, as words, for a call that returned (the peer family's are the
 * other device's). */
static void third_words(struct buf *b, const struct cts_verdict *v, int peer)
{
    int hb = v->third_blocking == CTS_ORDER_HELD, hn = v->third_nonblocking == CTS_ORDER_HELD;
    if (hb || hn)
        say(b, "; later work on a %s%s stream%s waited for it (without the call it ran)", peer ? "" : "third ",
            hb && hn ? (peer ? "blocking and a non-blocking" : "blocking and a third non-blocking")
            : hb     ? "blocking"
                     : "non-blocking",
            peer ? " of the other device" : "");
    else
        say(b, "; it made no %s wait", peer ? "stream of the other device" : "third stream");
}

/* The proof that a call waits: an attempt with the gate held longer took
 * longer.  From the per-repetition evidence, which the view does not carry
 * (no other report reads it). */
static void wait_proof(struct buf *b, const json_t *c)
{
    const json_t *ev = json_object_get(c, "evidence");
    const json_t *ft = json_object_get(ev, "tracked_from_timeout_us"),
                 *fc = json_object_get(ev, "tracked_from_call_us"), *rt = json_object_get(ev, "rep_timeout_us"),
                 *cu = json_object_get(ev, "call_us");
    double timeout = json_number_value(json_object_get(ev, "timeout_us"));
    for (size_t i = 0; i < json_array_size(ft); i++) {
        const json_t *x = json_array_get(ft, i);
        if (!json_is_number(x))
            continue;
        double to = json_is_number(json_array_get(rt, i)) ? json_number_value(json_array_get(rt, i)) : timeout;
        say(b, "; measured again with the held work released %.0f us after the call began instead "
               "of %.0f us, the call took %.1f us instead of %.1f us: it waits for that work",
            to, json_number_value(x), json_number_value(json_array_get(cu, i)),
            json_number_value(json_array_get(fc, i)));
        break;
    }
}

/* A call that returned: what ran after it, and what it did with its bytes. */
static void returned(struct buf *b, const struct cts_case_view *v)
{
    const struct cts_verdict *vd = &v->verdict;
    say(b, "it returned while the held work was still held (%.1f us inside the call, against %.1f "
           "us on an idle GPU), and work queued after it on its own stream %s",
        v->call_us, v->idle_us,
        vd->op_after == CTS_ORDER_RUNS ? "ran at once" : "waited for the held work (stream order)");
    if (strcmp(v->family, "process")) /* the other process's streams are not this one's to mark */
        third_words(b, vd, !strcmp(v->family, "peer"));
    if (vd->src == CTS_SRC_AT_CALL)
        say(b, "; it took its source bytes during the call");
    else if (vd->src == CTS_SRC_AFTER_RETURN)
        say(b, "; it read its source after returning");
    else if (vd->src == CTS_SRC_PARTIAL)
        say(b, "; it read part of its source after returning");
    if (vd->dst == CTS_DST_COMPLETE)
        say(b, "; its host destination was complete when it returned");
}

/* Two values alike, absent ones (an evidence array left out: all null) included. */
static int alike(const json_t *a, const json_t *b) { return (!a && !b) || json_equal(a, b); }

/* One repetition's data order: o ("ordered", "stale", "partial" or NULL),
 * of a memset (set) or a copy; nw new bytes of size, the boundary at. */
static void data_outcome(struct buf *b, const char *o, int set, long long nw, long long size, long long at)
{
    if (!o)
        say(b, "nothing judged");
    else if (!strcmp(o, "ordered"))
        say(b, set ? "its value over the held work's bytes (in stream order)"
                   : "the held work's new bytes (in stream order)");
    else if (!strcmp(o, "stale"))
        say(b, set ? "the held work's bytes, not its value (it set them before that write: out of stream order)"
                   : "the bytes from before the held work's write (stale: taken out of stream order)");
    else
        say(b, "%lld %s and %lld %s (partial; the first change at byte %lld)", nw,
            set ? "bytes of its value" : "new bytes", size - nw, set ? "of the held work's" : "stale ones", at);
}

/* Data order (written cases): which bytes the copy moved, read from the
 * whole destination, and what the work after it on its stream saw. */
static void data_words(struct buf *b, const struct cts_case_view *v)
{
    const json_t *ev = json_object_get(v->c, "evidence"), *d = json_object_get(ev, "data");
    if (!json_array_size(d))
        return;
    const json_t *nb = json_object_get(ev, "data_new_bytes"), *bd = json_object_get(ev, "data_boundary"),
                 *rd = json_object_get(ev, "reader");
    long long size = (long long)v->size;
    int set = !*v->direction; /* a memset: the held work wrote its destination */
    say(b, "; the destination's bytes (all %lld, read after the device drained) show that the %s", size,
        set ? "memset left" : "copy moved");
    size_t reps = json_array_size(d), same = 1;
    for (size_t i = 1; i < reps; i++) /* one outcome (and offset) in every repetition: told once */
        same &= alike(json_array_get(d, i), json_array_get(d, 0)) &&
                alike(json_array_get(nb, i), json_array_get(nb, 0)) &&
                alike(json_array_get(bd, i), json_array_get(bd, 0));
    for (size_t i = 0; i < (same ? 1 : reps); i++) {
        const char *o = json_string_value(json_array_get(d, i));
        long long nw = (long long)json_integer_value(json_array_get(nb, i));
        if (same)
            say(b, " in every repetition (%zu of %zu) ", reps, reps);
        else
            say(b, "%s in repetition %zu ", i ? "," : "", i + 1);
        data_outcome(b, o, set, nw, size, (long long)json_integer_value(json_array_get(bd, i)));
    }
    int missed = 0, saw = 0;
    for (size_t i = 0; i < json_array_size(rd); i++) {
        const char *r = json_string_value(json_array_get(rd, i));
        missed += r && !strcmp(r, "missed");
        saw += r && !strcmp(r, "saw");
    }
    if (missed || saw)
        say(b, "; work queued after it on its stream read %s (%d of %d repetitions)",
            missed ? (set ? "other bytes than the memset left there" : "other bytes than the copy left there")
                   : (set ? "exactly the bytes the memset left" : "exactly the bytes the copy left"),
            missed ? missed : saw,
            missed + saw);
}

/* Landing (a synchronous call's verdict): was the destination complete when
 * the call returned, read at once by the host or from an independent stream. */
static void landing_words(struct buf *b, const struct cts_case_view *v)
{
    if (v->verdict.landed == CTS_DST_NA && !(v->status == CTS_VARIES && strstr(v->reason, "landed:")))
        return;
    const json_t *l = json_object_get(json_object_get(v->c, "evidence"), "landed");
    int pending = 0, complete = 0;
    for (size_t i = 0; i < json_array_size(l); i++) {
        const char *x = json_string_value(json_array_get(l, i));
        pending += x && !strcmp(x, "pending");
        complete += x && !strcmp(x, "complete");
    }
    if (pending + complete == 0)
        return;
    say(b, "; right after it returned, its destination's sample bytes, read outside its stream, were ");
    if (pending && complete)
        say(b, "not all there yet in %d and complete in %d of %d repetitions", pending, complete, pending + complete);
    else
        say(b, "%s (%d of %d repetitions)", pending ? "not all there yet" : "complete",
            pending + complete, pending + complete);
}

static void observed(struct buf *b, const struct cts_case_view *v)
{
    long reps = (long)v->repetitions;
    if (v->status != CTS_PASS && v->status != CTS_VARIES) {
        say(b, "The case has no verdict: %s (%s).", cts_status_name(v->status), v->reason);
        return;
    }
    if (v->status == CTS_VARIES)
        say(b, "The repetitions differed (%s; cells %s): ", v->reason, v->symbol);
    if (v->verdict.host == CTS_HOST_WAITS) {
        double back = v->release_to_return_us;
        if (isnan(back))
            say(b, "it waited for the held work (the time from its release to the return was not recorded; ");
        else
            say(b, "it waited for the held work, returning %.1f us after that work was released (", back);
        say(b, "%.1f us inside the call, against %.1f us on an idle GPU; %ld of %ld repetitions)", v->call_us,
            v->idle_us, reps, reps);
        wait_proof(b, v->c);
    } else if (v->verdict.host == CTS_HOST_RETURNS) {
        returned(b, v);
    } else {
        say(b, "the repetitions agree on no host behaviour");
    }
    if (v->verdict.rejected)
        say(b, "; it returned the error %s (refused)", v->verdict.rejected);
    landing_words(b, v);
    data_words(b, v);
    say(b, ".");
}

static void judgement(struct buf *b, const json_t *m, const struct cts_case_view *v)
{
    const json_t *table = json_object_get(json_object_get(m, "spec"), "clauses");
    int judged = json_is_object(json_object_get(m, "spec")); /* the clauses are quoted from its table */
    if (v->conformance == CTS_CONF_NONE || !judged) {
        say(b, " No documentation clause was judged against it%s.",
            judged ? "" : " (the matrix predates the spec table: run `sync-cts judge` on it)");
        return;
    }
    /* Contradicted guarantees, kept ones, ones this case cannot observe,
     * then what the documentation leaves open; each clause quoted once. */
    static const char *const parts[4] = {"It deviates from", "It conforms to",
                                         "Not observable in this case:", "The documentation leaves it open:"};
    const char *quoted[CTS_JUDGED_MAX * 2];
    size_t nq = 0;
    for (int p = 0; p < 4; p++) {
        int first = 1;
        for (size_t i = 0; i < json_array_size(v->clauses); i++) {
            struct cts_case_clause cl = cts_case_clause(v, i);
            int guarantee = !strncmp(cl.prediction, "guaranteed", 10);
            int part = cl.holds == CTS_HOLDS_NO ? 0 : cl.holds == CTS_HOLDS_YES ? 1 : guarantee ? 2 : 3;
            if (part != p)
                continue;
            const json_t *e = json_object_get(table, cl.id);
            say(b, first ? " %s" : ";", parts[p]);
            say(b, " %s (%s, about %s)", cl.id, cl.prediction, cl.about);
            int seen = 0;
            for (size_t q = 0; q < nq; q++)
                seen |= !strcmp(quoted[q], cl.id);
            if (!seen && nq < sizeof quoted / sizeof *quoted) {
                quoted[nq++] = cl.id;
                say(b, ": %s, \"%s\" %s", s_of(e, "where"), s_of(e, "quote"), s_of(e, "url"));
            }
            first = 0;
        }
        if (!first)
            say(b, ".");
    }
    say(b, " Verdict: %s.", cts_conformance_name(v->conformance));
}

/* The call: its function and arguments, and what held the GPU. */
static void the_call(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e)
{
    say(b, "%s", v->function);
    if (*v->variant)
        say(b, " (%s)", v->variant);
    if (v->sized)
        say(b, " of %lld bytes", (long long)v->size);
    if (*v->direction)
        say(b, ", %s", cts_dir_words(v->direction));
    if (*v->memory)
        say(b, ", %s memory (%s)", v->memory, v->allocator);
    if (*v->copy_kind)
        say(b, ", kind %s", v->copy_kind);
    int writes = json_is_true(json_object_get(v->c, "writes"));
    say(b, ", %s, issued while %s%s: ", op_words(v->op_stream, e->default_stream), busy_words(v->busy),
        !writes ? ""
        : !strcmp(v->busy, "same") ? (*v->direction ? ", followed there by a kernel that wrote new bytes into the copy's source"
                                                    : ", followed there by a kernel that wrote the memset's destination")
        : *v->direction ? ", which wrote new bytes into the copy's source as its last act"
                        : ", which wrote the memset's destination as its last act");
}

/* A cheap call's latency from 1, 4 and 16 threads at once (evidence). */
static void latency_words(struct buf *b, const struct cts_case_view *v)
{
    const json_t *ev = json_object_get(v->c, "evidence"), *a = json_object_get(ev, "latency");
    const char *error = cts_json_str(ev, "latency_error");
    if (*error) {
        say(b, " Made from several threads at once on an idle GPU: %s.", error);
        return;
    }
    if (json_array_size(a) != CTS_LATENCY_COUNTS)
        return;
    static const char *const sep[CTS_LATENCY_COUNTS] = {"", ", ", " and "};
    say(b, " On an idle GPU, from ");
    for (int k = 0; k < CTS_LATENCY_COUNTS; k++)
        say(b, "%s%d", sep[k], (int)json_integer_value(json_object_get(json_array_get(a, k), "threads")));
    say(b, " threads at once (%d calls each time), the call took a median ",
        (int)json_integer_value(json_object_get(json_array_get(a, 0), "calls")));
    for (int k = 0; k < CTS_LATENCY_COUNTS; k++)
        say(b, "%s%.1f", sep[k], json_number_value(json_object_get(json_array_get(a, k), "median_us")));
    say(b, " us, a 99th percentile ");
    for (int k = 0; k < CTS_LATENCY_COUNTS; k++)
        say(b, "%s%.1f", sep[k], json_number_value(json_object_get(json_array_get(a, k), "p99_us")));
    say(b, " us.");
}

/* Where it was measured. */
static void where(struct buf *b, const struct cts_env_view *e, const char *id)
{
    say(b, " Measured on an %s (compute capability %s) with driver %s (CUDA %s driver API), cudart %s, "
           "the %s default stream, schedule %s",
        e->gpu, e->compute_capability, e->driver, e->driver_api, e->runtime, e->default_stream, e->schedule);
    const char *k;
    json_t *x;
    int any = 0;
    json_object_foreach((json_t *)e->variables, k, x)
        if (json_is_string(x))
            say(b, "%s%s=%s", any++ ? ", " : ", with ", k, json_string_value(x));
    say(b, ", by cuda-sync-cts %s on %s (case %s).", e->suite_revision, e->date, id);
}

/* The peer family's two devices, from the environment: which this device is, which its
 * peer (the next device the process saw), and how they reach each other. */
static void devices(struct buf *b, const json_t *m, const struct cts_case_view *v)
{
    const json_t *env = json_object_get(m, "environment"), *devs = json_object_get(env, "devices");
    long long me = cts_json_int(json_object_get(env, "gpu"), "device_index");
    size_t n = json_array_size(devs);
    if (n < 2 || me < 0 || (size_t)me >= n) {
        say(b, " The process saw %zu device%s: no peer.", n, n == 1 ? "" : "s");
        return;
    }
    size_t p = ((size_t)me + 1) % n;
    const json_t *pd = json_array_get(devs, p), *peers = json_object_get(env, "peers");
    const json_t *links = json_array_get(json_array_get(json_object_get(peers, "nvlinks"), (size_t)me), p);
    const json_t *path = json_array_get(json_array_get(json_object_get(peers, "nvlink_path"), (size_t)me), p);
    const json_t *pci = json_array_get(json_array_get(json_object_get(peers, "nvml_common_ancestor"), (size_t)me), p);
    static const struct cts_words sides[] = {
        {"to_peer", "the destination the peer's device memory, peer access enabled both ways"},
        {"from_peer", "the source the peer's device memory, peer access enabled both ways"},
        {"to_peer_no_access", "the destination the peer's device memory, peer access disabled both ways"},
        {"from_peer_no_access", "the source the peer's device memory, peer access disabled both ways"},
        {"to_peer_pool", "the destination a block of a pool made on the peer, its access granted to this device"},
        {"from_peer_pool", "the source a block of a pool made on the peer, its access granted to this device"},
        {"to_peer_pool_ungranted", "the destination a block of a pool made on the peer, its access not granted to this device"},
        {"from_peer_pool_ungranted", "the source a block of a pool made on the peer, its access not granted to this device"},
        {NULL, NULL}};
    const char *side = cts_words(sides, v->variant);
    if (side != v->variant)
        say(b, " The copy had %s%s.", side,
            (v->status == CTS_PASS || v->status == CTS_VARIES) && !v->verdict.rejected
                ? "; every byte of its destination was the source's, read after the device drained"
                : "");
    say(b, " This device is device %lld; the peer is device %zu, an %s (%s)", me, p,
        json_string_value(json_object_get(pd, "name")) ? json_string_value(json_object_get(pd, "name")) : "?",
        json_string_value(json_object_get(pd, "uuid")) ? json_string_value(json_object_get(pd, "uuid")) : "?");
    if (json_is_integer(links) && json_integer_value(links) > 0)
        say(b, ", %lld NVLinks away%s", (long long)json_integer_value(links),
            json_is_string(path) && !strcmp(json_string_value(path), "nvswitch") ? " through NVSwitches" : "");
    if (json_is_string(pci))
        say(b, ", its PCIe path through the %s", json_string_value(pci));
    say(b, ".");
}

/* The capture family: where the call was made, in which modes, and what the
 * capture made of it (the first repetition's return codes). */
#define OR_Q(x) ((x) ? (x) : "?")
static void capture_case(struct buf *b, const struct cts_case_view *v)
{
    static const char *const places[][2] = {
        {"same", "by the capturing thread (on the capturing stream, where it takes one)"},
        {"blocking", "on another blocking stream of the capturing thread"},
        {"nonblocking", "on another non-blocking stream of the capturing thread"},
        {"legacy", "on the legacy default stream, by the capturing thread"},
        {"perthread", "on the capturing thread's per-thread default stream"},
        {"thread_same", "by a second thread (on the capturing stream, where it takes one)"},
        {"thread_legacy", "on the legacy default stream, by a second thread"},
        {"thread_perthread", "on a second thread's per-thread default stream"},
        {"thread_peer", "by a second thread with the other device current"},
    };
    static const char *const outcome_words[] = {
        "", "became a node of the graph, whose launch did what the call does", "ran at once, the capture intact",
        "was refused, the capture intact", "was refused, and the capture was invalidated",
        "returned success, yet the capture was invalidated",
        "returned success and is missing: not in the graph, and not done", "was refused, yet its effect is there"};
    const char *where = v->busy;
    for (size_t i = 0; i < sizeof places / sizeof *places; i++)
        if (!strcmp(v->busy, places[i][0]))
            where = places[i][1];
    const json_t *cap = json_object_get(json_object_get(v->c, "evidence"), "capture");
    const char *rc = json_string_value(json_array_get(json_object_get(cap, "rc"), 0));
    const char *end = json_string_value(json_array_get(json_object_get(cap, "end"), 0));
    const char *after = json_string_value(json_array_get(json_object_get(cap, "after"), 0));
    say(b, "%s, made %s in its own capture mode %s, while a %s stream captured in %s mode: ", v->function, where,
        OR_Q(json_string_value(json_object_get(v->c, "capture_by"))), v->op_stream,
        OR_Q(json_string_value(json_object_get(v->c, "capture"))));
    if (v->status != CTS_PASS && v->status != CTS_VARIES) {
        say(b, "the case has no verdict: %s (%s).", cts_status_name(v->status), v->reason);
        return;
    }
    say(b, "it returned %s, the capture was then %s and cudaStreamEndCapture returned %s: the call %s (%lld "
        "repetitions%s).", OR_Q(rc), OR_Q(after), OR_Q(end),
        outcome_words[(unsigned)v->verdict.capture < 8 ? v->verdict.capture : 0], (long long)v->repetitions,
        v->status == CTS_VARIES ? ", which differed in another way" : "");
}

/* The overlap family's pair: A on the op stream, then B on the placement. */
static const char *pair_stream_words(const char *s)
{
    static const struct cts_words words[] = {{"legacy", "the legacy default stream"},
                                             {"perthread", "the per-thread default stream"},
                                             {"blocking", "a blocking stream"},
                                             {"nonblocking", "a non-blocking stream"},
                                             {NULL, NULL}};
    return cts_words(words, s);
}

/* A repetition's value of evidence.<obj>.key (a member's array), NAN where there is none. */
static double evidence_at(const struct cts_case_view *v, const char *obj, const char *key, size_t i)
{
    const json_t *o = json_object_get(json_object_get(v->c, "evidence"), obj);
    const json_t *x = json_array_get(json_object_get(o, key), i);
    return json_is_number(x) ? json_number_value(x) : NAN;
}

/* The overlap family's staged-copy pattern. */
static void staged_case(struct buf *b, const struct cts_case_view *v)
{
    say(b, "The staged-copy pattern %s: one 32 MiB pinned array in 4 slices, each copied to the device, "
           "worked on by a kernel and copied back, on 4 %s streams, against the same work in one stream. ",
        v->variant, !strcmp(v->op_stream, "blocking") ? "blocking" : "non-blocking");
    if (v->status != CTS_PASS && v->status != CTS_VARIES) {
        say(b, "The case has no verdict: %s (%s).", cts_status_name(v->status), v->reason);
        return;
    }
    say(b, v->status == CTS_VARIES ? "The repetitions differed (%s; cells %s)." : "Verdict `%s`.",
        v->status == CTS_VARIES ? v->reason : v->symbol, v->symbol);
    for (size_t i = 0; i < (size_t)v->repetitions; i++)
        say(b, " Repetition %zu: sequential %.1f us, staged %.1f us (the phases alone: %.1f, %.1f and %.1f us), "
               "saving %.2f of what perfect overlap would.",
            i + 1, evidence_at(v, "staged", "sequential_us", i), evidence_at(v, "staged", "version_us", i), evidence_at(v, "staged", "h2d_us", i),
            evidence_at(v, "staged", "kernel_us", i), evidence_at(v, "staged", "d2h_us", i), evidence_at(v, "staged", "fraction", i));
}


/* The end of a self-measured family's paragraph where there is no one
 * verdict to tell (no verdict, or repetitions that differed): 1 if it said so. */
static int unsettled(struct buf *b, const struct cts_case_view *v)
{
    if (v->status != CTS_PASS && v->status != CTS_VARIES)
        say(b, "no verdict, %s (%s).", cts_status_name(v->status), v->reason);
    else if (v->status == CTS_VARIES)
        say(b, "the repetitions differed (%s; `%s`).", v->reason, v->symbol);
    else
        return 0;
    return 1;
}

/* The depth family: a scan behind the op stream's own held work, or one call
 * beside another stream's full queue (the first repetition's times). */
static void depth_case(struct buf *b, const struct cts_case_view *v)
{
    int scan = !strcmp(v->variant, "queue_depth"), thread = !strcmp(v->variant, "queue_full_thread");
    if (scan)
        say(b, "%s, made again and again on %s while a kernel held that same stream: ", v->function,
            pair_stream_words(v->op_stream));
    else
        say(b, "%s on %s, made while a kernel held a non-blocking stream whose queue was full (%.0f kernel launches "
               "queued%s): ", v->function, pair_stream_words(v->op_stream), evidence_at(v, "depth", "max", 0),
            thread ? ", and another thread blocked inside its next launch" : ", the next launch there waited");
    if (unsettled(b, v))
        return;
    if (v->verdict.depth == CTS_DEPTH_NONE)
        say(b, "none of %lld calls waited for the held work (`%s`; %.1f us a call, the median)",
            v->verdict.queued, v->symbol, v->call_us);
    else if (v->verdict.depth == CTS_DEPTH_FOUND || v->verdict.host == CTS_HOST_WAITS) {
        if (scan)
            say(b, "%lld calls returned while the work was held (%.1f us a call, the median), and the next one "
                   "waited for it (`%s`): ", v->verdict.queued, v->call_us, v->symbol);
        else
            say(b, "it waited for the held work (`W`): ");
        say(b, "released %.0f ms after the last return, %s took %.1f us; released %.0f ms after it, %.1f us",
            evidence_at(v, "depth", "stall_us", 0) / 1e3, scan ? "that call" : "it",
            evidence_at(v, "depth", "blocked_us", 0), evidence_at(v, "depth", "tracked_stall_us", 0) / 1e3,
            evidence_at(v, "depth", "tracked_us", 0));
    } else {
        say(b, "it returned while the work was held, in %.1f us (`%s`)", v->call_us, v->symbol);
    }
    say(b, " (%lld repetitions).", (long long)v->repetitions);
}

/* The stall family: the call with work held, and a second host thread's
 * commands meanwhile (the first repetition's times). */
static void stall_case(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e)
{
    static const struct cts_words commands[] = {{"launch", "a kernel launch"},
                                                {"memcpy_async", "a 4 KiB pinned-to-device cudaMemcpyAsync"},
                                                {"event_record", "a cudaEventRecord"},
                                                {NULL, NULL}};
    say(b, "%s", v->function);
    if (!strcmp(v->variant, "other_thread_first"))
        say(b, " (the first launch of a kernel never launched before)");
    if (v->sized)
        say(b, " of %lld bytes", (long long)v->size);
    if (*v->memory)
        say(b, ", %s memory (%s)", v->memory, v->allocator);
    say(b, ", %s, issued while %s and a second host thread made %s on a non-blocking stream of its own every 50 "
           "us: ", op_words(v->op_stream, e->default_stream), busy_words(v->busy), cts_words(commands, v->with));
    if (unsettled(b, v))
        return;
    if (v->verdict.host == CTS_HOST_WAITS && !isnan(v->release_to_return_us))
        say(b, "the call waited for the held work, returning %.1f us after its release (`%s`)",
            v->release_to_return_us, v->symbol);
    else if (v->verdict.host == CTS_HOST_WAITS)
        say(b, "the call waited for the held work (`%s`)", v->symbol);
    else
        say(b, "the call returned while the work was held, in %.1f us (`%s`)", v->call_us, v->symbol);
    say(b, ". In the control (the same hold, no call) the second thread's slowest command took %.1f us; during the "
           "call, ", evidence_at(v, "stall", "control_us", 0));
    if (v->verdict.stall == CTS_STALL_STALLS) {
        say(b, "one began early enough to have returned before the call did, yet returned only after it, taking "
               "%.1f us", evidence_at(v, "stall", "stalled_us", 0));
        if (!isnan(evidence_at(v, "stall", "tracked_us", 0))) /* the call waited: the stall tracked its wait */
            say(b, " with the held work released %.0f ms after the call began, and %.1f us with it released %.0f ms "
                   "after: it waited for the call",
                evidence_at(v, "stall", "stall_us", 0) / 1e3, evidence_at(v, "stall", "tracked_us", 0),
                evidence_at(v, "stall", "tracked_stall_us", 0) / 1e3);
    } else if (v->verdict.stall == CTS_STALL_UNAFFECTED) {
        say(b, "%.0f of its commands began, %.0f of them returned inside it, the slowest in %.1f us: none stalled",
            evidence_at(v, "stall", "commands", 0), evidence_at(v, "stall", "inside", 0),
            evidence_at(v, "stall", "slowest_us", 0));
    } else {
        say(b, "none began and returned inside it: the call was over first, or took under 5 us");
    }
    say(b, " (%lld repetitions).", (long long)v->repetitions);
}

/* The pool family: an allocation on B from a pool of one block's maximum
 * size while that block's free is held on A (the first repetition's error). */
static void pool_case(struct buf *b, const struct cts_case_view *v)
{
    static const struct cts_words policies[] = {
        {"none", "its three reuse attributes (cudaMemPoolReuseFollowEventDependencies, "
                 "cudaMemPoolReuseAllowOpportunistic, cudaMemPoolReuseAllowInternalDependencies) all off"},
        {"follow_event_dependencies", "cudaMemPoolReuseFollowEventDependencies on, its other two reuse attributes off"},
        {"allow_opportunistic", "cudaMemPoolReuseAllowOpportunistic on, its other two reuse attributes off"},
        {"allow_internal_dependencies", "cudaMemPoolReuseAllowInternalDependencies on, its other two reuse attributes "
                                        "off"},
        {"default", "its default reuse policy (all three reuse attributes on)"},
        {NULL, NULL}};
    static const char after[] = "_after_event";
    char policy[64];
    const char *p = strncmp(v->variant, "tight_", 6) ? v->variant : v->variant + 6;
    size_t n = strlen(p), k = sizeof after - 1;
    int event = n > k && !strcmp(p + n - k, after);
    snprintf(policy, sizeof policy, "%.*s", (int)(event ? n - k : n), p);
    say(b, "%s", v->function);
    if (v->sized)
        say(b, " of %lld bytes (one block)", (long long)v->size);
    say(b, " on a non-blocking stream B, from a pool whose maximum size (cudaMemPoolProps.maxSize) is that one "
           "block, with %s, issued while the same block's cudaFreeAsync was queued on another non-blocking stream A "
           "behind held work%s: ", cts_words(policies, policy),
        event ? ", B having first been made to wait (cudaStreamWaitEvent) for an event recorded on A after the free"
              : "");
    if (unsettled(b, v))
        return;
    if (v->verdict.host == CTS_HOST_WAITS && !isnan(v->release_to_return_us))
        say(b, "the call waited for A's held work, returning %.1f us after its release, ", v->release_to_return_us);
    else if (v->verdict.host == CTS_HOST_WAITS)
        say(b, "the call waited for A's held work, ");
    else
        say(b, "the call returned while A's work was still held, in %.1f us, ", v->call_us);
    const json_t *err = json_array_get(json_object_get(json_object_get(json_object_get(v->c, "evidence"), "pool"),
                                                       "error"), 0);
    switch (v->verdict.pool) {
    case CTS_POOL_REFUSED:
        say(b, "and was refused: it returned %s, no block", json_is_string(err) ? json_string_value(err) : "an error");
        break;
    case CTS_POOL_OTHER:
        say(b, "and got a block other than the freed one");
        break;
    case CTS_POOL_REUSED_AFTER:
        if (v->verdict.host == CTS_HOST_WAITS)
            say(b, "and got the freed block once its free had happened");
        else
            say(b, "and got the freed block, and a kernel queued on B after it waited for A's held free: %s",
                event ? "B was ordered after the free by the event" : "the pool made B's later work wait for it");
        break;
    case CTS_POOL_REUSED_NOW:
        say(b, "and got the freed block, and a kernel queued on B after it ran while A's free was still held");
        break;
    default:
        say(b, "and no outcome was recorded");
        break;
    }
    say(b, " (`%s`; %lld repetitions).", v->symbol, (long long)v->repetitions);
}

static void pair_case(struct buf *b, const struct cts_case_view *v)
{
    static const char *const verdict_words[] = {"", "ran at once (overlaps)", "partly overlapped (partial)",
                                                ("ran at once but no faster than one after the other, both "
                                                 "slowed (shares)"),
                                                "ran one after the other (serializes)"};
    int high = !strcmp(v->with, "kernel_high");
    say(b, "Two operations issued one after the other from one host thread: %s on %s, then %s on %s%s. ",
        v->variant, pair_stream_words(v->op_stream), high ? "kernel" : v->with,
        !strcmp(v->busy, "same") ? "the same stream" : pair_stream_words(v->busy),
        high ? " of the highest priority" : "");
    if (v->status != CTS_PASS && v->status != CTS_VARIES) {
        say(b, "The case has no verdict: %s (%s).", cts_status_name(v->status), v->reason);
        return;
    }
    if (v->status == CTS_VARIES)
        say(b, "The repetitions differed (%s; cells %s).", v->reason, v->symbol);
    else
        say(b, "They %s (`%s`).", verdict_words[(unsigned)v->verdict.overlap < 5 ? v->verdict.overlap : 0],
            v->symbol);
    for (size_t i = 0; i < (size_t)v->repetitions; i++)
        say(b, " Repetition %zu: alone %.1f and %.1f us, together %.1f us (A ended at %.1f, B started at %.1f and "
               "ended at %.1f us), overlap fraction %.2f, the first to end %.2f times its time alone.",
            i + 1, evidence_at(v, "pair", "a_alone_us", i), evidence_at(v, "pair", "b_alone_us", i), evidence_at(v, "pair", "makespan_us", i),
            evidence_at(v, "pair", "a_end_us", i), evidence_at(v, "pair", "b_start_us", i), evidence_at(v, "pair", "b_end_us", i),
            evidence_at(v, "pair", "fraction", i), evidence_at(v, "pair", "stretch", i));
}

int cts_cite(const json_t *m, const char *id, FILE *out)
{
    const json_t *c = json_object_get(json_object_get(m, "cases"), id);
    if (!c)
        return -1;
    struct cts_case_view v;
    struct cts_env_view e;
    cts_case_view(&v, id, c);
    cts_env_view(&e, m);
    struct buf b = {0};
    b.f = open_memstream(&b.s, &b.n);
    if (!b.f)
        return -1;
    if (json_object_get(v.c, "capture")) {
        capture_case(&b, &v);
    } else if (!strcmp(v.family, "depth")) {
        depth_case(&b, &v);
    } else if (!strcmp(v.family, "stall")) {
        stall_case(&b, &v, &e);
    } else if (!strcmp(v.family, "pool")) {
        pool_case(&b, &v);
    } else if (*v.with) {
        pair_case(&b, &v);
    } else if (!strncmp(v.variant, "staged_", 7) && !strcmp(v.family, "overlap")) {
        staged_case(&b, &v);
    } else {
        the_call(&b, &v, &e);
        observed(&b, &v);
        latency_words(&b, &v);
    }
    if (!strcmp(v.family, "peer"))
        devices(&b, m, &v);
    where(&b, &e, id);
    judgement(&b, m, &v);
    int bad = fclose(b.f) != 0;
    for (char *p = b.s; !bad && *p; p++) /* one line, whatever the matrix's strings hold */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    if (!bad)
        bad = fprintf(out, "%s\n", b.s) < 0;
    free(b.s);
    return bad ? -1 : 0;
}

/* "Did you mean": the ids that share the longest prefix with the one asked
 * for (then the first by id order); ids sharing nothing are not offered.
 * Linear in the ids and their lengths. */
void cts_nearest_add(struct cts_nearest *n, const char *query, const char *id)
{
    size_t l = 0;
    while (query[l] && query[l] == id[l])
        l++;
    if (!l || strlen(id) >= CTS_ID_MAX)
        return;
    int at = n->n;
    while (at > 0 && (l > n->lcp[at - 1] || (l == n->lcp[at - 1] && strcmp(id, n->id[at - 1]) < 0)))
        at--;
    if (at >= 3)
        return;
    for (int k = (n->n < 3 ? n->n : 2); k > at; k--) {
        n->lcp[k] = n->lcp[k - 1];
        memcpy(n->id[k], n->id[k - 1], sizeof n->id[k]);
    }
    n->lcp[at] = l;
    snprintf(n->id[at], sizeof n->id[at], "%s", id);
    if (n->n < 3)
        n->n++;
}

void cts_nearest_text(const struct cts_nearest *n, char *out, size_t len)
{
    if (!n->n) {
        snprintf(out, len, "no case id begins like it");
        return;
    }
    snprintf(out, len, "nearest: %s%s%s%s%s", n->id[0], n->n > 1 ? ", " : "", n->n > 1 ? n->id[1] : "",
             n->n > 2 ? ", " : "", n->n > 2 ? n->id[2] : "");
}

void cts_nearest_ids(const json_t *m, const char *id, char *out, size_t len)
{
    struct cts_nearest n = {0};
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(m, "cases"), k, v)
        cts_nearest_add(&n, id, k);
    cts_nearest_text(&n, out, len);
}

/* ---- a threshold (the matrix's thresholds section) ---- */

/* A probe's outcome as words: the cell symbol ("Qc", "W+b") spelled out. */
static void outcome_words(struct buf *b, const char *outcome)
{
    const char *colon = strchr(outcome, ':');
    const char *sym = colon ? colon + 1 : outcome;
    if (!colon) { /* NOTSUPP, FAIL: no verdict */
        say(b, "%s", outcome);
        return;
    }
    if (!strncmp(outcome, "VARIES:", 7)) {
        say(b, "varies between repetitions (%s)", sym);
        return;
    }
    const char *p = sym;
    int rejected = *p == 'X';
    p += rejected;
    if (*p == 'W') {
        say(b, "%swaits for the held work (`%s`)", rejected ? "is rejected and " : "", sym);
        return;
    }
    say(b, "%sreturns while the work is held, ", rejected ? "is rejected, " : "");
    say(b, *p == 'A' ? "work after it in its stream runs" : "work after it in its stream waits");
    p++;
    if (*p == 'c' || *p == 'r' || *p == 'p')
        say(b, *p == 'c' ? ", its source taken at the call" : *p == 'r' ? ", its source read after the return"
                                                                      : ", its source partly taken at the call");
    if (strstr(p, "+b"))
        say(b, ", a third blocking stream held");
    if (strstr(p, "+n"))
        say(b, ", a third non-blocking stream held");
    say(b, " (`%s`)", sym);
}

/* A threshold row's size unit in words: bytes, or one dimension of a 2D copy. */
static void unit_words(char *buf, size_t len, const json_t *row)
{
    const json_t *axis = json_object_get(row, "axis");
    long long fixed = cts_json_int(axis, "fixed");
    if (!strcmp(s_of(axis, "name"), "width"))
        snprintf(buf, len, "bytes wide (%lld rows)", fixed);
    else if (!strcmp(s_of(axis, "name"), "rows"))
        snprintf(buf, len, "rows (of %lld bytes)", fixed);
    else
        snprintf(buf, len, "bytes");
}

static void probe_words(struct buf *b, const json_t *p, const char *side, const char *unit)
{
    const json_t *us = json_object_get(p, "call_us");
    outcome_words(b, s_of(p, "outcome"));
    say(b, " %s %lld %s", side, (long long)json_integer_value(json_object_get(p, "bytes")), unit);
    if (json_is_number(us))
        say(b, " (%.1f us in the call)", json_number_value(us));
}

static void flips_words(struct buf *b, const json_t *row)
{
    const json_t *flips = json_object_get(row, "flips"), *f;
    size_t i;
    char unit[48];
    unit_words(unit, sizeof unit, row);
    if (!json_array_size(flips)) {
        say(b, " no flip: one outcome from 1 to %lld %s.", cts_json_int(row, "max_bytes"), unit);
        return;
    }
    json_array_foreach(flips, i, f) {
        say(b, i ? "; then it " : " it ");
        probe_words(b, json_object_get(f, "below"), "up to", unit);
        say(b, ", and ");
        probe_words(b, json_object_get(f, "above"), "from", unit);
        if (!json_is_true(json_object_get(f, "exact")))
            say(b, " (not exact: the sizes between could not be decided)");
        else
            say(b, json_is_true(json_object_get(f, "steady")) ? " (exact; two sizes on each side agree)"
                                                              : " (exact, but the outcome alternates around it)");
    }
    say(b, ".");
}

int cts_cite_threshold(const json_t *m, const char *row, const json_t *base, FILE *out)
{
    const json_t *th = json_object_get(m, "thresholds"), *r = json_object_get(json_object_get(th, "rows"), row);
    const json_t *run = json_object_get(th, "run"), *samples = json_object_get(r, "samples"), *x;
    if (!r || !base)
        return -1;
    struct cts_case_view v;
    struct cts_env_view e;
    cts_case_view(&v, s_of(r, "base_case"), base);
    cts_env_view(&e, m);
    struct buf b = {0};
    b.f = open_memstream(&b.s, &b.n);
    if (!b.f)
        return -1;
    v.sized = 0; /* the row: every size */
    the_call(&b, &v, &e);
    char unit[48];
    unit_words(unit, sizeof unit, r);
    say(&b, "searched from 1 to %lld %s in %lld probes, each a full case run of %lld repetitions,",
        cts_json_int(r, "max_bytes"), unit, cts_json_int(r, "probes"), cts_json_int(run, "repetitions"));
    flips_words(&b, r);
    say(&b, " At the matrix's sample sizes:");
    int any = 0;
    for (int i = 0; i < CTS_SIZE_COUNT; i++) /* in size order */
        if ((x = json_object_get(samples, cts_size_token(i))))
            say(&b, "%s %s %s", any++ ? "," : "", cts_size_token(i), json_string_value(x));
    say(&b, ".");
    where(&b, &e, s_of(r, "base_case"));
    say(&b, " Threshold search by cuda-sync-cts %s on %s (row %s). At its sample size, %s:", s_of(run, "suite_revision"),
        s_of(run, "date"), row, s_of(r, "base_case"));
    judgement(&b, m, &v);
    int bad = fclose(b.f) != 0;
    for (char *p = b.s; !bad && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    if (!bad)
        bad = fprintf(out, "%s\n", b.s) < 0;
    free(b.s);
    return bad ? -1 : 0;
}
