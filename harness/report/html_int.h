/* What html.c and html_thresholds.c share. */
#ifndef CTS_HTML_INT_H
#define CTS_HTML_INT_H

#include <jansson.h>
#include <stdio.h>

/* The thresholds section, where the matrix has a `thresholds` member: 0, or
 * -1 if out of memory. */
int cts_html_thresholds(FILE *f, const json_t *m);

#endif
