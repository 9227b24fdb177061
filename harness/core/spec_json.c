/* The spec table and a case's judgement as JSON (spec.h): the names of what
 * a clause is about, of its prediction and of a conformance, the clauses with
 * their quotes, and a matrix case read back into what spec.c judges. */
#define _GNU_SOURCE
#include "spec.h"
#include "outcome.h"

#include <string.h>

const char *cts_about_name(enum cts_about a)
{
    static const char *const n[] = {"host", "third_blocking", "third_nonblocking", "src_at_call",
                                    "rejected", "concurrent", "data_ordered", "later_sees", "landed",
                                    "capture_ended", "captured", "accepted_captured", "op_after", "outcome"};
    return (unsigned)a < CTS_ABOUT_COUNT ? n[a] : "?";
}

const char *cts_pred_name(enum cts_pred p)
{
    static const char *const n[] = {"guaranteed", "guaranteed_not", "may", "undocumented"};
    return (unsigned)p < 4 ? n[p] : "?";
}

const char *cts_conformance_name(enum cts_conformance c)
{
    static const char *const n[] = {NULL, "CONFORMS", "DEVIATES", "RECORDED"};
    return (unsigned)c < 4 ? n[c] : NULL;
}

/* ---- JSON --------------------------------------------------------------------- */

static int parse_name(const char *s, const char *(*name)(int), int count)
{
    for (int i = 0; s && i < count; i++)
        if (name(i) && strcmp(name(i), s) == 0)
            return i;
    return 0; /* NA */
}

static const char *order_n(int i) { return cts_order_name((enum cts_order)i); }
static const char *host_n(int i) { return cts_host_name((enum cts_host)i); }
static const char *src_n(int i) { return cts_src_name((enum cts_src)i); }
static const char *overlap_n(int i) { return cts_overlap_name((enum cts_overlap)i); }
static const char *data_n(int i) { return cts_data_name((enum cts_data)i); }
static const char *dst_n(int i) { return cts_dst_name((enum cts_dst)i); }
static const char *reader_n(int i) { return cts_reader_name((enum cts_reader)i); }
static const char *capture_n(int i) { return cts_cap_outcome_name((enum cts_cap_outcome)i); }

static const char *str_at(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

json_t *cts_spec_case_json(const struct cts_case *c, const json_t *cj, int per_thread)
{
    struct cts_observed o;
    memset(&o, 0, sizeof o);
    o.per_thread = per_thread;
    int st = cts_status_parse(str_at(cj, "status") ? str_at(cj, "status") : "");
    o.status = st < 0 ? CTS_BROKEN : (enum cts_status)st;
    const json_t *v = json_object_get(cj, "verdict"), *ev = json_object_get(cj, "evidence");
    const json_t *ctl = json_object_get(ev, "control");
    o.verdict.host = parse_name(str_at(v, "host"), host_n, 3);
    o.verdict.op_after = parse_name(str_at(v, "op_after"), order_n, 4);
    o.verdict.third_blocking = parse_name(str_at(v, "third_blocking"), order_n, 4);
    o.verdict.third_nonblocking = parse_name(str_at(v, "third_nonblocking"), order_n, 4);
    o.verdict.src = parse_name(str_at(v, "src"), src_n, 4);
    o.verdict.overlap = parse_name(str_at(v, "overlap"), overlap_n, 5);
    o.verdict.data = parse_name(str_at(v, "data"), data_n, 4);
    o.verdict.reader = parse_name(str_at(v, "reader"), reader_n, 3);
    o.verdict.capture = parse_name(str_at(v, "capture"), capture_n, CTS_CAP_OUTCOME_COUNT);
    CTS_FOR_EACH_OUTCOME(k) /* a kind in the verdict's kind slot: its value, which its clauses judge (holds) */
        if (k->at == CTS_AT_KIND && cts_outcome_parse(k, str_at(v, k->key)))
            cts_outcome_set(&o.verdict, k, cts_outcome_parse(k, str_at(v, k->key)));
    o.rejected = str_at(v, "rejected") != NULL;
    o.control.op_after = parse_name(str_at(ctl, "op_after"), order_n, 4);
    o.control.third_blocking = parse_name(str_at(ctl, "third_blocking"), order_n, 4);
    o.control.third_nonblocking = parse_name(str_at(ctl, "third_nonblocking"), order_n, 4);
    o.control_own = json_is_true(json_object_get(ctl, "with_case_setup"));
    /* A source read counts only where it cannot race: the call's own stream
     * was held, in every repetition (the verdict keeps op_after then). */
    int race_free = o.verdict.op_after == CTS_ORDER_HELD || o.verdict.op_after == CTS_ORDER_HELD_ANYWAY;
    const json_t *hosts = json_object_get(ev, "host"), *srcs = json_object_get(ev, "src");
    const json_t *datas = json_object_get(ev, "data"), *readers = json_object_get(ev, "reader");
    const json_t *landeds = json_object_get(ev, "landed");
    o.nreps = (int)json_array_size(hosts);
    if (o.nreps > CTS_MAX_REPEAT)
        o.nreps = CTS_MAX_REPEAT;
    for (int i = 0; i < o.nreps; i++) {
        o.host[i] = parse_name(json_string_value(json_array_get(hosts, i)), host_n, 3);
        o.src[i] = race_free ? parse_name(json_string_value(json_array_get(srcs, i)), src_n, 4)
                             : CTS_SRC_NA;
        /* Data order is read from the bytes after the drain: race-free always. */
        o.data[i] = parse_name(json_string_value(json_array_get(datas, i)), data_n, 4);
        o.reader[i] = parse_name(json_string_value(json_array_get(readers, i)), reader_n, 3);
        /* Landing counts where the call waited, or returned and its own stream ran on. */
        if (o.host[i] == CTS_HOST_WAITS || (o.host[i] == CTS_HOST_RETURNS && o.verdict.op_after == CTS_ORDER_RUNS))
            o.landed[i] = parse_name(json_string_value(json_array_get(landeds, i)), dst_n, 3);
    }
    struct cts_judged j[CTS_JUDGED_MAX];
    size_t n = 0;
    enum cts_conformance conf = cts_spec_judge(c, &o, j, &n);
    json_t *clauses = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(clauses, json_pack("{s:s,s:s,s:s,s:o}", "id", j[i].clause, "about",
                                                 cts_about_name(j[i].about), "prediction",
                                                 cts_pred_name(j[i].pred), "holds",
                                                 j[i].holds < 0 ? json_null() : json_boolean(j[i].holds)));
    const char *cn = cts_conformance_name(conf);
    return json_pack("{s:o,s:o}", "conformance", cn ? json_string(cn) : json_null(), "clauses", clauses);
}

json_t *cts_spec_table_json(void)
{
    json_t *t = json_object();
    const struct cts_clause *k;
    for (size_t i = 0; (k = cts_clause_at(i)) != NULL; i++) {
        json_t *e = json_pack("{s:s,s:s,s:s}", "where", k->where, "quote", k->quote, "url", k->url);
        if (k->no_case)
            json_object_set_new(e, "no_case", json_string(k->no_case));
        json_object_set_new(t, k->id, e);
    }
    return json_pack("{s:s,s:o}", "documentation", cts_spec_documentation, "clauses", t);
}
