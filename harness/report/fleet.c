/* sync-cts fleet PATH...: the matrices of a fleet (one a GPU: a node's GPUs,
 * a Slurm job's tasks, a cluster after an upgrade), grouped by configuration
 * (known.h: GPU model, driver, runtime, settings, how many GPUs a run saw),
 * and in each group every GPU whose outcome of a case leaves the group's
 * majority, known variability aside, named with the case.
 *
 * A PATH is a matrix or a directory, walked for *.json and *.json.gz (but
 * fleet.json and variability.json, what fleet and variability write there).
 * A case's outcome is its status, and its symbol where it has a verdict.  In
 * a group, the majority outcome of a case is the one more than half of the
 * GPUs that ran it took; a GPU with another is outside it, unless both are
 * among the case's known outcomes (--known FILE, the file whose
 * configuration is the group's; a status without a verdict never is).  A
 * case no outcome of which has a majority is split (two GPUs that disagree),
 * unless every outcome is a known one.  Exit 1 when a GPU is outside or a
 * case split, 0 when none, 2 on bad input (no matrix, a file that is not
 * one, a directory that cannot be read, a known-variability file that fits
 * no group).  The report rendered as text, Markdown or HTML: fleet_render.c. */
#define _GNU_SOURCE
#include "cli.h"
#include "fleet_int.h"
#include "known.h"
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define fleet_error(...) cts_die(EXIT_USAGE, __VA_ARGS__)
#define MAX_KNOWN 64

enum { FMT_TEXT, FMT_MD, FMT_HTML, FMT_JSON };

/* An outcome: a status and, with a verdict, the symbol ("PASS W", "VARIES A/W", "NOTSUPP"). */
struct outcome {
    enum cts_status status;
    const char *symbol; /* NULL without a verdict */
};

struct member {
    const char *path;
    json_t *top;      /* the matrix without its cases */
    uint16_t *of;     /* [case index]: outcome index + 1; 0 where it lacks the case */
    size_t group;
    json_t *outside;  /* [{case, outcome, majority}] */
};

struct fleet {
    char **paths;
    size_t npaths, cap_paths;
    struct member *m;
    size_t nm;
    json_t *ids; /* case id -> index */
    const char **id;
    size_t ncases, cap_ids;
    struct outcome *out;
    size_t nout, cap_out;
    json_t *groups; /* [{configuration, key, members: [index...]}] */
    struct cts_known known[MAX_KNOWN];
    const char *known_path[MAX_KNOWN];
    int known_group[MAX_KNOWN];
    size_t nknown;
    size_t outside, split;
    json_t *splits; /* per group: [{case, outcomes: {member: outcome}}] */
};

/* ---- the inputs -------------------------------------------------------------------- */

static int add_path(struct fleet *f, const char *p)
{
    if (f->npaths == f->cap_paths) {
        size_t cap = f->cap_paths ? 2 * f->cap_paths : 16;
        char **v = realloc(f->paths, cap * sizeof *v);
        if (!v)
            return -1;
        f->paths = v;
        f->cap_paths = cap;
    }
    return (f->paths[f->npaths] = strdup(p)) ? (f->npaths++, 0) : -1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A file a directory holds that is a matrix by its name. */
static int matrix_name(const char *name)
{
    if (!strcmp(name, "fleet.json") || !strcmp(name, "variability.json"))
        return 0;
    return cts_ends_with(name, ".json") || cts_ends_with(name, ".json.gz");
}

/* A directory's matrices, and those of its subdirectories, by name.  0, or fleet_error's status. */
static int walk(struct fleet *f, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return fleet_error("cannot read directory '%s': %s", dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (!rc && (errno = 0, e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p;
        struct stat st;
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            n--;
        if (asprintf(&p, "%.*s/%s", (int)n, dir, e->d_name) < 0)
            rc = fleet_error("out of memory");
        else if (stat(p, &st) == 0 && S_ISDIR(st.st_mode) && depth < 8)
            rc = walk(f, p, depth + 1);
        else if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && matrix_name(e->d_name) && add_path(f, p))
            rc = fleet_error("out of memory");
        free(rc ? NULL : p);
    }
    if (!rc && errno)
        rc = fleet_error("cannot read directory '%s': %s", dir, strerror(errno));
    closedir(d);
    return rc;
}

static int gather_paths(struct fleet *f, char **args, int n)
{
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0)
            return fleet_error("cannot read '%s': %s", args[i], strerror(errno));
        size_t before = f->npaths;
        int rc = S_ISDIR(st.st_mode) ? walk(f, args[i], 0) : add_path(f, args[i]) ? fleet_error("out of memory") : 0;
        if (rc)
            return rc;
        if (f->npaths > before + 1)
            qsort(f->paths + before, f->npaths - before, sizeof *f->paths, cmp_str);
    }
    return f->npaths ? 0 : fleet_error("no matrix in %s%s", args[0], n > 1 ? " and the rest" : "");
}

