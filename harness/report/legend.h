/* The cell legend, one table for the Markdown and the HTML renderings (legend.c). */
#ifndef CTS_REPORT_LEGEND_H
#define CTS_REPORT_LEGEND_H

#include <stddef.h>

struct cts_legend_row {
    const char *symbols; /* as the Markdown's first column shows them ("`O` `P` `C` `S`"); NULL: HTML only */
    const char *cell;    /* the HTML legend's sample cell ("O") */
    const char *css;     /* its class there (the cells' classes: "w", "a", "q", "u", "v", "ns", "bad") */
    const char *meaning; /* Markdown inline text: `code` spans, no table pipes */
};

extern const struct cts_legend_row cts_legend[];
extern const size_t cts_legend_rows;
extern const struct cts_legend_row cts_legend_html_only[];
extern const size_t cts_legend_html_only_rows;

#endif
