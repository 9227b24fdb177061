/* sync-cts diff: the environments of the matrices side by side (the table
 * diff.c builds once, and its text and Markdown forms), each row a setting
 * from the matrix's environment and run, '*' where the matrices differ. */
#define _GNU_SOURCE
#include "diff_int.h"
#include "report.h"
#include "spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define dupf cts_diff_dupf
#define S(x) ((x) ? (x) : "")

static char letter(size_t i) { return (char)('A' + i); }

/* ---- the environment, side by side --------------------------------------- */

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* A JSON scalar as text: "-" for null or absent. */
static char *value_text(const json_t *v)
{
    if (!v || json_is_null(v))
        return dupf("-");
    if (json_is_string(v))
        return dupf("%s", json_string_value(v));
    if (json_is_integer(v))
        return dupf("%lld", (long long)json_integer_value(v));
    if (json_is_real(v))
        return dupf("%g", json_real_value(v));
    if (json_is_boolean(v))
        return dupf("%s", json_is_true(v) ? "true" : "false");
    if (json_is_string(json_object_get(v, "text"))) /* versions: {"number": 13000, "text": "13.0"} */
        return dupf("%s", str(v, "text"));
    char *s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (!s)
        cts_diff_oom = 1;
    return s;
}

/* A value by its dotted path from the matrix root; NULL where absent. */
static json_t *lookup(json_t *m, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *k = strtok_r(buf, ".", &save); k && m; k = strtok_r(NULL, ".", &save))
        m = json_object_get(m, k);
    return m;
}

/* run.counts as "PASS 18724, VARIES 31, ..." in status order, zeros left out. */
static char *counts_text(const json_t *counts)
{
    if (!json_is_object(counts))
        return dupf("-");
    char *s = NULL;
    for (int st = 0; st < CTS_STATUS_COUNT; st++) {
        json_int_t n = json_integer_value(json_object_get(counts, cts_status_name(st)));
        if (n <= 0)
            continue;
        char *t = dupf("%s%s%s %lld", S(s), s ? ", " : "", cts_status_name(st), (long long)n);
        free(s);
        s = t;
    }
    return s ? s : dupf("none");
}

#define ENV_VARIABLES "environment.settings.environment_variables"

/* A row: the value at `path` in each matrix, or where `var` is given, the
 * variable of that name in the object at `path` (ENV_VARIABLES). */
