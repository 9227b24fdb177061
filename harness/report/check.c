/* sync-cts check: what a run means for a pass/fail decision.
 *
 * - Every case that DEVIATES is listed with the clause it contradicts.  A
 *   deviation covered by a waiver (waivers.json: a case glob, optionally the
 *   clause, a driver range, a reason and a link) is shown as waived, with
 *   its reason, and does not fail the check; any other fails it.
 * - With a baseline (a committed matrix of the same GPU), every case that
 *   has a verdict in both and is not intermittent (VARIES) in either must
 *   have the same verdict: a driver upgrade that changes one fails.
 * - Every case that FAILed or has no verdict (BROKEN, TIMEOUT, INCONCLUSIVE,
 *   CRASH) is listed with its reason, and fails the check: a group's CTest
 *   test is this check of its cases (tests/gpu-group.sh).  A CRASH a waiver
 *   with "status": "CRASH" covers (the driver's own crash, on the drivers it
 *   was seen on) is listed as waived and does not fail it. */
#define _GNU_SOURCE
#include "known.h"
#include "report.h"
#include "spec.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define s_of cts_json_str

/* One dotted component of each, as numbers of any length (their digits, leading zeros aside: no
 * arithmetic, so no overflow); both advanced past their digits. */
static int component_cmp(const char **a, const char **b)
{
    const char *x = *a, *y = *b;
    while (*x == '0')
        x++;
    while (*y == '0')
        y++;
    size_t nx = 0, ny = 0;
    while (x[nx] >= '0' && x[nx] <= '9')
        nx++;
    while (y[ny] >= '0' && y[ny] <= '9')
        ny++;
    int c = nx != ny ? (nx < ny ? -1 : 1) : strncmp(x, y, nx);
    *a = x + nx;
    *b = y + ny;
    return c < 0 ? -1 : c > 0;
}

/* Compares dotted version strings numerically ("580.159.04" < "581.1",
 * "18446744073709552196" > "580"); anything after the digits and dots is ignored. */
static int version_cmp(const char *a, const char *b)
{
    for (;;) {
        int c = component_cmp(&a, &b);
        if (c)
            return c;
        if (*a != '.' && *b != '.')
            return 0;
        a += *a == '.';
        b += *b == '.';
    }
}

static int is_version(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if ((*s < '0' || *s > '9') && *s != '.')
            return 0;
    return 1;
}

json_t *cts_waivers_load(const char *path, char *err, size_t len)
{
    json_error_t je;
    json_t *w = json_load_file(path, 0, &je);
    if (!w) {
        if (je.line < 0 || strstr(je.text, "unable to open"))
            snprintf(err, len, "cannot read '%s': %s", path, je.text);
        else
            snprintf(err, len, "'%s' is not JSON (line %d: %s)", path, je.line, je.text);
        return NULL;
    }
    json_t *list = json_object_get(w, "waivers");
    if (strcmp(s_of(w, "schema"), "cuda-sync-cts/waivers") || !json_is_array(list)) {
        snprintf(err, len, "'%s' is not a cuda-sync-cts waivers file", path);
        json_decref(w);
        return NULL;
    }
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        const char *bad = NULL;
        if (!*s_of(e, "cases"))
            bad = "no case glob (\"cases\")";
        else if (!*s_of(e, "reason"))
            bad = "no reason";
        else if (!*s_of(e, "link"))
            bad = "no link";
        else if (*s_of(e, "clause") && !cts_clause_find(s_of(e, "clause")))
            bad = "an unknown clause";
        else if (json_object_get(e, "status") && (strcmp(s_of(e, "status"), "CRASH") || *s_of(e, "clause")))
            bad = "a status other than CRASH, or a status with a clause";
        else if (json_object_get(e, "status") && (!*s_of(e, "driver_min") || !*s_of(e, "driver_max")))
            bad = "a CRASH waived without the drivers it was seen on (driver_min, driver_max)";
        else if ((json_object_get(e, "driver_min") && !is_version(s_of(e, "driver_min"))) ||
                 (json_object_get(e, "driver_max") && !is_version(s_of(e, "driver_max"))))
            bad = "a driver bound that is not a version like 580.159.04";
        if (bad) {
            snprintf(err, len, "'%s': waiver %zu has %s", path, i + 1, bad);
            json_decref(w);
            return NULL;
        }
    }
    return w;
}

