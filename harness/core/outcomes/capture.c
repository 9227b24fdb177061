/* The capture family's kind of outcome: what a stream capture made of the
 * call (docs/method.md "Stream capture"), its values' names and cell letters,
 * and how what was seen is judged.  Its CTS_KIND line of apis.def registers
 * its descriptor (the end of this file). */
#include "evidence.h"
#include "outcomes.h"

#include <stddef.h>
#include <string.h>

static const char *const capture_values[CTS_CAP_OUTCOME_COUNT] = {
    NULL, "graph", "ran", "refused", "ended", "accepted_ended", "lost", "refused_effect"};
static const char *const capture_letters[CTS_CAP_OUTCOME_COUNT] = {"?", "G", "R", "N", "E", "e", "L", "F"};

/* Its row of the cell legend (report/legend.c renders it after the engine's). */
static const struct cts_legend_row capture_legend = {
    "`G` `R` `N` `E` `e` `L` `F`", "G", "u",
    "(capture: groups `capture_<mode>`, a stream capturing, no gate) the call became a node of the "
    "graph / ran at once, the capture intact / was refused, the capture intact / was refused and "
    "ended (invalidated) the capture / returned success and ended it / returned success and is "
    "missing (neither done nor in the graph) / was refused yet done"};

const char *cts_cap_outcome_name(enum cts_cap_outcome x)
{
    return (unsigned)x < (unsigned)CTS_CAP_OUTCOME_COUNT ? capture_values[x] : "?";
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
static int capture_from_rep(const struct cts_rep *r, struct cts_verdict *v)
{
    v->capture = r->cap.outcome;
    return v->capture != CTS_CAP_NA;
}

/* ---- its evidence (outcome.h: struct cts_evidence) ---- */

/* What the capture made of the call, per repetition (docs/method.md, "Stream capture"): the call's
 * return code, the capture's state after it, cudaStreamEndCapture's, the graph's node types (each
 * once), the effect before any launch and after the graph's. */
static const char *const capture_names[] = {"rc", "after", "end", "nodes", "eager", "launched"};
static int capture_has(const struct cts_rep *r) { return r->cap.rc != NULL; }
static json_t *capture_value(const struct cts_rep *r, int k)
{
    const struct cts_capture_obs *c = &r->cap;
    switch (k) {
    case 0: return name_or_null(c->rc);
    case 1: return name_or_null(cts_cap_status_name(c->after));
    case 2: return name_or_null(c->end);
    case 3: {
        if (!c->rc)
            return json_null();
        json_t *nodes = json_array(); /* cudaGraphNodeType values */
        for (int t = 0; t < 32; t++)
            if (c->nodes & (1u << t))
                json_array_append_new(nodes, json_integer(t));
        return nodes;
    }
    case 4: return c->eager >= 0 ? json_integer(c->eager) : json_null();
    default: return c->launched >= 0 ? json_integer(c->launched) : json_null();
    }
}

/* Each element besides null: error names any string, `after` a capture state's name, `nodes` an
 * array, the effects integers. */
static const char *capture_element(int k, const json_t *e)
{
    int ok = k <= 2 ? json_is_string(e) : k == 3 ? json_is_array(e) : json_is_integer(e);
    for (int i = 1; ok && k == 1 && i < CTS_CAPST_COUNT; i++)
        if (!strcmp(json_string_value(e), cts_cap_status_name((enum cts_cap_status)i)))
            return NULL;
    return ok && k != 1 ? NULL : "what a capture records";
}
static const struct cts_evidence capture_evidence = CTS_EVIDENCE("capture", capture, capture_element);

/* A call in a conditional node's body capture (cases/capture_body.c), beside the above: the parent's
 * capture state after the call, each capture's cudaStreamEndCapture, the body graph's node types,
 * the parent graph's cudaGraphInstantiate and its launch, and whether the body graph had let go of
 * a user object once both ends returned (body_released: since 94ad369's successor, absent before). */
static const char *const body_names[] = {"parent_after", "body_end", "parent_end", "body_nodes", "instantiate",
                                         "launch", "body_released"};
static int body_has(const struct cts_rep *r) { return r->cap.rc != NULL && r->cap.body; }
static json_t *body_value(const struct cts_rep *r, int k)
{
    const struct cts_capture_obs *c = &r->cap;
    switch (k) {
    case 0: return name_or_null(cts_cap_status_name(c->parent_after));
    case 1: return name_or_null(c->body_end);
    case 2: return name_or_null(c->parent_end);
    case 3: {
        if (!c->rc || !c->body)
            return json_null();
        json_t *nodes = json_array();
        for (int t = 0; t < 32; t++)
            if (c->body_nodes & (1u << t))
                json_array_append_new(nodes, json_integer(t));
        return nodes;
    }
    case 4: return name_or_null(c->instantiate);
    case 5: return name_or_null(c->launch);
    default: return !c->rc || !c->body || c->body_released < 0 ? json_null() : json_boolean(c->body_released);
    }
}
static const char *body_element(int k, const json_t *e)
{
    if (k == 0)
        return capture_element(1, e);
    int ok = k == 3 ? json_is_array(e) : k == 6 ? json_is_boolean(e) : json_is_string(e);
    return ok ? NULL : "what a body capture records";
}
static const struct cts_evidence body_evidence = CTS_EVIDENCE_SINCE("capture_body", body, body_element, 6);

/* A capture begun into an existing graph (cudaStreamBeginCaptureToGraph, cases/capture_rep.c), beside
 * the above: whether cudaStreamEndCapture returned that graph, whether it still holds the node it held
 * before, whether that node is its only root (the captured nodes depend on it), and whether the graph
 * had let go of its user object by then. */
static const char *const to_graph_names[] = {"same_graph", "kept_node", "depends", "released"};
static int to_graph_has(const struct cts_rep *r) { return r->cap.rc != NULL && r->cap.to_graph; }
static json_t *to_graph_value(const struct cts_rep *r, int k)
{
    const struct cts_capture_obs *c = &r->cap;
    const int v[] = {c->same_graph, c->kept_node, c->depends, c->released};
    return !c->rc || !c->to_graph || v[k] < 0 ? json_null() : json_boolean(v[k]);
}
static const char *to_graph_element(int k, const json_t *e)
{
    (void)k;
    return json_is_boolean(e) ? NULL : "true, false or null";
}
/* `released` came at 94ad369: the to-graph cases' first matrices (d201e94) lack it. */
static const struct cts_evidence to_graph_evidence =
    CTS_EVIDENCE_SINCE("capture_to_graph", to_graph, to_graph_element, 3);

/* ---- the descriptor (outcome.h), registered by its CTS_KIND line of apis.def ---- */

const struct cts_outcome cts_capture_outcome = {
    .key = "capture", .names = capture_values, .count = CTS_CAP_OUTCOME_COUNT,
    .at = offsetof(struct cts_verdict, capture), .csv = "capture_outcome", .letters = capture_letters,
    .legend = &capture_legend, .evidence = {&capture_evidence, &body_evidence, &to_graph_evidence}, .from_rep = capture_from_rep};
