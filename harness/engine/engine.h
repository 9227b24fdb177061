/* The measuring engine: owns the CUDA context, the harness streams and
 * buffers, the latch, and runs one case at a time. */
#ifndef CTS_ENGINE_H
#define CTS_ENGINE_H

#include "cts.h"
#include "hold.h"
#include "kernels.h"
#include "latch.h"

#include <cuda.h>
#include <jansson.h>
#include <stdatomic.h>

#include <cuda_runtime_api.h>

#define CTS_BUF_BYTES ((16u << 20) + 4096u)
/* Cases larger than the buffers (written cases at 64 MiB) get two of these
 * of each kind they use, made before their first idle measurement. */
#define CTS_BIG_BYTES ((64u << 20) + 4096u)

/* How a case is timed (recorded in every matrix under run.harness). */
#define IDLE_WARMUP 2
#define IDLE_SAMPLES 5
#define TIMEOUT_FLOOR_US 200.0   /* the watchdog never opens the gate sooner */
#define TIMEOUT_FACTOR 2.0       /* ... nor before 2x the call's slowest idle time, */
#define TIMEOUT_FACTOR_MANAGED 3.0 /* 3x for a call on managed memory: while a kernel runs,
                                  * such calls that do not wait took up to 15x their idle
                                  * time (H100, 580.159.04: a 64 KiB managed copy, 60 us
                                  * idle, took 300-1,400 us in half the repetitions) */
#define WINDOW_FLOOR_US 100.0    /* markers get at least this long to run */
#define WINDOW_FACTOR 2.0        /* ... and 2x the call's slowest idle completion */
#define CONTROL_WINDOW_US 500.0  /* the no-call control waits this long */
#define PROBE_BUDGET_NS 50000000ull /* the launch probe's gate ends itself after 50 ms */
#define PROMPT_FACTOR 2.0        /* once the gate opens, held work runs and a waiting call */
#define PROMPT_SLACK_US 100.0    /* returns within 2x its idle time plus this, or the wait */
#define STARVED_RETRIES 6        /* a starved call is measured again with twice the timeout,
                                  * at most this many times a repetition: under CPU load one
                                  * waiting attempt in six was starved (H100, 32 busy threads) */
#define WAIT_RETRIES 3           /* was too short: it is doubled, at most this many times a
                                  * repetition (a longer window carries over to the next; each
                                  * repetition starts from the case's first timeout) */
/* Floors this short are safe because "waits" and "held" are proven both ways:
 * a wait that proves too short is measured again, longer, never misreported. */
#define WAIT_MAX_US 1000000.0
#define RECHECK_MIN_US 5000.0    /* a timed verdict the latch contradicts in its case is
                                  * measured again with >= 10x its wait, and >= this */
#define SLOWED_FACTOR 3.0        /* a managed-memory copy that does not wait took up to 2.6x its
                                  * idle time while a kernel ran, or 2.8 ms more (H200 quiet
                                  * matrix at bb8683a, 2,065 such cases): a starved wait's
                                  * recheck holds this much of its idle time, RECHECK_MIN_US more */
#define TRACK_FRACTION 0.5       /* a wait is proven when, re-measured with a longer timeout, the
                                  * call's time grew by at least this much of the growth: every
                                  * late wait, and a case's first prompt one */

struct cts_selfcheck {
    int ran;
    int gate_holds;          /* a marker behind the gate on its own stream was held */
    int streams_independent; /* markers on independent harness streams ran */
    char detail[CTS_REASON_MAX];
    double marker_idle_us;   /* launch to done on an idle GPU, median */
    double wake_us;          /* slowest return of a synchronize after its gate opened: how
                              * late a waiting host thread wakes up under this schedule
                              * (recorded, not used in any bound) */
    int launches_async;      /* a launch returned while its kernel ran (the launch probe) */
};

/* A second host thread through which busy work is issued (busy_thread_*):
 * it runs one job at a time, on request, and makes only the CUDA calls its
 * jobs make (launches).  The watchdog is a different thread and makes none. */
struct cts_worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running, quit, pending, device;
    cudaError_t (*fn)(void *);
    void *arg;
    cudaError_t result;
};

struct cts_control_entry {
    int done;
    enum cts_status status; /* PASS, or BROKEN with a reason */
    char reason[CTS_REASON_MAX];
    struct cts_control control;
};

