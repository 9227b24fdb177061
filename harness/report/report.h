/* The reports made from a matrix (Markdown, CSV, HTML, cite, check, diff),
 * the case view they read it through, and the streamed per-case log.  The
 * matrix itself, read and written, and files written whole: matrix.h. */
#ifndef CTS_REPORT_H
#define CTS_REPORT_H

#include "cts.h"
#include "matrix.h"
#include "spec.h"

#include <jansson.h>
#include <stdio.h>

/* Markdown rendering, readable on its own. */
int cts_render_markdown(const json_t *m, FILE *f);
/* markdown.c: a string from a matrix in Markdown, as text (< > & as
 * entities; | ` \ and a ] before ( backslash-escaped; line breaks and
 * other control characters as spaces), or as a code span (a delimiter longer than any
 * run of backticks in it; in_table: | as \|). */
void cts_md_text(FILE *f, const char *s);
void cts_md_code(FILE *f, const char *s, int in_table);
/* csv.c: one row per case, sorted by id, after a header row; RFC 4180
 * (CRLF, fields with , " CR LF quoted).  0, or -1 on a write error. */
int cts_render_csv(const json_t *m, FILE *f);
/* csv.c: the `thresholds` member as CSV, one line a flip and one a row
 * without any (docs/matrix.md); 0, or -1 on a write error. */
int cts_render_csv_thresholds(const json_t *m, FILE *f);
/* html.c: one self-contained HTML5 page (nothing fetched); 0 or -1. */
int cts_render_html(const json_t *m, FILE *f);
/* html_text.c: s for HTML text or an attribute value: & < > " ' as
 * entities, and a line break as &#10;; in_md_table (an attribute in a
 * Markdown table cell): | as an entity too, and every control character as
 * a space. */
void cts_html_escape(FILE *f, const char *s, int in_md_table);

/* view.c: the busy-placement columns of a report (NULL-terminated) and a
 * column's index (CTS_BUSY_COLUMNS if none); "host to device". */
#define CTS_BUSY_COLUMNS 9
extern const char *const cts_busy_columns[CTS_BUSY_COLUMNS + 1];
/* The capture family's placements, its tables' columns. */
#define CTS_CAPTURE_COLUMNS 9
extern const char *const cts_capture_columns[CTS_CAPTURE_COLUMNS + 1];
int cts_capture_column(const char *busy); /* its index; CTS_CAPTURE_COLUMNS if none */
int cts_busy_column(const char *busy);
/* The peer family's placements (two devices), its tables' columns. */
#define CTS_PEER_COLUMNS 8
extern const char *const cts_peer_columns[CTS_PEER_COLUMNS + 1];
#define CTS_MAX_COLUMNS 9 /* the most columns of any of the three */
/* The columns of a case's table, and what their heading calls them. */
struct cts_columns {
    const char *const *names; /* NULL-terminated */
    int n;
    const char *title;
};
struct cts_case_view;
struct cts_columns cts_columns_of(const struct cts_case_view *v);
/* busy's column in cols (cols.n if none). */
int cts_column_in(struct cts_columns cols, const char *busy);
/* view.c: one case of a validated matrix as every report reads it (cite,
 * Markdown, CSV, HTML, diff, check), filled once from the case's JSON.
 * cts_matrix_load has checked every member read here, so each is present
 * and typed: a string member that is null is "" (has_symbol, has_reason and
 * sized tell null from empty where a report shows the difference).  Each
 * figure is defined once, here (docs/matrix.md, "The case view"). */
