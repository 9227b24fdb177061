/* The matrix: one JSON document per run, sorted keys, a schema version, the
 * environment, and one object per case keyed by its id. */
#define _GNU_SOURCE
#include "cli.h"
#include "report.h"
#include "spec.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* Microseconds, rounded to 0.1; NAN (nothing measured) is null. */
static json_t *us(double x)
{
    return isnan(x) ? json_null() : json_real(round(x * 10.0) / 10.0);
}

static json_t *name_or_null(const char *s) { return s ? json_string(s) : json_null(); }

json_t *cts_case_json(const struct cts_case *c, const struct cts_result *r)
{
    char group[CTS_ID_MAX];
    cts_case_group(c, group, sizeof group);

    json_t *j = json_object();
    json_object_set_new(j, "family", json_string(c->family->name));
    json_object_set_new(j, "group", json_string(group));
    json_object_set_new(j, "api", json_string(cts_api_token(c->api)));
    json_object_set_new(j, "variant", name_or_null(c->variant));
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
    json_t *v = json_object();
    int pass = r->status == CTS_PASS || r->status == CTS_VARIES;
    json_object_set_new(v, "host", name_or_null(pass ? cts_host_name(r->verdict.host) : NULL));
    json_object_set_new(v, "op_after", name_or_null(pass ? cts_order_name(r->verdict.op_after) : NULL));
    json_object_set_new(v, "third_blocking",
                        name_or_null(pass ? cts_order_name(r->verdict.third_blocking) : NULL));
    json_object_set_new(v, "third_nonblocking",
                        name_or_null(pass ? cts_order_name(r->verdict.third_nonblocking) : NULL));
    json_object_set_new(v, "src", name_or_null(pass ? cts_src_name(r->verdict.src) : NULL));
    json_object_set_new(v, "dst", name_or_null(pass ? cts_dst_name(r->verdict.dst) : NULL));
    if (pass && r->verdict.rejected) /* only where the call was rejected: older matrices lack it */
        json_object_set_new(v, "rejected", json_string(r->verdict.rejected));
    json_object_set_new(j, "verdict", v);

    json_t *ev = json_object();
    json_object_set_new(ev, "repetitions", json_integer(r->nreps));
    json_object_set_new(ev, "idle_call_us", us(r->nreps ? r->idle_call_us : NAN));
    json_object_set_new(ev, "idle_call_max_us", us(r->nreps ? r->idle_call_max_us : NAN));
    json_object_set_new(ev, "idle_complete_us", us(r->nreps ? r->idle_complete_us : NAN));
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
    /* Per repetition; an array that holds nothing is left out, and so are
     * rep_timeout_us and rep_window_us where every repetition was decided
     * at timeout_us and window_us.  tracked_from_*: the shorter-timeout
     * attempt a repetition's wait was proven against (see rep.c). */
    enum { N = 12 };
    const char *names[N] = {"call_us", "release_to_return_us", "op_after_gpu_us",
                            "third_blocking_gpu_us", "third_nonblocking_gpu_us", "host", "src", "dst",
                            "rep_timeout_us", "tracked_from_timeout_us", "tracked_from_call_us",
                            "rep_window_us"};
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
    json_object_set_new(j, "evidence", ev);
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

/* The whole file, inflated if it is gzip.  NULL and a reason on failure. */
static char *read_matrix_text(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    char *raw = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            char *bigger = realloc(raw, cap = cap ? 2 * cap : 1 << 20);
            if (!bigger)
                break;
            raw = bigger;
        }
        size_t got = fread(raw + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f) || n == cap;
    fclose(f);
    if (bad) {
        free(raw);
        snprintf(err, errlen, "cannot read '%s'", path);
        return NULL;
    }
    if (n < 2 || (unsigned char)raw[0] != 0x1f || (unsigned char)raw[1] != 0x8b) {
        *len = n;
        return raw;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        free(raw);
        snprintf(err, errlen, "cannot read '%s': zlib would not start", path);
        return NULL;
    }
    /* The gzip trailer's ISIZE (the length mod 2^32) sizes the buffer once. */
    size_t isize = n < 18 ? 0
                          : (size_t)(unsigned char)raw[n - 4] | (size_t)(unsigned char)raw[n - 3] << 8 |
                                (size_t)(unsigned char)raw[n - 2] << 16 | (size_t)(unsigned char)raw[n - 1] << 24;
    size_t tcap = isize && isize < ((size_t)1 << 31) ? isize + 1 : 0, tn = 0;
    char *text = tcap ? malloc(tcap) : NULL;
    if (!text)
        tcap = 0;
    int zr = Z_OK;
    z.next_in = (unsigned char *)raw;
    z.avail_in = (uInt)n;
    while (zr == Z_OK) {
        if (tn == tcap) {
            char *bigger = realloc(text, tcap = tcap ? 2 * tcap : 4 * n + 4096);
            if (!bigger)
                break;
            text = bigger;
        }
        z.next_out = (unsigned char *)text + tn;
        z.avail_out = (uInt)(tcap - tn);
        zr = inflate(&z, Z_NO_FLUSH);
        tn = tcap - z.avail_out;
        if (zr == Z_BUF_ERROR && z.avail_in == 0)
            break; /* the input ended before the stream did */
        if (zr == Z_BUF_ERROR)
            zr = Z_OK; /* only the output was full */
    }
    inflateEnd(&z);
    free(raw);
    if (zr != Z_STREAM_END) {
        free(text);
        snprintf(err, errlen, "'%s' is a truncated or damaged gzip file", path);
        return NULL;
    }
    *len = tn;
    return text;
}

/* ---- memory for loaded matrices ---------------------------------------------
 *
 * A committed matrix is some 1.2 million JSON values.  Allocated one by one
 * with malloc, and freed one by one, they cost more than parsing them.  So
 * whatever jansson allocates while it decodes a matrix comes from a bump
 * arena (json_set_alloc_funcs): a block of chunks that is never freed value
 * by value.  A tree loaded whole stays until the process ends; a case read
 * on its own (cts_matrix_load_each) is dropped by rewinding the arena to
 * where it began.  Outside a load, jansson allocates with malloc as usual,
 * and a free of anything not in the arena is a plain free. */

struct chunk {
    char *base;
    size_t size, used;
};
#define ARENA_CHUNKS 48
struct arena {
    struct chunk c[ARENA_CHUNKS];
    int n, cur;
};
/* [0] is the process's; [1] a second thread's, while it reads half of a
 * matrix's cases (read_cases_in_two below). */
struct arena cts_mx_arenas[2];
_Thread_local struct arena *cts_mx_arena_mine = &cts_mx_arenas[0];
_Thread_local int cts_mx_arena_on;
/* While two threads read, each frees only what it allocated itself: this
 * thread's arena is the only one to look in (the other is growing). */
