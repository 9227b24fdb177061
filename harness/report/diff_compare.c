/* sync-cts diff's model: each matrix summarized case by case (of each case
 * only what the comparison shows: status, symbol, verdict, conformance, the
 * median call time; of the matrix its environment and run), a later matrix
 * compared with the baseline by merging the id-sorted summaries, each change
 * put in its group (diff.c says which), and the thresholds sections' flips
 * compared.  Renders nothing and reads no file: diff.c reads and writes,
 * diff_render.c and diff_series.c render (what the files share: diff_int.h). */
#define _GNU_SOURCE
#include "diff_int.h"
#include "report.h"
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- summaries -------------------------------------------------------------- */

/* cts_matrix_load_each's callback: the case, validated, as a summary. */
int cts_diff_summarize(void *ctx, const char *id, const json_t *c)
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
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++)
        x->verdict[k] = (unsigned char)cts_outcome_get(&v.verdict, cts_outcomes[k]);
    x->call = v.call_us;
    d->n++;
    return 0;
}

int cts_diff_cmp_dcase(const void *a, const void *b)
{
    return strcmp(((const struct dcase *)a)->id, ((const struct dcase *)b)->id);
}

void cts_diff_dmatrix_free(struct dmatrix *d)
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
int cts_diff_compare(const struct dmatrix *base, const struct dmatrix *later, const struct cts_known *known,
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
