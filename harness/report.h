/* Matrices (JSON through jansson), their Markdown rendering, the streamed
 * per-case log, and files written whole or not at all. */
#ifndef CTS_REPORT_H
#define CTS_REPORT_H

#include "cts.h"

#include <jansson.h>
#include <stdio.h>

#define CTS_MATRIX_SCHEMA "cuda-sync-cts/matrix"

/* env.c: needs a CUDA device. */
json_t *cts_env_collect(int device, char *err, size_t errlen);

/* matrix.c */
json_t *cts_case_json(const struct cts_case *c, const struct cts_result *r);
json_t *cts_matrix_new(json_t *environment, json_t *run, json_t *cases);
/* Loads and validates a matrix, plain or gzip-compressed; on failure returns
 * NULL and a one-line reason naming the file (and the case and member that
 * are wrong).  Every member a command reads has been checked: types,
 * presence, names (status, verdict, conformance, ...), times finite and not
 * negative, per-repetition arrays as long as evidence.repetitions, clause
 * ids in the matrix's clause table.  The tree lives in an arena that is
 * released when the process ends; json_decref on it is allowed but frees
 * nothing.  A large matrix is decoded by two threads; load while no other
 * thread uses jansson (the arena's bookkeeping is not locked). */
json_t *cts_matrix_load(const char *path, char *err, size_t errlen);
/* The same, case by case: each case, validated, is passed to each(ctx, id,
 * c) and dropped after the call (copy what is kept; non-zero return: out of
 * memory).  Returns the matrix with an empty "cases", validated as above;
 * NULL and a reason on failure (cases already passed are then to be
 * discarded).  A whole matrix's tree is never held. */
typedef int (*cts_case_fn)(void *ctx, const char *id, const json_t *c);
json_t *cts_matrix_load_each(const char *path, cts_case_fn each, void *ctx, char *err, size_t errlen);
/* 0 when id could be a case id, else -1 and a one-line reason (too long,
 * empty, a control character). */
int cts_case_id_check(const char *id, char *err, size_t errlen);
int cts_matrix_dump(const json_t *m, FILE *f);
/* The same, gzip-compressed (committed matrices are FILE.json.gz). */
int cts_matrix_dump_gz(const json_t *m, FILE *f);
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
/* html.c: one self-contained HTML5 page (nothing fetched); 0 or -1. */
int cts_render_html(const json_t *m, FILE *f);

/* order.c: the busy-placement columns of a report (NULL-terminated) and a
 * column's index (CTS_BUSY_COLUMNS if none); cases of a matrix in
 * declaration order (0 on a tie: callers break it by id); "host to device". */
#define CTS_BUSY_COLUMNS 8
extern const char *const cts_busy_columns[CTS_BUSY_COLUMNS + 1];
int cts_busy_column(const char *busy);
int cts_case_order(const json_t *a, const json_t *b);
/* A matrix's cases in that order (ties by id); malloc'ed, NULL if out of
 * memory.  Each row carries the members the reports read, looked up once
 * ("" where absent or not a string; conformance NULL where there is none). */
struct cts_row {
    const char *id;
    const json_t *c;
    const char *group, *function, *variant, *direction, *memory, *size_label, *kind, *op_stream, *busy,
        *status, *symbol, *reason, *conformance;
    json_int_t size;
    const json_t *idle, *spec; /* evidence.idle_call_us, spec */
    int rank[6];               /* api, direction, memory, kind, op stream, busy column */
};
struct cts_row *cts_sorted_cases(const json_t *m, size_t *n);
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
 * or -1 with a reason (a baseline of another GPU). */
json_t *cts_waivers_load(const char *path, char *err, size_t len);
int cts_check(const json_t *m, const json_t *waivers, const json_t *baseline, FILE *out, char *err,
              size_t len);

/* A file that appears at its path only when committed (temp file + rename,
 * in the directory of the file a symbolic link names; a replaced file keeps
 * its mode).  A device or pipe (/dev/null) is written directly.  Until it
 * is committed or aborted, its temporary file is removed if SIGINT, SIGTERM
 * or SIGHUP ends the process. */
struct cts_outfile {
    char path[4096];
    char tmp[4200];
    FILE *f;
    int slot;   /* in the cleanup registry; -1 for none */
    int direct; /* a device or pipe, written in place */
    int std;    /* standard output (cts_output_open "-") */
};
int cts_outfile_open(struct cts_outfile *o, const char *path, char *err, size_t errlen);
int cts_outfile_commit(struct cts_outfile *o, char *err, size_t errlen);
void cts_outfile_abort(struct cts_outfile *o);
/* The registry behind it, for any other temporary file (run.c): add its
 * path (returns a slot, -1 if the registry is full or the path too long)
 * as soon as the file exists, and remove the slot once the file is renamed
 * or unlinked; the handler then unlinks every registered path on SIGINT,
 * SIGTERM or SIGHUP and lets the signal end the process.  cts_cleanup_add
 * installs the handler (cts_cleanup_install does only that); signals
 * ignored at that time stay ignored. */
void cts_cleanup_install(void);
int cts_cleanup_add(const char *path);
void cts_cleanup_remove(int slot);

/* Two paths naming one file (st_dev and st_ino): 1, else 0. */
int cts_same_file(const char *a, const char *b);
/* Refuses an output (a path; "-" or NULL: standard output) that is one of
 * the input files, by identity: -1 and a one-line reason. */
int cts_output_check(const char *out, const char *const *inputs, size_t n, char *err, size_t errlen);
/* cts_output_check, then "-" (or NULL) as standard output, any other path
 * as cts_outfile_open; commit and abort as for an outfile. */
int cts_output_open(struct cts_outfile *o, const char *out, const char *const *inputs, size_t n, char *err,
                    size_t errlen);

/* log.c: JSON lines, flushed per event.  A case with "begin" and no "end"
 * is one the process died in. */
struct cts_log {
    FILE *f;
};
int cts_log_open(struct cts_log *l, const char *path, char *err, size_t errlen);
void cts_log_event(struct cts_log *l, const char *event, const char *id, json_t *extra);
void cts_log_close(struct cts_log *l);
/* Reads a log and returns, per case id, its status, or "CRASH" for a case
 * with a begin and no result (a torn last line is ignored); *crashes (if
 * not NULL) gets each CRASH case's reason.  NULL and a reason if it cannot
 * be read or is not a log this program wrote. */
json_t *cts_log_scan(const char *path, json_t **crashes, char *err, size_t errlen);

#endif
