/* ---- validation ---------------------------------------------------------------
 *
 * Every member a command reads is checked when the matrix is loaded, so that
 * no command has to guess: a wrong type, a missing member or an impossible
 * value is refused with the file, the case and the member named.  Members
 * nothing reads are left alone. */
#define _GNU_SOURCE
#include "matrix_int.h"
#include "outcome.h"
#include "spec.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BAD(...) (snprintf(why, len, __VA_ARGS__), -1)

/* ---- case ids ----------------------------------------------------------------- */

/* A case id as an error message may show it: control characters as '?',
 * at most 80 characters. */
const char *cts_mx_shown_id(const char *id, char *buf, size_t len)
{
    size_t n = 0;
    for (; *id && n + 4 < len && n < 80; id++)
        buf[n++] = (unsigned char)*id < 0x20 || *id == 0x7f ? '?' : *id;
    if (*id && n + 4 < len)
        buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
    buf[n] = 0;
    return buf;
}

/* Why an id cannot be a case id, or NULL. */
const char *cts_mx_bad_id(const char *id)
{
    size_t n = strlen(id);
    if (!n)
        return "is empty";
    if (n >= CTS_ID_MAX)
        return "is longer than any case id";
    for (; *id; id++)
        if ((unsigned char)*id < 0x20 || *id == 0x7f)
            return "holds a control character";
    return NULL;
}

int cts_case_id_check(const char *id, char *err, size_t errlen)
{
    const char *why = cts_mx_bad_id(id);
    char shown[96];
    if (!why)
        return 0;
    if (strlen(id) >= CTS_ID_MAX)
        snprintf(err, errlen, "'%s' is not a case id: it has %zu characters, and case ids have at most %d",
                 cts_mx_shown_id(id, shown, sizeof shown), strlen(id), CTS_ID_MAX - 1);
    else
        snprintf(err, errlen, "'%s' is not a case id: it %s", cts_mx_shown_id(id, shown, sizeof shown), why);
    return -1;
}

enum { REQ = 0, OPT = 1, NUL = 2 }; /* a member may be absent (OPT) or null (NUL) */

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    default: return "null";
    }
}

/* Member `key` of o (called pre+key in messages): *v, NULL where it may be
 * absent or null and is. */
static int member(const json_t *o, const char *pre, const char *key, int flags, const json_t **v, char *why,
                  size_t len)
{
    *v = json_object_get(o, key);
    if (!*v)
        return flags & OPT ? 0 : BAD("%s%s is missing", pre, key);
    if (json_is_null(*v)) {
        *v = NULL;
        return flags & NUL ? 0 : BAD("%s%s is null", pre, key);
    }
    return 0;
}

static int v_str(const json_t *o, const char *pre, const char *key, int flags, const char **s, char *why,
                 size_t len)
{
    const json_t *v;
    if (member(o, pre, key, flags, &v, why, len))
        return -1;
    if (v && !json_is_string(v))
        return BAD("%s%s is %s, not a string", pre, key, type_name(v));
    if (s)
        *s = v ? json_string_value(v) : NULL;
    return 0;
}

static int v_obj(const json_t *o, const char *pre, const char *key, int flags, const json_t **out, char *why,
                 size_t len)
{
    if (member(o, pre, key, flags, out, why, len))
        return -1;
    if (*out && !json_is_object(*out))
        return BAD("%s%s is %s, not an object", pre, key, type_name(*out));
    return 0;
}

static int v_int(const json_t *o, const char *pre, const char *key, int flags, json_int_t lo, json_int_t hi,
                 json_int_t *out, char *why, size_t len)
{
    const json_t *v;
    if (member(o, pre, key, flags, &v, why, len))
        return -1;
    if (v && !json_is_integer(v))
        return BAD("%s%s is %s, not a whole number", pre, key, type_name(v));
    if (v && (json_integer_value(v) < lo || json_integer_value(v) > hi))
        return BAD("%s%s is %lld, not from %lld to %lld", pre, key, (long long)json_integer_value(v),
                   (long long)lo, (long long)hi);
    if (out)
        *out = v ? json_integer_value(v) : -1;
    return 0;
}

/* A number: finite, and not negative where it is a time (`time`). */
static int number_ok(const json_t *v, int time, const char *pre, const char *key, char *why, size_t len)
{
    if (!json_is_number(v))
        return BAD("%s%s is %s, not a number", pre, key, type_name(v));
    double x = json_number_value(v);
    if (!isfinite(x))
        return BAD("%s%s is not a finite number", pre, key);
    if (time && x < 0)
        return BAD("%s%s is %g: a time cannot be negative", pre, key, x);
    return 0;
}

static int v_num(const json_t *o, const char *pre, const char *key, int flags, int time, char *why, size_t len)
{
    const json_t *v;
    if (member(o, pre, key, flags, &v, why, len))
        return -1;
    return v ? number_ok(v, time, pre, key, why, len) : 0;
}

