/* The threshold search (threshold.h): pure, tested on the host against
 * simulated answers (tests/test_threshold.c). */
#include "threshold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t cts_th_grid(size_t max, size_t *out, size_t cap)
{
    size_t n = 0, last = 0;
    for (size_t p = 1; p <= max && p != 0; p <<= 1) {
        size_t cand[3] = {p - 1, p, p + 1};
        for (int i = 0; i < 3; i++) {
            size_t v = cand[i];
            if (v < 1 || v > max || v <= last)
                continue; /* ascending, each once */
            if (out && n < cap)
                out[n] = v;
            n++;
            last = v;
        }
    }
    return n;
}

int cts_th_decided(const struct cts_th_probe *p)
{
    return p->status == CTS_PASS || p->status == CTS_VARIES || p->status == CTS_FAIL ||
           p->status == CTS_NOTSUPP;
}

void cts_th_key(const struct cts_th_probe *p, char *buf, size_t len)
{
    if (!cts_th_decided(p))
        snprintf(buf, len, "%s", "");
    else if (p->status == CTS_PASS || p->status == CTS_VARIES)
        snprintf(buf, len, "%s:%s", cts_status_name(p->status), p->symbol);
    else
        snprintf(buf, len, "%s", cts_status_name(p->status));
}

static int same_key(const struct cts_th_probe *a, const struct cts_th_probe *b)
{
    char ka[40], kb[40];
    cts_th_key(a, ka, sizeof ka);
    cts_th_key(b, kb, sizeof kb);
    return strcmp(ka, kb) == 0;
}

/* The probe at `bytes`: found among those asked, or asked now (again while
 * undecided, up to CTS_TH_RETRIES times).  Its index, or -1. */
static long ask(struct cts_th_search *s, size_t bytes, cts_th_answer_fn fn, void *ctx)
{
    for (size_t i = 0; i < s->nprobes; i++)
        if (s->probes[i].bytes == bytes)
            return (long)i;
    if (s->stopped)
        return -1;
    if (s->nprobes == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 128;
        struct cts_th_probe *p = realloc(s->probes, cap * sizeof *p);
        if (!p)
            return -1;
        s->probes = p;
        s->cap = cap;
    }
    struct cts_th_probe *p = &s->probes[s->nprobes];
    memset(p, 0, sizeof *p);
    for (int t = 0; t <= CTS_TH_RETRIES; t++) {
        struct cts_th_probe got;
        memset(&got, 0, sizeof got);
        if (fn(ctx, bytes, &got)) {
            s->stopped = 1;
            return -1;
        }
        *p = got;
        p->bytes = bytes;
        p->asked = t + 1;
        if (cts_th_decided(p))
            break;
    }
    if (!cts_th_decided(p))
        s->undecided++;
    return (long)s->nprobes++;
}

static int add_flip(struct cts_th_search *s, long a, long b)
{
    if (s->nflips == CTS_TH_MAX_FLIPS) {
        s->truncated = 1;
        return 0;
    }
    struct cts_th_flip *f = &s->flips[s->nflips++];
    memset(f, 0, sizeof *f);
    f->below = s->probes[a].bytes;
    f->above = s->probes[b].bytes;
    cts_th_key(&s->probes[a], f->below_key, sizeof f->below_key);
    cts_th_key(&s->probes[b], f->above_key, sizeof f->above_key);
    f->exact = f->above == f->below + 1;
    return 0;
}

/* Narrows the change between decided probes a < b (different outcomes) to
 * one byte; a third outcome at the midpoint leaves (mid, b) to do after. */
static int bisect(struct cts_th_search *s, long a, long b, cts_th_answer_fn fn, void *ctx)
{
    while (s->probes[b].bytes - s->probes[a].bytes > 1) {
        size_t lo = s->probes[a].bytes, hi = s->probes[b].bytes;
        long m = ask(s, lo + (hi - lo) / 2, fn, ctx);
        if (m < 0)
            return -1;
        if (!cts_th_decided(&s->probes[m]))
            return add_flip(s, a, b); /* not narrowed further: no guess past an undecided size */
        if (same_key(&s->probes[m], &s->probes[a])) {
            a = m;
        } else if (same_key(&s->probes[m], &s->probes[b])) {
            b = m;
        } else { /* a third outcome: two changes, each narrowed */
            if (bisect(s, m, b, fn, ctx))
                return -1;
            b = m;
        }
    }
    return add_flip(s, a, b);
}

static int cmp_flip(const void *x, const void *y)
{
    const struct cts_th_flip *a = x, *b = y;
    return a->below < b->below ? -1 : a->below > b->below;
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

/* Whether the neighbours of exact flip f agree with their sides. */
static int steady(struct cts_th_search *s, const struct cts_th_flip *f, cts_th_answer_fn fn, void *ctx)
{
    int ok = 1;
    for (size_t d = 1; d <= CTS_TH_NEIGHBOURS; d++) {
        size_t sizes[2] = {f->below > d ? f->below - d : 0, f->above + d <= s->max_bytes ? f->above + d : 0};
        const char *want[2] = {f->below_key, f->above_key};
        for (int side = 0; side < 2; side++) {
            if (!sizes[side])
                continue;
            long i = ask(s, sizes[side], fn, ctx);
            if (i < 0)
                return -1;
            char k[40];
            cts_th_key(&s->probes[i], k, sizeof k);
            ok &= strcmp(k, want[side]) == 0;
        }
    }
    return ok;
}

int cts_th_search(struct cts_th_search *s, size_t max, cts_th_answer_fn fn, void *ctx)
{
    memset(s, 0, sizeof *s);
    s->max_bytes = max;
    size_t ng = cts_th_grid(max, NULL, 0);
    size_t *grid = malloc((ng ? ng : 1) * sizeof *grid);
    if (!grid)
        return -1;
    cts_th_grid(max, grid, ng);
    for (size_t i = 0; i < ng; i++)
        if (ask(s, grid[i], fn, ctx) < 0) {
            free(grid);
            return -1;
        }
    /* The decided sizes of the grid in order; each change between neighbours bisected. */
    size_t nd = 0;
    long *dec = malloc((ng ? ng : 1) * sizeof *dec);
    if (!dec) {
        free(grid);
        return -1;
    }
    qsort(grid, ng, sizeof *grid, cmp_size);
    for (size_t i = 0; i < ng; i++) {
        long k = ask(s, grid[i], fn, ctx); /* found, not asked again */
        if (k >= 0 && cts_th_decided(&s->probes[k]))
            dec[nd++] = k;
    }
    free(grid);
    for (size_t i = 1; i < nd; i++)
        if (!same_key(&s->probes[dec[i - 1]], &s->probes[dec[i]]) && bisect(s, dec[i - 1], dec[i], fn, ctx)) {
            free(dec);
            return -1;
        }
    free(dec);
    qsort(s->flips, s->nflips, sizeof *s->flips, cmp_flip);
    for (size_t i = 0; i < s->nflips; i++) {
        if (!s->flips[i].exact)
            continue;
        int st = steady(s, &s->flips[i], fn, ctx);
        if (st < 0)
            return -1;
        s->flips[i].steady = st;
    }
    return 0;
}

void cts_th_free(struct cts_th_search *s)
{
    free(s->probes);
    s->probes = NULL;
    s->nprobes = s->cap = 0;
}
