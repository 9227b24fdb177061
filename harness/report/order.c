/* How reports order and name cases: the Markdown and HTML renderings list
 * cases in this order, and every report words a direction alike. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

const char *const cts_busy_columns[CTS_BUSY_COLUMNS + 1] = {
    "same", "legacy", "blocking", "nonblocking", "perthread", "thread_legacy", "thread_perthread",
    "hostfn", "same_hostfn", NULL};

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
int cts_capture_column(const char *busy) { return rank(cts_capture_columns, busy); }

static const char *const mem_order[] = {"pageable", "pinned", "portable", "mapped", "wc",
                                        "registered", "managed", "device", NULL};
static const char *const op_order[] = {"implied", "null", "legacy", "perthread",
                                       "blocking", "nonblocking", NULL};
static const char *const dir_order[] = {"h2d", "d2h", "d2d", "h2h", NULL};
static const char *const kind_order[] = {"explicit", "default", NULL};
static const char *const capture_order[] = {"", "global", "thread_local", "relaxed", NULL};
/* The capture family's placements, its tables' columns (docs/method.md, "Stream capture"). */
const char *const cts_capture_columns[CTS_CAPTURE_COLUMNS + 1] = {
    "same", "blocking", "nonblocking", "legacy", "perthread", "thread_same", "thread_legacy", "thread_perthread",
    "thread_peer", NULL};

/* The peer family's placements (docs/method.md, "Across devices"): this device's streams, then the peer's. */
const char *const cts_peer_columns[CTS_PEER_COLUMNS + 1] = {
    "same", "legacy", "blocking", "nonblocking", "peer_legacy", "peer_blocking", "peer_nonblocking", "both", NULL};

/* The process family's: a second process's stream, on this device or the peer. */
static const char *const process_columns[] = {"other_process", "other_process_peer", NULL};

struct cts_columns cts_columns_of(const struct cts_case_view *v)
{
    if (!strcmp(v->family, "process"))
        return (struct cts_columns){process_columns, 2, "held by a second process (this device; the peer)"};
    if (*v->capture)
        return (struct cts_columns){cts_capture_columns, CTS_CAPTURE_COLUMNS, "where the call was made"};
    if (!strcmp(v->family, "peer"))
        return (struct cts_columns){cts_peer_columns, CTS_PEER_COLUMNS, "busy placement (this device; the peer)"};
    return (struct cts_columns){cts_busy_columns, CTS_BUSY_COLUMNS, "busy placement"};
}

int cts_column_in(struct cts_columns cols, const char *busy) { return rank(cols.names, busy); }

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

struct cts_case_rank cts_case_rank(const struct cts_case_view *v)
{
    return (struct cts_case_rank){.api = api_rank(v->api),
                                  .direction = rank(dir_order, v->direction),
                                  .memory = rank(mem_order, v->memory),
                                  .kind = rank(kind_order, v->kind),
                                  .op_stream = rank(op_order, v->op_stream),
                                  .busy = cts_busy_column(v->busy)};
}

/* Declaration order (0 on a tie: callers break it by id). */
static int view_order(const struct cts_case_view *a, const struct cts_case_view *b)
{
    int d = a->rank.api - b->rank.api;
    if (d)
        return d;
    if ((d = strcmp(a->variant, b->variant)))
        return d;
    if ((d = a->rank.direction - b->rank.direction))
        return d;
    if ((d = strcmp(a->group, b->group))) /* each group contiguous, whatever its name */
        return d;
    if ((d = strcmp(a->with, b->with))) /* the overlap family's B: its rows together */
        return d;
    if ((d = rank(capture_order, a->capture_by) - rank(capture_order, b->capture_by))) /* the capture family's */
        return d;
    if ((d = a->rank.memory - b->rank.memory))
        return d;
    if (a->size != b->size)
        return a->size < b->size ? -1 : 1;
    if ((d = a->rank.kind - b->rank.kind))
        return d;
    if ((d = a->rank.op_stream - b->rank.op_stream))
        return d;
    return a->rank.busy - b->rank.busy;
}

int cts_same_call_variant(const struct cts_case_view *a, const struct cts_case_view *b)
{
    return !strcmp(a->memory, b->memory) && a->size == b->size && !strcmp(a->kind, b->kind) &&
           !strcmp(a->with, b->with) && !strcmp(a->op_stream, b->op_stream) && !strcmp(a->capture_by, b->capture_by);
}

const char *cts_dir_words(const char *d)
{
    static const struct cts_words words[] = {{"h2d", "host to device"},
                                             {"d2h", "device to host"},
                                             {"d2d", "device to device"},
                                             {"h2h", "host to host"},
                                             {NULL, NULL}};
    return cts_words(words, d);
}

static int cmp_view(const void *pa, const void *pb)
{
    const struct cts_case_view *a = pa, *b = pb;
    int d = view_order(a, b);
    return d ? d : strcmp(a->id, b->id);
}

struct cts_case_view *cts_sorted_cases(const json_t *m, size_t *n)
{
    const json_t *cases = json_object_get(m, "cases");
    size_t k = 0, total = json_object_size(cases);
    struct cts_case_view *rows = calloc(total ? total : 1, sizeof *rows);
    const char *id;
    json_t *c;
    if (!rows)
        return NULL;
    json_object_foreach((json_t *)cases, id, c)
        cts_case_view(&rows[k++], id, c);
    qsort(rows, k, sizeof *rows, cmp_view);
    *n = k;
    return rows;
}
