/* HTML rendering of a matrix: one self-contained page (inline style and
 * script, nothing fetched) with the environment, the status counts, a legend,
 * a filter, and one table per group whose rows are call variants and whose
 * columns are busy placements -- the model of markdown.c, whose ordering is
 * repeated here.  Each cell is one case: coloured by its outcome through a
 * class (no inline styles: the real matrices have 19,017 cells), its element
 * id the case id, its title the case id, status, reason and conformance.
 * The thresholds section: html_thresholds.c; the escaping: html_text.c. */
#define _GNU_SOURCE
#include "html_int.h"
#include "legend.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every string that comes from the matrix goes through here. */
static void esc(FILE *f, const char *s) { cts_html_escape(f, s, 0); }

#define row cts_case_view

/* What a cell shows when there is no symbol. */
static const char *short_status(enum cts_status st)
{
    static const struct cts_words words[] = {
        {"NOTSUPP", "n/s"}, {"INCONCLUSIVE", "INC"}, {"BROKEN", "BRK"}, {"TIMEOUT", "T/O"}, {NULL, NULL}};
    return cts_words(words, cts_status_name(st));
}

/* The outcome class of a cell (style sheet below). */
static const char *outcome_class(enum cts_status st, const char *sym)
{
    if (st == CTS_VARIES)
        return "v";
    if (st == CTS_NOTSUPP)
        return "ns";
    if (st == CTS_PASS)
        switch (sym[0]) {
        case 'W': return "w";
        case 'A': return "a";
        case 'Q': return "q";
        default: return "u";
        }
    return "bad"; /* FAIL BROKEN INCONCLUSIVE TIMEOUT CRASH, or unknown */
}

static const char style[] =
    "body{font:13px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}"
    "h1{font-size:20px;margin:.2em 0}h2{font-size:15px;margin:1.4em 0 .3em}"
    "table{border-collapse:collapse}td,th{border:1px solid #c8c8c8;padding:1px 6px}"
    "th{background:#eee;font-weight:600}table.env th{text-align:left}"
    "table.m td{white-space:nowrap}table.m td:nth-child(5){text-align:right;color:#555}"
    "table.m td:nth-child(n+6){text-align:center;min-width:3.4em;font-family:ui-monospace,monospace}"
    ".w{background:#f5bf62}.a{background:#92d392}.q{background:#93bdeb}.u{background:#fff}"
    ".t{font-weight:700;box-shadow:inset 0 -4px 0 #444}"
    ".v{background:repeating-linear-gradient(135deg,#cfa6ee 0 4px,#fff 4px 8px);font-weight:700}"
    ".ns{background:#dcdcdc;color:#6a6a6a}.bad{background:#d42f2f;color:#fff;font-weight:700}"
    ".x{color:#bbb}.dev{outline:3px solid #d00;outline-offset:-3px}"
    "td:target,td.hit{outline:3px dashed #000;outline-offset:-3px}"
    "section.g,td[id]{scroll-margin-top:3.5em}"
    ".counts span,.legend span.k{display:inline-block;padding:0 6px;margin:1px 2px;border:1px solid #c8c8c8}"
    ".legend{display:grid;grid-template-columns:1fr 1fr;gap:3px 2em;max-width:1400px}"
    ".legend div{display:flex;align-items:flex-start;gap:.6em}"
    ".legend span.k{flex:none;text-align:center;font-family:ui-monospace,monospace;min-width:3.4em;margin:0}"
    "#bar{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #ccc;z-index:1}"
    "#filter{width:32em;font:inherit;padding:2px 4px}#shown{color:#555;margin-left:1em}"
    "summary{cursor:pointer;margin:.4em 0}nav a{margin-right:.8em;white-space:nowrap}";

/* Hides the rows, and whole groups, that do not match the filter text
 * (case-insensitive substring of a group's name and heading, a row's text,
 * or its cells' ids and titles); "deviations only" keeps the rows with a
 * DEVIATES cell.  Cells whose id or title match are outlined, unless every
 * cell of their row does.  PAGE?q=TEXT opens the page filtered by TEXT,
 * PAGE?dev=1 with "deviations only" ticked. */
