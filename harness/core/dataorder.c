/* Data order from a destination's bytes (dataorder.h). */
#include "dataorder.h"

#include <string.h>

void cts_data_fill(unsigned char *p, size_t n, unsigned seed, int which)
{
    for (size_t i = 0; i < n; i++)
        p[i] = cts_pattern_byte(i, seed, which);
}

/* value < 0: a copy (new AFTER, old BEFORE); else a memset of value (new
 * value, old AFTER). */
static void judge(const unsigned char *dst, size_t n, int value, unsigned seed, struct cts_data_obs *o)
{
    memset(o, 0, sizeof *o);
    int last = -1; /* 0 old, 1 new: the run being read */
    for (size_t i = 0; i < n; i++) {
        int kind;
        unsigned char after = cts_pattern_byte(i, seed, CTS_PATTERN_AFTER);
        if (value < 0 ? dst[i] == after : dst[i] == (unsigned char)value) {
            kind = 1;
            o->new_bytes++;
        } else if (value < 0 ? dst[i] == cts_pattern_byte(i, seed, CTS_PATTERN_BEFORE) : dst[i] == after) {
            kind = 0;
            o->old_bytes++;
        } else {
            if (dst[i] == cts_pattern_byte(i, seed, CTS_PATTERN_CLEAR)) {
                if (!o->unwritten_bytes++)
                    o->first_unwritten = i;
            } else if (!o->foreign_bytes++) {
                o->first_foreign = i;
            }
            continue;
        }
        if (kind != last) {
            if (++o->runs == 2)
                o->boundary = i;
            if (last < 0)
                o->new_first = kind;
            last = kind;
        }
    }
    o->order = o->new_bytes && o->old_bytes ? CTS_DATA_PARTIAL
               : o->new_bytes               ? CTS_DATA_ORDERED
               : o->old_bytes               ? CTS_DATA_STALE
                                            : CTS_DATA_NA;
    if (o->order != CTS_DATA_PARTIAL) {
        o->boundary = 0;
        o->new_first = 0;
    }
}

void cts_data_judge(const unsigned char *dst, size_t n, unsigned seed, struct cts_data_obs *o)
{
    judge(dst, n, -1, seed, o);
}

void cts_data_judge_set(const unsigned char *dst, size_t n, unsigned char value, unsigned seed,
                        struct cts_data_obs *o)
{
    judge(dst, n, value, seed, o);
}
