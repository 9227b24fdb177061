/* sync-cts diff: the cases whose outcome changed between matrices.
 *
 * The first matrix is the baseline (A); every later one (B, C, ...) is
 * compared with it.  A case changed when its status, symbol, a verdict field,
 * or (where both sides carry a "spec") spec.conformance differs; times never
 * count, since they always differ.  Each changed case falls into one group:
 *
 *   regressed          PASS/VARIES -> FAIL/BROKEN/INCONCLUSIVE/TIMEOUT/CRASH,
 *                      or conformance CONFORMS/RECORDED -> DEVIATES
 *   fixed              the reverse of either
 *   newly NOTSUPP      any other status -> NOTSUPP
 *   no longer NOTSUPP  NOTSUPP -> any other status
 *   changed            everything else (mostly: both have a verdict and the
 *                      symbol or a verdict field differs)
 *   only in A / B      ids present in one matrix only
 *
 * Steps: read each matrix case by case, keeping of each case only what the
 * comparison shows (status, symbol, verdict, conformance, the median call
 * time) and of the matrix its environment and run (a committed matrix is
 * some 200 MB as a jansson tree, its summary 2 MB); compare each later one
 * with A by merging the id-sorted summaries; sort the changes by group then
 * id, and render them as text, Markdown or CSV into memory; the output is
 * written only once it is complete.  Exit 0 when no case changed, 1 when
 * some did, 2 on error. */
#define _GNU_SOURCE
#include "cli.h"
#include "report.h"
#include "spec.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIFF_SAME = 0, DIFF_CHANGED = 1, DIFF_ERROR = 2 };
enum { FMT_TEXT, FMT_MD, FMT_CSV };
#define MAX_MATRICES 26 /* named A to Z */

enum group { G_REGRESSED, G_FIXED, G_NEW_NOTSUPP, G_OLD_NOTSUPP, G_CHANGED, G_ONLY_A, G_ONLY_B, G_COUNT };
static const char *const group_names[G_COUNT] = {
    "regressed", "fixed", "newly NOTSUPP", "no longer NOTSUPP", "changed", "only in A", "only in B"};

/* What diff keeps of a case. */
struct dcase {
    const char *id, *symbol; /* symbol NULL where null */
    const char *rejected;    /* verdict.rejected; NULL where absent */
    double call;             /* the median of evidence.call_us; NAN if none */
    signed char status;      /* enum cts_status */
    signed char conf;        /* enum cts_conformance: 0 where null or there is no spec */
    unsigned char has_spec;  /* "spec" is an object */
    unsigned char verdict[6]; /* the verdict_keys fields: indices into their names, 0 for null */
};

/* The verdict fields, in the order the matrix writes them (sorted), and their names. */
static const char *const verdict_keys[6] = {"dst", "host", "op_after", "src", "third_blocking", "third_nonblocking"};
static const char *vname(int field, int i)
{
    switch (field) {
    case 0: return cts_dst_name((enum cts_dst)i);
    case 1: return cts_host_name((enum cts_host)i);
    case 3: return cts_src_name((enum cts_src)i);
    default: return cts_order_name((enum cts_order)i);
    }
}

/* Strings kept for the whole run, in blocks. */
struct pool {
    char *block;
    size_t used, size;
};

static const char *pool_dup(struct pool *p, const char *s)
{
    size_t n = strlen(s) + 1;
    if (!p->block || p->size - p->used < n) {
        size_t size = n > 65536 ? n : 65536;
        char **b = malloc(sizeof(char *) + size); /* each block starts with the previous one */
        if (!b)
            return NULL;
        *b = p->block;
        p->block = (char *)b;
        p->used = sizeof(char *);
        p->size = sizeof(char *) + size;
    }
    char *d = p->block + p->used;
    memcpy(d, s, n);
    p->used += n;
    return d;
}

static void pool_free(struct pool *p)
{
    while (p->block) {
        char *prev = *(char **)p->block;
        free(p->block);
        p->block = prev;
    }
}

/* One matrix: its summary, sorted by id, and the matrix without its cases. */
struct dmatrix {
    json_t *top;
    struct dcase *v;
    size_t n, cap;
    struct pool pool;
};

