/* Data order (issue 18): which bytes a copy moved, read from its destination,
 * never from a time.  When the call is issued its source holds the BEFORE
 * pattern and its destination the CLEAR one; the held work writes the AFTER
 * pattern into the source as its last act (harness/core/pattern.h).  Every
 * destination byte then says where it came from: the held work's write, the
 * bytes before it, the destination's own (never written), or none of them (a
 * byte from another offset, or garbage).  Pure: tests/test_dataorder.c. */
#ifndef CTS_DATAORDER_H
#define CTS_DATAORDER_H

#include "cts.h"
#include "pattern.h"

#include <stddef.h>

/* Fills n bytes with pattern `which` (CTS_PATTERN_*). */
void cts_data_fill(unsigned char *p, size_t n, unsigned seed, int which);

struct cts_data_obs {
    enum cts_data order; /* from the copied bytes alone: ORDERED all AFTER, STALE all BEFORE,
                          * PARTIAL some of each; NA where there is no byte or none was copied */
    size_t old_bytes, new_bytes;
    size_t unwritten_bytes, first_unwritten; /* still CLEAR: the copy never wrote them */
    size_t foreign_bytes, first_foreign;     /* of no pattern at their offset: wrong bytes */
    size_t boundary; /* PARTIAL: the first offset of the second run of copied bytes */
    int new_first;   /* PARTIAL: the destination begins with the held work's bytes */
    size_t runs;     /* PARTIAL: maximal runs of one pattern among copied bytes (2: one boundary) */
};

/* Judges n destination bytes against the patterns of seed. */
void cts_data_judge(const unsigned char *dst, size_t n, unsigned seed, struct cts_data_obs *o);
/* The same for a memset of `value` (0x00-0x7f) whose destination the held
 * work wrote AFTER into: a byte `value` is the call's, set after the write
 * (counted new: ORDERED), an AFTER byte the held work's, which the memset
 * did not follow (counted old: STALE, out of stream order); CLEAR: never
 * written; anything else foreign. */
void cts_data_judge_set(const unsigned char *dst, size_t n, unsigned char value, unsigned seed,
                        struct cts_data_obs *o);

#endif
