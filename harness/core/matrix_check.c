/* ---- validation ---------------------------------------------------------------
 *
 * Every member a command reads is checked when the matrix is loaded, so that
 * no command has to guess: a wrong type, a missing member or an impossible
 * value is refused with the file, the case and the member named.  Members
 * nothing reads are left alone.
 *
 * This file: case ids and a case (its names, verdict and spec); a member of
 * each kind (a string, an object, a whole number, a number, a name) is
 * checked in matrix_check_value.c, a case's evidence in
 * matrix_check_evidence.c, the matrix outside its cases in
 * matrix_check_top.c (matrix_check_int.h: what they share). */
#define _GNU_SOURCE
#include "matrix_check_int.h"
#include "outcome.h"
#include "spec.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/* The names an enum has, 1..count-1 (0 is "none": null in the matrix); the
 * evidence's enums' are in matrix_check_evidence.c. */
static const char *capmode_n(int i) { return cts_capture_token((enum cts_capture)i); }
static const char *conf_n(int i) { return cts_conformance_name((enum cts_conformance)i); }
static const char *about_n(int i) { return i ? cts_about_name((enum cts_about)(i - 1)) : NULL; }
static const char *pred_n(int i) { return i ? cts_pred_name((enum cts_pred)(i - 1)) : NULL; }
static const struct names CAPMODE = {capmode_n, CTS_CAPTURE_COUNT}, CONF = {conf_n, 4},
                          ABOUT = {about_n, CTS_ABOUT_COUNT + 1}, PRED = {pred_n, 5};

/* A case's "spec": the judgement.  Each clause id it names is noted in refs
 * (clause id -> the first case naming it), to be found in the matrix's table. */
static int check_spec(const json_t *spec, const char *id, json_t *refs, char *why, size_t len)
{
    int conf;
    const json_t *cl = json_object_get(spec, "clauses");
    if (cts_mx_v_name(spec, "spec.", "conformance", NUL, CONF, &conf, why, len))
        return -1;
    if (!cl)
        return BAD("spec.clauses is missing");
    if (!json_is_array(cl))
        return BAD("spec.clauses is %s, not an array", cts_mx_type_name(cl));
    int contradicted = 0;
    for (size_t i = 0; i < json_array_size(cl); i++) {
        const json_t *e = json_array_get(cl, i);
        char pre[40];
        const char *cid;
        snprintf(pre, sizeof pre, "spec.clauses[%zu].", i);
        if (!json_is_object(e))
            return BAD("spec.clauses[%zu] is %s, not an object", i, cts_mx_type_name(e));
        if (cts_mx_v_str(e, pre, "id", REQ, &cid, why, len) ||
            cts_mx_v_name(e, pre, "about", REQ, ABOUT, NULL, why, len) ||
            cts_mx_v_name(e, pre, "prediction", REQ, PRED, NULL, why, len))
            return -1;
        const json_t *h = json_object_get(e, "holds");
        if (!h)
            return BAD("%sholds is missing", pre);
        if (!json_is_boolean(h) && !json_is_null(h))
            return BAD("%sholds is %s, not true, false or null", pre, cts_mx_type_name(h));
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
        if (cts_mx_v_str(verdict, "verdict.", o->key, OPT, &s, why, len))
            return -1;
        if (s && !*s)
            return BAD("verdict.%s is empty", o->key);
        *present += s != NULL;
        return 0;
    }
    int got = 0;
    struct names n = {NULL, o->count, o->names};
    if (cts_mx_v_name(verdict, "verdict.", o->key, o->always ? NUL : OPT, n, &got, why, len))
        return -1;
    *present += o->always || got;
    if (!o->count_key)
        return 0;
    json_int_t count = -1;
    if (cts_mx_v_int(verdict, "verdict.", o->count_key, OPT, 0, INT64_MAX, &count, why, len))
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
    CTS_FOR_EACH_OUTCOME(o)
        if (check_field(verdict, o, &present, why, len))
            return -1;
    if (json_object_size(verdict) == present)
        return 0;
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)verdict, k, x)
    {
        int known = cts_outcome_find(k) != NULL;
        for (int f = 0; !known && f < CTS_OUTCOME_COUNT; f++)
            known = cts_outcomes[f]->count_key && !strcmp(k, cts_outcomes[f]->count_key);
        if (known)
            continue;
        char list[256] = "";
        for (int f = 0; f < CTS_OUTCOME_COUNT; f++) {
            const struct cts_outcome *o = cts_outcomes[f];
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s%s%s",
                     f == 0 ? "" : f + 1 < CTS_OUTCOME_COUNT ? ", " : " or ", o->key, o->count_key ? ", " : "",
                     o->count_key ? o->count_key : "");
        }
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
    return BAD("has no valid status (status is %s)", v ? cts_mx_type_name(v) : "missing");
}

