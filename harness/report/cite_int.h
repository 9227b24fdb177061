/* What cite's files share.  sync-cts cite is split by what it tells:
 *   cite.c            a case's paragraph: the call, what was observed, the peer's
 *                     devices, where it was measured, the clauses it was judged by;
 *                     and "did you mean" for an id no case has
 *   cite_families.c   the paragraphs of the families that measure a call their own
 *                     way: capture, the overlap family's pairs and staged copies,
 *                     depth, stall, pool
 *   cite_threshold.c  a threshold row's paragraph (the matrix's thresholds section)
 *   cite_words.c      a stream argument and a busy placement as words (cite.c's
 *                     and cite_families.c's)
 */
#ifndef CTS_CITE_INT_H
#define CTS_CITE_INT_H

#include "report.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define s_of cts_json_str

/* The paragraph being written: say() prints into f, an open_memstream of s and n. */
struct buf {
    char *s;
    size_t n;
    FILE *f;
};

static inline void say(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(b->f, fmt, ap);
    va_end(ap);
}

/* The functions the files share (each is described where it is defined). */
/* cite_words.c */
const char *cts_cite_op_words(const char *op, const char *default_stream);
const char *cts_cite_busy_words(const char *busy);
/* What a cudaHostRegister or cudaHostUnregister case's variant registers (its allocator otherwise). */
const char *cts_cite_range_words(const char *function, const char *variant, const char *allocator);
/* What a variant does, where its id token says too little (cuPointerSetAttribute's); NULL: none. */
const char *cts_cite_variant_words(const char *function, const char *variant);
/* cite.c */
void cts_cite_the_call(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e);
void cts_cite_where(struct buf *b, const struct cts_env_view *e, const char *id);
void cts_cite_judgement(struct buf *b, const json_t *m, const struct cts_case_view *v);
/* cite_families.c: where the case is a self-measured family's, its paragraph into b and 1; else 0. */
int cts_cite_family_case(struct buf *b, const struct cts_case_view *v, const struct cts_env_view *e);

#endif
