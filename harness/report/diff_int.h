/* What diff's files share.  sync-cts diff is split by job:
 *   diff.c             the options, the matrices read, the output written, the
 *                      command
 *   diff_compare.c     the matrices' cases as summaries, the comparison
 *                      (classification, groups; the thresholds sections' flips)
 *   diff_render.c      what is shown of a case, and the comparison rendered as
 *                      text, Markdown or CSV
 *   diff_env.c         the environments side by side
 *   diff_thresholds.c  the threshold changes as text, Markdown or CSV
 *   diff_text.c        what they all write with: dupf (and cts_diff_oom), a
 *                      Markdown table cell, a CSV field
 *   diff_series.c      --series: the matrices as a series, one table of the cases
 *                      whose outcome changes along it, and where
 */
#ifndef CTS_DIFF_INT_H
#define CTS_DIFF_INT_H

#include "known.h"
#include "outcome.h"
#include "report.h"

#include <stddef.h>
#include <stdio.h>

/* G_KNOWN: an outcome that moved within the case's known variability (--known), counted apart. */
enum group { G_REGRESSED, G_FIXED, G_NEW_NOTSUPP, G_OLD_NOTSUPP, G_CHANGED, G_ONLY_A, G_ONLY_B, G_KNOWN, G_COUNT };

/* What diff keeps of a case. */
struct dcase {
    const char *id, *symbol; /* symbol NULL where null */
    const char *rejected;    /* verdict.rejected; NULL where absent */
    double call;             /* the median of evidence.call_us; NAN if none */
    signed char status;      /* enum cts_status */
    signed char conf;        /* enum cts_conformance: 0 where null or there is no spec */
    unsigned char has_spec;  /* "spec" is an object */
    unsigned char varies_on_landing; /* VARIES on landing alone (its reason names no other field) */
    unsigned char verdict[CTS_OUTCOME_COUNT]; /* the named verdict fields (cts_outcomes): their values, 0 for null */
};

struct change {
    const char *id;
    const struct dcase *a, *b; /* the case in the baseline and in the later matrix; NULL where absent */
    enum group group;
};

/* The thresholds sections (docs/matrix.md, `thresholds`) compared: which matrices have one. */
enum th_have { TH_NEITHER, TH_BOTH, TH_ONLY_A, TH_ONLY_B };
/* How a row's flips changed. */
enum th_kind { TH_MOVED, TH_FLIPS, TH_ROW_ONLY_A, TH_ROW_ONLY_B };

/* A row whose flips changed: one such per moved flip (TH_MOVED), else one per row. */
struct th_change {
    const char *row;
    const json_t *a, *b; /* the row in the baseline and in the later matrix; NULL where absent */
    size_t flip;         /* TH_MOVED: the flip's index (the same in both) */
    enum th_kind kind;
};

struct th_comparison {
    enum th_have have;
    struct th_change *v;
    size_t n, cap;
};

/* The baseline against one later matrix. */
struct comparison {
    int later; /* index of the later matrix: 1 is B */
    struct change *v;
    size_t n;
    size_t count[G_COUNT];
    struct th_comparison th; /* their thresholds sections */
    int known;               /* --known was given: G_KNOWN is shown */
};

/* An environment cell for a setting the matrix does not hold (made before it was recorded). */
#define CTS_DIFF_NOT_RECORDED "(not recorded)"

struct env_table {
    size_t rows, cols;
    char **label;  /* [rows] */
    char **cell;   /* [rows * cols] */
    int *differs;  /* [rows] */
};

/* --series: the cases whose outcome is not the same in every matrix. */
struct series {
    size_t n, cap;
    size_t coverage;           /* cases absent from some matrices, the same wherever present: not listed */
    const char **id;           /* [n], sorted */
    const struct dcase **cell; /* [n * nm]: the case in each matrix; NULL where absent */
    char **label;              /* [nm]: how the table names each matrix */
};

/* Strings kept for the whole run, in blocks. */
struct pool {
    char *block;
    size_t used, size;
};

/* One matrix: its summary, sorted by id, and the matrix without its cases. */
struct dmatrix {
    json_t *top;
    struct dcase *v;
    size_t n, cap;
    struct pool pool;
};

struct diff_doc {
    size_t nm;
    const char *const *paths;
    struct dmatrix *dm;
    json_t **m; /* each matrix without its cases */
    struct env_table env;
    struct comparison *cmp; /* [nm - 1]; none with --series */
    int series;             /* --series */
    int th_csv;             /* --section thresholds: the CSV of the threshold changes */
    struct series ser;
    const struct cts_known *known; /* --known; NULL without */
    const char *known_path;
};

/* The functions and the flag the files share (each is described where it is defined). */
/* diff_compare.c */
int cts_diff_summarize(void *ctx, const char *id, const json_t *c);
int cts_diff_cmp_dcase(const void *a, const void *b);
void cts_diff_dmatrix_free(struct dmatrix *d);
int cts_diff_compare(const struct dmatrix *base, const struct dmatrix *later, const struct cts_known *known,
                     struct comparison *cmp);
const char *cts_diff_status_of(const struct dcase *c);
const char *cts_diff_conformance(const struct dcase *c);
int cts_diff_outcome_differs(const struct dcase *a, const struct dcase *b);
int cts_diff_th_compare(const json_t *ma, const json_t *mb, struct th_comparison *t);
long long cts_diff_flip_bytes(const json_t *flip, const char *side);
const char *cts_diff_flip_outcome(const json_t *flip, const char *side);
const struct dcase *cts_diff_cases(const struct diff_doc *d, size_t i, size_t *n);
size_t cts_diff_changed(const struct comparison *c);
/* diff_text.c */
extern int cts_diff_oom;
char *cts_diff_dupf(const char *fmt, ...);
void cts_diff_md_cell(FILE *f, const char *s);
void cts_diff_csv_field(FILE *f, const char *s, int last);
/* diff_render.c */
char *cts_diff_outcome(const struct dcase *c);
void cts_diff_md_outcome(FILE *f, const struct dcase *c);
void cts_diff_render_text(const struct diff_doc *d, FILE *f);
void cts_diff_render_md(const struct diff_doc *d, FILE *f);
void cts_diff_render_csv(const struct diff_doc *d, FILE *f);
/* diff_env.c */
void cts_diff_env_text(const struct diff_doc *d, FILE *f);
void cts_diff_env_md(const struct diff_doc *d, FILE *f);
int cts_diff_env_table_build(struct env_table *t, json_t **m, size_t nm);
void cts_diff_env_table_free(struct env_table *t);
/* diff_thresholds.c */
void cts_diff_th_text(const struct comparison *cmp, FILE *f);
void cts_diff_th_md(const struct comparison *cmp, FILE *f);
void cts_diff_th_csv(const struct diff_doc *d, FILE *f);
/* diff_series.c */
int cts_diff_series_build(struct diff_doc *d);
void cts_diff_series_free(struct diff_doc *d);
void cts_diff_series_text(const struct diff_doc *d, FILE *f);
void cts_diff_series_md(const struct diff_doc *d, FILE *f);
void cts_diff_series_csv(const struct diff_doc *d, FILE *f);

#endif
