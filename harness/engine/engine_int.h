/* The measuring engine.
 *
 * One repetition of a case:
 *   1. the device is idle; sample bytes of the source get a fresh pattern v,
 *      those of the destination another value u;
 *   2. the gate kernel is launched on the busy placement and the host waits
 *      until it is spinning;
 *   3. the watchdog is armed; the call under test is issued; right after it
 *      returns the host claims the latch.  A successful claim proves the gate
 *      was closed for the whole call: the call did not wait for held work;
 *   4. while the gate is still closed: host samples of the destination are
 *      read (did the copy complete before returning?), host samples of the
 *      source are overwritten with w (did the copy take its bytes before
 *      returning?), and markers are launched on the op stream and on two third
 *      streams; each marker that runs before the gate opens provably does not
 *      wait for it;
 *   5. the gate opens, the device drains, and the destination's samples say
 *      whether the copy happened (v or w, never u) and when it read its source.
 * Every harness CUDA call is checked; a failure makes the repetition BROKEN,
 * never a verdict. */
/*
 * What the engine's files share.  The engine is split by phase:
 *   engine.c   set-up and teardown: buffers, the self-check, init and fini
 *   streams.c  the second host thread, the streams and the gates
 *   call.c     around the call under test: buffers, sample bytes, hooks
 *   trace.c    CTS_TRACE lines
 *   idle.c     the idle latency of a call
 *   control.c  the no-call control
 *   rep.c      one repetition: the gate, the call, what it returned or waited for
 *   drain.c    the end of a repetition: the drain, the markers' holds, the bytes
 *   written.c  data order: held work that writes the source, the reader after the call
 *   case.c     a case's repetitions, their retries and rechecks
 */
#ifndef CTS_ENGINE_INT_H
#define CTS_ENGINE_INT_H

#include "engine.h"

/* Formats a reason into buf (CTS_REASON_MAX bytes). */
void cts_eng_setf(char *buf, const char *fmt, ...);

