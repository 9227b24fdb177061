/* sync-cts diff --series: the matrices, in the order given, as a series (one
 * GPU measured with ascending runtimes, say).  After the environments side by
 * side comes one table: each case whose outcome is not the same in every
 * matrix, by id, its outcome in each matrix (as diff shows a case; "absent"
 * where the matrix lacks it), and "changed at": each matrix whose outcome
 * differs from the one before.  A case absent from some matrices and the
 * same wherever present is counted, not listed (the suite's coverage grew).
 * A matrix is named by the one environment row that differs along the
 * series, apart from the suite revision, the date and the counts ("runtime
 * 12.8"), where there is exactly one and its values are all different; else
 * by its letter.  Built from diff.c's summaries, one merge of the id-sorted
 * matrices; rendered as text, Markdown or CSV. */
#define _GNU_SOURCE
#include "diff_int.h"

#include <stdlib.h>
#include <string.h>

#define S(x) ((x) ? (x) : "")

/* Whether the outcome differs from one matrix to the next (a case absent from one only counts too). */
static int step_differs(const struct dcase *p, const struct dcase *q)
{
    if (!p || !q)
        return !p != !q;
    return cts_diff_outcome_differs(p, q);
}

static int row_changes(const struct dcase *const *cell, size_t nm)
{
    for (size_t k = 1; k < nm; k++)
        if (step_differs(cell[k - 1], cell[k]))
            return 1;
    return 0;
}

/* Whether the outcome differs between matrices that hold the case (its
 * absence from some is the suite's coverage, not a change). */
static int outcome_changes(const struct dcase *const *cell, size_t nm)
{
    const struct dcase *prev = NULL;
    for (size_t k = 0; k < nm; k++) {
        if (!cell[k])
            continue;
        if (prev && cts_diff_outcome_differs(prev, cell[k]))
            return 1;
        prev = cell[k];
    }
    return 0;
}

/* Rows a and b hold the same text in every matrix (the runtime loaded and
 * the toolkit built against, when each build uses its own runtime). */
static int same_cells(const struct env_table *t, size_t a, size_t b)
{
    for (size_t c = 0; c < t->cols; c++)
        if (strcmp(S(t->cell[a * t->cols + c]), S(t->cell[b * t->cols + c])))
            return 0;
    return 1;
}

/* The one environment row that tells the matrices apart, or -1 (a row that
 * repeats an earlier one cell for cell adds nothing and is not counted, nor
 * one that some matrix, made before it was recorded, lacks). */
static long label_row(const struct env_table *t)
{
    static const char *const not_settings[] = {"suite revision", "date", "counts"};
    long row = -1;
    for (size_t r = 0; r < t->rows; r++) {
        int skip = !t->differs[r];
        for (size_t i = 0; i < 3 && !skip; i++)
            skip = !strcmp(S(t->label[r]), not_settings[i]);
        if (!skip && row >= 0 && same_cells(t, (size_t)row, r))
            skip = 1;
        for (size_t c = 0; c < t->cols && !skip; c++) /* a setting older matrices lack tells nothing */
            skip = !strcmp(S(t->cell[r * t->cols + c]), CTS_DIFF_NOT_RECORDED);
        if (skip)
            continue;
        if (row >= 0)
            return -1;
        row = (long)r;
    }
    for (size_t a = 0; row >= 0 && a < t->cols; a++)
        for (size_t b = a + 1; b < t->cols; b++)
            if (!strcmp(S(t->cell[row * t->cols + a]), S(t->cell[row * t->cols + b])))
                return -1;
    return row;
}

static int add_row(struct series *s, const char *id, const struct dcase *const *cell, size_t nm)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        const char **id2 = realloc(s->id, cap * sizeof *id2);
        if (id2)
            s->id = id2;
        const struct dcase **c2 = realloc(s->cell, cap * nm * sizeof *c2);
        if (c2)
            s->cell = c2;
        if (!id2 || !c2)
            return -1;
        s->cap = cap;
    }
    s->id[s->n] = id;
    memcpy(&s->cell[s->n * nm], cell, nm * sizeof *cell);
    s->n++;
    return 0;
}

/* Fills d->ser: the labels, and the changing cases by one merge of the
 * id-sorted summaries.  -1 where memory ran out. */
int cts_diff_series_build(struct diff_doc *d)
{
    size_t nm = d->nm, pos[26] = {0}, len[26];
    const struct dcase *v[26], *cell[26];
    struct series *s = &d->ser;
    if (!(s->label = calloc(nm, sizeof *s->label)))
        return -1;
    long r = label_row(&d->env);
    for (size_t k = 0; k < nm; k++) {
        s->label[k] = r >= 0 ? cts_diff_dupf("%s %s", d->env.label[r], d->env.cell[r * nm + k])
                             : cts_diff_dupf("%c", (char)('A' + k));
        if (!s->label[k])
            return -1;
        v[k] = cts_diff_cases(d, k, &len[k]);
    }
    for (;;) {
        const char *id = NULL;
        for (size_t k = 0; k < nm; k++)
            if (pos[k] < len[k] && (!id || strcmp(v[k][pos[k]].id, id) < 0))
                id = v[k][pos[k]].id;
        if (!id)
            return 0;
        for (size_t k = 0; k < nm; k++) {
            int here = pos[k] < len[k] && !strcmp(v[k][pos[k]].id, id);
            cell[k] = here ? &v[k][pos[k]++] : NULL;
        }
        if (!row_changes(cell, nm))
            continue;
        if (!outcome_changes(cell, nm))
            s->coverage++; /* absent from some, the same wherever present: counted, not listed */
        else if (add_row(s, id, cell, nm))
            return -1;
    }
}

