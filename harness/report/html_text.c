/* HTML escaping (declared in report.h): html.c, html_thresholds.c,
 * markdown_text.c (attributes in Markdown tables), fleet_render.c and
 * model_render.c write every string from a matrix or a model through it. */
#include "report.h"

#include <stdio.h>

void cts_html_escape(FILE *f, const char *s, int in_md_table)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        case '|': fputs(in_md_table ? "&#124;" : "|", f); break;
        case '\n': fputs(in_md_table ? " " : "&#10;", f); break;
        default: fputc(in_md_table && ((unsigned char)*s < 0x20 || *s == 0x7f) ? ' ' : *s, f);
        }
}