struct change {
    const char *id;
    const struct dcase *a, *b; /* the case in the baseline and in the later matrix; NULL where absent */
    enum group group;
};

/* The baseline against one later matrix. */
struct comparison {
    int later; /* index of the later matrix: 1 is B */
    struct change *v;
    size_t n;
    size_t count[G_COUNT];
};

static int g_oom; /* set when a string could not be allocated; checked before anything is written */

#define diff_error(...) cts_die(DIFF_ERROR, __VA_ARGS__)

/* A formatted string to free; NULL (and g_oom) if memory ran out. */
static char *dupf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0) {
        s = NULL;
        g_oom = 1;
    }
    va_end(ap);
    return s;
}
#define S(x) ((x) ? (x) : "")

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* ---- summaries -------------------------------------------------------------- */

/* cts_matrix_load_each's callback: the case, validated, as a summary. */
static int summarize(void *ctx, const char *id, const json_t *c)
{
    struct dmatrix *d = ctx;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 4096;
        struct dcase *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return -1;
        d->v = v;
        d->cap = cap;
    }
    struct dcase *x = &d->v[d->n];
    struct cts_case_view v;
    cts_case_view(&v, id, c);
    const char *sym = v.has_symbol ? v.symbol : NULL, *rej = v.verdict.rejected;
    x->id = pool_dup(&d->pool, id);
    x->symbol = sym ? pool_dup(&d->pool, sym) : NULL;
    x->rejected = rej ? pool_dup(&d->pool, rej) : NULL;
    if (!x->id || (sym && !x->symbol) || (rej && !x->rejected))
        return -1;
    x->status = (signed char)v.status;
    x->has_spec = (unsigned char)v.has_spec;
    x->conf = (signed char)v.conformance;
    const int fields[6] = {v.verdict.dst, v.verdict.host, v.verdict.op_after, v.verdict.src,
                           v.verdict.third_blocking, v.verdict.third_nonblocking}; /* verdict_keys' order */
    for (int k = 0; k < 6; k++)
        x->verdict[k] = (unsigned char)fields[k];
    x->call = v.call_us;
    d->n++;
    return 0;
}

static int cmp_dcase(const void *a, const void *b)
{
    return strcmp(((const struct dcase *)a)->id, ((const struct dcase *)b)->id);
}

static void dmatrix_free(struct dmatrix *d)
{
    json_decref(d->top);
    free(d->v);
    pool_free(&d->pool);
}

/* ---- classification ------------------------------------------------------ */

static const char *status_of(const struct dcase *c) { return c ? cts_status_name((enum cts_status)c->status) : NULL; }
static int has_verdict(const char *st) { return st && (!strcmp(st, "PASS") || !strcmp(st, "VARIES")); }
static int is_notsupp(const char *st) { return st && !strcmp(st, "NOTSUPP"); }
/* FAIL, BROKEN, INCONCLUSIVE, TIMEOUT, CRASH */
static int is_bad(const char *st) { return st && !has_verdict(st) && !is_notsupp(st); }

/* spec.conformance, where the case has a "spec" (NULL where it is null). */
static const char *conformance(const struct dcase *c) { return c ? cts_conformance_name((enum cts_conformance)c->conf) : NULL; }
static int conforms(const char *cf) { return cf && (!strcmp(cf, "CONFORMS") || !strcmp(cf, "RECORDED")); }
static int deviates(const char *cf) { return cf && !strcmp(cf, "DEVIATES"); }

/* Conformance is compared only when both sides have a spec, so that a matrix
 * from before the spec was recorded does not differ in every case. */
static int both_have_spec(const struct dcase *a, const struct dcase *b) { return a->has_spec && b->has_spec; }

static int same_verdict(const struct dcase *a, const struct dcase *b)
{
    if (!a->rejected != !b->rejected || (a->rejected && strcmp(a->rejected, b->rejected)))
        return 0;
    return !memcmp(a->verdict, b->verdict, sizeof a->verdict);
}

/* A VARIES symbol lists each symbol seen in the order the repetitions saw
 * them, so "A/W" and "W/A" are the same outcome: compared as sets. */
