/* Data order from a destination's bytes (dataorder.h). */
#include "dataorder.h"

#include <string.h>

/* Seven bits of a multiplicative hash of the offset: a copy from a shifted
 * offset matches at about one byte in 128, so it is caught at any shift. */
static unsigned hash7(size_t offset, unsigned seed, unsigned long long mul)
{
    return (unsigned)((((unsigned long long)offset + seed) * mul) >> 25) & 0x7fu;
}

unsigned char cts_data_before(size_t offset, unsigned seed)
{
    return (unsigned char)hash7(offset, seed, 2654435761ull);
}

unsigned char cts_data_after(size_t offset, unsigned seed)
{
    return (unsigned char)(0x80u | hash7(offset, seed, 2246822519ull));
}

void cts_data_fill(unsigned char *p, size_t n, unsigned seed, int after)
{
    for (size_t i = 0; i < n; i++)
        p[i] = after ? cts_data_after(i, seed) : cts_data_before(i, seed);
}

void cts_data_judge(const unsigned char *dst, size_t n, unsigned seed, struct cts_data_obs *o)
{
    memset(o, 0, sizeof *o);
    int last = -1; /* 0 old, 1 new: the run being read */
    for (size_t i = 0; i < n; i++) {
        int kind;
        if (dst[i] == cts_data_after(i, seed)) {
            kind = 1;
            o->new_bytes++;
        } else if (dst[i] == cts_data_before(i, seed)) {
            kind = 0;
            o->old_bytes++;
        } else {
            if (!o->foreign_bytes++)
                o->first_foreign = i;
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
    if (n == 0)
        o->order = CTS_DATA_NA;
    else if (o->foreign_bytes)
        o->order = CTS_DATA_FOREIGN;
    else if (o->old_bytes == 0)
        o->order = CTS_DATA_ORDERED;
    else if (o->new_bytes == 0)
        o->order = CTS_DATA_STALE;
    else
        o->order = CTS_DATA_PARTIAL;
    if (o->order != CTS_DATA_PARTIAL) {
        o->boundary = 0;
        o->new_first = 0;
    }
}

const char *cts_data_order_name(enum cts_data_order o)
{
    static const char *const names[] = {NULL, "ordered", "stale", "partial", "foreign"};
    return (unsigned)o < sizeof names / sizeof *names ? names[o] : NULL;
}
