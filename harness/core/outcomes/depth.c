/* The depth family's kind of outcome: how many commands a stream queues behind
 * held work, or what a call does beside a full queue (docs/method.md "Queue
 * depth"), its values' names and cell letters (the depth found: "D" and the
 * count; none up to it: "D>"; beside a full queue the call's own letter, ""),
 * and how two scans or two tries are judged.  Its CTS_KIND line of apis.def
 * registers its descriptor (the end of this file). */
#include "evidence.h"
#include "outcomes.h"

#include <stddef.h>

static const char *const depth_values[CTS_DEPTH_COUNT] = {NULL, "found", "none", "beside"};
static const char *const depth_letters[CTS_DEPTH_COUNT] = {"?", "D", "D>", ""};

/* Its row of the cell legend (report/legend.c renders it after the engine's). */
static const struct cts_legend_row depth_legend = {
    "`D1021` `D>65536`", "D1021", "u",
    "(depth: groups `<api>.queue_depth`, the op stream itself held) that many calls returned while "
    "the work was held and the next one waited / none of that many waited; in groups "
    "`<api>.queue_full` and `<api>.queue_full_thread`, `A` / `W`: the call returned / waited while "
    "another, held, non-blocking stream's queue was full (filled by this thread, or by another thread"
    " then blocked inside its next launch)"};

const char *cts_depth_name(enum cts_depth x)
{
    return (unsigned)x < (unsigned)CTS_DEPTH_COUNT ? depth_values[x] : "?";
}

enum cts_depth cts_depth_decide(const struct cts_depth_scan *a, const struct cts_depth_scan *b, double grow_us,
                                double fraction)
{
    if (!a->stopped && !b->stopped)
        return CTS_DEPTH_NONE;
    if (a->stopped && b->stopped && !a->early && !b->early && b->blocked_us - a->blocked_us >= fraction * grow_us)
        return CTS_DEPTH_FOUND;
    return CTS_DEPTH_NA;
}

enum cts_host cts_beside_decide(const struct cts_beside_try *a, const struct cts_beside_try *b, double grow_us,
                                double fraction, int *again)
{
    *again = 0;
    if (!a->filled || !a->full || a->early)
        return CTS_HOST_NA; /* not beside a full queue, or it proves nothing */
    if (a->returned)
        return CTS_HOST_RETURNS;
    if (!b) {
        *again = 1;
        return CTS_HOST_NA;
    }
    if (b->filled && b->full && !b->returned && !b->early && b->call_us - a->call_us >= fraction * grow_us)
        return CTS_HOST_WAITS;
    return CTS_HOST_NA;
}

/* A scan: its count is the verdict; beside a full queue: whether the call waited, nothing else. */
static int depth_from_rep(const struct cts_rep *r, struct cts_verdict *v)
{
    v->depth = r->depth.limit;
    if (v->depth == CTS_DEPTH_FOUND || v->depth == CTS_DEPTH_NONE) {
        v->queued = r->depth.queued;
        return 1;
    }
    if (v->depth == CTS_DEPTH_BESIDE) {
        v->host = r->host;
        return 1;
    }
    return 0;
}

/* ---- its evidence (outcome.h: struct cts_evidence) ---- */

/* The depth family's scans and fills (docs/method.md, "Queue depth"). */
static const char *const depth_names[] = {"queued", "max", "fill", "blocked_us", "tracked_us", "stall_us",
                                          "tracked_stall_us", "tracked_queued"};
static int depth_has(const struct cts_rep *p) { return p->depth.limit != CTS_DEPTH_NA; }
static json_t *depth_value(const struct cts_rep *rep, int k)
{
    const struct cts_depth_obs *p = &rep->depth;
    int found = p->limit == CTS_DEPTH_FOUND, scan = found || p->limit == CTS_DEPTH_NONE;
    switch (k) {
    case 0: return scan ? json_integer(p->queued) : json_null();
    case 1: return json_integer(p->max);
    case 2: return p->limit == CTS_DEPTH_BESIDE ? json_integer(p->fill) : json_null();
    case 3: return us(p->blocked_us);
    case 4: return us(p->tracked_us);
    case 5: return us(p->stall_us);
    case 6: return us(p->tracked_stall_us);
    default: return found ? json_integer(p->tracked_queued) : json_null();
    }
}
static const struct cts_evidence depth_evidence = CTS_EVIDENCE("depth", depth, NULL);

/* ---- the descriptor (outcome.h), registered by its CTS_KIND line of apis.def ---- */

const struct cts_outcome cts_depth_outcome = {
    .key = "depth", .names = depth_values, .count = CTS_DEPTH_COUNT, .at = offsetof(struct cts_verdict, depth),
    .csv = "depth", .count_key = "queued", .count_at = offsetof(struct cts_verdict, queued),
    .count_with = 1u << CTS_DEPTH_FOUND | 1u << CTS_DEPTH_NONE, .letters = depth_letters, .legend = &depth_legend,
    .evidence = {&depth_evidence}, .from_rep = depth_from_rep};
