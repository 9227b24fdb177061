/* sync-cts: the command line, and the sub-commands that read matrices
 * (render, judge, check, cite; diff is diff.c).  list, env and log are in
 * info.c, run in run.c (its supervisor in supervisor.c, its worker in
 * worker.c).
 *
 * Exit codes (README "Exit codes"):
 *   0  every selected case has a verdict (PASS, VARIES) or is NOTSUPP with a reason
 *   1  some case FAILed: the call under test returned an error or copied wrong data
 *   2  bad input: unknown option, bad value, a filter selecting nothing, an unwritable path
 *   3  some case has no verdict (BROKEN, TIMEOUT, INCONCLUSIVE), or the harness could not start
 *   77 skipped: no CUDA device or driver here
 * A CUDA error code never becomes an exit status. */
#include "cli.h"
#include "cts.h"
#include "engine.h"
#include "known.h"
#include "report.h"
#include "spec.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cts_revision.h"

static const char usage_text[] =
    "usage: sync-cts list [GLOB] [--family NAME] [--group NAME] [--devices 1|2] [--groups]\n"
    "       sync-cts run [GLOB] [--family NAME] [--group NAME] [--devices 1|2] [--repeat N]\n"
    "                    [--out FILE.json[.gz]] [--log FILE] [--device N] [--schedule auto|spin|yield|blocking-sync]\n"
    "                    [--waivers FILE] [--baseline MATRIX] [--split-groups DIR] [--hold kernel|wait-value]\n"
    "       sync-cts env [--device N]\n"
    "       sync-cts log FILE.log\n"
    "       sync-cts render MATRIX.json[.gz] [--format md|csv|html] [--out FILE|-]   (default: stdout)\n"
    "                    [--section cases|thresholds]   (csv only; default: cases)\n"
    "       sync-cts judge MATRIX.json[.gz] [--out FILE|-]   (default: the matrix, rewritten in place)\n"
    "       sync-cts cite CASE-ID|ROW [MATRIX.json[.gz]]   (default matrix.json; ROW: a threshold row)\n"
    "       sync-cts check MATRIX.json[.gz] [--waivers FILE] [--baseline MATRIX [--known FILE]]\n"
    "       sync-cts diff A.json[.gz] B.json[.gz] [C.json ...] [--series] [--format text|md|csv]\n"
    "                    [--section cases|thresholds] [--known FILE] [--out FILE|-]\n"
    "       sync-cts variability MATRIX MATRIX... [--out FILE|-]   (default: stdout)\n"
    "       sync-cts fleet MATRIX|DIR... [--known FILE]... [--format text|md|html|json] [--out FILE|-]\n"
    "       sync-cts model MODEL.json MATRIX... [--format text|md|html|json] [--out FILE|-]\n"
    "       sync-cts thresholds --matrix MATRIX [GLOB] [--catalogue] [--max MiB] [--repeat N]\n"
    "                    [--device N] [--out FILE.json[.gz] | --list]   (default: into the matrix)\n"
    "       sync-cts --help | --version\n"
    "GLOB is an fnmatch(3) pattern over case ids, e.g. 'memcpy_async.h2d.pageable.*'.\n"
    "--out - is standard output; run, render, diff and variability refuse an --out that is an input.\n"
    "run writes FILE.json (default matrix.json; FILE.json.gz: gzip), its Markdown FILE.md, and a\n"
    "per-case log FILE.log.  --group selects one CTest group exactly (list --groups);\n"
    "--devices 2 the cases that cross to a second device (peer), --devices 1 the rest.\n"
    "diff compares B, C, ... each with A; diff --series takes them as a series, in order, and\n"
    "lists the cases whose outcome changes along it, one column a matrix, and where it changed.\n"
    "variability gathers the outcomes each case took over runs of one configuration (known\n"
    "variability); diff and check --known count a case that moved within them apart from changes.\n"
    "fleet groups matrices by configuration and names each GPU outside its group's majority.\n"
    "model holds a race detector's synchronization model against the matrices (docs/models.md).\n"
    "thresholds finds the size where a row's outcome changes (docs/running.md \"Thresholds\").\n"
    "Exit: 0 verdicts, 1 FAIL, 2 bad input, 3 no verdict, 77 no GPU.\n";

