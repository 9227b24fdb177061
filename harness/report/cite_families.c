/* sync-cts cite: the paragraphs of the families that measure a call their
 * own way (cite.c writes the rest of a case's paragraph around them): a
 * capture, the overlap family's pairs and staged copies, a queue's depth, a
 * second thread's stall, a pool's reuse (a paragraph and a row of `families`
 * each, the end of this file).  A kind of outcome registered since, in the
 * verdict's kind slot (outcome.h, CTS_AT_KIND), writes its own paragraph from
 * its descriptor (cite_setup, cite_result): nothing is added here. */
#include "cite_int.h"
#include "report.h"
#include "outcome.h"

#include <math.h>
#include <string.h>

/* The capture family: where the call was made, in which modes, and what the
 * capture made of it (the first repetition's return codes). */
#define OR_Q(x) ((x) ? (x) : "?")
/* What the capture made of the call (enum cts_capture_outcome, the verdict's). */
static const char *capture_outcome_words(const struct cts_case_view *v)
{
    static const char *const words[] = {
        "", "became a node of the graph, whose launch did what the call does", "ran at once, the capture intact",
        "was refused, the capture intact", "was refused, and the capture was invalidated",
        "returned success, yet the capture was invalidated",
        "returned success and is missing: not in the graph, and not done", "was refused, yet its effect is there"};
    return words[(unsigned)v->verdict.capture < sizeof words / sizeof *words ? v->verdict.capture : 0];
}

static const char *capture_ev(const struct cts_case_view *v, const char *obj, const char *key)
{
    const json_t *o = json_object_get(json_object_get(v->c, "evidence"), obj);
    return json_string_value(json_array_get(json_object_get(o, key), 0));
}

/* A call in a conditional node's body capture (variant body_if_<order>, body_while_<order>:
 * cases/capture_body.c): the two captures, the order they were ended in, and what each end, the
 * parent graph's instantiation and its launch returned (the first repetition's). */
static void capture_body_case(struct buf *b, const struct cts_case_view *v)
{
    int is_while = !strncmp(v->variant, "body_while_", 11);
    const char *order = strstr(v->variant, "_end_");
    order = order ? order + 5 : "";
    const char *ends = !strcmp(order, "body_first")     ? "the body's capture was ended first, then the parent's"
                       : !strcmp(order, "parent_first") ? "the parent's capture was ended first, then the body's"
                       : !strcmp(order, "parent_only")
                           ? "the parent's capture was ended and its graph instantiated while the body still "
                             "captured, and only then the body's"
                           : "the captures were ended in an order not known here";
    const char *mode = OR_Q(json_string_value(json_object_get(v->c, "capture")));
    const char *kind = !strcmp(v->op_stream, "nonblocking") ? "non-blocking" : v->op_stream;
    say(b, "%s, made by the capturing thread on a %s stream capturing (cudaStreamBeginCaptureToGraph, %s mode) "
           "into the body of a conditional %s node of another %s stream's capture (%s mode); %s: ",
        v->function, kind, mode, is_while ? "WHILE" : "IF", kind, mode, ends);
    if (v->status != CTS_PASS && v->status != CTS_VARIES) {
        say(b, "the case has no verdict: %s (%s).", cts_status_name(v->status), v->reason);
        return;
    }
    const json_t *rel = json_array_get(
        json_object_get(json_object_get(json_object_get(v->c, "evidence"), "capture_body"), "body_released"), 0);
    say(b, "the call returned %s, the body's cudaStreamEndCapture %s and the parent's %s, the parent graph's "
           "instantiation %s and its launch %s%s: seen from the body, the call %s (%lld repetitions%s).",
        OR_Q(capture_ev(v, "capture", "rc")), OR_Q(capture_ev(v, "capture_body", "body_end")),
        OR_Q(capture_ev(v, "capture_body", "parent_end")), OR_Q(capture_ev(v, "capture_body", "instantiate")),
        OR_Q(capture_ev(v, "capture_body", "launch")),
        json_is_true(rel)    ? "; once both ends had returned, the driver had released the body graph the node owns"
        : json_is_false(rel) ? "; the body graph the node owns was still held once both ends had returned"
                             : "",
        capture_outcome_words(v), (long long)v->repetitions,
        v->status == CTS_VARIES ? ", which differed in another way" : "");
}


/* A capture begun into an existing graph (evidence capture_to_graph): what its first repetition's
 * cudaStreamEndCapture returned of that graph.  Nothing for another case. */
