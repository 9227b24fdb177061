/* Data order judged from simulated destinations: ordered, stale, partial at
 * an offset (either way round, and interleaved), never written, a byte from
 * the wrong offset, and the patterns themselves (they differ at every offset). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dataorder.h"

int main(void)
{
    enum { N = 4096 };
    unsigned char *d = malloc(N), *old = malloc(N), *new = malloc(N), *clear = malloc(N);
    struct cts_data_obs o;
    unsigned seed = 11;
    cts_data_fill(old, N, seed, CTS_PATTERN_BEFORE);
    cts_data_fill(new, N, seed, CTS_PATTERN_AFTER);
    cts_data_fill(clear, N, seed, CTS_PATTERN_CLEAR);
    int same = 0;
    for (size_t i = 0; i < N; i++)
        same += old[i] == new[i] || old[i] == clear[i] || new[i] == clear[i];
    CHECK_INT(same, 0);
    /* A copy from the wrong offset (one byte, one page off) does not look right. */
    for (size_t shift = 1; shift <= 4096; shift *= 4096) {
        unsigned char *big = malloc(2 * N);
        cts_data_fill(big, 2 * N, seed, CTS_PATTERN_BEFORE);
        cts_data_judge(big + shift, N, seed, &o);
        CHECK(o.foreign_bytes + o.unwritten_bytes > N * 9 / 10);
        free(big);
    }

    memcpy(d, new, N);
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_ORDERED);
    CHECK_INT(o.new_bytes, N);
    CHECK_INT(o.foreign_bytes + o.unwritten_bytes, 0);
    CHECK_STR(cts_data_name(o.order), "ordered");

    memcpy(d, old, N);
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_STALE);
    CHECK_INT(o.old_bytes, N);
    CHECK_STR(cts_data_name(o.order), "stale");

    /* Old up to 1234, new from it: the boundary is 1234. */
    memcpy(d, old, 1234);
    memcpy(d + 1234, new + 1234, N - 1234);
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_PARTIAL);
    CHECK_INT(o.boundary, 1234);
    CHECK_INT(o.new_first, 0);
    CHECK_INT(o.runs, 2);
    CHECK_INT(o.old_bytes, 1234);

    /* The other way round, at 1: */
    memcpy(d, new, N);
    memcpy(d + 1, old + 1, N - 1);
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_PARTIAL);
    CHECK_INT(o.boundary, 1);
    CHECK_INT(o.new_first, 1);

    /* Interleaved pieces (a copy in chunks racing the write): four runs. */
    memcpy(d, old, N);
    memcpy(d + 1024, new + 1024, 1024);
    memcpy(d + 3072, new + 3072, 1024);
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_PARTIAL);
    CHECK_INT(o.runs, 4);
    CHECK_INT(o.boundary, 1024);

    /* The copy stopped short: the tail is still the destination's own. */
    memcpy(d, new, N);
    memcpy(d + 4000, clear + 4000, N - 4000);
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_ORDERED);
    CHECK_INT(o.unwritten_bytes, N - 4000);
    CHECK_INT(o.first_unwritten, 4000);
    CHECK_INT(o.foreign_bytes, 0);
    memcpy(d, clear, N);
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_NA);
    CHECK_INT(o.unwritten_bytes, N);

    /* A byte from the wrong offset is no pattern's. */
    memcpy(d, new, N);
    d[777] = new[778];
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_ORDERED);
    CHECK_INT(o.first_foreign, 777);
    CHECK_INT(o.foreign_bytes, 1);

    /* Another seed's pattern is foreign nearly everywhere; one byte and none. */
    cts_data_fill(d, N, seed + 1, CTS_PATTERN_AFTER);
    cts_data_judge(d, N, seed, &o);
    CHECK(o.foreign_bytes + o.unwritten_bytes > N * 9 / 10);
    cts_data_judge(new, 1, seed, &o);
    CHECK_INT(o.order, CTS_DATA_ORDERED);
    cts_data_judge(new, 0, seed, &o);
    CHECK_INT(o.order, CTS_DATA_NA);
    CHECK(cts_data_name(CTS_DATA_NA) == NULL);
    CHECK_STR(cts_reader_name(CTS_READER_MISSED), "missed");

    /* A memset of 0x42 over the held work's write: set after it (ordered),
     * before it (the write survives: stale), the first 100 bytes only. */
    memset(d, 0x42, N);
    cts_data_judge_set(d, N, 0x42, seed, &o);
    CHECK_INT(o.order, CTS_DATA_ORDERED);
    CHECK_INT(o.new_bytes, N);
    memcpy(d, new, N);
    cts_data_judge_set(d, N, 0x42, seed, &o);
    CHECK_INT(o.order, CTS_DATA_STALE);
    memset(d, 0x42, 100);
    cts_data_judge_set(d, N, 0x42, seed, &o);
    CHECK_INT(o.order, CTS_DATA_PARTIAL);
    CHECK_INT(o.boundary, 100);
    CHECK_INT(o.new_first, 1);
    d[200] = 0x43; /* neither */
    cts_data_judge_set(d, N, 0x42, seed, &o);
    CHECK_INT(o.foreign_bytes, 1);
    CHECK_INT(o.first_foreign, 200);

    free(d), free(old), free(new), free(clear);
    CHECK_DONE();
}
