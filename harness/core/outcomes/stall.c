/* The stall family's kind of outcome ("other_thread"): what a second host
 * thread's commands did during the call (docs/method.md "Other-thread
 * stalls"), its values' names and cell letters (after the call's own: "A:S"),
 * and how a window is judged.  Its CTS_KIND line of apis.def registers its
 * descriptor (the end of this file). */
#include "evidence.h"
#include "outcomes.h"

#include <stddef.h>
#include <math.h>
#include <stdlib.h>

static const char *const stall_values[CTS_STALL_COUNT] = {NULL, "unaffected", "stalls", "brief"};
static const char *const stall_letters[CTS_STALL_COUNT] = {"?", "U", "S", "B"};

/* Its row of the cell legend (report/legend.c renders it after the engine's). */
static const struct cts_legend_row stall_legend = {
    "`A:U` `W:S` `A:B`", "A:U", "a",
    "(other-thread stalls: groups `<api>.other_thread`, a second host thread making one cheap "
    "command, the case's `with`, every 50 µs on a non-blocking stream of its own) `A` / `W`: the call"
    " returned / waited, as above; then what the second thread's commands did during the call: `U` "
    "they ran on (one began and returned inside it, none stalled) / `S` one stalled until the call "
    "returned (more than twice the control's slowest, and 10 µs more) / `B` the call was over before "
    "one could begin and return inside it, or took under 5 µs"};

const char *cts_stall_name(enum cts_stall x)
{
    return (unsigned)x < (unsigned)CTS_STALL_COUNT ? stall_values[x] : "?";
}

/* A stalled command took more than twice the control's slowest, and this
 * much more than it: a control of event records whose slowest took 0.7 us
 * (H100) would otherwise call any 2 us of jitter a stall. */
#define STALL_SLACK_US 10.0
/* A call shorter than this (about a kernel launch) is brief whatever fitted
 * inside it: cudaGetDeviceProperties, 0.3-1 us, had an event record of 0.6 us
 * inside it in some runs and not in others (H100, 5392ca14bb47). */
#define STALL_BRIEF_US 5.0
/* A command held for this share of the call's own time or more (less what
 * the calling thread waited for a processor in it) was held by the call even
 * where it returned just before the call did: the call's last work after it
 * let the command go, and the command's start after the kick, took longer
 * under load than quiet (H200, 16 MiB cudaMalloc, cudaHostRegister and
 * pageable cudaMemcpy: their commands held 88-98 % of the call's own time,
 * and returned inside it); the slow commands of quiet runs that returned
 * inside a call took at most 65 % of it (a first launch of 65 us, 42 us;
 * 93b6dfa, 676519b).  But with two H200s in the process a 16 MiB
 * cudaHostRegister holds another thread's command on its GPU for 66-75 % of
 * the call, which returns after it (9c08334): that one sits at the line. */
#define STALL_WHOLE 0.75

/* A command's own time: less what its thread waited for a processor during it. */
static double own_time(const struct cts_stall_cmd *c)
{
    return c->end_us - c->begin_us - (isnan(c->delay_us) ? 0 : c->delay_us);
}

/* The second thread's longest wait for a processor at once over [from, to):
 * during a command that overlaps it, or between two commands where that gap
 * does (NAN: one of those not known). */
static double kept_over(const struct cts_stall_cmd *cmd, size_t n, double from, double to)
{
    double kept = 0;
    for (size_t i = 0; i < n; i++) {
        double gap_from = i ? cmd[i - 1].end_us : -INFINITY;
        double during = cmd[i].begin_us < to && cmd[i].end_us > from ? cmd[i].delay_us : 0;
        double before = gap_from < to && cmd[i].begin_us > from ? cmd[i].gap_delay_us : 0;
        if (isnan(during) || isnan(before))
            return NAN;
        kept = fmax(kept, fmax(during, before));
    }
    return kept;
}

