/* sync-cts model's report (model.c builds it: each rule of a race detector's
 * model against the matrices, its agreeing, disagreeing and uncovered cases)
 * as text, Markdown or HTML; JSON is the report itself. */
#define _GNU_SOURCE
#include "model_int.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LISTED 12 /* a rule's disagreeing cases shown in text and Markdown; JSON has all */

static void matrices_line(FILE *f, const json_t *r, int md)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(r, "matrices"), i, x) {
        fputs(md ? "- " : "  ", f);
        if (md)
            cts_md_text(f, s_of(x, "gpu"));
        else
            fputs(s_of(x, "gpu"), f);
        fprintf(f, ", driver %s, %s default stream: ", s_of(x, "driver"), s_of(x, "default_stream"));
        if (md)
            cts_md_code(f, s_of(x, "matrix"), 0);
        else
            fputs(s_of(x, "matrix"), f);
        fputc('\n', f);
    }
}

void cts_model_render_text(const json_t *r, FILE *f)
{
    fprintf(f, "%s %s (%s), against:\n", s_of(r, "tool"), s_of(r, "version"), s_of(r, "source"));
    matrices_line(f, r, 0);
    size_t i, j;
    json_t *x, *c;
    json_array_foreach(json_object_get(r, "rules"), i, x) {
        const json_t *lw = json_object_get(x, "later_work");
        json_int_t more = n_of(x, "missed_race"), less = n_of(x, "false_report");
        json_int_t lmore = n_of(lw, "missed_race"), lless = n_of(lw, "false_report");
        fprintf(f, "\n%s %s (host waits for %s; %s): %lld cases, %lld judged, %lld agree",
                more + less + lmore + lless ? "DISAGREES" : "agrees",
                s_of(x, "id"), s_of(x, "host_waits_for"), s_of(x, "source"), (long long)n_of(x, "covered"),
                (long long)n_of(x, "judged"), (long long)n_of(x, "agree"));
        if (more)
            fprintf(f, ", %lld assume more synchronization than measured (missed race)", (long long)more);
        if (less)
            fprintf(f, ", %lld assume less (false report)", (long long)less);
        if (n_of(x, "varies"))
            fprintf(f, ", %lld intermittent (not judged)", (long long)n_of(x, "varies"));
        if (n_of(lw, "judged"))
            fprintf(f, "; later work in a third stream (orders it in %s): %lld judged, %lld agree, %lld missed race, "
                       "%lld false report",
                    s_of(x, "orders_later_work_in"), (long long)n_of(lw, "judged"), (long long)n_of(lw, "agree"),
                    (long long)lmore, (long long)lless);
        fputc('\n', f);
        json_array_foreach(json_object_get(x, "cases"), j, c) {
            if (j == LISTED) {
                fprintf(f, "    ... and %zu more (--format json lists every one)\n", json_array_size(json_object_get(x, "cases")) - LISTED);
                break;
            }
            fprintf(f, "    %s%s%s%s: %s, measured %s (%s)\n", s_of(c, "case"), strcmp(s_of(c, "about"), "host") ? " [" : "",
                    strcmp(s_of(c, "about"), "host") ? s_of(c, "about") : "", strcmp(s_of(c, "about"), "host") ? "]" : "",
                    s_of(c, "class"), s_of(c, "measured"), s_of(c, "symbol"));
        }
    }
    fprintf(f, "\n%lld of %zu rules disagree with the matrices\n", (long long)n_of(r, "disagreeing_rules"),
            json_array_size(json_object_get(r, "rules")));
}