static const char script[] =
    "(function(){"
    "var q=document.getElementById('filter'),d=document.getElementById('devonly'),"
    "n=document.getElementById('shown'),idx=null;"
    "function build(){idx=[].map.call(document.querySelectorAll('section.g'),function(s){"
    "return{s:s,h:(s.id+' '+s.querySelector('h2').textContent).toLowerCase(),"
    "rows:[].map.call(s.querySelectorAll('tbody tr'),function(r){"
    "var cs=[].map.call(r.querySelectorAll('td[id]'),function(c){"
    "return{c:c,k:(c.id+' '+c.title).toLowerCase()}});"
    "return{r:r,t:r.textContent.toLowerCase(),cs:cs,dev:!!r.querySelector('td.dev')}})}})}"
    "function apply(){if(!idx)build();"
    "var t=q.value.trim().toLowerCase(),dv=!!(d&&d.checked),nr=0,ng=0;"
    "idx.forEach(function(g){var gm=g.h.indexOf(t)>=0,any=0;"
    "g.rows.forEach(function(r){var hs=r.cs.filter(function(c){return t!==''&&c.k.indexOf(t)>=0}),"
    "cm=hs.length>0,few=hs.length<r.cs.length;"
    "r.cs.forEach(function(c){c.c.classList.toggle('hit',few&&hs.indexOf(c)>=0)});"
    "var show=(gm||cm||r.t.indexOf(t)>=0)&&(!dv||r.dev);r.r.hidden=!show;if(show)any++});"
    "g.s.hidden=!any;nr+=any;if(any)ng++});"
    "n.textContent=(t||dv)?nr+' rows in '+ng+' groups shown':'';}"
    "q.addEventListener('input',apply);if(d)d.addEventListener('change',apply);"
    "var p=/[?&]q=([^&]*)/.exec(location.search);"
    "if(p)q.value=decodeURIComponent(p[1].replace(/\\+/g,' '));"
    "if(d&&/[?&]dev=1/.test(location.search))d.checked=true;"
    "if(q.value||(d&&d.checked))apply();"
    "})();";

/* Markdown inline text as HTML: escaped, `code` spans as <code>. */
static void inline_md(FILE *f, const char *s)
{
    int code = 0;
    for (char c[2] = {0}; (c[0] = *s); s++)
        if (c[0] == '`') {
            fputs(code ? "</code>" : "<code>", f);
            code = !code;
        } else {
            esc(f, c);
        }
    if (code)
        fputs("</code>", f);
}

static void legend_row(FILE *f, const struct cts_legend_row *r)
{
    fprintf(f, "<div><span class=\"k %s\">", r->css);
    esc(f, r->cell);
    fputs("</span><span>", f);
    inline_md(f, r->meaning);
    fputs("</span></div>\n", f);
}

static void legend(FILE *f)
{
    fputs("<h2 id=\"legend\">How to read a cell</h2>\n<p>Each cell is one case: the call of its row "
          "issued while a gate kernel held the busy placement of its column; every letter is proven "
          "by the latch, not guessed from a time. Hover a cell for its case id, status, reason and "
          "conformance; its case id is also its anchor (<code>#&lt;case id&gt;</code>). "
          "<i>idle \xc2\xb5s</i> is the median time inside the same call on an idle GPU.</p>\n"
          "<div class=\"legend\">\n",
          f);
    for (size_t i = 0; i < cts_legend_rows(); i++)
        legend_row(f, cts_legend_row(i));
    for (size_t i = 0; i < cts_legend_html_only_rows; i++)
        legend_row(f, &cts_legend_html_only[i]);
    fputs("</div>\n", f);
}

