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
#define _GNU_SOURCE
#include "matrix_int.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

/* [0] is the process's; [1] a second thread's, while it reads half of a
 * matrix's cases (read_cases_in_two, matrix_walk.c). */
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