void cts_model_render_md(const json_t *r, FILE *f)
{
    fprintf(f, "# %s %s against the matrix\n\nModel: ", s_of(r, "tool"), s_of(r, "version"));
    cts_md_code(f, s_of(r, "model"), 0);
    fputs(" (", f);
    cts_md_text(f, s_of(r, "source"));
    fprintf(f, "). %lld of %zu rules disagree with the measured verdicts of:\n\n",
            (long long)n_of(r, "disagreeing_rules"), json_array_size(json_object_get(r, "rules")));
    matrices_line(f, r, 1);
    fputs("\n| rule | host waits for | source | cases | judged | agree | missed race | false report | not judged (VARIES) "
          "| later work: judged, agree, missed race, false report |\n"
          "|---|---|---|---:|---:|---:|---:|---:|---:|---|\n", f);
    size_t i, j;
    json_t *x, *c;
    json_array_foreach(json_object_get(r, "rules"), i, x) {
        fputs("| ", f);
        cts_md_code(f, s_of(x, "id"), 1);
        fprintf(f, " | %s | ", s_of(x, "host_waits_for"));
        cts_md_text(f, s_of(x, "source"));
        const json_t *lw = json_object_get(x, "later_work");
        fprintf(f, " | %lld | %lld | %lld | %lld | %lld | %lld | ", (long long)n_of(x, "covered"),
                (long long)n_of(x, "judged"), (long long)n_of(x, "agree"), (long long)n_of(x, "missed_race"),
                (long long)n_of(x, "false_report"), (long long)n_of(x, "varies"));
        if (*s_of(x, "orders_later_work_in"))
            fprintf(f, "%s: %lld, %lld, %lld, %lld |\n", s_of(x, "orders_later_work_in"), (long long)n_of(lw, "judged"),
                    (long long)n_of(lw, "agree"), (long long)n_of(lw, "missed_race"), (long long)n_of(lw, "false_report"));
        else
            fputs("- |\n", f);
    }
    json_array_foreach(json_object_get(r, "rules"), i, x) {
        size_t n = json_array_size(json_object_get(x, "cases"));
        if (!n)
            continue;
        fputs("\n## ", f);
        cts_md_text(f, s_of(x, "id"));
        fprintf(f, ": %zu case%s disagree\n\n", n, n == 1 ? "" : "s");
        if (*s_of(x, "note")) {
            cts_md_text(f, s_of(x, "note"));
            fputs("\n\n", f);
        }
        fputs("| case | about | class | measured | symbol |\n|---|---|---|---|---|\n", f);
        json_array_foreach(json_object_get(x, "cases"), j, c) {
            if (j == LISTED) {
                fprintf(f, "| ... and %zu more (`--format json` lists every one) | | | | |\n", n - LISTED);
                break;
            }
            fputs("| ", f);
            cts_md_code(f, s_of(c, "case"), 1);
            fprintf(f, " | %s | %s | %s | ", s_of(c, "about"), s_of(c, "class"), s_of(c, "measured"));
            cts_md_text(f, s_of(c, "symbol"));
            fputs(" |\n", f);
        }
    }
}

static void html_text(FILE *f, const char *tag, const char *s)
{
    fprintf(f, "<%s>", tag);
    cts_html_escape(f, s, 0);
    fprintf(f, "</%s>", tag);
}

void cts_model_render_html(const json_t *r, FILE *f)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>sync-cts model</title>\n"
          "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:2px 6px}"
          "table{border-collapse:collapse}.no{background:#fdd}</style></head><body>\n<h1>", f);
    cts_html_escape(f, s_of(r, "tool"), 0);
    fputc(' ', f);
    cts_html_escape(f, s_of(r, "version"), 0);
    fprintf(f, " against the matrix</h1>\n<p>%lld of %zu rules disagree with the measured verdicts of:</p>\n<ul>",
            (long long)n_of(r, "disagreeing_rules"), json_array_size(json_object_get(r, "rules")));
    size_t i, j;
    json_t *x, *c;
    json_array_foreach(json_object_get(r, "matrices"), i, x) {
        fputs("<li>", f);
        cts_html_escape(f, s_of(x, "gpu"), 0);
        fputs(", driver ", f);
        cts_html_escape(f, s_of(x, "driver"), 0);
        fputs(": ", f);
        html_text(f, "code", s_of(x, "matrix"));
        fputs("</li>", f);
    }
    fputs("</ul>\n<table><tr><th>rule</th><th>host waits for</th><th>source</th><th>cases</th><th>judged</th>"
          "<th>agree</th><th>missed race</th><th>false report</th></tr>\n", f);
    json_array_foreach(json_object_get(r, "rules"), i, x) {
        const json_t *lw = json_object_get(x, "later_work");
        int no = n_of(x, "missed_race") + n_of(x, "false_report") + n_of(lw, "missed_race") + n_of(lw, "false_report") > 0;
        fprintf(f, "<tr%s>", no ? " class=\"no\"" : "");
        html_text(f, "td", s_of(x, "id"));
        html_text(f, "td", s_of(x, "host_waits_for"));
        html_text(f, "td", s_of(x, "source"));
        fprintf(f, "<td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td></tr>\n", (long long)n_of(x, "covered"),
                (long long)n_of(x, "judged"), (long long)n_of(x, "agree"), (long long)n_of(x, "missed_race"),
                (long long)n_of(x, "false_report"));
    }
    fputs("</table>\n", f);
    json_array_foreach(json_object_get(r, "rules"), i, x) {
        if (!json_array_size(json_object_get(x, "cases")))
            continue;
        fputs("<h2>", f);
        cts_html_escape(f, s_of(x, "id"), 0);
        fputs("</h2>\n", f);
        if (*s_of(x, "note"))
            html_text(f, "p", s_of(x, "note"));
        fputs("<table><tr><th>matrix</th><th>case</th><th>about</th><th>class</th><th>measured</th><th>symbol</th></tr>\n", f);
        json_array_foreach(json_object_get(x, "cases"), j, c) {
            fputs("<tr>", f);
            html_text(f, "td", s_of(c, "matrix"));
            html_text(f, "td", s_of(c, "case"));
            html_text(f, "td", s_of(c, "about"));
            html_text(f, "td", s_of(c, "class"));
            html_text(f, "td", s_of(c, "measured"));
            html_text(f, "td", s_of(c, "symbol"));
            fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    fputs("</body></html>\n", f);
}
