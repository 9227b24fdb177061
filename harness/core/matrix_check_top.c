/* The validation of the matrix outside its cases (matrix_check.c says what
 * the validation is): the environment, the run, the clause table the cases
 * were judged with, and the thresholds section. */
#define _GNU_SOURCE
#include "matrix_check_int.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The environment: the GPU, the versions, the settings and the attributes. */
static int check_environment(const json_t *env, char *why, size_t len)
{
    const json_t *gpu, *ver, *set, *vars, *attr;
    if (cts_mx_v_obj(env, "environment.", "gpu", REQ, &gpu, why, len) ||
        cts_mx_v_str(gpu, "environment.gpu.", "name", REQ, NULL, why, len) ||
        cts_mx_v_str(gpu, "environment.gpu.", "compute_capability", REQ, NULL, why, len) ||
        cts_mx_v_str(gpu, "environment.gpu.", "uuid", REQ, NULL, why, len) ||
        cts_mx_v_obj(env, "environment.", "versions", REQ, &ver, why, len) ||
        cts_mx_v_str(ver, "environment.versions.", "driver", NUL, NULL, why, len) ||
        cts_mx_v_str(env, "environment.", "suite_revision", REQ, NULL, why, len) ||
        cts_mx_v_obj(env, "environment.", "settings", REQ, &set, why, len) ||
        cts_mx_v_str(set, "environment.settings.", "device_schedule", REQ, NULL, why, len) ||
        cts_mx_v_obj(set, "environment.settings.", "environment_variables", REQ, &vars, why, len) ||
        cts_mx_v_obj(env, "environment.", "attributes", REQ, &attr, why, len))
        return -1;
    static const char *const versions[] = {"driver_api", "runtime", "toolkit"};
    for (int i = 0; i < 3; i++) {
        const json_t *v;
        char pre[48];
        snprintf(pre, sizeof pre, "environment.versions.%s.", versions[i]);
        if (cts_mx_v_obj(ver, "environment.versions.", versions[i], REQ, &v, why, len) ||
            cts_mx_v_str(v, pre, "text", REQ, NULL, why, len))
            return -1;
    }
    const char *ds = json_string_value(json_object_get(set, "default_stream"));
    if (!ds || (strcmp(ds, "legacy") && strcmp(ds, "per-thread")))
        return BAD("environment.settings.default_stream is not \"legacy\" or \"per-thread\"");
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)vars, k, x)
        if (!json_is_string(x) && !json_is_null(x))
            return BAD("environment.settings.environment_variables.%.40s is %s, not a string or null", k,
                       cts_mx_type_name(x));
    json_object_foreach((json_t *)attr, k, x)
        if (!json_is_integer(x))
            return BAD("environment.attributes.%.40s is %s, not a whole number", k, cts_mx_type_name(x));
    static const char *const shown[] = {"asyncEngineCount", "concurrentKernels", "pageableMemoryAccess",
                                        "concurrentManagedAccess"};
    for (int i = 0; i < 4; i++)
        if (!json_object_get(attr, shown[i]))
            return BAD("environment.attributes.%s is missing", shown[i]);
    return 0;
}

/* The clause table the cases were judged with, where there is one. */
static int check_clause_table(const json_t *m, char *why, size_t len)
{
    const json_t *spec;
    const char *k;
    json_t *x;
    if (cts_mx_v_obj(m, "", "spec", OPT | NUL, &spec, why, len))
        return -1;
    if (spec) {
        const json_t *table;
        if (cts_mx_v_str(spec, "spec.", "documentation", REQ, NULL, why, len) ||
            cts_mx_v_obj(spec, "spec.", "clauses", REQ, &table, why, len))
            return -1;
        json_object_foreach((json_t *)table, k, x)
        {
            char pre[96];
            snprintf(pre, sizeof pre, "spec.clauses.%.60s.", k);
            if (!json_is_object(x))
                return BAD("spec.clauses.%.60s is %s, not an object", k, cts_mx_type_name(x));
            if (cts_mx_v_str(x, pre, "where", REQ, NULL, why, len) ||
                cts_mx_v_str(x, pre, "quote", REQ, NULL, why, len) ||
                cts_mx_v_str(x, pre, "url", REQ, NULL, why, len) ||
                cts_mx_v_str(x, pre, "no_case", OPT, NULL, why, len))
                return -1;
        }
    }
    return 0;
}

