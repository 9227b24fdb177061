/* The matrix: one JSON document per run, sorted keys, a schema version, the
 * environment, and one object per case keyed by its id. */
#define _GNU_SOURCE
#include "matrix.h"
#include "outcome.h"
#include "outcomes/evidence.h"
#include "spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

json_t *cts_verdict_json(const struct cts_verdict *vd, int pass)
{
    /* A field that is not in every verdict is left out where it has no value
     * (older matrices lack it). */
    json_t *v = json_object();
    CTS_FOR_EACH_OUTCOME(o) {
        const char *name = pass ? cts_outcome_name(vd, o) : NULL;
        if (name || o->always)
            json_object_set_new(v, o->key, name_or_null(name));
        if (name && cts_outcome_counted(vd, o))
            json_object_set_new(v, o->count_key, json_integer((json_int_t)cts_outcome_count_in(vd, o)));
    }
    return v;
}

/* Per repetition; an array that holds nothing is left out, and so are
 * rep_timeout_us and rep_window_us where every repetition was decided
 * at timeout_us and window_us.  tracked_from_*: the shorter-timeout
 * attempt a repetition's wait was proven against (see rep.c);
 * run_delay_us: how long the call's thread waited for a processor during
 * the call, where it was 100 us or more (a tracked wait: the more of its two);
 * others_delay_us: a tracked wait's, what the process's other threads waited
 * for one in the attempt that tracked it, in all, where 100 us or more. */
static void rep_arrays_json(json_t *ev, const struct cts_result *r)
{
    enum { N = 19 };
    const char *names[N] = {"call_us", "release_to_return_us", "op_after_gpu_us",
                            "third_blocking_gpu_us", "third_nonblocking_gpu_us", "host", "src", "dst",
                            "rep_timeout_us", "tracked_from_timeout_us", "tracked_from_call_us",
                            "rep_window_us", "data", "data_new_bytes", "data_boundary", "reader", "landed",
                            "run_delay_us", "others_delay_us"};
    json_t *arr[N];
    for (int k = 0; k < N; k++)
        arr[k] = json_array();
    int own_timeouts = 0, own_windows = 0;
    for (int i = 0; i < r->nreps; i++) {
        const struct cts_rep *p = &r->reps[i];
        own_timeouts |= !isnan(p->timeout_us) && p->timeout_us != r->timeout_us;
        own_windows |= !isnan(p->window_us) && p->window_us != r->window_us;
        json_array_append_new(arr[8], us(p->timeout_us));
        json_array_append_new(arr[11], us(p->window_us));
        json_array_append_new(arr[9], us(p->tracked_from_timeout_us));
        json_array_append_new(arr[10], us(p->tracked_from_call_us));
        json_array_append_new(arr[0], us(p->call_us));
        json_array_append_new(arr[1], us(p->release_to_return_us));
        json_array_append_new(arr[2], us(p->op_after_gpu_us));
        json_array_append_new(arr[3], us(p->third_blocking_gpu_us));
        json_array_append_new(arr[4], us(p->third_nonblocking_gpu_us));
        json_array_append_new(arr[5], name_or_null(cts_host_name(p->host)));
        json_array_append_new(arr[6], name_or_null(cts_src_name(p->src)));
        json_array_append_new(arr[7], name_or_null(cts_dst_name(p->dst)));
        json_array_append_new(arr[12], name_or_null(cts_data_name(p->data)));
        json_array_append_new(arr[13], p->data_new_bytes >= 0 ? json_integer(p->data_new_bytes) : json_null());
        json_array_append_new(arr[14], p->data_boundary >= 0 ? json_integer(p->data_boundary) : json_null());
        json_array_append_new(arr[15], name_or_null(cts_reader_name(p->reader)));
        json_array_append_new(arr[16], name_or_null(cts_dst_name(p->landed)));
        json_array_append_new(arr[17], us(p->run_delay_us));
        json_array_append_new(arr[18], us(p->others_delay_us));
    }
    if (!own_timeouts)
        json_array_clear(arr[8]);
    if (!own_windows)
        json_array_clear(arr[11]);
    for (int k = 0; k < N; k++) {
        int any = 0;
        for (size_t i = 0; i < json_array_size(arr[k]); i++)
            any |= !json_is_null(json_array_get(arr[k], i));
        if (any)
            json_object_set_new(ev, names[k], arr[k]);
        else
            json_decref(arr[k]);
    }
}

