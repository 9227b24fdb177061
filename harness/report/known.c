/* Known variability: `sync-cts variability MATRIX...` makes it, from runs of
 * one configuration, and diff and check read it (known.h).
 *
 * A case's outcome is its symbol where it has a verdict (PASS, or VARIES:
 * then each symbol its repetitions saw, "A/W" being A and W).  The file keeps
 * every case that took more than one over the runs, with the set it took;
 * a case NOTSUPP, INCONCLUSIVE or worse in a run adds nothing for that run,
 * and a change to or from such a status is never within known variability
 * (a harness that gave up is not the product varying). */
#define _GNU_SOURCE
#include "known.h"
#include "cli.h"
#include "report.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KNOWN_SCHEMA_VERSION 1
#define PART_MAX 64 /* a symbol's part: "Q+b:S~" and the like are a few bytes */

/* ---- the configuration ---------------------------------------------------------- */

static const json_t *at(const json_t *m, const char *a, const char *b, const char *c)
{
    const json_t *x = json_object_get(json_object_get(m, a), b);
    return c ? json_object_get(x, c) : x;
}

/* value, or null where the matrix does not record it (made before it was). */
static int put(json_t *o, const char *key, const json_t *value)
{
    return json_object_set_new(o, key, value ? json_deep_copy(value) : json_null());
}

json_t *cts_configuration(const json_t *m)
{
    json_t *c = json_object(), *vars = json_object();
    if (!c || !vars) {
        json_decref(c);
        json_decref(vars);
        return NULL;
    }
    static const char *const settings[] = {"default_stream", "device_schedule", "context_schedule",
                                           "module_loading", "mps_enabled"};
    int bad = put(c, "gpu", at(m, "environment", "gpu", "name")) ||
              put(c, "driver", at(m, "environment", "versions", "driver")) ||
              put(c, "runtime", at(m, "environment", "versions", "runtime")) ||
              put(c, "hold", at(m, "run", "harness", "hold"));
    for (size_t i = 0; i < sizeof settings / sizeof *settings; i++)
        bad |= put(c, settings[i], at(m, "environment", "settings", settings[i]));
    const json_t *devices = at(m, "environment", "devices", NULL);
    bad |= json_object_set_new(c, "visible_devices",
                               json_is_array(devices) ? json_integer((json_int_t)json_array_size(devices))
                                                      : json_null());
    /* Which GPUs a run sees is its own (one task a GPU sets CUDA_VISIBLE_DEVICES to
     * each); how many it sees, and every other CUDA_* variable, is configuration. */
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)at(m, "environment", "settings", "environment_variables"), k, v)
        if (!json_is_null(v) && strcmp(k, "CUDA_VISIBLE_DEVICES"))
            bad |= json_object_set(vars, k, v);
    bad |= json_object_set_new(c, "environment_variables", vars);
    if (bad) {
        json_decref(c);
        return NULL;
    }
    return c;
}

const char *cts_configuration_differs(const json_t *a, const json_t *b)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)a, k, v)
        if (!json_equal(v, json_object_get(b, k)))
            return k;
    json_object_foreach((json_t *)b, k, v)
        if (!json_object_get(a, k))
            return k;
    return NULL;
}

/* ---- reading a known-variability file --------------------------------------------- */

struct entry {
    const char *id, *set;
};

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->id, ((const struct entry *)b)->id);
}

/* One case's outcomes, checked, as "/A/W/" into a malloc'd string; NULL and
 * why in err. */
static char *set_of(const char *id, const json_t *outcomes, char *err, size_t len)
{
    size_t n = json_array_size(outcomes), size = 2;
    if (!json_is_array(outcomes) || n < 2) {
        snprintf(err, len, "cases.%.80s is not a list of two or more outcomes", id);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_array_get(outcomes, i));
        if (!s || !*s || strchr(s, '/') || strlen(s) >= PART_MAX) {
            snprintf(err, len, "cases.%.80s[%zu] is not an outcome (a symbol such as \"W\" or \"A:S\")", id, i);
            return NULL;
        }
        size += strlen(s) + 1;
    }
    char *set = malloc(size), *p = set;
    if (!set) {
        snprintf(err, len, "out of memory");
        return NULL;
    }
    *p++ = '/';
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s/", json_string_value(json_array_get(outcomes, i)));
    return set;
}

static int known_index(struct cts_known *k, char *why, size_t len)
{
    const json_t *cases = json_object_get(k->top, "cases");
    if (!json_is_object(cases)) {
        snprintf(why, len, "it has no \"cases\" object");
        return -1;
    }
    size_t n = json_object_size(cases);
    struct entry *e = calloc(n ? n : 1, sizeof *e);
    if (!e) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    const char *id;
    json_t *v;
    int bad = 0;
    json_object_foreach((json_t *)cases, id, v) {
        if (cts_case_id_check(id, why, len) || !(e[k->n].set = set_of(id, v, why, len))) {
            bad = 1;
            break;
        }
        e[k->n++].id = id;
    }
    if (!bad && k->n > 1)
        qsort(e, k->n, sizeof *e, cmp_entry);
    k->ids = malloc((k->n ? k->n : 1) * sizeof *k->ids);
    k->set = malloc((k->n ? k->n : 1) * sizeof *k->set);
    if (!bad && (!k->ids || !k->set)) {
        snprintf(why, len, "out of memory");
        bad = 1;
    }
    for (size_t i = 0; i < k->n; i++) {
        if (!bad) {
            k->ids[i] = e[i].id;
            k->set[i] = e[i].set;
        } else {
            free((char *)e[i].set);
        }
    }
    if (bad)
        k->n = 0;
    free(e);
    return bad ? -1 : 0;
}

