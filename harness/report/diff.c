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
 * some did, 2 on error.
 *
 * Where A and a later matrix both have a `thresholds` section (docs/matrix.md)
 * their rows' flips are compared too, after the cases: a flip that moved (the
 * same flips and outcomes, another size), flips otherwise changed, a row in one
 * only.  A threshold change is a change (exit 1); a section in one matrix only
 * is said, and is none.  CSV keeps the cases; --section thresholds gives these.
 *
 * With --series the matrices are a series instead, and diff_series.c makes
 * and renders one table of the cases that change along it (no pairwise
 * comparison is made).
 *
 * This file reads, compares and writes; diff_render.c renders (what the
 * files share: diff_int.h). */
#define _GNU_SOURCE
#include "cli.h"
#include "diff_int.h"
#include "report.h"
#include "spec.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIFF_SAME = 0, DIFF_CHANGED = 1, DIFF_ERROR = 2 };
enum { FMT_TEXT, FMT_MD, FMT_CSV };
#define MAX_MATRICES 26 /* named A to Z */

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

#define diff_error(...) cts_die(DIFF_ERROR, __VA_ARGS__)

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
    x->varies_on_landing = v.status == CTS_VARIES && v.has_reason &&
                           !strncmp(v.reason, "repetitions differ on landed:", 29) && !strchr(v.reason, ';');
    x->conf = (signed char)v.conformance;
    const int fields[CTS_DIFF_FIELDS] = {v.verdict.dst, v.verdict.host, v.verdict.op_after, v.verdict.src,
                                         v.verdict.third_blocking, v.verdict.third_nonblocking,
                                         v.verdict.data, v.verdict.reader, v.verdict.landed,
                                         v.verdict.capture, v.verdict.stall, v.verdict.pool}; /* verdict_keys' order */
    for (int k = 0; k < CTS_DIFF_FIELDS; k++)
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

const char *cts_diff_status_of(const struct dcase *c) { return c ? cts_status_name((enum cts_status)c->status) : NULL; }
static int has_verdict(const char *st) { return st && (!strcmp(st, "PASS") || !strcmp(st, "VARIES")); }
static int is_notsupp(const char *st) { return st && !strcmp(st, "NOTSUPP"); }
/* FAIL, BROKEN, INCONCLUSIVE, TIMEOUT, CRASH */
static int is_bad(const char *st) { return st && !has_verdict(st) && !is_notsupp(st); }

/* spec.conformance, where the case has a "spec" (NULL where it is null). */
const char *cts_diff_conformance(const struct dcase *c) { return c ? cts_conformance_name((enum cts_conformance)c->conf) : NULL; }
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
static int same_symbols(const char *x, const char *y)
{
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

static int same_symbol(const struct dcase *a, const struct dcase *b) { return same_symbols(a->symbol, b->symbol); }

/* Whether two cases' outcomes differ (status, symbol, verdict, or conformance where both have a spec). */
int cts_diff_outcome_differs(const struct dcase *a, const struct dcase *b)
{
    if (a->status != b->status || !same_symbol(a, b) || !same_verdict(a, b))
        return 1;
    return both_have_spec(a, b) && a->conf != b->conf;
}

/* The group of a case present in both, or -1 if its outcome did not change. */
static int classify(const struct dcase *a, const struct dcase *b)
{
    if (!cts_diff_outcome_differs(a, b))
        return -1;
    const char *sa = cts_diff_status_of(a), *sb = cts_diff_status_of(b);
    const char *ca = NULL, *cb = NULL;
    if (both_have_spec(a, b)) {
        ca = cts_diff_conformance(a);
        cb = cts_diff_conformance(b);
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

/* The changes that count: all but those within known variability. */
size_t cts_diff_changed(const struct comparison *c) { return c->n - c->count[G_KNOWN]; }

/* Both summaries sorted by id: one merge.  With known variability, a change
 * whose outcomes are both among the case's known ones is G_KNOWN. */
static int compare(const struct dmatrix *base, const struct dmatrix *later, const struct cts_known *known,
                   struct comparison *cmp)
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
            const struct dcase *a = &base->v[i], *b = &later->v[j];
            int g = classify(a, b);
            if (g >= 0 && cts_known_within(known, a->id, (enum cts_status)a->status, a->symbol,
                                           (enum cts_status)b->status, b->symbol))
                g = G_KNOWN;
            if (g >= 0)
                cmp->v[cmp->n++] = (struct change){base->v[i].id, &base->v[i], &later->v[j], (enum group)g};
            i++;
            j++;
        }
    }
    if (cmp->n > 1)
        qsort(cmp->v, cmp->n, sizeof *cmp->v, cmp_change);
    for (size_t k = 0; k < cmp->n; k++)
        cmp->count[cmp->v[k].group]++;
    return 0;
}

