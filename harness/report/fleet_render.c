/* sync-cts fleet's report (fleet.c builds it: groups, their members, the
 * GPUs outside a group's majority and the split cases) as text, Markdown or
 * HTML; JSON is the report itself. */
#define _GNU_SOURCE
#include "fleet_int.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LISTED 20 /* a GPU's cases outside shown in text, Markdown and HTML; JSON has all */

static const char *s_of(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "?";
}

/* A configuration in one line: "NVIDIA H200, driver 580.159.04, runtime 13.0, ...". */
static void conf_line(FILE *out, const json_t *c)
{
    const json_t *rt = json_object_get(c, "runtime");
    const char *rts = json_is_object(rt) ? s_of(rt, "text") : json_string_value(rt);
    json_int_t n = json_integer_value(json_object_get(c, "visible_devices"));
    fprintf(out, "%s, driver %s, runtime %s, %s default stream, schedule %s, %s module loading, hold %s, %lld GPU%s visible",
            s_of(c, "gpu"), s_of(c, "driver"), rts ? rts : "?", s_of(c, "default_stream"), s_of(c, "device_schedule"),
            s_of(c, "module_loading"), s_of(c, "hold"), (long long)n, n == 1 ? "" : "s");
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(c, "environment_variables"), k, v)
        fprintf(out, ", %s=%s", k, json_string_value(v) ? json_string_value(v) : "?");
}

/* conf_line into a string to free; NULL if out of memory. */
static char *conf_text(const json_t *c)
{
    char *line = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&line, &len);
    if (!mem)
        return NULL;
    conf_line(mem, c);
    if (fclose(mem) != 0) {
        free(line);
        return NULL;
    }
    return line;
}

void cts_fleet_render_text(const json_t *r, FILE *out)
{
    size_t g, i, j;
    json_t *grp, *m, *x;
    fprintf(out, "fleet: %lld matrices in %zu group%s\n", (long long)json_integer_value(json_object_get(r, "matrices")),
            json_array_size(json_object_get(r, "groups")), json_array_size(json_object_get(r, "groups")) == 1 ? "" : "s");
    json_array_foreach(json_object_get(r, "groups"), g, grp) {
        const json_t *members = json_object_get(grp, "members");
        fprintf(out, "\ngroup %zu: ", g + 1);
        conf_line(out, json_object_get(grp, "configuration"));
        fprintf(out, "\n  %zu GPU%s; known variability: %s\n", json_array_size(members),
                json_array_size(members) == 1 ? " (nothing to compare)" : "s",
                json_string_value(json_object_get(grp, "known")) ? s_of(grp, "known") : "none");
        json_array_foreach(members, i, m) {
            size_t n = json_array_size(json_object_get(m, "outside"));
            fprintf(out, "  %s %s/%s (%s): ", n ? "OUTLIER" : "ok", s_of(m, "host"), s_of(m, "gpu_uuid"),
                    s_of(m, "matrix"));
            if (!n)
                fprintf(out, "every case with its group's majority\n");
            else
                fprintf(out, "%zu case%s outside its group's majority\n", n, n == 1 ? "" : "s");
            json_array_foreach(json_object_get(m, "outside"), j, x) {
                if (j == LISTED) {
                    fprintf(out, "    ... and %zu more (--format json lists every one)\n", n - LISTED);
                    break;
                }
                fprintf(out, "    %s: %s (majority %s)\n", s_of(x, "case"), s_of(x, "outcome"), s_of(x, "majority"));
            }
        }
        json_array_foreach(json_object_get(grp, "split"), j, x) {
            fprintf(out, "  SPLIT %s:", s_of(x, "case"));
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(x, "outcomes"), k, v)
                fprintf(out, " %s %s;", k, json_string_value(v));
            fputc('\n', out);
        }
    }
    json_int_t n = json_integer_value(json_object_get(r, "outliers"));
    fprintf(out, "\nfleet: %lld GPU%s outside %s group's majority, %lld case%s split\n", (long long)n,
            n == 1 ? "" : "s", n == 1 ? "its" : "their",
            (long long)json_integer_value(json_object_get(r, "split")),
            json_integer_value(json_object_get(r, "split")) == 1 ? "" : "s");
}

