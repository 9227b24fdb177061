/* sync-cts thresholds: the exact size where a case row's outcome changes.
 *
 * A row is a case without its size (memcpy_async.h2d.pageable.explicit.
 * op_perthread.busy_same).  The rows searched are those whose outcome
 * differs between two sample sizes in a matrix of this build (--matrix),
 * and, with --catalogue, the rows declared in thresholds_rows.c whatever the
 * matrix says.
 * Each probe is the row's case at one size, run by the engine as any case
 * (idle measurement, the gate and its proofs, --repeat repetitions);
 * threshold.c chooses the sizes.  The rows, their probes and flips go into
 * the matrix as its `thresholds` member (docs/matrix.md), written to --out
 * or back into the matrix, whole or not at all.  One process: a probe that
 * loses the CUDA context ends the command (exit 3), nothing written. */
#define _GNU_SOURCE
#include "cli.h"
#include "engine.h"
#include "engine_int.h"
#include "report.h"
#include "threshold.h"

#include <fnmatch.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run_int.h"
#include "thresholds_int.h"


/* Idle measurements shared by the rows that differ only in busy placement
 * (the same call, stream and size), as the run's worker shares them. */
struct idle_cache {
    json_t *index; /* "<row without its busy segment>@<bytes>" -> slot */
    struct cts_idle *slot;
    size_t n, cap;
};

static const struct cts_idle *cached_idle(struct idle_cache *ic, struct cts_engine *e, const struct cts_case *c)
{
    char key[CTS_ID_MAX + 32];
    const char *dot = strrchr(c->id, '.');
    snprintf(key, sizeof key, "%.*s@%zu", (int)(dot ? dot - c->id : (long)strlen(c->id)), c->id, c->size);
    json_t *k = json_object_get(ic->index, key);
    if (k)
        return &ic->slot[json_integer_value(k)];
    if (ic->n == ic->cap) {
        size_t cap = ic->cap ? 2 * ic->cap : 1024;
        struct cts_idle *p = realloc(ic->slot, cap * sizeof *p);
        if (!p)
            return NULL;
        ic->slot = p;
        ic->cap = cap;
    }
    cts_engine_idle(e, c, &ic->slot[ic->n]);
    json_object_set_new(ic->index, key, json_integer((json_int_t)ic->n));
    return &ic->slot[ic->n++];
}

struct probe_ctx {
    struct cts_engine *e;
    struct idle_cache idle;
    const struct row *row;
    int repeat;
    struct cts_result *res;
    char why[CTS_REASON_MAX];
};

/* One probe: the row's case at `bytes`, run as any case. */
static int probe(void *ctx, size_t bytes, struct cts_th_probe *out)
{
    struct probe_ctx *p = ctx;
    struct cts_case c = *p->row->base;
    c.size = bytes;
    c.size_idx = -1;
    out->bytes = bytes;
    if (p->row->axis != AXIS_BYTES) { /* a 2D copy, one dimension searched */
        c.width = p->row->axis == AXIS_WIDTH ? bytes : AXIS_FIXED_WIDTH;
        c.height = p->row->axis == AXIS_ROWS ? bytes : AXIS_FIXED_ROWS;
        c.size = c.width * c.height;
    } else if (c.family->resize && c.family->resize(&c)) {
        out->status = CTS_NOTSUPP;
        return 0;
    }
    snprintf(c.id, sizeof c.id, "%s", p->row->id);
    double t0 = cts_now_us();
    const struct cts_idle *idle = cached_idle(&p->idle, p->e, &c);
    if (!idle) {
        snprintf(p->why, sizeof p->why, "out of memory");
        return -1;
    }
    double t1 = cts_now_us();
    cts_engine_run_case(p->e, &c, idle, p->repeat, p->res);
    if (cts_eng_trace_on()) /* CTS_TRACE: where a search's time goes, probe by probe */
        fprintf(stderr, "trace probe %s %zu: %s %s idle %.0f case %.0f us\n", p->row->id, bytes,
                cts_status_name(p->res->status), p->res->symbol, t1 - t0, cts_now_us() - t1);
    if (p->e->broken[0]) {
        snprintf(p->why, sizeof p->why, "%s", p->e->broken);
        return -1;
    }
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        snprintf(p->why, sizeof p->why, "after %s at %zu bytes: cudaDeviceSynchronize returned %s", p->row->id,
                 bytes, cudaGetErrorName(err));
        return -1;
    }
    out->status = p->res->status;
    snprintf(out->symbol, sizeof out->symbol, "%s", p->res->symbol);
    double call[CTS_MAX_REPEAT];
    int n = 0;
    for (int i = 0; i < p->res->nreps; i++)
        if (p->res->reps[i].status == CTS_PASS)
            call[n++] = p->res->reps[i].call_us;
    for (int i = 1; i < n; i++) /* a few values: insertion sort */
        for (int j = i; j > 0 && call[j - 1] > call[j]; j--) {
            double t = call[j];
            call[j] = call[j - 1];
            call[j - 1] = t;
        }
    out->call_us = n ? call[n / 2] : NAN; /* the upper median (docs/matrix.md) */
    return 0;
}

