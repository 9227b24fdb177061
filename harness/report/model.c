/* sync-cts model MODEL.json MATRIX...: a race detector's synchronization
 * model held against measured matrices (docs/models.md).
 *
 * A model is a list of rules, each "these calls (function globs; memory,
 * direction, stream kind, size) -> the host waits for nothing | its stream |
 * the device | the legacy stream".  The first rule that matches a case
 * decides for it.  A case is judged where it has a verdict of its own
 * (PASS; a VARIES case is counted, not judged), the held work is on its
 * device and in its process, and the rule says what the host then does:
 *
 *   nothing        the call returns while the work is held
 *   device         it waits
 *   stream         it waits where work queued on its stream would be held
 *                  behind the held work (the case's control: measured, so
 *                  the legacy stream's implicit synchronization is the
 *                  driver's, not a guess)
 *   own_stream     it waits where the held work is in its stream itself (a
 *                  tool that knows no implicit synchronization)
 *   legacy_stream  it waits where the held work is in the legacy stream or
 *                  a stream that the legacy stream waits for (a blocking or
 *                  per-thread stream, or the call's own when it is one)
 *   unspecified    the source promises nothing either way: covered, not judged
 *
 * A call the model says waits but that returned while the work was held
 * (proven by the latch) is a missed race: the tool assumes more
 * synchronization than there is.  A call the model says returns but that
 * waited is a false report: it assumes less.  Exit 1 when a rule disagrees
 * with a case, 0 when none does, 2 on bad input.  The report rendered as
 * text, Markdown or HTML: model_render.c. */
#define _GNU_SOURCE
#include "cli.h"
#include "model_int.h"
#include "known.h"
#include "report.h"

#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define model_error(...) cts_die(EXIT_USAGE, __VA_ARGS__)
#define MODEL_SCHEMA "cuda-sync-cts/model"

enum waits { W_NOTHING, W_STREAM, W_OWN_STREAM, W_DEVICE, W_LEGACY, W_UNSPECIFIED, W_COUNT };
static const char *const waits_names[W_COUNT] = {"nothing", "stream", "own_stream", "device", "legacy_stream",
                                                 "unspecified"};
enum { FMT_TEXT, FMT_MD, FMT_HTML, FMT_JSON };
enum order_in { O_STREAM, O_BLOCKING, O_EVERY, O_COUNT };
static const char *const order_names[O_COUNT] = {"stream", "blocking_streams", "every_stream"};

struct rule {
    const json_t *j; /* the rule as written */
    const char *id;
    enum waits waits;
    json_int_t min, max; /* size bounds; max < 0: none */
    /* tallies over every matrix */
    size_t covered, judged, agree, varies, more, less;
    int orders; /* orders_later_work_in: -1 not given, else an enum order_in */
    size_t o_judged, o_agree, o_more, o_less; /* the later-work columns judged */
    json_t *cases; /* [{matrix, case, class, measured, predicted, symbol}] */
};

struct model {
    json_t *top;
    struct rule *r;
    size_t n;
    const char *path;
    const char *matrix; /* the one being read */
    int per_thread;     /* its default stream */
};

/* ---- the model file ------------------------------------------------------------------ */

static int string_list(const json_t *v, int optional)
{
    if (!v)
        return optional;
    if (!json_is_array(v) || !json_array_size(v))
        return 0;
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x) if (!json_is_string(x) || !*json_string_value(x)) return 0;
    return 1;
}

/* A rule's names: host_waits_for (required) and orders_later_work_in (optional,
 * -1 without), by index.  0, or -1 with why. */
static int rule_names(struct rule *r, const json_t *j, char *why, size_t len)
{
    const char *w = json_string_value(json_object_get(j, "host_waits_for"));
    for (r->waits = 0; w && r->waits < W_COUNT && strcmp(w, waits_names[r->waits]); r->waits++)
        ;
    if (!w || r->waits == W_COUNT) {
        snprintf(why, len, "rule %.60s: host_waits_for is not nothing, stream, own_stream, device, legacy_stream or "
                           "unspecified", r->id);
        return -1;
    }
    const char *o = json_string_value(json_object_get(j, "orders_later_work_in"));
    r->orders = -1;
    if (json_object_get(j, "orders_later_work_in")) {
        for (r->orders = 0; o && r->orders < O_COUNT && strcmp(o, order_names[r->orders]); r->orders++)
            ;
        if (!o || r->orders == O_COUNT) {
            snprintf(why, len, "rule %.60s: orders_later_work_in is not stream, blocking_streams or every_stream", r->id);
            return -1;
        }
    }
    return 0;
}