static int same_symbol(const struct dcase *a, const struct dcase *b)
{
    const char *x = a->symbol, *y = b->symbol;
    if (!x || !y || !strcmp(x, y))
        return !x == !y;
    char xs[64], ys[64];
    if (strlen(x) != strlen(y) || strlen(x) + 2 >= sizeof xs)
        return 0;
    snprintf(xs, sizeof xs, "/%s/", x);
    snprintf(ys, sizeof ys, "/%s/", y);
    for (char *p = xs + 1, *e; *p && (e = strchr(p, '/')); p = e + 1) { /* each of x in y */
        char part[64];
        snprintf(part, sizeof part, "/%.*s/", (int)(e - p), p);
        if (!strstr(ys, part))
            return 0;
    }
    return 1; /* same length, every part of x in y, and parts never repeat */
}

static int outcome_differs(const struct dcase *a, const struct dcase *b)
{
    if (a->status != b->status || !same_symbol(a, b) || !same_verdict(a, b))
        return 1;
    return both_have_spec(a, b) && a->conf != b->conf;
}

/* The group of a case present in both, or -1 if its outcome did not change. */
static int classify(const struct dcase *a, const struct dcase *b)
{
    if (!outcome_differs(a, b))
        return -1;
    const char *sa = status_of(a), *sb = status_of(b);
    const char *ca = NULL, *cb = NULL;
    if (both_have_spec(a, b)) {
        ca = conformance(a);
        cb = conformance(b);
    }
    if ((has_verdict(sa) && is_bad(sb)) || (conforms(ca) && deviates(cb)))
        return G_REGRESSED;
    if ((is_bad(sa) && has_verdict(sb)) || (deviates(ca) && conforms(cb)))
        return G_FIXED;
    if (!is_notsupp(sa) && is_notsupp(sb))
        return G_NEW_NOTSUPP;
    if (is_notsupp(sa) && !is_notsupp(sb))
        return G_OLD_NOTSUPP;
    return G_CHANGED;
}

static int cmp_change(const void *pa, const void *pb)
{
    const struct change *a = pa, *b = pb;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    return strcmp(a->id, b->id);
}

/* Both summaries sorted by id: one merge. */
static int compare(const struct dmatrix *base, const struct dmatrix *later, struct comparison *cmp)
{
    cmp->n = 0;
    memset(cmp->count, 0, sizeof cmp->count);
    cmp->v = malloc((base->n + later->n + 1) * sizeof *cmp->v);
    if (!cmp->v)
        return -1;
    size_t i = 0, j = 0;
    while (i < base->n || j < later->n) {
        int d = i == base->n ? 1 : j == later->n ? -1 : strcmp(base->v[i].id, later->v[j].id);
        if (d < 0) {
            cmp->v[cmp->n++] = (struct change){base->v[i].id, &base->v[i], NULL, G_ONLY_A};
            i++;
        } else if (d > 0) {
            cmp->v[cmp->n++] = (struct change){later->v[j].id, NULL, &later->v[j], G_ONLY_B};
            j++;
        } else {
            int g = classify(&base->v[i], &later->v[j]);
            if (g >= 0)
                cmp->v[cmp->n++] = (struct change){base->v[i].id, &base->v[i], &later->v[j], (enum group)g};
            i++;
            j++;
        }
    }
    qsort(cmp->v, cmp->n, sizeof *cmp->v, cmp_change);
    for (size_t k = 0; k < cmp->n; k++)
        cmp->count[cmp->v[k].group]++;
    return 0;
}

/* ---- what is shown of a case --------------------------------------------- */

/* "W" for a PASS with a symbol, else the status and any symbol ("VARIES A/W",
 * "FAIL"); the conformance in brackets where there is one.  "absent" for no case. */
static char *outcome(const struct dcase *c)
{
    if (!c)
        return dupf("absent");
    const char *st = S(status_of(c)), *sym = c->symbol, *cf = conformance(c);
    char *base = !strcmp(st, "PASS") && sym ? dupf("%s", sym) : dupf("%s%s%s", st, sym ? " " : "", S(sym));
    if (!cf)
        return base;
    char *s = dupf("%s [%s]", S(base), cf);
    free(base);
    return s;
}