/* The largest size up to max the row's family can make a call of (its
 * resize hook: a symbol copy ends at the symbol's size), found by bisection
 * (the hooks' limits are upper bounds).  Sizes the hook refuses below it
 * (an odd size for a 16-bit memset) are probed and come back NOTSUPP. */
static size_t row_limit(const struct cts_case *base, size_t max)
{
    struct cts_case c = *base;
    if (!c.family->resize)
        return max;
    c.size = max;
    if (!c.family->resize(&c))
        return max;
    size_t ok = 1, bad = max; /* the generator made one of its sample sizes: 1 or more work */
    while (bad - ok > 1) {
        c.size = ok + (bad - ok) / 2;
        if (c.family->resize(&c))
            bad = c.size;
        else
            ok = c.size;
    }
    return ok;
}

static json_t *probe_json(const struct cts_th_probe *p)
{
    char key[40];
    cts_th_key(p, key, sizeof key);
    json_t *j = json_pack("{s:I,s:s,s:s}", "bytes", (json_int_t)p->bytes, "status", cts_status_name(p->status),
                          "outcome", key);
    json_object_set_new(j, "call_us", isfinite(p->call_us) ? json_real(round(p->call_us * 10) / 10) : json_null());
    json_object_set_new(j, "asked", json_integer(p->asked));
    return j;
}

static const struct cts_th_probe *find_probe(const struct cts_th_search *s, size_t bytes)
{
    for (size_t i = 0; i < s->nprobes; i++)
        if (s->probes[i].bytes == bytes)
            return &s->probes[i];
    return NULL;
}

static json_t *search_json(const struct row *r, const struct cts_th_search *s, double wall_s)
{
    json_t *flips = json_array(), *probes = json_array();
    for (size_t i = 0; i < s->nflips; i++) {
        const struct cts_th_flip *f = &s->flips[i];
        json_array_append_new(flips, json_pack("{s:o,s:o,s:b,s:b}", "below", probe_json(find_probe(s, f->below)),
                                               "above", probe_json(find_probe(s, f->above)), "exact", f->exact,
                                               "steady", f->steady));
    }
    for (size_t i = 0; i < s->nprobes; i++)
        json_array_append_new(probes, probe_json(&s->probes[i]));
    json_t *j = json_pack("{s:s,s:s,s:o,s:I,s:i,s:i,s:b,s:b,s:f}", "base_case", r->base->id, "family",
                          r->base->family->name, "flips", flips, "max_bytes", (json_int_t)s->max_bytes,
                          "probes", (int)s->nprobes, "undecided", s->undecided, "truncated", s->truncated,
                          "from_matrix", r->from_matrix, "wall_s", round(wall_s * 100) / 100);
    json_object_set_new(j, "samples", json_incref(r->samples));
    json_object_set_new(j, "probed", probes);
    if (r->axis != AXIS_BYTES)
        json_object_set_new(j, "axis", json_pack("{s:s,s:I}", "name", cts_th_axis_name[r->axis], "fixed",
                                                 (json_int_t)(r->axis == AXIS_WIDTH ? AXIS_FIXED_ROWS
                                                                                    : AXIS_FIXED_WIDTH)));
    return j;
}

