/* sync-cts diff: the cases whose outcome changed between matrices.
 *
 * The first matrix is the baseline (A); every later one (B, C, ...) is
 * compared with it.  A case changed when its status, symbol, a verdict field,
 * or (where both sides carry a "spec") spec.conformance differs; times never
 * count, since they always differ.  Each changed case falls into one group:
 *
 *   regressed          PASS/VARIES -> FAIL/BROKEN/INCONCLUSIVE/TIMEOUT/CRASH,
 *                      or conformance CONFORMS/RECORDED -> DEVIATES
 *   fixed              the reverse of either
 *   newly NOTSUPP      any other status -> NOTSUPP
 *   no longer NOTSUPP  NOTSUPP -> any other status
 *   changed            everything else (mostly: both have a verdict and the
 *                      symbol or a verdict field differs)
 *   only in A / B      ids present in one matrix only
 *
 * Steps: read each matrix case by case, keeping of each case only what the
 * comparison shows (status, symbol, verdict, conformance, the median call
 * time) and of the matrix its environment and run (a committed matrix is
 * some 200 MB as a jansson tree, its summary 2 MB); compare each later one
 * with A by merging the id-sorted summaries; sort the changes by group then
 * id, and render them as text, Markdown or CSV into memory; the output is
 * written only once it is complete.  Exit 0 when no case changed, 1 when
 * some did, 2 on error.
 *
 * Where A and a later matrix both have a `thresholds` section (docs/matrix.md)
 * their rows' flips are compared too, after the cases: a flip that moved (the
 * same flips and outcomes, another size), flips otherwise changed, a row in one
 * only.  A threshold change is a change (exit 1); a section in one matrix only
 * is said, and is none.  CSV keeps the cases; --section thresholds gives these.
 *
 * With --series the matrices are a series instead, and diff_series.c makes
 * and renders one table of the cases that change along it (no pairwise
 * comparison is made).
 *
 * This file reads the matrices and writes the result; diff_compare.c
 * summarizes and compares them, diff_render.c renders (what the files share:
 * diff_int.h). */
#define _GNU_SOURCE
#include "cli.h"
#include "diff_int.h"
#include "report.h"
#include "spec.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIFF_SAME = 0, DIFF_CHANGED = 1, DIFF_ERROR = 2 };
enum { FMT_TEXT, FMT_MD, FMT_CSV };
#define MAX_MATRICES 26 /* named A to Z */

#define diff_error(...) cts_die(DIFF_ERROR, __VA_ARGS__)

/* ---- the command ------------------------------------------------------------ */

static const char *const formats[] = {"text", "md", "csv"};

/* The options: --format, --out, --series and --section (csv only; -1 not given). */
struct diff_opts {
    int fmt, series, section;
    const char *out, *known;
};

/* --section's value: 0 cases, 1 thresholds; or diff_error's exit status. */
static int diff_section(const char *v, int *section)
{
    static const char *const sections[] = {"cases", "thresholds"};
    for (*section = 0; *section < 2 && strcmp(v, sections[*section]); ++*section)
        ;
    return *section == 2 ? diff_error("--section wants cases or thresholds, not '%s'", v) : 0;
}

/* 0, or diff_error's exit status. */
static int diff_options(int argc, char **argv, struct diff_opts *o)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"out", required_argument, NULL, 'o'},
                                         {"series", no_argument, NULL, 's'},
                                         {"section", required_argument, NULL, 'S'},
                                         {"known", required_argument, NULL, 'k'},
                                         {0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'f') {
            for (o->fmt = 0; o->fmt < 3 && strcmp(optarg, formats[o->fmt]); o->fmt++)
                ;
            if (o->fmt == 3)
                return diff_error("--format wants text, md or csv, not '%s'", optarg);
        } else if (c == 'o') {
            o->out = optarg;
        } else if (c == 's') {
            o->series = 1;
        } else if (c == 'k') {
            o->known = optarg;
        } else if (c == 'S') {
            if (diff_section(optarg, &o->section))
                return DIFF_ERROR;
        } else if (c == ':') {
            return diff_error("option '%s' needs a value", argv[optind - 1]);
        } else {
            return diff_error("unknown option '%s' (see sync-cts --help)", argv[optind - 1]);
        }
    }
    if (o->section >= 0 && o->series)
        return diff_error("--section does not apply to --series");
    if (o->known && o->series)
        return diff_error("--known does not apply to --series");
    if (o->section >= 0 && o->fmt != FMT_CSV)
        return diff_error("--section applies to --format csv");
    return 0;
}

