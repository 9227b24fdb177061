/* How reports order and name cases, and the median they all take: the
 * Markdown and HTML renderings, the citations, the CSV and diff share it, so
 * that they list, word and sum up cases alike. */
#include "report.h"

#include <math.h>
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cts_json_median(const json_t *a)
{
    double v[CTS_MAX_REPEAT];
    size_t k = 0;
    for (size_t i = 0; i < json_array_size(a) && k < CTS_MAX_REPEAT; i++)
        if (json_is_number(json_array_get(a, i)))
            v[k++] = json_number_value(json_array_get(a, i));
    if (!k)
        return NAN;
    qsort(v, k, sizeof *v, cmp_double);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

double cts_call_median(const json_t *ev)
{
    const json_t *call = json_object_get(ev, "call_us"), *own = json_object_get(ev, "rep_timeout_us");
    double timeout = json_number_value(json_object_get(ev, "timeout_us"));
    if (!json_is_array(own) || json_array_size(own) != json_array_size(call))
        return cts_json_median(call);
    json_t *kept = json_array();
    double m = NAN;
    if (kept) {
        for (size_t i = 0; i < json_array_size(call); i++)
            if (json_number_value(json_array_get(own, i)) == timeout)
                json_array_append(kept, json_array_get(call, i));
        m = cts_json_median(json_array_size(kept) ? kept : call);
        json_decref(kept);
    }
    return m;
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

/* APIs in declaration order; unknown ones last.  A sorted index of the
 * tokens, built once, so that ranking 19,017 cases is not a linear scan each. */
static int api_index[CTS_API_COUNT];

static int cmp_api(const void *a, const void *b)
{
    return strcmp(cts_api_token(*(const int *)a), cts_api_token(*(const int *)b));
}

static int api_rank(const char *s)
{
    static int built;
    if (!built) {
        for (int i = 0; i < CTS_API_COUNT; i++)
            api_index[i] = i;
        qsort(api_index, CTS_API_COUNT, sizeof *api_index, cmp_api);
        built = 1;
    }
    size_t lo = 0, hi = CTS_API_COUNT;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int d = strcmp(cts_api_token(api_index[mid]), s);
        if (!d)
            return api_index[mid];
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return CTS_API_COUNT;
}

/* A row's members, looked up once. */
static void fill_row(struct cts_row *r, const char *id, const json_t *c)
{
    r->id = id;
    r->c = c;
    r->group = str(c, "group");
    r->function = str(c, "function");
    r->variant = str(c, "variant");
    r->direction = str(c, "direction");
    r->memory = str(c, "memory");
    r->size_label = str(c, "size_label");
    r->kind = str(c, "kind");
    r->op_stream = str(c, "op_stream");
    r->busy = str(c, "busy");
    r->status = str(c, "status");
    r->symbol = str(c, "symbol");
    r->reason = str(c, "reason");
    r->size = json_integer_value(json_object_get(c, "size"));
    r->idle = json_object_get(json_object_get(c, "evidence"), "idle_call_us");
    r->spec = json_object_get(c, "spec");
    r->conformance = json_string_value(json_object_get(r->spec, "conformance"));
    r->rank[0] = api_rank(str(c, "api"));
    r->rank[1] = rank(dir_order, r->direction);
    r->rank[2] = rank(mem_order, r->memory);
    r->rank[3] = rank(kind_order, r->kind);
    r->rank[4] = rank(op_order, r->op_stream);
    r->rank[5] = cts_busy_column(r->busy);
}

/* The order of cts_case_order, on rows. */
static int row_order(const struct cts_row *a, const struct cts_row *b)
{
    int d = a->rank[0] - b->rank[0];
    if (d)
        return d;
    if ((d = strcmp(a->variant, b->variant)))
        return d;
    if ((d = a->rank[1] - b->rank[1]))
        return d;
    if ((d = strcmp(a->group, b->group))) /* each group contiguous, whatever its name */
        return d;
    if ((d = a->rank[2] - b->rank[2]))
        return d;
    if (a->size != b->size)
        return a->size < b->size ? -1 : 1;
    if ((d = a->rank[3] - b->rank[3]))
        return d;
    if ((d = a->rank[4] - b->rank[4]))
        return d;
    return a->rank[5] - b->rank[5];
}

int cts_case_order(const json_t *a, const json_t *b)
{
    struct cts_row ra, rb;
    fill_row(&ra, "", a);
    fill_row(&rb, "", b);
    return row_order(&ra, &rb);
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
    int d = row_order(a, b);
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
        fill_row(&rows[k++], id, c);
    qsort(rows, k, sizeof *rows, cmp_row);
    *n = k;
    return rows;
}