/* ---- the thresholds section (docs/matrix.md: `thresholds`) ---- */

static int v_bool(const json_t *o, const char *pre, const char *key, char *why, size_t len)
{
    const json_t *v;
    if (cts_mx_member(o, pre, key, REQ, &v, why, len))
        return -1;
    return json_is_boolean(v) ? 0 : BAD("%s%s is %s, not true or false", pre, key, cts_mx_type_name(v));
}

/* A probe (pre names it): a size within the row's limit, a status, an outcome, its time. */
static int check_probe(const json_t *p, const char *pre, json_int_t max, char *why, size_t len)
{
    const char *st = NULL;
    char at[CTS_ID_MAX + 96];
    if (!json_is_object(p))
        return BAD("%s is %s, not an object", pre, p ? cts_mx_type_name(p) : "missing");
    snprintf(at, sizeof at, "%s.", pre);
    if (cts_mx_v_int(p, at, "bytes", REQ, 1, max, NULL, why, len) ||
        cts_mx_v_str(p, at, "status", REQ, &st, why, len) ||
        cts_mx_v_str(p, at, "outcome", REQ, NULL, why, len) || cts_mx_v_num(p, at, "call_us", NUL, 1, why, len) ||
        cts_mx_v_int(p, at, "asked", REQ, 1, 100, NULL, why, len))
        return -1;
    return cts_status_parse(st) < 0 ? BAD("%s.status '%.40s' is not a status", pre, st) : 0;
}

static int check_flips(const json_t *flips, const char *pre, json_int_t max, char *why, size_t len)
{
    char at[CTS_ID_MAX + 64];
    size_t i;
    const json_t *f;
    if (!json_is_array(flips) || json_array_size(flips) > 16)
        return BAD("%s.flips is not an array of at most 16 flips", pre);
    json_array_foreach(flips, i, f) {
        snprintf(at, sizeof at, "%s.flips[%zu]", pre, i);
        const json_t *below = json_object_get(f, "below"), *above = json_object_get(f, "above");
        char b[sizeof at + 8], a[sizeof at + 8], d[sizeof at + 2];
        snprintf(b, sizeof b, "%s.below", at);
        snprintf(a, sizeof a, "%s.above", at);
        snprintf(d, sizeof d, "%s.", at);
        if (check_probe(below, b, max, why, len) || check_probe(above, a, max, why, len) ||
            v_bool(f, d, "exact", why, len) || v_bool(f, d, "steady", why, len))
            return -1;
        if (json_integer_value(json_object_get(below, "bytes")) >= json_integer_value(json_object_get(above, "bytes")))
            return BAD("%s: below is not a smaller size than above", at);
    }
    return 0;
}