/* ---- render ---------------------------------------------------------------------- */

/* render's options: --out, --format (md csv html) and --section (cases
 * thresholds; csv only). */
struct render_opts {
    const char *out;
    int fmt, thresholds;
};

/* 0, or the exit status of a usage error, said. */
static int render_opts(int argc, char **argv, struct render_opts *o)
{
    static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"section", required_argument, NULL, 's'}, {0}};
    static const char *const formats[] = {"md", "csv", "html"};
    int c, section = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'o') {
            o->out = optarg;
        } else if (c == 'f') {
            for (o->fmt = 0; o->fmt < 3 && strcmp(optarg, formats[o->fmt]); o->fmt++)
                ;
            if (o->fmt == 3)
                return cts_die(EXIT_USAGE, "--format wants md, csv or html, not '%s'", optarg);
        } else if (c == 's') {
            section = 1;
            o->thresholds = !strcmp(optarg, "thresholds");
            if (!o->thresholds && strcmp(optarg, "cases"))
                return cts_die(EXIT_USAGE, "--section wants cases or thresholds, not '%s'", optarg);
        } else {
            return cts_bad_option(c, argv);
        }
    }
    if (section && o->fmt != 1) /* csv */
        return cts_die(EXIT_USAGE, "--section applies to --format csv");
    if (optind != argc - 1)
        return cts_die(EXIT_USAGE, optind >= argc ? "render wants a matrix file"
                                              : "render takes one matrix file");
    return 0;
}

/* The rendering of m, as cmd_render asks. */
static int render_to(const json_t *m, const struct render_opts *o, const char *in, const char *out)
{
    static int (*const render[])(const json_t *, FILE *) = {cts_render_markdown, cts_render_csv,
                                                           cts_render_html};
    char err[512];
    if (o->thresholds && !json_is_object(json_object_get(m, "thresholds")))
        return cts_die(EXIT_USAGE, "'%s' has no thresholds (sync-cts thresholds adds them)", in);
    struct cts_outfile mf;
    if (cts_output_open(&mf, out, &in, 1, err, sizeof err))
        return cts_die(EXIT_USAGE, "%s", err);
    if ((o->thresholds ? cts_render_csv_thresholds : render[o->fmt])(m, mf.f)) {
        int unwritable = ferror(mf.f);
        cts_outfile_abort(&mf);
        if (unwritable)
            return cts_die(EXIT_USAGE, mf.std ? "cannot write to standard output" : "cannot write '%s'", out);
        return cts_die(EXIT_NO_VERDICT, "cannot render '%s'", in);
    }
    if (cts_outfile_commit(&mf, err, sizeof err))
        return cts_die(EXIT_USAGE, "%s", err);
    return 0;
}

/* Renders a matrix (a committed one, say) to standard output, or into
 * --out (written whole or not at all; "-" is standard output).  The output
 * may not be the input.  --section thresholds: the matrix's `thresholds`
 * member, which it must have.  The matrix is read as the renderers see it
 * (cts_matrix_load_shown), and freed. */
static int cmd_render(int argc, char **argv)
{
    struct render_opts o = {0};
    int rc = render_opts(argc, argv, &o);
    if (rc)
        return rc;
    const char *in = argv[optind], *out = o.out;
    char err[512];
    if (cts_output_check(out, &in, 1, err, sizeof err))
        return cts_die(EXIT_USAGE, "%s", err);
    json_t *m = cts_matrix_load_shown(in, err, sizeof err);
    if (!m)
        return cts_die(EXIT_USAGE, "%s", err);
    rc = render_to(m, &o, in, out);
    json_decref(m); /* (not in the loader's arena: its cases were copied out of it) */
    return rc;
}

/* ---- judge ------------------------------------------------------------------------ */

/* Every case of m judged against this build's spec table (its "spec"
 * rewritten): count[] by conformance (0 none, CONFORMS, DEVIATES, RECORDED);
 * returns how many ids this build does not declare (left unjudged). */