static void print_row(const char *id, const struct cts_th_search *s, double wall_s)
{
    printf("%s: %zu probes, %.1f s", id, s->nprobes, wall_s);
    if (!s->nflips)
        printf(", no flip up to %zu bytes", s->max_bytes);
    for (size_t i = 0; i < s->nflips; i++)
        printf("%s %s up to %zu, %s from %zu%s%s", i ? ";" : ":", s->flips[i].below_key, s->flips[i].below,
               s->flips[i].above_key, s->flips[i].above, s->flips[i].exact ? "" : " (not exact)",
               s->flips[i].exact && !s->flips[i].steady ? " (alternates)" : "");
    if (s->undecided)
        printf(" [%d undecided]", s->undecided);
    putchar('\n');
    fflush(stdout);
}

struct th_opts {
    const char *mpath, *out, *glob;
    int repeat, dev, with_catalogue, list, mib;
};

static int parse_opts(int argc, char **argv, struct th_opts *o)
{
    static const struct option opts[] = {{"matrix", required_argument, NULL, 'm'}, {"out", required_argument, NULL, 'o'},
                                         {"max", required_argument, NULL, 'x'},   {"repeat", required_argument, NULL, 'r'},
                                         {"device", required_argument, NULL, 'd'}, {"catalogue", no_argument, NULL, 'c'},
                                         {"list", no_argument, NULL, 'l'},        {0}};
    int c;
    *o = (struct th_opts){.repeat = 2, .mib = 256};
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'm': o->mpath = optarg; break;
        case 'o': o->out = optarg; break;
        case 'c': o->with_catalogue = 1; break;
        case 'l': o->list = 1; break;
        case 'x':
            if (cts_parse_int(optarg, 1, 4096, &o->mib))
                return cts_die(EXIT_USAGE, "--max wants MiB from 1 to 4096, not '%s'", optarg);
            break;
        case 'r':
            if (cts_parse_int(optarg, 1, CTS_MAX_REPEAT, &o->repeat))
                return cts_die(EXIT_USAGE, "--repeat wants 1 to %d, not '%s'", CTS_MAX_REPEAT, optarg);
            break;
        case 'd':
            if (cts_parse_int(optarg, 0, 1023, &o->dev))
                return cts_die(EXIT_USAGE, "--device wants a device index, not '%s'", optarg);
            break;
        default: return cts_bad_option(c, argv);
        }
    }
    if (optind < argc)
        o->glob = argv[optind++];
    if (optind < argc)
        return cts_die(EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
    if (!o->mpath)
        return cts_die(EXIT_USAGE, "thresholds wants --matrix FILE (a matrix of this build: the rows whose outcome "
                                   "differs between sizes)");
    if (!o->out)
        o->out = o->mpath; /* the matrix, rewritten whole with its thresholds */
    return 0;
}

/* The matrix's cases must be of this GPU, runtime and build for its rows'
 * outcomes to be the ones searched: 0, or the one-line error's exit code. */
static int same_setup(const json_t *m, const json_t *env)
{
    static const char *const paths[][2] = {{"gpu", "name"}, {"versions", "runtime"}, {"settings", "default_stream"}};
    const json_t *menv = json_object_get(m, "environment");
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        const json_t *a = json_object_get(json_object_get(menv, paths[i][0]), paths[i][1]);
        const json_t *b = json_object_get(json_object_get(env, paths[i][0]), paths[i][1]);
        if (!json_equal(a, b)) {
            char *sa = json_dumps(a, JSON_ENCODE_ANY), *sb = json_dumps(b, JSON_ENCODE_ANY);
            int rc = cts_die(EXIT_USAGE, "the matrix's %s.%s is %s, this one's %s: its rows are not this setup's",
                             paths[i][0], paths[i][1], sa ? sa : "?", sb ? sb : "?");
            free(sa);
            free(sb);
            return rc;
        }
    }
    return 0;
}