/* A kind's evidence.<key> (outcome.h): one array a measurement names[k], a
 * value a repetition (value(rep, k)); left out where no repetition has(rep). */
static void per_rep(json_t *ev, const struct cts_evidence *d, const struct cts_result *r)
{
    int any = 0;
    for (int i = 0; i < r->nreps; i++)
        any |= d->has(&r->reps[i]);
    if (!any)
        return;
    json_t *o = json_object();
    for (int k = 0; k < d->count; k++) {
        json_t *a = json_array();
        for (int i = 0; i < r->nreps; i++)
            json_array_append_new(a, d->value(&r->reps[i], k));
        json_object_set_new(o, d->names[k], a);
    }
    json_object_set_new(ev, d->key, o);
}

/* The call from 1, 4 and 16 threads at once on an idle GPU (harness/engine/latency.c). */
static json_t *latency_json(const struct cts_result *r)
{
    json_t *a = json_array();
    for (int k = 0; k < CTS_LATENCY_COUNTS; k++) {
        const struct cts_latency *l = &r->latency[k];
        json_array_append_new(a, json_pack("{s:i,s:i,s:o,s:o,s:o}", "threads", l->threads, "calls", l->calls,
                                           "median_us", us(l->median_us), "p99_us", us(l->p99_us), "max_us",
                                           us(l->max_us)));
    }
    return a;
}

static json_t *evidence_json(const struct cts_result *r)
{
    json_t *ev = json_object();
    json_object_set_new(ev, "repetitions", json_integer(r->nreps));
    json_object_set_new(ev, "idle_call_us", us(r->nreps ? r->idle_call_us : NAN));
    json_object_set_new(ev, "idle_call_max_us", us(r->nreps ? r->idle_call_max_us : NAN));
    json_object_set_new(ev, "idle_complete_us", us(r->nreps ? r->idle_complete_us : NAN));
    if (r->latency[0].threads)
        json_object_set_new(ev, "latency", latency_json(r));
    if (r->latency_error[0])
        json_object_set_new(ev, "latency_error", json_string(r->latency_error));
    json_object_set_new(ev, "timeout_us", us(r->nreps ? r->timeout_us : NAN));
    json_object_set_new(ev, "window_us", us(r->nreps ? r->window_us : NAN));
    json_object_set_new(ev, "window_retries", json_integer(r->window_retries));
    json_object_set_new(ev, "timeout_retries", json_integer(r->timeout_retries));
    if (r->late_holds_tracked)
        json_object_set_new(ev, "late_holds_tracked", json_integer(r->late_holds_tracked));
    if (r->rechecked)
        json_object_set_new(ev, "rechecked", json_integer(r->rechecked));
    if (r->perturbed_retries)
        json_object_set_new(ev, "perturbed_retries", json_integer(r->perturbed_retries));
    if (r->waits_tracked)
        json_object_set_new(ev, "waits_tracked", json_integer(r->waits_tracked));
    if (r->holds_tracked[0] + r->holds_tracked[1] + r->holds_tracked[2])
        json_object_set_new(ev, "holds_tracked",
                            json_pack("{s:i,s:i,s:i}", "op_after", r->holds_tracked[0], "third_blocking",
                                      r->holds_tracked[1], "third_nonblocking", r->holds_tracked[2]));
    json_object_set_new(ev, "control",
                        r->nreps ? json_pack("{s:s?,s:s?,s:s?,s:b}", "op_after",
                                             cts_order_name(r->control.op_after), "third_blocking",
                                             cts_order_name(r->control.third_blocking),
                                             "third_nonblocking",
                                             cts_order_name(r->control.third_nonblocking),
                                             "with_case_setup", r->control_own)
                                 : json_null());
    rep_arrays_json(ev, r);
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++)
        for (int e = 0; e < CTS_EVIDENCE_MAX && cts_outcomes[k]->evidence[e]; e++)
            per_rep(ev, cts_outcomes[k]->evidence[e], r);
    return ev;
}

