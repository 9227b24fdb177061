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

/* Matrix i's cases, sorted by id (n of them). */
const struct dcase *cts_diff_cases(const struct diff_doc *d, size_t i, size_t *n)
{
    *n = d->dm[i].n;
    return d->dm[i].v;
}

/* ---- the command ------------------------------------------------------------ */

static const char *const formats[] = {"text", "md", "csv"};

/* The options: --format (fmt), --out (out) and --series (series).  0, or
 * diff_error's exit status. */
static int diff_options(int argc, char **argv, int *fmtp, const char **outp, int *series)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"out", required_argument, NULL, 'o'},
                                         {"series", no_argument, NULL, 's'},
                                         {0}};
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
        } else if (c == 's') {
            *series = 1;
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
    for (size_t k = 0; !d->series && k + 1 < d->nm; k++) {
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
    static void (*const render[2][3])(const struct diff_doc *, FILE *) = {
        {cts_diff_render_text, cts_diff_render_md, cts_diff_render_csv},
        {cts_diff_series_text, cts_diff_series_md, cts_diff_series_csv}};
    render[d->series][fmt](d, mem);
    if (fclose(mem) != 0 || cts_diff_oom) {
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
    int series = 0;
    int orc = diff_options(argc, argv, &fmt, &out, &series);
    if (orc)
        return orc;
    size_t nm = (size_t)(argc - optind);
    if (nm < 2 && series)
        return diff_error("diff --series wants at least two matrix files (the series, in order), got %zu", nm);
    if (nm < 2)
        return diff_error("diff wants at least two matrix files (the first is the baseline), got %zu", nm);
    if (nm > MAX_MATRICES)
        return diff_error("diff compares at most %d matrices, got %zu", MAX_MATRICES, nm);

    struct diff_doc d = {.nm = nm, .paths = (const char *const *)argv + optind, .series = series};
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
    if (cts_diff_env_table_build(&d.env, d.m, nm)) {
        diff_error("out of memory");
        goto done;
    }
    have_env = 1;
    if (series && cts_diff_series_build(&d)) {
        diff_error("out of memory");
        goto done;
    }

    if (diff_write(&d, fmt, out))
        goto done;
    rc = series && d.ser.n ? DIFF_CHANGED : DIFF_SAME;
    for (size_t k = 0; !series && k + 1 < nm; k++)
        if (d.cmp[k].n)
            rc = DIFF_CHANGED;
done:
    cts_diff_series_free(&d);
    if (have_env)
        cts_diff_env_table_free(&d.env);
    for (size_t i = 0; d.cmp && i + 1 < nm; i++)
        free(d.cmp[i].v);
    for (size_t i = 0; d.dm && i < nm; i++)
        dmatrix_free(&d.dm[i]);
    free(d.dm);
    free(d.m);
    free(d.cmp);
    return rc;
}