static void environment(FILE *f, const json_t *m)
{
    const json_t *run = json_object_get(m, "run");
    struct cts_env_view e;
    cts_env_view(&e, m);

    /* Each piece of the table, then the value after it. */
    const char *const rows[][2] = {{"<table class=\"env\">\n<tr><th>GPU</th><td>", e.gpu},
                                   {" (compute capability ", e.compute_capability},
                                   {"), ", e.uuid},
                                   {"</td></tr>\n<tr><th>Driver</th><td>", e.driver},
                                   {"; driver API version ", e.driver_api},
                                   {"</td></tr>\n<tr><th>Runtime</th><td>cudart ", e.runtime},
                                   {", built with toolkit ", e.toolkit},
                                   {"</td></tr>\n<tr><th>Settings</th><td>default stream ", e.default_stream},
                                   {"; schedule ", e.schedule}};
    char devices[1024];
    int several = cts_devices_words(m, devices, sizeof devices) == 0; /* the peer family's two devices, and more */
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        if (i == 3 && several) { /* after the GPU's row */
            fputs("</td></tr>\n<tr><th>Devices</th><td>", f);
            esc(f, devices);
        }
        fputs(rows[i][0], f);
        esc(f, rows[i][1]);
    }
    if (*e.module_loading) { /* recorded from 2026-11 on */
        fputs("; module loading ", f);
        esc(f, e.module_loading);
    }
    if (*e.hold) { /* recorded from 3b83165f98b2 on */
        fputs("; work held by ", f);
        esc(f, e.hold);
    }
    fputs("; ", f);
    {
        const char *k;
        json_t *v;
        int any = 0;
        json_object_foreach((json_t *)e.variables, k, v)
            if (json_is_string(v)) {
                fputs(any++ ? ", " : "", f);
                esc(f, k);
                fputc('=', f);
                esc(f, json_string_value(v));
            }
        if (!any)
            fputs("no CUDA_* variable set", f);
    }
    fputs("</td></tr>\n<tr><th>Revision</th><td>suite ", f);
    esc(f, e.suite_revision);
    fputs("</td></tr>\n<tr><th>Date</th><td>", f);
    esc(f, e.date);
    if (json_is_number(json_object_get(run, "wall_s")))
        fprintf(f, "; %.1f s wall", json_number_value(json_object_get(run, "wall_s")));
    if (json_is_integer(json_object_get(run, "repeat")))
        fprintf(f, "; %lld repetitions a case", (long long)json_integer_value(json_object_get(run, "repeat")));
    fputs("</td></tr>\n", f);
    const char *doc = json_string_value(json_object_get(json_object_get(m, "spec"), "documentation"));
    if (doc) {
        fputs("<tr><th>Specification</th><td>", f);
        esc(f, doc);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* The cells naming a row's call variant: memory, size, copy kind, op stream. */
static void variant_cells(FILE *f, const struct row *c)
{
    /* The overlap family's: B's operation where a call has its memory, size and kind. */
    const char *const call[] = {c->memory, c->size_label, c->kind, c->op_stream};
    const char *const pair[] = {c->with, c->op_stream};
    char mem[64]; /* the capture family's: a lent call's memory and size */
    snprintf(mem, sizeof mem, "%s%s%s", c->memory, *c->memory && *c->size_label ? " " : "", c->size_label);
    const char *const capture[] = {c->capture_by, mem, c->op_stream};
    const char *const *cells = *c->capture ? capture : *c->with ? pair : call;
    size_t n = *c->capture ? 3 : *c->with ? 2 : 4;
    for (size_t k = 0; k < n; k++) {
        fputs("<td>", f);
        esc(f, cells[k]);
        fputs("</td>", f);
    }
}

static void cell(FILE *f, const struct row *c)
{
    const char *st = cts_status_name(c->status), *sym = c->symbol;
    const char *conf = cts_conformance_name(c->conformance);
    int third = strchr(sym, '+') != NULL;
    int dev = c->conformance == CTS_DEVIATES;

    fprintf(f, "<td id=\"");
    esc(f, c->id);
    fprintf(f, "\" class=\"%s%s%s\" title=\"", outcome_class(c->status, sym), third ? " t" : "", dev ? " dev" : "");
    esc(f, c->id);
    fputs("&#10;", f);
    esc(f, st);
    if (*sym) {
        fputc(' ', f);
        esc(f, sym);
    }
    if (c->has_reason) {
        fputs("&#10;", f);
        esc(f, c->reason);
    }
    if (conf) {
        fputs("&#10;conformance: ", f);
        esc(f, conf);
        size_t n = json_array_size(c->clauses);
        for (size_t i = 0; i < n; i++) {
            fputs(i ? ", " : " (", f);
            esc(f, cts_case_clause(c, i).id);
            if (i + 1 == n)
                fputc(')', f);
        }
    }
    fputs("\">", f);
    esc(f, *sym && (c->status == CTS_PASS || c->status == CTS_VARIES) ? sym : short_status(c->status));
    fputs("</td>", f);
}

/* The cases by status and by conformance, and the groups. */
struct tally {
    size_t count[CTS_STATUS_COUNT], unknown, ndev, nconf, nrec, nspec, ngroups;
};

static void tally_cases(struct tally *t, const struct row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        t->ngroups += !i || strcmp(rows[i].group, rows[i - 1].group);
        if ((int)rows[i].status >= 0 && rows[i].status < CTS_STATUS_COUNT)
            t->count[rows[i].status]++;
        else
            t->unknown++;
        if (rows[i].conformance != CTS_CONF_NONE) {
            t->nspec++;
            t->ndev += rows[i].conformance == CTS_DEVIATES;
            t->nconf += rows[i].conformance == CTS_CONFORMS;
            t->nrec += rows[i].conformance == CTS_RECORDED;
        }
    }
}

