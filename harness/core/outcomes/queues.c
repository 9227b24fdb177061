/* The queues family's kind of outcome: how many kernels, each on a stream of
 * its own and held there by a gate of its own, run at once (docs/method.md
 * "Kernels at once"), and which stream first waits behind which.  Its value
 * lives in the verdict's kind slot and its observations in the repetition's
 * obs (outcome.h, CTS_AT_KIND): this file and its CTS_KIND line of apis.def
 * are all of it, the paragraph `sync-cts cite` writes included.
 *
 * Values: `all`, every one of the streams' kernels started while no gate had
 * opened; `some`, fewer did, and each of the others started only after a gate
 * was opened (a stream that shares a hardware queue with a held one).  Both
 * carry the count that started at once: the cell `K8`. */
#include "evidence.h"
#include "outcomes.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { QUEUES_NA, QUEUES_ALL, QUEUES_SOME, QUEUES_COUNT };
static const char *const queues_values[QUEUES_COUNT] = {NULL, "all", "some"};
static const char *const queues_letters[QUEUES_COUNT] = {"?", "K", "K"};

static const struct cts_legend_row queues_legend = {
    "`K8`", "K8", "u",
    "(kernels at once: groups `kernels_at_once.*`, a kernel on each of N streams, each held by a gate of "
    "its own, alone or with a second kernel behind it) that many of the N held kernels started before any "
    "gate opened, the count the same after a five times longer wait; where fewer than N, each of the "
    "others started only once a gate was opened"};

/* What one repetition saw (cases/queues.c sets them by these names): the streams (N); the kernels
 * started while every gate was closed, counted once nothing had started for the settling time and
 * again after five times as long; those that started only after a gate was opened (each opened in
 * stream order, one at a time, until the first waiting stream's kernel started); that first waiting
 * stream (its index, null: none waited), the stream whose gate let it start and how long after that
 * stream's kernel ended it started (GPU clock, us); whether a gate ended at its own deadline before
 * it was opened (1: the repetition proves nothing). */
static const char *const queues_names[] = {"streams",       "at_once", "at_once_long",  "late",
                                           "first_waiting", "behind",  "behind_gap_us", "deadline"};

static int queues_has(const struct cts_rep *r) { return r->obs.kind == &cts_queues_outcome; }
static json_t *queues_value(const struct cts_rep *r, int k)
{
    return queues_has(r) ? obs_number(r->obs.v[k]) : json_null();
}
static const struct cts_evidence queues_evidence = CTS_EVIDENCE("queues", queues, NULL);

/* The pure decision: `all` or `some` where the repetition proves it, else NA (measured again). */
static int queues_decide(double streams, double at_once, double at_once_long, double late, double deadline)
{
    if (isnan(streams) || isnan(at_once) || deadline != 0 || at_once != at_once_long || at_once < 1 ||
        at_once + late != streams)
        return QUEUES_NA;
    return at_once == streams ? QUEUES_ALL : QUEUES_SOME;
}

static int queues_from_rep(const struct cts_rep *r, struct cts_verdict *v)
{
    if (!queues_has(r))
        return 0;
    const double *x = r->obs.v;
    int value = queues_decide(x[0], x[1], x[2], x[3], x[7]);
    cts_outcome_set(v, &cts_queues_outcome, value);
    if (value)
        v->kind_count = (long long)x[1];
    return 1;
}

/* ---- its paragraph (sync-cts cite) ---- */

/* The first repetition's observation `name`, NAN where the matrix has none. */
static double first(const json_t *c, const char *name) { return obs_first(c, "queues", name); }

static void queues_cite_setup(FILE *f, const json_t *c)
{
    const char *variant = json_string_value(json_object_get(c, "variant"));
    const char *with = json_string_value(json_object_get(c, "with"));
    int n = with ? atoi(with) : 0;
    int two = variant && !strncmp(variant, "two_kernels", 11);
    const char *priority = !variant                           ? "?"
                           : strstr(variant, "priority_high") ? "the greatest priority"
                           : strstr(variant, "priority_mixed")
                               ? "alternately the greatest and the least priority, the first the greatest"
                               : "the default priority";
    fprintf(f,
            "On each of %d non-blocking streams created for the case with %s, one after the other from one host "
            "thread: a kernel of one thread (cudaLaunchKernel) spinning until its own flag in mapped pinned memory "
            "opened%s: ",
            n, priority, two ? ", then a second kernel, which its stream runs only once the first has ended" : "");
}

static void queues_cite_result(FILE *f, const json_t *c)
{
    double n = first(c, "streams"), at = first(c, "at_once"), j = first(c, "first_waiting");
    double i = first(c, "behind"), gap = first(c, "behind_gap_us");
    fprintf(f, "%.0f of the %.0f spinning kernels started before any flag opened, and no more after a five times "
               "longer wait", at, n);
    if (isnan(j)) {
        fprintf(f, ", all of them at once");
        return;
    }
    fprintf(f, "; each of the other %.0f started only after a flag was opened; the first to wait, stream %.0f "
               "(counting from 0 in launch order), ",
            n - at, j);
    if (isnan(i))
        fprintf(f, "started once the flags were opened");
    else
        fprintf(f, "started when stream %.0f's flag was opened, %.1f us after that kernel ended (GPU clock): the "
                   "two streams' work shares a hardware queue",
                i, gap);
}

/* ---- the descriptor (outcome.h), registered by its CTS_KIND line of apis.def ---- */

const struct cts_outcome cts_queues_outcome = {
    .key = "queues", .names = queues_values, .count = QUEUES_COUNT, .at = CTS_AT_KIND, .csv = "queues",
    .count_key = "at_once", .count_with = 1u << QUEUES_ALL | 1u << QUEUES_SOME, .letters = queues_letters,
    .legend = &queues_legend, .evidence = {&queues_evidence}, .from_rep = queues_from_rep,
    .family = "queues", .cite_setup = queues_cite_setup, .cite_result = queues_cite_result};