void cts_diff_series_free(struct diff_doc *d)
{
    for (size_t k = 0; d->ser.label && k < d->nm; k++)
        free(d->ser.label[k]);
    free(d->ser.label);
    free(d->ser.id);
    free(d->ser.cell);
}

/* Row i's "changed at": the labels of the matrices where its outcome differs from the previous one. */
static char *changed_at(const struct diff_doc *d, size_t i)
{
    const struct dcase *const *cell = &d->ser.cell[i * d->nm];
    char *s = NULL;
    for (size_t k = 1; k < d->nm; k++) {
        if (!step_differs(cell[k - 1], cell[k]))
            continue;
        char *t = cts_diff_dupf("%s%s%s", S(s), s ? ", " : "", d->ser.label[k]);
        free(s);
        s = t;
    }
    return s;
}

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

void cts_diff_series_text(const struct diff_doc *d, FILE *f)
{
    const struct series *s = &d->ser;
    size_t nm = d->nm, w[27] = {0}; /* w[0]: the ids; w[1 + k]: matrix k */
    cts_diff_env_text(d, f);
    fputs("\nseries ", f);
    for (size_t k = 0; k < nm; k++)
        fprintf(f, "%s%s", k ? " -> " : "", s->label[k]);
    fprintf(f, ": %zu case%s change\n", s->n, plural(s->n));
    if (s->coverage)
        fprintf(f, "(%zu more case%s absent from some matrices, the same wherever present: not listed)\n",
                s->coverage, s->coverage == 1 ? " is" : "s are");
    if (!s->n)
        return;
    char **cells = calloc(s->n * nm, sizeof *cells);
    if (!cells) {
        cts_diff_oom = 1;
        return;
    }
    for (size_t k = 0; k < nm; k++)
        w[1 + k] = strlen(s->label[k]);
    for (size_t i = 0; i < s->n; i++) {
        w[0] = strlen(s->id[i]) > w[0] ? strlen(s->id[i]) : w[0];
        for (size_t k = 0; k < nm; k++) {
            cells[i * nm + k] = cts_diff_outcome(s->cell[i * nm + k]);
            size_t n = strlen(S(cells[i * nm + k]));
            w[1 + k] = n > w[1 + k] ? n : w[1 + k];
        }
    }
    fprintf(f, "\n  %-*s", (int)w[0], "case");
    for (size_t k = 0; k < nm; k++)
        fprintf(f, "  %-*s", (int)w[1 + k], s->label[k]);
    fputs("  changed at\n", f);
    for (size_t i = 0; i < s->n; i++) {
        char *at = changed_at(d, i);
        fprintf(f, "  %-*s", (int)w[0], s->id[i]);
        for (size_t k = 0; k < nm; k++)
            fprintf(f, "  %-*s", (int)w[1 + k], S(cells[i * nm + k]));
        fprintf(f, "  %s\n", S(at));
        free(at);
    }
    for (size_t i = 0; i < s->n * nm; i++)
        free(cells[i]);
    free(cells);
}

void cts_diff_series_md(const struct diff_doc *d, FILE *f)
{
    const struct series *s = &d->ser;
    cts_diff_env_md(d, f);
    fputs("\n## Series ", f);
    for (size_t k = 0; k < d->nm; k++)
        fprintf(f, "%s%s", k ? " → " : "", s->label[k]);
    fprintf(f, ": %zu case%s change\n", s->n, plural(s->n));
    if (s->coverage)
        fprintf(f, "\n%zu more case%s absent from some matrices (the suite's coverage differs), the same wherever "
                   "present: not listed.\n", s->coverage, s->coverage == 1 ? " is" : "s are");
    if (!s->n)
        return;
    fputs("\n| case ", f);
    for (size_t k = 0; k < d->nm; k++)
        cts_diff_md_cell(f, s->label[k]);
    fputs("| changed at |\n", f);
    for (size_t k = 0; k < d->nm + 2; k++)
        fputs("|---", f);
    fputs("|\n", f);
    for (size_t i = 0; i < s->n; i++) {
        char *at = changed_at(d, i);
        fputs("| ", f);
        cts_md_code(f, s->id[i], 1);
        fputc(' ', f);
        for (size_t k = 0; k < d->nm; k++)
            cts_diff_md_outcome(f, s->cell[i * d->nm + k]);
        cts_diff_md_cell(f, at);
        fputs("|\n", f);
        free(at);
    }
}

/* id, the outcome in each matrix (headed by its label), changed_at. */
void cts_diff_series_csv(const struct diff_doc *d, FILE *f)
{
    const struct series *s = &d->ser;
    cts_diff_csv_field(f, "id", 0);
    for (size_t k = 0; k < d->nm; k++)
        cts_diff_csv_field(f, s->label[k], 0);
    cts_diff_csv_field(f, "changed_at", 1);
    for (size_t i = 0; i < s->n; i++) {
        char *at = changed_at(d, i);
        cts_diff_csv_field(f, s->id[i], 0);
        for (size_t k = 0; k < d->nm; k++) {
            char *o = cts_diff_outcome(s->cell[i * d->nm + k]);
            cts_diff_csv_field(f, o, 0);
            free(o);
        }
        cts_diff_csv_field(f, at, 1);
        free(at);
    }
}
