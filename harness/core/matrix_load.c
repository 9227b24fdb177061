/* A matrix file loaded: its text read (inflated if it is gzip), walked case
 * by case (matrix_walk.c), and checked as a whole. */
#define _GNU_SOURCE
#include "matrix_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The whole file, as it is, into *raw_out and *n_out; -1 and a reason on
 * failure. */
static int read_whole(const char *path, char **raw_out, size_t *n_out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return -1;
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
        return -1;
    }
    *raw_out = raw;
    *n_out = n;
    return 0;
}

/* The most a gzip matrix may inflate to (the largest committed one: some 150 MB). */
#define GUNZIP_MAX ((size_t)2 << 30)

/* raw (n bytes, gzip: any number of members, as zcat reads them) inflated, raw freed; NULL and a
 * reason on failure (damaged, bytes after the last member, more than GUNZIP_MAX). */
static char *gunzip(const char *path, char *raw, size_t n, size_t *len, char *err, size_t errlen)
{
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
    for (;;) {
        if (zr == Z_STREAM_END && z.avail_in >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b &&
            inflateReset(&z) == Z_OK) {
            zr = Z_OK; /* another member (what zcat reads as one file) */
            continue;
        }
        if (zr != Z_OK)
            break;
        if (tn >= GUNZIP_MAX) {
            zr = Z_MEM_ERROR;
            break;
        }
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
    if (zr == Z_MEM_ERROR && tn >= GUNZIP_MAX) {
        free(text);
        snprintf(err, errlen, "'%s' inflates to more than %d GiB: not a matrix this reads", path,
                 (int)(GUNZIP_MAX >> 30));
        return NULL;
    }
    if (zr != Z_STREAM_END) {
        free(text);
        snprintf(err, errlen, "'%s' is a truncated or damaged gzip file", path);
        return NULL;
    }
    if (z.avail_in) { /* bytes after the last member that are not one */
        free(text);
        snprintf(err, errlen, "'%s' has %u bytes after its gzip data", path, z.avail_in);
        return NULL;
    }
    *len = tn;
    return text;
}

/* The whole file, inflated if it is gzip.  NULL and a reason on failure. */
static char *read_matrix_text(const char *path, size_t *len, char *err, size_t errlen)
{
    char *raw;
    size_t n;
    if (read_whole(path, &raw, &n, err, errlen))
        return NULL;
    if (n < 2 || (unsigned char)raw[0] != 0x1f || (unsigned char)raw[1] != 0x8b) {
        *len = n;
        return raw;
    }
    return gunzip(path, raw, n, len, err, errlen);
}

/* The walked matrix as a whole: what it is and its schema version, the
 * first case that was wrong, the rest of the matrix (cts_mx_check_top), and
 * the clauses its cases name.  1 and a reason at the first problem, else 0. */
static int check_loaded(const char *path, json_t *m, const struct walk *w, char *err, size_t errlen)
{
    int bad = 0;
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
    if (!bad && w->case_bad) {
        snprintf(err, errlen, "%s", w->case_err);
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
        json_object_foreach(w->refs, cid, first)
            if (!json_object_get(table, cid)) {
                snprintf(err, errlen, "'%s': case '%s': spec.clauses names '%.40s', which is not in the matrix's "
                         "clause table", path, json_string_value(first), cid);
                bad = 1;
                break;
            }
    }
    return bad;
}

static json_t *load(const char *path, cts_want_fn want, cts_case_fn each, int in_two, void *ctx, char *err,
                    size_t errlen)
{
    size_t len = 0;
    cts_mx_arena_install();
    err[0] = 0;
    char *text = read_matrix_text(path, &len, err, errlen);
    if (!text)
        return NULL;
    struct walk w = {.path = path, .s = text, .n = len, .err = err, .errlen = errlen, .each = each, .want = want,
                     .each_in_two = in_two, .ctx = ctx};
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
    if (!bad)
        bad = check_loaded(path, m, &w, err, errlen);
    json_decref(w.refs);
    if (bad) {
        json_decref(m); /* in the arena, or small */
        return NULL;
    }
    return m;
}

json_t *cts_matrix_load(const char *path, char *err, size_t errlen)
{
    return load(path, NULL, NULL, 0, NULL, err, errlen);
}

json_t *cts_matrix_load_each(const char *path, cts_case_fn each, void *ctx, char *err, size_t errlen)
{
    return load(path, NULL, each, 0, ctx, err, errlen);
}

json_t *cts_matrix_load_each_in_two(const char *path, cts_case_fn each, void *ctx, char *err, size_t errlen)
{
    return load(path, NULL, each, 1, ctx, err, errlen);
}

json_t *cts_matrix_load_some(const char *path, cts_want_fn want, cts_case_fn each, void *ctx, char *err,
                             size_t errlen)
{
    return load(path, want, each, 0, ctx, err, errlen);
}