static size_t judge_cases(json_t *m, int per_thread, size_t count[4])
{
    size_t unknown = 0;
    const char *id;
    json_t *cj;
    json_object_foreach(json_object_get(m, "cases"), id, cj)
    {
        const struct cts_case *cs = cts_case_find(id);
        if (!cs) {
            unknown++;
            json_object_set_new(cj, "spec", json_null());
            continue;
        }
        json_t *spec = cts_spec_case_json(cs, cj, per_thread);
        const char *cn = json_string_value(json_object_get(spec, "conformance"));
        count[cn ? (!strcmp(cn, "CONFORMS") ? 1 : !strcmp(cn, "DEVIATES") ? 2 : 3) : 0]++;
        json_object_set_new(cj, "spec", spec);
    }
    return unknown;
}

/* Judges a matrix against this build's spec table: each case's "spec" and
 * the table itself are written anew; the observations are not touched.
 * So a matrix measured before a clause was added (or corrected) gets it.
 * Without --out the matrix is rewritten in place: a temporary file beside
 * it (beside the file a symbolic link names) renamed over it, so that it
 * is never half-written.  --out - writes it to standard output, and the
 * counts to standard error. */
static int cmd_judge(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, NULL, 'o'}, {0}};
    const char *out = NULL;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'o')
            out = optarg;
        else
            return cts_bad_option(c, argv);
    }
    if (optind != argc - 1)
        return cts_die(EXIT_USAGE, optind >= argc ? "judge wants a matrix file" : "judge takes one matrix file");
    const char *in = argv[optind];
    if (!out)
        out = in;
    int to_stdout = !strcmp(out, "-");
    char err[512];
    if (to_stdout && cts_output_check(out, &in, 1, err, sizeof err))
        return cts_die(EXIT_USAGE, "%s", err);
    /* The output is opened first, so that an unwritable one is said at once.
     * Writing back to the input is what judge does: only standard output is checked. */
    struct cts_outfile f;
    if (cts_output_open(&f, out, NULL, 0, err, sizeof err))
        return cts_die(EXIT_USAGE, "%s", err);
    json_t *m = cts_matrix_load(in, err, sizeof err);
    if (!m) {
        cts_outfile_abort(&f);
        return cts_die(EXIT_USAGE, "%s", err);
    }
    const char *ds = json_string_value(
        json_object_get(json_object_get(json_object_get(m, "environment"), "settings"), "default_stream"));
    int per_thread = ds && strcmp(ds, "per-thread") == 0;
    if (per_thread != cts_build_per_thread()) { /* the two builds declare different ids */
        cts_outfile_abort(&f);
        return cts_die(EXIT_USAGE, "'%s' was measured with the %s default stream: judge it with %s", in,
                   per_thread ? "per-thread" : "legacy", per_thread ? "sync-cts-ptds" : "sync-cts");
    }
    size_t count[4] = {0}, unknown = judge_cases(m, per_thread, count);
    json_object_set_new(m, "spec", cts_spec_table_json());
    errno = 0;
    int werr = !to_stdout && cts_ends_with(out, ".gz") ? cts_matrix_dump_gz(m, f.f) : cts_matrix_dump(m, f.f);
    if (werr) { /* the matrix was read whole: what fails now is the writing */
        int e = errno;
        cts_outfile_abort(&f);
        if (to_stdout)
            return cts_die(EXIT_USAGE, "cannot write to standard output: %s", strerror(e ? e : EIO));
        return cts_die(EXIT_USAGE, "cannot write '%s': %s", out, strerror(e ? e : EIO));
    }
    if (cts_outfile_commit(&f, err, sizeof err))
        return cts_die(EXIT_USAGE, "%s", err);
    FILE *say = to_stdout ? stderr : stdout;
    fprintf(say, "%s: %zu CONFORMS, %zu DEVIATES, %zu RECORDED, %zu without a verdict",
            to_stdout ? "standard output" : out, count[1], count[2], count[3], count[0]);
    if (unknown)
        fprintf(say, ", %zu ids this build does not declare (left unjudged)", unknown);
    fprintf(say, "\n");
    return 0;
}