/* The waiver covering (case id, clause) on this driver, or NULL; clause NULL: the waiver of the
 * case's CRASH (a waiver with "status": "CRASH", a process the driver itself brought down). */
static const json_t *waiver_for(const json_t *waivers, const char *id, const char *clause,
                                const char *driver)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(waivers, "waivers"), i, e)
    {
        if (fnmatch(s_of(e, "cases"), id, 0) != 0)
            continue;
        if (!clause != !!*s_of(e, "status")) /* a crash's waiver names the status, a deviation's none */
            continue;
        if (clause && *s_of(e, "clause") && strcmp(s_of(e, "clause"), clause))
            continue;
        if (*s_of(e, "driver_min") && (!*driver || version_cmp(driver, s_of(e, "driver_min")) < 0))
            continue;
        if (*s_of(e, "driver_max") && (!*driver || version_cmp(driver, s_of(e, "driver_max")) > 0))
            continue;
        return e;
    }
    return NULL;
}

struct waived {
    const json_t *waiver;
    size_t count;
    const char *example[3];
};

/* An unwaived deviation's clause: how many cases contradict it, and the first. */
struct clause_tally {
    const char *id, *example;
    size_t count;
};

static int cmp_tally(const void *pa, const void *pb)
{
    const struct clause_tally *a = pa, *b = pb;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(a->id, b->id);
}

/* What the pass over the cases gathers for the output: the cases each
 * waiver covered (w), the clauses of the unwaived deviations (tally), the
 * case lines and the changed verdicts (written to cl_out and ch_out), and
 * the counts. */
struct check_pass {
    const json_t *waivers, *baseline;
    const struct cts_known *known; /* --known: outcomes moved within it are counted apart */
    const char *driver;
    size_t nw, nt;
    struct waived *w;
    struct clause_tally *tally;
    size_t ntally;
    FILE *cl_out, *ch_out;
    size_t deviating, unwaived, changed, skipped, unfinished, within, crashes_waived;
    int both_landed; /* both matrices record landing somewhere (measured since the suite observes it) */
};

/* A deviation every contradicted clause of which a waiver covers. */
static void count_waived(struct check_pass *p, const struct cts_case_view *v)
{
    struct waived *w = p->w;
    const char *id = v->id;
    size_t counted[CTS_JUDGED_MAX], nc = 0;
    for (size_t i = 0; i < json_array_size(v->clauses); i++) {
        struct cts_case_clause cl = cts_case_clause(v, i);
        const json_t *by = cl.holds == CTS_HOLDS_NO ? waiver_for(p->waivers, id, cl.id, p->driver) : NULL;
        size_t k = 0, seen = 0;
        json_t *e;
        json_array_foreach(json_object_get(p->waivers, "waivers"), k, e)
            if (e == by)
                break;
        for (size_t q = 0; q < nc; q++)
            seen |= counted[q] == k;
        if (!by || k >= p->nw || seen || nc >= CTS_JUDGED_MAX)
            continue;
        counted[nc++] = k;
        if (w[k].count < 3)
            w[k].example[w[k].count] = id;
        w[k].count++;
        w[k].waiver = by;
    }
}

/* A deviation not waived: its line, with the clauses it contradicts, each
 * of them tallied. */
static void list_unwaived(struct check_pass *p, const struct cts_case_view *v)
{
    struct clause_tally *tally = p->tally;
    const char *id = v->id;
    fprintf(p->cl_out, "DEVIATES %s (%s):", id, v->symbol);
    const char *sep = " ";
    for (size_t i = 0; i < json_array_size(v->clauses); i++) {
        struct cts_case_clause cl = cts_case_clause(v, i);
        if (cl.holds == CTS_HOLDS_NO) {
            const char *cid = cl.id;
            fprintf(p->cl_out, "%s%s (%s, about %s)", sep, cid, cl.prediction, cl.about);
            sep = "; ";
            size_t t = 0;
            while (t < p->ntally && strcmp(tally[t].id, cid))
                t++;
            if (t == p->ntally && p->ntally < p->nt)
                tally[p->ntally++] = (struct clause_tally){cid, id, 0};
            if (t < p->ntally)
                tally[t].count++;
        }
    }
    fprintf(p->cl_out, "\n");
}

