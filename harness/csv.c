/* CSV rendering of a matrix: one row per case, sorted by case id, a header
 * row first.  RFC 4180: CRLF line ends; a field holding a comma, a double
 * quote, CR or LF is enclosed in double quotes with its quotes doubled; an
 * absent or null value is an empty field. */
#define _GNU_SOURCE
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const header[] = {
    "id",          "family",         "group",          "function",  "variant",  "direction",
    "memory",      "size",           "kind",           "op_stream", "busy",     "status",
    "symbol",      "host",           "op_after",       "third_blocking", "third_nonblocking",
    "src",         "dst",            "idle_call_us",   "call_us_median", "conformance", "clauses",
    "reason",      NULL};

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

/* Numbers as the matrix records them: microseconds to 0.1, sizes whole. */
static void put_value(FILE *f, const json_t *v)
{
    if (json_is_string(v))
        cts_csv_text(f, json_string_value(v));
    else if (json_is_integer(v))
        fprintf(f, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        fprintf(f, "%.1f", json_real_value(v));
    else if (json_is_true(v))
        fputs("true", f);
    else if (json_is_false(v))
        fputs("false", f);
    /* null, absent, or a container: empty */
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int put_case(FILE *f, const char *id, const json_t *c)
{
    static const char *const top[] = {"family", "group",     "function", "variant", "direction", "memory",
                                      "size",   "kind",      "op_stream", "busy",   "status",    "symbol",
                                      NULL};
    static const char *const verdict[] = {"host", "op_after", "third_blocking", "third_nonblocking",
                                          "src",  "dst",      NULL};
    const json_t *ver = json_object_get(c, "verdict");
    const json_t *ev = json_object_get(c, "evidence");
    const json_t *spec = json_object_get(c, "spec");
    double med;

    cts_csv_text(f, id);
    for (int i = 0; top[i]; i++) {
        fputc(',', f);
        put_value(f, json_object_get(c, top[i]));
    }
    for (int i = 0; verdict[i]; i++) {
        fputc(',', f);
        put_value(f, json_object_get(ver, verdict[i]));
    }
    fputc(',', f);
    put_value(f, json_object_get(ev, "idle_call_us"));
    fputc(',', f);
    med = cts_call_median(ev);
    if (!isnan(med))
        fprintf(f, "%.1f", med);
    fputc(',', f);
    put_value(f, json_object_get(spec, "conformance"));
    fputc(',', f);
    {
        /* The clause ids, joined with ';', as one field. */
        const json_t *cl = json_object_get(spec, "clauses");
        size_t len = 1;
        for (size_t i = 0; i < json_array_size(cl); i++)
            len += json_string_length(json_object_get(json_array_get(cl, i), "id")) + 1;
        char *buf = malloc(len);
        if (!buf)
            return -1;
        buf[0] = 0;
        for (size_t i = 0; i < json_array_size(cl); i++) {
            const char *cid = json_string_value(json_object_get(json_array_get(cl, i), "id"));
            if (cid) {
                if (buf[0])
                    strcat(buf, ";");
                strcat(buf, cid);
            }
        }
        cts_csv_text(f, buf);
        free(buf);
    }
    fputc(',', f);
    put_value(f, json_object_get(c, "reason"));
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

    for (int i = 0; header[i]; i++)
        fprintf(f, "%s%s", i ? "," : "", header[i]);
    fputs("\r\n", f);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        rc = put_case(f, ids[i], json_object_get(cases, ids[i]));
    free(ids);
    return rc || ferror(f) ? -1 : 0;
}