/* ---- reading ---------------------------------------------------------------------- */

static const char *str_at(const json_t *m, const char *a, const char *b)
{
    const char *s = json_string_value(json_object_get(json_object_get(json_object_get(m, "environment"), a), b));
    return s ? s : "?";
}

static int outcome_index(struct fleet *f, enum cts_status st, const char *sym)
{
    for (size_t i = 0; i < f->nout; i++)
        if (f->out[i].status == st && (!sym == !f->out[i].symbol) && (!sym || !strcmp(sym, f->out[i].symbol)))
            return (int)i;
    if (f->nout >= UINT16_MAX - 1)
        return -1;
    if (f->nout == f->cap_out) {
        size_t cap = f->cap_out ? 2 * f->cap_out : 64;
        struct outcome *v = realloc(f->out, cap * sizeof *v);
        if (!v)
            return -1;
        f->out = v;
        f->cap_out = cap;
    }
    f->out[f->nout] = (struct outcome){st, sym ? strdup(sym) : NULL};
    return sym && !f->out[f->nout].symbol ? -1 : (int)f->nout++;
}

static long case_index(struct fleet *f, const char *id)
{
    json_t *i = json_object_get(f->ids, id);
    if (i)
        return (long)json_integer_value(i);
    if (f->ncases == f->cap_ids) {
        size_t cap = f->cap_ids ? 2 * f->cap_ids : 65536;
        const char **v = realloc(f->id, cap * sizeof *v);
        if (!v)
            return -1;
        f->id = v;
        f->cap_ids = cap;
        for (size_t k = 0; k < f->nm + 1; k++) { /* every member's table grows with it (the one being read too) */
            struct member *m = &f->m[k];
            uint16_t *o = realloc(m->of, cap * sizeof *o);
            if (!o)
                return -1;
            memset(o + f->ncases, 0, (cap - f->ncases) * sizeof *o);
            m->of = o;
        }
    }
    if (json_object_set_new(f->ids, id, json_integer((json_int_t)f->ncases)))
        return -1;
    f->id[f->ncases] = json_object_iter_key(json_object_iter_at(f->ids, id));
    return (long)f->ncases++;
}

struct reading {
    struct fleet *f;
    struct member *m;
};

static int read_case(void *ctx, const char *id, const json_t *c)
{
    struct reading *r = ctx;
    struct cts_case_view v;
    cts_case_view(&v, id, c);
    int verdict = v.status == CTS_PASS || v.status == CTS_VARIES;
    int o = outcome_index(r->f, v.status, verdict && v.has_symbol ? v.symbol : NULL);
    long i = o < 0 ? -1 : case_index(r->f, id);
    if (i < 0)
        return -1;
    r->m->of[i] = (uint16_t)(o + 1);
    return 0;
}