_Thread_local int cts_mx_arena_alone;

static void *json_alloc(size_t n)
{
    if (!cts_mx_arena_on)
        return malloc(n);
    struct arena *a = cts_mx_arena_mine;
    n = (n + 15) & ~(size_t)15; /* malloc's alignment */
    while (a->cur < a->n) {
        struct chunk *c = &a->c[a->cur];
        if (c->size - c->used >= n) {
            void *p = c->base + c->used;
            c->used += n;
            return p;
        }
        if (a->cur + 1 == a->n)
            break;
        a->c[++a->cur].used = 0;
    }
    if (a->n == ARENA_CHUNKS)
        return malloc(n); /* still right: json_free frees what is not in a chunk */
    size_t size = (size_t)1 << (20 + (a->n < 6 ? a->n : 6)); /* 1 MiB, doubling to 64 MiB */
    if (size < n)
        size = n;
    char *b = malloc(size);
    if (!b)
        return NULL;
    a->c[a->n] = (struct chunk){b, size, n};
    a->cur = a->n++;
    return b;
}

static int in_arena(const struct arena *a, uintptr_t p)
{
    for (int i = 0; i < a->n; i++)
        if (p >= (uintptr_t)a->c[i].base && p < (uintptr_t)a->c[i].base + a->c[i].size)
            return 1;
    return 0;
}

static void json_free(void *p)
{
    if (!p || in_arena(cts_mx_arena_mine, (uintptr_t)p))
        return;
    if (!cts_mx_arena_alone && in_arena(&cts_mx_arenas[cts_mx_arena_mine == &cts_mx_arenas[0]], (uintptr_t)p))
        return;
    free(p);
}

struct arena_mark {
    int cur;
    size_t used;
};

struct arena_mark cts_mx_arena_mark(void)
{
    struct arena *a = cts_mx_arena_mine;
    return a->n ? (struct arena_mark){a->cur, a->c[a->cur].used} : (struct arena_mark){-1, 0};
}

/* Frees everything allocated in this thread's arena since the mark. */
void cts_mx_arena_rewind(struct arena_mark m)
{
    struct arena *a = cts_mx_arena_mine;
    for (int i = m.cur + 1; i < a->n; i++)
        a->c[i].used = 0;
    a->cur = m.cur < 0 ? 0 : m.cur;
    if (m.cur >= 0)
        a->c[m.cur].used = m.used;
}

void cts_mx_arena_install(void)
{
    static int done;
    if (!done) {
        json_set_alloc_funcs(json_alloc, json_free);
        /* A fixed threshold: blocks of a megabyte or more (a matrix's text,
         * the arena's chunks) are mapped, and unmapped when freed, so that
         * reading matrices one after another does not keep their memory
         * (glibc would otherwise raise the threshold past a freed text's
         * size and serve the next one from the heap). */
        mallopt(M_MMAP_THRESHOLD, 1 << 20);
        done = 1;
    }
}

/* ---- validation ---------------------------------------------------------------
 *
 * Every member a command reads is checked when the matrix is loaded, so that
 * no command has to guess: a wrong type, a missing member or an impossible
 * value is refused with the file, the case and the member named.  Members
 * nothing reads are left alone. */

#define BAD(...) (snprintf(why, len, __VA_ARGS__), -1)
enum { REQ = 0, OPT = 1, NUL = 2 }; /* a member may be absent (OPT) or null (NUL) */

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    default: return "null";
    }
}

/* Member `key` of o (called pre+key in messages): *v, NULL where it may be
 * absent or null and is. */
static int member(const json_t *o, const char *pre, const char *key, int flags, const json_t **v, char *why,
                  size_t len)
{
    *v = json_object_get(o, key);
    if (!*v)
        return flags & OPT ? 0 : BAD("%s%s is missing", pre, key);
    if (json_is_null(*v)) {
        *v = NULL;
        return flags & NUL ? 0 : BAD("%s%s is null", pre, key);
    }
    return 0;
}

static int v_str(const json_t *o, const char *pre, const char *key, int flags, const char **s, char *why,
                 size_t len)
{
    const json_t *v;
    if (member(o, pre, key, flags, &v, why, len))
        return -1;
    if (v && !json_is_string(v))
        return BAD("%s%s is %s, not a string", pre, key, type_name(v));
    if (s)
        *s = v ? json_string_value(v) : NULL;
    return 0;
}

static int v_obj(const json_t *o, const char *pre, const char *key, int flags, const json_t **out, char *why,
                 size_t len)
{
    if (member(o, pre, key, flags, out, why, len))
        return -1;
    if (*out && !json_is_object(*out))
        return BAD("%s%s is %s, not an object", pre, key, type_name(*out));
    return 0;
}

static int v_int(const json_t *o, const char *pre, const char *key, int flags, json_int_t lo, json_int_t hi,
                 json_int_t *out, char *why, size_t len)
{
    const json_t *v;
    if (member(o, pre, key, flags, &v, why, len))
        return -1;
    if (v && !json_is_integer(v))
        return BAD("%s%s is %s, not a whole number", pre, key, type_name(v));
    if (v && (json_integer_value(v) < lo || json_integer_value(v) > hi))
        return BAD("%s%s is %lld, not from %lld to %lld", pre, key, (long long)json_integer_value(v),
                   (long long)lo, (long long)hi);
    if (out)
        *out = v ? json_integer_value(v) : -1;
    return 0;
}

/* A number: finite, and not negative where it is a time (`time`). */
static int number_ok(const json_t *v, int time, const char *pre, const char *key, char *why, size_t len)
{
    if (!json_is_number(v))
        return BAD("%s%s is %s, not a number", pre, key, type_name(v));
    double x = json_number_value(v);
    if (!isfinite(x))
        return BAD("%s%s is not a finite number", pre, key);
    if (time && x < 0)
        return BAD("%s%s is %g: a time cannot be negative", pre, key, x);
    return 0;
}

static int v_num(const json_t *o, const char *pre, const char *key, int flags, int time, char *why, size_t len)
{
    const json_t *v;
    if (member(o, pre, key, flags, &v, why, len))
        return -1;
    return v ? number_ok(v, time, pre, key, why, len) : 0;
}

