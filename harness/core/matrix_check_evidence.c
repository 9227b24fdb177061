/* The validation of a case's evidence (matrix_check.c says what the
 * validation is): the counts and times every case has, the per-repetition
 * arrays (each as long as evidence.repetitions), the call from several threads
 * at once, and the self-measured families' own observations, by their kinds'
 * descriptors (outcome.h, struct cts_evidence). */
#define _GNU_SOURCE
#include "matrix_check_int.h"
#include "outcome.h"

#include <stdint.h>
#include <stdio.h>

/* The names an enum has, 1..count-1 (0 is "none": null in the matrix). */
static const char *host_n(int i) { return cts_host_name((enum cts_host)i); }
static const char *order_n(int i) { return cts_order_name((enum cts_order)i); }
static const char *src_n(int i) { return cts_src_name((enum cts_src)i); }
static const char *dst_n(int i) { return cts_dst_name((enum cts_dst)i); }
static const char *data_n(int i) { return cts_data_name((enum cts_data)i); }
static const char *reader_n(int i) { return cts_reader_name((enum cts_reader)i); }
static const struct names HOST = {host_n, 3}, ORDER = {order_n, 4}, SRC = {src_n, 4}, DST = {dst_n, 3},
                          DATA = {data_n, 4}, READER = {reader_n, 3};

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
                  {"run_delay_us", REP_TIME},
                  {"others_delay_us", REP_TIME}};

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
            return BAD("evidence.%s is %s, not an array (one value a repetition)", key, cts_mx_type_name(a));
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
                if (cts_mx_number_ok(x, kind == REP_TIME, P, at, why, len))
                    return -1;
            } else if (kind == REP_BYTES) {
                if (!json_is_integer(x) || json_integer_value(x) < 0)
                    return BAD("evidence.%s is not a byte count or offset (an integer >= 0, or null)", at);
            } else if (cts_mx_name_ok(x, *of[kind], NUL, P, at, why, len) < 0) {
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
    if (cts_mx_v_str(ev, "evidence.", "latency_error", OPT, &error, why, len))
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
            return BAD("evidence.latency[%zu] is %s, not an object", k, cts_mx_type_name(x));
        if (cts_mx_v_int(x, pre, "threads", REQ, 1, 1024, &threads, why, len) ||
            cts_mx_v_int(x, pre, "calls", REQ, 1, INT32_MAX, NULL, why, len) ||
            cts_mx_v_num(x, pre, "median_us", REQ, 1, why, len) || cts_mx_v_num(x, pre, "p99_us", REQ, 1, why, len) ||
            cts_mx_v_num(x, pre, "max_us", REQ, 1, why, len))
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
    if (cts_mx_v_int(ev, P, "repetitions", REQ, verdict_status ? 1 : 0, CTS_MAX_REPEAT, reps, why, len) ||
        cts_mx_v_int(ev, P, "window_retries", REQ, 0, INT32_MAX, NULL, why, len) ||
        cts_mx_v_int(ev, P, "timeout_retries", REQ, 0, INT32_MAX, NULL, why, len) ||
        cts_mx_v_int(ev, P, "waits_tracked", OPT, 0, INT32_MAX, NULL, why, len) ||
        cts_mx_v_num(ev, P, "idle_call_us", verdict_status ? REQ : NUL, 1, why, len) ||
        cts_mx_v_num(ev, P, "idle_call_max_us", NUL, 1, why, len) ||
        cts_mx_v_num(ev, P, "idle_complete_us", NUL, 1, why, len) ||
        cts_mx_v_num(ev, P, "timeout_us", NUL, 1, why, len) || cts_mx_v_num(ev, P, "window_us", NUL, 1, why, len) ||
        cts_mx_v_num(ev, P, "drain_max_us", OPT, 1, why, len) ||
        cts_mx_v_obj(ev, P, "holds_tracked", OPT, &ht, why, len) ||
        cts_mx_v_obj(ev, P, "control", NUL, &ctl, why, len))
        return -1;
    static const char *const columns[] = {"op_after", "third_blocking", "third_nonblocking"};
    for (int k = 0; ht && k < 3; k++)
        if (cts_mx_v_int(ht, "evidence.holds_tracked.", columns[k], OPT, 0, INT32_MAX, NULL, why, len))
            return -1;
    if (ctl && (cts_mx_v_name(ctl, "evidence.control.", "op_after", NUL, ORDER, NULL, why, len) ||
                cts_mx_v_name(ctl, "evidence.control.", "third_blocking", NUL, ORDER, NULL, why, len) ||
                cts_mx_v_name(ctl, "evidence.control.", "third_nonblocking", NUL, ORDER, NULL, why, len)))
        return -1;
    const json_t *own = json_object_get(ctl, "with_case_setup");
    if (own && !json_is_boolean(own))
        return BAD("evidence.control.with_case_setup is %s, not true or false", cts_mx_type_name(own));
    return 0;
}

