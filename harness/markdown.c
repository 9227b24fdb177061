/* Markdown rendering of a matrix: environment, summary, what went wrong,
 * then one table per group (API x direction) whose rows are call variants and
 * whose columns are busy placements. */
#define _GNU_SOURCE
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define NCOLS CTS_BUSY_COLUMNS
#define busy_cols cts_busy_columns

#define str cts_json_str
#define path_str cts_json_path_str

#define row cts_row

static const char *short_status(const char *st)
{
    if (!strcmp(st, "NOTSUPP")) return "n/s";
    if (!strcmp(st, "INCONCLUSIVE")) return "**INC**";
    if (!strcmp(st, "BROKEN")) return "**BRK**";
    if (!strcmp(st, "TIMEOUT")) return "**T/O**";
    if (!strcmp(st, "FAIL")) return "**FAIL**";
    if (!strcmp(st, "CRASH")) return "**CRASH**";
    return st;
}

static const char *conformance(const json_t *c)
{
    return str(json_object_get(c, "spec"), "conformance");
}

/* Conformance counts, with what they mean. */
static void summary_conformance(FILE *f, const json_t **all, size_t n)
{
    size_t conf = 0, dev = 0, rec = 0;
    for (size_t i = 0; i < n; i++) {
        const char *c = conformance(all[i]);
        conf += !strcmp(c, "CONFORMS");
        dev += !strcmp(c, "DEVIATES");
        rec += !strcmp(c, "RECORDED");
    }
    if (conf + dev + rec == 0) {
        fprintf(f, "Not judged against the documentation (run `sync-cts judge` on the JSON).\n\n");
        return;
    }
    fprintf(f, "Against the documentation: %zu CONFORMS (every guarantee that applies held), %zu DEVIATES "
               "(a guarantee was contradicted), %zu RECORDED (the documentation allows either, or says "
               "nothing). Cells of cases that deviate are marked ✗.\n\n", conf, dev, rec);
}

/* The deviations, each with the clauses it contradicts, an anchor, and how
 * many cases each clause is contradicted by. */
