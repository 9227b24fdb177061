/* sync-cts thresholds: the rows it searches -- those whose outcome differs
 * between sample sizes in the matrix, and the catalogue's (thresholds.c: the
 * command and the search). */
#define _GNU_SOURCE
#include "thresholds_int.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cts_th_axis_name[] = {NULL, "width", "rows"};

/* Rows searched whatever the matrix shows (issue 13's list): the pageable
 * host-to-device copies, the pageable device-to-host ones, a 2D copy, the
 * managed copies, the driver API's copies and every memset, each with the
 * held work in its own stream (op_blocking) or the implied one. */
static const char *const catalogue[] = {
    "memcpy_async.h2d.pageable.explicit.op_blocking.busy_same",
    "memcpy.h2d.pageable.explicit.op_implied.busy_same",
    "memcpy_async.d2h.pageable.explicit.op_blocking.busy_same",
    "memcpy.d2h.pageable.explicit.op_implied.busy_same",
    "memcpy2d_async.h2d.pageable.explicit.op_blocking.busy_same",
    "memcpy_async.h2d.managed.explicit.op_blocking.busy_same",
    "memcpy.h2d.managed.explicit.op_implied.busy_same",
    "cu_memcpy_htod_async.h2d.pageable.op_blocking.busy_same",
    "cu_memcpy_htod.h2d.pageable.op_implied.busy_same",
    "memset.*.op_implied.busy_same",
    "memset_async.*.op_blocking.busy_same",
};

/* The row id of a sized case: its id without the size segment. */
static void row_id(const struct cts_case *c, char *buf, size_t len)
{
    struct cts_case r = *c;
    r.size_idx = -1;
    if (cts_case_make_id(&r))
        r.id[0] = '\0';
    snprintf(buf, len, "%s", r.id);
}

/* Case id -> "STATUS:symbol" of every case of the matrix. */
json_t *cts_th_outcomes(const json_t *m)
{
    json_t *out = json_object();
    const char *id;
    json_t *c;
    json_object_foreach(json_object_get(m, "cases"), id, c) {
        json_t *sym = json_object_get(c, "symbol");
        char buf[64];
        snprintf(buf, sizeof buf, "%s:%s", json_string_value(json_object_get(c, "status")),
                 json_is_string(sym) ? json_string_value(sym) : "");
        json_object_set_new(out, id, json_string(buf));
    }
    return out;
}

/* Whether the decided outcomes (PASS, VARIES) at a row's sample sizes differ. */
static int outcomes_differ(const json_t *samples)
{
    const char *label, *first = NULL;
    json_t *v;
    json_object_foreach((json_t *)samples, label, v) {
        const char *s = json_string_value(v);
        if (strncmp(s, "PASS:", 5) && strncmp(s, "VARIES:", 7))
            continue;
        if (!first)
            first = s;
        else if (strcmp(first, s))
            return 1;
    }
    return 0;
}

static int in_catalogue(const char *id)
{
    for (size_t k = 0; k < sizeof catalogue / sizeof *catalogue; k++)
        if (fnmatch(catalogue[k], id, 0) == 0)
            return 1;
    return 0;
}

/* For each kept 2D copy row (a height and no depth), its two one-dimension
 * rows after it; rows has room for count.  The new count. */
static size_t add_axes(struct row *rows, size_t n, size_t count)
{
    size_t total = n;
    for (size_t i = 0; i < n; i++) {
        const struct cts_case *b = rows[i].base;
        if (!b->height || b->depth || b->family->resize == NULL)
            continue;
        for (enum axis a = AXIS_WIDTH; a <= AXIS_ROWS && total < count; a++) {
            struct row *r = &rows[total++];
            *r = rows[i];
            r->axis = a;
            r->samples = json_incref(rows[i].samples);
            snprintf(r->id, sizeof r->id, "%s.by_%s", rows[i].id, cts_th_axis_name[a]);
        }
    }
    return total;
}

/* The rows: from the matrix, those whose decided outcomes differ between
 * sizes; with the catalogue, its rows too; all matching glob. */
struct row *cts_th_rows(json_t *outcomes, int with_catalogue, const char *glob, size_t *nrows)
{
    size_t n = 0, count;
    const struct cts_case *all = cts_all_cases(&count);
    struct row *rows = calloc(count, sizeof *rows);
    json_t *index = json_object();
    if (!rows || !index) {
        free(rows);
        json_decref(index);
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        const struct cts_case *c = &all[i];
        /* A case its family measures (capture, depth, overlap) is no probe the engine can run: no threshold. */
        if (c->size_idx < 0 || c->family->measure)
            continue;
        char id[CTS_ID_MAX];
        row_id(c, id, sizeof id);
        if (!id[0] || (glob && fnmatch(glob, id, 0)))
            continue;
        json_t *k = json_object_get(index, id);
        struct row *r;
        if (k) {
            r = &rows[json_integer_value(k)];
        } else {
            r = &rows[n];
            snprintf(r->id, sizeof r->id, "%s", id);
            r->base = c;
            r->samples = json_object();
            json_object_set_new(index, id, json_integer((json_int_t)n++));
        }
        json_t *o = json_object_get(outcomes, c->id);
        if (o)
            json_object_set(r->samples, cts_size_token(c->size_idx), o);
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        struct row *r = &rows[i];
        r->from_matrix = outcomes_differ(r->samples);
        /* data-order rows: where the matrix shows them differ, not by the list's globs */
        r->from_catalogue = with_catalogue && !r->base->writes && in_catalogue(r->id);
        if (r->from_matrix || r->from_catalogue)
            rows[kept++] = *r;
        else
            json_decref(r->samples);
    }
    kept = add_axes(rows, kept, count);
    json_decref(index);
    *nrows = kept;
    return rows;
}

/* What cts_th_rows returned: each row's samples, and the rows. */
void cts_th_rows_free(struct row *rows, size_t nrows)
{
    for (size_t i = 0; i < nrows; i++)
        json_decref(rows[i].samples);
    free(rows);
}
