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
 *   test is this check of its cases (tests/gpu-group.sh). */
#define _GNU_SOURCE
#include "report.h"
#include "spec.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define s_of cts_json_str

/* Compares dotted version strings numerically ("580.159.04" < "581.1");
 * anything after the digits and dots is ignored. */
static int version_cmp(const char *a, const char *b)
{
    for (;;) {
        long x = 0, y = 0;
        while (*a >= '0' && *a <= '9')
            x = x * 10 + (*a++ - '0');
        while (*b >= '0' && *b <= '9')
            y = y * 10 + (*b++ - '0');
        if (x != y)
            return x < y ? -1 : 1;
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

/* The waiver covering (case id, clause) on this driver, or NULL. */
static const json_t *waiver_for(const json_t *waivers, const char *id, const char *clause,
                                const char *driver)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(waivers, "waivers"), i, e)
    {
        if (fnmatch(s_of(e, "cases"), id, 0) != 0)
            continue;
        if (*s_of(e, "clause") && strcmp(s_of(e, "clause"), clause))
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

/* Output, in this order: the unwaived deviations summed up by clause (the
 * clause's quote and URL once, how many cases, an example), each such case
 * on a short line, the verdicts changed against the baseline, the waivers
 * that applied, and the totals. */
int cts_check(const json_t *m, const json_t *waivers, const json_t *baseline, FILE *out,
              char *err, size_t len)
{
    const json_t *cases = json_object_get(m, "cases");
    const json_t *table = json_object_get(json_object_get(m, "spec"), "clauses");
    const char *driver = s_of(json_object_get(json_object_get(m, "environment"), "versions"), "driver");
    size_t nw = json_array_size(json_object_get(waivers, "waivers"));
    size_t nt = json_object_size(table) + 1;
    struct waived *w = calloc(nw ? nw : 1, sizeof *w);
    struct clause_tally *tally = calloc(nt, sizeof *tally);
    char *lines = NULL, *changes = NULL; /* the case lines, printed after the summary */
    size_t lines_len = 0, changes_len = 0;
    FILE *cl_out = open_memstream(&lines, &lines_len), *ch_out = open_memstream(&changes, &changes_len);
    if (!w || !tally || !cl_out || !ch_out) {
        snprintf(err, len, "out of memory");
        if (cl_out)
            fclose(cl_out);
        if (ch_out)
            fclose(ch_out);
        free(lines);
        free(changes);
        free(w);
        free(tally);
        return -1;
    }
    size_t ntally = 0;
    int failed = 0;
    if (baseline) {
        const char *g1 = s_of(json_object_get(json_object_get(m, "environment"), "gpu"), "name");
        const char *g2 = s_of(json_object_get(json_object_get(baseline, "environment"), "gpu"), "name");
        if (strcmp(g1, g2)) {
            snprintf(err, len, "the baseline was measured on %s, this matrix on %s", g2, g1);
            failed = 1;
        }
    }
    size_t deviating = 0, unwaived = 0, changed = 0, skipped = 0, unfinished = 0;
    const char *id;
    json_t *c;
    json_object_foreach((json_t *)(failed ? NULL : cases), id, c)
    {
        const json_t *spec = json_object_get(c, "spec");
        const char *st = s_of(c, "status");
        if (strcmp(st, "PASS") && strcmp(st, "VARIES") && strcmp(st, "NOTSUPP")) {
            unfinished++;
            fprintf(cl_out, "%s %s: %s\n", st, id, s_of(c, "reason"));
        }
        if (!strcmp(s_of(spec, "conformance"), "DEVIATES")) {
            deviating++;
            int covered = 1;
            size_t i;
            json_t *cl;
            json_array_foreach(json_object_get(spec, "clauses"), i, cl)
                if (json_is_false(json_object_get(cl, "holds")))
                    covered &= waiver_for(waivers, id, s_of(cl, "id"), driver) != NULL;
            if (covered) { /* counted once under each waiver that covers one of its clauses */
                size_t counted[CTS_JUDGED_MAX], nc = 0;
                json_array_foreach(json_object_get(spec, "clauses"), i, cl)
                {
                    const json_t *by = json_is_false(json_object_get(cl, "holds"))
                                           ? waiver_for(waivers, id, s_of(cl, "id"), driver)
                                           : NULL;
                    size_t k = 0, seen = 0;
                    json_t *e;
                    json_array_foreach(json_object_get(waivers, "waivers"), k, e)
                        if (e == by)
                            break;
                    for (size_t q = 0; q < nc; q++)
                        seen |= counted[q] == k;
                    if (!by || k >= nw || seen || nc >= CTS_JUDGED_MAX)
                        continue;
                    counted[nc++] = k;
                    if (w[k].count < 3)
                        w[k].example[w[k].count] = id;
                    w[k].count++;
                    w[k].waiver = by;
                }
            } else {
                unwaived++;
                fprintf(cl_out, "DEVIATES %s (%s):", id, s_of(c, "symbol"));
                const char *sep = " ";
                json_array_foreach(json_object_get(spec, "clauses"), i, cl)
                    if (json_is_false(json_object_get(cl, "holds"))) {
                        const char *cid = s_of(cl, "id");
                        fprintf(cl_out, "%s%s (%s, about %s)", sep, cid, s_of(cl, "prediction"), s_of(cl, "about"));
                        sep = "; ";
                        size_t t = 0;
                        while (t < ntally && strcmp(tally[t].id, cid))
                            t++;
                        if (t == ntally && ntally < nt)
                            tally[ntally++] = (struct clause_tally){cid, id, 0};
                        if (t < ntally)
                            tally[t].count++;
                    }
                fprintf(cl_out, "\n");
            }
        }
        if (baseline) {
            const json_t *b = json_object_get(json_object_get(baseline, "cases"), id);
            const char *sa = s_of(c, "status"), *sb = s_of(b, "status");
            if (!b || strcmp(sa, "PASS") || strcmp(sb, "PASS")) {
                skipped += b && (!strcmp(sa, "VARIES") || !strcmp(sb, "VARIES"));
                continue;
            }
            if (!json_equal(json_object_get(c, "verdict"), json_object_get(b, "verdict"))) {
                changed++;
                fprintf(ch_out, "CHANGED %s: %s in the baseline, %s now\n", id, s_of(b, "symbol"),
                        s_of(c, "symbol"));
            }
        }
    }
    int oom = fclose(cl_out) != 0;
    oom |= fclose(ch_out) != 0;
    if (oom && !failed) {
        snprintf(err, len, "out of memory");
        failed = 1;
    }
    if (!failed) {
        if (unwaived) {
            qsort(tally, ntally, sizeof *tally, cmp_tally);
            fprintf(out, "%zu deviation%s not waived, by clause:\n", unwaived, unwaived == 1 ? "" : "s");
            for (size_t t = 0; t < ntally; t++) {
                const json_t *e = json_object_get(table, tally[t].id);
                fprintf(out, "  %s: %zu case%s, e.g. %s\n    %s: \"%s\" %s\n", tally[t].id, tally[t].count,
                        tally[t].count == 1 ? "" : "s", tally[t].example, s_of(e, "where"), s_of(e, "quote"),
                        s_of(e, "url"));
            }
        }
        fputs(lines, out);
        fputs(changes, out);
        for (size_t k = 0; k < nw; k++)
            if (w[k].count)
                fprintf(out, "waived: %zu case%s contradicting %s (e.g. %s%s%s%s%s): %s %s\n", w[k].count,
                        w[k].count == 1 ? "" : "s",
                        *s_of(w[k].waiver, "clause") ? s_of(w[k].waiver, "clause") : "any clause",
                        w[k].example[0], w[k].example[1] ? ", " : "", w[k].example[1] ? w[k].example[1] : "",
                        w[k].example[2] ? ", " : "", w[k].example[2] ? w[k].example[2] : "",
                        s_of(w[k].waiver, "reason"), s_of(w[k].waiver, "link"));
        fprintf(out, "%zu deviation%s (%zu waived, %zu not)", deviating, deviating == 1 ? "" : "s",
                deviating - unwaived, unwaived);
        if (baseline)
            fprintf(out, "; %zu verdict%s changed against the baseline (%zu intermittent cases not compared)",
                    changed, changed == 1 ? "" : "s", skipped);
        if (unfinished)
            fprintf(out, "; %zu case%s FAILed or %s no verdict", unfinished, unfinished == 1 ? "" : "s",
                    unfinished == 1 ? "has" : "have");
        fprintf(out, "\n");
    }
    free(lines);
    free(changes);
    free(w);
    free(tally);
    return failed ? -1 : (int)(unwaived + changed + unfinished);
}
