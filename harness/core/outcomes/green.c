/* The green family's kind of outcome (cases/green.c): with an all-SM kernel held in green context
 * A (or, for the control, in the primary context), does a kernel in another green context B start,
 * and does a synchronizing call made in B (or in A, or in the primary context) wait for A's work?
 * Its value lives in the verdict's kind slot and its observations in the repetition's obs (outcome.h,
 * CTS_AT_KIND): this file and its CTS_KIND line of apis.def are all of it.
 *
 * Values, the kernel's (green_kernel_start.*): `starts` (`Ks`), B's kernel was seen started while
 * A's gate was closed, or its %globaltimer start precedes the gate's release; `queued` (`Kq`), it
 * started only after the release, having had GREEN_WINDOW_MIN_US to start while A filled every SM A
 * was given, one block an SM.  The calls' (green_*synchronize.*, green_stream_query.*): `returns`
 * (`A`), the call returned while the gate was closed; `waits` (`W`), only once it opened, soon after
 * (the release to the return shorter than the gate was closed, itself at least GREEN_WINDOW_MIN_US
 * from the call); cuStreamQuery, which does not wait: `done` (`D`) it answered CUDA_SUCCESS of its
 * idle stream while the gate was closed, `not_ready` (`N`) CUDA_ERROR_NOT_READY. */
#include "evidence.h"
#include "outcomes.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define GREEN_WINDOW_MIN_US 10000.0 /* the gate closed at least this long after B's launch or the call */

enum { GREEN_NA, GREEN_STARTS, GREEN_QUEUED, GREEN_RETURNS, GREEN_WAITS, GREEN_DONE, GREEN_NOT_READY, GREEN_COUNT };
static const char *const green_values[GREEN_COUNT] = {NULL, "starts", "queued", "returns", "waits", "done",
                                                      "not_ready"};
static const char *const green_letters[GREEN_COUNT] = {"?", "Ks", "Kq", "A", "W", "D", "N"};

static const struct cts_legend_row green_legend = {
    "`Ks` `Kq` `A` `W` `D` `N`", "Ks", "u",
    "(green contexts: groups `green_*`, an all-SM kernel, one block an SM, held in green context A or in the "
    "primary context) `Ks` a one-block kernel launched in B started while A's kernel was held / `Kq` it "
    "started only once A's was let go; a synchronizing call made in B, in A or in the primary context: `A` "
    "it returned while A's kernel was held / `W` only once it was let go; cuStreamQuery of an idle stream: "
    "`D` it answered CUDA_SUCCESS / `N` CUDA_ERROR_NOT_READY"};

/* What one repetition saw (cases/green.c sets them by these names): the SMs A's context was given
 * (the device's for the primary context); how many of A's blocks had started before anything else was
 * done, counted once none had started for a while, and on how many distinct SMs; whether B's kernel
 * was seen started, or the call returned, before the gate opened (1) or not (0); B's start less the
 * gate's release (GPU clock: the first of A's blocks to see the flag open), or the call's return less
 * the opening (host clock), us; how long the gate stayed closed after B's launch or the call began
 * (us); whether one of A's blocks ended at its own deadline (1: the repetition proves nothing); and,
 * cuStreamQuery's only, whether it answered CUDA_ERROR_NOT_READY (1) or CUDA_SUCCESS (0).  The
 * kernel's repetitions have distinct_sms, the query's not_ready; the other calls' neither. */
static const char *const green_names[] = {"a_sms",     "resident", "distinct_sms", "before_open",
                                          "after_release_us", "closed_us", "deadline", "not_ready"};
enum { O_A_SMS, O_RESIDENT, O_DISTINCT, O_BEFORE, O_AFTER, O_CLOSED, O_DEADLINE, O_NOT_READY };

static int green_has(const struct cts_rep *r) { return r->obs.kind == &cts_green_outcome; }
static json_t *green_value(const struct cts_rep *r, int k)
{
    return green_has(r) ? obs_number(r->obs.v[k]) : json_null();
}
static const struct cts_evidence green_evidence = CTS_EVIDENCE("green", green, NULL);

/* B's kernel: NA unless A's kernel filled what it was given, one block an SM, and did not end itself. */
static int kernel_decide(const double *x)
{
    if (isnan(x[O_A_SMS]) || isnan(x[O_RESIDENT]) || isnan(x[O_BEFORE]) || x[O_DEADLINE] != 0 ||
        x[O_RESIDENT] < x[O_A_SMS] || x[O_DISTINCT] != x[O_RESIDENT])
        return GREEN_NA;
    if (x[O_BEFORE] == 1 || x[O_AFTER] < 0)
        return GREEN_STARTS;
    if (x[O_AFTER] >= 0 && x[O_CLOSED] >= GREEN_WINDOW_MIN_US)
        return GREEN_QUEUED;
    return GREEN_NA;
}