/* Matrix i's cases, sorted by id (n of them). */
const struct dcase *cts_diff_cases(const struct diff_doc *d, size_t i, size_t *n)
{
    *n = d->dm[i].n;
    return d->dm[i].v;
}

/* ---- thresholds (docs/matrix.md, `thresholds`) ------------------------------ */

/* A flip's `below` or `above` probe: its size, and its outcome ("" where absent). */
long long cts_diff_flip_bytes(const json_t *flip, const char *side)
{
    return (long long)json_integer_value(json_object_get(json_object_get(flip, side), "bytes"));
}

const char *cts_diff_flip_outcome(const json_t *flip, const char *side)
{
    const char *o = json_string_value(json_object_get(json_object_get(flip, side), "outcome"));
    return o ? o : "";
}

/* Two outcomes of the search ("PASS:Qc", "VARIES:A/W", "NOTSUPP", "" undecided)
 * alike: the same status, and the same symbols as sets (as a case's are). */
static int same_th_outcome(const char *x, const char *y)
{
    const char *cx = strchr(x, ':'), *cy = strchr(y, ':');
    if (!cx || !cy)
        return !cx && !cy && !strcmp(x, y);
    if (cx - x != cy - y || strncmp(x, y, (size_t)(cx - x)))
        return 0;
    return same_symbols(cx + 1, cy + 1);
}

/* Whether flip side `side` of x and y has the same outcome. */
static int same_side(const json_t *x, const json_t *y, const char *side)
{
    return same_th_outcome(cts_diff_flip_outcome(x, side), cts_diff_flip_outcome(y, side));
}

/* How a row's flips in A (fa) and in the later matrix (fb), compared as lists
 * of (below size, below outcome, above size, above outcome), differ: -1 not
 * at all; TH_MOVED where they are as many with the same outcomes and each
 * flip that differs differs in its `above` size (the first size with the new
 * outcome, the size a move is told by); else TH_FLIPS. */
static int th_row_kind(const json_t *fa, const json_t *fb)
{
    size_t n = json_array_size(fa), moved = 0;
    if (n != json_array_size(fb))
        return TH_FLIPS;
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(fa, i), *y = json_array_get(fb, i);
        if (!same_side(x, y, "below") || !same_side(x, y, "above"))
            return TH_FLIPS;
        int below = cts_diff_flip_bytes(x, "below") != cts_diff_flip_bytes(y, "below");
        int above = cts_diff_flip_bytes(x, "above") != cts_diff_flip_bytes(y, "above");
        if (below && !above)
            return TH_FLIPS;
        moved += (size_t)above;
    }
    return moved ? TH_MOVED : -1;
}

static int th_add(struct th_comparison *t, const char *row, const json_t *a, const json_t *b, size_t flip,
                  enum th_kind kind)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct th_change *v = realloc(t->v, cap * sizeof *v);
        if (!v)
            return -1;
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n++] = (struct th_change){row, a, b, flip, kind};
    return 0;
}

