/* Markdown rendering of a matrix: environment, summary, what went wrong,
 * then one table per group (API x direction) whose rows are call variants and
 * whose columns are busy placements (the thresholds section:
 * markdown_thresholds.c).
 *
 * Every string that comes from the matrix is escaped for where it goes
 * (cts_md, markdown_text.c): as text, nothing in it can open raw HTML, an entity, a code
 * span, a link or a table cell (a ']' is escaped only before '(': the
 * quotes' "[...]" stay as they are); in a code span, the delimiter is longer
 * than any run of backticks in it; in an attribute, it is entity-escaped;
 * a link is made only of an http(s) URL with nothing in it to escape. */
#define _GNU_SOURCE
#include "legend.h"
#include "markdown_int.h"
#include "report.h"
#include "spec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define md cts_md

#define str cts_json_str

#define row cts_case_view

/* What a cell shows when there is no symbol. */
static const char *short_status(enum cts_status st)
{
    static const struct cts_words words[] = {{"NOTSUPP", "n/s"},        {"INCONCLUSIVE", "**INC**"},
                                             {"BROKEN", "**BRK**"},     {"TIMEOUT", "**T/O**"},
                                             {"FAIL", "**FAIL**"},      {"CRASH", "**CRASH**"},
                                             {NULL, NULL}};
    return cts_words(words, cts_status_name(st));
}

static int has_verdict(const struct row *r) { return r->status == CTS_PASS || r->status == CTS_VARIES; }
static int deviates(const struct row *r) { return r->conformance == CTS_DEVIATES; }

/* A clause's place in the report: this build's table order (the
 * documentation's order), then clauses this build lacks, by id.  Never the
 * order of the matrix's object, which differs between a matrix just
 * measured and the same matrix read back (keys sorted). */
static int clause_rank(const char *id)
{
    return (int)cts_clause_index(id);
}

static int cmp_clause(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int d = clause_rank(x) - clause_rank(y);
    return d ? d : strcmp(x, y);
}

/* What the clauses of the table (in report order) come to over the cases:
 * how many cases contradict each (a case once), and how many judgements
 * hold, are contradicted or are open.  One pass over the cases. */
struct clause_counts {
    size_t n;
    const char **id;
    const json_t **entry;
    size_t *hits, *yes, *no, *open, *last;
};

static int count_clauses(struct clause_counts *k, const json_t *table, const struct row *rows, size_t n)
{
    memset(k, 0, sizeof *k);
    size_t t = json_object_size(table);
    json_t *index = json_object();
    k->id = calloc(t + 1, sizeof *k->id);
    k->entry = calloc(t + 1, sizeof *k->entry);
    k->hits = calloc(5 * (t + 1), sizeof *k->hits);
    if (!index || !k->id || !k->entry || !k->hits) {
        json_decref(index);
        return -1;
    }
    k->yes = k->hits + (t + 1);
    k->no = k->yes + (t + 1);
    k->open = k->no + (t + 1);
    k->last = k->open + (t + 1);
    const char *cid;
    json_t *cl;
    json_object_foreach((json_t *)table, cid, cl)
        k->id[k->n++] = cid;
    qsort(k->id, k->n, sizeof *k->id, cmp_clause);
    for (size_t c = 0; c < k->n; c++) {
        k->entry[c] = json_object_get(table, k->id[c]);
        if (json_object_set_new(index, k->id[c], json_integer((json_int_t)c))) {
            json_decref(index);
            return -1;
        }
    }
    for (size_t i = 0; i < n; i++)
        for (size_t x = 0; x < json_array_size(rows[i].clauses); x++) {
            struct cts_case_clause e = cts_case_clause(&rows[i], x);
            const json_t *at = json_object_get(index, e.id);
            if (!at)
                continue;
            size_t c = (size_t)json_integer_value(at);
            k->yes[c] += e.holds == CTS_HOLDS_YES;
            k->no[c] += e.holds == CTS_HOLDS_NO;
            k->open[c] += e.holds == CTS_HOLDS_OPEN;
            if (e.holds == CTS_HOLDS_NO && k->last[c] != i + 1) {
                k->hits[c]++;
                k->last[c] = i + 1;
            }
        }
    json_decref(index);
    return 0;
}