/* A rule's selectors: the calls, the lists of names, the size range (max -1: none).
 * 0, or -1 with why. */
static int rule_selectors(struct rule *r, const json_t *j, char *why, size_t len)
{
    if (!string_list(json_object_get(j, "calls"), 0)) {
        snprintf(why, len, "rule %.60s: \"calls\" is not a list of function names", r->id);
        return -1;
    }
    static const char *const lists[] = {"memory", "direction", "stream", "kind"};
    for (size_t k = 0; k < 4; k++)
        if (!string_list(json_object_get(j, lists[k]), 1)) {
            snprintf(why, len, "rule %.60s: \"%s\" is not a list of names", r->id, lists[k]);
            return -1;
        }
    const json_t *size = json_object_get(j, "size");
    r->max = -1;
    if (size) {
        const json_t *lo = json_object_get(size, "min"), *hi = json_object_get(size, "max");
        if (!json_is_object(size) || (lo && !json_is_integer(lo)) || (hi && !json_is_integer(hi))) {
            snprintf(why, len, "rule %.60s: \"size\" is not {\"min\": bytes, \"max\": bytes}", r->id);
            return -1;
        }
        r->min = lo ? json_integer_value(lo) : 0;
        r->max = hi ? json_integer_value(hi) : -1;
    }
    return 0;
}

/* One rule, checked; 0, or -1 with why. */
static int rule_load(struct rule *r, const json_t *j, size_t i, char *why, size_t len)
{
    memset(r, 0, sizeof *r);
    r->j = j;
    r->id = json_string_value(json_object_get(j, "id"));
    if (!json_is_object(j) || !r->id || !*r->id) {
        snprintf(why, len, "rules[%zu] has no \"id\"", i);
        return -1;
    }
    if (rule_names(r, j, why, len) || rule_selectors(r, j, why, len))
        return -1;
    if (!json_is_string(json_object_get(j, "source")) || !*json_string_value(json_object_get(j, "source"))) {
        snprintf(why, len, "rule %.60s has no \"source\" (the file and lines, or the page, that say it)", r->id);
        return -1;
    }
    return (r->cases = json_array()) ? 0 : (snprintf(why, len, "out of memory"), -1);
}

static int model_load(struct model *m, const char *path)
{
    json_error_t je;
    char why[512];
    m->path = path;
    if (!(m->top = json_load_file(path, JSON_REJECT_DUPLICATES, &je)))
        return model_error("cannot read model '%s': %s", path, je.text);
    const char *schema = json_string_value(json_object_get(m->top, "schema"));
    const json_t *rules = json_object_get(m->top, "rules");
    if (!schema || strcmp(schema, MODEL_SCHEMA))
        return model_error("'%s' is not a model: its schema is not \"%s\"", path, MODEL_SCHEMA);
    if (json_integer_value(json_object_get(m->top, "schema_version")) != 1)
        return model_error("'%s' is not a model: its schema_version is not 1", path);
    static const char *const about[] = {"tool", "version", "source"};
    for (size_t k = 0; k < 3; k++)
        if (!json_is_string(json_object_get(m->top, about[k])))
            return model_error("'%s' is not a model: it has no \"%s\"", path, about[k]);
    if (!json_is_array(rules) || !json_array_size(rules))
        return model_error("'%s' is not a model: it has no \"rules\"", path);
    m->n = json_array_size(rules);
    if (!(m->r = calloc(m->n, sizeof *m->r)))
        return model_error("out of memory");
    for (size_t i = 0; i < m->n; i++) {
        if (rule_load(&m->r[i], json_array_get(rules, i), i, why, sizeof why))
            return model_error("'%s' is not a model: %s", path, why);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(m->r[k].id, m->r[i].id))
                return model_error("'%s' is not a model: two rules are %s", path, m->r[i].id);
    }
    return 0;
}

/* ---- matching and judging ------------------------------------------------------------- */