/* A row in both: a change per moved flip, one for flips otherwise changed, or none. */
static int th_row(struct th_comparison *t, const char *row, const json_t *ra, const json_t *rb)
{
    const json_t *fa = json_object_get(ra, "flips"), *fb = json_object_get(rb, "flips");
    int kind = th_row_kind(fa, fb);
    if (kind != TH_MOVED)
        return kind < 0 ? 0 : th_add(t, row, ra, rb, 0, TH_FLIPS);
    for (size_t i = 0; i < json_array_size(fa); i++) {
        const json_t *x = json_array_get(fa, i), *y = json_array_get(fb, i);
        if (cts_diff_flip_bytes(x, "above") != cts_diff_flip_bytes(y, "above") &&
            th_add(t, row, ra, rb, i, TH_MOVED))
            return -1;
    }
    return 0;
}

/* Both rows objects: one merge of their sorted ids. */
static int th_merge(struct th_comparison *t, const json_t *ra, const json_t *rb)
{
    size_t na, nb, i = 0, j = 0;
    const char **ka = cts_sorted_keys(ra, &na), **kb = cts_sorted_keys(rb, &nb);
    int rc = ka && kb ? 0 : -1;
    while (!rc && (i < na || j < nb)) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(ka[i], kb[j]);
        if (c < 0)
            rc = th_add(t, ka[i], json_object_get(ra, ka[i]), NULL, 0, TH_ROW_ONLY_A);
        else if (c > 0)
            rc = th_add(t, kb[j], NULL, json_object_get(rb, kb[j]), 0, TH_ROW_ONLY_B);
        else
            rc = th_row(t, ka[i], json_object_get(ra, ka[i]), json_object_get(rb, kb[j]));
        i += c <= 0;
        j += c >= 0;
    }
    free(ka);
    free(kb);
    return rc;
}

/* The thresholds sections of matrices ma (A) and mb compared, where both
 * have one: each row's changes, rows by id.  0, or -1 if out of memory. */
int cts_diff_th_compare(const json_t *ma, const json_t *mb, struct th_comparison *t)
{
    const json_t *ta = json_object_get(ma, "thresholds"), *tb = json_object_get(mb, "thresholds");
    int a = json_is_object(ta), b = json_is_object(tb);
    memset(t, 0, sizeof *t);
    t->have = a && b ? TH_BOTH : a ? TH_ONLY_A : b ? TH_ONLY_B : TH_NEITHER;
    if (t->have != TH_BOTH)
        return 0;
    return th_merge(t, json_object_get(ta, "rows"), json_object_get(tb, "rows"));
}

/* ---- the command ------------------------------------------------------------ */

static const char *const formats[] = {"text", "md", "csv"};

/* The options: --format, --out, --series and --section (csv only; -1 not given). */
struct diff_opts {
    int fmt, series, section;
    const char *out, *known;
};

/* --section's value: 0 cases, 1 thresholds; or diff_error's exit status. */
static int diff_section(const char *v, int *section)
{
    static const char *const sections[] = {"cases", "thresholds"};
    for (*section = 0; *section < 2 && strcmp(v, sections[*section]); ++*section)
        ;
    return *section == 2 ? diff_error("--section wants cases or thresholds, not '%s'", v) : 0;
}

