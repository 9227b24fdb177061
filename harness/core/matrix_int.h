/* What the matrix's files share.  The matrix is split by job:
 *   matrix.c        a case and a matrix written as JSON (and gzip)
 *   matrix_load.c   a matrix file read (inflated if gzip), walked, and checked as a whole
 *   matrix_walk.c   the walk through a matrix's text, case by case (two threads for a large
 *                   one); case ids
 *   matrix_check.c  the validation of every member a command reads (with
 *                   matrix_check_evidence.c, matrix_check_top.c and, under
 *                   them, matrix_check_value.c; what they share:
 *                   matrix_check_int.h)
 *   matrix_arena.c  the arena loaded matrices live in
 *   outfile.c       (not in this header) files written whole or not at all, and --out
 */
#ifndef CTS_MATRIX_INT_H
#define CTS_MATRIX_INT_H

#include "matrix.h"

#include <stddef.h>

/* ---- matrix_arena.c: memory for loaded matrices -------------------------- */

struct chunk {
    char *base;
    size_t size, used;
};
#define ARENA_CHUNKS 48
struct arena {
    struct chunk c[ARENA_CHUNKS];
    int n, cur;
};
/* The arenas, the one this thread allocates in, whether a load is decoding
 * (jansson allocates in the arena only then), and whether this thread frees
 * only from its own arena (while two threads read). */
extern struct arena cts_mx_arenas[2];
extern _Thread_local struct arena *cts_mx_arena_mine;
extern _Thread_local int cts_mx_arena_on;
extern _Thread_local int cts_mx_arena_alone;

struct arena_mark {
    int cur;
    size_t used;
};
/* Where this thread's arena is now, to rewind it there (dropping what was
 * allocated since); install: jansson's allocator set, once. */
struct arena_mark cts_mx_arena_mark(void);
void cts_mx_arena_rewind(struct arena_mark m);
void cts_mx_arena_install(void);

/* ---- matrix_check.c, matrix_check_top.c: validation ----------------------- */
/* One case (refs: clause id -> the first case naming it), and the matrix
 * outside its cases: 0, or -1 and why. */
int cts_mx_check_case(const json_t *c, const char *id, json_t *refs, char *why, size_t len);
/* Why an id cannot be a case id (NULL: it can), and the id as an error
 * message may show it (control characters as '?', at most 80 characters). */
const char *cts_mx_bad_id(const char *id);
const char *cts_mx_shown_id(const char *id, char *buf, size_t len);
int cts_mx_check_top(const json_t *m, char *why, size_t len);

/* ---- matrix_walk.c: reading ----------------------------------------------- */

/* A matrix's text being walked; load (matrix_load.c) sets it up. */
struct walk {
    const char *path, *s;
    size_t n, i;
    char *err;
    size_t errlen;
    cts_case_fn each; /* NULL: every case goes into the tree */
    cts_want_fn want; /* with each: NULL, every case; else only those it wants, the others stepped over */
    int each_in_two;  /* with each: it may be called from two threads at once (cts_matrix_load_each_in_two) */
    void *ctx;
    json_t *top, *ids, *refs;
    int case_bad;
    char case_err[768];
    struct given *given; /* the text given back behind the walkers (matrix_walk.c); NULL: none is */
    size_t given_next;   /* the first region this walker has not given back or passed */
};
/* The whole text into w->top (each case into its "cases", or passed to
 * w->each and dropped): 0, or -1 and w->err; a case that is wrong is left in
 * w->case_err for load to report. */
int cts_mx_walk(struct walk *w);

#endif