/* Searches every row with the engine of pc, each row's result into found:
 * 0, or the one-line error's exit code. */
static int search_each(struct row *rows, size_t nrows, size_t max, struct probe_ctx *pc, json_t *found,
                       size_t *probes)
{
    for (size_t i = 0; i < nrows; i++) {
        struct cts_th_search s;
        double r0 = cts_now_us();
        pc->row = &rows[i];
        size_t limit = rows[i].axis == AXIS_WIDTH  ? max / AXIS_FIXED_ROWS
                       : rows[i].axis == AXIS_ROWS ? max / AXIS_FIXED_WIDTH
                                                   : row_limit(rows[i].base, max);
        if (cts_th_search(&s, limit, probe, pc)) {
            int rc = cts_die(EXIT_NO_VERDICT, "the search of %s stopped: %s", rows[i].id,
                             s.stopped ? pc->why : "out of memory");
            cts_th_free(&s);
            return rc;
        }
        double wall = (cts_now_us() - r0) / 1e6;
        print_row(rows[i].id, &s, wall);
        json_object_set_new(found, rows[i].id, search_json(&rows[i], &s, wall));
        *probes += s.nprobes;
        cts_th_free(&s);
    }
    return 0;
}

/* Searches every row; the section's rows, or NULL with the exit code in *rc.
 * The engine is released whether the search ended or stopped. */
static json_t *search_rows(const struct th_opts *o, struct row *rows, size_t nrows, size_t max, size_t *probes,
                           int *rc)
{
    struct cts_engine *e = calloc(1, sizeof *e);
    struct cts_result *res = calloc(1, sizeof *res);
    struct probe_ctx pc = {.e = e, .repeat = o->repeat, .res = res, .idle = {.index = json_object()}};
    json_t *found = json_object();
    double t0 = cts_now_us();
    *rc = 0;
    if (!e || !res || !pc.idle.index || !found) {
        *rc = cts_die(EXIT_NO_VERDICT, "out of memory");
    } else if (cts_engine_init_sized(e, o->dev, max + 4096u) || e->unmeasurable[0]) {
        *rc = cts_die(EXIT_NO_VERDICT, "harness set-up failed: %s", e->broken[0] ? e->broken : e->unmeasurable);
        cts_engine_fini(e); /* what the set-up made before it failed (the worker does the same) */
    } else {
        printf("engine with %zu MiB buffers set up in %.1f s\n", max >> 20, (cts_now_us() - t0) / 1e6);
        *rc = search_each(rows, nrows, max, &pc, found, probes);
        cts_engine_fini(e);
    }
    json_decref(pc.idle.index);
    free(pc.idle.slot);
    free(res);
    free(e);
    if (*rc) {
        json_decref(found);
        return NULL;
    }
    return found;
}

/* Writes m into of (opened before the matrix was read) and puts it in place. */
static int write_matrix(json_t *m, const char *out, struct cts_outfile *of)
{
    char err[512];
    int werr = cts_ends_with(out, ".gz") ? cts_matrix_dump_gz(m, of->f) : cts_matrix_dump(m, of->f);
    if (werr) {
        cts_outfile_abort(of);
        return cts_die(EXIT_NO_VERDICT, "cannot write '%s'", out);
    }
    if (cts_outfile_commit(of, err, sizeof err))
        return cts_die(EXIT_NO_VERDICT, "%s", err);
    return 0;
}

/* The rows listed (--list), or searched and written into the matrix m
 * through of (nrows > 0): 0, or the one-line error's exit code (of left
 * open: the caller aborts it). */
