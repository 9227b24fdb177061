/* ---- reading ------------------------------------------------------------------
 *
 * jansson decodes every key and value.  Only the two outer levels -- the
 * matrix object and its "cases" object -- are walked here, member by
 * member, so that each case can be decoded, validated and handed on (or
 * dropped) on its own: a tool that keeps a summary of each case never holds
 * a whole matrix's tree. */
#define _GNU_SOURCE
#include "matrix_int.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Past the whitespace at p. */
static size_t past_ws(const char *s, size_t p, size_t n)
{
    while (p < n && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r'))
        p++;
    return p;
}

static void skip_ws(struct walk *w) { w->i = past_ws(w->s, w->i, w->n); }

static int peek(struct walk *w)
{
    skip_ws(w);
    return w->i < w->n ? (unsigned char)w->s[w->i] : -1;
}

/* ---- giving back the text behind the walk --------------------------------------
 *
 * A 34k-case matrix is some 46 MB of text beside the tree it becomes.  Once
 * a walker (the one thread, or each of the two) has read past a whole region
 * of RELEASE bytes inside its own part of the text, the region's pages go
 * back to the system (madvise: they read as zeros after), its newlines
 * counted first, so that an error's line number still counts them.  Nothing
 * reads text behind a walker again but that count. */
#define RELEASE ((size_t)1 << 20) /* a multiple of the page size */

struct given {
    pthread_mutex_t mu;
    uintptr_t first; /* region 0's address: the text's first byte rounded up to RELEASE */
    size_t count;    /* regions wholly inside the text */
    int *lines;      /* each region's newlines once given back; -1 while it is there */
};

static int newlines(const char *p, size_t n)
{
    int k = 0;
    for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))); p++)
        k++;
    return k;
}

/* Set up for a text of more than a few regions (w->given NULL otherwise, or where memory is short). */
static void give_start(struct walk *w)
{
    uintptr_t a = (uintptr_t)w->s, first = (a + RELEASE - 1) / RELEASE * RELEASE;
    struct given *g = w->n >= 4 * RELEASE ? calloc(1, sizeof *g) : NULL;
    w->given = NULL;
    w->given_next = 0;
    if (!g)
        return;
    g->first = first;
    g->count = (a + w->n - first) / RELEASE;
    g->lines = malloc(g->count * sizeof *g->lines);
    if (!g->lines || pthread_mutex_init(&g->mu, NULL)) {
        free(g->lines);
        free(g);
        return;
    }
    for (size_t j = 0; j < g->count; j++)
        g->lines[j] = -1;
    w->given = g;
}

static void give_end(struct walk *w)
{
    if (!w->given)
        return;
    pthread_mutex_destroy(&w->given->mu);
    free(w->given->lines);
    free(w->given);
    w->given = NULL;
}

/* The first region wholly at or after offset lo (a walker's part begins there). */
static size_t region_from(const struct walk *w, size_t lo)
{
    uintptr_t at = (uintptr_t)w->s + lo;
    return at <= w->given->first ? 0 : (at - w->given->first + RELEASE - 1) / RELEASE;
}

/* Gives back each region of this walker's part that lies wholly behind its position. */
static void give_back(struct walk *w)
{
    struct given *g = w->given;
    if (!g)
        return;
    uintptr_t at = (uintptr_t)w->s + w->i;
    size_t behind = at < g->first ? 0 : (at - g->first) / RELEASE;
    for (; w->given_next < behind && w->given_next < g->count; w->given_next++) {
        char *r = (char *)(g->first + w->given_next * RELEASE);
        int k = newlines(r, RELEASE);
        pthread_mutex_lock(&g->mu);
        g->lines[w->given_next] = k;
        (void)madvise(r, RELEASE, MADV_DONTNEED); /* where it fails, the pages simply stay */
        pthread_mutex_unlock(&g->mu);
    }
}