/* The names an enum has, 1..count-1 (0 is "none": null in the matrix). */
static const char *host_n(int i) { return cts_host_name((enum cts_host)i); }
static const char *order_n(int i) { return cts_order_name((enum cts_order)i); }
static const char *src_n(int i) { return cts_src_name((enum cts_src)i); }
static const char *dst_n(int i) { return cts_dst_name((enum cts_dst)i); }
static const char *data_n(int i) { return cts_data_name((enum cts_data)i); }
static const char *reader_n(int i) { return cts_reader_name((enum cts_reader)i); }
static const char *capmode_n(int i) { return cts_capture_token((enum cts_capture)i); }
static const char *capst_n(int i) { return cts_cap_status_name((enum cts_cap_status)i); }
static const char *conf_n(int i) { return cts_conformance_name((enum cts_conformance)i); }
static const char *about_n(int i) { return i ? cts_about_name((enum cts_about)(i - 1)) : NULL; }
static const char *pred_n(int i) { return i ? cts_pred_name((enum cts_pred)(i - 1)) : NULL; }
/* An enum's names: by a function, or (a verdict field's, outcome.h) a list. */
struct names {
    const char *(*name)(int);
    int count;
    const char *const *list;
};
static const char *nm(struct names n, int i) { return n.list ? n.list[i] : n.name(i); }
static const struct names HOST = {host_n, 3}, ORDER = {order_n, 4}, SRC = {src_n, 4}, DST = {dst_n, 3},
                          DATA = {data_n, 4}, READER = {reader_n, 3}, CAPMODE = {capmode_n, CTS_CAPTURE_COUNT},
                          CAPST = {capst_n, CTS_CAPST_COUNT}, CONF = {conf_n, 4}, ABOUT = {about_n, CTS_ABOUT_COUNT + 1}, PRED = {pred_n, 5};

/* The index of a name (null is 0 where NUL allows it), or -1 with a reason. */
static int name_ok(const json_t *v, struct names n, int flags, const char *pre, const char *key, char *why,
                   size_t len)
{
    if (json_is_null(v) && (flags & NUL))
        return 0;
    const char *s = json_string_value(v);
    for (int i = 1; s && i < n.count; i++)
        if (!strcmp(s, nm(n, i)))
            return i;
    char list[160] = "";
    for (int i = 1; i < n.count; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i > 1 ? (i + 1 < n.count ? ", " : " or ") : "",
                 nm(n, i));
    if (s)
        return BAD("%s%s is \"%.40s\", not %s%s", pre, key, s, list, flags & NUL ? " (or null)" : "");
    return BAD("%s%s is %s, not %s%s", pre, key, type_name(v), list, flags & NUL ? " (or null)" : "");
}

static int v_name(const json_t *o, const char *pre, const char *key, int flags, struct names n, int *idx,
                  char *why, size_t len)
{
    const json_t *v = json_object_get(o, key);
    if (!v) {
        if (flags & OPT) {
            if (idx)
                *idx = 0;
            return 0;
        }
        return BAD("%s%s is missing", pre, key);
    }
    int i = name_ok(v, n, flags, pre, key, why, len);
    if (i < 0)
        return -1;
    if (idx)
        *idx = i;
    return 0;
}

/* Per-repetition arrays: the kind of their elements. */
enum rep_kind { REP_TIME, REP_SIGNED, REP_HOST, REP_SRC, REP_DST, REP_DATA, REP_READER, REP_BYTES };
static const struct {
    const char *key;
    enum rep_kind kind;
} rep_arrays[] = {{"call_us", REP_TIME},
                  {"release_to_return_us", REP_TIME},
                  {"op_after_gpu_us", REP_SIGNED}, /* negative: the marker ran while the gate was closed */
                  {"third_blocking_gpu_us", REP_SIGNED},
                  {"third_nonblocking_gpu_us", REP_SIGNED},
                  {"host", REP_HOST},
                  {"src", REP_SRC},
                  {"dst", REP_DST},
                  {"rep_timeout_us", REP_TIME},
                  {"tracked_from_timeout_us", REP_TIME},
                  {"tracked_from_call_us", REP_TIME},
                  {"rep_window_us", REP_TIME},
                  {"data", REP_DATA},
                  {"data_new_bytes", REP_BYTES},
                  {"data_boundary", REP_BYTES},
                  {"reader", REP_READER},
                  {"landed", REP_DST},
                  {"run_delay_us", REP_TIME}};

/* How many numbers an array holds. */
static size_t numbers_in(const json_t *a)
{
    size_t k = 0;
    for (size_t i = 0; i < json_array_size(a); i++)
        k += json_is_number(json_array_get(a, i));
    return k;
}

/* The per-repetition arrays a case has: each as long as
 * evidence.repetitions (reps), each value null or of its array's kind. */