static int in_list(const json_t *list, const char *s, int glob)
{
    if (!list)
        return 1; /* no condition */
    size_t i;
    json_t *x;
    json_array_foreach(list, i, x) {
        const char *p = json_string_value(x);
        if (s && (glob ? fnmatch(p, s, 0) == 0 : strcmp(p, s) == 0))
            return 1;
    }
    return 0;
}

/* The kind of stream a case's call is issued on, as a model names it. */
static const char *stream_kind(const char *op, int per_thread)
{
    if (!strcmp(op, "implied") || !strcmp(op, "null"))
        return per_thread ? "per_thread" : "legacy";
    if (!strcmp(op, "perthread"))
        return "per_thread";
    if (!strcmp(op, "nonblocking"))
        return "non_blocking";
    return op; /* legacy, blocking */
}

static int rule_matches(const struct rule *r, const struct cts_case_view *v, int per_thread)
{
    const json_t *j = r->j;
    if (!in_list(json_object_get(j, "calls"), v->function, 1) ||
        !in_list(json_object_get(j, "memory"), *v->memory ? v->memory : NULL, 0) ||
        !in_list(json_object_get(j, "direction"), *v->direction ? v->direction : NULL, 0) ||
        !in_list(json_object_get(j, "stream"), *v->op_stream ? stream_kind(v->op_stream, per_thread) : NULL, 0) ||
        !in_list(json_object_get(j, "kind"), !*v->copy_kind ? NULL
                                             : !strcmp(v->copy_kind, "cudaMemcpyDefault") ? "default" : "explicit", 0))
        return 0;
    if (json_object_get(j, "size") && (!v->sized || v->size < r->min || (r->max >= 0 && v->size > r->max)))
        return 0;
    return 1;
}

/* Where the held work is, as a stream kind: NULL where the model cannot be
 * judged there (another GPU, another process, a host function alone). */
static const char *held_kind(const struct cts_case_view *v, int per_thread)
{
    const char *b = v->busy;
    if (!strncmp(b, "peer", 4) || !strncmp(b, "other_process", 13) || !strcmp(b, "thread_peer") ||
        !strcmp(b, "hostfn") || !*v->op_stream)
        return NULL;
    if (!strcmp(b, "same") || !strcmp(b, "same_hostfn") || !strcmp(b, "thread_same"))
        return stream_kind(v->op_stream, per_thread);
    if (!strcmp(b, "legacy") || !strcmp(b, "thread_legacy"))
        return "legacy";
    if (!strcmp(b, "perthread") || !strcmp(b, "thread_perthread"))
        return "per_thread";
    if (!strcmp(b, "blocking"))
        return "blocking";
    if (!strcmp(b, "nonblocking") || !strcmp(b, "both")) /* both: a non-blocking stream of each GPU */
        return "non_blocking";
    return NULL;
}

/* What the rule predicts: 1 waits, 0 returns, -1 not determined for this case. */
static int predicts(const struct rule *r, const struct cts_case_view *v, const json_t *c, int per_thread)
{
    const char *held = held_kind(v, per_thread);
    if (!held || r->waits == W_UNSPECIFIED)
        return -1;
    switch (r->waits) {
    case W_NOTHING:
        return 0;
    case W_DEVICE:
        return 1;
    case W_OWN_STREAM:
        return !strcmp(v->busy, "same") || !strcmp(v->busy, "same_hostfn") || !strcmp(v->busy, "thread_same");
    case W_LEGACY:
        return !strcmp(held, "legacy") || !strcmp(held, "blocking") || !strcmp(held, "per_thread");
    default: {
        const char *ctl = json_string_value(
            json_object_get(json_object_get(json_object_get(c, "evidence"), "control"), "op_after"));
        return !ctl ? -1 : !strcmp(ctl, "held");
    }
    }
}

static const char *ev_str(const json_t *c, const char *a, const char *b)
{
    return json_string_value(json_object_get(json_object_get(json_object_get(c, "evidence"), a), b));
}

/* The later-work columns of a call the rule says does not make the host wait
 * (for one that does, what later work waits for follows from the host's
 * wait, judged above), and that returned: where the call is behind
 * the held work (its stream's later work is held in the control), work
 * queued after it in a third blocking or non-blocking stream is held
 * exactly where the call orders that stream after itself.  A column held in
 * the control too (held_anyway) says nothing about the call.  0, or -1 out
 * of memory. */