/* Checks a harness CUDA call; on failure writes the reason and jumps out. */
#define HCHECK(reason, call)                                                                  \
    do {                                                                                      \
        cudaError_t err_ = (call);                                                            \
        if (err_ != cudaSuccess) {                                                            \
            cts_eng_setf((reason), "harness: %s returned %s", #call, cudaGetErrorName(err_)); \
            (void)cudaGetLastError();                                                         \
            goto fail;                                                                        \
        }                                                                                     \
    } while (0)

/* ---- streams.c: the second host thread, the streams, the gates ---------------
 * on_worker, worker_launch_* and busy_stream_gate keep their unprefixed names:
 * HCHECK quotes the call as written in its message ("harness: %s returned %s"),
 * so renaming them would change what a BROKEN repetition reports. */
int cts_eng_worker_start(struct cts_engine *e);
void cts_eng_worker_stop(struct cts_engine *e);
cudaError_t on_worker(struct cts_engine *e, cudaError_t (*fn)(void *), void *arg);
cudaError_t worker_launch_gate(struct cts_engine *e, int perthread,
                               unsigned long long budget_ns, unsigned seq);
cudaError_t worker_launch_marker(struct cts_engine *e, int perthread,
                                 struct cts_marker_record *rec, unsigned seq);
cudaStream_t cts_eng_op_stream(const struct cts_engine *e, enum cts_op op);
cudaError_t busy_stream_gate(struct cts_engine *e, enum cts_op op, enum cts_busy busy,
                             unsigned long long budget_ns, unsigned seq);
int cts_eng_wait_marker(const struct cts_engine *e, int i, unsigned seq, double limit_us);
int cts_eng_wait_gate_started(const struct cts_engine *e, unsigned seq);

/* ---- call.c: buffers, sample bytes, the family's hooks -------------------- */
int cts_eng_sample_offsets(size_t n, size_t off[3]);
cudaError_t cts_eng_peek_samples(struct cts_engine *e, const struct cts_case *c, enum cts_mem m,
                                 const void *base, const size_t *off, int nsamp, unsigned char *v,
                                 const char **ename);
int cts_eng_touchable_while_busy(enum cts_mem m);
cudaError_t cts_eng_prepare_samples(struct cts_engine *e, const struct cts_case *c, enum cts_mem sm,
                                    void *src, enum cts_mem dm, void *dst, const size_t *off,
                                    int nsamp, unsigned char v, unsigned char u, const char **ename);
/* The buffer of kind m for c (slot 0 source, 1 destination): the big one
 * where c is larger than the others (cts_eng_fit made it). */
void *cts_eng_buffer(struct cts_engine *e, const struct cts_case *c, enum cts_mem m, int slot);
/* The two buffers of memory kind m (CTS_MEM_NONE, CTS_MEM_OWN: none), made at the first case
 * that uses the kind, with the device idle: a process that runs none of a kind's cases (a
 * worker restarted after a crash, for the rest of a family of its own memory) does not make
 * them.  0, or -1 with why (the case is BROKEN); a kind the device lacks is left with
 * e->notsupp[m] saying why (its cases are NOTSUPP). */
int cts_eng_kind(struct cts_engine *e, enum cts_mem m, char *why);
/* Makes the big buffers c needs, if it needs them, with the device idle:
 * 0, or -1 with why. */
int cts_eng_fit(struct cts_engine *e, const struct cts_case *c, char *why);
int cts_eng_rejected_as_documented(const struct cts_case *c, const char *ename, char *why);
int cts_eng_hook(int (*fn)(const struct cts_case *, struct cts_scratch *, void *, const char **),
                 const struct cts_case *c, struct cts_scratch *s, cudaStream_t st, const char **ename);

/* ---- rep.c: one repetition -------------------------------------------------- */

enum { REP_DONE, REP_WINDOW_SHORT, REP_TIMEOUT_SHORT, REP_HOLD_TO_TRACK, REP_PERTURBED,
       REP_WAIT_TO_PROVE, REP_STARVED };

int cts_eng_run_rep(struct cts_engine *e, const struct cts_case *c, struct cts_result *res,
                    struct cts_rep *r);

/* What the phases of one repetition share (run_rep_inner). */
struct rep_state {
    struct cts_engine *e;
    const struct cts_case *c;
    struct cts_result *res;
    struct cts_rep *r;
    struct cts_scratch *scratch;
    enum cts_mem sm, dm;
    void *src, *dst;
    cudaStream_t ops;
    cudaStream_t third[2];
    size_t off[3];
    int nsamp;
    int latch_armed, markers, to_prove;
    unsigned seq;
    unsigned char v, u, w;  /* the source's pattern, the destination's, and the overwrite */
    double t0, t1;          /* the call issued, and returned */
    int closed;             /* the latch was claimed after the call: the gate was closed throughout */
    double starved_us;      /* how long the call's thread waited for a processor during it */
    double run_delay0_us;   /* the thread's run delay before the call (cts_run_delay_us) */
    double others_us;       /* a tracking attempt: the other threads' run delay over it (NAN: not read) */
    int others_tid;         /* ... the one that waited longest (0: none) */
    int dst_live, src_live; /* the host may touch them while the gate holds the device */
    int reader;             /* written cases: the reader was queued after the call */
    int landing;            /* the landing peek was queued right after the call (drain.c reads it) */
};

/* A phase that returns this leaves the repetition to the next phase. */
enum { REP_NEXT = -1 };

/* ---- drain.c: the end of one repetition ----------------------------------- */
int cts_eng_rep_finish(struct rep_state *st);

/* ---- written.c: data order (cases whose held work writes the source) ------------ */
/* The patterns and read-back buffers, of at least n bytes (made again
 * larger where a case needs it): 0, or -1 with why. */
int cts_eng_data_ready(struct cts_engine *e, size_t n, char *why);
void cts_eng_data_free(struct cts_engine *e);
/* With the device idle: the source gets BEFORE, the destination CLEAR, and
 * the held work is told to write AFTER into the source (e->data.write_to). */
cudaError_t cts_eng_data_setup(struct rep_state *st);
/* Right after the call (and the markers), on the op stream: the reader. */
cudaError_t cts_eng_data_reader(struct rep_state *st);
/* After the drain: the destination and the reader's copy judged (REP_NEXT,
 * or 0 with the repetition FAIL or BROKEN). */
int cts_eng_data_judge(struct rep_state *st);

/* ---- control.c ---------------------------------------------------------------- */
int cts_eng_measure_control(struct cts_engine *e, enum cts_op op, enum cts_busy busy,
                             const struct cts_case *c, struct cts_control_entry *ce);

/* ---- trace.c: CTS_TRACE -------------------------------------------------------- */

extern double cts_eng_trace_run_delay_us;
extern double cts_eng_trace_others_us; /* and the other threads' (NAN: not read), */
extern int cts_eng_trace_others_tid;   /* the longest waiter among them */
/* Where an attempt's wall went (us), for its line's `parts`: the family's
 * set-up, the start (the device idle, the samples and data-order patterns
 * set, the gate started), the call, what followed it while the gate was
 * closed or opening (the landing peek, the markers and their window, a
 * wait's proof), the finish (the drain, the holds, the bytes) and the
 * family's clean-up; and of the start and the finish, a written case's
 * data-order set-up and judging.  Every attempt sets them all (0: none). */
struct cts_trace_parts {
    double set_up, start, call, after, finish, clean_up, data_setup, data_judge;
};
extern struct cts_trace_parts cts_eng_trace_parts;
/* What an attempt is, for its line: a repetition's (the first attempt `rep`,
 * a further one `retry`), a recheck's or the managed confirming repetition's. */
enum cts_trace_phase { CTS_TRACE_REP, CTS_TRACE_RECHECK, CTS_TRACE_CONFIRM };
void cts_eng_trace_attempt(const struct cts_case *c, int rep, int rc, const struct cts_result *res,
                           const struct cts_rep *r, enum cts_trace_phase phase, int attempt,
                           double wall_us);

#endif