json_t *cts_case_json(const struct cts_case *c, const struct cts_result *r)
{
    char group[CTS_ID_MAX];
    cts_case_group(c, group, sizeof group);

    json_t *j = json_object();
    json_object_set_new(j, "family", json_string(c->family->name));
    json_object_set_new(j, "group", json_string(group));
    json_object_set_new(j, "api", json_string(cts_api_token(c->api)));
    json_object_set_new(j, "variant", name_or_null(c->variant));
    if (c->with) /* the overlap and stall families' cases only: older matrices lack it */
        json_object_set_new(j, "with", json_string(c->with));
    if (c->writes) /* data order: the held work writes the source (older matrices lack it) */
        json_object_set_new(j, "writes", json_true());
    if (c->capture != CTS_CAPTURE_NONE) { /* the capture family's cases only */
        json_object_set_new(j, "capture", json_string(cts_capture_token(c->capture)));
        json_object_set_new(j, "capture_by", json_string(cts_capture_token(c->capture_by)));
    }
    json_object_set_new(j, "function", json_string(cts_api_function(c->api)));
    json_object_set_new(j, "direction", c->dir == CTS_DIR_NONE ? json_null() : json_string(cts_dir_token(c->dir)));
    int mem = c->mem >= 0, sized = c->size_idx >= 0;
    json_object_set_new(j, "memory", mem ? json_string(cts_mem_token(c->mem)) : json_null());
    json_object_set_new(j, "allocator", mem ? json_string(cts_mem_allocator(c->mem)) : json_null());
    json_object_set_new(j, "size", sized ? json_integer((json_int_t)c->size) : json_null());
    json_object_set_new(j, "size_label", sized ? json_string(cts_size_token(c->size_idx)) : json_null());
    json_object_set_new(j, "kind", c->kind == CTS_KIND_NONE ? json_null() : json_string(cts_kind_token(c->kind)));
    json_object_set_new(j, "copy_kind", name_or_null(cts_copy_kind_name(c)));
    json_object_set_new(j, "shape", c->height ? json_pack("{s:I,s:I,s:I,s:I}", "width", (json_int_t)c->width,
                                                          "pitch", (json_int_t)c->width, "height",
                                                          (json_int_t)c->height, "depth",
                                                          (json_int_t)(c->depth ? c->depth : 1))
                                              : json_null());
    json_object_set_new(j, "op_stream", json_string(cts_op_token(c->op) + 3));
    json_object_set_new(j, "busy", json_string(cts_busy_token(c->busy) + 5));
    json_object_set_new(j, "status", json_string(cts_status_name(r->status)));
    json_object_set_new(j, "reason", r->reason[0] ? json_string(r->reason) : json_null());
    json_object_set_new(j, "symbol", r->symbol[0] ? json_string(r->symbol) : json_null());

    /* VARIES keeps the fields its repetitions agree on. */
    json_object_set_new(j, "verdict", cts_verdict_json(&r->verdict, r->status == CTS_PASS || r->status == CTS_VARIES));
    json_object_set_new(j, "evidence", evidence_json(r));
    /* What the documentation says of it, judged against what was observed. */
    json_object_set_new(j, "spec", cts_spec_case_json(c, j, cts_build_per_thread()));
    return j;
}

