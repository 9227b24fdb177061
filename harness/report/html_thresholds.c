/* The HTML page's thresholds section (docs/matrix.md, `thresholds`): the
 * sizes where a row's outcome changes. */
#define _GNU_SOURCE
#include "html_int.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void esc(FILE *f, const char *s) { cts_html_escape(f, s, 0); }

/* A probe's outcome: "PASS:Qc" as <code>Qc</code>, "VARIES:A/W" as VARIES
 * <code>A/W</code>, "NOTSUPP" as it is, "" as undecided. */
static void th_outcome(FILE *f, const char *o)
{
    const char *colon = strchr(o, ':');
    char status[32];
    if (!*o) {
        fputs("undecided", f);
        return;
    }
    if (!colon) {
        esc(f, o);
        return;
    }
    if (strncmp(o, "PASS:", 5)) {
        snprintf(status, sizeof status, "%.*s", (int)(colon - o), o);
        esc(f, status);
        fputc(' ', f);
    }
    fputs("<code>", f);
    esc(f, colon + 1);
    fputs("</code>", f);
}

/* A row of the table, its anchor "th-" and the row id. */
static void th_row(FILE *f, const char *id, const json_t *r)
{
    const json_t *flips = json_object_get(r, "flips");
    fputs("<tr id=\"th-", f);
    esc(f, id);
    fputs("\"><td><code>", f);
    esc(f, id);
    fputs("</code></td><td>", f);
    for (size_t i = 0; i < json_array_size(flips); i++) {
        fputs(i ? "; then " : "", f);
        cts_put_flip(f, json_array_get(flips, i), cts_th_unit(r), th_outcome);
    }
    if (!json_array_size(flips)) {
        fputs("no flip up to ", f);
        cts_put_th_limit(f, r);
    }
    if (json_is_true(json_object_get(r, "truncated")))
        fputs("; more flips not recorded", f);
    fputs("</td><td>", f);
    cts_put_grouped(f, cts_json_int(r, "probes"));
    if (cts_json_int(r, "undecided"))
        fprintf(f, " (%lld undecided)", cts_json_int(r, "undecided"));
    fputs("</td></tr>\n", f);
}

/* The search's run in a line. */
static void th_context(FILE *f, const json_t *run)
{
    fprintf(f, "<p>%lld rows searched up to ", cts_json_int(run, "rows"));
    cts_put_limit(f, cts_json_int(run, "max_bytes"));
    fputs(" by <code>sync-cts thresholds</code> (suite ", f);
    esc(f, cts_json_str(run, "suite_revision"));
    fputs(", ", f);
    esc(f, cts_json_str(run, "date"));
    fputs("): ", f);
    cts_put_grouped(f, cts_json_int(run, "probes"));
    fprintf(f, " probes of %lld repetitions each, %.1f s wall. A flip is the largest size giving one outcome "
               "and the smallest giving the next.</p>\n",
            cts_json_int(run, "repetitions"), json_number_value(json_object_get(run, "wall_s")));
}

/* The section, where the matrix has a `thresholds` member: each row's
 * flips, rows by id.  0, or -1 if out of memory. */
int cts_html_thresholds(FILE *f, const json_t *m)
{
    const json_t *th = json_object_get(m, "thresholds");
    if (!json_is_object(th))
        return 0;
    const json_t *rows = json_object_get(th, "rows");
    size_t n;
    const char **ids = cts_sorted_keys(rows, &n);
    if (!ids)
        return -1;
    fputs("<section id=\"thresholds\">\n<h2>Thresholds</h2>\n", f);
    th_context(f, json_object_get(th, "run"));
    fputs("<table>\n<thead><tr><th>row</th><th>flips</th><th>probes</th></tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < n; i++)
        th_row(f, ids[i], json_object_get(rows, ids[i]));
    fputs("</tbody>\n</table>\n</section>\n", f);
    free(ids);
    return 0;
}