/* The line of offset pos: the newlines before it, a given-back region's as counted. */
static int line_at(const struct walk *w, size_t pos)
{
    struct given *g = w->given;
    if (!g)
        return 1 + newlines(w->s, pos);
    pthread_mutex_lock(&g->mu);
    uintptr_t a = (uintptr_t)w->s, end = a + pos, p = a;
    int line = 1;
    for (size_t j = 0; j < g->count && g->first + (j + 1) * RELEASE <= end; j++) {
        uintptr_t r = g->first + j * RELEASE;
        line += newlines((const char *)p, r - p); /* up to the region (none but before region 0) */
        line += g->lines[j] >= 0 ? g->lines[j] : newlines((const char *)r, RELEASE);
        p = r + RELEASE;
    }
    line += newlines((const char *)p, end - p);
    pthread_mutex_unlock(&g->mu);
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

/* Where the JSON value at i (after any whitespace) ends, unread: past its
 * closing quote or bracket, or at the ',', '}' or ']' after a scalar; its
 * strings (with their escapes) and nesting followed, nothing else looked at.
 * SIZE_MAX where the text ends first. */
static size_t past_value(const char *s, size_t i, size_t n)
{
    size_t depth = 0;
    while (i < n) {
        char ch = s[i++];
        if (ch == '"') {
            while (i < n && s[i] != '"')
                i += s[i] == '\\' ? 2 : 1;
            if (i >= n)
                break;
            if (i++, !depth)
                return i;
        } else if (ch == '{' || ch == '[') {
            depth++;
        } else if ((ch == '}' || ch == ']') && depth) {
            if (--depth == 0)
                return i;
        } else if (!depth && (ch == '}' || ch == ']' || ch == ',')) {
            return i - 1;
        }
    }
    return SIZE_MAX;
}

/* Past the value at the walk's position, unread (a case cts_matrix_load_some steps over). */
static int skip_value(struct walk *w)
{
    size_t end = past_value(w->s, w->i, w->n);
    if (end == SIZE_MAX) {
        w->i = w->n;
        return syntax(w, "the text ends inside a case");
    }
    w->i = end;
    return 0;
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
    const char *whyid = cts_mx_bad_id(id);
    char shown[96], why[512];
    if (w->case_bad)
        return;
    if (whyid) {
        snprintf(w->case_err, sizeof w->case_err, "'%s': the case id '%s' %s", w->path,
                 cts_mx_shown_id(id, shown, sizeof shown), whyid);
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
    snprintf(w->err, w->errlen, "'%s': case '%s' appears twice", w->path, cts_mx_shown_id(id, shown, sizeof shown));
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
        struct arena_mark mark = cts_mx_arena_mark();
        json_t *k = key(w), *c = k ? value(w) : NULL;
        if (!c)
            break;
        validate_case(w, json_string_value(k), c);
        if (w->each) { /* handed on, then dropped: its id kept (outside the arena) for duplicates */
            json_t *id = json_string(json_string_value(k));
            int oom = !id || (!w->case_bad && w->each(w->ctx, json_string_value(k), c) != 0);
            cts_mx_arena_rewind(mark);
            k = id, c = json_null();
            if (oom) {
                json_decref(id);
                snprintf(w->err, w->errlen, "out of memory reading '%s'", w->path);
                break;
            }
        }
        if (p->n + 2 > p->cap) {
            size_t cap = p->cap ? 2 * p->cap : 8192;
            json_t **kv = realloc(p->kv, cap * sizeof *kv);
            if (!kv) {
                if (w->each)
                    json_decref(k);
                snprintf(w->err, w->errlen, "out of memory reading '%s'", w->path);
                break;
            }
            p->kv = kv;
            p->cap = cap;
        }
        p->kv[p->n++] = k;
        p->kv[p->n++] = c;
        give_back(w);
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
 * the text, found member by member (past_value), or 0: the cases end
 * before it, or the text is not well formed on the way. */
static size_t split_point(const struct walk *w)
{
    if (w->n - w->i < ((size_t)4 << 20))
        return 0;
    const char *s = w->s;
    size_t target = w->i + (w->n - w->i) / 2, p = w->i;
    for (;;) {
        p = past_ws(s, past_value(s, p, w->n), w->n); /* the id */
        if (p >= w->n || s[p] != ':' || (p = past_value(s, p + 1, w->n)) == SIZE_MAX) /* the case */
            return 0;
        p = past_ws(s, p, w->n);
        if (p >= w->n || s[p] != ',')
            return 0;
        if (p >= target)
            return p;
        p++;
    }
}

/* A half that was read, put into the cases in file order, its first wrong
 * case and its clause references into w's: 0, or -1 (w->err). */
static int merge_part(struct walk *w, json_t *cases, struct part *p)
{
    int rc = 0;
    if (p->rc) {
        snprintf(w->err, w->errlen, "%s", p->err);
        return -1;
    }
    for (size_t j = 0; j < p->n && !rc; j += 2) {
        const char *id = json_string_value(p->kv[j]);
        json_t *into = w->each ? w->ids : cases; /* each: the ids alone, the cases handed on */
        if (json_object_get(into, id)) {
            rc = appears_twice(w, id);
            break;
        }
        cts_mx_arena_on = !w->each;
        if (json_object_set_new(into, id, p->kv[j + 1])) {
            snprintf(w->err, w->errlen, "out of memory reading '%s'", w->path);
            rc = -1;
        }
        cts_mx_arena_on = 0;
    }
    if (!w->case_bad && p->w.case_bad) {
        memcpy(w->case_err, p->w.case_err, sizeof w->case_err);
        w->case_bad = 1;
    }
    const char *cid;
    json_t *first;
    json_object_foreach(p->w.refs, cid, first)
        if (!json_object_get(w->refs, cid))
            json_object_set(w->refs, cid, first);
    return rc;
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
    if (w->given) /* each walker gives back its own part's regions: the second's begin past the comma */
        p[1].w.given_next = region_from(w, comma + 1);
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
    for (int k = 0; k < 2 && !rc; k++) /* in file order */
        rc = merge_part(w, cases, &p[k]);
    if (!rc) {
        w->i = p[1].w.i + 1; /* past the '}' */
        w->given_next = p[1].w.given_next;
    }
    for (int k = 0; k < 2; k++) {
        json_decref(p[k].w.refs);
        for (size_t j = 0; w->each && j < p[k].n; j += 2)
            json_decref(p[k].kv[j]); /* the ids, outside the arena (into w->ids holds its own copy) */
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
    size_t comma = w->each && !w->each_in_two ? 0 : split_point(w);
    if (comma) {
        int rc = read_cases_in_two(w, cases, comma);
        if (rc <= 0)
            return rc;
    }
    for (int more = 1; more > 0; more = next(w)) {
        struct arena_mark mark = cts_mx_arena_mark();
        json_t *k = key(w);
        const char *id = k ? json_string_value(k) : NULL;
        if (id && w->want && !w->want(w->ctx, id)) { /* stepped over: only its id is kept, for duplicates */
            if (json_object_get(w->ids, id))
                return appears_twice(w, id);
            if (json_object_set_new(w->ids, id, json_null())) {
                snprintf(w->err, w->errlen, "out of memory reading '%s'", w->path);
                return -1;
            }
            cts_mx_arena_rewind(mark); /* k with it */
            if (skip_value(w))
                return -1;
            continue;
        }
        json_t *c = k ? value(w) : NULL;
        if (!c)
            return -1;
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
        give_back(w);
    }
    return w->err[0] ? -1 : 0;
}

static int walk_top(struct walk *w)
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

int cts_mx_walk(struct walk *w)
{
    give_start(w);
    int rc = walk_top(w);
    give_end(w);
    return rc;
}