/* The names an enum has, 1..count-1 (0 is "none": null in the matrix). */
static const char *host_n(int i) { return cts_host_name((enum cts_host)i); }
static const char *order_n(int i) { return cts_order_name((enum cts_order)i); }
static const char *src_n(int i) { return cts_src_name((enum cts_src)i); }
static const char *dst_n(int i) { return cts_dst_name((enum cts_dst)i); }
static const char *conf_n(int i) { return cts_conformance_name((enum cts_conformance)i); }
static const char *about_n(int i) { return i ? cts_about_name((enum cts_about)(i - 1)) : NULL; }
static const char *pred_n(int i) { return i ? cts_pred_name((enum cts_pred)(i - 1)) : NULL; }
struct names {
    const char *(*name)(int);
    int count;
};
static const struct names HOST = {host_n, 3}, ORDER = {order_n, 4}, SRC = {src_n, 4}, DST = {dst_n, 3},
                          CONF = {conf_n, 4}, ABOUT = {about_n, CTS_ABOUT_COUNT + 1}, PRED = {pred_n, 5};

/* The index of a name (null is 0 where NUL allows it), or -1 with a reason. */
static int name_ok(const json_t *v, struct names n, int flags, const char *pre, const char *key, char *why,
                   size_t len)
{
    if (json_is_null(v) && (flags & NUL))
        return 0;
    const char *s = json_string_value(v);
    for (int i = 1; s && i < n.count; i++)
        if (!strcmp(s, n.name(i)))
            return i;
    char list[160] = "";
    for (int i = 1; i < n.count; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i > 1 ? (i + 1 < n.count ? ", " : " or ") : "",
                 n.name(i));
    if (s)
        return BAD("%s%s is \"%.40s\", not %s%s", pre, key, s, list, flags & NUL ? " (or null)" : "");
    return BAD("%s%s is %s, not %s%s", pre, key, type_name(v), list, flags & NUL ? " (or null)" : "");
}

static int v_name(const json_t *o, const char *pre, const char *key, int flags, struct names n, int *idx,
                  char *why, size_t len)
{
    const json_t *v = json_object_get(o, key);
    if (!v) {
        if (flags & OPT) {
            if (idx)
                *idx = 0;
            return 0;
        }
        return BAD("%s%s is missing", pre, key);
    }
    int i = name_ok(v, n, flags, pre, key, why, len);
    if (i < 0)
        return -1;
    if (idx)
        *idx = i;
    return 0;
}

/* The verdict members, in the order they are written (sorted). */
static const char *const verdict_keys[] = {"dst", "host", "op_after", "src", "third_blocking", "third_nonblocking"};

/* Per-repetition arrays: the kind of their elements. */
enum rep_kind { REP_TIME, REP_SIGNED, REP_HOST, REP_SRC, REP_DST };
static const struct {
    const char *key;
    enum rep_kind kind;
} rep_arrays[] = {{"call_us", REP_TIME},
                  {"release_to_return_us", REP_TIME},
                  {"op_after_gpu_us", REP_SIGNED}, /* negative: the marker ran while the gate was closed */
                  {"third_blocking_gpu_us", REP_SIGNED},
                  {"third_nonblocking_gpu_us", REP_SIGNED},
                  {"host", REP_HOST},
                  {"src", REP_SRC},
                  {"dst", REP_DST},
                  {"rep_timeout_us", REP_TIME},
                  {"tracked_from_timeout_us", REP_TIME},
                  {"tracked_from_call_us", REP_TIME},
                  {"rep_window_us", REP_TIME}};

/* How many numbers an array holds. */
static size_t numbers_in(const json_t *a)
{
    size_t k = 0;
    for (size_t i = 0; i < json_array_size(a); i++)
        k += json_is_number(json_array_get(a, i));
    return k;
}

static int check_evidence(const json_t *ev, int status, char *why, size_t len)
{
    static const char *const P = "evidence.";
    int verdict_status = status == CTS_PASS || status == CTS_VARIES;
    json_int_t reps;
    const json_t *ctl, *ht;
    if (v_int(ev, P, "repetitions", REQ, verdict_status ? 1 : 0, CTS_MAX_REPEAT, &reps, why, len) ||
        v_int(ev, P, "window_retries", REQ, 0, INT32_MAX, NULL, why, len) ||
        v_int(ev, P, "timeout_retries", REQ, 0, INT32_MAX, NULL, why, len) ||
        v_int(ev, P, "waits_tracked", OPT, 0, INT32_MAX, NULL, why, len) ||
        v_num(ev, P, "idle_call_us", verdict_status ? REQ : NUL, 1, why, len) ||
        v_num(ev, P, "idle_call_max_us", NUL, 1, why, len) || v_num(ev, P, "idle_complete_us", NUL, 1, why, len) ||
        v_num(ev, P, "timeout_us", NUL, 1, why, len) || v_num(ev, P, "window_us", NUL, 1, why, len) ||
        v_num(ev, P, "drain_max_us", OPT, 1, why, len) || v_obj(ev, P, "holds_tracked", OPT, &ht, why, len) ||
        v_obj(ev, P, "control", NUL, &ctl, why, len))
        return -1;
    static const char *const columns[] = {"op_after", "third_blocking", "third_nonblocking"};
    for (int k = 0; ht && k < 3; k++)
        if (v_int(ht, "evidence.holds_tracked.", columns[k], OPT, 0, INT32_MAX, NULL, why, len))
            return -1;
    if (ctl && (v_name(ctl, "evidence.control.", "op_after", NUL, ORDER, NULL, why, len) ||
                v_name(ctl, "evidence.control.", "third_blocking", NUL, ORDER, NULL, why, len) ||
                v_name(ctl, "evidence.control.", "third_nonblocking", NUL, ORDER, NULL, why, len)))
        return -1;
    const json_t *own = json_object_get(ctl, "with_case_setup");
    if (own && !json_is_boolean(own))
        return BAD("evidence.control.with_case_setup is %s, not true or false", type_name(own));
    for (size_t k = 0; k < sizeof rep_arrays / sizeof *rep_arrays; k++) {
        const char *key = rep_arrays[k].key;
        const json_t *a = json_object_get(ev, key);
        if (!a)
            continue;
        if (!json_is_array(a))
            return BAD("evidence.%s is %s, not an array (one value a repetition)", key, type_name(a));
        if ((json_int_t)json_array_size(a) != reps)
            return BAD("evidence.%s has %zu values, but evidence.repetitions is %lld", key, json_array_size(a),
                       (long long)reps);
        for (size_t i = 0; i < json_array_size(a); i++) {
            const json_t *x = json_array_get(a, i);
            char at[64];
            snprintf(at, sizeof at, "%s[%zu]", key, i);
            if (json_is_null(x))
                continue;
            enum rep_kind kind = rep_arrays[k].kind;
            if (kind == REP_TIME || kind == REP_SIGNED) {
                if (number_ok(x, kind == REP_TIME, P, at, why, len))
                    return -1;
            } else if (name_ok(x, kind == REP_HOST ? HOST : kind == REP_SRC ? SRC : DST, NUL, P, at, why, len) < 0) {
                return -1;
            }
        }
    }
    /* What a verdict is told with: the call's time. */
    if (verdict_status && !numbers_in(json_object_get(ev, "call_us")))
        return BAD("evidence.call_us has no time, but the case has a verdict (%s)", cts_status_name(status));
    return 0;
}

