/* sync-cts diff: the text helpers every part of diff writes with (diff_render.c,
 * diff_env.c, diff_thresholds.c, diff_series.c): a formatted string that sets
 * cts_diff_oom where memory ran out, a Markdown table cell, a CSV field. */
#define _GNU_SOURCE
#include "diff_int.h"
#include "report.h"

#include <stdarg.h>
#include <stdio.h>

#define S(x) ((x) ? (x) : "")

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

/* A Markdown table cell: text from the matrices, escaped (cts_md_text). */
void cts_diff_md_cell(FILE *f, const char *s)
{
    fputs("| ", f);
    cts_md_text(f, S(s));
    fputc(' ', f);
}

/* One CSV field and what ends it. */
void cts_diff_csv_field(FILE *f, const char *s, int last)
{
    cts_csv_text(f, S(s));
    fputs(last ? "\r\n" : ",", f);
}