/* 0, or diff_error's exit status. */
static int diff_options(int argc, char **argv, struct diff_opts *o)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"out", required_argument, NULL, 'o'},
                                         {"series", no_argument, NULL, 's'},
                                         {"section", required_argument, NULL, 'S'},
                                         {"known", required_argument, NULL, 'k'},
                                         {0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'f') {
            for (o->fmt = 0; o->fmt < 3 && strcmp(optarg, formats[o->fmt]); o->fmt++)
                ;
            if (o->fmt == 3)
                return diff_error("--format wants text, md or csv, not '%s'", optarg);
        } else if (c == 'o') {
            o->out = optarg;
        } else if (c == 's') {
            o->series = 1;
        } else if (c == 'k') {
            o->known = optarg;
        } else if (c == 'S') {
            if (diff_section(optarg, &o->section))
                return DIFF_ERROR;
        } else if (c == ':') {
            return diff_error("option '%s' needs a value", argv[optind - 1]);
        } else {
            return diff_error("unknown option '%s' (see sync-cts --help)", argv[optind - 1]);
        }
    }
    if (o->section >= 0 && o->series)
        return diff_error("--section does not apply to --series");
    if (o->known && o->series)
        return diff_error("--known does not apply to --series");
    if (o->section >= 0 && o->fmt != FMT_CSV)
        return diff_error("--section applies to --format csv");
    return 0;
}

/* A cell symbol without landing's "~", each VARIES part once ("W~/W": "W"). */
static void strip_landing(char *sym)
{
    char out[64] = "", part[64];
    for (const char *p = sym; *p;) {
        size_t n = strcspn(p, "/"), k = 0;
        for (size_t i = 0; i < n && k + 1 < sizeof part; i++)
            if (p[i] != '~')
                part[k++] = p[i];
        part[k] = '\0';
        char have[70], want[70];
        snprintf(have, sizeof have, "/%s/", out);
        snprintf(want, sizeof want, "/%s/", part);
        size_t used = strlen(out);
        if (!strstr(have, want) && used + 1 + k < sizeof out) { /* parts of sym: never longer than it */
            if (used)
                out[used++] = '/';
            memcpy(out + used, part, k + 1);
        }
        p += n + (p[n] == '/');
    }
    memcpy(sym, out, strlen(out) + 1); /* never longer than sym */
}

/* A verdict field that one of the matrices records in none of its cases (one
 * measured before the suite observed it: landing, data order) is left out of
 * every case, and so is landing's cell mark "~" (a case VARIES on landing
 * alone is then a PASS): the comparison is of what every matrix observed, not
 * of what an older suite did not look at. */