/* What names the case: its strings, the other operation, the capture modes,
 * whether its held work writes its source. */
static int check_case_names(const json_t *c, char *why, size_t len)
{
    static const char *const required[] = {"family", "group", "api", "function", "op_stream", "busy"};
    static const char *const nullable[] = {"variant", "direction", "memory", "allocator", "size_label",
                                           "kind", "copy_kind"};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (cts_mx_v_str(c, "", required[i], REQ, NULL, why, len))
            return -1;
    for (size_t i = 0; i < sizeof nullable / sizeof *nullable; i++)
        if (cts_mx_v_str(c, "", nullable[i], NUL, NULL, why, len))
            return -1;
    if (cts_mx_v_str(c, "", "with", OPT, NULL, why, len)) /* the other operation: overlap and stall cases only */
        return -1;
    int capmode = 0, capby = 0; /* the capture family's: both or neither */
    if (cts_mx_v_name(c, "", "capture", OPT, CAPMODE, &capmode, why, len) ||
        cts_mx_v_name(c, "", "capture_by", OPT, CAPMODE, &capby, why, len))
        return -1;
    if (!capmode != !capby)
        return BAD("has %s without %s", capmode ? "capture" : "capture_by", capmode ? "capture_by" : "capture");
    const json_t *writes = json_object_get(c, "writes"); /* data order: written cases only */
    if (writes && !json_is_true(writes))
        return BAD("writes is %s, not true (a case whose held work writes its source), or absent",
                   cts_mx_type_name(writes));
    return 0;
}

int cts_mx_check_case(const json_t *c, const char *id, json_t *refs, char *why, size_t len)
{
    if (!json_is_object(c))
        return BAD("is %s, not an object", cts_mx_type_name(c));
    int status = case_status(c, why, len);
    if (status < 0 || check_case_names(c, why, len))
        return -1;
    const char *reason, *symbol;
    const json_t *verdict, *ev, *spec, *shape;
    int verdict_status = status == CTS_PASS || status == CTS_VARIES;
    if (cts_mx_v_int(c, "", "size", NUL, 0, INT64_MAX, NULL, why, len) ||
        cts_mx_v_str(c, "", "reason", status == CTS_PASS ? NUL : REQ, &reason, why, len) ||
        cts_mx_v_str(c, "", "symbol", verdict_status ? REQ : NUL, &symbol, why, len) ||
        cts_mx_v_obj(c, "", "shape", OPT | NUL, &shape, why, len) ||
        cts_mx_v_obj(c, "", "verdict", REQ, &verdict, why, len) ||
        cts_mx_v_obj(c, "", "evidence", REQ, &ev, why, len) || cts_mx_v_obj(c, "", "spec", OPT | NUL, &spec, why, len))
        return -1;
    if (verdict_status && !*symbol)
        return BAD("symbol is empty, but the case has a verdict (%s)", cts_status_name(status));
    if (check_verdict(verdict, why, len) || cts_mx_check_evidence(ev, status, why, len))
        return -1;
    return spec ? check_spec(spec, id, refs, why, len) : 0;
}