/* The self-measured kinds' evidence (outcome.h, struct cts_evidence): each
 * evidence.<key> an object of arrays, one value a repetition; where the kind
 * names no rule for its elements, any member an array of numbers or nulls. */
static int check_evidence_kind(const json_t *ev, const struct cts_evidence *d, json_int_t reps, char *why,
                               size_t len)
{
    const json_t *obj;
    if (cts_mx_v_obj(ev, "evidence.", d->key, OPT, &obj, why, len))
        return -1;
    if (obj && !d->element) {
        const char *pk;
        const json_t *pa;
        json_object_foreach((json_t *)obj, pk, pa) {
            if (!json_is_array(pa) || (json_int_t)json_array_size(pa) != reps)
                return BAD("evidence.%s.%.40s is not an array of %lld numbers", d->key, pk, (long long)reps);
            size_t i;
            const json_t *x;
            json_array_foreach(pa, i, x)
                if (!json_is_number(x) && !json_is_null(x))
                    return BAD("evidence.%s.%.40s[%zu] is %s, not a number", d->key, pk, i, cts_mx_type_name(x));
        }
    }
    for (int k = 0; obj && d->element && k < d->count; k++) {
        const json_t *a = json_object_get(obj, d->names[k]), *x;
        if (!a && k >= d->since) /* a member added after an older matrix was written: not seen there */
            continue;
        if (!json_is_array(a) || (json_int_t)json_array_size(a) != reps)
            return BAD("evidence.%s.%s is not an array of %lld entries", d->key, d->names[k], (long long)reps);
        size_t i;
        const char *must;
        json_array_foreach(a, i, x)
            if (!json_is_null(x) && (must = d->element(k, x)))
                return BAD("evidence.%s.%s[%zu] is %s, not %s", d->key, d->names[k], i,
                           json_is_string(x) && !*json_string_value(x) ? "an empty string" : cts_mx_type_name(x),
                           must);
    }
    return 0;
}

static int check_evidence_kinds(const json_t *ev, json_int_t reps, char *why, size_t len)
{
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++)
        for (int e = 0; e < CTS_EVIDENCE_MAX && cts_outcomes[k]->evidence[e]; e++)
            if (check_evidence_kind(ev, cts_outcomes[k]->evidence[e], reps, why, len))
                return -1;
    return 0;
}

/* A case's evidence (status: the case's, by index): all of the above; a case
 * with a verdict (PASS or VARIES) needs a repetition and the call's time. */
int cts_mx_check_evidence(const json_t *ev, int status, char *why, size_t len)
{
    int verdict_status = status == CTS_PASS || status == CTS_VARIES;
    json_int_t reps;
    if (check_evidence_common(ev, verdict_status, &reps, why, len) || check_rep_arrays(ev, reps, why, len) ||
        check_evidence_kinds(ev, reps, why, len) || check_latency(ev, why, len))
        return -1;
    /* What a verdict is told with: the call's time. */
    if (verdict_status && !numbers_in(json_object_get(ev, "call_us")))
        return BAD("evidence.call_us has no time, but the case has a verdict (%s)", cts_status_name(status));
    return 0;
}
