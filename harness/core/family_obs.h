/* What the families that judge their own repetitions observe, and the pure
 * decisions on it (harness/core/classify.c): the capture family's outcome of a
 * captured call, the depth family's scans, the stall family's second thread,
 * the pool family's allocation; and, for the kinds registered since, one
 * generic observation (struct cts_kind_obs) that their descriptors judge.
 * Part of cts.h, which includes it where struct cts_rep (holding them) needs
 * them: include cts.h, not this. */
#ifndef CTS_FAMILY_OBS_H
#define CTS_FAMILY_OBS_H

#ifndef CTS_H
#error "family_obs.h is part of cts.h: include cts.h"
#endif

#include <stddef.h>

/* What a family observed for a kind of outcome that has no member of its own
 * in cts_rep and cts_verdict (outcome.h, CTS_AT_KIND: the kinds registered
 * since the registry could hold them): numbers named by the kind's evidence,
 * set with cts_obs_set (NAN: not seen); `kind` its descriptor, NULL where
 * the repetition has none. */
#define CTS_OBS_MAX 8
struct cts_outcome;
struct cts_kind_obs {
    const struct cts_outcome *kind;
    double v[CTS_OBS_MAX];
};

/* What a capture made of a call (the capture family; harness/capture.c):
 * GRAPH: it returned success and its operation is a node of the captured
 * graph (whose launch has the operation's effect); RAN: success, the capture
 * intact, nothing in the graph, and the effect (where it has one) there at
 * once; REFUSED: an error, the capture intact, no effect; ENDED: an error that
 * invalidated the capture; ACCEPTED_ENDED: success, yet the capture was
 * invalidated; LOST: success, the capture intact, but its effect neither at
 * once nor from the graph; REFUSED_EFFECT: an error, yet its effect is there
 * (at once or from the graph). */
enum cts_cap_outcome { CTS_CAP_NA, CTS_CAP_GRAPH, CTS_CAP_RAN, CTS_CAP_REFUSED, CTS_CAP_ENDED,
                       CTS_CAP_ACCEPTED_ENDED, CTS_CAP_LOST, CTS_CAP_REFUSED_EFFECT, CTS_CAP_OUTCOME_COUNT };
/* The capture's status right after the call (cudaStreamIsCapturing on the capturing stream). */
enum cts_cap_status { CTS_CAPST_NA, CTS_CAPST_ACTIVE, CTS_CAPST_INVALIDATED, CTS_CAPST_NONE, CTS_CAPST_COUNT };
/* One capture-family repetition, as observed (every field proven from a return
 * code, the graph, or the bytes: never from a time). */
struct cts_capture_obs {
    const char *rc;        /* the call's cudaError_t, by name ("cudaSuccess"); NULL: not measured */
    enum cts_cap_status after;
    const char *end;       /* cudaStreamEndCapture's cudaError_t, by name */
    unsigned nodes;        /* the captured graph's node types, bit (1 << cudaGraphNodeType) each */
    int node_count;        /* its nodes */
    int eager;             /* the effect before any launch: 2 all, 1 part, 0 none, -1 no effect to see */
    int launched;          /* ... after the graph's launch (the same scale; -1 no graph or no effect) */
    enum cts_cap_outcome outcome;
    /* A call made in a conditional node's body capture (cases/capture_body.c; body 0 elsewhere):
     * rc, after and node_count are the body's (its nodes less the harness's kernel), nodes the
     * parent graph's, end the first of the two cudaStreamEndCapture calls that failed (in the
     * order made; else cudaSuccess); beside them: */
    int body;
    enum cts_cap_status parent_after; /* the parent's capture status right after the call */
    const char *body_end, *parent_end; /* each cudaStreamEndCapture's cudaError_t, by name */
    unsigned body_nodes;               /* the body graph's node types (0: not read, no parent graph) */
    const char *instantiate, *launch;  /* the parent graph's cudaGraphInstantiate and launch (NULL: not made) */
    int body_released;                 /* the body graph had let go of a user object whose only reference it
                                        * held, once both ends had returned (1; 0 not; -1 not seen) */
    /* A capture begun with cudaStreamBeginCaptureToGraph into a graph holding one (empty) node, its
     * one dependency (cases/capture_rep.c; to_graph 0 elsewhere): nodes and node_count are the
     * captured ones (less that node); beside them, each 1 yes, 0 no, -1 not seen (no graph returned;
     * depends: no node captured): */
    int to_graph;
    int same_graph; /* cudaStreamEndCapture returned that graph's handle (0: another, or none) */
    int kept_node;  /* the returned graph still holds the node */
    int depends;    /* ... and it is that graph's only root: every captured node depends on it */
    int released;   /* the graph's user object (the graph holding its only reference) was released, its
                   * destructor run, by the time the end had returned (polled 10 ms where no graph came
                   * back): the driver let go of the caller's graph */
};
const char *cts_cap_outcome_name(enum cts_cap_outcome o); /* "graph"; NULL for NA */
const char *cts_cap_status_name(enum cts_cap_status s);   /* "active"; NULL for NA */
/* A capture repetition's outcome from its observations (pure; harness/core/classify.c). */
enum cts_cap_outcome cts_capture_judge(const struct cts_capture_obs *o);

