/* The verdict's fields: one descriptor a kind of outcome, registered once,
 * in one table (outcome.c; a self-measured family's kind in its own file,
 * outcomes/<kind>.c, listed by a CTS_KIND line of apis.def, as apis.def
 * registers calls).  Everything that writes, reads, checks, combines,
 * compares, tabulates or cites a verdict loops over cts_outcomes[] instead of
 * naming the fields: the matrix's writer (matrix.c) and validator
 * (matrix_check.c), the repetitions' combination (classify.c), the case view
 * (view.c), CSV, diff and cite.  A new kind of outcome is its file and its
 * CTS_KIND line: its value lives in struct cts_verdict's kind slot
 * (CTS_AT_KIND), its family's observations in struct cts_rep's obs. */
#ifndef CTS_OUTCOME_H
#define CTS_OUTCOME_H

#include "cts.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* A kind's `at` where its value has no member of its own in struct cts_verdict: the verdict's kind
 * slot (kind, kind_value, kind_count) holds it, and its family's observations are struct cts_rep's
 * obs, named by its first evidence's names (cts_obs_set). */
#define CTS_AT_KIND ((size_t)-1)

/* A row of the cell legend (what a symbol in a matrix's cells means), written
 * once for the Markdown and HTML renderings (report/legend.c gathers them). */
struct cts_legend_row {
    const char *symbols; /* as the Markdown's first column shows them ("`O` `P` `C` `S`"); NULL: HTML only */
    const char *cell;    /* the HTML legend's sample cell ("O") */
    const char *css;     /* its class there (the cells' classes: "w", "a", "q", "u", "v", "ns", "bad") */
    const char *meaning; /* Markdown inline text: `code` spans, no table pipes */
};

/* A self-measured kind's evidence: evidence.<key>, an object of arrays
 * (names[k]), a value a repetition (value(rep, k)), left out of a case where
 * no repetition has(rep).  The matrix's writer (matrix.c) and validator
 * (matrix_check_evidence.c) loop over the kinds' evidence. */
struct cts_evidence {
    const char *key;
    const char *const *names;
    int count;
    int (*has)(const struct cts_rep *);
    json_t *(*value)(const struct cts_rep *, int k);
    /* The validator's rule.  NULL: every member of evidence.<key> is an array of numbers or nulls, one
     * a repetition (older matrices have other members).  Else each names[k] is there, such an array,
     * and each element e not null is what element(k, e) allows: it returns NULL, or what e must be
     * ("true, false or null"). */
    const char *(*element)(int k, const json_t *e);
    int since; /* names[since..count) may be absent (members added after older matrices were written) */
};

#define CTS_EVIDENCE_MAX 3 /* a kind's evidence at most */
struct cts_outcome {
    const char *key;          /* its member of a case's "verdict" in the matrix ("pool") */
    const char *const *names; /* each value's name, [0] NULL (NA: null, or left out); NULL: a string
                               * (the documented rejection's error), NULL where NA */
    int count;                /* values, NA included (0 for a string) */
    size_t at;                /* offsetof(struct cts_verdict, <member>): an enum, or a const char *;
                               * CTS_AT_KIND: the verdict's kind slot (its count too) */
    int always;               /* in every case's verdict, null where NA; else only where it has a value */
    const char *csv;          /* its CSV column (render --format csv); NULL: none */
    /* A count that some values carry (the depth family's "queued" with found
     * and none): its key, offsetof its long long, and bit (1 << value) of each
     * value that carries it. */
    const char *count_key;
    size_t count_at;
    unsigned count_with;
    /* A self-measured family's kind: the cell symbol where a case has a value of it (cts_outcome_symbol;
     * the kinds are the families' own, so no case has two): each value's letter ([0] "?", out of
     * range too), after the call's host letter and a colon where after_host ("A:S"); NULL: the
     * engine's fields, which the symbol composes (classify.c). */
    const char *const *letters;
    int after_host;
    /* A self-measured family's kind: its row of the cell legend, after the engine's (NULL: the
     * engine's fields, whose rows report/legend.c keeps). */
    const struct cts_legend_row *legend;
    /* ... and its evidence (the overlap family's two: a pair's and the staged copies'; the capture
     * family's three); NULL: none. */
    const struct cts_evidence *evidence[CTS_EVIDENCE_MAX];
    /* ... and how one repetition becomes a verdict (cts_rep_verdict, classify.c): where r holds this kind's
     * outcome, its fields of v set (its value, and what goes with it: the call's host letter, a count)
     * and 1; else 0 (the next kind's, or the engine's fields then). NULL: the engine's fields. */
    int (*from_rep)(const struct cts_rep *r, struct cts_verdict *v);
    /* A kind in the kind slot (CTS_AT_KIND): its family's name, and the paragraph `sync-cts cite`
     * writes of a case of it (case c of a matrix, as read): cite_setup what was done, then, where
     * the case has a verdict, cite_result what came of it; cite closes with the symbol and the
     * repetitions.  Plain text, no newline. */
    const char *family;
    void (*cite_setup)(FILE *f, const json_t *c);
    /* ... and, for a clause its family's judge names about the outcome (spec.h, CTS_ABOUT_OUTCOME):
     * 1 where `value` is what the clause promises, 0 where it is not; NULL: the clause is not judged
     * by it (RECORDED). */
    int (*holds)(int value);
    void (*cite_result)(FILE *f, const json_t *c);
};