struct cts_case_rank { /* a case's place in each declared list; unknown values last */
    int api, direction, memory, kind, op_stream, busy;
};
struct cts_case_view {
    const char *id;
    const json_t *c; /* the case's JSON: for cite's per-repetition proof, which the view does not carry */
    const char *family, *group, *api, *function, *variant, *with, *direction, *memory, *allocator,
        *size_label, *kind, *copy_kind, *op_stream, *busy, *symbol, *reason,
        *capture, *capture_by; /* the capture family's modes; "" elsewhere */
    json_int_t size; /* 0 where null */
    int sized, has_symbol, has_reason;
    enum cts_status status;
    struct cts_verdict verdict;           /* null fields NA; rejected NULL where absent */
    int has_spec;                         /* "spec" is an object */
    enum cts_conformance conformance;     /* spec.conformance; NONE where null or no spec */
    const json_t *clauses;                /* spec.clauses (cts_case_clause); empty where no spec */
    json_int_t repetitions;               /* evidence.repetitions */
    double idle_us;                       /* evidence.idle_call_us; NAN where null */
    double call_us;                       /* cts_call_median of the evidence; NAN where no time */
    double release_to_return_us;          /* cts_json_median of evidence.release_to_return_us */
    struct cts_case_rank rank;
};
void cts_case_view(struct cts_case_view *v, const char *id, const json_t *c);
/* view.c: the ranks declaration order sorts by. */
struct cts_case_rank cts_case_rank(const struct cts_case_view *v);
/* Two cases of one group on one row of its table: the same memory, size, copy kind and op stream. */
int cts_same_call_variant(const struct cts_case_view *a, const struct cts_case_view *b);
/* One judged clause of a case (i < json_array_size(v->clauses)). */
enum cts_holds { CTS_HOLDS_NO, CTS_HOLDS_YES, CTS_HOLDS_OPEN };
struct cts_case_clause {
    const char *id, *prediction, *about;
    enum cts_holds holds; /* OPEN: not observable in this case, or left open */
};
struct cts_case_clause cts_case_clause(const struct cts_case_view *v, size_t i);
/* Two verdicts alike: every field, and the rejection (or none) in both. */
int cts_verdict_equal(const struct cts_verdict *a, const struct cts_verdict *b);
/* The matrix's environment as the reports head it ("" where absent). */
struct cts_env_view {
    const char *gpu, *compute_capability, *uuid;
    const char *driver; /* versions.driver; "unknown" where null */
    const char *driver_api, *runtime, *toolkit, *default_stream, *schedule, *module_loading, *suite_revision, *date;
    const char *hold; /* run.harness.hold: "kernel", "wait-value"; "" before it was recorded */
    const json_t *variables; /* settings.environment_variables: a string, or null where unset */
};
void cts_env_view(struct cts_env_view *e, const json_t *m);
/* Where the process saw several GPUs (environment.devices): each, and how each pair reaches the
 * other (NVLinks, peer access), as words into buf; 0, or -1 (buf "") where it saw one. */
int cts_devices_words(const json_t *m, char *buf, size_t len);
/* The keys of an object (none where it is absent), sorted; malloc'ed, NULL if out of memory. */
const char **cts_sorted_keys(const json_t *o, size_t *n);
/* A count with a comma every three digits ("2,097,152"), in buf; to f. */
const char *cts_grouped(char *buf, size_t len, long long n);
void cts_put_grouped(FILE *f, long long n);
/* One flip of a threshold row, in words: outcome(below) "up to" its bytes, "\u2192", outcome(above)
 * "from" its bytes, each size followed by unit; " (not exact)" or " (alternates)" where so.  The
 * Markdown and HTML thresholds tables each write an outcome their own way (outcome). */
void cts_put_flip(FILE *f, const json_t *fl, const char *unit, void (*outcome)(FILE *f, const char *o));
/* A size limit: whole MiB or KiB as such ("256 MiB"), else "1,234 B". */
void cts_put_limit(FILE *f, long long b);
/* An integer member (0 where absent). */
long long cts_json_int(const json_t *o, const char *key);
/* A threshold row's unit after a size: " B", or for a 2D copy searched by one
 * dimension (its `axis`) " B wide" or " rows"; and its limit with the unit. */
const char *cts_th_unit(const json_t *row);
void cts_put_th_limit(FILE *f, const json_t *row);
/* A matrix's cases in declaration order (ties by id); malloc'ed, NULL if out of memory. */
struct cts_case_view *cts_sorted_cases(const json_t *m, size_t *n);
/* A matrix loaded and validated as cts_matrix_load does, but holding of each
 * case only what the renderers show (its evidence reduced to the view's
 * times, the idle time and the latency), each string, verdict and spec kept
 * once however many cases share it, the cases in id order (a committed
 * matrix's own): what render and check read, some 40 %
 * of the memory of the whole tree.  Freed with json_decref.  NULL and a
 * one-line reason on failure. */