static int list_or_search(const struct th_opts *o, json_t *m, struct row *rows, size_t nrows,
                          struct cts_outfile *of)
{
    if (o->list) {
        for (size_t i = 0; i < nrows; i++)
            printf("%s%s%s\n", rows[i].id, rows[i].from_matrix ? "  [differs in the matrix]" : "",
                   rows[i].from_catalogue ? "  [catalogue]" : "");
        return 0;
    }
    char err[512];
    int rc = cts_run_find_device(o->dev);
    if (rc)
        return rc;
    json_t *env = cts_env_collect(o->dev, err, sizeof err);
    if (!env)
        return cts_die(EXIT_NO_VERDICT, "cannot read the environment: %s", err);
    if ((rc = same_setup(m, env))) {
        json_decref(env);
        return rc;
    }
    size_t probes = 0, max = (size_t)o->mib << 20;
    double t0 = cts_now_us();
    json_t *found = search_rows(o, rows, nrows, max, &probes, &rc);
    if (!found) {
        json_decref(env);
        return rc;
    }
    double total = (cts_now_us() - t0) / 1e6;
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_t *run = json_pack("{s:I,s:i,s:i,s:I,s:f,s:b,s:s,s:s}", "max_bytes", (json_int_t)max, "repetitions",
                            o->repeat, "rows", (int)nrows, "probes", (json_int_t)probes, "wall_s",
                            round(total * 10) / 10, "catalogue", o->with_catalogue, "suite_revision",
                            json_string_value(json_object_get(env, "suite_revision")), "date", date);
    json_decref(env);
    json_object_set_new(m, "thresholds", json_pack("{s:o,s:o}", "run", run, "rows", found));
    if ((rc = write_matrix(m, o->out, of)))
        return rc;
    printf("%zu rows, %zu probes in %.1f s: %s\n", nrows, probes, total, o->out);
    return 0;
}

/* The matrix read, its rows found, then listed or searched (of: the output, open; NULL for --list). */
static int thresholds(const struct th_opts *o, struct cts_outfile *of)
{
    int rc;
    char err[512];
    /* The tree lives until the process ends (report.h): it is not freed. */
    json_t *m = cts_matrix_load(o->mpath, err, sizeof err);
    if (!m)
        return cts_die(EXIT_USAGE, "%s", err);
    const char *ds = json_string_value(
        json_object_get(json_object_get(json_object_get(m, "environment"), "settings"), "default_stream"));
    int per_thread = ds && strcmp(ds, "per-thread") == 0;
    if (per_thread != cts_build_per_thread()) /* its rows name the other build's ids (issue 43, D13) */
        return cts_die(EXIT_USAGE, "'%s' was measured with the %s default stream: search it with %s", o->mpath,
                       per_thread ? "per-thread" : "legacy", per_thread ? "sync-cts-ptds" : "sync-cts");
    size_t nrows = 0;
    json_t *outcomes = cts_th_outcomes(m);
    struct row *rows = cts_th_rows(outcomes, o->with_catalogue, o->glob, &nrows);
    json_decref(outcomes);
    if (!rows)
        return cts_die(EXIT_NO_VERDICT, "out of memory");
    if (!nrows)
        rc = o->glob ? cts_die(EXIT_USAGE, "no row to search matches '%s'", o->glob)
                     : cts_die(EXIT_USAGE, "no row to search: no outcome differs between sizes in %s", o->mpath);
    else
        rc = list_or_search(o, m, rows, nrows, of);
    cts_th_rows_free(rows, nrows);
    return rc;
}

int cts_cmd_thresholds(int argc, char **argv)
{
    struct th_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc || o.list)
        return rc ? rc : thresholds(&o, NULL);
    /* The output checked and opened before the matrix is read and searched (minutes on a GPU):
     * one that cannot be written is said at once (issue 43, D4). */
    if (!cts_ends_with(o.out, ".json") && !cts_ends_with(o.out, ".json.gz"))
        return cts_die(EXIT_USAGE, "--out wants FILE.json or FILE.json.gz, not '%s'", o.out);
    char err[512];
    struct cts_outfile of;
    if (cts_outfile_open(&of, o.out, err, sizeof err))
        return cts_die(EXIT_USAGE, "%s", err);
    rc = thresholds(&o, &of);
    cts_outfile_abort(&of); /* unless written and put in place */
    return rc;
}
