/* The capture family's kind of outcome: what a stream capture made of the
 * call (docs/method.md "Stream capture"), its values' names and cell letters,
 * and how what was seen is judged.  outcome.c's table registers it. */
#include "outcomes.h"

#include <string.h>

const char *const cts_capture_names[CTS_CAP_OUTCOME_COUNT] = {NULL, "graph", "ran", "refused", "ended", "accepted_ended", "lost", "refused_effect"};
const char *const cts_capture_letters[CTS_CAP_OUTCOME_COUNT] = {"?", "G", "R", "N", "E", "e", "L", "F"};

/* Its row of the cell legend (report/legend.c renders it after the engine's). */
const struct cts_legend_row cts_capture_legend = {
    "`G` `R` `N` `E` `e` `L` `F`", "G", "u",
    "(capture: groups `capture_<mode>`, a stream capturing, no gate) the call became a node of the "
    "graph / ran at once, the capture intact / was refused, the capture intact / was refused and "
    "ended (invalidated) the capture / returned success and ended it / returned success and is "
    "missing (neither done nor in the graph) / was refused yet done"};

const char *cts_cap_outcome_name(enum cts_cap_outcome x)
{
    return (unsigned)x < (unsigned)CTS_CAP_OUTCOME_COUNT ? cts_capture_names[x] : "?";
}

/* What a capture made of the call, from what was seen: the call's return
 * code, the capture's status after it and cudaStreamEndCapture's, the graph's
 * nodes, and the operation's effect at once and from the graph's launch. */
enum cts_cap_outcome cts_capture_judge(const struct cts_capture_obs *o)
{
    if (!o->rc || !o->end)
        return CTS_CAP_NA;
    int ok = !strcmp(o->rc, "cudaSuccess");
    int ended = o->after != CTS_CAPST_ACTIVE || strcmp(o->end, "cudaSuccess") != 0;
    int full = o->eager == 2 || o->launched == 2, some = o->eager > 0 || o->launched > 0;
    if (!ok)
        return some ? CTS_CAP_REFUSED_EFFECT : ended ? CTS_CAP_ENDED : CTS_CAP_REFUSED;
    if (ended)
        return CTS_CAP_ACCEPTED_ENDED;
    if (o->node_count > 0 && (o->launched == 2 || o->launched < 0))
        return CTS_CAP_GRAPH; /* a node, and its launch had the whole effect (or it has none to see) */
    if (o->eager < 0 ? o->node_count == 0 : full)
        return CTS_CAP_RAN;
    return CTS_CAP_LOST; /* accepted, and its effect is not (all) there, at once or from the graph */
}

/* A capture: no gate either; what the capture made of the call is the verdict. */
int cts_capture_from_rep(const struct cts_rep *r, struct cts_verdict *v)
{
    v->capture = r->cap.outcome;
    return v->capture != CTS_CAP_NA;
}
