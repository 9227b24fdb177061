/* What the CUDA documentation promises, clause by clause, and the judgement
 * of a measured case against it.
 *
 * A clause predicts one observation of a case (`about`): whether the call
 * waits for the held work (host), whether later work on a third blocking or
 * non-blocking stream waits for it, or whether a copy reads its source
 * during the call, or whether the call is rejected with an error (a
 * documented rejection: cts_family.rejects).  The prediction is guaranteed (the documentation says it
 * happens), guaranteed_not (it says it does not), may (it allows either) or
 * undocumented.  A case CONFORMS when every guarantee that applies holds and
 * at least one applies, DEVIATES when one is contradicted, and is RECORDED
 * (observed, not judged) when only "may" or "undocumented" apply.  Pure:
 * no CUDA call; tests/ drives it. */
#ifndef CTS_SPEC_H
#define CTS_SPEC_H

#include "cts.h"

#include <jansson.h>

enum cts_about { CTS_ABOUT_HOST, CTS_ABOUT_THIRD_BLOCKING, CTS_ABOUT_THIRD_NONBLOCKING,
                 CTS_ABOUT_SRC_AT_CALL, CTS_ABOUT_REJECTED,
                 CTS_ABOUT_CONCURRENT, /* the overlap family: A and B ran at once (overlaps, partial, shares) */
                 CTS_ABOUT_DATA_ORDERED, /* written cases: the copy moved the bytes the held work wrote */
                 CTS_ABOUT_LATER_SEES,   /* written cases: work after the call on its stream saw its bytes */
                 CTS_ABOUT_LANDED,       /* the destination was complete right after the call returned */
                 CTS_ABOUT_CAPTURE_ENDED, /* the capture family: the call ended (invalidated) the capture */
                 CTS_ABOUT_CAPTURED,      /* the capture family: its operation became a node of the graph */
                 CTS_ABOUT_ACCEPTED_CAPTURED, /* ... accepted, it became a node (refused: open) */
                 CTS_ABOUT_OP_AFTER,      /* work queued after the call on its own stream waited (held) */
                 CTS_ABOUT_OUTCOME,       /* a kind in the verdict's kind slot: its value is what the clause says
                                           * (its descriptor's `holds`, outcome.h) */
                 CTS_ABOUT_COUNT };
enum cts_pred { CTS_PRED_GUARANTEED, CTS_PRED_GUARANTEED_NOT, CTS_PRED_MAY, CTS_PRED_UNDOCUMENTED };
enum cts_conformance { CTS_CONF_NONE, CTS_CONFORMS, CTS_DEVIATES, CTS_RECORDED };

struct cts_clause {
    const char *id;    /* stable: cited by matrices, waivers and bug reports */
    const char *where; /* the document and section */
    const char *quote; /* the documentation's words */
    const char *url;
    const char *no_case; /* NULL, or why no case of the suite can test it */
};

/* The suite's clause table: harness/core/spec.c's, then each family's own
 * (cts_family.clauses) in family order.  cts_clause_at(i) for i below
 * cts_clause_total(); cts_clause_find: NULL for an id not in it. */
size_t cts_clause_total(void);
const struct cts_clause *cts_clause_at(size_t i);
const struct cts_clause *cts_clause_find(const char *id);
/* A clause's place in the table (cts_clause_total() for an id not in it). */
size_t cts_clause_index(const char *id);
/* The documentation the table quotes. */
extern const char cts_spec_documentation[];

const char *cts_about_name(enum cts_about a);       /* "host" */
const char *cts_pred_name(enum cts_pred p);         /* "guaranteed_not" */
const char *cts_conformance_name(enum cts_conformance c); /* "DEVIATES"; NULL for none */

/* What was observed, as far as a judgement needs it. */
struct cts_observed {
    enum cts_status status;
    struct cts_verdict verdict;  /* PASS: all of it; VARIES: what the repetitions agree on */
    struct cts_control control;  /* the same gate and markers with no call */
    int control_own;             /* ... with the case's own set-up and hooks (matrices of
                                  * revisions before that have none: controls were per pair) */
    int nreps;
    enum cts_host host[CTS_MAX_REPEAT]; /* each repetition's */
    enum cts_src src[CTS_MAX_REPEAT];
    enum cts_data data[CTS_MAX_REPEAT];     /* written cases: each repetition's data order */
    enum cts_reader reader[CTS_MAX_REPEAT]; /* ... and what the work after the call saw */
    enum cts_dst landed[CTS_MAX_REPEAT];    /* complete right after the return, where the call
                                             * waited or its stream ran on; else NA */
    int rejected;                /* the verdict names the error of a documented rejection */
    int per_thread;              /* stream 0 was the per-thread stream (the matrix's build) */
};

struct cts_judged {
    const char *clause;
    enum cts_about about;
    enum cts_pred pred;
    int holds; /* 1 the observation agrees, 0 it contradicts, -1 not observable here */
};

#define CTS_JUDGED_MAX 8

/* A judgement in progress: the clauses that speak of case c, so far.  A
 * family's judge (cts_family.judge) reads c, o and held_in_stream and adds
 * its clauses with cts_judge_add. */
struct cts_judge {
    const struct cts_case *c;
    const struct cts_observed *o;
    struct cts_judged *out;
    size_t n;
    int held_in_stream; /* the control: the op stream is ordered behind the held work */
};
/* Clause `clause` (an id of the table) predicts `p` about `a`; judged against j->o. */
void cts_judge_add(struct cts_judge *j, const char *clause, enum cts_about a, enum cts_pred p);

/* The clauses that speak of case c, each judged against o.  Returns the
 * case's conformance (CTS_CONF_NONE where o has no verdict) and fills
 * out[0..*n). */
enum cts_conformance cts_spec_judge(const struct cts_case *c, const struct cts_observed *o,
                                    struct cts_judged *out, size_t *n);

/* The same from a case as a matrix has it (its "status", "verdict" and
 * "evidence"), as the "spec" object the matrix records: {"conformance",
 * "clauses": [{"id", "about", "prediction", "holds"}]}. */
json_t *cts_spec_case_json(const struct cts_case *c, const json_t *case_json, int per_thread);
/* The clause table, as a matrix records it. */
json_t *cts_spec_table_json(void);

#endif