/* ---- check --------------------------------------------------------------------------- */

/* Exit 0 when no deviation is left unwaived and no verdict changed against
 * the baseline, 1 when some did, 2 on bad input. */
static int cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {{"waivers", required_argument, NULL, 'w'},
                                         {"baseline", required_argument, NULL, 'b'},
                                         {"known", required_argument, NULL, 'k'}, {0}};
    const char *wpath = NULL, *bpath = NULL, *kpath = NULL;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'w')
            wpath = optarg;
        else if (c == 'b')
            bpath = optarg;
        else if (c == 'k')
            kpath = optarg;
        else
            return cts_bad_option(c, argv);
    }
    if (optind != argc - 1)
        return cts_die(EXIT_USAGE, optind >= argc ? "check wants a matrix file" : "check takes one matrix file");
    if (kpath && !bpath)
        return cts_die(EXIT_USAGE, "--known applies to a comparison with --baseline");
    char err[1024];
    struct cts_known known = {0};
    if (kpath && cts_known_load(kpath, &known, err, sizeof err))
        return cts_die(EXIT_USAGE, "%s", err);
    /* Each matrix as a report reads it: its cases without the evidence no view shows. */
    json_t *m = cts_matrix_load_shown(argv[optind], err, sizeof err), *w = NULL, *b = NULL;
    int rc = -1;
    if (!m || (wpath && !(w = cts_waivers_load(wpath, err, sizeof err))) ||
        (bpath && !(b = cts_matrix_load_shown(bpath, err, sizeof err))))
        rc = cts_die(EXIT_USAGE, "%s", err);
    else if (!json_is_object(json_object_get(m, "spec")))
        rc = cts_die(EXIT_USAGE, "'%s' is not judged against the documentation: run sync-cts judge on it",
                     argv[optind]);
    else if (kpath && cts_known_fits(&known, b, kpath, bpath, err, sizeof err))
        rc = cts_die(EXIT_USAGE, "%s", err);
    int failing = rc < 0 ? cts_check(m, w, b, kpath ? &known : NULL, stdout, err, sizeof err) : 0;
    json_decref(w);
    json_decref(m);
    json_decref(b);
    cts_known_free(&known);
    if (rc >= 0)
        return rc;
    if (failing < 0)
        return cts_die(EXIT_USAGE, "%s", err);
    if (fflush(stdout) != 0 || ferror(stdout))
        return cts_die(EXIT_USAGE, "cannot write to standard output");
    return failing ? EXIT_FAILED : 0;
}

/* ---- cite ---------------------------------------------------------------------------- */

/* What cite keeps of a matrix read case by case: the case asked for, and the
 * ids nearest to it. */
struct cite_scan {
    const char *want;
    json_t *found;
    struct cts_nearest near;
};

/* Only the case asked for is read; every other id is weighed as a nearest one. */
static int cite_wants(void *ctx, const char *id)
{
    struct cite_scan *s = ctx;
    if (!strcmp(id, s->want))
        return 1;
    cts_nearest_add(&s->near, s->want, id);
    return 0;
}

static int cite_case(void *ctx, const char *id, const json_t *c)
{
    (void)id;
    struct cite_scan *s = ctx;
    return (s->found = json_deep_copy(c)) ? 0 : -1;
}

/* The exit status of a citation written (rc: cts_cite's): standard output
 * that cannot take it is 2, as for every command; a citation that could not
 * be composed, 3. */
static int cite_written(int rc)
{
    errno = 0;
    if (fflush(stdout) || ferror(stdout))
        return cts_die(EXIT_USAGE, "cannot write to standard output: %s", strerror(errno ? errno : EIO));
    return rc ? cts_die(EXIT_NO_VERDICT, "cannot write the citation") : 0;
}

