/* The threshold search against simulated answers: one flip, two flips
 * (returns, waits, returns), a noisy answer (an INCONCLUSIVE probe), one
 * that never decides at a size, and one that depends on the size's
 * alignment.  Each answer counts how often it was asked. */
#include <string.h>

#include "check.h"
#include "threshold.h"

#define MIB ((size_t)1 << 20)

struct sim {
    size_t flip1, flip2;    /* "Qc" below flip1, "W" from flip1, "Qc" again from flip2 (0: none) */
    size_t noisy;           /* INCONCLUSIVE the first time this size is asked */
    size_t stuck;           /* INCONCLUSIVE every time at this size */
    size_t align;           /* nonzero: "W" at sizes >= flip1 that are multiples of align */
    int asked, noisy_seen;
    int fail_after;         /* nonzero: the answer function fails at this call */
};

static int answer(void *ctx, size_t bytes, struct cts_th_probe *out)
{
    struct sim *s = ctx;
    s->asked++;
    if (s->fail_after && s->asked >= s->fail_after)
        return -1;
    out->bytes = bytes;
    out->call_us = 1.0 + (double)bytes / 1e4;
    if (bytes == s->stuck || (bytes == s->noisy && !s->noisy_seen++)) {
        out->status = CTS_INCONCLUSIVE;
        return 0;
    }
    out->status = CTS_PASS;
    int waits = bytes >= s->flip1 && (!s->flip2 || bytes < s->flip2);
    if (s->align)
        waits = bytes >= s->flip1 && bytes % s->align == 0;
    strcpy(out->symbol, waits ? "W" : "Qc");
    return 0;
}

