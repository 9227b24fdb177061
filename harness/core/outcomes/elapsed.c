/* The event_timing family's kind of outcome: does cudaEventElapsedTime of two
 * events around a held kernel cover that kernel's own run, as the GPU's
 * %globaltimer measured it (docs/method.md "Event timing")?  Its value lives in
 * the verdict's kind slot and its observations in the repetition's obs
 * (outcome.h, CTS_AT_KIND): this file and its CTS_KIND line of apis.def are all
 * of it.
 *
 * Values: `covers`, the elapsed time is at least the kernel's run less
 * CTS_ELAPSED_SLACK_NS (the documented resolution of around 0.5 us, and a tick
 * of %globaltimer); `short`, it is shorter than that: the events, though
 * around the kernel in stream order, measured less than it ran. */
#include "evidence.h"
#include "outcomes.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define CTS_ELAPSED_SLACK_NS 1000.0

enum { ELAPSED_NA, ELAPSED_COVERS, ELAPSED_SHORT, ELAPSED_COUNT };
static const char *const elapsed_values[ELAPSED_COUNT] = {NULL, "covers", "short"};
static const char *const elapsed_letters[ELAPSED_COUNT] = {"?", "E", "E<"};

static const struct cts_legend_row elapsed_legend = {
    "`E` `E<`", "E", "u",
    "(event timing: groups `event_timing.*`, cudaEventElapsedTime of two events recorded around a kernel held "
    "for a while, on its stream or across two) `E` the elapsed time covers the kernel's own run as "
    "%globaltimer measured it (less 1 us: the documented resolution and a tick) / `E<` it is shorter"};

/* What one repetition saw (cases/event_timing.c sets them by these names): the elapsed time the call
 * returned and the kernel's run from its first to its last %globaltimer stamp (ns), how long the host
 * held it (us), and whether its gate ended at its deadline (1: the repetition proves nothing). */
static const char *const elapsed_names[] = {"elapsed_ns", "kernel_ns", "excess_ns", "hold_us", "deadline"};

static int elapsed_has(const struct cts_rep *r) { return r->obs.kind == &cts_elapsed_outcome; }
static json_t *elapsed_value(const struct cts_rep *r, int k)
{
    return elapsed_has(r) ? obs_number(r->obs.v[k]) : json_null();
}
static const struct cts_evidence elapsed_evidence = CTS_EVIDENCE("elapsed", elapsed, NULL);

/* The pure decision: NA where nothing was measured or the gate ended itself. */
static int elapsed_decide(double elapsed_ns, double kernel_ns, double deadline)
{
    if (isnan(elapsed_ns) || isnan(kernel_ns) || kernel_ns <= 0 || deadline != 0)
        return ELAPSED_NA;
    return elapsed_ns + CTS_ELAPSED_SLACK_NS >= kernel_ns ? ELAPSED_COVERS : ELAPSED_SHORT;
}

static int elapsed_from_rep(const struct cts_rep *r, struct cts_verdict *v)
{
    if (!elapsed_has(r))
        return 0;
    cts_outcome_set(v, &cts_elapsed_outcome, elapsed_decide(r->obs.v[0], r->obs.v[1], r->obs.v[4]));
    return 1;
}

/* Its clause (cases/event_timing.c: a resolution of around 0.5 us): an interval between two events
 * that bracket the kernel in stream order is not shorter than the kernel's run, past the resolution. */
static int elapsed_holds(int value) { return value == ELAPSED_COVERS; }

/* ---- its paragraph (sync-cts cite) ---- */

/* The first repetition's observation `name`, NAN where the matrix has none. */
static double first(const json_t *c, const char *name) { return obs_first(c, "elapsed", name); }

static void elapsed_cite_setup(FILE *f, const json_t *c)
{
    const char *variant = json_string_value(json_object_get(c, "variant"));
    const char *busy = json_string_value(json_object_get(c, "busy"));
    int same = busy && !strcmp(busy, "same");
    fprintf(f,
            "cudaEventElapsedTime of a start event recorded on a non-blocking stream A and an end event recorded %s "
            "after a kernel of one thread held there for about %.0f us (%s): ",
            same ? "on A" : "on another non-blocking stream B",
            first(c, "hold_us"),
            same && variant && !strcmp(variant, "held_start")
                ? "start, kernel and end in A's order, all three queued behind another held kernel, let go once they were"
            : same ? "start, kernel and end in A's order"
                 : variant && !strcmp(variant, "unordered")
                     ? "B not ordered after the start event: the start may be stamped before the kernel is launched"
                     : "B made to wait for the start event (cudaStreamWaitEvent) before the kernel");
}

static void elapsed_cite_result(FILE *f, const json_t *c)
{
    double e = first(c, "elapsed_ns"), k = first(c, "kernel_ns");
    fprintf(f, "it returned %.3f us, the kernel ran %.3f us by %%globaltimer (%+.3f us)", e / 1e3, k / 1e3,
            (e - k) / 1e3);
}

/* ---- the descriptor (outcome.h), registered by its CTS_KIND line of apis.def ---- */

const struct cts_outcome cts_elapsed_outcome = {
    .key = "elapsed", .names = elapsed_values, .count = ELAPSED_COUNT, .at = CTS_AT_KIND, .csv = "elapsed",
    .letters = elapsed_letters, .legend = &elapsed_legend, .evidence = {&elapsed_evidence},
    .from_rep = elapsed_from_rep, .family = "event_timing", .cite_setup = elapsed_cite_setup,
    .cite_result = elapsed_cite_result, .holds = elapsed_holds};
