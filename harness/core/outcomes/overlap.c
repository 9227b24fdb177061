/* The overlap family's kind of outcome: whether two operations in two streams
 * ran at once (no gate: measured by events and times alone, docs/method.md
 * "Overlap"), its values' names and cell letters, and how a pair and a staged
 * copy are judged.  Its CTS_KIND line of apis.def registers its descriptor
 * (the end of this file). */
#include "evidence.h"
#include "outcomes.h"

#include <math.h>
#include <stddef.h>

static const char *const overlap_values[CTS_OVERLAP_VALUES] = {NULL, "overlaps", "partial", "shares", "serializes"};
static const char *const overlap_letters[CTS_OVERLAP_VALUES] = {"?", "O", "P", "C", "S"};

/* Its row of the cell legend (report/legend.c renders it after the engine's). */
static const struct cts_legend_row overlap_legend = {
    "`O` `P` `C` `S`", "O", "a",
    "(overlap: two operations, no gate) they ran at once / partly / at once but no faster, both "
    "slowed (shared) / one after the other"};

const char *cts_overlap_name(enum cts_overlap x)
{
    return (unsigned)x < (unsigned)CTS_OVERLAP_VALUES ? overlap_values[x] : "?";
}

/* The bands, with no gap between them: a fraction of OVERLAP_MIN or more
 * overlaps (at least half of the shorter operation's time was hidden),
 * PARTIAL_MIN up to OVERLAP_MIN is partial, below PARTIAL_MIN serializes, or
 * shares when the first to end took SHARED_STRETCH times its time alone or
 * more (both ran at once and shared what bounds them).  B's start event at or
 * after A's end event (within EVENT_SLACK_US) proves B did not start before A
 * ended: serializes, whatever the times alone (a pageable copy that blocks the
 * host, one stream).  On the H100 (driver 580.159.04, 997697cbe854) pairs that
 * ran at once measured 0.86-1.0 (5th percentile to median), ones queued on
 * one copy engine or host-function thread 0.0-0.2 (the first to end
 * stretched 0.97-1.00), two 1 GiB device copies sharing the memory bandwidth
 * 0.02 (stretched 1.97); a pinned host-to-device and device-to-host copy at
 * once 0.62-0.93, a pinned host-to-device copy beside a pageable
 * device-to-host one 0.50-0.65 (both slowed), a 1 ms one-block kernel behind a
 * 1 GiB memset 0.10-0.42.  Bands with gaps re-measured in between (0.6 and
 * 0.3-0.5, then 0.5 and 0.25-0.45) left such stable in-between pairs
 * INCONCLUSIVE, which they are not: a pair near a border is partial in one
 * repetition and not in another, and says so (VARIES, with the fractions). */
#define OVERLAP_MIN 0.5
#define PARTIAL_MIN 0.2
#define SHARED_STRETCH 1.5
#define EVENT_SLACK_US 2.0

void cts_pair_judge(struct cts_pair_obs *p)
{
    double start = fmin(p->a_start_us, p->b_start_us);
    double end = fmax(p->a_end_us, p->b_end_us);
    double shorter = fmin(p->a_alone_us, p->b_alone_us);
    int a_first = p->a_end_us <= p->b_end_us;
    double first_end = a_first ? p->a_end_us : p->b_end_us;
    double first_alone = a_first ? p->a_alone_us : p->b_alone_us;
    p->makespan_us = end - start;
    p->fraction = shorter > 0 ? (p->a_alone_us + p->b_alone_us - p->makespan_us) / shorter : NAN;
    p->stretch = first_alone > 0 ? (first_end - start) / first_alone : NAN;
    p->overlap = CTS_OVERLAP_NA;
    if (p->b_start_us >= p->a_end_us - EVENT_SLACK_US) {
        p->overlap = CTS_OVERLAP_SERIALIZES;
        return;
    }
    if (isnan(p->fraction) || isnan(p->stretch))
        return;
    if (p->fraction >= OVERLAP_MIN)
        p->overlap = CTS_OVERLAP_OVERLAPS;
    else if (p->fraction >= PARTIAL_MIN)
        p->overlap = CTS_OVERLAP_PARTIAL;
    else
        p->overlap = p->stretch >= SHARED_STRETCH ? CTS_OVERLAP_SHARES : CTS_OVERLAP_SERIALIZES;
}

enum cts_overlap cts_staged_judge(struct cts_staged_obs *s)
{
    double longest = fmax(s->h2d_us, fmax(s->kernel_us, s->d2h_us));
    s->fraction = s->sequential_us > longest ? (s->sequential_us - s->version_us) / (s->sequential_us - longest)
                                             : NAN;
    if (isnan(s->fraction))
        return CTS_OVERLAP_NA;
    if (s->fraction >= OVERLAP_MIN)
        return CTS_OVERLAP_OVERLAPS;
    return s->fraction >= PARTIAL_MIN ? CTS_OVERLAP_PARTIAL : CTS_OVERLAP_SERIALIZES;
}

/* A pair: no gate, no call held; its overlap is the verdict. */
static int overlap_from_rep(const struct cts_rep *r, struct cts_verdict *v)
{
    v->overlap = r->pair.overlap;
    return v->overlap != CTS_OVERLAP_NA;
}

/* ---- its evidence (outcome.h: struct cts_evidence) ---- */

/* The overlap family's measurements (docs/method.md, "Overlap"): times from A's start event. */
static const char *const pair_names[] = {"a_alone_us", "b_alone_us", "a_end_us", "b_start_us", "b_end_us",
                                         "makespan_us", "fraction", "stretch"};
static int pair_has(const struct cts_rep *p) { return p->pair.a_alone_us > 0; }
static json_t *pair_value(const struct cts_rep *rep, int k)
{
    const struct cts_pair_obs *p = &rep->pair;
    double x[] = {p->a_alone_us, p->b_alone_us, p->a_end_us - p->a_start_us, p->b_start_us - p->a_start_us,
                  p->b_end_us - p->a_start_us, p->makespan_us, p->fraction, p->stretch};
    return k < 6 ? us(x[k]) : fraction(x[k]);
}
static const struct cts_evidence pair_evidence = CTS_EVIDENCE("pair", pair, NULL);

/* The overlap family's staged-copy measurements. */
static const char *const staged_names[] = {"sequential_us", "version_us", "h2d_us", "kernel_us", "d2h_us",
                                           "fraction"};
static int staged_has(const struct cts_rep *p) { return p->staged.sequential_us > 0; }
static json_t *staged_value(const struct cts_rep *rep, int k)
{
    const struct cts_staged_obs *s = &rep->staged;
    double x[] = {s->sequential_us, s->version_us, s->h2d_us, s->kernel_us, s->d2h_us, s->fraction};
    return k < 5 ? us(x[k]) : fraction(x[k]);
}
static const struct cts_evidence staged_evidence = CTS_EVIDENCE("staged", staged, NULL);

/* ---- the descriptor (outcome.h), registered by its CTS_KIND line of apis.def ---- */

const struct cts_outcome cts_overlap_outcome = {
    .key = "overlap", .names = overlap_values, .count = CTS_OVERLAP_VALUES, .at = offsetof(struct cts_verdict, overlap),
    .letters = overlap_letters, .legend = &overlap_legend, .evidence = {&pair_evidence, &staged_evidence},
    .from_rep = overlap_from_rep};
