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
    if (!strcmp(op, "implied"))
        return strcmp(default_stream, "per-thread") ? "on the legacy default stream (no stream argument)"
                                                    : "on the per-thread default stream (no stream argument)";
    if (!strcmp(op, "null"))
        return strcmp(default_stream, "per-thread") ? "on stream 0 (the legacy default stream in this build)"
                                                    : "on stream 0 (the per-thread default stream in this build)";
    if (!strcmp(op, "legacy")) return "on cudaStreamLegacy";
    if (!strcmp(op, "perthread")) return "on cudaStreamPerThread";
    if (!strcmp(op, "blocking")) return "on a stream created with cudaStreamDefault";
    if (!strcmp(op, "nonblocking")) return "on a stream created with cudaStreamNonBlocking";
    return op;
}

static const char *busy_words(const char *busy)
{
    if (!strcmp(busy, "same")) return "a kernel held that same stream";
    if (!strcmp(busy, "legacy")) return "a kernel held the legacy default stream";
    if (!strcmp(busy, "blocking")) return "a kernel held another blocking stream";
    if (!strcmp(busy, "nonblocking")) return "a kernel held a non-blocking stream";
    if (!strcmp(busy, "perthread")) return "a kernel held this thread's per-thread default stream";
    if (!strcmp(busy, "thread_legacy"))
        return "a kernel launched by a second host thread held the legacy default stream";
    if (!strcmp(busy, "thread_perthread"))
        return "a kernel held a second host thread's per-thread default stream";
    if (!strcmp(busy, "hostfn")) return "a host function (cudaLaunchHostFunc) held a non-blocking stream";
    return busy;
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

/* What third streams did, as words, for a call that returned. */
static void third_words(struct buf *b, const json_t *v)
{
    const char *tb = s_of(v, "third_blocking"), *tn = s_of(v, "third_nonblocking");
    int hb = !strcmp(tb, "held"), hn = !strcmp(tn, "held");
    if (hb || hn)
        say(b, "; later work on a third %s stream waited for it (without the call it ran)",
            hb && hn ? "blocking and a third non-blocking" : hb ? "blocking" : "non-blocking");
    else
        say(b, "; it made no third stream wait");
}

static void observed(struct buf *b, const json_t *c)
{
    const json_t *v = json_object_get(c, "verdict"), *ev = json_object_get(c, "evidence");
    const char *st = s_of(c, "status");
    double call = cts_call_median(ev);
    double idle = json_number_value(json_object_get(ev, "idle_call_us"));
    long reps = (long)json_integer_value(json_object_get(ev, "repetitions"));
    if (strcmp(st, "PASS") && strcmp(st, "VARIES")) {
        say(b, "The case has no verdict: %s (%s).", st, s_of(c, "reason"));
        return;
    }
    if (!strcmp(st, "VARIES"))
        say(b, "The repetitions differed (%s; cells %s): ", s_of(c, "reason"), s_of(c, "symbol"));
    if (!strcmp(s_of(v, "host"), "waits")) {
        double back = cts_json_median(json_object_get(ev, "release_to_return_us"));
        if (isnan(back))
            say(b, "it waited for the held work (the time from its release to the return was not recorded; ");
        else
            say(b, "it waited for the held work, returning %.1f us after that work was released (", back);
        say(b, "%.1f us inside the call, against %.1f us on an idle GPU; %ld of %ld repetitions)", call, idle,
            reps, reps);
        /* The proof: an attempt with the gate held longer took longer. */
        const json_t *ft = json_object_get(ev, "tracked_from_timeout_us"),
                     *fc = json_object_get(ev, "tracked_from_call_us"),
                     *rt = json_object_get(ev, "rep_timeout_us"), *cu = json_object_get(ev, "call_us");
        double timeout = json_number_value(json_object_get(ev, "timeout_us"));
        for (size_t i = 0; i < json_array_size(ft); i++) {
            const json_t *x = json_array_get(ft, i);
            if (!json_is_number(x))
                continue;
            double to = json_is_number(json_array_get(rt, i)) ? json_number_value(json_array_get(rt, i))
                                                              : timeout;
            say(b, "; measured again with the held work released %.0f us after the call began instead "
                   "of %.0f us, the call took %.1f us instead of %.1f us: it waits for that work",
                to, json_number_value(x), json_number_value(json_array_get(cu, i)),
                json_number_value(json_array_get(fc, i)));
            break;
        }
    } else if (!strcmp(s_of(v, "host"), "returns")) {
        const char *op = s_of(v, "op_after");
        say(b, "it returned while the held work was still held (%.1f us inside the call, against %.1f "
               "us on an idle GPU), and work queued after it on its own stream %s",
            call, idle, !strcmp(op, "runs") ? "ran at once" : "waited for the held work (stream order)");
        third_words(b, v);
        const char *src = s_of(v, "src"), *dst = s_of(v, "dst");
        if (!strcmp(src, "at_call"))
            say(b, "; it took its source bytes during the call");
        else if (!strcmp(src, "after_return"))
            say(b, "; it read its source after returning");
        else if (!strcmp(src, "partial"))
            say(b, "; it read part of its source after returning");
        if (!strcmp(dst, "complete"))
            say(b, "; its host destination was complete when it returned");
    } else {
        say(b, "the repetitions agree on no host behaviour");
    }
    say(b, ".");
}

static void judgement(struct buf *b, const json_t *m, const json_t *c)
{
    const json_t *spec = json_object_get(c, "spec");
    const json_t *table = json_object_get(json_object_get(m, "spec"), "clauses");
    const char *conf = s_of(spec, "conformance");
    int judged = json_is_object(json_object_get(m, "spec")); /* the clauses are quoted from its table */
    if (!json_is_object(spec) || !*conf || !judged) {
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
        size_t i;
        json_t *cl;
        int first = 1;
        json_array_foreach(json_object_get(spec, "clauses"), i, cl)
        {
            const json_t *h = json_object_get(cl, "holds");
            const char *pred = s_of(cl, "prediction");
            int guarantee = !strncmp(pred, "guaranteed", 10);
            int part = json_is_false(h) ? 0 : json_is_true(h) ? 1 : guarantee ? 2 : 3;
            if (part != p)
                continue;
            const char *id = s_of(cl, "id");
            const json_t *e = json_object_get(table, id);
            say(b, first ? " %s" : ";", parts[p]);
            say(b, " %s (%s, about %s)", id, pred, s_of(cl, "about"));
            int seen = 0;
            for (size_t q = 0; q < nq; q++)
                seen |= !strcmp(quoted[q], id);
            if (!seen && nq < sizeof quoted / sizeof *quoted) {
                quoted[nq++] = id;
                say(b, ": %s, \"%s\" %s", s_of(e, "where"), s_of(e, "quote"), s_of(e, "url"));
            }
            first = 0;
        }
        if (!first)
            say(b, ".");
    }
    say(b, " Verdict: %s.", conf);
}

int cts_cite(const json_t *m, const char *id, FILE *out)
{
    const json_t *c = json_object_get(json_object_get(m, "cases"), id);
    const json_t *env = json_object_get(m, "environment"), *gpu = json_object_get(env, "gpu");
    const json_t *ver = json_object_get(env, "versions"), *set = json_object_get(env, "settings");
    if (!c)
        return -1;
    struct buf b = {0};
    b.f = open_memstream(&b.s, &b.n);
    if (!b.f)
        return -1;
    /* The call. */
    say(&b, "%s", s_of(c, "function"));
    if (*s_of(c, "variant"))
        say(&b, " (%s)", s_of(c, "variant"));
    if (json_is_integer(json_object_get(c, "size")))
        say(&b, " of %lld bytes", (long long)json_integer_value(json_object_get(c, "size")));
    if (*s_of(c, "direction"))
        say(&b, ", %s", cts_dir_words(s_of(c, "direction")));
    if (*s_of(c, "memory"))
        say(&b, ", %s memory (%s)", s_of(c, "memory"), s_of(c, "allocator"));
    if (*s_of(c, "copy_kind"))
        say(&b, ", kind %s", s_of(c, "copy_kind"));
    say(&b, ", %s, issued while %s: ", op_words(s_of(c, "op_stream"), s_of(set, "default_stream")),
        busy_words(s_of(c, "busy")));
    observed(&b, c);
    /* Where. */
    say(&b, " Measured on an %s (compute capability %s) with driver %s (CUDA %s driver API), cudart %s, "
            "the %s default stream, schedule %s",
        s_of(gpu, "name"), s_of(gpu, "compute_capability"),
        json_is_string(json_object_get(ver, "driver")) ? s_of(ver, "driver") : "unknown",
        s_of(json_object_get(ver, "driver_api"), "text"), s_of(json_object_get(ver, "runtime"), "text"),
        s_of(set, "default_stream"), s_of(set, "device_schedule"));
    const char *k;
    json_t *v;
    int any = 0;
    json_object_foreach(json_object_get(set, "environment_variables"), k, v)
        if (json_is_string(v))
            say(&b, "%s%s=%s", any++ ? ", " : ", with ", k, json_string_value(v));
    say(&b, ", by cuda-sync-cts %s on %s (case %s).", s_of(env, "suite_revision"),
        s_of(json_object_get(m, "run"), "date"), id);
    judgement(&b, m, c);
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
