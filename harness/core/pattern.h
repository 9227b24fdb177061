/* The data-order patterns (dataorder.h), one definition for the host and the
 * kernels: byte `offset` of pattern `which`.  BEFORE bytes are 0x00-0x7f,
 * AFTER bytes 0x80-0xff, CLEAR bytes BEFORE's with bit 6 flipped: the three
 * differ at every offset.  Each is seven bits of a multiplicative hash of the
 * offset, so a byte copied from another offset matches at about one in 128. */
#ifndef CTS_PATTERN_H
#define CTS_PATTERN_H

#ifdef __CUDACC__
#define CTS_HD __host__ __device__
#else
#define CTS_HD
#endif

enum { CTS_PATTERN_BEFORE, CTS_PATTERN_AFTER, CTS_PATTERN_CLEAR };

static inline CTS_HD unsigned char cts_pattern_byte(unsigned long long offset, unsigned seed, int which)
{
    unsigned long long mul = which == CTS_PATTERN_AFTER ? 2246822519ull : 2654435761ull;
    unsigned h = (unsigned)(((offset + seed) * mul) >> 25) & 0x7fu;
    return (unsigned char)(which == CTS_PATTERN_AFTER ? 0x80u | h : which == CTS_PATTERN_CLEAR ? h ^ 0x40u : h);
}

#endif
