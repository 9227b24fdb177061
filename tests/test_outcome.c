/* The verdict's fields, registered once (harness/core/outcome.h): the
 * registry is well formed; every value of every field survives the matrix's
 * writer (cts_verdict_json) and the case view's reader, alone and all at
 * once; a case with no verdict writes only the fields of every verdict, null;
 * a VARIES reason names a field by its key, a count with its value; and,
 * for each case of the committed matrices given (argv), the verdict the view
 * reads is written back exactly as the matrix holds it, and a PASS case's
 * cell symbol is the one its verdict gives. */
#define _GNU_SOURCE
#include "check.h"
#include "legend.h"
#include "matrix.h"
#include "outcome.h"
#include "report.h"

#include <stdlib.h>

/* A PASS case holding `verdict` (stolen), as the view reads it. */
static struct cts_verdict read_back(json_t *verdict)
{
    json_t *c = json_pack("{s:s, s:o}", "status", "PASS", "verdict", verdict);
    struct cts_case_view v;
    cts_case_view(&v, "x", c);
    struct cts_verdict out = v.verdict;
    out.rejected = out.rejected ? strdup(out.rejected) : NULL; /* outlives c */
    json_decref(c);
    return out;
}

static void registry(void)
{
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++) {
        const struct cts_outcome *o = cts_outcomes[k];
        CHECK(cts_outcome_find(o->key) == o);
        CHECK(o->names ? o->count >= 2 && o->names[0] == NULL : o->count == 0 && !o->always && !o->count_key);
        for (int i = 1; o->names && i < o->count; i++) {
            CHECK(o->names[i] && *o->names[i]);
            CHECK_INT(cts_outcome_parse(o, o->names[i]), i);
        }
        CHECK_INT(cts_outcome_parse(o, "no such value"), 0);
        CHECK_INT(cts_outcome_parse(o, NULL), 0);
        for (int j = 0; j < k; j++)
            CHECK(strcmp(cts_outcomes[j]->key, o->key) != 0);
    }
    CHECK(cts_outcome_find("queued") == NULL); /* a count, not a field */
    CHECK(cts_outcome_find("host") == cts_outcomes[0]);
}

/* The legend: a self-measured kind (cell letters) gives its row, naming each of its letters, and
 * the legend renders it once, among the engine's rows and the rest. */
static void legend(void)
{
    size_t rows = cts_legend_rows(), kinds = 0;
    CHECK(rows > 0 && cts_legend_row(rows) == NULL);
    for (size_t i = 0; i < rows; i++)
        CHECK(cts_legend_row(i) && cts_legend_row(i)->symbols && cts_legend_row(i)->meaning);
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++) {
        const struct cts_outcome *o = cts_outcomes[k];
        CHECK(!o->letters == !o->legend);
        if (!o->legend)
            continue;
        kinds++;
        for (int i = 1; o->letters && i < o->count; i++)
            if (!strstr(o->legend->symbols, o->letters[i])) {
                fprintf(stderr, "%s: its legend row does not name its letter %s\n", o->key, o->letters[i]);
                CHECK(0);
            }
        size_t seen = 0;
        for (size_t i = 0; i < rows; i++)
            seen += cts_legend_row(i) == o->legend;
        CHECK_INT((int)seen, 1);
    }
    CHECK_INT(kinds, CTS_OUTCOME_KINDS);
}

/* Each value of each field, alone: written, read back equal; the count with the values that carry it. */
static void each_value(void)
{
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++) {
        const struct cts_outcome *o = cts_outcomes[k];
        for (int i = 1; i < (o->names ? o->count : 2); i++) {
            struct cts_verdict v = {0};
            if (o->names)
                cts_outcome_set(&v, o, i);
            else
                *(const char **)((char *)&v + o->at) = "cudaErrorInvalidValue";
            if (cts_outcome_counted(&v, o))
                *cts_outcome_count_of(&v, o) = 42;
            json_t *j = cts_verdict_json(&v, 1);
            const json_t *x = json_object_get(j, o->key);
            CHECK_STR(json_string_value(x), o->names ? o->names[i] : "cudaErrorInvalidValue");
            if (o->count_key)
                CHECK_INT(json_integer_value(json_object_get(j, o->count_key)), cts_outcome_counted(&v, o) ? 42 : 0);
            size_t fields = 0;
            for (int f = 0; f < CTS_OUTCOME_COUNT; f++)
                fields += cts_outcomes[f]->always;
            CHECK_INT(json_object_size(j), fields + !o->always + cts_outcome_counted(&v, o));
            struct cts_verdict back = read_back(j);
            if (!cts_verdict_equal(&v, &back))
                fprintf(stderr, "%s = %s: not read back as written\n", o->key, cts_outcome_name(&v, o)),
                    check_failures++;
            free((char *)back.rejected);
        }
    }
}

