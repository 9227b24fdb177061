/* The cell legend: what each symbol in a matrix's cells means, a row a kind of
 * outcome (host and stream verdicts, a copy's source and destination, data
 * order, VARIES, overlap, capture, depth, stall, pool, across GPUs and
 * processes), written once for both renderings: the Markdown shows each row
 * as it is, the HTML page a sample cell beside its meaning (backticks as
 * code).  A family with an outcome of its own adds its row here. */
#include "legend.h"

const struct cts_legend_row cts_legend[] = {
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
    {"`O` `P` `C` `S`", "O", "a",
     "(overlap: two operations, no gate) they ran at once / partly / at once but no faster, both "
     "slowed (shared) / one after the other"},
    {"`G` `R` `N` `E` `e` `L` `F`", "G", "u",
     "(capture: groups `capture_<mode>`, a stream capturing, no gate) the call became a node of the "
     "graph / ran at once, the capture intact / was refused, the capture intact / was refused and "
     "ended (invalidated) the capture / returned success and ended it / returned success and is "
     "missing (neither done nor in the graph) / was refused yet done"},
    {"`D1021` `D>65536`", "D1021", "u",
     "(depth: groups `<api>.queue_depth`, the op stream itself held) that many calls returned while "
     "the work was held and the next one waited / none of that many waited; in groups "
     "`<api>.queue_full` and `<api>.queue_full_thread`, `A` / `W`: the call returned / waited while "
     "another, held, non-blocking stream's queue was full (filled by this thread, or by another thread"
     " then blocked inside its next launch)"},
    {"`A:U` `W:S` `A:B`", "A:U", "a",
     "(other-thread stalls: groups `<api>.other_thread`, a second host thread making one cheap "
     "command, the case's `with`, every 50 µs on a non-blocking stream of its own) `A` / `W`: the call"
     " returned / waited, as above; then what the second thread's commands did during the call: `U` "
     "they ran on (one began and returned inside it, none stalled) / `S` one stalled until the call "
     "returned (more than twice the control's slowest, and 10 µs more) / `B` the call was over before "
     "one could begin and return inside it, or took under 5 µs"},
    {"`A:R` `A:N` `A:D` `A:I`", "A:D", "a",
     "(a tight pool: groups `malloc_from_pool_async.tight_*`, cudaMallocFromPoolAsync of one block on "
     "a non-blocking stream from a pool of that one block's maximum size, while the block's free is "
     "queued on another non-blocking stream behind held work) `A` / `W`: the call returned / waited, "
     "as above; then what it got: `R` an error (refused) / `N` another block / `D` the freed block, "
     "and work queued after the call on its stream waited for the free / `I` the freed block, and that"
     " work ran at once, the free still held"},
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
const size_t cts_legend_rows = sizeof cts_legend / sizeof *cts_legend;

/* The HTML page's rows of what has no symbol of its own in the Markdown. */
const struct cts_legend_row cts_legend_html_only[] = {
    {NULL, "FAIL", "bad",
     "FAIL, BRK (BROKEN), INC (INCONCLUSIVE), T/O (TIMEOUT), CRASH: no verdict, or the call failed"},
    {NULL, "A", "a dev",
     "thick red border: spec.conformance is DEVIATES (the documented behaviour was not what happened)"},
};
const size_t cts_legend_html_only_rows = sizeof cts_legend_html_only / sizeof *cts_legend_html_only;
