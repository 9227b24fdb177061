/* sync-cts diff: the threshold rows that changed (docs/matrix.md,
 * `thresholds`), as text, Markdown and CSV. */
#define _GNU_SOURCE
#include "diff_int.h"
#include "report.h"
#include "spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define dupf cts_diff_dupf
#define S(x) ((x) ? (x) : "")

static char letter(size_t i) { return (char)('A' + i); }

/* ---- thresholds (docs/matrix.md, `thresholds`) ------------------------------- */

/* An outcome of the search as shown: "PASS:Qc" as "Qc", "VARIES:A/W" as
 * "VARIES A/W", "NOTSUPP" as it is, "" as "undecided". */
static char *th_outcome(const char *o)
{
    const char *colon = strchr(o, ':');
    if (!*o)
        return dupf("undecided");
    if (!colon)
        return dupf("%s", o);
    if (!strncmp(o, "PASS:", 5))
        return dupf("%s", colon + 1);
    return dupf("%.*s %s", (int)(colon - o), o, colon + 1);
}

/* One flip: "Qc up to 2,097,152 / W from 2,097,153". */
static char *th_flip(const json_t *fl)
{
    char gb[32], ga[32];
    char *below = th_outcome(cts_diff_flip_outcome(fl, "below"));
    char *above = th_outcome(cts_diff_flip_outcome(fl, "above"));
    char *s = dupf("%s up to %s / %s from %s", S(below), cts_grouped(gb, sizeof gb, cts_diff_flip_bytes(fl, "below")),
                   S(above), cts_grouped(ga, sizeof ga, cts_diff_flip_bytes(fl, "above")));
    free(below);
    free(above);
    return s;
}

/* A row's flips, "; " between them, or "no flip up to 268,435,456" (the row's limit). */
static char *th_flips(const json_t *row)
{
    const json_t *flips = json_object_get(row, "flips");
    char g[32];
    if (!json_array_size(flips))
        return dupf("no flip up to %s",
                    cts_grouped(g, sizeof g, (long long)json_integer_value(json_object_get(row, "max_bytes"))));
    char *s = NULL;
    for (size_t i = 0; i < json_array_size(flips); i++) {
        char *fl = th_flip(json_array_get(flips, i));
        char *t = dupf("%s%s%s", S(s), s ? "; " : "", S(fl));
        free(fl);
        free(s);
        s = t;
    }
    return s;
}

/* What changed, without the row: "the flip from Qc to W moved from 2,097,153
 * to 1,048,577 bytes" (the `above` sizes), "flips changed", "only in A" or
 * "only in " the later matrix's letter. */
static char *th_what(const struct th_change *ch, char later)
{
    if (ch->kind != TH_MOVED)
        return ch->kind == TH_FLIPS ? dupf("flips changed")
                                    : dupf("only in %c", ch->kind == TH_ROW_ONLY_A ? 'A' : later);
    const json_t *x = json_array_get(json_object_get(ch->a, "flips"), ch->flip);
    const json_t *y = json_array_get(json_object_get(ch->b, "flips"), ch->flip);
    char gx[32], gy[32];
    char *from = th_outcome(cts_diff_flip_outcome(x, "below")), *to = th_outcome(cts_diff_flip_outcome(x, "above"));
    char *s = dupf("the flip from %s to %s moved from %s to %s bytes", S(from), S(to),
                   cts_grouped(gx, sizeof gx, cts_diff_flip_bytes(x, "above")),
                   cts_grouped(gy, sizeof gy, cts_diff_flip_bytes(y, "above")));
    free(from);
    free(to);
    return s;
}

/* Where only one of the two has a thresholds section, the line saying which; 1 if said (or neither has one). */
static int th_only(const struct comparison *cmp, FILE *f)
{
    const struct th_comparison *t = &cmp->th;
    if (t->have == TH_ONLY_A || t->have == TH_ONLY_B)
        fprintf(f, "\nthresholds: only in %c\n", t->have == TH_ONLY_A ? 'A' : letter(cmp->later));
    return t->have != TH_BOTH;
}

/* After a comparison's case groups: "thresholds A -> B: N changed", then a line a change. */
void cts_diff_th_text(const struct comparison *cmp, FILE *f)
{
    if (th_only(cmp, f))
        return;
    fprintf(f, "\nthresholds A -> %c: %zu changed\n", letter(cmp->later), cmp->th.n);
    for (size_t i = 0; i < cmp->th.n; i++) {
        const struct th_change *ch = &cmp->th.v[i];
        char *what = th_what(ch, letter(cmp->later));
        char *fa = ch->kind == TH_FLIPS ? th_flips(ch->a) : NULL, *fb = ch->kind == TH_FLIPS ? th_flips(ch->b) : NULL;
        if (ch->kind == TH_FLIPS)
            fprintf(f, "  %s: %s: %s -> %s\n", ch->row, S(what), S(fa), S(fb));
        else
            fprintf(f, "  %s: %s\n", ch->row, S(what));
        free(what);
        free(fa);
        free(fb);
    }
}

/* After a comparison's case groups: "## Thresholds A → B: N changed", then a table of the changes. */
void cts_diff_th_md(const struct comparison *cmp, FILE *f)
{
    if (th_only(cmp, f))
        return;
    fprintf(f, "\n## Thresholds A → %c: %zu changed\n", letter(cmp->later), cmp->th.n);
    if (cmp->th.n)
        fprintf(f, "\n| row | A | %c | change |\n|---|---|---|---|\n", letter(cmp->later));
    for (size_t i = 0; i < cmp->th.n; i++) {
        const struct th_change *ch = &cmp->th.v[i];
        char *fa = ch->a ? th_flips(ch->a) : dupf("absent"), *fb = ch->b ? th_flips(ch->b) : dupf("absent");
        char *what = th_what(ch, letter(cmp->later));
        fputs("| ", f);
        cts_md_code(f, ch->row, 1);
        fputc(' ', f);
        cts_diff_md_cell(f, fa);
        cts_diff_md_cell(f, fb);
        cts_diff_md_cell(f, what);
        fputs("|\n", f);
        free(fa);
        free(fb);
        free(what);
    }
}

/* --section thresholds: one line a change (a row's flips empty where it is
 * absent; "only in B": B is the later matrix, named first where there are several). */
void cts_diff_th_csv(const struct diff_doc *d, FILE *f)
{
    static const char *const head[] = {"row", "flips_a", "flips_b", "change"};
    int many = d->nm > 2;
    if (many)
        cts_diff_csv_field(f, "matrix", 0);
    for (int i = 0; i < 4; i++)
        cts_diff_csv_field(f, head[i], i == 3);
    for (size_t k = 0; k + 1 < d->nm; k++) {
        const struct th_comparison *t = &d->cmp[k].th;
        for (size_t i = 0; i < t->n; i++) {
            const struct th_change *ch = &t->v[i];
            char *fa = ch->a ? th_flips(ch->a) : NULL, *fb = ch->b ? th_flips(ch->b) : NULL, *what = th_what(ch, 'B');
            if (many)
                cts_diff_csv_field(f, d->paths[d->cmp[k].later], 0);
            cts_diff_csv_field(f, ch->row, 0);
            cts_diff_csv_field(f, fa, 0);
            cts_diff_csv_field(f, fb, 0);
            cts_diff_csv_field(f, what, 1);
            free(fa);
            free(fb);
            free(what);
        }
    }
}
