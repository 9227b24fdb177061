/* The case view: one case of a validated matrix as every report reads it,
 * and the figures they quote, each defined once (docs/matrix.md, "The case
 * view"): the call's time, its idle time, the release-to-return time, and
 * the one median they are all taken with.  Then how reports order and name
 * cases: the Markdown and HTML renderings list cases in this order, and
 * every report words a direction alike. */
#include "outcome.h"
#include "report.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const char *cts_json_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

const char *cts_json_path_str(const json_t *o, const char *a, const char *b)
{
    return cts_json_str(json_object_get(o, a), b);
}

const char *cts_words(const struct cts_words *table, const char *name)
{
    for (; table->name; table++)
        if (!strcmp(table->name, name))
            return table->words;
    return name;
}

/* The median of v[0..k): the middle one, or the mean of the two middle ones. */
static double median_of(double *v, size_t k)
{
    if (!k)
        return NAN;
    qsort(v, k, sizeof *v, cts_cmp_double);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

double cts_json_median(const json_t *a)
{
    double v[CTS_MAX_REPEAT];
    size_t k = 0;
    for (size_t i = 0; i < json_array_size(a) && k < CTS_MAX_REPEAT; i++)
        if (json_is_number(json_array_get(a, i)))
            v[k++] = json_number_value(json_array_get(a, i));
    return median_of(v, k);
}

double cts_call_median(const json_t *ev)
{
    const json_t *call = json_object_get(ev, "call_us"), *own = json_object_get(ev, "rep_timeout_us");
    double timeout = json_number_value(json_object_get(ev, "timeout_us"));
    if (!json_is_array(own) || json_array_size(own) != json_array_size(call))
        return cts_json_median(call);
    /* The repetitions decided at the case's own timeout (a null time among
     * them counts as one, and gives no number). */
    double v[CTS_MAX_REPEAT];
    size_t kept = 0, k = 0;
    for (size_t i = 0; i < json_array_size(call); i++) {
        if (json_number_value(json_array_get(own, i)) != timeout)
            continue;
        kept++;
        const json_t *x = json_array_get(call, i);
        if (json_is_number(x) && k < CTS_MAX_REPEAT)
            v[k++] = json_number_value(x);
    }
    return kept ? median_of(v, k) : cts_json_median(call);
}

/* The case's string members, "" where null: where each goes in the view. */
static const struct {
    const char *key;
    size_t at;
} strings[] = {
    {"family", offsetof(struct cts_case_view, family)},       {"group", offsetof(struct cts_case_view, group)},
    {"api", offsetof(struct cts_case_view, api)},             {"function", offsetof(struct cts_case_view, function)},
    {"variant", offsetof(struct cts_case_view, variant)},     {"with", offsetof(struct cts_case_view, with)},
    {"direction", offsetof(struct cts_case_view, direction)},
    {"memory", offsetof(struct cts_case_view, memory)},       {"allocator", offsetof(struct cts_case_view, allocator)},
    {"size_label", offsetof(struct cts_case_view, size_label)}, {"kind", offsetof(struct cts_case_view, kind)},
    {"copy_kind", offsetof(struct cts_case_view, copy_kind)}, {"op_stream", offsetof(struct cts_case_view, op_stream)},
    {"busy", offsetof(struct cts_case_view, busy)},           {"symbol", offsetof(struct cts_case_view, symbol)},
    {"capture", offsetof(struct cts_case_view, capture)},     {"capture_by", offsetof(struct cts_case_view, capture_by)},
    {"reason", offsetof(struct cts_case_view, reason)},
};

/* A verdict field's value by its name (cts_*_name), NA where null. */
static int name_index(const char *(*name)(int), int count, const json_t *v)
{
    const char *s = json_string_value(v);
    for (int i = 1; s && i < count; i++)
        if (name(i) && !strcmp(name(i), s))
            return i;
    return 0;
}
static const char *conf_n(int i) { return cts_conformance_name((enum cts_conformance)i); }
/* How many values it has, NA included. */
enum { CONF_COUNT = 4 };

/* The verdict's fields (outcome.h), NA where null or absent. */
static struct cts_verdict verdict_of(const json_t *v)
{
    struct cts_verdict d = {0};
    CTS_FOR_EACH_OUTCOME(o) {
        const json_t *x = json_object_get(v, o->key);
        if (!o->names)
            *(const char **)((char *)&d + o->at) = json_string_value(x);
        else
            cts_outcome_set(&d, o, cts_outcome_parse(o, json_string_value(x)));
        if (o->count_key && cts_outcome_get(&d, o)) /* a kind in the kind slot shares its count */
            *cts_outcome_count_of(&d, o) = json_integer_value(json_object_get(v, o->count_key));
    }
    return d;
}

void cts_case_view(struct cts_case_view *v, const char *id, const json_t *c)
{
    const json_t *ev = json_object_get(c, "evidence"), *spec = json_object_get(c, "spec");
    const json_t *idle = json_object_get(ev, "idle_call_us"), *size = json_object_get(c, "size");
    memset(v, 0, sizeof *v);
    v->id = id;
    v->c = c;
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        *(const char **)((char *)v + strings[i].at) = cts_json_str(c, strings[i].key);
    v->sized = json_is_integer(size);
    v->size = json_integer_value(size);
    v->has_symbol = json_is_string(json_object_get(c, "symbol"));
    v->has_reason = json_is_string(json_object_get(c, "reason"));
    v->status = (enum cts_status)cts_status_parse(cts_json_str(c, "status"));
    v->verdict = verdict_of(json_object_get(c, "verdict"));
    v->has_spec = json_is_object(spec);
    v->conformance = (enum cts_conformance)name_index(conf_n, CONF_COUNT, json_object_get(spec, "conformance"));
    v->clauses = json_object_get(spec, "clauses"); /* NULL where no spec: json_array_size(NULL) is 0 */
    v->repetitions = json_integer_value(json_object_get(ev, "repetitions"));
    v->idle_us = json_is_number(idle) ? json_number_value(idle) : NAN;
    v->call_us = cts_call_median(ev);
    v->release_to_return_us = cts_json_median(json_object_get(ev, "release_to_return_us"));
    v->rank = cts_case_rank(v);
}

struct cts_case_clause cts_case_clause(const struct cts_case_view *v, size_t i)
{
    const json_t *e = json_array_get(v->clauses, i), *h = json_object_get(e, "holds");
    return (struct cts_case_clause){cts_json_str(e, "id"), cts_json_str(e, "prediction"),
                                    cts_json_str(e, "about"),
                                    json_is_true(h) ? CTS_HOLDS_YES : json_is_false(h) ? CTS_HOLDS_NO
                                                                                       : CTS_HOLDS_OPEN};
}

int cts_verdict_equal(const struct cts_verdict *a, const struct cts_verdict *b)
{
    CTS_FOR_EACH_OUTCOME(o) {
        const char *x = o->names ? NULL : cts_outcome_name(a, o), *y = o->names ? NULL : cts_outcome_name(b, o);
        if (cts_outcome_get(a, o) != cts_outcome_get(b, o) || (x && y && strcmp(x, y)) ||
            (o->count_key && cts_outcome_count_in(a, o) != cts_outcome_count_in(b, o)))
            return 0;
    }
    return 1;
}

void cts_env_view(struct cts_env_view *e, const json_t *m)
{
    const json_t *env = json_object_get(m, "environment"), *gpu = json_object_get(env, "gpu");
    const json_t *ver = json_object_get(env, "versions"), *set = json_object_get(env, "settings");
    e->gpu = cts_json_str(gpu, "name");
    e->compute_capability = cts_json_str(gpu, "compute_capability");
    e->uuid = cts_json_str(gpu, "uuid");
    e->driver = json_is_string(json_object_get(ver, "driver")) ? cts_json_str(ver, "driver") : "unknown";
    e->driver_api = cts_json_path_str(ver, "driver_api", "text");
    e->runtime = cts_json_path_str(ver, "runtime", "text");
    e->toolkit = cts_json_path_str(ver, "toolkit", "text");
    e->default_stream = cts_json_str(set, "default_stream");
    e->schedule = cts_json_str(set, "device_schedule");
    e->module_loading = cts_json_str(set, "module_loading"); /* "" in matrices before it was recorded */
    e->suite_revision = cts_json_str(env, "suite_revision");
    e->date = cts_json_path_str(m, "run", "date");
    e->hold = cts_json_str(json_object_get(json_object_get(m, "run"), "harness"), "hold");
    e->variables = json_object_get(set, "environment_variables");
}

/* ---- small helpers the reports share ---- */

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **cts_sorted_keys(const json_t *o, size_t *n)
{
    *n = json_object_size(o);
    const char **keys = calloc(*n ? *n : 1, sizeof *keys), *k;
    size_t i = 0;
    json_t *x;
    if (!keys)
        return NULL;
    json_object_foreach((json_t *)o, k, x)
        keys[i++] = k;
    qsort(keys, *n, sizeof *keys, cmp_key);
    return keys;
}

const char *cts_grouped(char *buf, size_t len, long long n)
{
    char digits[32];
    int nd = snprintf(digits, sizeof digits, "%lld", n < 0 ? 0 : n);
    size_t k = 0;
    for (int i = 0; i < nd && k + 2 < len; i++) {
        if (i && (nd - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = 0;
    return buf;
}

void cts_put_grouped(FILE *f, long long n)
{
    char buf[40];
    fputs(cts_grouped(buf, sizeof buf, n), f);
}

void cts_put_flip(FILE *f, const json_t *fl, const char *unit, void (*outcome)(FILE *f, const char *o))
{
    const json_t *below = json_object_get(fl, "below"), *above = json_object_get(fl, "above");
    outcome(f, cts_json_str(below, "outcome"));
    fputs(" up to ", f);
    cts_put_grouped(f, cts_json_int(below, "bytes"));
    fprintf(f, "%s \xe2\x86\x92 ", unit);
    outcome(f, cts_json_str(above, "outcome"));
    fputs(" from ", f);
    cts_put_grouped(f, cts_json_int(above, "bytes"));
    fputs(unit, f);
    if (json_is_false(json_object_get(fl, "exact")))
        fputs(" (not exact)", f);
    else if (json_is_false(json_object_get(fl, "steady")))
        fputs(" (alternates)", f);
}

void cts_put_limit(FILE *f, long long b)
{
    if (b > 0 && b % (1024 * 1024) == 0)
        fprintf(f, "%lld MiB", b / (1024 * 1024));
    else if (b > 0 && b % 1024 == 0)
        fprintf(f, "%lld KiB", b / 1024);
    else {
        cts_put_grouped(f, b);
        fputs(" B", f);
    }
}

long long cts_json_int(const json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

/* ---- a threshold row (docs/matrix.md `thresholds`) ---- */

const char *cts_th_unit(const json_t *row)
{
    const char *axis = cts_json_path_str(row, "axis", "name");
    return !strcmp(axis, "width") ? " B wide" : !strcmp(axis, "rows") ? " rows" : " B";
}

void cts_put_th_limit(FILE *f, const json_t *row)
{
    if (!*cts_json_path_str(row, "axis", "name")) {
        cts_put_limit(f, cts_json_int(row, "max_bytes"));
        return;
    }
    cts_put_grouped(f, cts_json_int(row, "max_bytes"));
    fputs(cts_th_unit(row), f);
}

int cts_devices_words(const json_t *m, char *buf, size_t len)
{
    const json_t *env = json_object_get(m, "environment"), *devs = json_object_get(env, "devices");
    const json_t *peers = json_object_get(env, "peers");
    size_t n = json_array_size(devs), k = 0;
    buf[0] = '\0';
    if (n < 2)
        return -1;
#define PUT(...) (k += (size_t)snprintf(buf + k, k < len ? len - k : 0, __VA_ARGS__))
    for (size_t i = 0; i < n; i++) {
        const json_t *d = json_array_get(devs, i);
        const char *name = json_string_value(json_object_get(d, "name")), *uuid = json_string_value(json_object_get(d, "uuid"));
        const char *pci = json_string_value(json_object_get(d, "pci_bus_id"));
        PUT("%s%zu: %s (%s, %s)", i ? "; " : "", i, name ? name : "?", uuid ? uuid : "?", pci ? pci : "?");
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const json_t *links = json_array_get(json_array_get(json_object_get(peers, "nvlinks"), i), j);
            const json_t *path = json_array_get(json_array_get(json_object_get(peers, "nvlink_path"), i), j);
            const json_t *a = json_array_get(json_array_get(json_object_get(peers, "access"), i), j);
            const json_t *b = json_array_get(json_array_get(json_object_get(peers, "access"), j), i);
            PUT("%s%zu and %zu: ", i || j > 1 ? "; " : "; between ", i, j);
            if (json_is_integer(links))
                PUT("%lld NVLinks%s", (long long)json_integer_value(links),
                    json_is_string(path) && !strcmp(json_string_value(path), "nvswitch") ? " through NVSwitches" : "");
            else
                PUT("NVLinks not read");
            PUT(", peer access %s", json_is_true(a) && json_is_true(b) ? "both ways"
                                    : json_is_true(a) || json_is_true(b) ? "one way"
                                    : json_is_boolean(a) ? "none" : "not read");
        }
#undef PUT
    return 0;
}

/* ---- how reports order and name cases ------------------------------------------ */

const char *const cts_busy_columns[CTS_BUSY_COLUMNS + 1] = {
    "same", "legacy", "blocking", "nonblocking", "perthread", "thread_legacy", "thread_perthread",
    "hostfn", "same_hostfn", NULL};

/* Position of s in a NULL-terminated list; unknown values sort last. */
static int rank(const char *const *list, const char *s)
{
    int i = 0;
    for (; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return i;
    return i;
}

int cts_busy_column(const char *busy) { return rank(cts_busy_columns, busy); }
int cts_capture_column(const char *busy) { return rank(cts_capture_columns, busy); }

static const char *const mem_order[] = {"pageable", "pinned", "portable", "mapped", "wc",
                                        "registered", "managed", "device", NULL};
static const char *const op_order[] = {"implied", "null", "legacy", "perthread",
                                       "blocking", "nonblocking", NULL};
static const char *const dir_order[] = {"h2d", "d2h", "d2d", "h2h", NULL};
static const char *const kind_order[] = {"explicit", "default", NULL};
static const char *const capture_order[] = {"", "global", "thread_local", "relaxed", NULL};
/* The capture family's placements, its tables' columns (docs/method.md, "Stream capture"). */
const char *const cts_capture_columns[CTS_CAPTURE_COLUMNS + 1] = {
    "same", "blocking", "nonblocking", "legacy", "perthread", "thread_same", "thread_legacy", "thread_perthread",
    "thread_peer", NULL};

/* The peer family's placements (docs/method.md, "Across devices"): this device's streams, then the peer's. */
const char *const cts_peer_columns[CTS_PEER_COLUMNS + 1] = {
    "same", "legacy", "blocking", "nonblocking", "peer_legacy", "peer_blocking", "peer_nonblocking", "both", NULL};

/* The process family's: a second process's stream, on this device or the peer. */
static const char *const process_columns[] = {"other_process", "other_process_peer", NULL};

struct cts_columns cts_columns_of(const struct cts_case_view *v)
{
    if (!strcmp(v->family, "process"))
        return (struct cts_columns){process_columns, 2, "held by a second process (this device; the peer)"};
    if (*v->capture)
        return (struct cts_columns){cts_capture_columns, CTS_CAPTURE_COLUMNS, "where the call was made"};
    if (!strcmp(v->family, "peer"))
        return (struct cts_columns){cts_peer_columns, CTS_PEER_COLUMNS, "busy placement (this device; the peer)"};
    return (struct cts_columns){cts_busy_columns, CTS_BUSY_COLUMNS, "busy placement"};
}

int cts_column_in(struct cts_columns cols, const char *busy) { return rank(cols.names, busy); }

/* APIs in declaration order; unknown ones last.  A sorted index of the
 * tokens, built once, so that ranking 19,017 cases is not a linear scan each. */
static int api_index[CTS_API_COUNT];

static int cmp_api(const void *a, const void *b)
{
    return strcmp(cts_api_token(*(const int *)a), cts_api_token(*(const int *)b));
}

static int api_rank(const char *s)
{
    static int built;
    if (!built) {
        for (int i = 0; i < CTS_API_COUNT; i++)
            api_index[i] = i;
        qsort(api_index, CTS_API_COUNT, sizeof *api_index, cmp_api);
        built = 1;
    }
    size_t lo = 0, hi = CTS_API_COUNT;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int d = strcmp(cts_api_token(api_index[mid]), s);
        if (!d)
            return api_index[mid];
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return CTS_API_COUNT;
}

struct cts_case_rank cts_case_rank(const struct cts_case_view *v)
{
    return (struct cts_case_rank){.api = api_rank(v->api),
                                  .direction = rank(dir_order, v->direction),
                                  .memory = rank(mem_order, v->memory),
                                  .kind = rank(kind_order, v->kind),
                                  .op_stream = rank(op_order, v->op_stream),
                                  .busy = cts_busy_column(v->busy)};
}

/* Declaration order (0 on a tie: callers break it by id). */
static int view_order(const struct cts_case_view *a, const struct cts_case_view *b)
{
    int d = a->rank.api - b->rank.api;
    if (d)
        return d;
    if ((d = strcmp(a->variant, b->variant)))
        return d;
    if ((d = a->rank.direction - b->rank.direction))
        return d;
    if ((d = strcmp(a->group, b->group))) /* each group contiguous, whatever its name */
        return d;
    if ((d = strcmp(a->with, b->with))) /* the overlap family's B: its rows together */
        return d;
    if ((d = rank(capture_order, a->capture_by) - rank(capture_order, b->capture_by))) /* the capture family's */
        return d;
    if ((d = a->rank.memory - b->rank.memory))
        return d;
    if (a->size != b->size)
        return a->size < b->size ? -1 : 1;
    if ((d = a->rank.kind - b->rank.kind))
        return d;
    if ((d = a->rank.op_stream - b->rank.op_stream))
        return d;
    return a->rank.busy - b->rank.busy;
}

int cts_same_call_variant(const struct cts_case_view *a, const struct cts_case_view *b)
{
    return !strcmp(a->memory, b->memory) && a->size == b->size && !strcmp(a->kind, b->kind) &&
           !strcmp(a->with, b->with) && !strcmp(a->op_stream, b->op_stream) && !strcmp(a->capture_by, b->capture_by);
}

const char *cts_dir_words(const char *d)
{
    static const struct cts_words words[] = {{"h2d", "host to device"},
                                             {"d2h", "device to host"},
                                             {"d2d", "device to device"},
                                             {"h2h", "host to host"},
                                             {NULL, NULL}};
    return cts_words(words, d);
}

static int cmp_view(const void *pa, const void *pb)
{
    const struct cts_case_view *a = pa, *b = pb;
    int d = view_order(a, b);
    return d ? d : strcmp(a->id, b->id);
}

struct cts_case_view *cts_sorted_cases(const json_t *m, size_t *n)
{
    const json_t *cases = json_object_get(m, "cases");
    size_t k = 0, total = json_object_size(cases);
    struct cts_case_view *rows = calloc(total ? total : 1, sizeof *rows);
    const char *id;
    json_t *c;
    if (!rows)
        return NULL;
    json_object_foreach((json_t *)cases, id, c)
        cts_case_view(&rows[k++], id, c);
    qsort(rows, k, sizeof *rows, cmp_view);
    *n = k;
    return rows;
}

/* ---- the matrix as the renderers read it ------------------------------------- */

/* What of a case's evidence the renderers show (the view's times and
 * repetitions, the CSV's idle time as written, Markdown's latency table). */
static const char *const shown_evidence[] = {"idle_call_us",         "repetitions", "call_us",
                                             "rep_timeout_us",       "timeout_us",  "latency",
                                             "release_to_return_us", NULL};

struct lean {
    pthread_mutex_t lock; /* the loader's two threads both keep cases */
    json_t *cases;   /* the cases kept */
    json_t *strings; /* each string kept once, by its value */
    json_t *shared;  /* each object or array kept once, by its text: a verdict, a spec */
};

/* The value equal to v kept already (a new reference), or a copy of v kept now. */
static json_t *kept_as(struct lean *l, json_t *table, const char *key, json_t *v)
{
    pthread_mutex_lock(&l->lock);
    json_t *kept = json_object_get(table, key);
    if (!kept && (kept = json_deep_copy(v)) && json_object_set_new(table, key, kept))
        kept = NULL;
    json_incref(kept);
    pthread_mutex_unlock(&l->lock);
    return kept;
}

/* A new reference to v, or to the value equal to it kept already: a string
 * by its value, an object or array by its text. */
static json_t *shared(struct lean *l, json_t *v)
{
    if (json_is_string(v))
        return kept_as(l, l->strings, json_string_value(v), v);
    if (!json_is_object(v) && !json_is_array(v))
        return json_deep_copy(v);
    char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
    json_t *kept = text ? kept_as(l, l->shared, text, v) : NULL;
    free(text);
    return kept;
}

/* A case as kept (cts_matrix_load_each_in_two: called from two threads at once). */
static int keep_case(void *ctx, const char *id, const json_t *c)
{
    struct lean *l = ctx;
    json_t *k = json_object(), *x;
    const char *key;
    int bad = !k;
    json_object_foreach((json_t *)c, key, x)
    {
        /* a 2D/3D call's width and height: not shown; a null member is kept as an absent one (a
         * fifth of a committed matrix's members; every reader takes the two alike) */
        if (!strcmp(key, "shape") || json_is_null(x))
            continue;
        if (bad || strcmp(key, "evidence")) {
            bad = bad || json_object_set_new(k, key, shared(l, x));
            continue;
        }
        json_t *ev = json_object();
        bad = !ev || json_object_set_new(k, key, ev);
        for (size_t i = 0; !bad && shown_evidence[i]; i++) {
            json_t *e = json_object_get(x, shown_evidence[i]);
            if (e)
                bad = json_object_set_new(ev, shown_evidence[i], json_deep_copy(e));
        }
    }
    if (bad) {
        json_decref(k);
        return -1;
    }
    pthread_mutex_lock(&l->lock);
    bad = json_object_set_new(l->cases, id, k); /* (which frees k where it fails) */
    pthread_mutex_unlock(&l->lock);
    return bad ? -1 : 0;
}

/* The cases in id order (a committed matrix's own; two threads kept them in no set order). */
static json_t *in_id_order(json_t *cases)
{
    size_t n = json_object_size(cases), k = 0;
    const char **ids = malloc((n ? n : 1) * sizeof *ids);
    json_t *sorted = json_object(), *c;
    const char *id;
    int bad = !ids || !sorted;
    json_object_foreach(cases, id, c)
        if (!bad)
            ids[k++] = id;
    if (!bad)
        qsort(ids, n, sizeof *ids, cmp_key);
    for (size_t i = 0; !bad && i < n; i++)
        bad = json_object_set(sorted, ids[i], json_object_get(cases, ids[i]));
    free(ids);
    json_decref(cases);
    if (bad)
        json_decref(sorted);
    return bad ? NULL : sorted;
}

json_t *cts_matrix_load_shown(const char *path, char *err, size_t errlen)
{
    struct lean l = {PTHREAD_MUTEX_INITIALIZER, json_object(), json_object(), json_object()};
    json_t *m = l.cases && l.strings && l.shared ? cts_matrix_load_each_in_two(path, keep_case, &l, err, errlen)
                                                 : NULL;
    json_decref(l.strings); /* the values stay, held by the cases */
    json_decref(l.shared);
    if (!m) {
        json_decref(l.cases);
        return NULL;
    }
    json_t *cases = in_id_order(l.cases);
    if (!cases || json_object_set_new(m, "cases", cases)) {
        json_decref(m);
        snprintf(err, errlen, "out of memory reading '%s'", path);
        return NULL;
    }
    return m;
}