int cts_known_load(const char *path, struct cts_known *k, char *err, size_t errlen)
{
    memset(k, 0, sizeof *k);
    json_error_t je;
    char why[512];
    if (!(k->top = json_load_file(path, JSON_REJECT_DUPLICATES, &je))) {
        snprintf(err, errlen, "cannot read known variability '%s': %s", path, je.text);
        return -1;
    }
    const char *schema = json_string_value(json_object_get(k->top, "schema"));
    json_t *version = json_object_get(k->top, "schema_version");
    if (!schema || strcmp(schema, CTS_KNOWN_SCHEMA))
        snprintf(why, sizeof why, "its schema is not \"%s\" (made by sync-cts variability)", CTS_KNOWN_SCHEMA);
    else if (!json_is_integer(version) || json_integer_value(version) != KNOWN_SCHEMA_VERSION)
        snprintf(why, sizeof why, "its schema_version is not %d", KNOWN_SCHEMA_VERSION);
    else if (!json_is_object(json_object_get(k->top, "configuration")))
        snprintf(why, sizeof why, "it has no \"configuration\" object");
    else if (known_index(k, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "'%s' is not known variability: %s", path, why);
    cts_known_free(k);
    return -1;
}

void cts_known_free(struct cts_known *k)
{
    for (size_t i = 0; k->set && i < k->n; i++)
        free((char *)k->set[i]);
    free(k->ids);
    free(k->set);
    json_decref(k->top);
    memset(k, 0, sizeof *k);
}

int cts_known_fits(const struct cts_known *k, const json_t *m, const char *kpath, const char *mpath, char *err,
                   size_t errlen)
{
    json_t *conf = cts_configuration(m);
    const json_t *kconf = json_object_get(k->top, "configuration");
    const char *key = conf ? cts_configuration_differs(kconf, conf) : NULL;
    if (!conf || key) {
        char *x = key ? json_dumps(json_object_get(kconf, key), JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        char *y = key ? json_dumps(json_object_get(conf, key), JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        if (key)
            snprintf(err, errlen, "'%s' is known variability of another configuration than '%s': %s %s, not %s",
                     kpath, mpath, key, x ? x : "?", y ? y : "?");
        else
            snprintf(err, errlen, "out of memory");
        free(x);
        free(y);
    }
    json_decref(conf);
    return !conf || key ? -1 : 0;
}

/* Every '/'-separated part of sym is in set ("/A/W/"). */
static int parts_in(const char *set, const char *sym)
{
    for (const char *p = sym;;) {
        size_t n = strcspn(p, "/");
        char part[PART_MAX + 2];
        if (!n || n >= PART_MAX)
            return 0;
        snprintf(part, sizeof part, "/%.*s/", (int)n, p);
        if (!strstr(set, part))
            return 0;
        if (!p[n])
            return 1;
        p += n + 1;
    }
}

static int cmp_id(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int has_verdict(enum cts_status s) { return s == CTS_PASS || s == CTS_VARIES; }

int cts_known_within(const struct cts_known *k, const char *id, enum cts_status status_a, const char *sym_a,
                     enum cts_status status_b, const char *sym_b)
{
    if (!k || !k->n || !has_verdict(status_a) || !has_verdict(status_b) || !sym_a || !sym_b)
        return 0;
    const char **hit = bsearch(&id, k->ids, k->n, sizeof *k->ids, cmp_id);
    if (!hit)
        return 0;
    const char *set = k->set[hit - k->ids];
    return parts_in(set, sym_a) && parts_in(set, sym_b);
}

/* ---- sync-cts variability ----------------------------------------------------------- */

/* What the pass over one matrix adds to: each case's outcomes seen so far,
 * as an object of outcome -> true. */
struct gather {
    json_t *cases;
    size_t n; /* cases in this matrix */
};

static int gather_case(void *ctx, const char *id, const json_t *c)
{
    struct gather *g = ctx;
    struct cts_case_view v;
    cts_case_view(&v, id, c);
    g->n++;
    if (!has_verdict(v.status) || !v.has_symbol)
        return 0;
    json_t *seen = json_object_get(g->cases, id);
    if (!seen && (!(seen = json_object()) || json_object_set_new(g->cases, id, seen)))
        return -1;
    for (const char *p = v.symbol; *p;) {
        size_t n = strcspn(p, "/");
        char part[PART_MAX];
        if (n && n < PART_MAX) {
            snprintf(part, sizeof part, "%.*s", (int)n, p);
            if (json_object_set_new(seen, part, json_true()))
                return -1;
        }
        p += n + (p[n] == '/');
    }
    return 0;
}

static int cmp_json_str(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

/* The cases that took more than one outcome, each with the list of them, sorted. */
static json_t *varying(const json_t *cases)
{
    json_t *out = json_object();
    const char *id;
    json_t *seen;
    json_object_foreach((json_t *)cases, id, seen) {
        size_t n = json_object_size(seen), i = 0;
        if (n < 2)
            continue;
        json_t **v = calloc(n, sizeof *v), *list = json_array();
        const char *part;
        json_t *t;
        json_object_foreach(seen, part, t)
            v[i++] = json_string(part);
        if (v)
            qsort(v, n, sizeof *v, cmp_json_str);
        for (i = 0; v && list && i < n; i++)
            json_array_append_new(list, v[i]);
        free(v);
        if (!out || !list || json_array_size(list) != n || json_object_set_new(out, id, list)) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

/* A run's line in the file: which matrix, of what, when. */
static json_t *run_of(const char *path, const json_t *top, size_t ncases)
{
    return json_pack("{s:s, s:O?, s:O?, s:O?, s:I}", "matrix", path, "suite_revision",
                     at(top, "environment", "suite_revision", NULL), "date", at(top, "run", "date", NULL),
                     "gpu_uuid", at(top, "environment", "gpu", "uuid"), "cases", (json_int_t)ncases);
}

#define known_error(...) cts_die(EXIT_USAGE, __VA_ARGS__)

/* Reads the matrices into g and the runs into doc ("configuration" from the
 * first; every other must have the same).  0, or known_error's status. */
static int gather_all(char **paths, int n, struct gather *g, json_t *doc)
{
    char err[1024];
    json_t *runs = json_object_get(doc, "runs"), *first = NULL;
    for (int i = 0; i < n; i++) {
        g->n = 0;
        json_t *top = cts_matrix_load_each(paths[i], gather_case, g, err, sizeof err);
        if (!top)
            return known_error("%s", err);
        json_t *conf = cts_configuration(top);
        const char *k = conf && first ? cts_configuration_differs(first, conf) : NULL;
        if (k) {
            char *x = json_dumps(json_object_get(first, k), JSON_ENCODE_ANY | JSON_COMPACT);
            char *y = json_dumps(json_object_get(conf, k), JSON_ENCODE_ANY | JSON_COMPACT);
            known_error("'%s' is of another configuration than '%s': %s %s, not %s (known variability "
                        "is of runs of one configuration)",
                        paths[i], paths[0], k, y ? y : "?", x ? x : "?");
            free(x);
            free(y);
            json_decref(conf);
            return EXIT_USAGE;
        }
        json_t *run = run_of(paths[i], top, g->n);
        for (size_t j = 0; run && j < json_array_size(runs); j++) {
            const json_t *r = json_array_get(runs, j);
            if (json_equal(json_object_get(r, "date"), json_object_get(run, "date")) &&
                json_equal(json_object_get(r, "gpu_uuid"), json_object_get(run, "gpu_uuid"))) {
                json_decref(run);
                json_decref(conf);
                return known_error("'%s' and '%s' are one run (the same GPU and date): known variability "
                                   "is of different runs",
                                   json_string_value(json_object_get(r, "matrix")), paths[i]);
            }
        }
        if (!conf || json_array_append_new(runs, run))
            return known_error("out of memory");
        if (!first && json_object_set_new(doc, "configuration", first = conf))
            return known_error("out of memory");
        if (first != conf)
            json_decref(conf);
    }
    return 0;
}

int cts_variability_main(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, NULL, 'o'}, {0}};
    const char *out = NULL;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c != 'o')
            return cts_bad_option(c, argv);
        out = optarg;
    }
    int n = argc - optind;
    char err[1024];
    if (n < 2)
        return known_error("variability wants at least two matrices of one configuration, got %d", n);
    const char *const *paths = (const char *const *)argv + optind;
    if (cts_output_check(out, paths, (size_t)n, err, sizeof err))
        return known_error("%s", err);
    struct gather g = {json_object(), 0};
    json_t *doc = json_pack("{s:s, s:i, s:[]}", "schema", CTS_KNOWN_SCHEMA, "schema_version",
                            KNOWN_SCHEMA_VERSION, "runs");
    int rc = g.cases && doc ? gather_all(argv + optind, n, &g, doc) : known_error("out of memory");
    json_t *cases = rc ? NULL : varying(g.cases);
    if (!rc && (!cases || json_object_set_new(doc, "cases", cases)))
        rc = known_error("out of memory");
    char *json = rc ? NULL : json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS), *text = NULL;
    if (!rc && (!json || asprintf(&text, "%s\n", json) < 0))
        rc = known_error("out of memory"), text = NULL;
    else if (!rc && cts_output_write(out, paths, (size_t)n, text, strlen(text), err, sizeof err))
        rc = known_error("%s", err);
    free(json);
    free(text);
    json_decref(g.cases);
    json_decref(doc);
    return rc;
}