static void common_fields(struct diff_doc *d)
{
    int common[CTS_DIFF_FIELDS];
    for (int k = 0; k < CTS_DIFF_FIELDS; k++) {
        common[k] = 1;
        for (size_t i = 0; i < d->nm; i++) {
            int seen = 0;
            for (size_t j = 0; j < d->dm[i].n && !seen; j++)
                seen = d->dm[i].v[j].verdict[k] != 0;
            common[k] &= seen;
        }
    }
    for (size_t i = 0; i < d->nm; i++)
        for (size_t j = 0; j < d->dm[i].n; j++) {
            struct dcase *x = &d->dm[i].v[j];
            for (int k = 0; k < CTS_DIFF_FIELDS; k++)
                if (!common[k])
                    x->verdict[k] = 0;
            if (!common[CTS_DIFF_LANDED] && x->symbol && strchr(x->symbol, '~'))
                strip_landing((char *)x->symbol); /* the pool's own copy */
            if (!common[CTS_DIFF_LANDED] && x->varies_on_landing)
                x->status = CTS_PASS;
        }
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
        if (i == 0 && d->known && cts_known_fits(d->known, d->m[0], d->known_path, d->paths[0], err, sizeof err)) {
            diff_error("%s", err);
            return -1;
        }
        if (d->dm[i].n > 1) /* no cases: no array to sort (qsort of NULL is undefined: issue 43, D14) */
            qsort(d->dm[i].v, d->dm[i].n, sizeof *d->dm[i].v, cmp_dcase);
    }
    common_fields(d);
    for (size_t k = 0; !d->series && k + 1 < d->nm; k++) {
        d->cmp[k].later = (int)k + 1;
        d->cmp[k].known = d->known != NULL;
        if (compare(&d->dm[0], &d->dm[k + 1], d->known, &d->cmp[k]) || cts_diff_th_compare(d->m[0], d->m[k + 1], &d->cmp[k].th)) {
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
    static void (*const render[2][3])(const struct diff_doc *, FILE *) = {
        {cts_diff_render_text, cts_diff_render_md, cts_diff_render_csv},
        {cts_diff_series_text, cts_diff_series_md, cts_diff_series_csv}};
    (d->th_csv ? cts_diff_th_csv : render[d->series][fmt])(d, mem);
    if (fclose(mem) != 0 || cts_diff_oom) {
        diff_error("out of memory");
        goto done;
    }
    if (cts_output_write(out, d->paths, d->nm, text, len, err, sizeof err)) {
        diff_error("%s", err);
        goto done;
    }
    rc = 0;
done:
    free(text);
    return rc;
}

/* Whether anything changed: DIFF_CHANGED or DIFF_SAME. */
static int diff_status(const struct diff_doc *d)
{
    if (d->series)
        return d->ser.n ? DIFF_CHANGED : DIFF_SAME;
    for (size_t k = 0; k + 1 < d->nm; k++)
        if (cts_diff_changed(&d->cmp[k]) || d->cmp[k].th.n)
            return DIFF_CHANGED;
    return DIFF_SAME;
}

/* Loads, compares and writes (to out, in format fmt).  0, or -1 once diff_error has said why not. */
static int diff_run(struct diff_doc *d, int fmt, const char *out)
{
    char err[1024];
    d->dm = calloc(d->nm, sizeof *d->dm);
    d->m = calloc(d->nm, sizeof *d->m);
    d->cmp = calloc(d->nm - 1, sizeof *d->cmp);
    if (!d->dm || !d->m || !d->cmp) {
        diff_error("out of memory");
        return -1;
    }
    if (cts_output_check(out, d->paths, d->nm, err, sizeof err)) {
        diff_error("%s", err);
        return -1;
    }
    if (diff_load(d))
        return -1;
    if (cts_diff_env_table_build(&d->env, d->m, d->nm) || (d->series && cts_diff_series_build(d))) {
        diff_error("out of memory");
        return -1;
    }
    return diff_write(d, fmt, out);
}

static void diff_doc_free(struct diff_doc *d)
{
    cts_diff_series_free(d);
    cts_diff_env_table_free(&d->env); /* all zero where it was never built */
    for (size_t i = 0; d->cmp && i + 1 < d->nm; i++) {
        free(d->cmp[i].v);
        free(d->cmp[i].th.v);
    }
    for (size_t i = 0; d->dm && i < d->nm; i++)
        dmatrix_free(&d->dm[i]);
    free(d->dm);
    free(d->m);
    free(d->cmp);
}

int cts_diff_main(int argc, char **argv)
{
    struct diff_opts o = {.fmt = FMT_TEXT, .section = -1};
    int orc = diff_options(argc, argv, &o);
    if (orc)
        return orc;
    size_t nm = (size_t)(argc - optind);
    if (nm < 2 && o.series)
        return diff_error("diff --series wants at least two matrix files (the series, in order), got %zu", nm);
    if (nm < 2)
        return diff_error("diff wants at least two matrix files (the first is the baseline), got %zu", nm);
    if (nm > MAX_MATRICES)
        return diff_error("diff compares at most %d matrices, got %zu", MAX_MATRICES, nm);

    struct diff_doc d = {.nm = nm, .paths = (const char *const *)argv + optind, .series = o.series,
                         .th_csv = o.section == 1};
    struct cts_known known;
    char err[1024];
    if (o.known && cts_known_load(o.known, &known, err, sizeof err))
        return diff_error("%s", err);
    d.known = o.known ? &known : NULL;
    d.known_path = o.known;
    int rc = diff_run(&d, o.fmt, o.out) ? DIFF_ERROR : diff_status(&d);
    diff_doc_free(&d);
    if (o.known)
        cts_known_free(&known);
    return rc;
}