/* A cell symbol without landing's "~", each VARIES part once ("W~/W": "W"). */
static void strip_landing(char *sym)
{
    char out[64] = "", part[64];
    for (const char *p = sym; *p;) {
        size_t n = strcspn(p, "/"), k = 0;
        for (size_t i = 0; i < n && k + 1 < sizeof part; i++)
            if (p[i] != '~')
                part[k++] = p[i];
        part[k] = '\0';
        char have[70], want[70];
        snprintf(have, sizeof have, "/%s/", out);
        snprintf(want, sizeof want, "/%s/", part);
        size_t used = strlen(out);
        if (!strstr(have, want) && used + 1 + k < sizeof out) { /* parts of sym: never longer than it */
            if (used)
                out[used++] = '/';
            memcpy(out + used, part, k + 1);
        }
        p += n + (p[n] == '/');
    }
    memcpy(sym, out, strlen(out) + 1); /* never longer than sym */
}

/* A verdict field that one of the matrices records in none of its cases (one
 * measured before the suite observed it: landing, data order) is left out of
 * every case, and so is landing's cell mark "~" (a case VARIES on landing
 * alone is then a PASS): the comparison is of what every matrix observed, not
 * of what an older suite did not look at. */
static void common_fields(struct diff_doc *d)
{
    int common[CTS_OUTCOME_COUNT], landed = cts_outcome_index(cts_outcome_find("landed"));
    for (int k = 0; k < CTS_OUTCOME_COUNT; k++) {
        common[k] = 1;
        for (size_t i = 0; i < d->nm; i++) {
            int seen = 0;
            for (size_t j = 0; j < d->dm[i].n && !seen; j++)
                seen = d->dm[i].v[j].verdict[k] != 0;
            common[k] &= seen;
        }
    }
    for (size_t i = 0; i < d->nm; i++)
        for (size_t j = 0; j < d->dm[i].n; j++) {
            struct dcase *x = &d->dm[i].v[j];
            for (int k = 0; k < CTS_OUTCOME_COUNT; k++)
                if (!common[k])
                    x->verdict[k] = 0;
            if (!common[landed] && x->symbol && strchr(x->symbol, '~'))
                strip_landing((char *)x->symbol); /* the pool's own copy */
            if (!common[landed] && x->varies_on_landing)
                x->status = CTS_PASS;
        }
}

/* Loads the matrices (their cases summarized and sorted; one schema version
 * among them) and compares each later one with the first.  -1 once
 * diff_error has said why not. */
static int diff_load(struct diff_doc *d)
{
    char err[1024];
    for (size_t i = 0; i < d->nm; i++) {
        if (!(d->m[i] = d->dm[i].top = cts_matrix_load_each(d->paths[i], cts_diff_summarize, &d->dm[i], err, sizeof err))) {
            diff_error("%s", err);
            return -1;
        }
        json_int_t v0 = json_integer_value(json_object_get(d->m[0], "schema_version"));
        json_int_t vi = json_integer_value(json_object_get(d->m[i], "schema_version"));
        if (vi != v0) { /* cts_matrix_load reads one version today; this holds if it ever reads more */
            diff_error("'%s' has schema version %lld and '%s' has %lld: not comparable", d->paths[i],
                       (long long)vi, d->paths[0], (long long)v0);
            return -1;
        }
        if (i == 0 && d->known && cts_known_fits(d->known, d->m[0], d->known_path, d->paths[0], err, sizeof err)) {
            diff_error("%s", err);
            return -1;
        }
        if (d->dm[i].n > 1) /* no cases: no array to sort (qsort of NULL is undefined: issue 43, D14) */
            qsort(d->dm[i].v, d->dm[i].n, sizeof *d->dm[i].v, cts_diff_cmp_dcase);
    }
    common_fields(d);
    for (size_t k = 0; !d->series && k + 1 < d->nm; k++) {
        d->cmp[k].later = (int)k + 1;
        d->cmp[k].known = d->known != NULL;
        if (cts_diff_compare(&d->dm[0], &d->dm[k + 1], d->known, &d->cmp[k]) || cts_diff_th_compare(d->m[0], d->m[k + 1], &d->cmp[k].th)) {
            diff_error("out of memory");
            return -1;
        }
    }
    return 0;
}