static void deviations(FILE *f, const json_t *m, const json_t **all, const char **ids, size_t n)
{
    const json_t *table = json_object_get(json_object_get(m, "spec"), "clauses");
    size_t any = 0;
    for (size_t i = 0; i < n; i++)
        any += !strcmp(conformance(all[i]), "DEVIATES");
    if (!any)
        return;
    fprintf(f, "## Deviations\n\n| clause | cases contradicting it | what it says |\n|---|---:|---|\n");
    const char *k;
    json_t *cl;
    json_object_foreach((json_t *)table, k, cl)
    {
        size_t hits = 0;
        for (size_t i = 0; i < n; i++) {
            size_t x;
            json_t *e;
            json_array_foreach(json_object_get(json_object_get(all[i], "spec"), "clauses"), x, e)
                if (!strcmp(str(e, "id"), k) && json_is_false(json_object_get(e, "holds"))) {
                    hits++;
                    break;
                }
        }
        if (hits)
            fprintf(f, "| [%s](%s) | %zu | %s |\n", k, str(cl, "url"), hits, str(cl, "quote"));
    }
    fprintf(f, "\n| case | cell | contradicts |\n|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        if (strcmp(conformance(all[i]), "DEVIATES"))
            continue;
        fprintf(f, "| <a id=\"%s\"></a>`%s` | %s | ", ids[i], ids[i], str(all[i], "symbol"));
        size_t x;
        json_t *e;
        int first = 1;
        json_array_foreach(json_object_get(json_object_get(all[i], "spec"), "clauses"), x, e)
            if (json_is_false(json_object_get(e, "holds"))) {
                fprintf(f, "%s%s (%s, %s)", first ? "" : "; ", str(e, "id"), str(e, "prediction"),
                        str(e, "about"));
                first = 0;
            }
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
}

/* Every clause, how many cases it judged, and why none where none can be. */
static void coverage(FILE *f, const json_t *m, const json_t **all, size_t n)
{
    const json_t *table = json_object_get(json_object_get(m, "spec"), "clauses");
    if (!json_object_size(table))
        return;
    fprintf(f, "## Clauses and coverage\n\n%s.\n\n| clause | where | holds | contradicted | not "
               "observable or open |\n|---|---|---:|---:|---:|\n",
            str(json_object_get(m, "spec"), "documentation"));
    const char *k;
    json_t *cl;
    json_object_foreach((json_t *)table, k, cl)
    {
        size_t yes = 0, no = 0, open = 0;
        for (size_t i = 0; i < n; i++) {
            size_t x;
            json_t *e;
            json_array_foreach(json_object_get(json_object_get(all[i], "spec"), "clauses"), x, e)
                if (!strcmp(str(e, "id"), k)) {
                    const json_t *h = json_object_get(e, "holds");
                    yes += json_is_true(h);
                    no += json_is_false(h);
                    open += json_is_null(h);
                }
        }
        fprintf(f, "| [%s](%s) | %s | %zu | %zu | %zu", k, str(cl, "url"), str(cl, "where"), yes, no, open);
        if (yes + no + open == 0)
            fprintf(f, " (no case%s%s)", *str(cl, "no_case") ? ": " : "", str(cl, "no_case"));
        fprintf(f, " |\n");
    }
    fprintf(f, "\n");
}

int cts_render_markdown(const json_t *m, FILE *f)
{
    const json_t *env = json_object_get(m, "environment");
    const json_t *run = json_object_get(m, "run");
    const json_t *gpu = json_object_get(env, "gpu");
    const json_t *ver = json_object_get(env, "versions");
    const json_t *set = json_object_get(env, "settings");

    fprintf(f, "# cuda-sync-cts matrix: %s, driver %s, CUDA %s\n\n", str(gpu, "name"),
            json_is_string(json_object_get(ver, "driver")) ? str(ver, "driver") : "unknown",
            path_str(ver, "driver_api", "text"));
    fprintf(f, "Generated from the JSON matrix beside this file; the JSON is the record.\n\n");
    fprintf(f, "| | |\n|---|---|\n");
    fprintf(f, "| GPU | %s (compute capability %s), %s |\n", str(gpu, "name"),
            str(gpu, "compute_capability"), str(gpu, "uuid"));
    fprintf(f, "| Driver | %s; driver API version %s |\n",
            json_is_string(json_object_get(ver, "driver")) ? str(ver, "driver") : "unknown",
            path_str(ver, "driver_api", "text"));
    fprintf(f, "| Runtime | cudart %s, built with toolkit %s |\n", path_str(ver, "runtime", "text"),
            path_str(ver, "toolkit", "text"));
    fprintf(f, "| Settings | default stream %s; schedule %s |\n", str(set, "default_stream"),
            str(set, "device_schedule"));
    {
        const json_t *vars = json_object_get(set, "environment_variables");
        const char *k;
        json_t *v;
        int any = 0;
        fprintf(f, "| Environment | ");
        json_object_foreach((json_t *)vars, k, v)
            if (json_is_string(v))
                fprintf(f, "%s%s=%s", any++ ? ", " : "", k, json_string_value(v));
        fprintf(f, "%s |\n", any ? "" : "no CUDA_* variable set");
    }
    {
        const json_t *a = json_object_get(env, "attributes");
        fprintf(f, "| Attributes | asyncEngineCount %lld, concurrentKernels %lld, "
                   "pageableMemoryAccess %lld, concurrentManagedAccess %lld |\n",
                (long long)json_integer_value(json_object_get(a, "asyncEngineCount")),
                (long long)json_integer_value(json_object_get(a, "concurrentKernels")),
                (long long)json_integer_value(json_object_get(a, "pageableMemoryAccess")),
                (long long)json_integer_value(json_object_get(a, "concurrentManagedAccess")));
    }
    fprintf(f, "| Run | %s, %.1f s wall, %lld repetitions a case, suite %s |\n\n", str(run, "date"),
            json_number_value(json_object_get(run, "wall_s")),
            (long long)json_integer_value(json_object_get(run, "repeat")), str(env, "suite_revision"));

    /* Gather and order the cases. */
    size_t n = 0;
    struct row *rows = cts_sorted_cases(m, &n);
    const json_t **all = calloc(n ? n : 1, sizeof *all);
    const char **ids = calloc(n ? n : 1, sizeof *ids);
    if (!rows || !all || !ids) {
        free(rows);
        free(all);
        free(ids);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        all[i] = rows[i].c;
        ids[i] = rows[i].id;
    }

    size_t count[CTS_STATUS_COUNT] = {0};
    for (size_t i = 0; i < n; i++) {
        int s = cts_status_parse(str(all[i], "status"));
        if (s >= 0)
            count[s]++;
    }
    fprintf(f, "## Summary\n\n%zu cases:", n);
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        fprintf(f, "%s %zu %s", s ? "," : "", count[s], cts_status_name(s));
    fprintf(f, ".\n\n");
    summary_conformance(f, all, n);
    deviations(f, m, all, ids, n);

    size_t bad = n - count[CTS_PASS] - count[CTS_VARIES] - count[CTS_NOTSUPP];
    if (bad) {
        fprintf(f, "## Cases without a verdict or that failed\n\n| case | status | reason |\n|---|---|---|\n");
        for (size_t i = 0; i < n; i++) {
            const char *st = str(all[i], "status");
            if (strcmp(st, "PASS") && strcmp(st, "VARIES") && strcmp(st, "NOTSUPP"))
                fprintf(f, "| `%s` | %s | %s |\n", ids[i], st, str(all[i], "reason"));
        }
        fprintf(f, "\n");
    }
    if (count[CTS_VARIES]) {
        fprintf(f, "## Cases whose repetitions differed (VARIES)\n\nEvery repetition was proven; "
                   "the product behaved differently from one to the next.\n\n"
                   "| case | symbols | how |\n|---|---|---|\n");
        for (size_t i = 0; i < n; i++)
            if (!strcmp(str(all[i], "status"), "VARIES"))
                fprintf(f, "| `%s` | `%s` | %s |\n", ids[i], str(all[i], "symbol"),
                        str(all[i], "reason"));
        fprintf(f, "\n");
    }
    if (count[CTS_NOTSUPP]) {
        fprintf(f, "## Not supported here\n\n");
        const char *last = NULL;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(str(all[i], "status"), "NOTSUPP") &&
                (!last || strcmp(last, str(all[i], "reason")))) {
                last = str(all[i], "reason");
                fprintf(f, "- %s (e.g. `%s`)\n", last, ids[i]);
            }
        fprintf(f, "\n");
    }

    fprintf(f, "## How to read a cell\n\n"
               "Each cell is one case: the call of its row issued while a gate kernel held the busy "
               "placement of its column. Every letter is proven by the latch, not guessed from a time.\n\n"
               "| symbol | meaning |\n|---|---|\n"
               "| `W` | the call did not return until the gate opened: it waited for the held work |\n"
               "| `A` | the call returned while the gate was closed, and work queued after it on its "
               "own stream ran while the gate was still closed |\n"
               "| `Q` | the call returned while the gate was closed; work after it on its own stream "
               "was held until the gate opened (stream-ordered behind the held work) |\n"
               "| `+b` | the call made work queued afterwards on a third, blocking stream wait for the "
               "gate: without the call (the control) that stream ran |\n"
               "| `+n` | likewise for a third, non-blocking stream |\n"
               "| `c` / `r` / `p` | (held copies with a host source) the copy took its source bytes "
               "at the call / read them after the call returned / partly each |\n"
               "| `!` | (held copies with a host destination) the destination was complete when the "
               "call returned |\n"
               "| `A/W` | (VARIES) the repetitions differed: each symbol seen, in order |\n"
               "| `—` | not a separate case: that busy placement is the op stream itself (see `same`), "
               "or not declared (the `thread_*` columns: busy work issued from a second host thread, "
               "declared for some calls only; `hostfn`: a host function holding another "
               "non-blocking stream, declared for stream-family calls) |\n"
               "| n/s | not supported here (reason above) |\n\n"
               "`idle µs` is the median time inside the same call on an idle GPU.\n\n");

    /* One table per group. */
    for (size_t i = 0; i < n;) {
        const char *group = str(all[i], "group");
        size_t j = i;
        while (j < n && !strcmp(str(all[j], "group"), group))
            j++;
        const char *dir = str(all[i], "direction"), *var = str(all[i], "variant");
        fprintf(f, "## %s — %s%s%s%s%s\n\n", group, str(all[i], "function"), *var ? " " : "",
                var, *dir ? ", " : "", cts_dir_words(dir));
        fprintf(f, "| memory | size | kind | op stream | idle µs |");
        for (int c = 0; c < NCOLS; c++)
            fprintf(f, " busy %s |", busy_cols[c]);
        fprintf(f, "\n|---|---|---|---|---:|");
        for (int c = 0; c < NCOLS; c++)
            fprintf(f, ":-:|");
        fprintf(f, "\n");
        for (size_t r = i; r < j;) {
            const json_t *row = all[r];
            size_t e = r;
            const char *cells[NCOLS] = {0};
            char symbuf[NCOLS][24];
            while (e < j && !strcmp(str(all[e], "memory"), str(row, "memory")) &&
                   json_integer_value(json_object_get(all[e], "size")) ==
                       json_integer_value(json_object_get(row, "size")) &&
                   !strcmp(str(all[e], "kind"), str(row, "kind")) &&
                   !strcmp(str(all[e], "op_stream"), str(row, "op_stream"))) {
                int col = cts_busy_column(str(all[e], "busy"));
                if (col < NCOLS) {
                    const char *st = str(all[e], "status");
                    snprintf(symbuf[col], sizeof symbuf[col], "%s%s",
                             !strcmp(st, "PASS") || !strcmp(st, "VARIES") ? str(all[e], "symbol")
                                                                          : short_status(st),
                             !strcmp(conformance(all[e]), "DEVIATES") ? " ✗" : "");
                    cells[col] = symbuf[col];
                }
                e++;
            }
            const json_t *idle = json_object_get(json_object_get(row, "evidence"), "idle_call_us");
            fprintf(f, "| %s | %s | %s | %s | ", str(row, "memory"), str(row, "size_label"),
                    str(row, "kind"), str(row, "op_stream"));
            if (json_is_number(idle))
                fprintf(f, "%.1f |", json_number_value(idle));
            else
                fprintf(f, " |");
            for (int c = 0; c < NCOLS; c++)
                fprintf(f, " %s |", cells[c] ? cells[c] : "—");
            fprintf(f, "\n");
            r = e;
        }
        fprintf(f, "\n");
        i = j;
    }
    coverage(f, m, all, n);
    free(rows);
    free(all);
    free(ids);
    return ferror(f) ? -1 : 0;
}