/* A case against the baseline: a changed verdict of a case that PASSed in
 * both; a case intermittent (VARIES) in either is counted as skipped.  With
 * known variability, VARIES cases are compared too (by their symbols), and a
 * change within the case's known outcomes is counted apart. */
static void check_baseline(struct check_pass *p, const struct cts_case_view *v)
{
    const json_t *c = json_object_get(json_object_get(p->baseline, "cases"), v->id);
    if (!c)
        return;
    struct cts_case_view b;
    cts_case_view(&b, v->id, c);
    int varies = v->status == CTS_VARIES || b.status == CTS_VARIES;
    int verdicts = (v->status == CTS_PASS || v->status == CTS_VARIES) && (b.status == CTS_PASS || b.status == CTS_VARIES);
    if (!verdicts || (varies && !p->known)) {
        p->skipped += varies;
        return;
    }
    struct cts_verdict now = v->verdict;
    b.verdict.landed = p->both_landed ? b.verdict.landed : CTS_DST_NA;
    if (!p->both_landed) /* a matrix from before landing was observed: not compared */
        now.landed = CTS_DST_NA;
    int differs = varies ? v->status != b.status || strcmp(v->symbol, b.symbol) : !cts_verdict_equal(&now, &b.verdict);
    if (!differs)
        return;
    if (cts_known_within(p->known, v->id, b.status, b.symbol, v->status, v->symbol)) {
        p->within++;
        return;
    }
    p->changed++;
    fprintf(p->ch_out, "CHANGED %s: %s in the baseline, %s now\n", v->id, b.symbol, v->symbol);
}

/* One case: FAILed or without a verdict, deviating (waived or not), and
 * against the baseline. */
static void check_case(struct check_pass *p, const char *id, const json_t *c)
{
    struct cts_case_view v;
    cts_case_view(&v, id, c);
    const json_t *crash = v.status == CTS_CRASH ? waiver_for(p->waivers, id, NULL, p->driver) : NULL;
    if (crash) {
        p->crashes_waived++;
        fprintf(p->cl_out, "waived CRASH %s: %s (%s)\n", id, v.reason, s_of(crash, "reason"));
    } else if (v.status != CTS_PASS && v.status != CTS_VARIES && v.status != CTS_NOTSUPP) {
        p->unfinished++;
        fprintf(p->cl_out, "%s %s: %s\n", cts_status_name(v.status), id, v.reason);
    }
    if (v.conformance == CTS_DEVIATES) {
        p->deviating++;
        int covered = 1;
        for (size_t i = 0; i < json_array_size(v.clauses); i++) {
            struct cts_case_clause cl = cts_case_clause(&v, i);
            if (cl.holds == CTS_HOLDS_NO)
                covered &= waiver_for(p->waivers, id, cl.id, p->driver) != NULL;
        }
        if (covered) { /* counted once under each waiver that covers one of its clauses */
            count_waived(p, &v);
        } else {
            p->unwaived++;
            list_unwaived(p, &v);
        }
    }
    if (p->baseline)
        check_baseline(p, &v);
}

/* The output after the pass (see cts_check); lines and changes: what the
 * pass wrote to cl_out and ch_out. */
