/* sync-cts diff: the comparison shown (diff.c reads and compares the
 * matrices): each changed case's outcome and note, and the whole as text,
 * Markdown or CSV (the environments side by side: diff_env.c; the threshold
 * changes: diff_thresholds.c).  Strings come from dupf (diff_text.c), which
 * sets cts_diff_oom where memory ran out; nothing is written then. */
#define _GNU_SOURCE
#include "diff_int.h"
#include "report.h"
#include "spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const group_names[G_COUNT] = {
    "regressed", "fixed", "newly NOTSUPP", "no longer NOTSUPP", "changed", "only in A", "only in B",
    "within known variability"};

#define dupf cts_diff_dupf
#define S(x) ((x) ? (x) : "")

/* ---- what is shown of a case --------------------------------------------- */

/* "W" for a PASS with a symbol, else the status and any symbol ("VARIES A/W",
 * "FAIL"); the conformance in brackets where there is one.  "absent" for no case. */
char *cts_diff_outcome(const struct dcase *c)
{
    if (!c)
        return dupf("absent");
    const char *st = S(cts_diff_status_of(c)), *sym = c->symbol, *cf = cts_diff_conformance(c);
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

/* Context for a changed case: the call time on both sides, and each verdict
 * field (in the order of cts_outcomes) that has a value on both sides and differs
 * ("host: waits -> returns"; a field that is null, because the call waited
 * or repetitions disagreed on it, is already told by the symbol). */
static char *note(const struct change *ch, const char *arrow)
{
    char *ta = call_text(ch->a), *tb = call_text(ch->b);
    char *s = !ch->a ? dupf("call %s", S(tb)) : !ch->b ? dupf("call %s", S(ta))
                                                       : dupf("call %s %s %s", S(ta), arrow, S(tb));
    free(ta);
    free(tb);
    for (int k = 0; ch->a && ch->b && k < CTS_OUTCOME_COUNT; k++) {
        const struct cts_outcome *o = cts_outcomes[k];
        char *t = NULL;
        if (!o->names && ch->a->rejected && ch->b->rejected && strcmp(ch->a->rejected, ch->b->rejected))
            t = dupf("%s; %s: %s %s %s", S(s), o->key, ch->a->rejected, arrow, ch->b->rejected);
        int x = ch->a->verdict[k], y = ch->b->verdict[k];
        if (o->names && x && y && x != y)
            t = dupf("%s; %s: %s %s %s", S(s), o->key, o->names[x], arrow, o->names[y]);
        if (!t)
            continue;
        free(s);
        s = t;
    }
    return s;
}

/* ---- rendering ------------------------------------------------------------- */

static char letter(size_t i) { return (char)('A' + i); }

/* "only in B" names the later matrix by its letter in text and Markdown. */
static const char *group_title(enum group g, size_t later, char *buf, size_t len)
{
    if (g != G_ONLY_B)
        return group_names[g];
    snprintf(buf, len, "only in %c", letter(later));
    return buf;
}

static size_t total_changed(const struct comparison *c) { return cts_diff_changed(c); }

/* The groups shown: within known variability only where --known was given. */
static int groups_shown(const struct comparison *c) { return c->known ? G_COUNT : G_KNOWN; }

/* An "only in" group of more than this many cases (the suite grew between
 * the matrices: cases, not changes) is counted by call in text and
 * Markdown; CSV lists every id. */
#define ONLY_LISTED 50

static int counted_by_call(const struct comparison *cmp, enum group g)
{
    return (g == G_ONLY_A || g == G_ONLY_B) && cmp->count[g] > ONLY_LISTED;
}

/* Any other group of more than this many changes (a setting that changes a
 * whole class of calls: CUDA_LAUNCH_BLOCKING, the default stream) is
 * tallied by call and change, A's outcome to B's, in text and Markdown;
 * CSV lists every id. */
#define CHANGED_LISTED 1000

static int tallied(const struct comparison *cmp, enum group g)
{
    return g != G_ONLY_A && g != G_ONLY_B && cmp->count[g] > CHANGED_LISTED;
}

/* One call's changes of one kind: A's outcome, B's, and how many cases. */
struct tally {
    char *a, *b;
    size_t n;
};

/* The changes v[i..end) (one call's) by their two outcomes, in order of first
 * appearance: *nt entries, malloc'ed (tally_free); NULL with *nt 0 if out of memory. */
static struct tally *tally_run(const struct change *v, size_t i, size_t end, size_t *nt)
{
    struct tally *t = calloc(end - i, sizeof *t);
    *nt = 0;
    for (; t && i < end; i++) {
        char *a = cts_diff_outcome(v[i].a), *b = cts_diff_outcome(v[i].b);
        size_t k = 0;
        while (k < *nt && (strcmp(S(t[k].a), S(a)) || strcmp(S(t[k].b), S(b))))
            k++;
        if (k < *nt) {
            free(a);
            free(b);
        } else {
            t[k].a = a;
            t[k].b = b;
            ++*nt;
        }
        t[k].n++;
    }
    return t;
}

static void tally_free(struct tally *t, size_t nt)
{
    for (size_t k = 0; t && k < nt; k++) {
        free(t[k].a);
        free(t[k].b);
    }
    free(t);
}

/* The length of the call token (an id's first segment) of id. */
static size_t call_len(const char *id)
{
    const char *dot = strchr(id, '.');
    return dot ? (size_t)(dot - id) : strlen(id);
}

/* The cases v[i..end) that share v[i]'s call (ids sorted: they stand together). */
static size_t call_run(const struct change *v, size_t i, size_t end)
{
    size_t n = call_len(v[i].id), j = i + 1;
    while (j < end && call_len(v[j].id) == n && !strncmp(v[j].id, v[i].id, n))
        j++;
    return j;
}

static size_t group_end(const struct comparison *cmp, size_t i, size_t *idw)
{
    size_t end = i;
    *idw = 0;
    while (end < cmp->n && cmp->v[end].group == cmp->v[i].group) {
        size_t w = strlen(cmp->v[end].id);
        *idw = w > *idw ? w : *idw;
        end++;
    }
    return end;
}

/* A group of changes v[i..end) as text: counted by call, tallied, or listed. */
static void text_group(const struct comparison *cmp, size_t i, size_t end, size_t idw, FILE *f)
{
    enum group g = cmp->v[i].group;
    if (counted_by_call(cmp, g)) {
        fputs("  by call:", f);
        for (size_t j; i < end; i = j) {
            j = call_run(cmp->v, i, end);
            fprintf(f, " %.*s %zu%s", (int)call_len(cmp->v[i].id), cmp->v[i].id, j - i, j < end ? "," : "");
        }
        fputs("\n  (every id: --format csv)\n", f);
    } else if (tallied(cmp, g)) {
        fputs("  by call and change (every id: --format csv):\n", f);
        for (size_t j, nt; i < end; i = j) {
            j = call_run(cmp->v, i, end);
            struct tally *t = tally_run(cmp->v, i, j, &nt);
            for (size_t k = 0; k < nt; k++)
                fprintf(f, "  %-*.*s  %s -> %s  %zu\n", (int)idw, (int)call_len(cmp->v[i].id), cmp->v[i].id,
                        S(t[k].a), S(t[k].b), t[k].n);
            tally_free(t, nt);
        }
    } else {
        for (; i < end; i++) {
            const struct change *ch = &cmp->v[i];
            char *oa = cts_diff_outcome(ch->a), *ob = cts_diff_outcome(ch->b), *nt = note(ch, "->");
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

void cts_diff_render_text(const struct diff_doc *d, FILE *f)
{
    cts_diff_env_text(d, f);

    for (size_t k = 0; k + 1 < d->nm; k++) {
        const struct comparison *cmp = &d->cmp[k];
        char title[32];
        fprintf(f, "\nA -> %c: %zu case%s changed\n ", letter(cmp->later), total_changed(cmp),
                total_changed(cmp) == 1 ? "" : "s");
        for (int g = 0; g < groups_shown(cmp); g++)
            fprintf(f, " %s %zu%s", group_title(g, cmp->later, title, sizeof title), cmp->count[g],
                    g + 1 < groups_shown(cmp) ? "," : "\n");
        for (size_t i = 0, end, idw; i < cmp->n; i = end) {
            enum group g = cmp->v[i].group;
            end = group_end(cmp, i, &idw);
            fprintf(f, "\n%s (%zu)\n", group_title(g, cmp->later, title, sizeof title), cmp->count[g]);
            text_group(cmp, i, end, idw, f);
        }
        cts_diff_th_text(cmp, f);
    }
}

/* outcome() as a table cell: the symbol (from the matrix) escaped, the
 * status and conformance (known names) and the brackets as they are. */
void cts_diff_md_outcome(FILE *f, const struct dcase *c)
{
    fputs("| ", f);
    if (!c) {
        fputs("absent ", f);
        return;
    }
    const char *st = S(cts_diff_status_of(c)), *cf = cts_diff_conformance(c);
    if (strcmp(st, "PASS") || !c->symbol)
        fprintf(f, "%s%s", st, c->symbol ? " " : "");
    if (c->symbol)
        cts_md_text(f, c->symbol);
    if (cf)
        fprintf(f, " [%s]", cf);
    fputc(' ', f);
}

/* A group of changes v[i..end) in Markdown, its heading first: counted by call, tallied, or a table a case. */
static void md_group(const struct comparison *cmp, size_t i, size_t end, FILE *f)
{
    enum group g = cmp->v[i].group;
    char title[32], lb[2] = {letter(cmp->later), 0};
    fprintf(f, "\n### %s (%zu)\n\n", group_title(g, cmp->later, title, sizeof title), cmp->count[g]);
    if (counted_by_call(cmp, g)) {
        fputs("Counted by call (every id: `--format csv`).\n\n| call | cases |\n|---|---:|\n", f);
        for (size_t j; i < end; i = j) {
            j = call_run(cmp->v, i, end);
            fprintf(f, "| `%.*s` | %zu |\n", (int)call_len(cmp->v[i].id), cmp->v[i].id, j - i);
        }
        return;
    }
    if (tallied(cmp, g)) {
        fprintf(f, "Counted by call and change (every id: `--format csv`).\n\n| call | A | %s | cases |\n"
                   "|---|---|---|---:|\n", lb);
        for (size_t j, nt; i < end; i = j) {
            j = call_run(cmp->v, i, end);
            struct tally *t = tally_run(cmp->v, i, j, &nt);
            for (size_t k = 0; k < nt; k++) {
                fprintf(f, "| `%.*s` ", (int)call_len(cmp->v[i].id), cmp->v[i].id);
                cts_diff_md_cell(f, t[k].a);
                cts_diff_md_cell(f, t[k].b);
                fprintf(f, "| %zu |\n", t[k].n);
            }
            tally_free(t, nt);
        }
        return;
    }
    fprintf(f, "| case | A | %s | note |\n|---|---|---|---|\n", lb);
    for (; i < end; i++) {
        const struct change *ch = &cmp->v[i];
        char *nt = note(ch, "→");
        fputs("| ", f);
        cts_md_code(f, ch->id, 1);
        fputc(' ', f);
        cts_diff_md_outcome(f, ch->a);
        cts_diff_md_outcome(f, ch->b);
        cts_diff_md_cell(f, nt); /* known names and numbers only */
        fputs("|\n", f);
        free(nt);
    }
}

void cts_diff_render_md(const struct diff_doc *d, FILE *f)
{
    cts_diff_env_md(d, f);
    for (size_t k = 0; k + 1 < d->nm; k++) {
        const struct comparison *cmp = &d->cmp[k];
        char title[32], lb[2] = {letter(cmp->later), 0};
        fprintf(f, "\n## A → %s: %zu case%s changed\n\n| group | cases |\n|---|---:|\n", lb, total_changed(cmp),
                total_changed(cmp) == 1 ? "" : "s");
        for (int g = 0; g < groups_shown(cmp); g++)
            fprintf(f, "| %s | %zu |\n", group_title(g, cmp->later, title, sizeof title), cmp->count[g]);
        for (size_t i = 0, end, idw; i < cmp->n; i = end) {
            end = group_end(cmp, i, &idw);
            md_group(cmp, i, end, f);
        }
        cts_diff_th_md(cmp, f);
    }
}

void cts_diff_render_csv(const struct diff_doc *d, FILE *f)
{
    static const char *const head[] = {"group",    "id",       "status_a",      "status_b",
                                       "symbol_a", "symbol_b", "conformance_a", "conformance_b"};
    int many = d->nm > 2;
    if (many)
        cts_diff_csv_field(f, "matrix", 0);
    for (int i = 0; i < 8; i++)
        cts_diff_csv_field(f, head[i], i == 7);
    for (size_t k = 0; k + 1 < d->nm; k++) {
        const struct comparison *cmp = &d->cmp[k];
        for (size_t i = 0; i < cmp->n; i++) {
            const struct change *ch = &cmp->v[i];
            if (many)
                cts_diff_csv_field(f, d->paths[cmp->later], 0);
            cts_diff_csv_field(f, group_names[ch->group], 0); /* "only in B": B is the later matrix */
            cts_diff_csv_field(f, ch->id, 0);
            cts_diff_csv_field(f, cts_diff_status_of(ch->a), 0);
            cts_diff_csv_field(f, cts_diff_status_of(ch->b), 0);
            cts_diff_csv_field(f, ch->a ? ch->a->symbol : NULL, 0);
            cts_diff_csv_field(f, ch->b ? ch->b->symbol : NULL, 0);
            cts_diff_csv_field(f, cts_diff_conformance(ch->a), 0);
            cts_diff_csv_field(f, cts_diff_conformance(ch->b), 1);
        }
    }
}
