/* Data order from a destination's bytes (dataorder.h). */
#include "dataorder.h"

#include <string.h>

void cts_data_fill(unsigned char *p, size_t n, unsigned seed, int which)
{
    for (size_t i = 0; i < n; i++)
        p[i] = cts_pattern_byte(i, seed, which);
}

void cts_data_judge(const unsigned char *dst, size_t n, unsigned seed, struct cts_data_obs *o)
{
    memset(o, 0, sizeof *o);
    int last = -1; /* 0 old, 1 new: the run being read */
    for (size_t i = 0; i < n; i++) {
        int kind;
        if (dst[i] == cts_pattern_byte(i, seed, CTS_PATTERN_AFTER)) {
            kind = 1;
            o->new_bytes++;
        } else if (dst[i] == cts_pattern_byte(i, seed, CTS_PATTERN_BEFORE)) {
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
