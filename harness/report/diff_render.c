/* sync-cts diff: the comparison shown (diff.c reads and compares the
 * matrices): each changed case's outcome and note, the environments side by
 * side, the threshold changes, and the whole as text, Markdown or CSV.  Strings come from dupf, which
 * sets cts_diff_oom where memory ran out; nothing is written then. */
#define _GNU_SOURCE
#include "diff_int.h"
#include "report.h"
#include "spec.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const group_names[G_COUNT] = {
    "regressed", "fixed", "newly NOTSUPP", "no longer NOTSUPP", "changed", "only in A", "only in B",
    "within known variability"};

int cts_diff_oom; /* set when a string could not be allocated; checked before anything is written */

/* A formatted string to free; NULL (and cts_diff_oom) if memory ran out. */
char *cts_diff_dupf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0) {
        s = NULL;
        cts_diff_oom = 1;
    }
    va_end(ap);
    return s;
}
#define dupf cts_diff_dupf
#define S(x) ((x) ? (x) : "")

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

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
        cts_diff_oom = 1;
    return s;
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
        const struct cts_outcome *o = &cts_outcomes[k];
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

/* ---- the environment, side by side --------------------------------------- */

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

#define ENV_VARIABLES "environment.settings.environment_variables"

/* A row: the value at `path` in each matrix, or where `var` is given, the
 * variable of that name in the object at `path` (ENV_VARIABLES). */
static void env_add_row(struct env_table *t, const char *label, json_t **m, const char *path, const char *var)
{
    size_t r = t->rows++;
    t->label[r] = dupf("%s", label);
    t->differs[r] = 0;
    for (size_t c = 0; c < t->cols; c++) {
        char *v;
        if (var)
            v = value_text(json_object_get(lookup(m[c], path), var));
        else if (!strcmp(path, "run.counts"))
            v = counts_text(lookup(m[c], path));
        else if (!lookup(m[c], path))
            v = dupf("%s", CTS_DIFF_NOT_RECORDED);
        else
            v = value_text(lookup(m[c], path));
        t->cell[r * t->cols + c] = v;
        if (c && strcmp(S(v), S(t->cell[r * t->cols])))
            t->differs[r] = 1;
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

int cts_diff_env_table_build(struct env_table *t, json_t **m, size_t nm)
{
    static const struct {
        const char *label, *path;
    } before[] = {{"GPU", "environment.gpu.name"},
                  {"driver", "environment.versions.driver"},
                  {"driver API", "environment.versions.driver_api"},
                  {"runtime", "environment.versions.runtime"},
                  {"toolkit", "environment.versions.toolkit"},
                  {"default stream", "environment.settings.default_stream"},
                  {"device schedule", "environment.settings.device_schedule"},
                  {"module loading", "environment.settings.module_loading"},
                  {"hold", "run.harness.hold"}},
      after[] = {{"suite revision", "environment.suite_revision"}, {"date", "run.date"}, {"counts", "run.counts"}};
    const size_t nb = sizeof before / sizeof *before, na = sizeof after / sizeof *after;

    /* The CUDA_* variables set in any of the matrices, once each, sorted. */
    json_t *vars = json_object();
    if (!vars)
        return -1;
    for (size_t i = 0; i < nm; i++) {
        const char *k;
        json_t *v;
        json_object_foreach(lookup(m[i], ENV_VARIABLES), k, v)
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
    for (size_t i = 0; i < nb; i++) {
        size_t have = 0; /* a setting no matrix records (made before it was) is no row */
        for (size_t c = 0; c < nm; c++)
            have += lookup(m[c], before[i].path) != NULL;
        if (have)
            env_add_row(t, before[i].label, m, before[i].path, NULL);
    }
    for (size_t i = 0; i < nv; i++)
        env_add_row(t, names[i], m, ENV_VARIABLES, names[i]);
    for (size_t i = 0; i < na; i++)
        env_add_row(t, after[i].label, m, after[i].path, NULL);
    free(names);
    json_decref(vars);
    return 0;
}

void cts_diff_env_table_free(struct env_table *t)
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

/* The matrices by letter and their environments side by side, as text. */
void cts_diff_env_text(const struct diff_doc *d, FILE *f)
{
    for (size_t i = 0; i < d->nm; i++)
        fprintf(f, "%c  %s%s\n", letter(i), d->paths[i], i || d->series ? "" : "  (baseline)");
    /* The environment: label column, then one column per matrix; '*' marks rows that differ. */
    const struct env_table *t = &d->env;
    int lw = 0, *cw = calloc(t->cols, sizeof *cw);
    if (!cw) {
        cts_diff_oom = 1;
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
}

/* The end of v[i]'s group (changes sorted by group), and its longest id in *idw. */
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

/* A Markdown table cell: text from the matrices, escaped (cts_md_text). */
void cts_diff_md_cell(FILE *f, const char *s)
{
    fputs("| ", f);
    cts_md_text(f, S(s));
    fputc(' ', f);
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

/* The title, the matrices by letter and their environments side by side, as Markdown. */
void cts_diff_env_md(const struct diff_doc *d, FILE *f)
{
    fputs(d->series ? "# sync-cts diff --series\n\n" : "# sync-cts diff\n\n", f);
    for (size_t i = 0; i < d->nm; i++) {
        fprintf(f, "- **%c**%s: ", letter(i), i || d->series ? "" : " (baseline)");
        cts_md_code(f, d->paths[i], 0);
        fputc('\n', f);
    }
    fputs("\n", f);
    const struct env_table *t = &d->env;
    cts_diff_md_cell(f, "");
    for (size_t c = 0; c < t->cols; c++) {
        char l[2] = {letter(c), 0};
        cts_diff_md_cell(f, l);
    }
    cts_diff_md_cell(f, "differs");
    fputs("|\n", f);
    for (size_t c = 0; c < t->cols + 2; c++)
        fputs("|---", f);
    fputs("|\n", f);
    for (size_t r = 0; r < t->rows; r++) {
        cts_diff_md_cell(f, t->label[r]);
        for (size_t c = 0; c < t->cols; c++)
            cts_diff_md_cell(f, t->cell[r * t->cols + c]);
        cts_diff_md_cell(f, t->differs[r] ? "yes" : "");
        fputs("|\n", f);
    }
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

/* One CSV field and what ends it. */
void cts_diff_csv_field(FILE *f, const char *s, int last)
{
    cts_csv_text(f, S(s));
    fputs(last ? "\r\n" : ",", f);
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
