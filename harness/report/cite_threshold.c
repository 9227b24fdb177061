/* sync-cts cite: a threshold row (the matrix's thresholds section) as one
 * paragraph: the call of its base case at every size, where its outcome
 * flips, the outcomes at the matrix's sample sizes, where it was measured,
 * and the judgement of the base case (the call, where and the judgement are
 * cite.c's). */
#define _GNU_SOURCE
#include "cite_int.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* A probe's outcome as words: the cell symbol ("Qc", "W+b") spelled out. */
static void outcome_words(struct buf *b, const char *outcome)
{
    const char *colon = strchr(outcome, ':');
    const char *sym = colon ? colon + 1 : outcome;
    if (!colon) { /* NOTSUPP, FAIL: no verdict */
        say(b, "%s", outcome);
        return;
    }
    if (!strncmp(outcome, "VARIES:", 7)) {
        say(b, "varies between repetitions (%s)", sym);
        return;
    }
    const char *p = sym;
    int rejected = *p == 'X';
    p += rejected;
    if (*p == 'W') {
        say(b, "%swaits for the held work (`%s`)", rejected ? "is rejected and " : "", sym);
        return;
    }
    say(b, "%sreturns while the work is held, ", rejected ? "is rejected, " : "");
    say(b, *p == 'A' ? "work after it in its stream runs" : "work after it in its stream waits");
    p++;
    if (*p == 'c' || *p == 'r' || *p == 'p')
        say(b, *p == 'c' ? ", its source taken at the call" : *p == 'r' ? ", its source read after the return"
                                                                      : ", its source partly taken at the call");
    if (strstr(p, "+b"))
        say(b, ", a third blocking stream held");
    if (strstr(p, "+n"))
        say(b, ", a third non-blocking stream held");
    say(b, " (`%s`)", sym);
}

/* A threshold row's size unit in words: bytes, or one dimension of a 2D copy. */
static void unit_words(char *buf, size_t len, const json_t *row)
{
    const json_t *axis = json_object_get(row, "axis");
    long long fixed = cts_json_int(axis, "fixed");
    if (!strcmp(s_of(axis, "name"), "width"))
        snprintf(buf, len, "bytes wide (%lld rows)", fixed);
    else if (!strcmp(s_of(axis, "name"), "rows"))
        snprintf(buf, len, "rows (of %lld bytes)", fixed);
    else
        snprintf(buf, len, "bytes");
}

static void probe_words(struct buf *b, const json_t *p, const char *side, const char *unit)
{
    const json_t *us = json_object_get(p, "call_us");
    outcome_words(b, s_of(p, "outcome"));
    say(b, " %s %lld %s", side, (long long)json_integer_value(json_object_get(p, "bytes")), unit);
    if (json_is_number(us))
        say(b, " (%.1f us in the call)", json_number_value(us));
}

static void flips_words(struct buf *b, const json_t *row)
{
    const json_t *flips = json_object_get(row, "flips"), *f;
    size_t i;
    char unit[48];
    unit_words(unit, sizeof unit, row);
    if (!json_array_size(flips)) {
        say(b, " no flip: one outcome from 1 to %lld %s.", cts_json_int(row, "max_bytes"), unit);
        return;
    }
    json_array_foreach(flips, i, f) {
        say(b, i ? "; then it " : " it ");
        probe_words(b, json_object_get(f, "below"), "up to", unit);
        say(b, ", and ");
        probe_words(b, json_object_get(f, "above"), "from", unit);
        if (!json_is_true(json_object_get(f, "exact")))
            say(b, " (not exact: the sizes between could not be decided)");
        else
            say(b, json_is_true(json_object_get(f, "steady")) ? " (exact; two sizes on each side agree)"
                                                              : " (exact, but the outcome alternates around it)");
    }
    say(b, ".");
}

int cts_cite_threshold(const json_t *m, const char *row, const json_t *base, FILE *out)
{
    const json_t *th = json_object_get(m, "thresholds"), *r = json_object_get(json_object_get(th, "rows"), row);
    const json_t *run = json_object_get(th, "run"), *samples = json_object_get(r, "samples"), *x;
    if (!r || !base)
        return -1;
    struct cts_case_view v;
    struct cts_env_view e;
    cts_case_view(&v, s_of(r, "base_case"), base);
    cts_env_view(&e, m);
    struct buf b = {0};
    b.f = open_memstream(&b.s, &b.n);
    if (!b.f)
        return -1;
    v.sized = 0; /* the row: every size */
    cts_cite_the_call(&b, &v, &e);
    char unit[48];
    unit_words(unit, sizeof unit, r);
    say(&b, "searched from 1 to %lld %s in %lld probes, each a full case run of %lld repetitions,",
        cts_json_int(r, "max_bytes"), unit, cts_json_int(r, "probes"), cts_json_int(run, "repetitions"));
    flips_words(&b, r);
    say(&b, " At the matrix's sample sizes:");
    int any = 0;
    for (int i = 0; i < CTS_SIZE_COUNT; i++) /* in size order */
        if ((x = json_object_get(samples, cts_size_token(i))))
            say(&b, "%s %s %s", any++ ? "," : "", cts_size_token(i), json_string_value(x));
    say(&b, ".");
    cts_cite_where(&b, &e, s_of(r, "base_case"));
    say(&b, " Threshold search by cuda-sync-cts %s on %s (row %s). At its sample size, %s:", s_of(run, "suite_revision"),
        s_of(run, "date"), row, s_of(r, "base_case"));
    cts_cite_judgement(&b, m, &v);
    int bad = fclose(b.f) != 0;
    for (char *p = b.s; !bad && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    if (!bad)
        bad = fprintf(out, "%s\n", b.s) < 0;
    free(b.s);
    return bad ? -1 : 0;
}