void cts_fleet_render_md(const json_t *r, FILE *out)
{
    size_t g, i, j;
    json_t *grp, *m, *x;
    fprintf(out, "# Fleet: %lld matrices, %lld GPU%s outside its group's majority, %lld case%s split\n",
            (long long)json_integer_value(json_object_get(r, "matrices")),
            (long long)json_integer_value(json_object_get(r, "outliers")),
            json_integer_value(json_object_get(r, "outliers")) == 1 ? "" : "s",
            (long long)json_integer_value(json_object_get(r, "split")),
            json_integer_value(json_object_get(r, "split")) == 1 ? "" : "s");
    json_array_foreach(json_object_get(r, "groups"), g, grp) {
        char *line = conf_text(json_object_get(grp, "configuration"));
        fprintf(out, "\n## Group %zu\n\n", g + 1);
        cts_md_text(out, line ? line : "?");
        free(line);
        fprintf(out, "; known variability: ");
        cts_md_code(out, json_string_value(json_object_get(grp, "known")) ? s_of(grp, "known") : "none", 0);
        fprintf(out, "\n\n| GPU | host | matrix | cases outside |\n|---|---|---|---:|\n");
        json_array_foreach(json_object_get(grp, "members"), i, m) {
            fputs("| ", out);
            cts_md_code(out, s_of(m, "gpu_uuid"), 1);
            fputs(" | ", out);
            cts_md_text(out, s_of(m, "host"));
            fputs(" | ", out);
            cts_md_code(out, s_of(m, "matrix"), 1);
            fprintf(out, " | %zu |\n", json_array_size(json_object_get(m, "outside")));
        }
        json_array_foreach(json_object_get(grp, "members"), i, m) {
            size_t n = json_array_size(json_object_get(m, "outside"));
            if (!n)
                continue;
            fprintf(out, "\n### Outside: ");
            cts_md_text(out, s_of(m, "host"));
            fputs(" / ", out);
            cts_md_code(out, s_of(m, "gpu_uuid"), 0);
            fprintf(out, "\n\n| case | outcome | majority |\n|---|---|---|\n");
            json_array_foreach(json_object_get(m, "outside"), j, x) {
                if (j == LISTED) {
                    fprintf(out, "| ... and %zu more (`--format json` lists every one) | | |\n", n - LISTED);
                    break;
                }
                fputs("| ", out);
                cts_md_code(out, s_of(x, "case"), 1);
                fputs(" | ", out);
                cts_md_text(out, s_of(x, "outcome"));
                fputs(" | ", out);
                cts_md_text(out, s_of(x, "majority"));
                fputs(" |\n", out);
            }
        }
        if (json_array_size(json_object_get(grp, "split")))
            fprintf(out, "\n### Split (no majority)\n\n| case | outcomes |\n|---|---|\n");
        json_array_foreach(json_object_get(grp, "split"), j, x) {
            fputs("| ", out);
            cts_md_code(out, s_of(x, "case"), 1);
            fputs(" | ", out);
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(x, "outcomes"), k, v) {
                cts_md_text(out, k);
                fputs(": ", out);
                cts_md_text(out, json_string_value(v));
                fputs("; ", out);
            }
            fputs("|\n", out);
        }
    }
}

static void html_cell(FILE *out, const char *tag, const char *s)
{
    fprintf(out, "<%s>", tag);
    cts_html_escape(out, s, 0);
    fprintf(out, "</%s>", tag);
}

void cts_fleet_render_html(const json_t *r, FILE *out)
{
    size_t g, i, j;
    json_t *grp, *m, *x;
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>sync-cts fleet</title>\n"
                 "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:2px 6px}"
                 "table{border-collapse:collapse}.out{background:#fdd}</style></head><body>\n");
    fprintf(out, "<h1>Fleet: %lld matrices, %lld GPUs outside their group's majority, %lld cases split</h1>\n",
            (long long)json_integer_value(json_object_get(r, "matrices")),
            (long long)json_integer_value(json_object_get(r, "outliers")),
            (long long)json_integer_value(json_object_get(r, "split")));
    json_array_foreach(json_object_get(r, "groups"), g, grp) {
        char *line = conf_text(json_object_get(grp, "configuration"));
        fprintf(out, "<h2>Group %zu</h2>\n", g + 1);
        html_cell(out, "p", line ? line : "?");
        free(line);
        fprintf(out, "\n<table><tr><th>GPU</th><th>host</th><th>matrix</th><th>case outside</th><th>outcome</th>"
                     "<th>majority</th></tr>\n");
        json_array_foreach(json_object_get(grp, "members"), i, m) {
            const json_t *o = json_object_get(m, "outside");
            size_t rows = json_array_size(o) ? json_array_size(o) : 1;
            fprintf(out, "<tr%s>", json_array_size(o) ? " class=\"out\"" : "");
            for (const char *const *k = (const char *const[]){"gpu_uuid", "host", "matrix", NULL}; *k; k++) {
                fprintf(out, "<td rowspan=\"%zu\">", rows);
                cts_html_escape(out, s_of(m, *k), 0);
                fputs("</td>", out);
            }
            if (!json_array_size(o))
                fputs("<td colspan=\"3\">every case with its group's majority</td></tr>\n", out);
            json_array_foreach(o, j, x) {
                if (j)
                    fputs("<tr class=\"out\">", out);
                html_cell(out, "td", s_of(x, "case"));
                html_cell(out, "td", s_of(x, "outcome"));
                html_cell(out, "td", s_of(x, "majority"));
                fputs("</tr>\n", out);
            }
        }
        fputs("</table>\n", out);
        json_array_foreach(json_object_get(grp, "split"), j, x) {
            fputs("<p>Split: ", out);
            cts_html_escape(out, s_of(x, "case"), 0);
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(x, "outcomes"), k, v) {
                fputs(" &mdash; ", out);
                cts_html_escape(out, k, 0);
                fputs(": ", out);
                cts_html_escape(out, json_string_value(v), 0);
            }
            fputs("</p>\n", out);
        }
    }
    fputs("</body></html>\n", out);
}