/* The depth family (cases/depth.c): FOUND: `queued` calls returned while
 * their stream's work was held, and the next one waited; NONE: none waited
 * up to `max` calls; BESIDE: a call made beside another stream's full queue,
 * its verdict `host`. */
enum cts_depth { CTS_DEPTH_NA, CTS_DEPTH_FOUND, CTS_DEPTH_NONE, CTS_DEPTH_BESIDE, CTS_DEPTH_COUNT };
struct cts_depth_obs {
    enum cts_depth limit;
    long long queued;      /* FOUND: the depth; NONE: max */
    long long max;         /* the calls a scan makes at most; BESIDE: the full stream's depth */
    long long fill;        /* BESIDE: launches queued on the full stream before the call */
    long long tracked_queued; /* FOUND: the second scan's count */
    double blocked_us;     /* FOUND: the waiting call's time, at the first stall time */
    double tracked_us;     /* ... and at the longer one, which proved the wait */
    double stall_us, tracked_stall_us; /* the two stall times (FOUND, or BESIDE where the call waited) */
};
const char *cts_depth_name(enum cts_depth d); /* "found", "none", "beside"; NULL for NA */
/* One scan (a repetition makes two, the second with a longer stall time:
 * the time the watchdog waits after the last return before it opens the gate). */
struct cts_depth_scan {
    long long queued;   /* calls that returned while the gate was closed, in a row */
    int stopped;        /* the next one returned only after the gate opened */
    int early;          /* ... yet before the watchdog opened it: descheduled, it proves nothing */
    double blocked_us;  /* that call's time */
    double after_us;    /* ... from the opening to its return */
    double issue_us;    /* the median time of the calls that returned, as sampled */
};
/* One try of a call beside another stream's full queue (likewise two where it waits). */
struct cts_beside_try {
    int filled;     /* the full stream took exactly its depth first */
    int full;       /* ... and took no more: its next launch waited, or the filler stayed blocked */
    int returned;   /* the call returned while the gate was closed */
    int early;      /* it returned after the gate opened, yet before the watchdog opened it */
    double call_us;
};
/* Pure (classify.c): two scans, b's stall time grow_us longer than a's.
 * FOUND: both stopped, neither early, and the waiting call's time grew by
 * at least `fraction` of grow_us (it waited for the gate): a's count is the
 * depth, b's (which may differ by a few: pageable copies') evidence; NONE:
 * neither stopped; NA: undecided (measure again). */
enum cts_depth cts_depth_decide(const struct cts_depth_scan *a, const struct cts_depth_scan *b, double grow_us,
                                double fraction);
/* Pure: RETURNS, a (the first try) returned beside the full queue; WAITS, a
 * and b (b NULL: not made yet) both waited beside it, neither early, and b's
 * time grew by at least `fraction` of grow_us; NA: undecided.  *again: b is
 * wanted (a waited, and b is NULL). */
enum cts_host cts_beside_decide(const struct cts_beside_try *a, const struct cts_beside_try *b, double grow_us,
                                double fraction, int *again);

/* The stall family (cases/stall.c): while this thread is inside a call, a
 * second thread keeps making one cheap command on a non-blocking stream of
 * its own (docs/method.md, "Other-thread stalls").  STALLS: a command of the
 * second thread that began during the call, early enough that it would have
 * returned before the call did had it taken no longer than the slowest
 * command of the control (the same hold, no call), returned only after the
 * call did, and took more than twice that slowest command and 10 us more
 * than it; UNAFFECTED: no such command, and at least one began and returned
 * inside a call of 5 us or more; BRIEF: neither (the call was over before a
 * command of the second thread could begin and end inside it, or took less
 * than 5 us, about a kernel launch).  A command's time is its own: less what
 * its thread waited for a processor during it (schedstat's run delay), so
 * that a busy CPU cannot make a stall; and a window where the second thread
 * waited for a processor more than CTS_STALL_KEPT_US at once may have missed
 * the call's hold: it proves no UNAFFECTED or BRIEF (NA: measured again). */