enum cts_stall cts_stall_decide(const struct cts_stall_cmd *cmd, size_t n, double call_begin_us,
                                double call_end_us, double control_us, double caller_delay_us,
                                struct cts_stall_obs *o)
{
    o->commands = o->inside = 0;
    o->slowest_us = o->stalled_us = NAN;
    double own_call = call_end_us - call_begin_us - (isnan(caller_delay_us) ? 0 : caller_delay_us);
    for (size_t i = 0; i < n; i++) {
        double b = cmd[i].begin_us, e = cmd[i].end_us, took = own_time(&cmd[i]);
        if (b < call_begin_us || b >= call_end_us)
            continue;
        o->commands++;
        if (isnan(o->slowest_us) || took > o->slowest_us)
            o->slowest_us = took;
        if (e <= call_end_us)
            o->inside++;
        if ((e > call_end_us || took >= STALL_WHOLE * own_call) && b <= call_end_us - control_us &&
            took > 2.0 * control_us && took > control_us + STALL_SLACK_US && (isnan(o->stalled_us) || took > o->stalled_us))
            o->stalled_us = took; /* began early enough to return before the call, yet returned after it
                                   * (or was held through the call's own time, all but its ends) */
    }
    o->kept_us = kept_over(cmd, n, call_begin_us, call_end_us);
    if (caller_delay_us > o->kept_us || isnan(caller_delay_us))
        o->kept_us = caller_delay_us;
    double call = call_end_us - call_begin_us;
    o->verdict = !isnan(o->stalled_us)                   ? CTS_STALL_STALLS
                 : o->kept_us > CTS_STALL_KEPT_US        ? CTS_STALL_NA
                 : call < STALL_BRIEF_US                 ? CTS_STALL_BRIEF
                 : o->inside                             ? CTS_STALL_UNAFFECTED
                 : o->kept_us > STALL_SLACK_US           ? CTS_STALL_NA /* nothing fitted: the wait may be why */
                                                         : CTS_STALL_BRIEF;
    return o->verdict;
}

size_t cts_stall_control(const struct cts_stall_cmd *cmd, size_t n, double begin_us, double end_us, double *times,
                         double *slowest, double *median, double *kept)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (cmd[i].begin_us >= begin_us && cmd[i].begin_us < end_us)
            times[k++] = own_time(&cmd[i]);
    qsort(times, k, sizeof *times, cts_cmp_double);
    *slowest = k ? times[k - 1] : NAN;
    *median = k ? times[k / 2] : NAN;
    *kept = kept_over(cmd, n, begin_us, end_us);
    return k;
}

enum cts_stall cts_stall_tracked(const struct cts_stall_obs *a, const struct cts_stall_obs *b, double grow_us,
                                 double fraction)
{
    if (a->verdict != CTS_STALL_STALLS)
        return a->verdict;
    if (b->verdict == CTS_STALL_STALLS && b->stalled_us - a->stalled_us >= fraction * grow_us)
        return CTS_STALL_STALLS;
    return CTS_STALL_NA;
}

/* The call's own host letter, and what the other thread saw: no markers. */
static int stall_from_rep(const struct cts_rep *r, struct cts_verdict *v)
{
    v->stall = r->stall.verdict;
    if (v->stall == CTS_STALL_NA)
        return 0;
    v->host = r->host;
    return 1;
}

/* ---- its evidence (outcome.h: struct cts_evidence) ---- */

/* The stall family's second thread, during the call and in the control
 * (docs/method.md, "Other-thread stalls"). */
static const char *const stall_names[] = {"commands", "inside", "slowest_us", "control_us", "control_median_us",
                                          "stalled_us", "tracked_us", "stall_us", "tracked_stall_us", "kept_us"};
static int stall_has(const struct cts_rep *p) { return p->stall.verdict != CTS_STALL_NA; }
static json_t *stall_value(const struct cts_rep *rep, int k)
{
    const struct cts_stall_obs *p = &rep->stall;
    double x[] = {p->slowest_us, p->control_us, p->control_median_us, p->stalled_us,
                  p->tracked_us, p->stall_us, p->tracked_stall_us, p->kept_us};
    return k == 0 ? json_integer(p->commands) : k == 1 ? json_integer(p->inside) : us(x[k - 2]);
}
static const struct cts_evidence stall_evidence = CTS_EVIDENCE("stall", stall, NULL);

/* ---- the descriptor (outcome.h), registered by its CTS_KIND line of apis.def ---- */

const struct cts_outcome cts_stall_outcome = {
    .key = "other_thread", .names = stall_values, .count = CTS_STALL_COUNT, .at = offsetof(struct cts_verdict, stall),
    .csv = "other_thread", .letters = stall_letters, .after_host = 1, .legend = &stall_legend,
    .evidence = {&stall_evidence}, .from_rep = stall_from_rep};