/* A case's "spec": the judgement.  Each clause id it names is noted in refs
 * (clause id -> the first case naming it), to be found in the matrix's table. */
static int check_spec(const json_t *spec, const char *id, json_t *refs, char *why, size_t len)
{
    int conf;
    const json_t *cl = json_object_get(spec, "clauses");
    if (v_name(spec, "spec.", "conformance", NUL, CONF, &conf, why, len))
        return -1;
    if (!cl)
        return BAD("spec.clauses is missing");
    if (!json_is_array(cl))
        return BAD("spec.clauses is %s, not an array", type_name(cl));
    int contradicted = 0;
    for (size_t i = 0; i < json_array_size(cl); i++) {
        const json_t *e = json_array_get(cl, i);
        char pre[40];
        const char *cid;
        snprintf(pre, sizeof pre, "spec.clauses[%zu].", i);
        if (!json_is_object(e))
            return BAD("spec.clauses[%zu] is %s, not an object", i, type_name(e));
        if (v_str(e, pre, "id", REQ, &cid, why, len) || v_name(e, pre, "about", REQ, ABOUT, NULL, why, len) ||
            v_name(e, pre, "prediction", REQ, PRED, NULL, why, len))
            return -1;
        const json_t *h = json_object_get(e, "holds");
        if (!h)
            return BAD("%sholds is missing", pre);
        if (!json_is_boolean(h) && !json_is_null(h))
            return BAD("%sholds is %s, not true, false or null", pre, type_name(h));
        contradicted |= json_is_false(h);
        if (refs && !json_object_get(refs, cid) && json_object_set_new(refs, cid, json_string(id)))
            return BAD("out of memory");
    }
    if (contradicted != (conf == CTS_DEVIATES))
        return BAD("spec.conformance is %s, but %s of its clauses is contradicted", conf ? conf_n(conf) : "null",
                   contradicted ? "one" : "none");
    return 0;
}

/* One case.  The message starts "has ..." or names a member. */
int cts_mx_check_case(const json_t *c, const char *id, json_t *refs, char *why, size_t len)
{
    if (!json_is_object(c))
        return BAD("is %s, not an object", type_name(c));
    const char *st = json_string_value(json_object_get(c, "status"));
    int status = st ? cts_status_parse(st) : -1;
    if (status < 0) {
        const json_t *v = json_object_get(c, "status");
        if (st)
            return BAD("has no valid status (\"%.40s\" is not a status)", st);
        return BAD("has no valid status (status is %s)", v ? type_name(v) : "missing");
    }
    static const char *const required[] = {"family", "group", "api", "function", "op_stream", "busy"};
    static const char *const nullable[] = {"variant", "direction", "memory", "allocator", "size_label",
                                           "kind", "copy_kind"};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (v_str(c, "", required[i], REQ, NULL, why, len))
            return -1;
    for (size_t i = 0; i < sizeof nullable / sizeof *nullable; i++)
        if (v_str(c, "", nullable[i], NUL, NULL, why, len))
            return -1;
    const char *reason, *symbol;
    const json_t *verdict, *ev, *spec, *shape;
    int verdict_status = status == CTS_PASS || status == CTS_VARIES;
    if (v_int(c, "", "size", NUL, 0, INT64_MAX, NULL, why, len) ||
        v_str(c, "", "reason", status == CTS_PASS ? NUL : REQ, &reason, why, len) ||
        v_str(c, "", "symbol", verdict_status ? REQ : NUL, &symbol, why, len) ||
        v_obj(c, "", "shape", OPT | NUL, &shape, why, len) || v_obj(c, "", "verdict", REQ, &verdict, why, len) ||
        v_obj(c, "", "evidence", REQ, &ev, why, len) || v_obj(c, "", "spec", OPT | NUL, &spec, why, len))
        return -1;
    if (verdict_status && !*symbol)
        return BAD("symbol is empty, but the case has a verdict (%s)", st);
    static const struct names *const verdict_names[] = {&DST, &HOST, &ORDER, &SRC, &ORDER, &ORDER};
    for (size_t k = 0; k < 6; k++)
        if (v_name(verdict, "verdict.", verdict_keys[k], NUL, *verdict_names[k], NULL, why, len))
            return -1;
    /* "rejected": the error a documented rejection returned, where the call was rejected. */
    const char *rejected;
    if (v_str(verdict, "verdict.", "rejected", OPT, &rejected, why, len))
        return -1;
    if (rejected && !*rejected)
        return BAD("verdict.rejected is empty");
    if (json_object_size(verdict) != 6 + (rejected != NULL)) {
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)verdict, k, x)
        {
            size_t i = 0;
            while (i < 6 && strcmp(k, verdict_keys[i]))
                i++;
            if (i == 6 && strcmp(k, "rejected"))
                return BAD("verdict.%.40s is not a verdict field (%s, %s, %s, %s, %s, %s or rejected)", k,
                           verdict_keys[0], verdict_keys[1], verdict_keys[2], verdict_keys[3], verdict_keys[4],
                           verdict_keys[5]);
        }
    }
    if (check_evidence(ev, status, why, len))
        return -1;
    return spec ? check_spec(spec, id, refs, why, len) : 0;
}