static char *call_text(const struct dcase *c)
{
    double t = c ? c->call : NAN;
    return isnan(t) ? dupf("-") : dupf("%.1f us", t);
}

/* A JSON scalar as text: "-" for null or absent. */
static char *value_text(const json_t *v)
{
    if (!v || json_is_null(v))
        return dupf("-");
    if (json_is_string(v))
        return dupf("%s", json_string_value(v));
    if (json_is_integer(v))
        return dupf("%lld", (long long)json_integer_value(v));
    if (json_is_real(v))
        return dupf("%g", json_real_value(v));
    if (json_is_boolean(v))
        return dupf("%s", json_is_true(v) ? "true" : "false");
    if (json_is_string(json_object_get(v, "text"))) /* versions: {"number": 13000, "text": "13.0"} */
        return dupf("%s", str(v, "text"));
    char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (!s)
        g_oom = 1;
    return s;
}

/* Context for a changed case: the call time on both sides, and each verdict
 * field (in the matrix's order) that has a value on both sides and differs
 * ("host: waits -> returns"; a field that is null, because the call waited
 * or repetitions disagreed on it, is already told by the symbol). */
static char *note(const struct change *ch, const char *arrow)
{
    char *ta = call_text(ch->a), *tb = call_text(ch->b);
    char *s = !ch->a ? dupf("call %s", S(tb)) : !ch->b ? dupf("call %s", S(ta))
                                                       : dupf("call %s %s %s", S(ta), arrow, S(tb));
    free(ta);
    free(tb);
    for (int k = 0; ch->a && ch->b && k < 6; k++) {
        if (k == 3 && ch->a->rejected && ch->b->rejected && strcmp(ch->a->rejected, ch->b->rejected)) {
            char *t = dupf("%s; rejected: %s %s %s", S(s), ch->a->rejected, arrow, ch->b->rejected);
            free(s);
            s = t; /* (between op_after and src, as the matrix orders them) */
        }
        int x = ch->a->verdict[k], y = ch->b->verdict[k];
        if (!x || !y || x == y)
            continue;
        char *t = dupf("%s; %s: %s %s %s", S(s), verdict_keys[k], vname(k, x), arrow, vname(k, y));
        free(s);
        s = t;
    }
    return s;
}

/* ---- the environment, side by side --------------------------------------- */

struct env_table {
    size_t rows, cols;
    char **label;  /* [rows] */
    char **cell;   /* [rows * cols] */
    int *differs;  /* [rows] */
};

/* A value by its dotted path from the matrix root; NULL where absent. */
static json_t *lookup(json_t *m, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *k = strtok_r(buf, ".", &save); k && m; k = strtok_r(NULL, ".", &save))
        m = json_object_get(m, k);
    return m;
}

/* run.counts as "PASS 18724, VARIES 31, ..." in status order, zeros left out. */
static char *counts_text(const json_t *counts)
{
    if (!json_is_object(counts))
        return dupf("-");
    char *s = NULL;
    for (int st = 0; st < CTS_STATUS_COUNT; st++) {
        json_int_t n = json_integer_value(json_object_get(counts, cts_status_name(st)));
        if (n <= 0)
            continue;
        char *t = dupf("%s%s%s %lld", S(s), s ? ", " : "", cts_status_name(st), (long long)n);
        free(s);
        s = t;
    }
    return s ? s : dupf("none");
}