struct cts_engine {
    int device;
    int prefetch_managed; /* managed memory is prefetched to the device before each call */
    cudaStream_t blocking[3];    /* [0] op, [1] busy, [2] third */
    cudaStream_t nonblocking[3]; /* likewise */
    volatile unsigned int *flag_host;
    unsigned int *flag_dev;
    struct cts_gate_record *gate_host, *gate_dev;
    struct cts_marker_record *mk_host, *mk_dev;
    unsigned char *poke_host, *poke_dev; /* mapped bytes the peek kernel reads samples into */
    /* Landing: right after a copy returns, a peek on a fourth non-blocking stream
     * reads its device-side destination's samples into these (poke's page, +32). */
    cudaStream_t landing;
    unsigned char *land_host, *land_dev;
    void *buf[CTS_MEM_COUNT][2];
    size_t buf_bytes; /* each buffer's size */
    void *big[CTS_MEM_COUNT][2]; /* CTS_BIG_BYTES each, made at the first case that needs them */
    char notsupp[CTS_MEM_COUNT][CTS_REASON_MAX]; /* why a memory kind is missing */
    struct cts_latch latch;
    struct cts_worker worker;
    struct {
        struct cts_engine *e;
        unsigned seq;
        double budget_us;
        void *write_to; /* busy_same_hostfn of a written case: the source it writes as its last act */
        size_t write_bytes;
    } hostfn_gate; /* the one host-function gate in flight (busy_hostfn) */
    /* Data order (written.c), made at the first case whose held work writes
     * (c->writes): the patterns (harness/core/pattern.h, seed 0) on the host,
     * buf_bytes each, and where the destination and the reader's copy of it
     * are read back. */
    struct {
        size_t bytes;             /* each pattern's and buffer's size */
        unsigned char *before, *after, *clear;
        unsigned char *read_host; /* pinned: a device-side destination, read back */
        unsigned char *snap_host; /* pinned: the reader's copy, on the host */
        void *snap_dev;           /* the reader kernel's copy of a device-side destination */
        void *after_dev;          /* AFTER on the device: what a copy writer copies (own memory) */
        void *write_to;           /* this repetition's held work writes here (NULL: none) */
        const struct cts_case *write_own; /* ... or into this case's own memory, by its own_copy */
        size_t write_bytes;
        const void *read_from;    /* the host-function reader copies this to snap_host */
        size_t read_bytes;
    } data;
    enum cts_hold hold;            /* how work is held (hold.h) */
    _Atomic double hold_deadline_us; /* wait-value: when the deadline thread opens the flag */
    atomic_uint hold_seq;          /* ... for the wait of this gate */
    atomic_int hold_quit;
    int hold_running;
    pthread_t hold_thread;
    CUresult hold_error;           /* the stream memory operation that failed, if one did */
    unsigned int seq;
    struct cts_selfcheck selfcheck;
    struct cts_control_entry control[CTS_OP_COUNT][CTS_BUSY_COUNT];
    char broken[CTS_REASON_MAX]; /* set if the engine cannot measure anything */
    char unmeasurable[CTS_REASON_MAX]; /* set if nothing can be held here: every case NOTSUPP */
    char need_why[CTS_REASON_MAX];
    /* CTS_TRACE: when each part of cts_engine_init ended (cts_now_us; 0: not reached), for
     * the worker's start line (worker.c): context, memory, warm, probe, selfcheck, wake. */
    double init_at[7];
};

/* 0 on success; otherwise engine->broken says why.  Each memory kind gets
 * two buffers of CTS_BUF_BYTES (the case table's largest size and a page),
 * or of buf_bytes (the threshold search's largest probe and a page), made at
 * the first case that uses the kind (cts_eng_kind). */
int cts_engine_init(struct cts_engine *e, int device);
int cts_engine_init_sized(struct cts_engine *e, int device, size_t buf_bytes);
void cts_engine_fini(struct cts_engine *e);

/* Idle latency of the call of c (every busy placement of one call shares it). */
struct cts_idle {
    int done;
    enum cts_status status; /* PASS, or why it could not be measured */
    char reason[CTS_REASON_MAX];
    double call_us, call_max_us, complete_us, complete_max_us;
    /* The family's cheap() calls: the call from 1, 4 and 16 threads at once
     * (harness/engine/latency.c), or latency_error. */
    struct cts_latency latency[CTS_LATENCY_COUNTS];
    char latency_error[CTS_REASON_MAX];
};
void cts_engine_idle(struct cts_engine *e, const struct cts_case *c, struct cts_idle *idle);

/* The latency of c's call from 1, 4 and 16 threads at once, the device
 * idle, into idle->latency (or idle->latency_error); latency.c. */
void cts_engine_latency(struct cts_engine *e, const struct cts_case *c, struct cts_idle *idle);

/* Runs c `repeat` times behind the gate and classifies it. */
void cts_engine_run_case(struct cts_engine *e, const struct cts_case *c, const struct cts_idle *idle,
                         int repeat, struct cts_result *res);

/* CTS_TRACE=1 (trace.c): the case's line at its end, `trace ID case: STATUS
 * wall W measure engine|own`, W the microseconds the worker spent on it (its
 * idle measurement included, where it made one); nothing without CTS_TRACE. */
void cts_engine_trace_case(const struct cts_case *c, enum cts_status status, int own, double wall_us);
int cts_eng_trace_on(void); /* CTS_TRACE set: the trace lines (trace.c) */
void cts_engine_trace_start(const struct cts_engine *e, size_t first, double t0, double found, double env);

/* env.c: the environment a matrix records; needs a CUDA device. */
json_t *cts_env_collect(int device, char *err, size_t errlen);

#endif
