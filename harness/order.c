/* How reports order and name cases: the Markdown and HTML renderings and
 * the citations share it, so that they list and word cases alike. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

const char *const cts_busy_columns[CTS_BUSY_COLUMNS + 1] = {
    "same", "legacy", "blocking", "nonblocking", "perthread", "thread_legacy", "thread_perthread",
    "hostfn", NULL};

const char *cts_json_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

const char *cts_json_path_str(const json_t *o, const char *a, const char *b)
{
    return cts_json_str(json_object_get(o, a), b);
}

#define str cts_json_str

/* Position of s in a NULL-terminated list; unknown values sort last. */
static int rank(const char *const *list, const char *s)
{
    int i = 0;
    for (; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return i;
    return i;
}

int cts_busy_column(const char *busy) { return rank(cts_busy_columns, busy); }

static const char *const mem_order[] = {"pageable", "pinned", "portable", "mapped", "wc",
                                        "registered", "managed", "device", NULL};
static const char *const op_order[] = {"implied", "null", "legacy", "perthread",
                                       "blocking", "nonblocking", NULL};
static const char *const dir_order[] = {"h2d", "d2h", "d2d", "h2h", NULL};
static const char *const kind_order[] = {"explicit", "default", NULL};

/* APIs in declaration order; unknown ones last. */
static int api_rank(const char *s)
{
    int i = 0;
    for (; i < CTS_API_COUNT; i++)
        if (strcmp(cts_api_token(i), s) == 0)
            break;
    return i;
}

int cts_case_order(const json_t *a, const json_t *b)
{
    int d = api_rank(str(a, "api")) - api_rank(str(b, "api"));
    if (d)
        return d;
    if ((d = strcmp(str(a, "variant"), str(b, "variant"))))
        return d;
    if ((d = rank(dir_order, str(a, "direction")) - rank(dir_order, str(b, "direction"))))
        return d;
    if ((d = strcmp(str(a, "group"), str(b, "group")))) /* each group contiguous, whatever its name */
        return d;
    if ((d = rank(mem_order, str(a, "memory")) - rank(mem_order, str(b, "memory"))))
        return d;
    json_int_t sa = json_integer_value(json_object_get(a, "size"));
    json_int_t sb = json_integer_value(json_object_get(b, "size"));
    if (sa != sb)
        return sa < sb ? -1 : 1;
    if ((d = rank(kind_order, str(a, "kind")) - rank(kind_order, str(b, "kind"))))
        return d;
    if ((d = rank(op_order, str(a, "op_stream")) - rank(op_order, str(b, "op_stream"))))
        return d;
    return cts_busy_column(str(a, "busy")) - cts_busy_column(str(b, "busy"));
}

const char *cts_dir_words(const char *d)
{
    if (!strcmp(d, "h2d")) return "host to device";
    if (!strcmp(d, "d2h")) return "device to host";
    if (!strcmp(d, "d2d")) return "device to device";
    if (!strcmp(d, "h2h")) return "host to host";
    return d;
}

static int cmp_row(const void *pa, const void *pb)
{
    const struct cts_row *a = pa, *b = pb;
    int d = cts_case_order(a->c, b->c);
    return d ? d : strcmp(a->id, b->id);
}

struct cts_row *cts_sorted_cases(const json_t *m, size_t *n)
{
    const json_t *cases = json_object_get(m, "cases");
    size_t k = 0, total = json_object_size(cases);
    struct cts_row *rows = calloc(total ? total : 1, sizeof *rows);
    const char *id;
    json_t *c;
    if (!rows)
        return NULL;
    json_object_foreach((json_t *)cases, id, c)
    {
        rows[k].id = id;
        rows[k++].c = c;
    }
    qsort(rows, k, sizeof *rows, cmp_row);
    *n = k;
    return rows;
}