json_t *cts_matrix_load_shown(const char *path, char *err, size_t errlen);
/* A name from a table of { name, words } pairs ending in { NULL }; name itself if absent. */
struct cts_words {
    const char *name, *words;
};
const char *cts_words(const struct cts_words *table, const char *name);
const char *cts_dir_words(const char *token);
/* A matrix's string member, "" when absent or not a string; the same one level down. */
const char *cts_json_str(const json_t *o, const char *key);
const char *cts_json_path_str(const json_t *o, const char *a, const char *b);
/* The median of the numbers in a JSON array (nulls skipped; at most
 * CTS_MAX_REPEAT, as many as a case has repetitions), the mean of the two
 * middle ones for an even count; NAN if it holds none.  Every report's
 * "median" is this one (cite, csv, diff). */
double cts_json_median(const json_t *a);
/* A case's call time: the median of evidence.call_us over the repetitions
 * decided at the case's own timeout (rep_timeout_us equal to timeout_us, or
 * no rep_timeout_us), where any is; over all of them otherwise.  A
 * repetition measured with a longer timeout, to prove a wait, took as long
 * as that timeout: it says how long the gate was held, not the call. */
double cts_call_median(const json_t *evidence);

/* csv.c: one CSV field (RFC 4180), quoted where it holds a comma, a quote or a line break. */
void cts_csv_text(FILE *f, const char *s);

/* cite.c: case `id` of matrix m as one paragraph (one line: control
 * characters become spaces) for a bug report; -1 if m has no such case or
 * the write fails. */
int cts_cite(const json_t *m, const char *id, FILE *out);
/* A threshold row of the matrix (its thresholds section) as one paragraph:
 * the call, where its outcome flips with both sides' evidence, the sample
 * sizes' outcomes, where it was measured, and the judgement of the row's
 * base case (base: that case's JSON).  0, or -1 (no such row). */
int cts_cite_threshold(const json_t *m, const char *row, const json_t *base, FILE *out);
/* The three ids nearest to one a matrix lacks: the longest common prefix
 * first, then id order; an id sharing no prefix is never offered.  Add each
 * id of the matrix, then the text: "nearest: a, b, c" or "no case id begins
 * like it". */
struct cts_nearest {
    char id[3][CTS_ID_MAX];
    size_t lcp[3];
    int n;
};
void cts_nearest_add(struct cts_nearest *n, const char *query, const char *id);
void cts_nearest_text(const struct cts_nearest *n, char *out, size_t len);
void cts_nearest_ids(const json_t *m, const char *id, char *out, size_t len);
/* diff.c: `sync-cts diff A B [C ...]`, argv[0] being "diff"; returns the
 * exit status: 0 no case changed, 1 some did, 2 bad input. */
int cts_diff_main(int argc, char **argv);

/* check.c: a waivers file, validated (NULL and a one-line reason if not);
 * and the check of a judged matrix: prints each deviation (waived ones as
 * waived) and, against a baseline of the same GPU, each changed verdict.
 * Every case that FAILed or has no verdict is listed and fails it too.
 * Returns how many fail the check (unwaived deviations + changed verdicts +
 * cases without a verdict),
 * or -1 with a reason (a baseline of another GPU).  With known variability
 * (known.h; NULL: none), a verdict that moved within it is counted apart. */
json_t *cts_waivers_load(const char *path, char *err, size_t len);
struct cts_known;
int cts_check(const json_t *m, const json_t *waivers, const json_t *baseline, const struct cts_known *known,
              FILE *out, char *err, size_t len);

/* log.c: JSON lines, flushed per event.  A case with "begin" and no "end"
 * is one the process died in. */
struct cts_log {
    FILE *f;
    int err; /* the errno of its first failed open or write; 0 while all went well */
};
int cts_log_open(struct cts_log *l, const char *path, char *err, size_t errlen);
void cts_log_event(struct cts_log *l, const char *event, const char *id, json_t *extra);
/* Closes it: 0, or -1 where an open, a write or the close failed (l->err). */
int cts_log_close(struct cts_log *l);
/* Reads a log and returns, per case id, its status, or "CRASH" for a case
 * with a begin and no result (a torn last line is ignored); *crashes (if
 * not NULL) gets each CRASH case's reason.  NULL and a reason if it cannot
 * be read or is not a log this program wrote. */
json_t *cts_log_scan(const char *path, json_t **crashes, char *err, size_t errlen);

#endif