static int judge_order(struct model *m, struct rule *r, const struct cts_case_view *v, const json_t *c)
{
    const char *ctl = ev_str(c, "control", "op_after");
    if (!ctl || strcmp(ctl, "held"))
        return 0;
    static const char *const col[2] = {"third_blocking", "third_nonblocking"};
    enum cts_order got[2] = {v->verdict.third_blocking, v->verdict.third_nonblocking};
    int want[2] = {r->orders >= O_BLOCKING, r->orders == O_EVERY};
    for (int k = 0; k < 2; k++) {
        if (got[k] != CTS_ORDER_RUNS && got[k] != CTS_ORDER_HELD)
            continue;
        int held = got[k] == CTS_ORDER_HELD;
        r->o_judged++;
        if (held == want[k]) {
            r->o_agree++;
            continue;
        }
        want[k] ? r->o_more++ : r->o_less++;
        if (json_array_append_new(r->cases, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s?}", "matrix", m->matrix,
                                                      "case", v->id, "about", col[k], "class",
                                                      want[k] ? "missed race" : "false report", "measured",
                                                      held ? "held" : "runs", "predicted", want[k] ? "held" : "runs",
                                                      "symbol", v->has_symbol ? v->symbol : NULL)))
            return -1;
    }
    return 0;
}

static int judge_case(void *ctx, const char *id, const json_t *c)
{
    struct model *m = ctx;
    struct cts_case_view v;
    cts_case_view(&v, id, c);
    struct rule *r = NULL;
    for (size_t i = 0; i < m->n && !r; i++)
        if (rule_matches(&m->r[i], &v, m->per_thread))
            r = &m->r[i];
    if (!r)
        return 0;
    r->covered++;
    if (v.status == CTS_VARIES) {
        r->varies++;
        return 0;
    }
    int p = predicts(r, &v, c, m->per_thread);
    if (v.status != CTS_PASS || p < 0 || (v.verdict.host != CTS_HOST_WAITS && v.verdict.host != CTS_HOST_RETURNS))
        return 0;
    r->judged++;
    int waits = v.verdict.host == CTS_HOST_WAITS;
    if (!waits && r->waits == W_NOTHING && r->orders >= 0 && judge_order(m, r, &v, c))
        return -1;
    if (p == waits) {
        r->agree++;
        return 0;
    }
    const char *cls = p ? "missed race" : "false report";
    p ? r->more++ : r->less++;
    return json_array_append_new(r->cases, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s?}", "matrix", m->matrix,
                                                     "case", id, "about", "host", "class", cls, "measured",
                                                     waits ? "waits" : "returns",
                                                     "predicted", p ? "waits" : "returns", "symbol",
                                                     v.has_symbol ? v.symbol : NULL));
}

/* ---- the report -------------------------------------------------------------------------- */

static json_t *report(const struct model *m, json_t *matrices)
{
    json_t *rules = json_array();
    size_t disagree = 0;
    for (size_t i = 0; rules && i < m->n; i++) {
        const struct rule *r = &m->r[i];
        disagree += r->more + r->less + r->o_more + r->o_less > 0;
        json_array_append_new(
            rules, json_pack("{s:s, s:O, s:s, s:s?, s:O, s:O?, s:I, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I}, s:O}",
                             "id", r->id, "calls",
                             json_object_get(r->j, "calls"), "host_waits_for", waits_names[r->waits],
                             "orders_later_work_in", r->orders >= 0 ? order_names[r->orders] : NULL, "source",
                             json_object_get(r->j, "source"), "note", json_object_get(r->j, "note"), "covered",
                             (json_int_t)r->covered, "judged", (json_int_t)r->judged, "agree", (json_int_t)r->agree,
                             "varies", (json_int_t)r->varies, "missed_race", (json_int_t)r->more, "false_report",
                             (json_int_t)r->less, "later_work", "judged", (json_int_t)r->o_judged, "agree",
                             (json_int_t)r->o_agree, "missed_race", (json_int_t)r->o_more, "false_report",
                             (json_int_t)r->o_less, "cases", r->cases));
    }
    return rules ? json_pack("{s:s, s:i, s:O, s:O, s:O, s:s, s:o, s:o, s:I}", "schema", "cuda-sync-cts/model-report",
                             "schema_version", 1, "tool", json_object_get(m->top, "tool"), "version",
                             json_object_get(m->top, "version"), "source", json_object_get(m->top, "source"), "model",
                             m->path, "matrices", matrices, "rules", rules, "disagreeing_rules", (json_int_t)disagree)
                 : NULL;
}