/* Renders the comparison in format fmt and writes it to out (NULL or "-":
 * standard output).  -1 once diff_error has said why not. */
static int diff_write(const struct diff_doc *d, int fmt, const char *out)
{
    char err[1024];
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    /* Rendered whole in memory, then written: nothing half-written. */
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        diff_error("out of memory");
        goto done;
    }
    static void (*const render[2][3])(const struct diff_doc *, FILE *) = {
        {cts_diff_render_text, cts_diff_render_md, cts_diff_render_csv},
        {cts_diff_series_text, cts_diff_series_md, cts_diff_series_csv}};
    (d->th_csv ? cts_diff_th_csv : render[d->series][fmt])(d, mem);
    if (fclose(mem) != 0 || cts_diff_oom) {
        diff_error("out of memory");
        goto done;
    }
    if (cts_output_write(out, d->paths, d->nm, text, len, err, sizeof err)) {
        diff_error("%s", err);
        goto done;
    }
    rc = 0;
done:
    free(text);
    return rc;
}

/* Whether anything changed: DIFF_CHANGED or DIFF_SAME. */
static int diff_status(const struct diff_doc *d)
{
    if (d->series)
        return d->ser.n ? DIFF_CHANGED : DIFF_SAME;
    for (size_t k = 0; k + 1 < d->nm; k++)
        if (cts_diff_changed(&d->cmp[k]) || d->cmp[k].th.n)
            return DIFF_CHANGED;
    return DIFF_SAME;
}

/* Loads, compares and writes (to out, in format fmt).  0, or -1 once diff_error has said why not. */
static int diff_run(struct diff_doc *d, int fmt, const char *out)
{
    char err[1024];
    d->dm = calloc(d->nm, sizeof *d->dm);
    d->m = calloc(d->nm, sizeof *d->m);
    d->cmp = calloc(d->nm - 1, sizeof *d->cmp);
    if (!d->dm || !d->m || !d->cmp) {
        diff_error("out of memory");
        return -1;
    }
    if (cts_output_check(out, d->paths, d->nm, err, sizeof err)) {
        diff_error("%s", err);
        return -1;
    }
    if (diff_load(d))
        return -1;
    if (cts_diff_env_table_build(&d->env, d->m, d->nm) || (d->series && cts_diff_series_build(d))) {
        diff_error("out of memory");
        return -1;
    }
    return diff_write(d, fmt, out);
}

static void diff_doc_free(struct diff_doc *d)
{
    cts_diff_series_free(d);
    cts_diff_env_table_free(&d->env); /* all zero where it was never built */
    for (size_t i = 0; d->cmp && i + 1 < d->nm; i++) {
        free(d->cmp[i].v);
        free(d->cmp[i].th.v);
    }
    for (size_t i = 0; d->dm && i < d->nm; i++)
        cts_diff_dmatrix_free(&d->dm[i]);
    free(d->dm);
    free(d->m);
    free(d->cmp);
}

int cts_diff_main(int argc, char **argv)
{
    struct diff_opts o = {.fmt = FMT_TEXT, .section = -1};
    int orc = diff_options(argc, argv, &o);
    if (orc)
        return orc;
    size_t nm = (size_t)(argc - optind);
    if (nm < 2 && o.series)
        return diff_error("diff --series wants at least two matrix files (the series, in order), got %zu", nm);
    if (nm < 2)
        return diff_error("diff wants at least two matrix files (the first is the baseline), got %zu", nm);
    if (nm > MAX_MATRICES)
        return diff_error("diff compares at most %d matrices, got %zu", MAX_MATRICES, nm);

    struct diff_doc d = {.nm = nm, .paths = (const char *const *)argv + optind, .series = o.series,
                         .th_csv = o.section == 1};
    struct cts_known known;
    char err[1024];
    if (o.known && cts_known_load(o.known, &known, err, sizeof err))
        return diff_error("%s", err);
    d.known = o.known ? &known : NULL;
    d.known_path = o.known;
    int rc = diff_run(&d, o.fmt, o.out) ? DIFF_ERROR : diff_status(&d);
    diff_doc_free(&d);
    if (o.known)
        cts_known_free(&known);
    return rc;
}
