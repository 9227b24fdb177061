/* sync-cts thresholds: what its two files share.  thresholds.c: the command, a
 * probe, the search and the section written; thresholds_rows.c: the rows searched
 * (from the matrix's outcomes, and the catalogue). */
#ifndef CTS_THRESHOLDS_INT_H
#define CTS_THRESHOLDS_INT_H

#include "cts.h"

#include <jansson.h>
#include <stddef.h>

/* A 2D copy's row is searched three ways: by its size (the shape resize
 * gives it), by its width at AXIS_ROWS rows (".by_width"), and by its
 * number of rows AXIS_WIDTH bytes wide (".by_rows"); a probe's `bytes` is
 * then the width or the rows. */
enum axis { AXIS_BYTES, AXIS_WIDTH, AXIS_ROWS };
#define AXIS_FIXED_ROWS 4u
#define AXIS_FIXED_WIDTH 1024u
extern const char *const cts_th_axis_name[]; /* NULL, "width", "rows" */

struct row {
    char id[CTS_ID_MAX];
    const struct cts_case *base; /* a case of the row (its smallest sample size) */
    json_t *samples;             /* sample size label -> "STATUS:symbol" in the matrix */
    int from_matrix, from_catalogue;
    enum axis axis;
};

/* Case id -> "STATUS:symbol" of every case of the matrix m. */
json_t *cts_th_outcomes(const json_t *m);
/* The rows: from the matrix, those whose decided outcomes differ between
 * sample sizes; with the catalogue, its rows too; glob (NULL: all) picks.
 * NULL: out of memory; *nrows 0: none. */
struct row *cts_th_rows(json_t *outcomes, int with_catalogue, const char *glob, size_t *nrows);
/* What cts_th_rows returned: each row's samples, and the rows. */
void cts_th_rows_free(struct row *rows, size_t nrows);

#endif