/* The matrix outside its cases: the environment, the run and the clause table. */
int cts_mx_check_top(const json_t *m, char *why, size_t len)
{
    const json_t *env = json_object_get(m, "environment"), *gpu, *ver, *set, *vars, *attr, *run, *counts, *spec;
    if (v_obj(env, "environment.", "gpu", REQ, &gpu, why, len) ||
        v_str(gpu, "environment.gpu.", "name", REQ, NULL, why, len) ||
        v_str(gpu, "environment.gpu.", "compute_capability", REQ, NULL, why, len) ||
        v_str(gpu, "environment.gpu.", "uuid", REQ, NULL, why, len) ||
        v_obj(env, "environment.", "versions", REQ, &ver, why, len) ||
        v_str(ver, "environment.versions.", "driver", NUL, NULL, why, len) ||
        v_str(env, "environment.", "suite_revision", REQ, NULL, why, len) ||
        v_obj(env, "environment.", "settings", REQ, &set, why, len) ||
        v_str(set, "environment.settings.", "device_schedule", REQ, NULL, why, len) ||
        v_obj(set, "environment.settings.", "environment_variables", REQ, &vars, why, len) ||
        v_obj(env, "environment.", "attributes", REQ, &attr, why, len))
        return -1;
    static const char *const versions[] = {"driver_api", "runtime", "toolkit"};
    for (int i = 0; i < 3; i++) {
        const json_t *v;
        char pre[48];
        snprintf(pre, sizeof pre, "environment.versions.%s.", versions[i]);
        if (v_obj(ver, "environment.versions.", versions[i], REQ, &v, why, len) ||
            v_str(v, pre, "text", REQ, NULL, why, len))
            return -1;
    }
    const char *ds = json_string_value(json_object_get(set, "default_stream"));
    if (!ds || (strcmp(ds, "legacy") && strcmp(ds, "per-thread")))
        return BAD("environment.settings.default_stream is not \"legacy\" or \"per-thread\"");
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)vars, k, x)
        if (!json_is_string(x) && !json_is_null(x))
            return BAD("environment.settings.environment_variables.%.40s is %s, not a string or null", k,
                       type_name(x));
    json_object_foreach((json_t *)attr, k, x)
        if (!json_is_integer(x))
            return BAD("environment.attributes.%.40s is %s, not a whole number", k, type_name(x));
    static const char *const shown[] = {"asyncEngineCount", "concurrentKernels", "pageableMemoryAccess",
                                        "concurrentManagedAccess"};
    for (int i = 0; i < 4; i++)
        if (!json_object_get(attr, shown[i]))
            return BAD("environment.attributes.%s is missing", shown[i]);
    if (v_obj(m, "", "run", REQ, &run, why, len) || v_str(run, "run.", "date", REQ, NULL, why, len) ||
        v_num(run, "run.", "wall_s", REQ, 1, why, len) ||
        v_int(run, "run.", "repeat", REQ, 1, CTS_MAX_REPEAT, NULL, why, len) ||
        v_obj(run, "run.", "counts", REQ, &counts, why, len))
        return -1;
    json_object_foreach((json_t *)counts, k, x)
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            return BAD("run.counts.%.40s is not a count", k);
    if (v_obj(m, "", "spec", OPT | NUL, &spec, why, len))
        return -1;
    if (spec) {
        const json_t *table;
        if (v_str(spec, "spec.", "documentation", REQ, NULL, why, len) ||
            v_obj(spec, "spec.", "clauses", REQ, &table, why, len))
            return -1;
        json_object_foreach((json_t *)table, k, x)
        {
            char pre[96];
            snprintf(pre, sizeof pre, "spec.clauses.%.60s.", k);
            if (!json_is_object(x))
                return BAD("spec.clauses.%.60s is %s, not an object", k, type_name(x));
            if (v_str(x, pre, "where", REQ, NULL, why, len) || v_str(x, pre, "quote", REQ, NULL, why, len) ||
                v_str(x, pre, "url", REQ, NULL, why, len) || v_str(x, pre, "no_case", OPT, NULL, why, len))
                return -1;
        }
    }
    return 0;
}

/* A case id as an error message may show it: control characters as '?',
 * at most 80 characters. */
static const char *shown_id(const char *id, char *buf, size_t len)
{
    size_t n = 0;
    for (; *id && n + 4 < len && n < 80; id++)
        buf[n++] = (unsigned char)*id < 0x20 || *id == 0x7f ? '?' : *id;
    if (*id && n + 4 < len)
        buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
    buf[n] = 0;
    return buf;
}

/* Why an id cannot be a case id, or NULL. */
static const char *bad_id(const char *id)
{
    size_t n = strlen(id);
    if (!n)
        return "is empty";
    if (n >= CTS_ID_MAX)
        return "is longer than any case id";
    for (; *id; id++)
        if ((unsigned char)*id < 0x20 || *id == 0x7f)
            return "holds a control character";
    return NULL;
}

/* ---- reading ------------------------------------------------------------------
 *
 * jansson decodes every key and value.  Only the two outer levels -- the
 * matrix object and its "cases" object -- are walked here, member by
 * member, so that each case can be decoded, validated and handed on (or
 * dropped) on its own: a tool that keeps a summary of each case never holds
 * a whole matrix's tree. */

struct walk {
    const char *path, *s;
    size_t n, i;
    char *err;
    size_t errlen;
    cts_case_fn each; /* NULL: every case goes into the tree */
    void *ctx;
    json_t *top, *ids, *refs;
    int case_bad;
    char case_err[768];
};

static void skip_ws(struct walk *w)
{
    while (w->i < w->n && (w->s[w->i] == ' ' || w->s[w->i] == '\t' || w->s[w->i] == '\n' || w->s[w->i] == '\r'))
        w->i++;
}

static int peek(struct walk *w)
{
    skip_ws(w);
    return w->i < w->n ? (unsigned char)w->s[w->i] : -1;
}

static int line_at(const struct walk *w, size_t pos)
{
    int line = 1;
    for (const char *p = w->s, *e = w->s + pos; (p = memchr(p, '\n', (size_t)(e - p))); p++)
        line++;
    return line;
}

static int syntax(struct walk *w, const char *what)
{
    snprintf(w->err, w->errlen, "'%s' is not JSON (line %d: %s)", w->path, line_at(w, w->i), what);
    return -1;
}

/* The JSON value at the walk's position, decoded by jansson; the position
 * moves past it. */
static json_t *value(struct walk *w)
{
    json_error_t je;
    cts_mx_arena_on = 1;
    json_t *v = json_loadb(w->s + w->i, w->n - w->i,
                           JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &je);
    cts_mx_arena_on = 0;
    if (!v) {
        snprintf(w->err, w->errlen, "'%s' is not JSON (line %d: %s)", w->path, line_at(w, w->i) - 1 + je.line,
                 je.text);
        return NULL;
    }
    if (je.position < 0 || (size_t)je.position > w->n - w->i) {
        snprintf(w->err, w->errlen, "'%s' is too large to read", w->path);
        return NULL;
    }
    w->i += (size_t)je.position;
    return v;
}

/* A key and its colon. */
static json_t *key(struct walk *w)
{
    if (peek(w) != '"') {
        syntax(w, "a string (an object key) expected");
        return NULL;
    }
    json_t *k = value(w);
    if (!k)
        return NULL;
    if (peek(w) != ':') {
        syntax(w, "':' expected");
        return NULL;
    }
    w->i++;
    return k;
}

/* After a member: 1 at a ',', 0 at the closing '}', -1 otherwise. */
static int next(struct walk *w)
{
    int c = peek(w);
    w->i++;
    if (c == ',')
        return 1;
    if (c == '}')
        return 0;
    w->i--;
    return syntax(w, "',' or '}' expected");
}

/* A case's id and members, checked; the first that is wrong is recorded
 * (w->case_err) and reported once the whole matrix is read. */