static void env_add_row(struct env_table *t, const char *label, json_t **m, const char *path, const char *var)
{
    size_t r = t->rows++;
    t->label[r] = dupf("%s", label);
    t->differs[r] = 0;
    for (size_t c = 0; c < t->cols; c++) {
        char *v;
        if (var)
            v = value_text(json_object_get(lookup(m[c], "environment.settings.environment_variables"), var));
        else if (!strcmp(path, "run.counts"))
            v = counts_text(lookup(m[c], path));
        else
            v = value_text(lookup(m[c], path));
        t->cell[r * t->cols + c] = v;
        if (c && strcmp(S(v), S(t->cell[r * t->cols])))
            t->differs[r] = 1;
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int env_table_build(struct env_table *t, json_t **m, size_t nm)
{
    static const struct {
        const char *label, *path;
    } before[] = {{"GPU", "environment.gpu.name"},
                  {"driver", "environment.versions.driver"},
                  {"driver API", "environment.versions.driver_api"},
                  {"runtime", "environment.versions.runtime"},
                  {"default stream", "environment.settings.default_stream"},
                  {"device schedule", "environment.settings.device_schedule"}},
      after[] = {{"suite revision", "environment.suite_revision"}, {"date", "run.date"}, {"counts", "run.counts"}};
    const size_t nb = sizeof before / sizeof *before, na = sizeof after / sizeof *after;

    /* The CUDA_* variables set in any of the matrices, once each, sorted. */
    json_t *vars = json_object();
    if (!vars)
        return -1;
    for (size_t i = 0; i < nm; i++) {
        const char *k;
        json_t *v;
        json_object_foreach(lookup(m[i], "environment.settings.environment_variables"), k, v)
            if (!strncmp(k, "CUDA_", 5) && !json_is_null(v))
                json_object_set(vars, k, json_true());
    }
    size_t nv = json_object_size(vars), j = 0;
    const char **names = calloc(nv + 1, sizeof *names);
    memset(t, 0, sizeof *t);
    t->cols = nm;
    t->label = calloc(nb + nv + na, sizeof *t->label);
    t->cell = calloc((nb + nv + na) * nm, sizeof *t->cell);
    t->differs = calloc(nb + nv + na, sizeof *t->differs);
    if (!names || !t->label || !t->cell || !t->differs) {
        free(names);
        json_decref(vars);
        return -1;
    }
    const char *k;
    json_t *v;
    json_object_foreach(vars, k, v)
        names[j++] = k;
    qsort(names, nv, sizeof *names, cmp_str);
    for (size_t i = 0; i < nb; i++)
        env_add_row(t, before[i].label, m, before[i].path, NULL);
    for (size_t i = 0; i < nv; i++)
        env_add_row(t, names[i], m, NULL, names[i]);
    for (size_t i = 0; i < na; i++)
        env_add_row(t, after[i].label, m, after[i].path, NULL);
    free(names);
    json_decref(vars);
    return 0;
}

static void env_table_free(struct env_table *t)
{
    for (size_t r = 0; r < t->rows; r++) {
        free(t->label[r]);
        for (size_t c = 0; c < t->cols; c++)
            free(t->cell[r * t->cols + c]);
    }
    free(t->label);
    free(t->cell);
    free(t->differs);
}

/* ---- rendering ------------------------------------------------------------- */

struct diff_doc {
    size_t nm;
    const char *const *paths;
    struct dmatrix *dm;
    json_t **m; /* each matrix without its cases */
    struct env_table env;
    struct comparison *cmp; /* [nm - 1] */
};

static char letter(size_t i) { return (char)('A' + i); }

/* "only in B" names the later matrix by its letter in text and Markdown. */
static const char *group_title(enum group g, size_t later, char *buf, size_t len)
{
    if (g != G_ONLY_B)
        return group_names[g];
    snprintf(buf, len, "only in %c", letter(later));
    return buf;
}

static size_t total_changed(const struct comparison *c) { return c->n; }

static void render_text(const struct diff_doc *d, FILE *f)
{
    for (size_t i = 0; i < d->nm; i++)
        fprintf(f, "%c  %s%s\n", letter(i), d->paths[i], i ? "" : "  (baseline)");
    /* The environment: label column, then one column per matrix; '*' marks rows that differ. */
    const struct env_table *t = &d->env;
    int lw = 0, *cw = calloc(t->cols, sizeof *cw);
    if (!cw) {
        g_oom = 1;
        return;
    }
    for (size_t r = 0; r < t->rows; r++) {
        lw = (int)strlen(S(t->label[r])) > lw ? (int)strlen(S(t->label[r])) : lw;
        for (size_t c = 0; c < t->cols; c++) {
            int w = (int)strlen(S(t->cell[r * t->cols + c]));
            cw[c] = w > cw[c] ? w : cw[c];
        }
    }
    fprintf(f, "\n  %-*s", lw, "");
    for (size_t c = 0; c < t->cols; c++)
        fprintf(f, "  %-*c", c + 1 < t->cols ? cw[c] : 0, letter(c));
    fputc('\n', f);
    for (size_t r = 0; r < t->rows; r++) {
        fprintf(f, "%c %-*s", t->differs[r] ? '*' : ' ', lw, S(t->label[r]));
        for (size_t c = 0; c < t->cols; c++)
            fprintf(f, "  %-*s", c + 1 < t->cols ? cw[c] : 0, S(t->cell[r * t->cols + c]));
        fputc('\n', f);
    }
    fputs("(* differs)\n", f);
    free(cw);

    for (size_t k = 0; k + 1 < d->nm; k++) {
        const struct comparison *cmp = &d->cmp[k];
        char title[32];
        fprintf(f, "\nA -> %c: %zu case%s changed\n ", letter(cmp->later), total_changed(cmp),
                total_changed(cmp) == 1 ? "" : "s");
        for (int g = 0; g < G_COUNT; g++)
            fprintf(f, " %s %zu%s", group_title(g, cmp->later, title, sizeof title), cmp->count[g],
                    g + 1 < G_COUNT ? "," : "\n");
        for (size_t i = 0; i < cmp->n;) {
            enum group g = cmp->v[i].group;
            size_t end = i, idw = 0;
            while (end < cmp->n && cmp->v[end].group == g) {
                size_t w = strlen(cmp->v[end].id);
                idw = w > idw ? w : idw;
                end++;
            }
            fprintf(f, "\n%s (%zu)\n", group_title(g, cmp->later, title, sizeof title), cmp->count[g]);
            for (; i < end; i++) {
                const struct change *ch = &cmp->v[i];
                char *oa = outcome(ch->a), *ob = outcome(ch->b), *nt = note(ch, "->");
                if (ch->a && ch->b)
                    fprintf(f, "  %-*s  %s -> %s  (%s)\n", (int)idw, ch->id, S(oa), S(ob), S(nt));
                else
                    fprintf(f, "  %-*s  %s  (%s)\n", (int)idw, ch->id, S(ch->a ? oa : ob), S(nt));
                free(oa);
                free(ob);
                free(nt);
            }
        }
    }
}

/* A Markdown table cell: text from the matrices, escaped (cts_md_text). */
static void md_cell(FILE *f, const char *s)
{
    fputs("| ", f);
    cts_md_text(f, S(s));
    fputc(' ', f);
}

/* outcome() as a table cell: the symbol (from the matrix) escaped, the
 * status and conformance (known names) and the brackets as they are. */
static void md_outcome(FILE *f, const struct dcase *c)
{
    fputs("| ", f);
    if (!c) {
        fputs("absent ", f);
        return;
    }
    const char *st = S(status_of(c)), *cf = conformance(c);
    if (strcmp(st, "PASS") || !c->symbol)
        fprintf(f, "%s%s", st, c->symbol ? " " : "");
    if (c->symbol)
        cts_md_text(f, c->symbol);
    if (cf)
        fprintf(f, " [%s]", cf);
    fputc(' ', f);
}

static void render_md(const struct diff_doc *d, FILE *f)
{
    fputs("# sync-cts diff\n\n", f);
    for (size_t i = 0; i < d->nm; i++) {
        fprintf(f, "- **%c**%s: ", letter(i), i ? "" : " (baseline)");
        cts_md_code(f, d->paths[i], 0);
        fputc('\n', f);
    }
    fputs("\n", f);
    const struct env_table *t = &d->env;
    md_cell(f, "");
    for (size_t c = 0; c < t->cols; c++) {
        char l[2] = {letter(c), 0};
        md_cell(f, l);
    }
    md_cell(f, "differs");
    fputs("|\n", f);
    for (size_t c = 0; c < t->cols + 2; c++)
        fputs("|---", f);
    fputs("|\n", f);
    for (size_t r = 0; r < t->rows; r++) {
        md_cell(f, t->label[r]);
        for (size_t c = 0; c < t->cols; c++)
            md_cell(f, t->cell[r * t->cols + c]);
        md_cell(f, t->differs[r] ? "yes" : "");
        fputs("|\n", f);
    }
    for (size_t k = 0; k + 1 < d->nm; k++) {
        const struct comparison *cmp = &d->cmp[k];
        char title[32], lb[2] = {letter(cmp->later), 0};
        fprintf(f, "\n## A → %s: %zu case%s changed\n\n| group | cases |\n|---|---:|\n", lb, total_changed(cmp),
                total_changed(cmp) == 1 ? "" : "s");
        for (int g = 0; g < G_COUNT; g++)
            fprintf(f, "| %s | %zu |\n", group_title(g, cmp->later, title, sizeof title), cmp->count[g]);
        for (size_t i = 0; i < cmp->n; i++) {
            const struct change *ch = &cmp->v[i];
            if (i == 0 || cmp->v[i - 1].group != ch->group)
                fprintf(f, "\n### %s (%zu)\n\n| case | A | %s | note |\n|---|---|---|---|\n",
                        group_title(ch->group, cmp->later, title, sizeof title), cmp->count[ch->group], lb);
            char *nt = note(ch, "→");
            fputs("| ", f);
            cts_md_code(f, ch->id, 1);
            fputc(' ', f);
            md_outcome(f, ch->a);
            md_outcome(f, ch->b);
            md_cell(f, nt); /* known names and numbers only */
            fputs("|\n", f);
            free(nt);
        }
    }
}

/* One CSV field and what ends it. */
static void csv_field(FILE *f, const char *s, int last)
{
    cts_csv_text(f, S(s));
    fputs(last ? "\r\n" : ",", f);
}

static void render_csv(const struct diff_doc *d, FILE *f)
{
    static const char *const head[] = {"group",    "id",       "status_a",      "status_b",
                                       "symbol_a", "symbol_b", "conformance_a", "conformance_b"};
    int many = d->nm > 2;
    if (many)
        csv_field(f, "matrix", 0);
    for (int i = 0; i < 8; i++)
        csv_field(f, head[i], i == 7);
    for (size_t k = 0; k + 1 < d->nm; k++) {
        const struct comparison *cmp = &d->cmp[k];
        for (size_t i = 0; i < cmp->n; i++) {
            const struct change *ch = &cmp->v[i];
            if (many)
                csv_field(f, d->paths[cmp->later], 0);
            csv_field(f, group_names[ch->group], 0); /* "only in B": B is the later matrix */
            csv_field(f, ch->id, 0);
            csv_field(f, status_of(ch->a), 0);
            csv_field(f, status_of(ch->b), 0);
            csv_field(f, ch->a ? ch->a->symbol : NULL, 0);
            csv_field(f, ch->b ? ch->b->symbol : NULL, 0);
            csv_field(f, conformance(ch->a), 0);
            csv_field(f, conformance(ch->b), 1);
        }
    }
}

/* ---- the command ------------------------------------------------------------ */

static const char *const formats[] = {"text", "md", "csv"};

/* The options: --format (fmt) and --out (out).  0, or diff_error's exit
 * status. */
static int diff_options(int argc, char **argv, int *fmtp, const char **outp)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'}, {"out", required_argument, NULL, 'o'}, {0}};
    int fmt = FMT_TEXT, c;
    const char *out = NULL;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'f') {
            for (fmt = 0; fmt < 3 && strcmp(optarg, formats[fmt]); fmt++)
                ;
            if (fmt == 3)
                return diff_error("--format wants text, md or csv, not '%s'", optarg);
        } else if (c == 'o') {
            out = optarg;
        } else if (c == ':') {
            return diff_error("option '%s' needs a value", argv[optind - 1]);
        } else {
            return diff_error("unknown option '%s' (see sync-cts --help)", argv[optind - 1]);
        }
    }
    *fmtp = fmt;
    *outp = out;
    return 0;
}