json_t *cts_matrix_new(json_t *environment, json_t *run, json_t *cases)
{
    return json_pack("{s:s,s:i,s:o,s:o,s:o,s:o}", "schema", CTS_MATRIX_SCHEMA, "schema_version",
                     CTS_SCHEMA_VERSION, "environment", environment, "run", run, "cases", cases,
                     "spec", cts_spec_table_json());
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Writes s, then frees it; -1 if s is NULL or the write fails. */
static int put(FILE *f, char *s)
{
    int rc = s && fputs(s, f) != EOF ? 0 : -1;
    free(s);
    return rc;
}

/* Sorted keys everywhere, and one case a line, so that a git diff of two
 * matrices shows exactly the cases that changed.  Every piece is
 * serialized by jansson; only the layout between pieces is ours. */
int cts_matrix_dump(const json_t *m, FILE *f)
{
    const size_t flags = JSON_SORT_KEYS | JSON_REAL_PRECISION(12);
    size_t n = json_object_size(m), k = 0;
    const char **keys = calloc(n ? n : 1, sizeof *keys);
    const char *key;
    json_t *v;
    int rc = keys ? 0 : -1;
    json_object_foreach((json_t *)m, key, v)
        if (keys)
            keys[k++] = key;
    if (keys)
        qsort(keys, n, sizeof *keys, cmp_key);
    rc |= fputs("{\n", f) == EOF;
    for (size_t i = 0; i < n && !rc; i++) {
        json_t *name = json_string(keys[i]);
        rc |= put(f, json_dumps(name, JSON_ENCODE_ANY));
        json_decref(name);
        rc |= fputs(": ", f) == EOF;
        v = json_object_get(m, keys[i]);
        if (strcmp(keys[i], "cases") == 0 && json_is_object(v) && json_object_size(v)) {
            size_t nc = json_object_size(v), j = 0;
            const char **ids = calloc(nc, sizeof *ids);
            json_t *c;
            if (!ids) {
                rc = -1;
                break;
            }
            json_object_foreach(v, key, c)
                ids[j++] = key;
            qsort(ids, nc, sizeof *ids, cmp_key);
            rc |= fputs("{\n", f) == EOF;
            for (j = 0; j < nc && !rc; j++) {
                json_t *id = json_string(ids[j]);
                rc |= put(f, json_dumps(id, JSON_ENCODE_ANY));
                json_decref(id);
                rc |= fputs(": ", f) == EOF;
                rc |= put(f, json_dumps(json_object_get(v, ids[j]), flags | JSON_COMPACT));
                rc |= fputs(j + 1 < nc ? ",\n" : "\n", f) == EOF;
            }
            rc |= fputs("}", f) == EOF;
            free(ids);
        } else {
            rc |= put(f, json_dumps(v, flags | JSON_INDENT(1) | JSON_ENCODE_ANY));
        }
        rc |= fputs(i + 1 < n ? ",\n" : "\n", f) == EOF;
    }
    rc |= fputs("}\n", f) == EOF;
    free(keys);
    return rc ? -1 : 0;
}

/* gzip through zlib: the header zlib writes carries no name and no time, so
 * the same matrix always compresses to the same bytes. */
int cts_matrix_dump_gz(const json_t *m, FILE *f)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return -1;
    int rc = cts_matrix_dump(m, mem);
    rc |= fclose(mem) != 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (rc || deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(text);
        return -1;
    }
    z.next_in = (unsigned char *)text;
    z.avail_in = (uInt)len;
    unsigned char out[1 << 16];
    int zr;
    do {
        z.next_out = out;
        z.avail_out = sizeof out;
        zr = deflate(&z, Z_FINISH);
        size_t have = sizeof out - z.avail_out;
        if (zr == Z_STREAM_ERROR || fwrite(out, 1, have, f) != have)
            rc = -1;
    } while (!rc && zr != Z_STREAM_END);
    deflateEnd(&z);
    free(text);
    return rc ? -1 : 0;
}