static int check_rep_arrays(const json_t *ev, json_int_t reps, char *why, size_t len)
{
    static const char *const P = "evidence.";
    for (size_t k = 0; k < sizeof rep_arrays / sizeof *rep_arrays; k++) {
        const char *key = rep_arrays[k].key;
        const json_t *a = json_object_get(ev, key);
        if (!a)
            continue;
        if (!json_is_array(a))
            return BAD("evidence.%s is %s, not an array (one value a repetition)", key, type_name(a));
        if ((json_int_t)json_array_size(a) != reps)
            return BAD("evidence.%s has %zu values, but evidence.repetitions is %lld", key, json_array_size(a),
                       (long long)reps);
        for (size_t i = 0; i < json_array_size(a); i++) {
            const json_t *x = json_array_get(a, i);
            char at[64];
            snprintf(at, sizeof at, "%s[%zu]", key, i);
            if (json_is_null(x))
                continue;
            enum rep_kind kind = rep_arrays[k].kind;
            static const struct names *const of[] = {[REP_HOST] = &HOST, [REP_SRC] = &SRC, [REP_DST] = &DST,
                                                     [REP_DATA] = &DATA, [REP_READER] = &READER};
            if (kind == REP_TIME || kind == REP_SIGNED) {
                if (number_ok(x, kind == REP_TIME, P, at, why, len))
                    return -1;
            } else if (kind == REP_BYTES) {
                if (!json_is_integer(x) || json_integer_value(x) < 0)
                    return BAD("evidence.%s is not a byte count or offset (an integer >= 0, or null)", at);
            } else if (name_ok(x, *of[kind], NUL, P, at, why, len) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* The call from 1, 4 and 16 threads at once (the cheap calls'): an array of
 * three objects, in that order, each with its calls and times; or why not. */
static int check_latency(const json_t *ev, char *why, size_t len)
{
    const json_t *a = json_object_get(ev, "latency");
    const char *error;
    if (v_str(ev, "evidence.", "latency_error", OPT, &error, why, len))
        return -1;
    if (!a)
        return 0;
    if (!json_is_array(a) || json_array_size(a) != CTS_LATENCY_COUNTS)
        return BAD("evidence.latency is not an array of %d entries", CTS_LATENCY_COUNTS);
    for (size_t k = 0; k < CTS_LATENCY_COUNTS; k++) {
        const json_t *x = json_array_get(a, k);
        char pre[32];
        json_int_t threads;
        snprintf(pre, sizeof pre, "evidence.latency[%zu].", k);
        if (!json_is_object(x))
            return BAD("evidence.latency[%zu] is %s, not an object", k, type_name(x));
        if (v_int(x, pre, "threads", REQ, 1, 1024, &threads, why, len) ||
            v_int(x, pre, "calls", REQ, 1, INT32_MAX, NULL, why, len) ||
            v_num(x, pre, "median_us", REQ, 1, why, len) || v_num(x, pre, "p99_us", REQ, 1, why, len) ||
            v_num(x, pre, "max_us", REQ, 1, why, len))
            return -1;
        if (threads != cts_latency_threads[k])
            return BAD("evidence.latency[%zu].threads is %lld, not %d", k, (long long)threads,
                       cts_latency_threads[k]);
    }
    return 0;
}

/* The evidence every case has: counts and times, the holds tracked, the control. */
static int check_evidence_common(const json_t *ev, int verdict_status, json_int_t *reps, char *why, size_t len)
{
    static const char *const P = "evidence.";
    const json_t *ctl, *ht;
    if (v_int(ev, P, "repetitions", REQ, verdict_status ? 1 : 0, CTS_MAX_REPEAT, reps, why, len) ||
        v_int(ev, P, "window_retries", REQ, 0, INT32_MAX, NULL, why, len) ||
        v_int(ev, P, "timeout_retries", REQ, 0, INT32_MAX, NULL, why, len) ||
        v_int(ev, P, "waits_tracked", OPT, 0, INT32_MAX, NULL, why, len) ||
        v_num(ev, P, "idle_call_us", verdict_status ? REQ : NUL, 1, why, len) ||
        v_num(ev, P, "idle_call_max_us", NUL, 1, why, len) || v_num(ev, P, "idle_complete_us", NUL, 1, why, len) ||
        v_num(ev, P, "timeout_us", NUL, 1, why, len) || v_num(ev, P, "window_us", NUL, 1, why, len) ||
        v_num(ev, P, "drain_max_us", OPT, 1, why, len) || v_obj(ev, P, "holds_tracked", OPT, &ht, why, len) ||
        v_obj(ev, P, "control", NUL, &ctl, why, len))
        return -1;
    static const char *const columns[] = {"op_after", "third_blocking", "third_nonblocking"};
    for (int k = 0; ht && k < 3; k++)
        if (v_int(ht, "evidence.holds_tracked.", columns[k], OPT, 0, INT32_MAX, NULL, why, len))
            return -1;
    if (ctl && (v_name(ctl, "evidence.control.", "op_after", NUL, ORDER, NULL, why, len) ||
                v_name(ctl, "evidence.control.", "third_blocking", NUL, ORDER, NULL, why, len) ||
                v_name(ctl, "evidence.control.", "third_nonblocking", NUL, ORDER, NULL, why, len)))
        return -1;
    const json_t *own = json_object_get(ctl, "with_case_setup");
    if (own && !json_is_boolean(own))
        return BAD("evidence.control.with_case_setup is %s, not true or false", type_name(own));
    return 0;
}

/* The overlap family's measurements (a pair, a staged-copy pattern), and the
 * depth and stall families': arrays of numbers, one a repetition. */
static int check_evidence_measured(const json_t *ev, json_int_t reps, char *why, size_t len)
{
    static const char *const measured[] = {"pair", "staged", "depth", "stall"};
    for (size_t m = 0; m < 4; m++) {
        const json_t *obj;
        if (v_obj(ev, "evidence.", measured[m], OPT, &obj, why, len))
            return -1;
        const char *pk;
        const json_t *pa;
        json_object_foreach((json_t *)obj, pk, pa) {
            if (!json_is_array(pa) || (json_int_t)json_array_size(pa) != reps)
                return BAD("evidence.%s.%.40s is not an array of %lld numbers", measured[m], pk, (long long)reps);
            size_t i;
            const json_t *x;
            json_array_foreach(pa, i, x)
                if (!json_is_number(x) && !json_is_null(x))
                    return BAD("evidence.%s.%.40s[%zu] is %s, not a number", measured[m], pk, i, type_name(x));
        }
    }
    return 0;
}

/* The capture family's observations: arrays, one entry a repetition. */
static int check_evidence_capture(const json_t *ev, json_int_t reps, char *why, size_t len)
{
    const json_t *cap;
    if (v_obj(ev, "evidence.", "capture", OPT, &cap, why, len))
        return -1;
    static const char *const cap_keys[] = {"rc", "after", "end", "nodes", "eager", "launched"};
    for (size_t k = 0; cap && k < sizeof cap_keys / sizeof *cap_keys; k++) {
        const json_t *a = json_object_get(cap, cap_keys[k]), *x;
        if (!json_is_array(a) || (json_int_t)json_array_size(a) != reps)
            return BAD("evidence.capture.%s is not an array of %lld entries", cap_keys[k], (long long)reps);
        size_t i;
        json_array_foreach(a, i, x) {
            int ok = json_is_null(x) || (k <= 2 ? json_is_string(x) : k == 3 ? json_is_array(x) : json_is_integer(x));
            if (ok && k == 1 && json_is_string(x))
                ok = name_ok(x, CAPST, 0, "evidence.capture.", "after", why, len) >= 0;
            if (!ok)
                return BAD("evidence.capture.%s[%zu] is %s, not what a capture records", cap_keys[k], i, type_name(x));
        }
    }
    return 0;
}

/* The pool family's allocation: arrays, one entry a repetition (null
 * throughout in one that got no outcome): the call's error by name, or null
 * where it succeeded; whether it got the freed block; whether later work
 * was held (null: not seen). */
static int check_evidence_pool(const json_t *ev, json_int_t reps, char *why, size_t len)
{
    const json_t *pool;
    if (v_obj(ev, "evidence.", "pool", OPT, &pool, why, len))
        return -1;
    static const char *const pool_keys[] = {"error", "same_block", "later_held"};
    static const char *const pool_what[] = {"an error's name or null", "true, false or null",
                                            "true, false or null"};
    for (size_t k = 0; pool && k < sizeof pool_keys / sizeof *pool_keys; k++) {
        const json_t *a = json_object_get(pool, pool_keys[k]), *x;
        if (!json_is_array(a) || (json_int_t)json_array_size(a) != reps)
            return BAD("evidence.pool.%s is not an array of %lld entries", pool_keys[k], (long long)reps);
        size_t i;
        json_array_foreach(a, i, x) {
            if (!json_is_null(x) && (k == 0 ? !json_is_string(x) || !*json_string_value(x) : !json_is_boolean(x)))
                return BAD("evidence.pool.%s[%zu] is %s, not %s", pool_keys[k], i,
                           json_is_string(x) && !*json_string_value(x) ? "an empty string" : type_name(x),
                           pool_what[k]);
        }
    }
    return 0;
}

static int check_evidence(const json_t *ev, int status, char *why, size_t len)
{
    int verdict_status = status == CTS_PASS || status == CTS_VARIES;
    json_int_t reps;
    if (check_evidence_common(ev, verdict_status, &reps, why, len) || check_rep_arrays(ev, reps, why, len) ||
        check_evidence_measured(ev, reps, why, len) || check_evidence_capture(ev, reps, why, len) ||
        check_evidence_pool(ev, reps, why, len) || check_latency(ev, why, len))
        return -1;
    /* What a verdict is told with: the call's time. */
    if (verdict_status && !numbers_in(json_object_get(ev, "call_us")))
        return BAD("evidence.call_us has no time, but the case has a verdict (%s)", cts_status_name(status));
    return 0;
}

/* A case's "spec": the judgement.  Each clause id it names is noted in refs
 * (clause id -> the first case naming it), to be found in the matrix's table. */
static int check_spec(const json_t *spec, const char *id, json_t *refs, char *why, size_t len)
{
    int conf;
    const json_t *cl = json_object_get(spec, "clauses");
    if (v_name(spec, "spec.", "conformance", NUL, CONF, &conf, why, len))
        return -1;
    if (!cl)
        return BAD("spec.clauses is missing");
    if (!json_is_array(cl))
        return BAD("spec.clauses is %s, not an array", type_name(cl));
    int contradicted = 0;
    for (size_t i = 0; i < json_array_size(cl); i++) {
        const json_t *e = json_array_get(cl, i);
        char pre[40];
        const char *cid;
        snprintf(pre, sizeof pre, "spec.clauses[%zu].", i);
        if (!json_is_object(e))
            return BAD("spec.clauses[%zu] is %s, not an object", i, type_name(e));
        if (v_str(e, pre, "id", REQ, &cid, why, len) || v_name(e, pre, "about", REQ, ABOUT, NULL, why, len) ||
            v_name(e, pre, "prediction", REQ, PRED, NULL, why, len))
            return -1;
        const json_t *h = json_object_get(e, "holds");
        if (!h)
            return BAD("%sholds is missing", pre);
        if (!json_is_boolean(h) && !json_is_null(h))
            return BAD("%sholds is %s, not true, false or null", pre, type_name(h));
        contradicted |= json_is_false(h);
        if (refs && !json_object_get(refs, cid) && json_object_set_new(refs, cid, json_string(id)))
            return BAD("out of memory");
    }
    if (contradicted != (conf == CTS_DEVIATES))
        return BAD("spec.conformance is %s, but %s of its clauses is contradicted", conf ? conf_n(conf) : "null",
                   contradicted ? "one" : "none");
    return 0;
}

/* A case's verdict: each field of cts_outcomes (outcome.h) a name of its
 * kind (null allowed, and required, for those in every verdict; the others
 * only where they have a value), a field's count only with the values that
 * carry it, the rejection's error a non-empty string; no other member. */
static int check_field(const json_t *verdict, const struct cts_outcome *o, size_t *present, char *why, size_t len)
{
    if (!o->names) { /* a string: the documented rejection's error */
        const char *s;
        if (v_str(verdict, "verdict.", o->key, OPT, &s, why, len))
            return -1;
        if (s && !*s)
            return BAD("verdict.%s is empty", o->key);
        *present += s != NULL;
        return 0;
    }
    int got = 0;
    struct names n = {NULL, o->count, o->names};
    if (v_name(verdict, "verdict.", o->key, o->always ? NUL : OPT, n, &got, why, len))
        return -1;
    *present += o->always || got;
    if (!o->count_key)
        return 0;
    json_int_t count = -1;
    if (v_int(verdict, "verdict.", o->count_key, OPT, 0, INT64_MAX, &count, why, len))
        return -1;
    if ((count >= 0) != (got > 0 && (o->count_with >> got & 1u)))
        return BAD("verdict.%s is %s, and verdict.%s is %s", o->count_key, count >= 0 ? "there" : "missing",
                   o->key, got ? o->names[got] : "missing");
    *present += count >= 0;
    return 0;
}

static int check_verdict(const json_t *verdict, char *why, size_t len)
{
    size_t present = 0;
    for (const struct cts_outcome *o = cts_outcomes; o < cts_outcomes + CTS_OUTCOME_COUNT; o++)
        if (check_field(verdict, o, &present, why, len))
            return -1;
    if (json_object_size(verdict) == present)
        return 0;
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)verdict, k, x)
    {
        const struct cts_outcome *o = cts_outcome_find(k);
        int known = o != NULL;
        for (o = cts_outcomes; !known && o < cts_outcomes + CTS_OUTCOME_COUNT; o++)
            known = o->count_key && !strcmp(k, o->count_key);
        if (known)
            continue;
        char list[256] = "";
        for (o = cts_outcomes; o < cts_outcomes + CTS_OUTCOME_COUNT; o++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s%s%s",
                     o == cts_outcomes ? "" : o + 1 < cts_outcomes + CTS_OUTCOME_COUNT ? ", " : " or ", o->key,
                     o->count_key ? ", " : "", o->count_key ? o->count_key : "");
        return BAD("verdict.%.40s is not a verdict field (%s)", k, list);
    }
    return 0;
}

/* One case.  The message starts "has ..." or names a member. */
/* A case's status, by index; -1 and why where it has none that is valid. */
static int case_status(const json_t *c, char *why, size_t len)
{
    const char *st = json_string_value(json_object_get(c, "status"));
    int status = st ? cts_status_parse(st) : -1;
    if (status >= 0)
        return status;
    const json_t *v = json_object_get(c, "status");
    if (st)
        return BAD("has no valid status (\"%.40s\" is not a status)", st);
    return BAD("has no valid status (status is %s)", v ? type_name(v) : "missing");
}

/* What names the case: its strings, the other operation, the capture modes,
 * whether its held work writes its source. */
static int check_case_names(const json_t *c, char *why, size_t len)
{
    static const char *const required[] = {"family", "group", "api", "function", "op_stream", "busy"};
    static const char *const nullable[] = {"variant", "direction", "memory", "allocator", "size_label",
                                           "kind", "copy_kind"};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (v_str(c, "", required[i], REQ, NULL, why, len))
            return -1;
    for (size_t i = 0; i < sizeof nullable / sizeof *nullable; i++)
        if (v_str(c, "", nullable[i], NUL, NULL, why, len))
            return -1;
    if (v_str(c, "", "with", OPT, NULL, why, len)) /* the other operation: overlap and stall cases only */
        return -1;
    int capmode = 0, capby = 0; /* the capture family's: both or neither */
    if (v_name(c, "", "capture", OPT, CAPMODE, &capmode, why, len) ||
        v_name(c, "", "capture_by", OPT, CAPMODE, &capby, why, len))
        return -1;
    if (!capmode != !capby)
        return BAD("has %s without %s", capmode ? "capture" : "capture_by", capmode ? "capture_by" : "capture");
    const json_t *writes = json_object_get(c, "writes"); /* data order: written cases only */
    if (writes && !json_is_true(writes))
        return BAD("writes is %s, not true (a case whose held work writes its source), or absent",
                   type_name(writes));
    return 0;
}

int cts_mx_check_case(const json_t *c, const char *id, json_t *refs, char *why, size_t len)
{
    if (!json_is_object(c))
        return BAD("is %s, not an object", type_name(c));
    int status = case_status(c, why, len);
    if (status < 0 || check_case_names(c, why, len))
        return -1;
    const char *reason, *symbol;
    const json_t *verdict, *ev, *spec, *shape;
    int verdict_status = status == CTS_PASS || status == CTS_VARIES;
    if (v_int(c, "", "size", NUL, 0, INT64_MAX, NULL, why, len) ||
        v_str(c, "", "reason", status == CTS_PASS ? NUL : REQ, &reason, why, len) ||
        v_str(c, "", "symbol", verdict_status ? REQ : NUL, &symbol, why, len) ||
        v_obj(c, "", "shape", OPT | NUL, &shape, why, len) || v_obj(c, "", "verdict", REQ, &verdict, why, len) ||
        v_obj(c, "", "evidence", REQ, &ev, why, len) || v_obj(c, "", "spec", OPT | NUL, &spec, why, len))
        return -1;
    if (verdict_status && !*symbol)
        return BAD("symbol is empty, but the case has a verdict (%s)", cts_status_name(status));
    if (check_verdict(verdict, why, len) || check_evidence(ev, status, why, len))
        return -1;
    return spec ? check_spec(spec, id, refs, why, len) : 0;
}

/* The environment: the GPU, the versions, the settings and the attributes. */
static int check_environment(const json_t *env, char *why, size_t len)
{
    const json_t *gpu, *ver, *set, *vars, *attr;
    if (v_obj(env, "environment.", "gpu", REQ, &gpu, why, len) ||
        v_str(gpu, "environment.gpu.", "name", REQ, NULL, why, len) ||
        v_str(gpu, "environment.gpu.", "compute_capability", REQ, NULL, why, len) ||
        v_str(gpu, "environment.gpu.", "uuid", REQ, NULL, why, len) ||
        v_obj(env, "environment.", "versions", REQ, &ver, why, len) ||
        v_str(ver, "environment.versions.", "driver", NUL, NULL, why, len) ||
        v_str(env, "environment.", "suite_revision", REQ, NULL, why, len) ||
        v_obj(env, "environment.", "settings", REQ, &set, why, len) ||
        v_str(set, "environment.settings.", "device_schedule", REQ, NULL, why, len) ||
        v_obj(set, "environment.settings.", "environment_variables", REQ, &vars, why, len) ||
        v_obj(env, "environment.", "attributes", REQ, &attr, why, len))
        return -1;
    static const char *const versions[] = {"driver_api", "runtime", "toolkit"};
    for (int i = 0; i < 3; i++) {
        const json_t *v;
        char pre[48];
        snprintf(pre, sizeof pre, "environment.versions.%s.", versions[i]);
        if (v_obj(ver, "environment.versions.", versions[i], REQ, &v, why, len) ||
            v_str(v, pre, "text", REQ, NULL, why, len))
            return -1;
    }
    const char *ds = json_string_value(json_object_get(set, "default_stream"));
    if (!ds || (strcmp(ds, "legacy") && strcmp(ds, "per-thread")))
        return BAD("environment.settings.default_stream is not \"legacy\" or \"per-thread\"");
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)vars, k, x)
        if (!json_is_string(x) && !json_is_null(x))
            return BAD("environment.settings.environment_variables.%.40s is %s, not a string or null", k,
                       type_name(x));
    json_object_foreach((json_t *)attr, k, x)
        if (!json_is_integer(x))
            return BAD("environment.attributes.%.40s is %s, not a whole number", k, type_name(x));
    static const char *const shown[] = {"asyncEngineCount", "concurrentKernels", "pageableMemoryAccess",
                                        "concurrentManagedAccess"};
    for (int i = 0; i < 4; i++)
        if (!json_object_get(attr, shown[i]))
            return BAD("environment.attributes.%s is missing", shown[i]);
    return 0;
}

/* The clause table the cases were judged with, where there is one. */
static int check_clause_table(const json_t *m, char *why, size_t len)
{
    const json_t *spec;
    const char *k;
    json_t *x;
    if (v_obj(m, "", "spec", OPT | NUL, &spec, why, len))
        return -1;
    if (spec) {
        const json_t *table;
        if (v_str(spec, "spec.", "documentation", REQ, NULL, why, len) ||
            v_obj(spec, "spec.", "clauses", REQ, &table, why, len))
            return -1;
        json_object_foreach((json_t *)table, k, x)
        {
            char pre[96];
            snprintf(pre, sizeof pre, "spec.clauses.%.60s.", k);
            if (!json_is_object(x))
                return BAD("spec.clauses.%.60s is %s, not an object", k, type_name(x));
            if (v_str(x, pre, "where", REQ, NULL, why, len) || v_str(x, pre, "quote", REQ, NULL, why, len) ||
                v_str(x, pre, "url", REQ, NULL, why, len) || v_str(x, pre, "no_case", OPT, NULL, why, len))
                return -1;
        }
    }
    return 0;
}

/* ---- the thresholds section (docs/matrix.md: `thresholds`) ---- */

static int v_bool(const json_t *o, const char *pre, const char *key, char *why, size_t len)
{
    const json_t *v;
    if (member(o, pre, key, REQ, &v, why, len))
        return -1;
    return json_is_boolean(v) ? 0 : BAD("%s%s is %s, not true or false", pre, key, type_name(v));
}

/* A probe (pre names it): a size within the row's limit, a status, an outcome, its time. */
static int check_probe(const json_t *p, const char *pre, json_int_t max, char *why, size_t len)
{
    const char *st = NULL;
    char at[CTS_ID_MAX + 96];
    if (!json_is_object(p))
        return BAD("%s is %s, not an object", pre, p ? type_name(p) : "missing");
    snprintf(at, sizeof at, "%s.", pre);
    if (v_int(p, at, "bytes", REQ, 1, max, NULL, why, len) || v_str(p, at, "status", REQ, &st, why, len) ||
        v_str(p, at, "outcome", REQ, NULL, why, len) || v_num(p, at, "call_us", NUL, 1, why, len) ||
        v_int(p, at, "asked", REQ, 1, 100, NULL, why, len))
        return -1;
    return cts_status_parse(st) < 0 ? BAD("%s.status '%.40s' is not a status", pre, st) : 0;
}

static int check_flips(const json_t *flips, const char *pre, json_int_t max, char *why, size_t len)
{
    char at[CTS_ID_MAX + 64];
    size_t i;
    const json_t *f;
    if (!json_is_array(flips) || json_array_size(flips) > 16)
        return BAD("%s.flips is not an array of at most 16 flips", pre);
    json_array_foreach(flips, i, f) {
        snprintf(at, sizeof at, "%s.flips[%zu]", pre, i);
        const json_t *below = json_object_get(f, "below"), *above = json_object_get(f, "above");
        char b[sizeof at + 8], a[sizeof at + 8], d[sizeof at + 2];
        snprintf(b, sizeof b, "%s.below", at);
        snprintf(a, sizeof a, "%s.above", at);
        snprintf(d, sizeof d, "%s.", at);
        if (check_probe(below, b, max, why, len) || check_probe(above, a, max, why, len) ||
            v_bool(f, d, "exact", why, len) || v_bool(f, d, "steady", why, len))
            return -1;
        if (json_integer_value(json_object_get(below, "bytes")) >= json_integer_value(json_object_get(above, "bytes")))
            return BAD("%s: below is not a smaller size than above", at);
    }
    return 0;
}

static int check_th_row(const char *id, const json_t *r, json_int_t max, char *why, size_t len)
{
    char pre[CTS_ID_MAX + 32];
    const json_t *samples, *probed, *x;
    const char *k;
    json_int_t rmax;
    size_t i;
    snprintf(pre, sizeof pre, "thresholds.rows.%s.", id);
    if (cts_case_id_check(id, why, len))
        return -1;
    if (!json_is_object(r))
        return BAD("thresholds.rows.%s is %s, not an object", id, type_name(r));
    if (v_str(r, pre, "base_case", REQ, NULL, why, len) || v_str(r, pre, "family", REQ, NULL, why, len) ||
        v_int(r, pre, "max_bytes", REQ, 1, max, &rmax, why, len) || v_obj(r, pre, "samples", REQ, &samples, why, len) ||
        v_int(r, pre, "probes", REQ, 0, INT32_MAX, NULL, why, len) ||
        v_int(r, pre, "undecided", REQ, 0, INT32_MAX, NULL, why, len) || v_bool(r, pre, "truncated", why, len) ||
        v_bool(r, pre, "from_matrix", why, len) || v_num(r, pre, "wall_s", REQ, 1, why, len))
        return -1;
    json_object_foreach((json_t *)samples, k, x)
        if (!json_is_string(x))
            return BAD("%ssamples.%.20s is %s, not a string", pre, k, type_name(x));
    const json_t *axis;
    const char *an = NULL;
    char ap[sizeof pre + 8];
    snprintf(ap, sizeof ap, "%saxis.", pre);
    if (v_obj(r, pre, "axis", OPT, &axis, why, len) ||
        (axis && (v_str(axis, ap, "name", REQ, &an, why, len) || v_int(axis, ap, "fixed", REQ, 1, max, NULL, why, len))))
        return -1;
    if (an && strcmp(an, "width") && strcmp(an, "rows"))
        return BAD("%sname '%.20s' is not width or rows", ap, an);
    snprintf(pre, sizeof pre, "thresholds.rows.%s", id);
    if (check_flips(json_object_get(r, "flips"), pre, rmax, why, len))
        return -1;
    probed = json_object_get(r, "probed");
    if (!json_is_array(probed))
        return BAD("%s.probed is not an array", pre);
    json_array_foreach(probed, i, x) {
        char at[sizeof pre + 32];
        snprintf(at, sizeof at, "%s.probed[%zu]", pre, i);
        if (check_probe(x, at, rmax, why, len))
            return -1;
    }
    return 0;
}

static int check_thresholds(const json_t *m, char *why, size_t len)
{
    const json_t *th, *run, *rows, *r;
    const char *id;
    json_int_t max;
    if (v_obj(m, "", "thresholds", OPT, &th, why, len))
        return -1;
    if (!th) /* no search was made */
        return 0;
    if (v_obj(th, "thresholds.", "run", REQ, &run, why, len) ||
        v_int(run, "thresholds.run.", "max_bytes", REQ, 1, INT64_MAX, &max, why, len) ||
        v_int(run, "thresholds.run.", "repetitions", REQ, 1, CTS_MAX_REPEAT, NULL, why, len) ||
        v_int(run, "thresholds.run.", "rows", REQ, 0, INT32_MAX, NULL, why, len) ||
        v_int(run, "thresholds.run.", "probes", REQ, 0, INT64_MAX, NULL, why, len) ||
        v_num(run, "thresholds.run.", "wall_s", REQ, 1, why, len) || v_bool(run, "thresholds.run.", "catalogue", why, len) ||
        v_str(run, "thresholds.run.", "suite_revision", REQ, NULL, why, len) ||
        v_str(run, "thresholds.run.", "date", REQ, NULL, why, len) || v_obj(th, "thresholds.", "rows", REQ, &rows, why, len))
        return -1;
    json_object_foreach((json_t *)rows, id, r)
        if (check_th_row(id, r, max, why, len))
            return -1;
    return 0;
}

/* The matrix outside its cases: the environment, the run and the clause table. */
int cts_mx_check_top(const json_t *m, char *why, size_t len)
{
    const json_t *env = json_object_get(m, "environment"), *run, *counts;
    if (check_environment(env, why, len))
        return -1;
    const char *k;
    json_t *x;
    if (v_obj(m, "", "run", REQ, &run, why, len) || v_str(run, "run.", "date", REQ, NULL, why, len) ||
        v_num(run, "run.", "wall_s", REQ, 1, why, len) ||
        v_int(run, "run.", "repeat", REQ, 1, CTS_MAX_REPEAT, NULL, why, len) ||
        v_obj(run, "run.", "counts", REQ, &counts, why, len))
        return -1;
    json_object_foreach((json_t *)counts, k, x)
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            return BAD("run.counts.%.40s is not a count", k);
    return check_clause_table(m, why, len) || check_thresholds(m, why, len) ? -1 : 0;
}