/* Loads the matrices (their cases summarized and sorted; one schema version
 * among them) and compares each later one with the first.  -1 once
 * diff_error has said why not. */
static int diff_load(struct diff_doc *d)
{
    char err[1024];
    for (size_t i = 0; i < d->nm; i++) {
        if (!(d->m[i] = d->dm[i].top = cts_matrix_load_each(d->paths[i], summarize, &d->dm[i], err, sizeof err))) {
            diff_error("%s", err);
            return -1;
        }
        json_int_t v0 = json_integer_value(json_object_get(d->m[0], "schema_version"));
        json_int_t vi = json_integer_value(json_object_get(d->m[i], "schema_version"));
        if (vi != v0) { /* cts_matrix_load reads one version today; this holds if it ever reads more */
            diff_error("'%s' has schema version %lld and '%s' has %lld: not comparable", d->paths[i],
                       (long long)vi, d->paths[0], (long long)v0);
            return -1;
        }
        qsort(d->dm[i].v, d->dm[i].n, sizeof *d->dm[i].v, cmp_dcase);
    }
    for (size_t k = 0; k + 1 < d->nm; k++) {
        d->cmp[k].later = (int)k + 1;
        if (compare(&d->dm[0], &d->dm[k + 1], &d->cmp[k])) {
            diff_error("out of memory");
            return -1;
        }
    }
    return 0;
}