static void env_add_row(struct env_table *t, const char *label, json_t **m, const char *path, const char *var)
{
    size_t r = t->rows++;
    t->label[r] = dupf("%s", label);
    t->differs[r] = 0;
    for (size_t c = 0; c < t->cols; c++) {
        char *v;
        if (var)
            v = value_text(json_object_get(lookup(m[c], path), var));
        else if (!strcmp(path, "run.counts"))
            v = counts_text(lookup(m[c], path));
        else if (!lookup(m[c], path))
            v = dupf("%s", CTS_DIFF_NOT_RECORDED);
        else
            v = value_text(lookup(m[c], path));
        t->cell[r * t->cols + c] = v;
        if (c && strcmp(S(v), S(t->cell[r * t->cols])))
            t->differs[r] = 1;
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

int cts_diff_env_table_build(struct env_table *t, json_t **m, size_t nm)
{
    static const struct {
        const char *label, *path;
    } before[] = {{"GPU", "environment.gpu.name"},
                  {"driver", "environment.versions.driver"},
                  {"driver API", "environment.versions.driver_api"},
                  {"runtime", "environment.versions.runtime"},
                  {"toolkit", "environment.versions.toolkit"},
                  {"default stream", "environment.settings.default_stream"},
                  {"device schedule", "environment.settings.device_schedule"},
                  {"module loading", "environment.settings.module_loading"},
                  {"hold", "run.harness.hold"}},
      after[] = {{"suite revision", "environment.suite_revision"}, {"date", "run.date"}, {"counts", "run.counts"}};
    const size_t nb = sizeof before / sizeof *before, na = sizeof after / sizeof *after;

    /* The CUDA_* variables set in any of the matrices, once each, sorted. */
    json_t *vars = json_object();
    if (!vars)
        return -1;
    for (size_t i = 0; i < nm; i++) {
        const char *k;
        json_t *v;
        json_object_foreach(lookup(m[i], ENV_VARIABLES), k, v)
            if (!strncmp(k, "CUDA_", 5) && !json_is_null(v))
                json_object_set(vars, k, json_true());
    }
    size_t nv = json_object_size(vars), j = 0;
    const char **names = calloc(nv + 1, sizeof *names);
    memset(t, 0, sizeof *t);
    t->cols = nm;
    t->label = calloc(nb + nv + na, sizeof *t->label);
    t->cell = calloc((nb + nv + na) * nm, sizeof *t->cell);
    t->differs = calloc(nb + nv + na, sizeof *t->differs);
    if (!names || !t->label || !t->cell || !t->differs) {
        free(names);
        json_decref(vars);
        return -1;
    }
    const char *k;
    json_t *v;
    json_object_foreach(vars, k, v)
        names[j++] = k;
    qsort(names, nv, sizeof *names, cmp_str);
    for (size_t i = 0; i < nb; i++) {
        size_t have = 0; /* a setting no matrix records (made before it was) is no row */
        for (size_t c = 0; c < nm; c++)
            have += lookup(m[c], before[i].path) != NULL;
        if (have)
            env_add_row(t, before[i].label, m, before[i].path, NULL);
    }
    for (size_t i = 0; i < nv; i++)
        env_add_row(t, names[i], m, ENV_VARIABLES, names[i]);
    for (size_t i = 0; i < na; i++)
        env_add_row(t, after[i].label, m, after[i].path, NULL);
    free(names);
    json_decref(vars);
    return 0;
}

void cts_diff_env_table_free(struct env_table *t)
{
    for (size_t r = 0; r < t->rows; r++) {
        free(t->label[r]);
        for (size_t c = 0; c < t->cols; c++)
            free(t->cell[r * t->cols + c]);
    }
    free(t->label);
    free(t->cell);
    free(t->differs);
}

/* The matrices by letter and their environments side by side, as text. */
void cts_diff_env_text(const struct diff_doc *d, FILE *f)
{
    for (size_t i = 0; i < d->nm; i++)
        fprintf(f, "%c  %s%s\n", letter(i), d->paths[i], i || d->series ? "" : "  (baseline)");
    /* The environment: label column, then one column per matrix; '*' marks rows that differ. */
    const struct env_table *t = &d->env;
    int lw = 0, *cw = calloc(t->cols, sizeof *cw);
    if (!cw) {
        cts_diff_oom = 1;
        return;
    }
    for (size_t r = 0; r < t->rows; r++) {
        lw = (int)strlen(S(t->label[r])) > lw ? (int)strlen(S(t->label[r])) : lw;
        for (size_t c = 0; c < t->cols; c++) {
            int w = (int)strlen(S(t->cell[r * t->cols + c]));
            cw[c] = w > cw[c] ? w : cw[c];
        }
    }
    fprintf(f, "\n  %-*s", lw, "");
    for (size_t c = 0; c < t->cols; c++)
        fprintf(f, "  %-*c", c + 1 < t->cols ? cw[c] : 0, letter(c));
    fputc('\n', f);
    for (size_t r = 0; r < t->rows; r++) {
        fprintf(f, "%c %-*s", t->differs[r] ? '*' : ' ', lw, S(t->label[r]));
        for (size_t c = 0; c < t->cols; c++)
            fprintf(f, "  %-*s", c + 1 < t->cols ? cw[c] : 0, S(t->cell[r * t->cols + c]));
        fputc('\n', f);
    }
    fputs("(* differs)\n", f);
    free(cw);
}

/* The end of v[i]'s group (changes sorted by group), and its longest id in *idw. */
/* The title, the matrices by letter and their environments side by side, as Markdown. */
void cts_diff_env_md(const struct diff_doc *d, FILE *f)
{
    fputs(d->series ? "# sync-cts diff --series\n\n" : "# sync-cts diff\n\n", f);
    for (size_t i = 0; i < d->nm; i++) {
        fprintf(f, "- **%c**%s: ", letter(i), i || d->series ? "" : " (baseline)");
        cts_md_code(f, d->paths[i], 0);
        fputc('\n', f);
    }
    fputs("\n", f);
    const struct env_table *t = &d->env;
    cts_diff_md_cell(f, "");
    for (size_t c = 0; c < t->cols; c++) {
        char l[2] = {letter(c), 0};
        cts_diff_md_cell(f, l);
    }
    cts_diff_md_cell(f, "differs");
    fputs("|\n", f);
    for (size_t c = 0; c < t->cols + 2; c++)
        fputs("|---", f);
    fputs("|\n", f);
    for (size_t r = 0; r < t->rows; r++) {
        cts_diff_md_cell(f, t->label[r]);
        for (size_t c = 0; c < t->cols; c++)
            cts_diff_md_cell(f, t->cell[r * t->cols + c]);
        cts_diff_md_cell(f, t->differs[r] ? "yes" : "");
        fputs("|\n", f);
    }
}