static void free_clause_counts(struct clause_counts *k)
{
    free(k->id);
    free(k->entry);
    free(k->hits);
}

/* Conformance counts, with what they mean. */
static void summary_conformance(FILE *f, const struct row *rows, size_t n)
{
    size_t conf = 0, dev = 0, rec = 0;
    for (size_t i = 0; i < n; i++) {
        conf += rows[i].conformance == CTS_CONFORMS;
        dev += rows[i].conformance == CTS_DEVIATES;
        rec += rows[i].conformance == CTS_RECORDED;
    }
    if (conf + dev + rec == 0) {
        fprintf(f, "Not judged against the documentation (run `sync-cts judge` on the JSON).\n\n");
        return;
    }
    fprintf(f, "Against the documentation: %zu CONFORMS (every guarantee that applies held), %zu DEVIATES "
               "(a guarantee was contradicted), %zu RECORDED (the documentation allows either, or says "
               "nothing). Cells of cases that deviate are marked ✗.\n\n", conf, dev, rec);
}

/* The deviations, each with the clauses it contradicts, an anchor, and how
 * many cases each clause is contradicted by.  (A case that deviates counts
 * once under each clause it contradicts.) */
static void deviations(FILE *f, const struct clause_counts *k, const struct row *rows, size_t n)
{
    size_t any = 0;
    for (size_t i = 0; i < n; i++)
        any += deviates(&rows[i]);
    if (!any)
        return;
    fprintf(f, "## Deviations\n\n| clause | cases contradicting it | what it says |\n|---|---:|---|\n");
    for (size_t c = 0; c < k->n; c++)
        if (k->hits[c])
            md(f, "| %L | %z | %t |\n", k->id[c], str(k->entry[c], "url"), k->hits[c], str(k->entry[c], "quote"));
    fprintf(f, "\n| case | cell | contradicts |\n|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        if (!deviates(&rows[i]))
            continue;
        md(f, "| <a id=\"%A\"></a>%T | %t | ", rows[i].id, rows[i].id, rows[i].symbol);
        int first = 1;
        for (size_t x = 0; x < json_array_size(rows[i].clauses); x++) {
            struct cts_case_clause e = cts_case_clause(&rows[i], x);
            if (e.holds == CTS_HOLDS_NO) {
                md(f, "%s%t (%t, %t)", first ? "" : "; ", e.id, e.prediction, e.about);
                first = 0;
            }
        }
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
}

/* Every clause, how many cases it judged, and why none where none can be. */
static void coverage(FILE *f, const json_t *m, const struct clause_counts *k)
{
    if (!k->n)
        return;
    md(f, "## Clauses and coverage\n\n%t.\n\n| clause | where | holds | contradicted | not "
          "observable or open |\n|---|---|---:|---:|---:|\n",
       str(json_object_get(m, "spec"), "documentation"));
    for (size_t c = 0; c < k->n; c++) {
        const json_t *cl = k->entry[c];
        md(f, "| %L | %t | %z | %z | %z", k->id[c], str(cl, "url"), str(cl, "where"), k->yes[c], k->no[c],
           k->open[c]);
        if (k->yes[c] + k->no[c] + k->open[c] == 0)
            md(f, " (no case%s%t)", *str(cl, "no_case") ? ": " : "", str(cl, "no_case"));
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
}

/* The heading, and the environment the matrix was measured in. */
static void environment(FILE *f, const json_t *m)
{
    const json_t *env = json_object_get(m, "environment");
    const json_t *run = json_object_get(m, "run");
    struct cts_env_view e;
    cts_env_view(&e, m);

    md(f, "# cuda-sync-cts matrix: %t, driver %t (CUDA %t), runtime %t\n\n", e.gpu, e.driver, e.driver_api,
       e.runtime);
    fprintf(f, "Generated from the JSON matrix beside this file; the JSON is the record.\n\n");
    fprintf(f, "| | |\n|---|---|\n");
    md(f, "| GPU | %t (compute capability %t), %t |\n", e.gpu, e.compute_capability, e.uuid);
    char devices[1024];
    if (cts_devices_words(m, devices, sizeof devices) == 0) /* the peer family's two devices, and more */
        md(f, "| Devices | %t |\n", devices);
    md(f, "| Driver | %t; driver API version %t |\n", e.driver, e.driver_api);
    md(f, "| Runtime | cudart %t, built with toolkit %t |\n", e.runtime, e.toolkit);
    md(f, "| Settings | default stream %t; schedule %t", e.default_stream, e.schedule);
    if (*e.module_loading) /* recorded from 2026-11 on */
        md(f, "; module loading %t", e.module_loading);
    if (*e.hold) /* recorded from 3b83165f98b2 on */
        md(f, "; work held by %t", e.hold);
    fprintf(f, " |\n");
    {
        const char *k;
        json_t *v;
        int any = 0;
        fprintf(f, "| Environment | ");
        json_object_foreach((json_t *)e.variables, k, v)
            if (json_is_string(v))
                md(f, "%s%t=%t", any++ ? ", " : "", k, json_string_value(v));
        fprintf(f, "%s |\n", any ? "" : "no CUDA_* variable set");
    }
    {
        const json_t *a = json_object_get(env, "attributes");
        fprintf(f, "| Attributes | asyncEngineCount %lld, concurrentKernels %lld, "
                   "pageableMemoryAccess %lld, concurrentManagedAccess %lld |\n",
                (long long)json_integer_value(json_object_get(a, "asyncEngineCount")),
                (long long)json_integer_value(json_object_get(a, "concurrentKernels")),
                (long long)json_integer_value(json_object_get(a, "pageableMemoryAccess")),
                (long long)json_integer_value(json_object_get(a, "concurrentManagedAccess")));
    }
    md(f, "| Run | %t, %f s wall, %d repetitions a case, suite %t |\n\n", e.date,
       json_number_value(json_object_get(run, "wall_s")), (long long)json_integer_value(json_object_get(run, "repeat")),
       e.suite_revision);
}

/* The cases that FAILed or have no verdict, with their reasons. */
static void failed_cases(FILE *f, const struct row *rows, size_t n)
{
    fprintf(f, "## Cases without a verdict or that failed\n\n| case | status | reason |\n|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        if (!has_verdict(&rows[i]) && rows[i].status != CTS_NOTSUPP)
            md(f, "| %T | %t | %t |\n", rows[i].id, cts_status_name(rows[i].status), rows[i].reason);
    }
    fprintf(f, "\n");
}

static void varying_cases(FILE *f, const struct row *rows, size_t n)
{
    fprintf(f, "## Cases whose repetitions differed (VARIES)\n\nEvery repetition was proven; "
               "the product behaved differently from one to the next.\n\n"
               "| case | symbols | how |\n|---|---|---|\n");
    for (size_t i = 0; i < n; i++)
        if (rows[i].status == CTS_VARIES)
            md(f, "| %T | %T | %t |\n", rows[i].id, rows[i].symbol, rows[i].reason);
    fprintf(f, "\n");
}

/* Each reason a case is not supported, once, with an example. */
static void unsupported_cases(FILE *f, const struct row *rows, size_t n)
{
    fprintf(f, "## Not supported here\n\n");
    const char *last = NULL;
    for (size_t i = 0; i < n; i++)
        if (rows[i].status == CTS_NOTSUPP && (!last || strcmp(last, rows[i].reason))) {
            last = rows[i].reason;
            md(f, "- %t (e.g. %C)\n", last, rows[i].id);
        }
    fprintf(f, "\n");
}

static void cell_legend(FILE *f)
{
    fprintf(f, "## How to read a cell\n\n"
               "Each cell is one case: the call of its row issued while a gate kernel held the busy "
               "placement of its column. Every letter is proven by the latch, not guessed from a time.\n\n"
               "| symbol | meaning |\n|---|---|\n");
    for (size_t i = 0; i < cts_legend_rows(); i++)
        fprintf(f, "| %s | %s |\n", cts_legend_row(i)->symbols, cts_legend_row(i)->meaning);
    fprintf(f, "\n`idle µs` is the median time inside the same call on an idle GPU.\n\n");
}

/* The capture family's table: a row a calling-thread mode and capturing
 * stream, a column a placement (its legality table for one call, one mode). */
static void capture_heading(FILE *f, const struct row *first)
{
    const char *dir = first->direction, *var = first->variant;
    md(f, "## %t — %t%s%t%s%t\n\n| by mode | memory | capturing stream | call µs |", first->group, first->function,
       *var ? " " : "", var, *dir ? ", " : "", cts_dir_words(dir));
    for (int c = 0; c < CTS_CAPTURE_COLUMNS; c++)
        fprintf(f, " %s |", cts_capture_columns[c]);
    fprintf(f, "\n|---|---|---|---:|");
    for (int c = 0; c < CTS_CAPTURE_COLUMNS; c++)
        fprintf(f, ":-:|");
    fprintf(f, "\n");
}

/* A group's heading (from its first case) and its table's head. */
static void group_heading(FILE *f, const struct row *first)
{
    if (*first->capture) {
        capture_heading(f, first);
        return;
    }
    const char *dir = first->direction, *var = first->variant;
    md(f, "## %t — %t%s%t%s%t\n\n", first->group, first->function, *var ? " " : "", var, *dir ? ", " : "",
       cts_dir_words(dir));
    /* The overlap family's groups: B's operation where a call has its memory, size and kind. */
    fprintf(f, *first->with ? "| with | op stream | host µs |" : "| memory | size | kind | op stream | idle µs |");
    struct cts_columns cols = cts_columns_of(first);
    for (int c = 0; c < cols.n; c++)
        fprintf(f, " busy %s |", cols.names[c]);
    fprintf(f, *first->with ? "\n|---|---|---:|" : "\n|---|---|---|---|---:|");
    for (int c = 0; c < cols.n; c++)
        fprintf(f, ":-:|");
    fprintf(f, "\n");
}

/* The table's row of the call variant of rows[r], from the cases r.. (before
 * j) of that variant.  Returns the first case after them. */
static size_t group_row(FILE *f, const struct row *rows, size_t r, size_t j)
{
    const struct row *row = &rows[r];
    size_t e = r;
    int capture = *row->capture != '\0';
    struct cts_columns cols = cts_columns_of(row);
    int ncols = cols.n;
    const struct row *cells[CTS_MAX_COLUMNS] = {0};
    while (e < j && cts_same_call_variant(&rows[e], row)) {
        int col = cts_column_in(cols, rows[e].busy);
        if (col < ncols)
            cells[col] = &rows[e];
        e++;
    }
    if (capture) /* a lent call's memory and size (the capture family's own calls have none) */
        md(f, "| %t | %t%s%t | %t | ", row->capture_by, row->memory, *row->memory && *row->size_label ? " " : "",
           row->size_label, row->op_stream);
    else if (*row->with)
        md(f, "| %t | %t | ", row->with, row->op_stream);
    else
        md(f, "| %t | %t | %t | %t | ", row->memory, row->size_label, row->kind, row->op_stream);
    if (!isnan(row->idle_us))
        fprintf(f, "%.1f |", row->idle_us);
    else
        fprintf(f, " |");
    for (int c = 0; c < ncols; c++) {
        const struct row *x = cells[c];
        if (!x) {
            fprintf(f, " — |");
            continue;
        }
        const char *st = cts_status_name(x->status);
        if (has_verdict(x))
            md(f, " %t", x->symbol);
        else
            md(f, strcmp(st, short_status(x->status)) ? " %s" : " %t", short_status(x->status));
        md(f, "%s |", deviates(x) ? " ✗" : "");
    }
    fprintf(f, "\n");
    return e;
}

/* The cheap calls' latency from 1, 4 and 16 threads at once (evidence): a
 * row for each call, variant and op stream (its busy placements share one
 * measurement), in the cases' order. */
static void latency_row(FILE *f, const struct row *r, size_t klen)
{
    const json_t *ev = json_object_get(r->c, "evidence"), *a = json_object_get(ev, "latency");
    char key[CTS_ID_MAX];
    snprintf(key, sizeof key, "%.*s", (int)klen, r->id);
    md(f, "| %T |", key);
    if (*str(ev, "latency_error")) {
        md(f, " %t | | |\n", str(ev, "latency_error"));
        return;
    }
    for (size_t k = 0; k < CTS_LATENCY_COUNTS; k++) {
        const json_t *x = json_array_get(a, k);
        md(f, " %f / %f |", json_number_value(json_object_get(x, "median_us")),
           json_number_value(json_object_get(x, "p99_us")));
    }
    fputs("\n", f);
}

static void latency_table(FILE *f, const struct row *rows, size_t n)
{
    const struct row **seen = NULL;
    size_t nseen = 0, cap = 0;
    long long calls = 0; /* as the first measured row says */
    for (size_t i = 0; i < n && !calls; i++)
        calls = json_integer_value(json_object_get(
            json_array_get(json_object_get(json_object_get(rows[i].c, "evidence"), "latency"), 0), "calls"));
    for (size_t i = 0; i < n; i++) {
        const json_t *ev = json_object_get(rows[i].c, "evidence"), *a = json_object_get(ev, "latency");
        if (json_array_size(a) != CTS_LATENCY_COUNTS && !*str(ev, "latency_error"))
            continue;
        const char *dot = strrchr(rows[i].id, '.');
        size_t klen = dot ? (size_t)(dot - rows[i].id) : strlen(rows[i].id), s = 0;
        while (s < nseen && !(strncmp(seen[s]->id, rows[i].id, klen) == 0 && seen[s]->id[klen] == '.'))
            s++;
        if (s < nseen)
            continue;
        if (nseen == cap) {
            const struct row **p = realloc(seen, (cap = cap ? 2 * cap : 64) * sizeof *p);
            if (!p)
                break;
            seen = p;
        }
        if (!nseen)
            md(f, "## Latency from several threads\n\nThe cheap calls on an idle GPU, made from 1, 4 and 16 threads at "
                  "once, %d calls each time: median / 99th percentile, in µs (docs/method.md, \"Latency from several "
                  "threads\"). Evidence beside the verdicts: `diff` does not compare it.\n\n"
                  "| call, op stream | 1 thread | 4 threads | 16 threads |\n|---|---:|---:|---:|\n",
               calls);
        seen[nseen++] = &rows[i];
        latency_row(f, &rows[i], klen);
    }
    if (nseen)
        fputs("\n", f);
    free(seen);
}

int cts_render_markdown(const json_t *m, FILE *f)
{
    environment(f, m);

    /* Gather and order the cases. */
    size_t n = 0;
    struct row *rows = cts_sorted_cases(m, &n);
    struct clause_counts k;
    if (!rows || count_clauses(&k, json_object_get(json_object_get(m, "spec"), "clauses"), rows, n)) {
        free(rows);
        return -1;
    }

    size_t count[CTS_STATUS_COUNT] = {0};
    for (size_t i = 0; i < n; i++)
        if ((int)rows[i].status >= 0 && rows[i].status < CTS_STATUS_COUNT)
            count[rows[i].status]++;
    fprintf(f, "## Summary\n\n%zu cases:", n);
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        fprintf(f, "%s %zu %s", s ? "," : "", count[s], cts_status_name(s));
    fprintf(f, ".\n\n");
    summary_conformance(f, rows, n);
    deviations(f, &k, rows, n);

    size_t bad = n - count[CTS_PASS] - count[CTS_VARIES] - count[CTS_NOTSUPP];
    if (bad)
        failed_cases(f, rows, n);
    if (count[CTS_VARIES])
        varying_cases(f, rows, n);
    if (count[CTS_NOTSUPP])
        unsupported_cases(f, rows, n);

    cell_legend(f);

    /* One table per group. */
    for (size_t i = 0; i < n;) {
        const char *group = rows[i].group;
        size_t j = i;
        while (j < n && !strcmp(rows[j].group, group))
            j++;
        group_heading(f, &rows[i]);
        for (size_t r = i; r < j;)
            r = group_row(f, rows, r, j);
        fprintf(f, "\n");
        i = j;
    }
    latency_table(f, rows, n);
    coverage(f, m, &k);
    free_clause_counts(&k);
    free(rows);
    if (cts_md_thresholds(f, m))
        return -1;
    return ferror(f) ? -1 : 0;
}
