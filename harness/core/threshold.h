/* Thresholds: the exact byte size where a case row's outcome changes
 * (docs/method.md "Thresholds").  The search is pure: it asks an answer
 * function for the outcome at a size (on the GPU, a full case run with its
 * proof; in the tests, a simulated answer) and never assumes the answer is
 * monotonic. */
#ifndef CTS_THRESHOLD_H
#define CTS_THRESHOLD_H

#include <stddef.h>

#include "cts.h"

#define CTS_TH_MAX_FLIPS 16
#define CTS_TH_RETRIES 2       /* an undecided probe is asked again, at most this many times */
#define CTS_TH_NEIGHBOURS 2    /* sizes checked on each side of an exact flip */

/* One probe: the outcome at one size. */
struct cts_th_probe {
    size_t bytes;
    enum cts_status status; /* PASS or VARIES: decided; FAIL and NOTSUPP: decided too (the
                             * product's answer); BROKEN, TIMEOUT, INCONCLUSIVE, CRASH: not */
    char symbol[32];        /* PASS: the verdict's cell symbol; VARIES: "A/W"; else "" */
    double call_us;         /* evidence: the upper median of its decided repetitions' call times */
    int asked;              /* how many times it was asked (1 + retries) */
};

/* The answer at `bytes`, into *out (bytes, status, symbol, call_us); 0, or
 * -1 when the harness cannot go on (the search stops, and says so). */
typedef int (*cts_th_answer_fn)(void *ctx, size_t bytes, struct cts_th_probe *out);

/* Where the outcome changes: `below` is the largest size known to give the
 * first outcome, `above` the smallest known to give the second.  exact:
 * above == below + 1.  Otherwise an undecided probe stood in the way. */
struct cts_th_flip {
    size_t below, above;
    char below_key[40], above_key[40]; /* cts_th_key of each side */
    int exact;
    /* Around an exact flip: the outcome of CTS_TH_NEIGHBOURS sizes on each
     * side agrees with its side (1), or some differ (0: the outcome
     * alternates there, e.g. with the size's alignment; recorded as seen). */
    int steady;
};

struct cts_th_search {
    size_t max_bytes;
    size_t nprobes, cap;
    struct cts_th_probe *probes; /* every size asked, in the order asked (malloc'ed) */
    size_t nflips;
    struct cts_th_flip flips[CTS_TH_MAX_FLIPS]; /* in size order */
    int truncated;   /* more flips than CTS_TH_MAX_FLIPS */
    int undecided;   /* probes still undecided after their retries */
    int stopped;     /* the answer function failed: the search is incomplete */
};

/* The coarse grid: 1, and 2^k - 1, 2^k, 2^k + 1 for every 2^k <= max
 * (sizes above max left out), ascending; returns the count written (at
 * most cap; call with cap 0 to count). */
size_t cts_th_grid(size_t max, size_t *out, size_t cap);
/* The outcome a probe is compared by: "PASS:Qc", "VARIES:A/W", "NOTSUPP";
 * "" where undecided. */
void cts_th_key(const struct cts_th_probe *p, char *buf, size_t len);
int cts_th_decided(const struct cts_th_probe *p);
/* Runs the search over 1..max: the grid, then a bisection of every change
 * between neighbouring decided sizes down to one byte (a third outcome met
 * on the way splits the interval in two), then the neighbours of each exact
 * flip.  Returns 0, or -1 (out of memory, or the answer function failed:
 * s->stopped).  cts_th_free releases s->probes. */
int cts_th_search(struct cts_th_search *s, size_t max, cts_th_answer_fn fn, void *ctx);
void cts_th_free(struct cts_th_search *s);

#endif