/* ---- the command --------------------------------------------------------------------------- */

static int skip_case(void *ctx, const char *id, const json_t *c)
{
    (void)ctx, (void)id, (void)c;
    return 0;
}

static json_t *matrix_line(const char *path, const json_t *top)
{
    const json_t *env = json_object_get(top, "environment");
    return json_pack("{s:s, s:O?, s:O?, s:O?, s:O?}", "matrix", path, "gpu",
                     json_object_get(json_object_get(env, "gpu"), "name"), "driver",
                     json_object_get(json_object_get(env, "versions"), "driver"), "default_stream",
                     json_object_get(json_object_get(env, "settings"), "default_stream"), "suite_revision",
                     json_object_get(env, "suite_revision"));
}

static int write_out(const json_t *r, int fmt, const char *out, const char *const *inputs, size_t n)
{
    char *text = NULL, err[1024];
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return model_error("out of memory");
    if (fmt == FMT_JSON)
        json_dumpf(r, mem, JSON_INDENT(1) | JSON_SORT_KEYS), fputc('\n', mem);
    else
        (fmt == FMT_MD ? cts_model_render_md : fmt == FMT_HTML ? cts_model_render_html : cts_model_render_text)(r, mem);
    int rc = fclose(mem) ? model_error("out of memory") : 0;
    if (!rc && cts_output_write(out, inputs, n, text, len, err, sizeof err))
        rc = model_error("%s", err);
    free(text);
    return rc;
}

int cts_model_main(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"out", required_argument, NULL, 'o'}, {0}};
    static const char *const formats[] = {"text", "md", "html", "json"};
    const char *out = NULL;
    int fmt = FMT_TEXT, c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'o') {
            out = optarg;
        } else if (c == 'f') {
            for (fmt = 0; fmt < 4 && strcmp(optarg, formats[fmt]); fmt++)
                ;
            if (fmt == 4)
                return model_error("--format wants text, md, html or json, not '%s'", optarg);
        } else {
            return cts_bad_option(c, argv);
        }
    }
    if (argc - optind < 2)
        return model_error("model wants a model file and at least one matrix");
    const char *const *inputs = (const char *const *)argv + optind;
    size_t n = (size_t)(argc - optind);
    char err[1024];
    if (cts_output_check(out, inputs, n, err, sizeof err))
        return model_error("%s", err);
    struct model m = {0};
    json_t *matrices = json_array(), *r = NULL;
    int rc = matrices ? model_load(&m, inputs[0]) : model_error("out of memory");
    for (size_t i = 1; !rc && i < n; i++) {
        m.matrix = inputs[i];
        /* The default stream is needed before the cases, and a matrix's environment
         * follows them: each is read twice, its cases skipped, then judged. */
        json_t *top = cts_matrix_load_each(inputs[i], skip_case, NULL, err, sizeof err);
        m.per_thread = top && !strcmp(s_of(json_object_get(json_object_get(top, "environment"), "settings"),
                                           "default_stream"), "per-thread");
        if (!top || !cts_matrix_load_each(inputs[i], judge_case, &m, err, sizeof err))
            rc = model_error("%s", err);
        else
            json_array_append_new(matrices, matrix_line(inputs[i], top));
    }
    if (!rc && !(r = report(&m, json_incref(matrices))))
        rc = model_error("out of memory");
    if (!rc)
        rc = write_out(r, fmt, out, inputs, n);
    if (!rc)
        rc = n_of(r, "disagreeing_rules") ? EXIT_FAILED : 0;
    json_decref(r);
    json_decref(matrices);
    for (size_t i = 0; m.r && i < m.n; i++)
        json_decref(m.r[i].cases);
    free(m.r);
    json_decref(m.top);
    return rc;
}