static void validate_case(struct walk *w, const char *id, const json_t *c)
{
    const char *whyid = bad_id(id);
    char shown[96], why[512];
    if (w->case_bad)
        return;
    if (whyid) {
        snprintf(w->case_err, sizeof w->case_err, "'%s': the case id '%s' %s", w->path,
                 shown_id(id, shown, sizeof shown), whyid);
        w->case_bad = 1;
    } else if (cts_mx_check_case(c, id, w->refs, why, sizeof why)) {
        snprintf(w->case_err, sizeof w->case_err, "'%s': case '%s'%s%s", w->path, id,
                 strncmp(why, "has ", 4) ? ": " : " ", why);
        w->case_bad = 1;
    }
}

static int appears_twice(struct walk *w, const char *id)
{
    char shown[96];
    snprintf(w->err, w->errlen, "'%s': case '%s' appears twice", w->path, shown_id(id, shown, sizeof shown));
    return -1;
}

/* ---- reading the cases with two threads ---------------------------------------
 *
 * jansson decodes some 40 MB/s.  A matrix read whole (render, judge, check)
 * has its cases split in two at a comma between two of them near the middle
 * of the text, and a second thread decodes and validates the second half
 * into an arena of its own while this one does the first.  The halves are
 * then put together in file order exactly as one thread would have: the
 * same tree, the same first error.  The split is found by following strings
 * (and their escapes) and nesting, nothing decoded; where the text is not
 * well formed there, or small, one thread reads it all. */

struct part {
    struct walk w; /* this half's position, errors and clause references */
    size_t end;    /* the first half: the comma after its last case; the second: SIZE_MAX, to the '}' */
    json_t **kv;   /* key, value, key, value, ... in file order */
    size_t n, cap;
    int rc;
    char err[512];
};

static void *read_part(void *arg)
{
    struct part *p = arg;
    struct walk *w = &p->w;
    if (p->end == SIZE_MAX)
        cts_mx_arena_mine = &cts_mx_arenas[1]; /* the second thread */
    cts_mx_arena_alone = 1;
    p->rc = -1;
    for (;;) {
        json_t *k = key(w), *c = k ? value(w) : NULL;
        if (!c)
            break;
        validate_case(w, json_string_value(k), c);
        if (p->n + 2 > p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 8192;
            json_t **kv = realloc(p->kv, cap * sizeof *kv);
            if (!kv) {
                snprintf(w->err, w->errlen, "out of memory reading '%s'", w->path);
                break;
            }
            p->kv = kv;
            p->cap = cap;
        }
        p->kv[p->n++] = k;
        p->kv[p->n++] = c;
        int ch = peek(w);
        if (p->end == SIZE_MAX ? ch == '}' : w->i == p->end) {
            p->rc = 0;
            break;
        }
        if (ch != ',' || w->i > p->end) {
            syntax(w, "',' or '}' expected");
            break;
        }
        w->i++;
    }
    cts_mx_arena_alone = 0;
    return NULL;
}

/* The comma between two cases at or after the middle of what is left of
 * the text, or 0. */
static size_t split_point(const struct walk *w)
{
    if (w->n - w->i < ((size_t)4 << 20))
        return 0;
    size_t target = w->i + (w->n - w->i) / 2;
    int depth = 0, in_string = 0;
    for (size_t p = w->i; p < w->n; p++) {
        char c = w->s[p];
        if (in_string) {
            if (c == '\\')
                p++;
            else if (c == '"')
                in_string = 0;
            continue;
        }
        switch (c) {
        case '"': in_string = 1; break;
        case '{': case '[': depth++; break;
        case '}': case ']':
            if (depth-- == 0)
                return 0; /* the cases end before the middle */
            break;
        case ',':
            if (!depth && p >= target)
                return p;
            break;
        }
    }
    return 0;
}

/* 0 when read, -1 on an error (w->err), 1 when no second thread could be started. */
static int read_cases_in_two(struct walk *w, json_t *cases, size_t comma)
{
    struct part *p = calloc(2, sizeof *p);
    if (!p)
        return 1;
    for (int k = 0; k < 2; k++) {
        p[k].w = *w;
        p[k].w.err = p[k].err;
        p[k].w.errlen = sizeof p[k].err;
        p[k].w.case_bad = 0;
        p[k].w.refs = json_object();
    }
    p[0].end = comma;
    p[1].w.i = comma + 1;
    p[1].end = SIZE_MAX;
    pthread_t t;
    if (!p[0].w.refs || !p[1].w.refs || pthread_create(&t, NULL, read_part, &p[1]) != 0) {
        json_decref(p[0].w.refs);
        json_decref(p[1].w.refs);
        free(p);
        return 1;
    }
    read_part(&p[0]);
    pthread_join(t, NULL);
    int rc = 0;
    for (int k = 0; k < 2 && !rc; k++) { /* in file order */
        if (p[k].rc) {
            snprintf(w->err, w->errlen, "%s", p[k].err);
            rc = -1;
            break;
        }
        for (size_t j = 0; j < p[k].n && !rc; j += 2) {
            const char *id = json_string_value(p[k].kv[j]);
            if (json_object_get(cases, id)) {
                rc = appears_twice(w, id);
                break;
            }
            cts_mx_arena_on = 1;
            if (json_object_set_new(cases, id, p[k].kv[j + 1])) {
                snprintf(w->err, w->errlen, "out of memory reading '%s'", w->path);
                rc = -1;
            }
            cts_mx_arena_on = 0;
        }
        if (!w->case_bad && p[k].w.case_bad) {
            memcpy(w->case_err, p[k].w.case_err, sizeof w->case_err);
            w->case_bad = 1;
        }
        const char *cid;
        json_t *first;
        json_object_foreach(p[k].w.refs, cid, first)
            if (!json_object_get(w->refs, cid))
                json_object_set(w->refs, cid, first);
    }
    if (!rc)
        w->i = p[1].w.i + 1; /* past the '}' */
    for (int k = 0; k < 2; k++) {
        json_decref(p[k].w.refs);
        free(p[k].kv);
    }
    free(p);
    return rc;
}

