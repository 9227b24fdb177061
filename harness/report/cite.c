/* sync-cts cite: one case of a matrix as one paragraph for a bug report: the
 * call and its arguments, what was observed with numbers, where, and the
 * clauses it conforms to or deviates from.  Everything comes from the
 * matrix (its environment, the case, the clause table it was judged with).
 * The self-measured families' paragraphs are cite_families.c's, a threshold
 * row's cite_threshold.c's, the words for a stream and a busy placement
 * cite_words.c's; what they share, cite_int.h. */
#define _GNU_SOURCE
#include "cite_int.h"
#include "report.h"
#include "spec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void cts_cite_judgement(struct buf *b, const json_t *m, const struct cts_case_view *v)
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
void cts_cite_the_call(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e)
{
    say(b, "%s", v->function);
    const char *vw = *v->variant ? cts_cite_variant_words(v->function, v->variant) : NULL;
    if (vw)
        say(b, " %s", vw);
    else if (*v->variant)
        say(b, " (%s)", v->variant);
    if (v->sized)
        say(b, " of %lld bytes", (long long)v->size);
    if (*v->direction)
        say(b, ", %s", cts_dir_words(v->direction));
    if (*v->memory)
        say(b, ", %s memory (%s)", v->memory, cts_cite_range_words(v->function, v->variant, v->allocator));
    if (*v->copy_kind)
        say(b, ", kind %s", v->copy_kind);
    int writes = json_is_true(json_object_get(v->c, "writes"));
    say(b, ", %s, issued while %s%s: ", cts_cite_op_words(v->op_stream, e->default_stream),
        cts_cite_busy_words(v->busy),
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
void cts_cite_where(struct buf *b, const struct cts_env_view *e, const char *id)
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
    if (!cts_cite_family_case(&b, &v, &e)) {
        cts_cite_the_call(&b, &v, &e);
        observed(&b, &v);
        latency_words(&b, &v);
    }
    if (!strcmp(v.family, "peer"))
        devices(&b, m, &v);
    cts_cite_where(&b, &e, id);
    cts_cite_judgement(&b, m, &v);
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