/* Renders the comparison in format fmt and writes it to out (NULL or "-":
 * standard output).  -1 once diff_error has said why not. */
static int diff_write(const struct diff_doc *d, int fmt, const char *out)
{
    char err[1024];
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    /* Rendered whole in memory, then written: nothing half-written. */
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        diff_error("out of memory");
        goto done;
    }
    if (fmt == FMT_TEXT)
        render_text(d, mem);
    else if (fmt == FMT_MD)
        render_md(d, mem);
    else
        render_csv(d, mem);
    if (fclose(mem) != 0 || g_oom) {
        diff_error("out of memory");
        goto done;
    }
    struct cts_outfile of;
    if (cts_output_open(&of, out, d->paths, d->nm, err, sizeof err)) {
        diff_error("%s", err);
        goto done;
    }
    if (fwrite(text, 1, len, of.f) != len) {
        cts_outfile_abort(&of);
        diff_error("cannot write '%s'", of.std ? "standard output" : out);
        goto done;
    }
    if (cts_outfile_commit(&of, err, sizeof err)) {
        diff_error("%s", err);
        goto done;
    }
    rc = 0;
done:
    free(text);
    return rc;
}

int cts_diff_main(int argc, char **argv)
{
    int fmt = FMT_TEXT;
    const char *out = NULL;
    int orc = diff_options(argc, argv, &fmt, &out);
    if (orc)
        return orc;
    size_t nm = (size_t)(argc - optind);
    if (nm < 2)
        return diff_error("diff wants at least two matrix files (the first is the baseline), got %zu", nm);
    if (nm > MAX_MATRICES)
        return diff_error("diff compares at most %d matrices, got %zu", MAX_MATRICES, nm);

    struct diff_doc d = {.nm = nm, .paths = (const char *const *)argv + optind};
    d.dm = calloc(nm, sizeof *d.dm);
    d.m = calloc(nm, sizeof *d.m);
    d.cmp = calloc(nm - 1, sizeof *d.cmp);
    char err[1024];
    int rc = DIFF_ERROR, have_env = 0;
    if (!d.dm || !d.m || !d.cmp) {
        diff_error("out of memory");
        goto done;
    }
    if (cts_output_check(out, d.paths, nm, err, sizeof err)) {
        diff_error("%s", err);
        goto done;
    }
    if (diff_load(&d))
        goto done;
    if (env_table_build(&d.env, d.m, nm)) {
        diff_error("out of memory");
        goto done;
    }
    have_env = 1;

    if (diff_write(&d, fmt, out))
        goto done;
    rc = DIFF_SAME;
    for (size_t k = 0; k + 1 < nm; k++)
        if (d.cmp[k].n)
            rc = DIFF_CHANGED;
done:
    if (have_env)
        env_table_free(&d.env);
    for (size_t i = 0; d.cmp && i + 1 < nm; i++)
        free(d.cmp[i].v);
    for (size_t i = 0; d.dm && i < nm; i++)
        dmatrix_free(&d.dm[i]);
    free(d.dm);
    free(d.m);
    free(d.cmp);
    return rc;
}