enum cts_stall { CTS_STALL_NA, CTS_STALL_UNAFFECTED, CTS_STALL_STALLS, CTS_STALL_BRIEF, CTS_STALL_COUNT };
#define CTS_STALL_KEPT_US 50.0 /* the second thread's pace: kept longer, it missed a command's beginning */
const char *cts_stall_name(enum cts_stall s); /* "unaffected", "stalls", "brief"; NULL for NA */
struct cts_stall_obs {
    enum cts_stall verdict;
    long long commands;  /* the second thread's commands that began during the call */
    long long inside;    /* ... and returned before it did */
    double slowest_us;   /* the slowest of those that began during the call (their own time) */
    double control_us;   /* the slowest command of the control window (its own time) */
    double control_median_us;
    double stalled_us;   /* STALLS: the longest stalled command's own time */
    double tracked_us;   /* ... measured again with the longer stall time, where the call waited
                          * (which proved that the stalled command followed the call) */
    double stall_us, tracked_stall_us; /* the stall times (the watchdog's), where the call waited */
    double kept_us;      /* the second thread's longest wait for a processor during the call, at once,
                          * or the calling thread's whole wait in it, the longer (NAN: not known,
                          * schedstat unreadable) */
};
/* One command of the second thread: when it began and returned (host clock,
 * us), how long its thread waited for a processor during it, and between the
 * previous command's return and its beginning (run delay; NAN: not known). */
struct cts_stall_cmd {
    double begin_us, end_us, delay_us, gap_delay_us;
};
/* Pure (classify.c): the verdict of one window of the second thread's
 * commands (in the order made) against a call from call_begin_us to
 * call_end_us, the control's slowest command control_us, the calling thread
 * having waited caller_delay_us for a processor in the call (0 where that does
 * not matter: a call judged up to the release of the held work it waited
 * for); fills o's commands, inside, slowest_us, stalled_us, kept_us and
 * verdict (NA: either thread was kept from a processor longer than
 * CTS_STALL_KEPT_US, and nothing stalled: a stalled command that returned
 * inside a call whose own return was late is no proof that none stalled). */
enum cts_stall cts_stall_decide(const struct cts_stall_cmd *cmd, size_t n, double call_begin_us,
                                double call_end_us, double control_us, double caller_delay_us,
                                struct cts_stall_obs *o);
/* Pure: the control window from begin_us to end_us: the number of commands
 * begun in it, their slowest and median own time into *slowest and *median
 * (sorting times[], room for n), and the second thread's longest wait for a
 * processor in it into *kept (as cts_stall_decide's kept_us). */
size_t cts_stall_control(const struct cts_stall_cmd *cmd, size_t n, double begin_us, double end_us, double *times,
                         double *slowest, double *median, double *kept);
/* Pure: where the call waited, a (the first try's verdict) measured again as
 * b with a stall time grow_us longer: a's verdict, but STALLS only where b
 * stalled too and its stalled command's time grew by at least `fraction` of
 * grow_us (it waited for the call, which waited for the gate); else NA. */
enum cts_stall cts_stall_tracked(const struct cts_stall_obs *a, const struct cts_stall_obs *b, double grow_us,
                                 double fraction);

/* The pool family (cases/pool.c): a stream-ordered allocation from a tight
 * pool (its maximum size one block) on stream B while that block's free is
 * queued behind held work on stream A.  REFUSED: the call returned an error
 * (no block); OTHER: it returned another block; REUSED_AFTER: the freed
 * block, and work queued on B after the call waited for A's free (or the
 * call itself waited for it); REUSED_NOW: the freed block, and work on B
 * ran while A's free was still held. */
enum cts_pool { CTS_POOL_NA, CTS_POOL_REFUSED, CTS_POOL_OTHER, CTS_POOL_REUSED_AFTER, CTS_POOL_REUSED_NOW,
                CTS_POOL_COUNT };
const char *cts_pool_name(enum cts_pool p); /* "refused", "other_block", "reused_after", "reused_now" */
struct cts_pool_obs {
    enum cts_pool outcome;
    const char *error;   /* the call's error, by name (NULL: it succeeded) */
    int same_block;      /* it returned the block freed on A */
    int later_held;      /* a kernel queued on B after it was held while A's free was (-1: not seen,
                          * the call having waited) */
};
/* Pure (classify.c): the outcome from what was seen (ok: the call succeeded). */
enum cts_pool cts_pool_decide(int ok, int same_block, int later_held, int waited);

#endif
