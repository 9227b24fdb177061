/* CSV rendering of a matrix: one row per case, sorted by case id, a header
 * row first; or (--section thresholds) one row per flip of the matrix's
 * `thresholds` member, one per row that has none.  RFC 4180: CRLF line ends; a field holding a comma, a double
 * quote, CR or LF is enclosed in double quotes with its quotes doubled; an
 * absent or null value is an empty field. */
#define _GNU_SOURCE
#include "outcome.h"
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns: the case's, its status and symbol, then the verdict fields
 * that every verdict has (outcome.h), then the evidence, the judgement and
 * the capture modes, then the other verdict fields that have a column (and
 * a count's, after its field): a field added later comes last. */
static const char *const head[] = {"id",     "family",   "group", "function", "variant", "direction", "memory",
                                   "size",   "kind",     "op_stream", "busy", "status", "symbol", NULL};
static const char *const middle[] = {"idle_call_us", "call_us_median", "conformance", "clauses",
                                     "reason",       "capture",        "capture_by",  NULL};

void cts_csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A time as the matrix records it: microseconds to 0.1, or a whole number
 * as one; null: empty. */
static void put_time(FILE *f, const json_t *v)
{
    if (json_is_integer(v))
        fprintf(f, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        fprintf(f, "%.1f", json_real_value(v));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A name, "" for NA (null in the matrix). */
static const char *name(const char *s) { return s ? s : ""; }

/* The clause ids, joined with ';', as one field. */
static int put_clauses(FILE *f, const struct cts_case_view *v)
{
    size_t n = json_array_size(v->clauses), len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(cts_case_clause(v, i).id) + 1;
    char *buf = malloc(len);
    if (!buf)
        return -1;
    char *end = buf; /* appended at the end: linear in the clauses, however many */
    *end = 0;
    for (size_t i = 0; i < n; i++) {
        const char *cid = cts_case_clause(v, i).id;
        size_t k = strlen(cid);
        if (end != buf)
            *end++ = ';';
        memcpy(end, cid, k + 1);
        end += k;
    }
    cts_csv_text(f, buf);
    free(buf);
    return 0;
}

/* The verdict fields that have a column, those of every verdict (always 1) or the others. */
static void put_fields(FILE *f, const struct cts_verdict *vd, int always)
{
    CTS_FOR_EACH_OUTCOME(o) {
        if (!o->csv || o->always != always)
            continue;
        fputc(',', f);
        cts_csv_text(f, name(cts_outcome_name(vd, o)));
        if (!o->count_key)
            continue;
        fputc(',', f);
        if (cts_outcome_counted(vd, o))
            fprintf(f, "%lld", cts_outcome_count_in(vd, o));
    }
}

/* The header row. */
static void put_header(FILE *f)
{
    for (int i = 0; head[i]; i++)
        fprintf(f, "%s%s", i ? "," : "", head[i]);
    for (int pass = 1; pass >= 0; pass--) {
        CTS_FOR_EACH_OUTCOME(o)
            if (o->csv && o->always == pass)
                fprintf(f, ",%s%s%s", o->csv, o->count_key ? "," : "", o->count_key ? o->count_key : "");
        for (int i = 0; pass && middle[i]; i++)
            fprintf(f, ",%s", middle[i]);
    }
    fputs("\r\n", f);
}

static int put_case(FILE *f, const char *id, const json_t *c)
{
    struct cts_case_view v;
    cts_case_view(&v, id, c);
    const struct cts_verdict *vd = &v.verdict;
    const char *const text[] = {v.id, v.family, v.group, v.function, v.variant, v.direction, v.memory};
    const char *const after_size[] = {v.kind, v.op_stream, v.busy, cts_status_name(v.status), v.symbol};
    for (size_t i = 0; i < sizeof text / sizeof *text; i++) {
        fputs(i ? "," : "", f);
        cts_csv_text(f, text[i]);
    }
    fputc(',', f);
    if (v.sized)
        fprintf(f, "%lld", (long long)v.size);
    for (size_t i = 0; i < sizeof after_size / sizeof *after_size; i++) {
        fputc(',', f);
        cts_csv_text(f, after_size[i]);
    }
    put_fields(f, vd, 1);
    fputc(',', f);
    /* Not v.idle_us: the CSV writes the time as the matrix records it (a
     * whole number stays one), which the view's double does not tell. */
    put_time(f, json_object_get(json_object_get(c, "evidence"), "idle_call_us"));
    fputc(',', f);
    if (!isnan(v.call_us))
        fprintf(f, "%.1f", v.call_us);
    fputc(',', f);
    cts_csv_text(f, name(cts_conformance_name(v.conformance)));
    fputc(',', f);
    if (put_clauses(f, &v))
        return -1;
    fputc(',', f);
    cts_csv_text(f, v.reason);
    fputc(',', f);
    cts_csv_text(f, v.capture);
    fputc(',', f);
    cts_csv_text(f, v.capture_by);
    put_fields(f, vd, 0);
    fputs("\r\n", f);
    return 0;
}

int cts_render_csv(const json_t *m, FILE *f)
{
    const json_t *cases = json_object_get(m, "cases");
    if (!json_is_object(cases))
        return -1;
    size_t n = json_object_size(cases), k = 0;
    const char **ids = calloc(n ? n : 1, sizeof *ids);
    if (!ids)
        return -1;
    const char *id;
    json_t *c;
    json_object_foreach((json_t *)cases, id, c) ids[k++] = id;
    qsort(ids, n, sizeof *ids, cmp_str);

    put_header(f);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = put_case(f, ids[i], json_object_get(cases, ids[i]));
    free(ids);
    return rc || ferror(f) ? -1 : 0;
}

/* ---- thresholds (docs/matrix.md, `thresholds`) ---------------------------------- */

static const char th_header[] =
    "row,max_bytes,below_bytes,below_outcome,above_bytes,above_outcome,exact,steady,probes,undecided\r\n";

/* ",N" for an integer; "," alone otherwise. */
static void put_int(FILE *f, const json_t *v)
{
    fputc(',', f);
    if (json_is_integer(v))
        fprintf(f, "%lld", (long long)json_integer_value(v));
}

/* ",true" / ",false" for a boolean; "," alone otherwise. */
static void put_bool(FILE *f, const json_t *v)
{
    fputc(',', f);
    if (json_is_boolean(v))
        fputs(json_is_true(v) ? "true" : "false", f);
}

/* One line: the row and a flip of it (fl NULL: the row has none, its flip's fields empty). */
static void put_flip(FILE *f, const char *id, const json_t *r, const json_t *fl)
{
    const json_t *side[2] = {json_object_get(fl, "below"), json_object_get(fl, "above")};
    cts_csv_text(f, id);
    put_int(f, json_object_get(r, "max_bytes"));
    for (int i = 0; i < 2; i++) {
        put_int(f, json_object_get(side[i], "bytes"));
        fputc(',', f);
        cts_csv_text(f, name(json_string_value(json_object_get(side[i], "outcome"))));
    }
    put_bool(f, json_object_get(fl, "exact"));
    put_bool(f, json_object_get(fl, "steady"));
    put_int(f, json_object_get(r, "probes"));
    put_int(f, json_object_get(r, "undecided"));
    fputs("\r\n", f);
}

int cts_render_csv_thresholds(const json_t *m, FILE *f)
{
    const json_t *rows = json_object_get(json_object_get(m, "thresholds"), "rows");
    size_t n = json_object_size(rows), k = 0;
    const char **ids = calloc(n ? n : 1, sizeof *ids);
    if (!ids)
        return -1;
    const char *id;
    json_t *r;
    json_object_foreach((json_t *)rows, id, r) ids[k++] = id;
    qsort(ids, n, sizeof *ids, cmp_str);

    fputs(th_header, f);
    for (size_t i = 0; i < n; i++) {
        const json_t *row = json_object_get(rows, ids[i]), *flips = json_object_get(row, "flips");
        for (size_t j = 0; j < json_array_size(flips); j++)
            put_flip(f, ids[i], row, json_array_get(flips, j));
        if (!json_array_size(flips))
            put_flip(f, ids[i], row, NULL);
    }
    free(ids);
    return ferror(f) ? -1 : 0;
}
