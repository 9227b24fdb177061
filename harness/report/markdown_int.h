/* What markdown.c, markdown_text.c and markdown_thresholds.c share. */
#ifndef CTS_MARKDOWN_INT_H
#define CTS_MARKDOWN_INT_H

#include <jansson.h>
#include <stdio.h>

/* fprintf for Markdown: %s a string of ours, written as is; from the
 * matrix, %t text, %T a code span in a table cell, %C one elsewhere, %A an
 * attribute value in a table cell, %L a link (text, URL); %z a size_t, %f
 * a double (%.1f), %d a long long. */
void cts_md(FILE *f, const char *fmt, ...);
/* The thresholds section, where the matrix has a `thresholds` member: the
 * search's run in a line, then each row's flips, rows by id.  0, or -1 if out
 * of memory. */
int cts_md_thresholds(FILE *f, const json_t *m);

#endif
