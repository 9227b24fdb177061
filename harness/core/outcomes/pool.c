/* The pool family's kind of outcome: what an allocation from a tight pool got
 * while the block's free was held (docs/method.md "A tight pool"), its values' names
 * and cell letters (after the call's own: "A:D"), its legend row, and how it is decided.
 * Its CTS_KIND line of apis.def registers its descriptor (the end of this file). */
#include "evidence.h"
#include "outcomes.h"

#include <stddef.h>

static const char *const pool_values[CTS_POOL_COUNT] = {NULL, "refused", "other_block", "reused_after", "reused_now"};
static const char *const pool_letters[CTS_POOL_COUNT] = {"?", "R", "N", "D", "I"};

/* Its row of the cell legend (report/legend.c renders it after the engine's). */
static const struct cts_legend_row pool_legend = {
    "`A:R` `A:N` `A:D` `A:I`", "A:D", "a",
    "(a tight pool: groups `malloc_from_pool_async.tight_*`, cudaMallocFromPoolAsync of one block on "
    "a non-blocking stream from a pool of that one block's maximum size, while the block's free is "
    "queued on another non-blocking stream behind held work) `A` / `W`: the call returned / waited, "
    "as above; then what it got: `R` an error (refused) / `N` another block / `D` the freed block, "
    "and work queued after the call on its stream waited for the free / `I` the freed block, and that"
    " work ran at once, the free still held"};

const char *cts_pool_name(enum cts_pool x)
{
    return (unsigned)x < (unsigned)CTS_POOL_COUNT ? pool_values[x] : "?";
}

enum cts_pool cts_pool_decide(int ok, int same_block, int later_held, int waited)
{
    if (!ok)
        return CTS_POOL_REFUSED;
    if (!same_block)
        return CTS_POOL_OTHER;
    return waited || later_held > 0 ? CTS_POOL_REUSED_AFTER : later_held == 0 ? CTS_POOL_REUSED_NOW : CTS_POOL_NA;
}

/* The call's own host letter, and what it got from the pool: its own markers. */
static int pool_from_rep(const struct cts_rep *r, struct cts_verdict *v)
{
    v->pool = r->pool.outcome;
    if (v->pool == CTS_POOL_NA)
        return 0;
    v->host = r->host;
    return 1;
}

/* ---- its evidence (outcome.h: struct cts_evidence) ---- */

/* The pool family's allocation (docs/method.md, "A tight pool"): the call's
 * error (null: it succeeded), whether it got the freed block, whether a
 * kernel queued after it on its stream was held (null: not seen); all null
 * in a repetition that got no outcome. */
static const char *const pool_names[] = {"error", "same_block", "later_held"};
static int pool_has(const struct cts_rep *p) { return p->pool.outcome != CTS_POOL_NA; }
static json_t *pool_value(const struct cts_rep *rep, int k)
{
    const struct cts_pool_obs *p = &rep->pool;
    if (!pool_has(rep))
        return json_null();
    return k == 0 ? name_or_null(p->error) : k == 1 ? json_boolean(p->same_block)
                                                    : p->later_held < 0 ? json_null() : json_boolean(p->later_held);
}

/* What each of its arrays' elements may be besides null: the error's name (not empty), then booleans. */
static const char *pool_element(int k, const json_t *e)
{
    if (k == 0)
        return json_is_string(e) && *json_string_value(e) ? NULL : "an error's name or null";
    return json_is_boolean(e) ? NULL : "true, false or null";
}
static const struct cts_evidence pool_evidence = CTS_EVIDENCE("pool", pool, pool_element);

/* ---- the descriptor (outcome.h), registered by its CTS_KIND line of apis.def ---- */

const struct cts_outcome cts_pool_outcome = {
    .key = "pool", .names = pool_values, .count = CTS_POOL_COUNT, .at = offsetof(struct cts_verdict, pool),
    .csv = "pool", .letters = pool_letters, .after_host = 1, .legend = &pool_legend, .evidence = {&pool_evidence},
    .from_rep = pool_from_rep};