static void capture_to_graph(struct buf *b, const struct cts_case_view *v)
{
    const json_t *tg = json_object_get(json_object_get(v->c, "evidence"), "capture_to_graph");
    if (!tg)
        return;
    const char *const name[] = {"same_graph", "kept_node", "depends", "released"};
    const char *const words[][3] = {
        {"returned that graph", "did not return that graph", "?"},
        {"which still held its node", "which no longer held its node", "no graph to read"},
        {"the only root (the captured nodes depend on it)", "not the only root (not every captured node depends on it)",
         "nothing captured"},
        {"; by then the graph had released the user object it held the only reference to (its destructor ran): "
         "the driver had let go of the graph it was given",
         "; the user object the graph held the only reference to was not released by then", ""}};
    int at[4];
    for (int k = 0; k < 4; k++) {
        const json_t *x = json_array_get(json_object_get(tg, name[k]), 0);
        at[k] = json_is_true(x) ? 0 : json_is_false(x) ? 1 : 2;
    }
    say(b, " Begun into an existing graph holding one empty node, its dependency (cudaStreamBeginCaptureToGraph): "
        "cudaStreamEndCapture %s, %s, %s%s.", words[0][at[0]], words[1][at[1]], words[2][at[2]], words[3][at[3]]);
}
static void capture_case(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e)
{
    (void)e;
    if (v->variant && !strncmp(v->variant, "body_", 5)) {
        capture_body_case(b, v);
        return;
    }
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
    const char *where = v->busy;
    for (size_t i = 0; i < sizeof places / sizeof *places; i++)
        if (!strcmp(v->busy, places[i][0]))
            where = places[i][1];
    const char *rc = capture_ev(v, "capture", "rc"), *end = capture_ev(v, "capture", "end");
    const char *after = capture_ev(v, "capture", "after");
    say(b, "%s, made %s in its own capture mode %s, while a %s stream captured in %s mode: ", v->function, where,
        OR_Q(json_string_value(json_object_get(v->c, "capture_by"))), v->op_stream,
        OR_Q(json_string_value(json_object_get(v->c, "capture"))));
    if (v->status != CTS_PASS && v->status != CTS_VARIES) {
        say(b, "the case has no verdict: %s (%s).", cts_status_name(v->status), v->reason);
        return;
    }
    say(b, "it returned %s, the capture was then %s and cudaStreamEndCapture returned %s: the call %s (%lld "
        "repetitions%s).", OR_Q(rc), OR_Q(after), OR_Q(end),
        capture_outcome_words(v), (long long)v->repetitions,
        v->status == CTS_VARIES ? ", which differed in another way" : "");
    capture_to_graph(b, v);
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
static void staged_case(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e)
{
    (void)e;
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
static void depth_case(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e)
{
    (void)e;
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
           "us: ", cts_cite_op_words(v->op_stream, e->default_stream), cts_cite_busy_words(v->busy),
        cts_words(commands, v->with));
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
static void pool_case(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e)
{
    (void)e;
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

static void pair_case(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e)
{
    (void)e;
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

/* Whose paragraph is its family's own, tried in this order: a capture (the case names its mode),
 * the depth, stall and pool families, an overlap pair (the case names its second operation), the
 * overlap family's staged copies. */
static int is_capture(const struct cts_case_view *v) { return json_object_get(v->c, "capture") != NULL; }
static int is_depth(const struct cts_case_view *v) { return !strcmp(v->family, "depth"); }
static int is_stall(const struct cts_case_view *v) { return !strcmp(v->family, "stall"); }
static int is_pool(const struct cts_case_view *v) { return !strcmp(v->family, "pool"); }
static int is_pair(const struct cts_case_view *v) { return *v->with != '\0'; }
static int is_staged(const struct cts_case_view *v)
{
    return !strncmp(v->variant, "staged_", 7) && !strcmp(v->family, "overlap");
}

static const struct {
    int (*mine)(const struct cts_case_view *v);
    void (*paragraph)(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e);
} families[] = {
    {is_capture, capture_case}, {is_depth, depth_case}, {is_stall, stall_case},
    {is_pool, pool_case},       {is_pair, pair_case},   {is_staged, staged_case},
};

/* A kind in the kind slot: its descriptor says what was done and, where the case has a verdict,
 * what came of it. */
static int kind_case(struct buf *b, const struct cts_case_view *v)
{
    CTS_FOR_EACH_OUTCOME(o) {
        if (o->at != CTS_AT_KIND || !o->family || strcmp(o->family, v->family) || !o->cite_setup)
            continue;
        o->cite_setup(b->f, v->c);
        if (!unsettled(b, v)) {
            o->cite_result(b->f, v->c);
            say(b, " (`%s`; %lld repetitions).", v->symbol, (long long)v->repetitions);
        }
        return 1;
    }
    return 0;
}

int cts_cite_family_case(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e)
{
    if (kind_case(b, v))
        return 1;
    for (size_t k = 0; k < sizeof families / sizeof *families; k++)
        if (families[k].mine(v)) {
            families[k].paragraph(b, v, e);
            return 1;
        }
    return 0;
}