/* "cuda-sync-cts matrix: GPU, driver D, CUDA V": the page's title and its heading. */
static void page_title(FILE *f, const struct cts_env_view *e)
{
    fputs("cuda-sync-cts matrix: ", f);
    esc(f, e->gpu);
    fputs(", driver ", f);
    esc(f, e->driver);
    fputs(" (CUDA ", f);
    esc(f, e->driver_api);
    fputs("), runtime ", f);
    esc(f, e->runtime);
}

/* From the doctype to the page's heading: the title and the heading name
 * the GPU, the driver (and the CUDA version it supports) and the runtime. */
static void page_head(FILE *f, const json_t *m)
{
    struct cts_env_view e;
    cts_env_view(&e, m);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
    page_title(f, &e);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
    page_title(f, &e);
    fputs("</h1>\n<p>Generated from the JSON matrix; the JSON is the record.</p>\n", f);
}

/* The status counts, and the conformance counts where cases were judged. */
static void counts(FILE *f, size_t n, const struct tally *t)
{
    fprintf(f, "<p class=\"counts\"><b>%zu cases:</b>", n);
    static const char *const status_class[CTS_STATUS_COUNT] = {
        [CTS_PASS] = "u", [CTS_VARIES] = "v", [CTS_NOTSUPP] = "ns"};
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        fprintf(f, " <span class=\"%s\">%zu %s</span>",
                status_class[s] ? status_class[s] : t->count[s] ? "bad" : "u", t->count[s], cts_status_name(s));
    if (t->unknown)
        fprintf(f, " <span class=\"bad\">%zu of an unknown status</span>", t->unknown);
    if (t->nspec)
        fprintf(f, "<br><b>conformance:</b> <span class=\"u dev\">%zu DEVIATES</span> <span class=\"u\">%zu "
                   "CONFORMS</span> <span class=\"u\">%zu RECORDED</span>",
                t->ndev, t->nconf, t->nrec);
    fputs("</p>\n", f);
}

/* The filter (the script above), with "deviations only" where cases were judged. */
static void filter_bar(FILE *f, size_t nspec)
{
    fputs("<div id=\"bar\"><input id=\"filter\" type=\"search\" placeholder=\"filter: part of a case id, "
          "group, symbol, status or reason\" autocomplete=\"off\" aria-label=\"filter\">",
          f);
    if (nspec)
        fputs(" <label><input id=\"devonly\" type=\"checkbox\"> deviations only</label>", f);
    fputs("<span id=\"shown\"></span></div>\n", f);
}

static void group_index(FILE *f, const struct row *rows, size_t n, size_t ngroups)
{
    /* Group index. */
    fprintf(f, "<details><summary>%zu groups</summary><nav>", ngroups);
    for (size_t i = 0; i < n;) {
        const char *group = rows[i].group;
        fputs("<a href=\"#group-", f);
        esc(f, group);
        fputs("\">", f);
        esc(f, group);
        fputs("</a> ", f);
        while (i < n && !strcmp(rows[i].group, group))
            i++;
    }
    fputs("</nav></details>\n", f);
}

