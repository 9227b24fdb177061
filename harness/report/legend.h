/* The cell legend, one table for the Markdown and the HTML renderings (legend.c). */
#ifndef CTS_REPORT_LEGEND_H
#define CTS_REPORT_LEGEND_H

#include "outcome.h"

#include <stddef.h>

/* The legend's rows, in order: the engine's fields', each self-measured kind's (its descriptor's,
 * in cts_outcomes[] order), then the peer and process families', "—" and n/s. */
size_t cts_legend_rows(void);
const struct cts_legend_row *cts_legend_row(size_t i);
extern const struct cts_legend_row cts_legend_html_only[];
extern const size_t cts_legend_html_only_rows;

#endif