static int walk_cases(struct walk *w)
{
    json_t *cases = json_object();
    if (!cases || json_object_set_new(w->top, "cases", cases)) {
        snprintf(w->err, w->errlen, "out of memory reading '%s'", w->path);
        return -1;
    }
    w->i++; /* '{' */
    if (peek(w) == '}') {
        w->i++;
        return 0;
    }
    size_t comma = w->each ? 0 : split_point(w);
    if (comma) {
        int rc = read_cases_in_two(w, cases, comma);
        if (rc <= 0)
            return rc;
    }
    for (int more = 1; more > 0; more = next(w)) {
        struct arena_mark mark = cts_mx_arena_mark();
        json_t *k = key(w), *c = k ? value(w) : NULL;
        if (!c)
            return -1;
        const char *id = json_string_value(k);
        if (json_object_get(w->ids ? w->ids : cases, id))
            return appears_twice(w, id);
        validate_case(w, id, c);
        int oom = 0;
        if (w->each) {
            oom |= json_object_set_new(w->ids, id, json_null()) != 0;
            if (!w->case_bad && !oom)
                oom |= w->each(w->ctx, id, c) != 0;
            cts_mx_arena_rewind(mark); /* k and c with it */
        } else {
            cts_mx_arena_on = 1;
            oom |= json_object_set_new(cases, id, c) != 0;
            cts_mx_arena_on = 0;
        }
        if (oom) {
            snprintf(w->err, w->errlen, "out of memory reading '%s'", w->path);
            return -1;
        }
    }
    return w->err[0] ? -1 : 0;
}

int cts_mx_walk(struct walk *w)
{
    if (peek(w) != '{') { /* not an object: is it JSON at all? */
        json_error_t je;
        json_t *v = json_loadb(w->s, w->n, JSON_DECODE_ANY, &je);
        if (!v) {
            snprintf(w->err, w->errlen, "'%s' is not JSON (line %d: %s)", w->path, je.line, je.text);
            return -1;
        }
        json_decref(v);
        snprintf(w->err, w->errlen, "'%s' is not a cuda-sync-cts matrix", w->path);
        return -1;
    }
    w->i++;
    if (peek(w) == '}') {
        w->i++;
    } else {
        for (int more = 1; more > 0; more = next(w)) {
            json_t *k = key(w);
            if (!k)
                return -1;
            const char *name = json_string_value(k);
            if (json_object_get(w->top, name)) {
                snprintf(w->err, w->errlen, "'%s' is not JSON (line %d: duplicate object key '%.40s')", w->path,
                         line_at(w, w->i), name);
                return -1;
            }
            if (!strcmp(name, "cases") && peek(w) == '{') {
                if (walk_cases(w))
                    return -1;
            } else {
                json_t *v = value(w);
                if (!v)
                    return -1;
                cts_mx_arena_on = 1;
                int bad = json_object_set_new(w->top, name, v);
                cts_mx_arena_on = 0;
                if (bad) {
                    snprintf(w->err, w->errlen, "out of memory reading '%s'", w->path);
                    return -1;
                }
            }
        }
        if (w->err[0])
            return -1;
    }
    if (peek(w) != -1)
        return syntax(w, "end of file expected");
    return 0;
}

static json_t *load(const char *path, cts_case_fn each, void *ctx, char *err, size_t errlen)
{
    size_t len = 0;
    cts_mx_arena_install();
    err[0] = 0;
    char *text = read_matrix_text(path, &len, err, errlen);
    if (!text)
        return NULL;
    struct walk w = {.path = path, .s = text, .n = len, .err = err, .errlen = errlen, .each = each, .ctx = ctx};
    w.top = json_object();
    w.refs = json_object();
    w.ids = each ? json_object() : NULL;
    int bad = !w.top || !w.refs || (each && !w.ids);
    if (bad)
        snprintf(err, errlen, "out of memory reading '%s'", path);
    else
        bad = cts_mx_walk(&w);
    free(text);
    json_decref(w.ids);
    json_t *m = w.top;
    const char *schema = NULL;
    json_int_t version = -1;
    json_t *cases = NULL, *env = NULL;
    if (!bad && (json_unpack(m, "{s:s,s:I,s:o,s:o}", "schema", &schema, "schema_version", &version, "cases", &cases,
                             "environment", &env) != 0 ||
                 strcmp(schema, CTS_MATRIX_SCHEMA) != 0)) {
        snprintf(err, errlen, "'%s' is not a cuda-sync-cts matrix", path);
        bad = 1;
    }
    if (!bad && version != CTS_SCHEMA_VERSION) {
        snprintf(err, errlen, "'%s' has schema version %lld; this sync-cts reads version %d", path,
                 (long long)version, CTS_SCHEMA_VERSION);
        bad = 1;
    }
    if (!bad && (!json_is_object(cases) || !json_is_object(env))) {
        snprintf(err, errlen, "'%s' is not a cuda-sync-cts matrix (cases or environment malformed)", path);
        bad = 1;
    }
    if (!bad && w.case_bad) {
        snprintf(err, errlen, "%s", w.case_err);
        bad = 1;
    }
    char why[512];
    if (!bad && cts_mx_check_top(m, why, sizeof why)) {
        snprintf(err, errlen, "'%s': %s", path, why);
        bad = 1;
    }
    const json_t *table = json_object_get(json_object_get(m, "spec"), "clauses");
    if (!bad && table) { /* every clause a case names is in the table it was judged with */
        const char *cid;
        json_t *first;
        /* (a matrix without a table is not judged: check refuses it, judge judges it) */
        json_object_foreach(w.refs, cid, first)
            if (!json_object_get(table, cid)) {
                snprintf(err, errlen, "'%s': case '%s': spec.clauses names '%.40s', which is not in the matrix's "
                         "clause table", path, json_string_value(first), cid);
                bad = 1;
                break;
            }
    }
    json_decref(w.refs);
    if (bad) {
        json_decref(m); /* in the arena, or small */
        return NULL;
    }
    return m;
}

json_t *cts_matrix_load(const char *path, char *err, size_t errlen)
{
    return load(path, NULL, NULL, err, errlen);
}

json_t *cts_matrix_load_each(const char *path, cts_case_fn each, void *ctx, char *err, size_t errlen)
{
    return load(path, each, ctx, err, errlen);
}

int cts_case_id_check(const char *id, char *err, size_t errlen)
{
    const char *why = bad_id(id);
    char shown[96];
    if (!why)
        return 0;
    if (strlen(id) >= CTS_ID_MAX)
        snprintf(err, errlen, "'%s' is not a case id: it has %zu characters, and case ids have at most %d",
                 shown_id(id, shown, sizeof shown), strlen(id), CTS_ID_MAX - 1);
    else
        snprintf(err, errlen, "'%s' is not a case id: it %s", shown_id(id, shown, sizeof shown), why);
    return -1;
}

/* ---- temporary files removed when the process is killed ------------------------
 *
 * A file written whole or not at all is a temporary file until it is
 * renamed into place.  Each one is noted here while it exists, and SIGINT,
 * SIGTERM and SIGHUP unlink every noted one before the process dies of the
 * signal as it would have (the handler re-raises it with the default
 * action).  Signals ignored when the handler would be installed (nohup, a
 * background job) stay ignored.  The handler calls only unlink and raise. */