int main(void)
{
    struct cts_th_search r;
    size_t g[128];

    /* The grid: 1, then 2^k - 1, 2^k, 2^k + 1, ascending and each once. */
    size_t ng = cts_th_grid(16, g, 128);
    size_t want[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16};
    CHECK_INT(ng, sizeof want / sizeof *want);
    for (size_t i = 0; i < ng && i < sizeof want / sizeof *want; i++)
        CHECK_INT(g[i], want[i]);
    /* 1 2 3 4 5, three around each of 8 .. 2^27, and 2^28 - 1, 2^28. */
    CHECK_INT(cts_th_grid(256 * MIB, NULL, 0), 82);
    CHECK_INT(cts_th_grid(256 * MIB, g, 3), 82); /* counts past cap, writes 3 */
    CHECK_INT(g[2], 3);

    /* One flip, between grid points: found to the byte, steady around it. */
    struct sim one = {.flip1 = 5000001};
    CHECK_INT(cts_th_search(&r, 256 * MIB, answer, &one), 0);
    CHECK_INT(r.nflips, 1);
    CHECK_INT(r.flips[0].below, 5000000);
    CHECK_INT(r.flips[0].above, 5000001);
    CHECK(r.flips[0].exact);
    CHECK(r.flips[0].steady);
    CHECK_STR(r.flips[0].below_key, "PASS:Qc");
    CHECK_STR(r.flips[0].above_key, "PASS:W");
    CHECK_INT(r.undecided, 0);
    /* 82 grid sizes, about 21 bisection steps (4 MiB + 1 .. 8 MiB - 1), 4 neighbours. */
    CHECK(r.nprobes <= 82 + 23 + 4);
    CHECK_INT(one.asked, (int)r.nprobes);
    cts_th_free(&r);

    /* Two flips (returns, waits, returns again): both found, in order;
     * never assumed monotonic. */
    struct sim two = {.flip1 = 65537, .flip2 = 100 * MIB + 3};
    CHECK_INT(cts_th_search(&r, 256 * MIB, answer, &two), 0);
    CHECK_INT(r.nflips, 2);
    CHECK_INT(r.flips[0].above, 65537);
    CHECK_INT(r.flips[1].below, 100 * MIB + 2);
    CHECK_STR(r.flips[1].above_key, "PASS:Qc");
    CHECK(r.flips[0].exact && r.flips[1].exact && r.flips[0].steady && r.flips[1].steady);
    cts_th_free(&r);

    /* Two flips inside one grid interval (both outcomes at its ends equal)
     * are not seen: the grid is the search's resolution. */
    struct sim hidden = {.flip1 = 3000000, .flip2 = 3000100};
    CHECK_INT(cts_th_search(&r, 16 * MIB, answer, &hidden), 0);
    CHECK_INT(r.nflips, 0);
    cts_th_free(&r);

    /* Noisy: one INCONCLUSIVE probe on the way is asked again and decides. */
    struct sim noisy = {.flip1 = 70000, .noisy = 69632 + 0};
    CHECK_INT(cts_th_search(&r, 1 * MIB, answer, &noisy), 0);
    CHECK_INT(r.nflips, 1);
    CHECK_INT(r.flips[0].below, 69999);
    CHECK(r.flips[0].exact);
    CHECK_INT(r.undecided, 0);
    int retried = 0;
    for (size_t i = 0; i < r.nprobes; i++)
        retried += r.probes[i].asked > 1;
    CHECK_INT(noisy.noisy_seen > 1 ? retried : 1, 1);
    cts_th_free(&r);

    /* A size that never decides, on the bisection's path: the flip is
     * recorded between the closest decided sizes, not exact, never guessed. */
    struct sim stuck = {.flip1 = 70000, .stuck = 65537 + (131071 - 65537) / 2}; /* the first midpoint */
    CHECK_INT(cts_th_search(&r, 1 * MIB, answer, &stuck), 0);
    CHECK_INT(r.nflips, 1);
    CHECK(!r.flips[0].exact);
    CHECK(r.flips[0].below < 70000 && r.flips[0].above >= 70000);
    CHECK_INT(r.undecided, 1);
    for (size_t i = 0; i < r.nprobes; i++)
        if (r.probes[i].bytes == stuck.stuck)
            CHECK_INT(r.probes[i].asked, 1 + CTS_TH_RETRIES);
    cts_th_free(&r);

    /* An undecided grid size is stepped over: its neighbours decide. */
    struct sim gridstuck = {.flip1 = 70000, .stuck = 65536};
    CHECK_INT(cts_th_search(&r, 1 * MIB, answer, &gridstuck), 0);
    CHECK_INT(r.nflips, 1);
    CHECK_INT(r.flips[0].above, 70000);
    cts_th_free(&r);

    /* Alignment: "W" only at multiples of 4 from 4096 on.  The grid sees
     * W at 2^k and Qc at 2^k +- 1, each change is bisected to the byte, and
     * the neighbours show the outcome alternating: not steady. */
    struct sim al = {.flip1 = 4096, .align = 4};
    CHECK_INT(cts_th_search(&r, 100000, answer, &al), 0);
    CHECK(r.nflips >= 2);
    int unsteady = 0;
    for (size_t i = 0; i < r.nflips; i++) {
        CHECK(r.flips[i].exact);
        unsteady += !r.flips[i].steady;
    }
    CHECK_INT(r.nflips, 10); /* into and out of W at 4096, ..., 65536 */
    CHECK_INT(unsteady, (int)r.nflips); /* the outcome alternates around every one */
    CHECK_INT(r.flips[0].below, 4095);
    cts_th_free(&r);

    /* Nothing flips: no flip up to the maximum. */
    struct sim none = {.flip1 = (size_t)-1};
    CHECK_INT(cts_th_search(&r, 256 * MIB, answer, &none), 0);
    CHECK_INT(r.nflips, 0);
    CHECK_INT(r.nprobes, 82);
    cts_th_free(&r);

    /* The answer function fails: the search stops and says so. */
    struct sim broken = {.flip1 = 5000001, .fail_after = 90};
    CHECK_INT(cts_th_search(&r, 256 * MIB, answer, &broken), -1);
    CHECK(r.stopped);
    cts_th_free(&r);

    CHECK_DONE();
}