/* A group's section, its heading (from its first case) and its grid's head. */
static void group_heading(FILE *f, const char *group, const struct row *first)
{
    const char *dir = first->direction, *var = first->variant;
    fputs("<section class=\"g\" id=\"group-", f);
    esc(f, group);
    fputs("\">\n<h2>", f);
    esc(f, group);
    fputs(" \xe2\x80\x94 ", f);
    esc(f, first->function);
    if (*var) {
        fputc(' ', f);
        esc(f, var);
    }
    if (*dir) {
        fputs(", ", f);
        esc(f, cts_dir_words(dir));
    }
    int capture = *first->capture != '\0';
    fputs(capture ? "</h2>\n<table class=\"m\">\n<thead><tr><th rowspan=\"2\">by mode</th>"
                    "<th rowspan=\"2\">memory</th><th rowspan=\"2\">capturing stream</th><th rowspan=\"2\">call \xc2\xb5s</th>"
          : *first->with ? "</h2>\n<table class=\"m\">\n<thead><tr><th rowspan=\"2\">with</th>"
                         "<th rowspan=\"2\">op stream</th><th rowspan=\"2\">host \xc2\xb5s</th>"
                       : "</h2>\n<table class=\"m\">\n<thead><tr><th rowspan=\"2\">memory</th><th rowspan=\"2\">size</th>"
                         "<th rowspan=\"2\">kind</th><th rowspan=\"2\">op stream</th><th rowspan=\"2\">idle \xc2\xb5s</th>",
          f);
    struct cts_columns cols = cts_columns_of(first);
    fprintf(f, "<th colspan=\"%d\">%s</th></tr>\n<tr>", cols.n, cols.title);
    for (int c = 0; c < cols.n; c++)
        fprintf(f, "<th>%s</th>", cols.names[c]);
    fputs("</tr></thead>\n<tbody>\n", f);
}

/* The grid's row of the call variant of rows[r], from the cases r.. (before
 * j) of that variant; a case the grid has no cell for goes to extra.
 * Returns the first case after them. */
static size_t grid_row(FILE *f, const struct row *rows, size_t r, size_t j, size_t *extra, size_t *nextra)
{
    const struct row *row = &rows[r];
    size_t e = r;
    size_t at[CTS_MAX_COLUMNS];
    int have[CTS_MAX_COLUMNS] = {0};
    struct cts_columns cols = cts_columns_of(row);
    int ncols = cols.n;
    while (e < j && cts_same_call_variant(&rows[e], row)) {
        int col = cts_column_in(cols, rows[e].busy);
        if (col < ncols && !have[col]) {
            have[col] = 1;
            at[col] = e;
        } else {
            extra[(*nextra)++] = e;
        }
        e++;
    }
    fputs("<tr>", f);
    variant_cells(f, row);
    fputs("<td>", f);
    if (!isnan(row->idle_us))
        fprintf(f, "%.1f", row->idle_us);
    fputs("</td>", f);
    for (int c = 0; c < ncols; c++) {
        if (have[c])
            cell(f, &rows[at[c]]);
        else
            fputs("<td class=\"x\">\xe2\x80\x94</td>", f);
    }
    fputs("</tr>\n", f);
    return e;
}

static void outside_grid(FILE *f, const struct row *rows, const size_t *extra, size_t nextra)
{
    fputs("<p>Outside the grid:</p>\n<table class=\"m\"><tbody>\n", f);
    for (size_t x = 0; x < nextra; x++) {
        const struct row *c = &rows[extra[x]];
        fputs("<tr>", f);
        variant_cells(f, c);
        fputs("<td>busy ", f);
        esc(f, c->busy);
        fputs("</td>", f);
        cell(f, c);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

int cts_render_html(const json_t *m, FILE *f)
{
    const json_t *cases = json_object_get(m, "cases");
    if (!json_is_object(cases))
        return -1;

    size_t n = 0;
    struct row *rows = cts_sorted_cases(m, &n);
    if (!rows)
        return -1;
    size_t *extra = calloc(n ? n : 1, sizeof *extra), nextra = 0;
    if (!extra) {
        free(rows);
        return -1;
    }

    struct tally t = {0};
    tally_cases(&t, rows, n);

    page_head(f, m);
    environment(f, m);

    counts(f, n, &t);
    legend(f);

    filter_bar(f, t.nspec);

    group_index(f, rows, n, t.ngroups);

    for (size_t i = 0; i < n;) {
        const char *group = rows[i].group;
        size_t j = i;
        while (j < n && !strcmp(rows[j].group, group))
            j++;
        group_heading(f, group, &rows[i]);
        for (size_t r = i; r < j;)
            r = grid_row(f, rows, r, j, extra, &nextra);
        fputs("</tbody>\n</table>\n", f);
        if (nextra) {
            /* Cases the grid has no cell for (a busy placement outside the
             * columns, or a second case in one cell): listed, never lost. */
            outside_grid(f, rows, extra, nextra);
            nextra = 0;
        }
        fputs("</section>\n", f);
        i = j;
    }
    int rc = cts_html_thresholds(f, m);
    fprintf(f, "<script>%s</script>\n</body>\n</html>\n", script);
    free(rows);
    free(extra);
    return rc || ferror(f) ? -1 : 0;
}