#define CLEANUP_SLOTS 16
static char cleanup_path[CLEANUP_SLOTS][4200];
static volatile sig_atomic_t cleanup_used[CLEANUP_SLOTS];
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_fatal_signal(int sig)
{
    int saved = errno;
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (cleanup_used[i])
            unlink(cleanup_path[i]);
    errno = saved;
    raise(sig); /* SA_RESETHAND put the default action back: delivered once this returns */
}

void cts_cleanup_install(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++) {
        struct sigaction old, sa;
        if (sigaction(cleanup_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sa.sa_flags = SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        for (size_t k = 0; k < sizeof cleanup_signals / sizeof *cleanup_signals; k++)
            sigaddset(&sa.sa_mask, cleanup_signals[k]);
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}

/* Holds the three signals off (a registration is never half done when the
 * handler runs), or lets them through again. */
static void hold_signals(int hold, sigset_t *saved)
{
    if (hold) {
        sigset_t s;
        sigemptyset(&s);
        for (size_t k = 0; k < sizeof cleanup_signals / sizeof *cleanup_signals; k++)
            sigaddset(&s, cleanup_signals[k]);
        pthread_sigmask(SIG_BLOCK, &s, saved);
    } else {
        pthread_sigmask(SIG_SETMASK, saved, NULL);
    }
}

int cts_cleanup_add(const char *path)
{
    cts_cleanup_install();
    if (strlen(path) >= sizeof cleanup_path[0])
        return -1;
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (!cleanup_used[i]) {
            memcpy(cleanup_path[i], path, strlen(path) + 1);
            cleanup_used[i] = 1; /* only now: the path is whole */
            return i;
        }
    return -1;
}

void cts_cleanup_remove(int slot)
{
    if (slot >= 0 && slot < CLEANUP_SLOTS)
        cleanup_used[slot] = 0;
}

/* A test hook: SYNC_CTS_TEST_PAUSE_AFTER_OPEN=SECONDS (at most 30) makes a
 * command stop that long once its output's temporary file exists, so that
 * a test can signal it there (tests/signals.sh). */
static void test_pause(void)
{
    const char *p = getenv("SYNC_CTS_TEST_PAUSE_AFTER_OPEN");
    int s;
    if (!p || cts_parse_int(p, 1, 30, &s))
        return;
    for (int i = 0; i < 10 * s; i++) {
        struct timespec t = {0, 100000000};
        nanosleep(&t, NULL);
    }
}

/* ---- files written whole or not at all ------------------------------------- */

int cts_outfile_open(struct cts_outfile *o, const char *path, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (strlen(path) >= sizeof o->path) {
        snprintf(err, errlen, "output path too long: '%.60s...'", path);
        return -1;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st, lst;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write '%s': it is a directory", path);
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device or a pipe (/dev/null, /dev/stdout): written to, never replaced. */
        o->f = fopen(path, "w");
        if (!o->f) {
            snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
            return -1;
        }
        o->direct = 1;
        return 0;
    }
    /* A symbolic link: the file it names is replaced, and the link stays. */
    char real[PATH_MAX];
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, real) &&
        strlen(real) < sizeof o->path)
        snprintf(o->path, sizeof o->path, "%s", real);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", o->path);
    sigset_t saved;
    hold_signals(1, &saved);
    int fd = mkstemp(o->tmp);
    if (fd >= 0)
        o->slot = cts_cleanup_add(o->tmp);
    hold_signals(0, &saved);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    /* mkstemp makes 0600: a file replaced keeps its mode, a new one gets the usual one */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "w"))) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
        hold_signals(1, &saved);
        unlink(o->tmp);
        cts_cleanup_remove(o->slot);
        hold_signals(0, &saved);
        return -1;
    }
    test_pause();
    return 0;
}

int cts_outfile_commit(struct cts_outfile *o, char *err, size_t errlen)
{
    errno = 0;
    int bad = ferror(o->f);
    int closed = o->std ? fflush(o->f) : fclose(o->f);
    if (closed != 0 || bad) {
        if (o->std)
            snprintf(err, errlen, "cannot write to standard output: %s", strerror(errno ? errno : EIO));
        else
            snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(errno ? errno : EIO));
        o->f = NULL;
        if (!o->std && !o->direct) {
            sigset_t saved;
            hold_signals(1, &saved);
            unlink(o->tmp);
            cts_cleanup_remove(o->slot);
            hold_signals(0, &saved);
        }
        return -1;
    }
    o->f = NULL;
    if (o->std || o->direct)
        return 0;
    sigset_t saved;
    hold_signals(1, &saved);
    int rc = rename(o->tmp, o->path);
    int e = errno;
    if (rc != 0)
        unlink(o->tmp);
    cts_cleanup_remove(o->slot);
    hold_signals(0, &saved);
    if (rc != 0) {
        snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(e));
        return -1;
    }
    return 0;
}

void cts_outfile_abort(struct cts_outfile *o)
{
    if (!o->f)
        return;
    if (o->std) {
        fflush(o->f);
        o->f = NULL;
        return;
    }
    fclose(o->f);
    o->f = NULL;
    if (o->direct)
        return;
    sigset_t saved;
    hold_signals(1, &saved);
    unlink(o->tmp);
    cts_cleanup_remove(o->slot);
    hold_signals(0, &saved);
}

/* ---- where a command's output goes ---------------------------------------- */

int cts_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cts_output_check(const char *out, const char *const *inputs, size_t n, char *err, size_t errlen)
{
    struct stat so, si;
    int to_stdout = !out || !strcmp(out, "-");
    if (to_stdout ? fstat(STDOUT_FILENO, &so) != 0 : stat(out, &so) != 0)
        return 0; /* nothing there yet: it cannot be an input */
    for (size_t i = 0; i < n; i++)
        if (stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            if (to_stdout)
                snprintf(err, errlen, "standard output is the input matrix '%s': refusing to overwrite it",
                         inputs[i]);
            else
                snprintf(err, errlen, "--out '%s' is the input matrix '%s' (the same file): refusing to overwrite it",
                         out, inputs[i]);
            return -1;
        }
    return 0;
}

int cts_output_open(struct cts_outfile *o, const char *out, const char *const *inputs, size_t n, char *err,
                    size_t errlen)
{
    if (cts_output_check(out, inputs, n, err, errlen))
        return -1;
    if (out && strcmp(out, "-"))
        return cts_outfile_open(o, out, err, errlen);
    memset(o, 0, sizeof *o);
    o->slot = -1;
    o->std = 1;
    o->f = stdout;
    snprintf(o->path, sizeof o->path, "-");
    return 0;
}
