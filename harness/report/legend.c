/* The cell legend: what each symbol in a matrix's cells means, a row a kind of
 * outcome (host and stream verdicts, a copy's source and destination, data
 * order, VARIES, overlap, capture, depth, stall, pool, across GPUs and
 * processes), written once for both renderings: the Markdown shows each row
 * as it is, the HTML page a sample cell beside its meaning (backticks as
 * code).  A family with an outcome of its own gives its row in its descriptor
 * (harness/core/outcomes/<kind>.c); the rest are here. */
#include "legend.h"

static const struct cts_legend_row head[] = {
    {"`W`", "W", "w",
     "the call did not return until the gate opened: it waited for the held work"},
    {"`A`", "A", "a",
     "the call returned while the gate was closed, and work queued after it on its own stream ran "
     "while the gate was still closed"},
    {"`Q`", "Q", "q",
     "the call returned while the gate was closed; work after it on its own stream was held until the "
     "gate opened (stream-ordered behind the held work)"},
    {"`+b`", "Q+b", "q t",
     "the call made work queued afterwards on a third, blocking stream wait for the gate: without the "
     "call (the control) that stream ran"},
    {"`+n`", "Q+n", "q t",
     "likewise for a third, non-blocking stream"},
    {"`c` / `r` / `p`", "Qc", "q",
     "(held copies with a host source) the copy took its source bytes at the call / read them after "
     "the call returned / partly each"},
    {"`!`", "A!", "a",
     "(held copies with a host destination) the destination was complete when the call returned"},
    {"`s` / `m`", "Qs", "q",
     "(data order: groups `<api>.written.<dir>`, where the held work in the copy's own stream wrote "
     "its source as its last act) the copy moved the bytes from before that write (stale) / some of "
     "each (partial); nothing: the written bytes, in stream order"},
    {"`u`", "Au", "a",
     "(data order) work queued after the call on its stream read other bytes than the copy left"},
    {"`A/W`", "A/W", "v",
     "(VARIES) the repetitions differed: each symbol seen, in order"},
};

static const struct cts_legend_row tail[] = {
    {"`+b` `+n` `X` `s`", "Q+b", "q t",
     "(across two GPUs: the peer family, its columns the placements on this GPU and on the peer, "
     "NOTSUPP with one GPU) `+b` / `+n`: later work in a blocking / non-blocking stream of the *other*"
     " GPU waited; `X`: the copy was refused (a pool block whose access was not granted); (the process"
     " family, its columns a second process's stream on this GPU or the other) `s`: the read returned "
     "the old bytes, not those of that process's queued copy"},
    {"`—`", "\xe2\x80\x94", "x",
     "not a separate case: that busy placement is the op stream itself (see `same`), or not declared "
     "(the `thread_*` columns: busy work issued from a second host thread, declared for some calls "
     "only; `hostfn`: a host function holding another non-blocking stream, declared for stream-family "
     "calls; `same_hostfn`: a host function holding the op stream itself, declared for memcpy and "
     "memset calls)"},
    {"n/s", "n/s", "ns",
     "not supported here (the case gives its reason)"},
};

#define N(a) (sizeof a / sizeof *a)

/* The self-measured kinds' rows, in cts_outcomes[] order. */
static size_t kinds(const struct cts_legend_row **at, size_t want)
{
    size_t n = 0;
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++)
        if (cts_outcomes[k]->legend && n++ == want && at)
            *at = cts_outcomes[k]->legend;
    return n;
}

size_t cts_legend_rows(void) { return N(head) + kinds(NULL, 0) + N(tail); }

const struct cts_legend_row *cts_legend_row(size_t i)
{
    const struct cts_legend_row *r = NULL;
    if (i < N(head))
        return &head[i];
    size_t own = kinds(&r, i - N(head));
    if (i < N(head) + own)
        return r;
    i -= N(head) + own;
    return i < N(tail) ? &tail[i] : NULL;
}

/* The HTML page's rows of what has no symbol of its own in the Markdown. */
const struct cts_legend_row cts_legend_html_only[] = {
    {NULL, "FAIL", "bad",
     "FAIL, BRK (BROKEN), INC (INCONCLUSIVE), T/O (TIMEOUT), CRASH: no verdict, or the call failed"},
    {NULL, "A", "a dev",
     "thick red border: spec.conformance is DEVIATES (the documented behaviour was not what happened)"},
};
const size_t cts_legend_html_only_rows = sizeof cts_legend_html_only / sizeof *cts_legend_html_only;
