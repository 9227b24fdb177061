/* Data order judged from simulated destinations: ordered, stale, partial at
 * an offset (either way round, and interleaved), a byte from the wrong offset,
 * and the patterns themselves (they differ at every offset). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dataorder.h"

int main(void)
{
    enum { N = 4096 };
    unsigned char *d = malloc(N), *old = malloc(N), *new = malloc(N);
    struct cts_data_obs o;
    unsigned seed = 11;
    cts_data_fill(old, N, seed, 0);
    cts_data_fill(new, N, seed, 1);
    int same = 0;
    for (size_t i = 0; i < N; i++)
        same += old[i] == new[i];
    CHECK_INT(same, 0);
    /* A copy from the wrong offset (one byte, one page off) does not look right. */
    for (size_t shift = 1; shift <= 4096; shift *= 4096) {
        unsigned char *big = malloc(2 * N);
        cts_data_fill(big, 2 * N, seed, 0);
        cts_data_judge(big + shift, N, seed, &o);
        CHECK_INT(o.order, CTS_DATA_FOREIGN);
        CHECK(o.foreign_bytes > N * 9 / 10);
        free(big);
    }

    memcpy(d, new, N);
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_ORDERED);
    CHECK_INT(o.new_bytes, N);
    CHECK_STR(cts_data_order_name(o.order), "ordered");

    memcpy(d, old, N);
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_STALE);
    CHECK_INT(o.old_bytes, N);

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
    d[1] = old[1];
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

    /* A byte from the wrong offset is neither pattern. */
    memcpy(d, new, N);
    d[777] = new[778];
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_FOREIGN);
    CHECK_INT(o.first_foreign, 777);
    CHECK_INT(o.foreign_bytes, 1);

    /* Another seed's pattern is foreign too; one byte and none. */
    cts_data_fill(d, N, seed + 1, 1);
    cts_data_judge(d, N, seed, &o);
    CHECK_INT(o.order, CTS_DATA_FOREIGN);
    cts_data_judge(new, 1, seed, &o);
    CHECK_INT(o.order, CTS_DATA_ORDERED);
    cts_data_judge(new, 0, seed, &o);
    CHECK_INT(o.order, CTS_DATA_NA);
    CHECK(cts_data_order_name(CTS_DATA_NA) == NULL);

    free(d), free(old), free(new);
    CHECK_DONE();
}
