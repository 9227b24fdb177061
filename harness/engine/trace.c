/* CTS_TRACE: lines for studying the harness, never part of a verdict. */
#define _GNU_SOURCE
#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CTS_TRACE=1: one line per idle measurement, control and attempt on stderr
 * (cts_eng_trace_attempt), with its wall time, and one per case at its end
 * (cts_engine_trace_case): for studying the harness, never part of a verdict.
 * tools/bench.py --profile reads them. */
int cts_eng_trace_on(void)
{
    static int on = -1;
    if (on < 0)
        on = getenv("CTS_TRACE") && strcmp(getenv("CTS_TRACE"), "0") != 0;
    return on;
}

/* An attempt's trace line says how long this thread waited for a processor
 * during the call. */
double cts_eng_trace_run_delay_us;
double cts_eng_trace_others_us = NAN;
int cts_eng_trace_others_tid;
struct cts_trace_parts cts_eng_trace_parts;

/* A thread's name (/proc's comm), or "?". */
static void thread_name(int tid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
    FILE *f = fopen(path, "r");
    if (!f || !fgets(buf, (int)len, f))
        snprintf(buf, len, "?");
    if (f)
        fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

/* An attempt's line: `trace ID rep N RC: STATUS ... parts S/T/C/A/F/U data D/J
 * wall W phase P attempt K`, then `: REASON` where it has one (the parts:
 * struct cts_trace_parts, in its order).  P is rep (a repetition's first attempt),
 * retry (a further one: grown, perturbed, starved), recheck or confirm (every
 * attempt of those); K counts the attempts of that one call of measure_rep. */
void cts_eng_trace_attempt(const struct cts_case *c, int rep, int rc, const struct cts_result *res,
                           const struct cts_rep *r, enum cts_trace_phase phase, int attempt,
                           double wall_us)
{
    static const char *const phases[] = {"rep", "recheck", "confirm"};
    const struct cts_trace_parts *p = &cts_eng_trace_parts;
    char others[96] = "";
    if (!isnan(cts_eng_trace_others_us)) {
        char name[32] = "-";
        if (cts_eng_trace_others_tid)
            thread_name(cts_eng_trace_others_tid, name, sizeof name);
        snprintf(others, sizeof others, " others %.1f (most: %s)", cts_eng_trace_others_us, name);
    }
    static const char *const rcs[] = {"done", "window_short", "timeout_short", "hold_to_track",
                                      "perturbed", "wait_to_prove", "starved"};
    fprintf(stderr,
            "trace %s rep %d %s: %s timeout %.0f window %.0f call %.1f host %s tail %.1f "
            "run_delay %.1f%s markers %s/%s/%s at %.1f/%.1f/%.1f parts %.0f/%.0f/%.0f/%.0f/%.0f/%.0f data %.0f/%.0f "
            "wall %.0f phase %s attempt %d%s%s\n",
            c->id, rep + 1, rcs[rc], cts_status_name(r->status), res->timeout_us, res->window_us,
            r->call_us, r->host == CTS_HOST_WAITS ? "waits" : "returns", r->release_to_return_us,
            cts_eng_trace_run_delay_us, others, r->op_after == CTS_ORDER_RUNS ? "runs" : "held",
            r->third_blocking == CTS_ORDER_RUNS ? "runs" : "held",
            r->third_nonblocking == CTS_ORDER_RUNS ? "runs" : "held", r->op_after_gpu_us,
            r->third_blocking_gpu_us, r->third_nonblocking_gpu_us, p->set_up, p->start, p->call, p->after,
            p->finish, p->clean_up, p->data_setup, p->data_judge, wall_us,
            phase == CTS_TRACE_REP && attempt > 1 ? "retry" : phases[phase], attempt,
            r->reason[0] ? ": " : "", r->reason);
}

void cts_engine_trace_case(const struct cts_case *c, enum cts_status status, int own, double wall_us)
{
    if (cts_eng_trace_on())
        fprintf(stderr, "trace %s case: %s wall %.0f measure %s\n", c->id, cts_status_name(status), wall_us,
                own ? "own" : "engine");
}

/* A worker's start: `trace worker start at case N: find F env E context C memory M warm W probe P
 * selfcheck S wake K wall T` (microseconds; a part not reached is 0): from the worker's first
 * instruction to its first case, the engine's set-up part by part (cts_engine_init). */
void cts_engine_trace_start(const struct cts_engine *e, size_t first, double t0, double found, double env)
{
    if (!cts_eng_trace_on())
        return;
    double part[7], at = e->init_at[0];
    for (int i = 1; i < 7; i++) {
        part[i] = e->init_at[i] > 0 && at > 0 ? e->init_at[i] - at : 0;
        at = e->init_at[i] > 0 ? e->init_at[i] : at;
    }
    fprintf(stderr,
            "trace worker start at case %zu: find %.0f env %.0f context %.0f memory %.0f warm %.0f probe %.0f "
            "selfcheck %.0f wake %.0f wall %.0f\n",
            first, found - t0, env - found, part[1], part[2], part[3], part[4], part[5], part[6],
            cts_now_us() - t0);
}
