/* The Markdown matrix's thresholds section (docs/matrix.md, `thresholds`):
 * the sizes where a row's outcome changes. */
#define _GNU_SOURCE
#include "markdown_int.h"
#include "report.h"
#include "spec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define md cts_md
#define str cts_json_str

/* ---- thresholds (docs/matrix.md, `thresholds`): the sizes where a row's outcome changes ---- */

/* A probe's outcome: "PASS:Qc" as `Qc`, "VARIES:A/W" as VARIES `A/W`,
 * "NOTSUPP" as it is, "" as undecided. */
static void th_outcome(FILE *f, const char *o)
{
    const char *colon = strchr(o, ':');
    char status[32];
    if (!*o)
        fputs("undecided", f);
    else if (!colon)
        md(f, "%t", o);
    else if (!strncmp(o, "PASS:", 5))
        md(f, "%T", colon + 1);
    else {
        snprintf(status, sizeof status, "%.*s", (int)(colon - o), o);
        md(f, "%t %T", status, colon + 1);
    }
}

static void th_row(FILE *f, const char *id, const json_t *r)
{
    const json_t *flips = json_object_get(r, "flips");
    md(f, "| %T | ", id);
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
    fputs(" | ", f);
    cts_put_grouped(f, cts_json_int(r, "probes"));
    if (cts_json_int(r, "undecided"))
        fprintf(f, " (%lld undecided)", cts_json_int(r, "undecided"));
    fputs(" |\n", f);
}

/* The section, where the matrix has a `thresholds` member: the search's
 * run in a line, then each row's flips, rows by id.  0, or -1 if out of memory. */
int cts_md_thresholds(FILE *f, const json_t *m)
{
    const json_t *th = json_object_get(m, "thresholds");
    if (!json_is_object(th))
        return 0;
    const json_t *run = json_object_get(th, "run"), *rows = json_object_get(th, "rows");
    size_t n;
    const char **ids = cts_sorted_keys(rows, &n);
    if (!ids)
        return -1;
    fprintf(f, "## Thresholds\n\n%lld rows searched up to ", cts_json_int(run, "rows"));
    cts_put_limit(f, cts_json_int(run, "max_bytes"));
    md(f, " by `sync-cts thresholds` (suite %t, %t): ", str(run, "suite_revision"), str(run, "date"));
    cts_put_grouped(f, cts_json_int(run, "probes"));
    md(f, " probes of %d repetitions each, %f s wall. A flip is the largest size giving one outcome and the "
          "smallest giving the next.\n\n| row | flips | probes |\n|---|---|---:|\n",
       cts_json_int(run, "repetitions"), json_number_value(json_object_get(run, "wall_s")));
    for (size_t i = 0; i < n; i++)
        th_row(f, ids[i], json_object_get(rows, ids[i]));
    fputs("\n", f);
    free(ids);
    return 0;
}