/* Every field at once; and a case with no verdict. */
static void all_fields(void)
{
    struct cts_verdict v = {0};
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++)
        if (cts_outcomes[k]->names)
            cts_outcome_set(&v, cts_outcomes[k], cts_outcomes[k]->count - 1);
    v.rejected = "cudaErrorNotSupported";
    v.queued = 7;
    json_t *j = cts_verdict_json(&v, 1);
    /* Every field but the kinds in the kind slot, which holds the last set (its count with it); "queued"
     * does not go with depth's last value, beside. */
    size_t slot = 0, expect = 0;
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++) {
        const struct cts_outcome *o = cts_outcomes[k];
        slot += o->at == CTS_AT_KIND;
        expect += (o->always || cts_outcome_get(&v, o)) + cts_outcome_counted(&v, o);
    }
    CHECK_INT(json_object_size(j), expect);
    CHECK(slot == 0 || v.kind != NULL);
    struct cts_verdict back = read_back(j);
    back.queued = 7;
    CHECK(cts_verdict_equal(&v, &back));
    free((char *)back.rejected);
    back = v;
    back.pool = CTS_POOL_NA;
    CHECK(!cts_verdict_equal(&v, &back));

    j = cts_verdict_json(&v, 0);
    size_t always = 0;
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++)
        if (cts_outcomes[k]->always) {
            always++;
            CHECK(json_is_null(json_object_get(j, cts_outcomes[k]->key)));
        }
    CHECK_INT(json_object_size(j), always);
    json_decref(j);
}

/* Two repetitions of a depth scan that found different depths: VARIES, its reason naming each. */
static void varies_reason(void)
{
    struct cts_result res = {0};
    res.nreps = 2;
    for (int i = 0; i < 2; i++) {
        cts_rep_begin(&res.reps[i]);
        res.reps[i].depth.limit = CTS_DEPTH_FOUND;
        res.reps[i].depth.queued = 1022 + i;
    }
    cts_classify(&res);
    CHECK_INT(res.status, CTS_VARIES);
    CHECK_STR(res.reason, "repetitions differ on depth: found 1022 found 1023");
    CHECK_INT(res.verdict.depth, CTS_DEPTH_NA);
    CHECK_INT(res.verdict.queued, 0);
    CHECK_STR(res.symbol, "D1022/D1023");
}

/* The committed matrix: each case's verdict, read and written again, is what the matrix holds. */
struct walk {
    size_t cases, differ, symbols, symbols_differ;
};
static int each_case(void *ctx, const char *id, const json_t *c)
{
    struct walk *w = ctx;
    struct cts_case_view v;
    cts_case_view(&v, id, c);
    json_t *again = cts_verdict_json(&v.verdict, v.status == CTS_PASS || v.status == CTS_VARIES);
    const json_t *held = json_object_get(c, "verdict");
    if (!json_equal(again, (json_t *)held) && w->differ++ < 5) {
        char *a = json_dumps(held, JSON_SORT_KEYS), *b = json_dumps(again, JSON_SORT_KEYS);
        fprintf(stderr, "%s: the matrix holds %s, written again %s\n", id, a, b);
        free(a);
        free(b);
    }
    json_decref(again);
    w->cases++;
    if (v.status == CTS_PASS && v.has_symbol) { /* the cell symbol, from the verdict alone */
        char sym[32];
        cts_verdict_symbol(&v.verdict, sym, sizeof sym);
        w->symbols++;
        if (strcmp(sym, v.symbol) && w->symbols_differ++ < 5)
            fprintf(stderr, "%s: the matrix's symbol %s, the verdict's %s\n", id, v.symbol, sym);
    }
    return 0;
}

int main(int argc, char **argv)
{
    registry();
    legend();
    each_value();
    all_fields();
    varies_reason();
    for (int i = 1; i < argc; i++) {
        struct walk w = {0};
        char err[512];
        json_t *m = cts_matrix_load_each(argv[i], each_case, &w, err, sizeof err);
        if (!m) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        json_decref(m);
        printf("%s: %zu cases, %zu written differently; %zu symbols, %zu differ\n", argv[i], w.cases, w.differ,
               w.symbols, w.symbols_differ);
        CHECK(w.cases > 0 && w.symbols > 0);
        CHECK_INT(w.differ, 0);
        CHECK_INT(w.symbols_differ, 0);
    }
    return check_failures ? 1 : 0;
}