static int check_th_row(const char *id, const json_t *r, json_int_t max, char *why, size_t len)
{
    char pre[CTS_ID_MAX + 32];
    const json_t *samples, *probed, *x;
    const char *k;
    json_int_t rmax;
    size_t i;
    snprintf(pre, sizeof pre, "thresholds.rows.%s.", id);
    if (cts_case_id_check(id, why, len))
        return -1;
    if (!json_is_object(r))
        return BAD("thresholds.rows.%s is %s, not an object", id, cts_mx_type_name(r));
    if (cts_mx_v_str(r, pre, "base_case", REQ, NULL, why, len) || cts_mx_v_str(r, pre, "family", REQ, NULL, why, len) ||
        cts_mx_v_int(r, pre, "max_bytes", REQ, 1, max, &rmax, why, len) ||
        cts_mx_v_obj(r, pre, "samples", REQ, &samples, why, len) ||
        cts_mx_v_int(r, pre, "probes", REQ, 0, INT32_MAX, NULL, why, len) ||
        cts_mx_v_int(r, pre, "undecided", REQ, 0, INT32_MAX, NULL, why, len) || v_bool(r, pre, "truncated", why, len) ||
        v_bool(r, pre, "from_matrix", why, len) || cts_mx_v_num(r, pre, "wall_s", REQ, 1, why, len))
        return -1;
    json_object_foreach((json_t *)samples, k, x)
        if (!json_is_string(x))
            return BAD("%ssamples.%.20s is %s, not a string", pre, k, cts_mx_type_name(x));
    const json_t *axis;
    const char *an = NULL;
    char ap[sizeof pre + 8];
    snprintf(ap, sizeof ap, "%saxis.", pre);
    if (cts_mx_v_obj(r, pre, "axis", OPT, &axis, why, len) ||
        (axis && (cts_mx_v_str(axis, ap, "name", REQ, &an, why, len) ||
                  cts_mx_v_int(axis, ap, "fixed", REQ, 1, max, NULL, why, len))))
        return -1;
    if (an && strcmp(an, "width") && strcmp(an, "rows"))
        return BAD("%sname '%.20s' is not width or rows", ap, an);
    snprintf(pre, sizeof pre, "thresholds.rows.%s", id);
    if (check_flips(json_object_get(r, "flips"), pre, rmax, why, len))
        return -1;
    probed = json_object_get(r, "probed");
    if (!json_is_array(probed))
        return BAD("%s.probed is not an array", pre);
    json_array_foreach(probed, i, x) {
        char at[sizeof pre + 32];
        snprintf(at, sizeof at, "%s.probed[%zu]", pre, i);
        if (check_probe(x, at, rmax, why, len))
            return -1;
    }
    return 0;
}

static int check_thresholds(const json_t *m, char *why, size_t len)
{
    const json_t *th, *run, *rows, *r;
    const char *id;
    json_int_t max;
    if (cts_mx_v_obj(m, "", "thresholds", OPT, &th, why, len))
        return -1;
    if (!th) /* no search was made */
        return 0;
    if (cts_mx_v_obj(th, "thresholds.", "run", REQ, &run, why, len) ||
        cts_mx_v_int(run, "thresholds.run.", "max_bytes", REQ, 1, INT64_MAX, &max, why, len) ||
        cts_mx_v_int(run, "thresholds.run.", "repetitions", REQ, 1, CTS_MAX_REPEAT, NULL, why, len) ||
        cts_mx_v_int(run, "thresholds.run.", "rows", REQ, 0, INT32_MAX, NULL, why, len) ||
        cts_mx_v_int(run, "thresholds.run.", "probes", REQ, 0, INT64_MAX, NULL, why, len) ||
        cts_mx_v_num(run, "thresholds.run.", "wall_s", REQ, 1, why, len) ||
        v_bool(run, "thresholds.run.", "catalogue", why, len) ||
        cts_mx_v_str(run, "thresholds.run.", "suite_revision", REQ, NULL, why, len) ||
        cts_mx_v_str(run, "thresholds.run.", "date", REQ, NULL, why, len) ||
        cts_mx_v_obj(th, "thresholds.", "rows", REQ, &rows, why, len))
        return -1;
    json_object_foreach((json_t *)rows, id, r)
        if (check_th_row(id, r, max, why, len))
            return -1;
    return 0;
}

/* The matrix outside its cases: the environment, the run and the clause table. */
int cts_mx_check_top(const json_t *m, char *why, size_t len)
{
    const json_t *env = json_object_get(m, "environment"), *run, *counts;
    if (check_environment(env, why, len))
        return -1;
    const char *k;
    json_t *x;
    if (cts_mx_v_obj(m, "", "run", REQ, &run, why, len) || cts_mx_v_str(run, "run.", "date", REQ, NULL, why, len) ||
        cts_mx_v_num(run, "run.", "wall_s", REQ, 1, why, len) ||
        cts_mx_v_int(run, "run.", "repeat", REQ, 1, CTS_MAX_REPEAT, NULL, why, len) ||
        cts_mx_v_obj(run, "run.", "counts", REQ, &counts, why, len))
        return -1;
    json_object_foreach((json_t *)counts, k, x)
        if (!json_is_integer(x) || json_integer_value(x) < 0)
            return BAD("run.counts.%.40s is not a count", k);
    return check_clause_table(m, why, len) || check_thresholds(m, why, len) ? -1 : 0;
}
