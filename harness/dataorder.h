/* Data order (issue 18): which bytes a copy moved, read from its destination,
 * never from a time.  When the call is issued its source holds the `before`
 * pattern; the held work writes the `after` pattern as its last act.  The two
 * patterns differ at every offset (before bytes are 0x00-0x7f, after bytes
 * 0x80-0xff), so every destination byte says which pattern it came from; each
 * is a hash of its offset, so bytes copied from another offset are caught
 * (all but about one in 128 of them). */
#ifndef CTS_DATAORDER_H
#define CTS_DATAORDER_H

#include <stddef.h>

enum cts_data_order {
    CTS_DATA_NA,      /* nothing to judge (no byte) */
    CTS_DATA_ORDERED, /* every byte is the held work's write: the call ran after it */
    CTS_DATA_STALE,   /* every byte is from before it: the call took its source early */
    CTS_DATA_PARTIAL, /* some of each: the call read while the write was landing, or in pieces */
    CTS_DATA_FOREIGN, /* a byte of neither pattern at its offset: the copy moved wrong bytes */
};

unsigned char cts_data_before(size_t offset, unsigned seed);
unsigned char cts_data_after(size_t offset, unsigned seed);
/* Fills n bytes with one pattern. */
void cts_data_fill(unsigned char *p, size_t n, unsigned seed, int after);

struct cts_data_obs {
    enum cts_data_order order;
    size_t old_bytes, new_bytes, foreign_bytes;
    size_t first_foreign; /* FOREIGN: the first offset holding a byte of neither pattern */
    size_t boundary;      /* PARTIAL: the first offset of the second run */
    int new_first;        /* PARTIAL: the destination begins with the held work's bytes */
    size_t runs;          /* PARTIAL: maximal runs of one pattern (2: one boundary) */
};

/* Judges n destination bytes against the patterns of seed. */
void cts_data_judge(const unsigned char *dst, size_t n, unsigned seed, struct cts_data_obs *o);
const char *cts_data_order_name(enum cts_data_order o); /* "ordered", ...; NULL for NA */

#endif