/* The kinds apis.def registers, and with the engine's ten fields every entry of cts_outcomes. */
enum {
    CTS_OUTCOME_KINDS = 0
#define CTS_KIND(name) +1
#include "apis.def"
};
#define CTS_OUTCOME_COUNT (10 + CTS_OUTCOME_KINDS)
/* In the order a VARIES reason names them: the engine's fields, then the kinds (apis.def). */
extern const struct cts_outcome *const cts_outcomes[CTS_OUTCOME_COUNT];
/* For each field o of cts_outcomes, in that order. */
#define CTS_FOR_EACH_OUTCOME(o)                                                                            \
    for (const struct cts_outcome *const *o##_at = cts_outcomes, *o;                                       \
         o##_at < cts_outcomes + CTS_OUTCOME_COUNT && ((o) = *o##_at) != NULL; o##_at++)
/* The entry whose key is `key`; NULL if none. */
const struct cts_outcome *cts_outcome_find(const char *key);
/* Its place in cts_outcomes; -1 if it is not there. */
int cts_outcome_index(const struct cts_outcome *o);

/* A field's value in v: the enum's (0: NA); for a string, 1 where set. */
int cts_outcome_get(const struct cts_verdict *v, const struct cts_outcome *o);
/* Its name ("waits"), the string itself, or NULL where NA ("?" out of range). */
const char *cts_outcome_name(const struct cts_verdict *v, const struct cts_outcome *o);
/* The value whose name is `name`; 0 (NA) where none is (or name is NULL). */
int cts_outcome_parse(const struct cts_outcome *o, const char *name);
/* Sets a named field's value (and 0 its count). */
void cts_outcome_set(struct cts_verdict *v, const struct cts_outcome *o, int value);
/* Clears the field (NA; its count 0). */
void cts_outcome_clear(struct cts_verdict *v, const struct cts_outcome *o);
/* The cell symbol of v's self-measured outcome into buf (1), host being the call's "A", "W" or "?";
 * 0 where v has none (the engine's symbol then: cts_verdict_symbol). */
int cts_outcome_symbol(const struct cts_verdict *v, const char *host, char *buf, size_t len);
/* Whether the field's value carries its count, and where that count is. */
int cts_outcome_counted(const struct cts_verdict *v, const struct cts_outcome *o);
long long *cts_outcome_count_of(struct cts_verdict *v, const struct cts_outcome *o);
long long cts_outcome_count_in(const struct cts_verdict *v, const struct cts_outcome *o);

/* A kind in the kind slot: its family records what a repetition observed by name (one of the kind's
 * first evidence's names): 0, or -1 where the kind has no such name.  The first value set for a
 * kind makes r->obs that kind's, every other value NAN. */
int cts_obs_set(struct cts_rep *r, const struct cts_outcome *o, const char *name, double x);
/* The value named so, NAN where not set or r->obs is another kind's. */
double cts_obs_get(const struct cts_rep *r, const struct cts_outcome *o, const char *name);

#endif
