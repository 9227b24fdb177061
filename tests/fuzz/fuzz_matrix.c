/* libFuzzer target: a matrix file as render, judge, check and cite read it -- whole
 * (cts_matrix_load) and case by case (cts_matrix_load_each) -- and, when it is accepted,
 * what those commands do with it, for a matrix that passed validation is one they trust.
 *
 * Invariants besides the sanitizers': both ways of reading accept the same files (with as many
 * cases), and a refusal gives a reason; so do render's reading (cts_matrix_load_shown) and
 * cite's (cts_matrix_load_some), which steps over the cases it does not want.
 *
 * jansson allocates with malloc here, not in the loader's arena (matrix_arena.c), so that
 * AddressSanitizer bounds every value.  The arena never frees a case's key or a case
 * cts_matrix_load_each dropped: with malloc those are leaks by design, so tests/fuzz.sh runs
 * this target without leak detection. */
#include "fuzz.h"
#include "matrix_int.h"
#include "report.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    cts_mx_arena_install();             /* once: later loads keep what is set next */
    json_set_alloc_funcs(malloc, free); /* every value its own block */
    return 0;
}

/* judge (main.c): each case judged again (those this build does not declare unjudged), the
 * clause table replaced, and the matrix written. */
static void judge(json_t *m, FILE *out)
{
    const char *ds = cts_json_path_str(json_object_get(m, "environment"), "settings", "default_stream");
    int per_thread = strcmp(ds, "per-thread") == 0;
    if (per_thread != cts_build_per_thread())
        return; /* judge refuses a matrix of the other build */
    const char *id;
    json_t *c;
    json_object_foreach(json_object_get(m, "cases"), id, c)
    {
        const struct cts_case *cs = cts_case_find(id);
        json_object_set_new(c, "spec", cs ? cts_spec_case_json(cs, c, per_thread) : json_null());
    }
    json_object_set_new(m, "spec", cts_spec_table_json());
    if (cts_matrix_dump(m, out))
        FUZZ_FAIL("cannot write to /dev/null");
}

/* cite: the first case, and the first threshold row with its base case. */
static void cite(const json_t *m, FILE *out)
{
    void *it = json_object_iter((json_t *)json_object_get(m, "cases"));
    if (it)
        cts_cite(m, json_object_iter_key(it), out);
    it = json_object_iter((json_t *)json_object_get(json_object_get(m, "thresholds"), "rows"));
    if (!it)
        return;
    const char *base = json_string_value(json_object_get(json_object_iter_value(it), "base_case"));
    const json_t *bc = base ? json_object_get(json_object_get(m, "cases"), base) : NULL;
    if (bc)
        cts_cite_threshold(m, json_object_iter_key(it), bc, out);
}

/* What render, check, judge and cite do with an accepted matrix. */
static void use(json_t *m)
{
    FILE *out = fuzz_devnull();
    char err[512];
    if (cts_render_markdown(m, out) || cts_render_csv(m, out) || cts_render_html(m, out))
        FUZZ_FAIL("a render of an accepted matrix failed");
    if (json_is_object(json_object_get(m, "thresholds")) && cts_render_csv_thresholds(m, out))
        FUZZ_FAIL("the thresholds render of an accepted matrix failed");
    if (json_is_object(json_object_get(m, "spec")) && cts_check(m, NULL, NULL, NULL, out, err, sizeof err) < 0)
        fuzz_reason("check", err);
    cite(m, out);
    judge(m, out);
}

static int count_case(void *ctx, const char *id, const json_t *c)
{
    (void)id, (void)c;
    ++*(size_t *)ctx;
    return 0;
}

/* cite's reading: every other case, the rest stepped over unread. */
struct some {
    size_t seen, passed;
};
static int every_other(void *ctx, const char *id)
{
    (void)id;
    return ++((struct some *)ctx)->seen % 2;
}
static int count_some(void *ctx, const char *id, const json_t *c)
{
    (void)id, (void)c;
    ((struct some *)ctx)->passed++;
    return 0;
}

/* The readings that hold less than the whole tree (cite's, render's) accept what the whole
 * reading accepts (cite's may accept more: what it steps over it does not validate), with
 * the cases they should hold; a refusal gives a reason. */
static void partial_readings(const char *path, const json_t *m)
{
    char err[768];
    size_t all = json_object_size(json_object_get(m, "cases"));
    struct some k = {0};
    json_t *some = cts_matrix_load_some(path, every_other, count_some, &k, err, sizeof err);
    if (!some)
        fuzz_reason("cts_matrix_load_some", err);
    if (m && !some)
        FUZZ_FAIL("cts_matrix_load accepts the input, cts_matrix_load_some refuses it (%s)", err);
    if (m && k.passed != (all + 1) / 2)
        FUZZ_FAIL("cts_matrix_load_some passed %zu cases of %zu, not every other one", k.passed, all);
    json_decref(some);
    json_t *shown = cts_matrix_load_shown(path, err, sizeof err);
    if (!m != !shown)
        FUZZ_FAIL("cts_matrix_load %s the input, cts_matrix_load_shown %s it (%s)", m ? "accepts" : "refuses",
                  shown ? "accepts" : "refuses", err);
    if (m && json_object_size(json_object_get(shown, "cases")) != all)
        FUZZ_FAIL("cts_matrix_load_shown kept %zu cases of %zu", json_object_size(json_object_get(shown, "cases")),
                  all);
    json_decref(shown);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    char err[768], err_each[768];
    json_t *m = cts_matrix_load(path, err, sizeof err);
    size_t n = 0;
    json_t *top = cts_matrix_load_each(path, count_case, &n, err_each, sizeof err_each);
    if (!m != !top)
        FUZZ_FAIL("cts_matrix_load %s the input, cts_matrix_load_each %s it (%s)", m ? "accepts" : "refuses",
                  top ? "accepts" : "refuses", m ? err_each : err);
    if (m && n != json_object_size(json_object_get(m, "cases")))
        FUZZ_FAIL("cts_matrix_load_each passed %zu cases, cts_matrix_load read %zu", n,
                  json_object_size(json_object_get(m, "cases")));
    if (!m) {
        fuzz_reason("cts_matrix_load", err);
        fuzz_reason("cts_matrix_load_each", err_each);
    } else {
        use(m);
    }
    partial_readings(path, m);
    json_decref(top);
    json_decref(m);
    return 0;
}