/* A call: NA unless A's kernel ran while it was made and did not end itself. */
static int call_decide(const double *x)
{
    if (isnan(x[O_RESIDENT]) || isnan(x[O_BEFORE]) || x[O_RESIDENT] < 1 || x[O_DEADLINE] != 0)
        return GREEN_NA;
    if (!isnan(x[O_NOT_READY])) /* the query: an answer given while the gate was closed */
        return x[O_BEFORE] != 1 ? GREEN_NA : x[O_NOT_READY] != 0 ? GREEN_NOT_READY : GREEN_DONE;
    if (x[O_BEFORE] == 1)
        return GREEN_RETURNS;
    if (x[O_CLOSED] >= GREEN_WINDOW_MIN_US && x[O_AFTER] >= 0 && x[O_AFTER] < x[O_CLOSED])
        return GREEN_WAITS;
    return GREEN_NA;
}

static int green_from_rep(const struct cts_rep *r, struct cts_verdict *v)
{
    if (!green_has(r))
        return 0;
    cts_outcome_set(v, &cts_green_outcome, isnan(r->obs.v[O_DISTINCT]) ? call_decide(r->obs.v) : kernel_decide(r->obs.v));
    return 1;
}

/* Its clauses (cases/green.c): cuCtxSynchronize and cudaDeviceSynchronize wait for the held work where
 * the documentation says they synchronize it; cuStreamQuery of a stream whose work completed answers
 * CUDA_SUCCESS.  The kernel's clause promises nothing (may). */
static int green_holds(int value) { return value == GREEN_WAITS || value == GREEN_DONE; }

/* ---- its paragraph (sync-cts cite) ---- */

static double first(const json_t *c, const char *name) { return obs_first(c, "green", name); }

static const char *placement(const char *variant)
{
    if (!variant)
        return "?";
    if (!strcmp(variant, "split"))
        return "B's kernel on a stream of a second green context B, the SMs split between A and B";
    if (!strcmp(variant, "same_green"))
        return "B's kernel on a second stream of A";
    if (!strcmp(variant, "primary"))
        return "A's and B's kernels on two non-blocking streams of the primary context (the control)";
    if (!strcmp(variant, "in_b"))
        return "the call made with green context B current (B's stream or event, idle)";
    if (!strcmp(variant, "in_a"))
        return "the call made with A current (a second, idle stream of A, or an event on it)";
    return "the call made with the primary context current (an idle non-blocking stream, or an event on it)";
}

static void green_cite_setup(FILE *f, const json_t *c)
{
    const char *variant = json_string_value(json_object_get(c, "variant"));
    int primary = variant && !strcmp(variant, "primary");
    fprintf(f,
            "A kernel of one block an SM of the device, each block taking enough shared memory to fill an SM, "
            "held spinning on a flag in mapped pinned memory on a stream of %s (%.0f SMs); %s: ",
            primary ? "the primary context" : "green context A", first(c, "a_sms"), placement(variant));
}

static void green_cite_result(FILE *f, const json_t *c)
{
    double resident = first(c, "resident"), before = first(c, "before_open"), after = first(c, "after_release_us");
    fprintf(f, "%.0f of A's blocks ran while it was held; ", resident);
    if (!isnan(first(c, "distinct_sms")))
        fprintf(f, before == 1 ? "B's kernel was seen started before the flag opened"
                               : "B's kernel started %.1f us after A's first block saw the flag open (GPU clock)",
                after);
    else if (!isnan(first(c, "not_ready")))
        fprintf(f, "the query answered %s while the flag was closed",
                first(c, "not_ready") != 0 ? "CUDA_ERROR_NOT_READY" : "CUDA_SUCCESS");
    else if (before == 1)
        fprintf(f, "the call returned while the flag was closed");
    else
        fprintf(f, "the call returned %.1f us after the flag opened, %.0f us after it began", after,
                first(c, "closed_us") + after);
}

/* ---- the descriptor (outcome.h), registered by its CTS_KIND line of apis.def ---- */

const struct cts_outcome cts_green_outcome = {
    .key = "green", .names = green_values, .count = GREEN_COUNT, .at = CTS_AT_KIND, .csv = "green",
    .letters = green_letters, .legend = &green_legend, .evidence = {&green_evidence},
    .from_rep = green_from_rep, .family = "green", .cite_setup = green_cite_setup,
    .cite_result = green_cite_result, .holds = green_holds};
