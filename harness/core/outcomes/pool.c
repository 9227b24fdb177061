/* The pool family's kind of outcome: what an allocation from a tight pool got
 * while the block's free was held (docs/method.md "A tight pool"), its values' names
 * and cell letters (after the call's own: "A:D"), and how it is decided.
 * outcome.c's table registers it. */
#include "outcomes.h"

const char *const cts_pool_names[CTS_POOL_COUNT] = {NULL, "refused", "other_block", "reused_after", "reused_now"};
const char *const cts_pool_letters[CTS_POOL_COUNT] = {"?", "R", "N", "D", "I"};

const char *cts_pool_name(enum cts_pool x)
{
    return (unsigned)x < (unsigned)CTS_POOL_COUNT ? cts_pool_names[x] : "?";
}

enum cts_pool cts_pool_decide(int ok, int same_block, int later_held, int waited)
{
    if (!ok)
        return CTS_POOL_REFUSED;
    if (!same_block)
        return CTS_POOL_OTHER;
    return waited || later_held > 0 ? CTS_POOL_REUSED_AFTER : later_held == 0 ? CTS_POOL_REUSED_NOW : CTS_POOL_NA;
}