/* Each matrix read (its outcomes kept) and put in the group of its configuration. */
static int read_all(struct fleet *f)
{
    char err[1024];
    f->m = calloc(f->npaths + 1, sizeof *f->m);
    f->ids = json_object();
    f->groups = json_array();
    if (!f->m || !f->ids || !f->groups)
        return fleet_error("out of memory");
    for (size_t k = 0; k < f->npaths; k++) {
        struct member *m = &f->m[k];
        m->path = f->paths[k];
        if (f->cap_ids && !(m->of = calloc(f->cap_ids, sizeof *m->of)))
            return fleet_error("out of memory");
        struct reading r = {f, m};
        if (!(m->top = cts_matrix_load_each(m->path, read_case, &r, err, sizeof err)))
            return fleet_error("%s", err);
        f->nm++;
        for (size_t j = 0; j < k; j++)
            if (!strcmp(str_at(f->m[j].top, "gpu", "uuid"), str_at(m->top, "gpu", "uuid")) &&
                json_equal(json_object_get(json_object_get(f->m[j].top, "run"), "date"),
                           json_object_get(json_object_get(m->top, "run"), "date")))
                return fleet_error("'%s' and '%s' are one run (the same GPU and date): a GPU counts once",
                                   f->m[j].path, m->path);
        json_t *conf = cts_configuration(m->top);
        char *key = conf ? json_dumps(conf, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        size_t gi, ng = json_array_size(f->groups);
        for (gi = 0; key && gi < ng; gi++)
            if (!strcmp(json_string_value(json_object_get(json_array_get(f->groups, gi), "key")), key))
                break;
        int bad = !key;
        if (!bad && gi == ng)
            bad = json_array_append_new(f->groups, json_pack("{s:o, s:s, s:[]}", "configuration", conf, "key", key, "members"));
        else
            json_decref(conf);
        free(key);
        if (bad)
            return fleet_error("out of memory");
        m->group = gi;
        json_array_append_new(json_object_get(json_array_get(f->groups, gi), "members"), json_integer((json_int_t)k));
        m->outside = json_array();
    }
    return 0;
}

/* ---- judging ------------------------------------------------------------------------- */

/* "W", "VARIES A/W", "NOTSUPP". */
static const char *outcome_text(const struct outcome *o, char *buf, size_t len)
{
    if (o->status == CTS_PASS && o->symbol)
        return o->symbol;
    snprintf(buf, len, "%s%s%s", cts_status_name(o->status), o->symbol ? " " : "", o->symbol ? o->symbol : "");
    return buf;
}

static const struct cts_known *known_of(const struct fleet *f, size_t g)
{
    for (size_t k = 0; k < f->nknown; k++)
        if (f->known_group[k] == (int)g)
            return &f->known[k];
    return NULL;
}

static int within(const struct cts_known *k, const char *id, const struct outcome *a, const struct outcome *b)
{
    return cts_known_within(k, id, a->status, a->symbol, b->status, b->symbol);
}

/* How a GPU is named: its host and UUID. */
static char *member_name(const struct member *m)
{
    char *s;
    return asprintf(&s, "%s/%s", str_at(m->top, "host", "name"), str_at(m->top, "gpu", "uuid")) < 0 ? NULL : s;
}

/* A case split in group g: each GPU's outcome. */
static json_t *split_entry(const struct fleet *f, const json_t *members, size_t c)
{
    json_t *by = json_object();
    size_t i;
    json_t *x;
    json_array_foreach(members, i, x) {
        const struct member *m = &f->m[json_integer_value(x)];
        char buf[96], *name = member_name(m);
        if (m->of[c] && name)
            json_object_set_new(by, name, json_string(outcome_text(&f->out[m->of[c] - 1], buf, sizeof buf)));
        free(name);
    }
    return json_pack("{s:s, s:o}", "case", f->id[c], "outcomes", by);
}

/* Group g's cases: its GPUs outside the majority, and its split cases (into split). */
static int judge_group(struct fleet *f, size_t g, json_t *split)
{
    const json_t *members = json_object_get(json_array_get(f->groups, g), "members");
    const struct cts_known *k = known_of(f, g);
    size_t n = json_array_size(members), *count = calloc(f->nout + 1, sizeof *count);
    if (!count)
        return -1;
    for (size_t c = 0; n > 1 && c < f->ncases; c++) {
        size_t have = 0, best = 0, i;
        json_t *x;
        memset(count, 0, (f->nout + 1) * sizeof *count);
        json_array_foreach(members, i, x) {
            uint16_t o = f->m[json_integer_value(x)].of[c];
            have += o != 0;
            count[o] += o != 0;
        }
        for (size_t o = 1; o <= f->nout; o++)
            if (2 * count[o] > have)
                best = o;
        int all_known = 1, agree = 1;
        json_array_foreach(members, i, x) {
            struct member *m = &f->m[json_integer_value(x)];
            uint16_t o = m->of[c];
            if (!o || !have)
                continue;
            agree &= count[o] == have;
            all_known &= within(k, f->id[c], &f->out[o - 1], &f->out[o - 1]);
            if (best && o != best && !within(k, f->id[c], &f->out[o - 1], &f->out[best - 1])) {
                char b1[96], b2[96];
                if (json_array_append_new(m->outside, json_pack("{s:s, s:s, s:s}", "case", f->id[c], "outcome",
                                                                outcome_text(&f->out[o - 1], b1, sizeof b1),
                                                                "majority",
                                                                outcome_text(&f->out[best - 1], b2, sizeof b2)))) {
                    free(count);
                    return -1;
                }
            }
        }
        if (!best && !agree && !all_known) {
            if (json_array_append_new(split, split_entry(f, members, c))) {
                free(count);
                return -1;
            }
            f->split++;
        }
    }
    free(count);
    return 0;
}

/* The report, as JSON: every group, its GPUs and what is outside. */
static json_t *report(struct fleet *f)
{
    json_t *groups = json_array();
    size_t outliers = 0;
    for (size_t g = 0; groups && g < json_array_size(f->groups); g++) {
        json_t *grp = json_array_get(f->groups, g), *split = json_array(), *members = json_array(), *x;
        if (!split || !members || judge_group(f, g, split)) {
            json_decref(split);
            json_decref(members);
            json_decref(groups);
            return NULL;
        }
        size_t i;
        json_array_foreach(json_object_get(grp, "members"), i, x) {
            struct member *m = &f->m[json_integer_value(x)];
            outliers += json_array_size(m->outside) > 0;
            json_array_append_new(members,
                                  json_pack("{s:s, s:s, s:s, s:s, s:O?, s:O?, s:O}", "matrix", m->path, "host",
                                            str_at(m->top, "host", "name"), "gpu_uuid",
                                            str_at(m->top, "gpu", "uuid"), "pci_bus_id",
                                            str_at(m->top, "gpu", "pci_bus_id"), "date",
                                            json_object_get(json_object_get(m->top, "run"), "date"),
                                            "suite_revision",
                                            json_object_get(json_object_get(m->top, "environment"), "suite_revision"),
                                            "outside", m->outside));
        }
        const char *kp = NULL;
        for (size_t k = 0; k < f->nknown; k++)
            if (f->known_group[k] == (int)g)
                kp = f->known_path[k];
        json_array_append_new(groups, json_pack("{s:O, s:o, s:o, s:s?}", "configuration",
                                                json_object_get(grp, "configuration"), "members", members,
                                                "split", split, "known", kp));
    }
    f->outside = outliers;
    return groups ? json_pack("{s:s, s:i, s:I, s:o, s:I, s:I}", "schema", "cuda-sync-cts/fleet", "schema_version", 1,
                              "matrices", (json_int_t)f->nm, "groups", groups, "outliers", (json_int_t)outliers,
                              "split", (json_int_t)f->split)
                  : NULL;
}

/* ---- the command ------------------------------------------------------------------------ */

static void fleet_free(struct fleet *f)
{
    for (size_t i = 0; i < f->npaths; i++)
        free(f->paths[i]);
    for (size_t i = 0; f->m && i <= f->nm; i++) {
        free(f->m[i].of);
        json_decref(f->m[i].outside);
    }
    for (size_t i = 0; i < f->nout; i++)
        free((char *)f->out[i].symbol);
    for (size_t k = 0; k < f->nknown; k++)
        cts_known_free(&f->known[k]);
    free(f->paths);
    free(f->m);
    free(f->id);
    free(f->out);
    json_decref(f->ids);
    json_decref(f->groups);
}

/* Each known-variability file to the group whose configuration it is of.  0, or fleet_error's status. */
static int assign_known(struct fleet *f)
{
    for (size_t k = 0; k < f->nknown; k++) {
        const json_t *kc = json_object_get(f->known[k].top, "configuration");
        f->known_group[k] = -1;
        for (size_t g = 0; g < json_array_size(f->groups); g++)
            if (!cts_configuration_differs(kc, json_object_get(json_array_get(f->groups, g), "configuration")))
                f->known_group[k] = (int)g;
        if (f->known_group[k] < 0)
            return fleet_error("'%s' is known variability of a configuration no matrix given has", f->known_path[k]);
    }
    return 0;
}

/* Renders the report in format fmt, whole in memory, and writes it to out.  0, or fleet_error's status. */
static int write_report(const struct fleet *f, const json_t *r, int fmt, const char *out)
{
    char *text = NULL, err[1024];
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return fleet_error("out of memory");
    if (fmt == FMT_JSON)
        json_dumpf(r, mem, JSON_INDENT(1) | JSON_SORT_KEYS), fputc('\n', mem);
    else
        (fmt == FMT_MD ? cts_fleet_render_md : fmt == FMT_HTML ? cts_fleet_render_html : cts_fleet_render_text)(r, mem);
    if (fclose(mem) != 0) {
        free(text);
        return fleet_error("out of memory");
    }
    int rc = cts_output_write(out, (const char *const *)f->paths, f->npaths, text, len, err, sizeof err)
                 ? fleet_error("%s", err)
                 : 0;
    free(text);
    return rc;
}

/* The options: --known FILE (loaded), --format, --out.  0, or the exit status. */
static int fleet_options(int argc, char **argv, struct fleet *f, const char **out, int *fmt)
{
    static const struct option opts[] = {{"known", required_argument, NULL, 'k'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"out", required_argument, NULL, 'o'}, {0}};
    static const char *const formats[] = {"text", "md", "html", "json"};
    int c, rc = 0;
    char err[1024];
    opterr = 0;
    while (!rc && (c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'k' && f->nknown == MAX_KNOWN)
            rc = fleet_error("fleet takes at most %d known-variability files", MAX_KNOWN);
        else if (c == 'k' && cts_known_load(optarg, &f->known[f->nknown], err, sizeof err))
            rc = fleet_error("%s", err);
        else if (c == 'k')
            f->known_path[f->nknown++] = optarg;
        else if (c == 'o')
            *out = optarg;
        else if (c == 'f') {
            for (*fmt = 0; *fmt < 4 && strcmp(optarg, formats[*fmt]); ++*fmt)
                ;
            if (*fmt == 4)
                rc = fleet_error("--format wants text, md, html or json, not '%s'", optarg);
        } else {
            rc = cts_bad_option(c, argv);
        }
    }
    return rc;
}

int cts_fleet_main(int argc, char **argv)
{
    struct fleet f = {0};
    const char *out = NULL;
    int fmt = FMT_TEXT;
    char err[1024];
    int rc = fleet_options(argc, argv, &f, &out, &fmt);
    if (!rc && optind == argc)
        rc = fleet_error("fleet wants matrices or directories of them");
    if (!rc)
        rc = gather_paths(&f, argv + optind, argc - optind);
    if (!rc && cts_output_check(out, (const char *const *)f.paths, f.npaths, err, sizeof err))
        rc = fleet_error("%s", err);
    if (!rc)
        rc = read_all(&f);
    if (!rc)
        rc = assign_known(&f);
    json_t *r = rc ? NULL : report(&f);
    if (!rc && !r)
        rc = fleet_error("out of memory");
    if (!rc)
        rc = write_report(&f, r, fmt, out);
    if (!rc)
        rc = f.outside || f.split ? EXIT_FAILED : 0;
    json_decref(r);
    fleet_free(&f);
    return rc;
}