/* A threshold row cited: its base case read from the matrix, then the paragraph. */
static int cite_threshold(json_t *m, const char *path, const char *id, const json_t *row)
{
    char err[512];
    struct cite_scan base = {.want = json_string_value(json_object_get(row, "base_case"))};
    json_t *again = base.want ? cts_matrix_load_some(path, cite_wants, cite_case, &base, err, sizeof err) : NULL;
    json_decref(again); /* only the base case is wanted of this second reading */
    if (!again || !base.found) {
        json_decref(base.found);
        json_decref(m);
        return cts_die(EXIT_USAGE, "'%s': the threshold row %s names a base case the matrix lacks", path, id);
    }
    int rc = cts_cite_threshold(m, id, base.found, stdout);
    json_decref(base.found);
    json_decref(m);
    return cite_written(rc);
}

static int cmd_cite(int argc, char **argv)
{
    static const struct option opts[] = {{0}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1)
        return cts_bad_option(c, argv);
    if (optind >= argc)
        return cts_die(EXIT_USAGE, "cite wants a case id (see sync-cts list) or a threshold row");
    if (argc - optind > 2)
        return cts_die(EXIT_USAGE, "cite takes a case id and one matrix, not '%s'", argv[optind + 2]);
    const char *id = argv[optind], *path = argc - optind == 2 ? argv[optind + 1] : "matrix.json";
    char err[512];
    if (cts_case_id_check(id, err, sizeof err)) /* before reading anything: no matrix has it */
        return cts_die(EXIT_USAGE, "%s", err);
    struct cite_scan scan = {.want = id};
    json_t *m = cts_matrix_load_some(path, cite_wants, cite_case, &scan, err, sizeof err);
    if (!m) {
        json_decref(scan.found);
        return cts_die(EXIT_USAGE, "%s", err);
    }
    const json_t *row = json_object_get(json_object_get(json_object_get(m, "thresholds"), "rows"), id);
    if (!scan.found && row) /* a threshold row: cited with its base case, read in a second pass */
        return cite_threshold(m, path, id, row);
    if (!scan.found) {
        char near[3 * CTS_ID_MAX + 40];
        cts_nearest_text(&scan.near, near, sizeof near);
        json_decref(m);
        return cts_die(EXIT_USAGE, "no case '%s' in '%s' (%s)", id, path, near);
    }
    json_object_set_new(json_object_get(m, "cases"), id, scan.found);
    int rc = cts_cite(m, id, stdout);
    json_decref(m);
    return cite_written(rc);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2)
        return cts_die(EXIT_USAGE, "no command given (see sync-cts --help)");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("sync-cts %s (built with CUDA %d.%d)\n", CTS_REVISION, CUDART_VERSION / 1000,
               (CUDART_VERSION % 1000) / 10);
        return 0;
    }
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv); /* argv[0] is the command word */
    } commands[] = {{"list", cts_cmd_list},     {"run", cts_cmd_run},   {"env", cts_cmd_env},
                    {"log", cts_cmd_log},       {"render", cmd_render}, {"judge", cmd_judge},
                    {"cite", cmd_cite},         {"check", cmd_check},   {"diff", cts_diff_main},
                    {"thresholds", cts_cmd_thresholds}, {"variability", cts_variability_main},
                    {"fleet", cts_fleet_main},        {"model", cts_model_main},
                    {"ipc-export", cts_cmd_ipc_export}}; /* not for users: a worker starts it */
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(cmd, commands[i].name)) {
            optind = 1; /* the command's options start after its word */
            return commands[i].run(argc - 1, argv + 1);
        }
    return cts_die(EXIT_USAGE, "unknown command '%s' (see sync-cts --help)", cmd);
}

/* Whatever the command wrote on standard output reached it, or the run says it did not: a write
 * error there (a full disk, a closed pipe, /dev/full) is "cannot write", exit 2, as for --out
 * (at 5b7a8bd `list > /dev/full` exited 0: issue 43, D6). */
int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    errno = 0;
    if (rc != EXIT_USAGE && (fflush(stdout) != 0 || ferror(stdout))) { /* 2 said its own line */
        int e = errno;
        return cts_die(EXIT_USAGE, "cannot write standard output: %s", e ? strerror(e) : "a write failed");
    }
    return rc;
}