static void check_print(FILE *out, struct check_pass *p, const json_t *table, const char *lines,
                        const char *changes)
{
    struct clause_tally *tally = p->tally;
    const struct waived *w = p->w;
    if (p->unwaived) {
        qsort(tally, p->ntally, sizeof *tally, cmp_tally);
        fprintf(out, "%zu deviation%s not waived, by clause:\n", p->unwaived, p->unwaived == 1 ? "" : "s");
        for (size_t t = 0; t < p->ntally; t++) {
            const json_t *e = json_object_get(table, tally[t].id);
            fprintf(out, "  %s: %zu case%s, e.g. %s\n    %s: \"%s\" %s\n", tally[t].id, tally[t].count,
                    tally[t].count == 1 ? "" : "s", tally[t].example, s_of(e, "where"), s_of(e, "quote"),
                    s_of(e, "url"));
        }
    }
    fputs(lines, out);
    fputs(changes, out);
    for (size_t k = 0; k < p->nw; k++)
        if (w[k].count)
            fprintf(out, "waived: %zu case%s contradicting %s (e.g. %s%s%s%s%s): %s %s\n", w[k].count,
                    w[k].count == 1 ? "" : "s",
                    *s_of(w[k].waiver, "clause") ? s_of(w[k].waiver, "clause") : "any clause",
                    w[k].example[0], w[k].example[1] ? ", " : "", w[k].example[1] ? w[k].example[1] : "",
                    w[k].example[2] ? ", " : "", w[k].example[2] ? w[k].example[2] : "",
                    s_of(w[k].waiver, "reason"), s_of(w[k].waiver, "link"));
    fprintf(out, "%zu deviation%s (%zu waived, %zu not)", p->deviating, p->deviating == 1 ? "" : "s",
            p->deviating - p->unwaived, p->unwaived);
    if (p->baseline && p->known)
        fprintf(out, "; %zu verdict%s changed against the baseline, %zu within known variability", p->changed,
                p->changed == 1 ? "" : "s", p->within);
    else if (p->baseline)
        fprintf(out, "; %zu verdict%s changed against the baseline (%zu intermittent cases not compared)",
                p->changed, p->changed == 1 ? "" : "s", p->skipped);
    if (p->unfinished)
        fprintf(out, "; %zu case%s FAILed or %s no verdict", p->unfinished, p->unfinished == 1 ? "" : "s",
                p->unfinished == 1 ? "has" : "have");
    if (p->crashes_waived)
        fprintf(out, "; %zu CRASH%s waived", p->crashes_waived, p->crashes_waived == 1 ? "" : "es");
    fprintf(out, "\n");
}

/* Output, in this order: the unwaived deviations summed up by clause (the
 * clause's quote and URL once, how many cases, an example), each such case
 * on a short line, the verdicts changed against the baseline, the waivers
 * that applied, and the totals. */
/* Whether any case of matrix m (NULL: none) records landing. */
static int records_landing(const json_t *m)
{
    const char *id;
    json_t *c;
    json_object_foreach(json_object_get(m, "cases"), id, c)
        if (json_object_get(json_object_get(c, "verdict"), "landed"))
            return 1;
    return 0;
}

int cts_check(const json_t *m, const json_t *waivers, const json_t *baseline, const struct cts_known *known,
              FILE *out, char *err, size_t len)
{
    const json_t *cases = json_object_get(m, "cases");
    const json_t *table = json_object_get(json_object_get(m, "spec"), "clauses");
    struct check_pass p = {.waivers = waivers, .baseline = baseline, .known = known};
    p.driver = s_of(json_object_get(json_object_get(m, "environment"), "versions"), "driver");
    p.nw = json_array_size(json_object_get(waivers, "waivers"));
    p.nt = json_object_size(table) + 1;
    p.w = calloc(p.nw ? p.nw : 1, sizeof *p.w);
    p.tally = calloc(p.nt, sizeof *p.tally);
    char *lines = NULL, *changes = NULL; /* the case lines, printed after the summary */
    size_t lines_len = 0, changes_len = 0;
    p.cl_out = open_memstream(&lines, &lines_len), p.ch_out = open_memstream(&changes, &changes_len);
    if (!p.w || !p.tally || !p.cl_out || !p.ch_out) {
        snprintf(err, len, "out of memory");
        if (p.cl_out)
            fclose(p.cl_out);
        if (p.ch_out)
            fclose(p.ch_out);
        free(lines);
        free(changes);
        free(p.w);
        free(p.tally);
        return -1;
    }
    int failed = 0;
    if (baseline) {
        const char *g1 = s_of(json_object_get(json_object_get(m, "environment"), "gpu"), "name");
        const char *g2 = s_of(json_object_get(json_object_get(baseline, "environment"), "gpu"), "name");
        if (strcmp(g1, g2)) {
            snprintf(err, len, "the baseline was measured on %s, this matrix on %s", g2, g1);
            failed = 1;
        }
    }
    const char *id;
    json_t *c;
    p.both_landed = records_landing(m) && records_landing(baseline);
    json_object_foreach((json_t *)(failed ? NULL : cases), id, c)
        check_case(&p, id, c);
    int oom = fclose(p.cl_out) != 0;
    oom |= fclose(p.ch_out) != 0;
    if (oom && !failed) {
        snprintf(err, len, "out of memory");
        failed = 1;
    }
    if (!failed)
        check_print(out, &p, table, lines, changes);
    free(lines);
    free(changes);
    free(p.w);
    free(p.tally);
    return failed ? -1 : (int)(p.unwaived + p.changed + p.unfinished);
}
