/* cuda-sync-cts: the types every part of the suite shares.
 *
 * A case is one CUDA call (API, direction, memory kind, size, copy kind, op
 * stream) issued while a gate kernel holds one busy placement.  Cases are
 * declared once, by a family's generator (cases/), and everything else (the
 * run table, `list`, the CTest registration, the matrix) is derived from that
 * declaration. */
#ifndef CTS_H
#define CTS_H

#include <stddef.h>
#include <stdint.h>

#define CTS_ID_MAX 128
#define CTS_REASON_MAX 512
#define CTS_MAX_REPEAT 16
#define CTS_SCHEMA_VERSION 1

/* ---- status taxonomy (docs/method.md "Statuses") --------------------------------
 * PASS, VARIES, FAIL and NOTSUPP speak of the product; BROKEN, TIMEOUT,
 * INCONCLUSIVE and CRASH say the suite could not produce a verdict. */
enum cts_status {
    CTS_PASS,         /* ran; every repetition agreed; the verdict is recorded */
    CTS_VARIES,       /* ran; every repetition was proven, and they differ (intermittent product
                       * behaviour); the verdict keeps what they agree on */
    CTS_FAIL,         /* the call under test returned an error, or copied wrong data */
    CTS_NOTSUPP,      /* cannot run on this device or runtime; reason given */
    CTS_BROKEN,       /* the harness failed (a harness CUDA call, the gate, the latch) */
    CTS_INCONCLUSIVE, /* a repetition stayed undecided ("held" or "slow"?) after its retries */
    CTS_TIMEOUT,      /* the device did not drain within the limit after the gate opened */
    CTS_CRASH,        /* the process died inside the case (log: begin with no end) */
    CTS_STATUS_COUNT
};

const char *cts_status_name(enum cts_status s);
int cts_status_parse(const char *name); /* -1 if unknown */

/* ---- case parameters ---------------------------------------------------- */
enum cts_api { /* one per call, declared in harness/core/apis.def */
#define X(name, token, function, takes_stream, since, documented) CTS_API_##name,
#include "apis.def"
    CTS_API_COUNT
};
/* Whether an API takes a stream (an op stream) or has one implied. */
int cts_api_takes_stream(enum cts_api a);
/* CUDART_VERSION of the runtime that introduced the call's form, 0 if older than 11.0. */
int cts_api_since(enum cts_api a);
/* Whether a clause of the documentation speaks of the call in particular
 * (apis.def's `documented`); 0: only RT-SYNC-ANY does, its cases RECORDED. */
int cts_api_documented(enum cts_api a);
/* CTS_DIR_NONE, CTS_KIND_NONE, CTS_MEM_NONE: the parameter does not apply
 * to the case (a memset has no direction); its id segment is left out. */
enum cts_dir { CTS_DIR_NONE = -1, CTS_DIR_H2D, CTS_DIR_D2H, CTS_DIR_D2D, CTS_DIR_H2H, CTS_DIR_COUNT };
enum cts_mem {
    CTS_MEM_OWN = -2,   /* the family's own memory (a symbol, an array): see cts_family.poke */
    CTS_MEM_NONE = -1,
    CTS_MEM_PAGEABLE,   /* malloc'ed, not registered */
    CTS_MEM_PINNED,     /* cudaMallocHost */
    CTS_MEM_PORTABLE,   /* cudaHostAlloc(cudaHostAllocPortable) */
    CTS_MEM_MAPPED,     /* cudaHostAlloc(cudaHostAllocMapped) */
    CTS_MEM_WC,         /* cudaHostAlloc(cudaHostAllocWriteCombined) */
    CTS_MEM_REGISTERED, /* malloc'ed, then cudaHostRegister */
    CTS_MEM_MANAGED,    /* cudaMallocManaged */
    CTS_MEM_DEVICE,     /* cudaMalloc */
    /* ... with CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set (cuPointerSetAttribute, once, at
     * allocation): "always synchronize memory operations that are synchronous" */
    CTS_MEM_DEVICE_SYNC, /* cudaMalloc, SYNC_MEMOPS set */
    CTS_MEM_PINNED_SYNC, /* cudaMallocHost, SYNC_MEMOPS set */
    CTS_MEM_COUNT
};
enum cts_kind { CTS_KIND_NONE = -1, CTS_KIND_EXPLICIT, CTS_KIND_DEFAULT, CTS_KIND_COUNT };
enum cts_op {
    CTS_OP_IMPLIED,     /* synchronous API: the stream is implied */
    CTS_OP_NULL,        /* the handle 0 */
    CTS_OP_LEGACY,      /* the handle cudaStreamLegacy */
    CTS_OP_PERTHREAD,   /* the handle cudaStreamPerThread */
    CTS_OP_BLOCKING,    /* a stream created with cudaStreamDefault */
    CTS_OP_NONBLOCKING, /* a stream created with cudaStreamNonBlocking */
    CTS_OP_COUNT
};
enum cts_busy {
    CTS_BUSY_SAME,        /* the op stream itself */
    CTS_BUSY_LEGACY,      /* the legacy default stream */
    CTS_BUSY_BLOCKING,    /* another blocking stream */
    CTS_BUSY_NONBLOCKING, /* another non-blocking stream */
    CTS_BUSY_PERTHREAD,   /* this thread's per-thread default stream */
    /* Busy work issued from a second host thread (the engine's worker):
     * only where a family asks for them (cts_emit_threads). */
    CTS_BUSY_THREAD_LEGACY,    /* the legacy default stream, from the other thread */
    CTS_BUSY_THREAD_PERTHREAD, /* the other thread's per-thread default stream */
    /* The held work is a host function (cudaLaunchHostFunc spinning on the
     * flag) on another non-blocking stream: only where a family asks for it
     * (cts_emit_hostfn). */
    CTS_BUSY_HOSTFN,
    /* The held work is a host function on the op stream itself: only where
     * a family asks for it (cts_emit_same_hostfn). */
    CTS_BUSY_SAME_HOSTFN,
    /* The capture family's: the op stream, from a second host thread. */
    CTS_BUSY_THREAD_SAME,
    /* The peer family's (cases/peer.c): the other device's legacy, blocking
     * and non-blocking streams; and a non-blocking stream of each device. */
    CTS_BUSY_PEER_LEGACY,
    CTS_BUSY_PEER_BLOCKING,
    CTS_BUSY_PEER_NONBLOCKING,
    CTS_BUSY_BOTH,
    /* The capture family's: a second host thread, with the other device current. */
    CTS_BUSY_THREAD_PEER,
    /* The process family's (cases/process.c): a non-blocking stream of a
     * second process, on this device or on the peer. */
    CTS_BUSY_OTHER_PROCESS,
    CTS_BUSY_OTHER_PROCESS_PEER,
    CTS_BUSY_COUNT
};
/* Stream capture (the capture family): the mode of the capture in progress
 * while the call is made, and the calling thread's own interaction mode
 * (cudaThreadExchangeStreamCaptureMode); NONE: no capture. */
enum cts_capture { CTS_CAPTURE_NONE, CTS_CAPTURE_GLOBAL, CTS_CAPTURE_THREAD_LOCAL, CTS_CAPTURE_RELAXED,
                   CTS_CAPTURE_COUNT };
#define CTS_SIZE_COUNT 7 /* the regular grid: 1B .. 16MiB (ids.c) */
#define CTS_SIZE_2MIB 7  /* beyond it, for the cases that ask: 2 MiB and 2 MiB + 1 */
#define CTS_SIZE_2MIB_1 8
#define CTS_SIZE_64MIB 9 /* larger than the engine's buffers: cts_eng_fit makes bigger ones */
#define CTS_SIZE_ALL 12

struct cts_family;
struct cts_result;
struct cts_clause; /* harness/core/spec.h */
struct cts_judge;

struct cts_case {
    char id[CTS_ID_MAX];
    const struct cts_family *family;
    enum cts_api api;
    const char *variant; /* NULL, or how this call differs from the plain one ("stack_size",
                          * "pool_release_0"); its id segment follows the api's */
    const char *with;    /* NULL, or the other operation the case issues beside the call (the
                          * overlap family's B: "h2d_pinned"); its id segment "with_<x>" follows
                          * the variant's, and does not split the CTest group */
    int writes;          /* 1: the held work writes the call's source as its last act (data order:
                          * busy_same, the gate then a kernel; busy_same_hostfn, the host function
                          * itself); its id segment "written" follows with_<x>'s (cts_emit_written) */
    enum cts_dir dir;
    enum cts_mem mem; /* the memory kind under test; see cts_case_buffers() */
    int size_idx; /* -1: the call takes no size (cudaFree(NULL)); its id segment is left out */
    size_t size;
    enum cts_kind kind;
    enum cts_op op;
    enum cts_busy busy;
    size_t width, height, depth; /* the shape of a 2D/3D call (pitch = width); 0 for 1-D */
    /* The capture family: the call is made while the op stream captures in
     * mode `capture`, by a thread whose own mode is `capture_by`, from the
     * placement `busy` names (busy_same: the capturing stream, or for a call
     * that takes no stream the capturing thread; busy_thread_same: the
     * capturing stream from the second thread, or that thread).  Id segments
     * "capture_<mode>.by_<mode>" follow the variant's; NONE elsewhere. */
    enum cts_capture capture, capture_by;
    /* ... 1: the capture is begun with cudaStreamBeginCaptureToGraph into a graph that already
     * holds a node (its id segment "to_graph" between capture_<mode> and by_<mode>, its CTest
     * group "capture_to_graph"); 0 elsewhere. */
    int to_graph;
};

/* What a family's prepare() sets up for one call and cleanup() undoes,
 * both outside the measured region, with the device idle. */
struct cts_scratch {
    void *ptr;      /* e.g. the pointer cudaFree frees, or cudaMalloc returned */
    void *handle;   /* e.g. a cudaArray_t, a memory pool */
    void *extra;    /* anything else a family keeps from prepare() to cleanup() */
    size_t pitch;
    unsigned long long value; /* e.g. a CUmemGenericAllocationHandle, a CUdeviceptr */
};

/* What the engine hands the call under test. */
struct cts_call {
    void *dst;
    const void *src;     /* NULL where the call has no source */
    unsigned char value; /* the byte a memset writes (the repetition's pattern) */
    void *stream;        /* the op stream's handle (0 where implied) */
    struct cts_scratch *scratch;
};

/* A family declares its cases with a generator (generate(NULL, 0) counts
 * them), says which memory kinds a case reads and writes (CTS_MEM_NONE for
 * none), what it needs at run time (NULL: nothing; else 0, or -1 with the
 * reason the case is NOTSUPP here), and issues the call under test.
 * issue() returns 0 when the call succeeded, else non-zero with the name
 * of the error it returned (cudaError_t or CUresult) in *error. */
struct cts_family {
    const char *name; /* also the CTest label */
    int crosses;      /* 1: every case crosses to a second device (the peer family) */
    size_t (*generate)(struct cts_case *out, size_t cap);
    void (*buffers)(const struct cts_case *c, enum cts_mem *src, enum cts_mem *dst); /* NULL: none */
    int (*needs)(const struct cts_case *c, char *why, size_t len);
    int (*issue)(const struct cts_case *c, const struct cts_call *call, const char **error);
    /* Optional: set-up before each call and clean-up after it; each returns
     * 0, or non-zero with the error's name (the repetition is then BROKEN). */
    int (*prepare)(const struct cts_case *c, struct cts_scratch *s, const char **error);
    int (*cleanup)(const struct cts_case *c, struct cts_scratch *s, const char **error);
    /* Optional: once the case's calls are done (its idle measurement,
     * control and repetitions), frees what cleanup kept for the next
     * prepare of the same case (memory slow to make: cases/alloc_register.c). */
    void (*release)(void);
    /* Optional: right before the call and right after it returns, untimed,
     * while the gate holds its work (and around the idle calls too): e.g.
     * record an event behind the gate, begin the capture that the call ends,
     * end the capture that the call began.  Neither may wait for the device. */
    int (*before)(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error);
    int (*after)(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error);
    /* Optional: where buffers() names CTS_MEM_OWN for a side (0 source, 1
     * destination), the engine sets and reads its sample bytes through these,
     * with the device idle.  The call gets NULL for that side. */
    int (*poke)(const struct cts_case *c, int side, size_t off, unsigned char v, const char **error);
    int (*peek)(const struct cts_case *c, int side, size_t off, unsigned char *v, const char **error);
    /* Optional: where the documentation forbids the call (a stream it must
     * not be given), the case is tested as a rejection: returns the name of
     * the error the documentation names ("" where it says only that an error
     * is returned) and the clause in *clause; NULL where the call is allowed.
     * A rejected call is measured like any other (does the rejection wait,
     * does it hold other streams); returning another error is FAIL, and
     * succeeding DEVIATES from the clause. */
    const char *(*rejects)(const struct cts_case *c, const char **clause);
    /* Optional: the family's own clauses of the documentation, beside its
     * calls: `clauses`, those no other family's cases cite (ids unique in
     * the suite; the table ends with an entry whose id is NULL), and `judge`,
     * which names the clauses that speak of a case (harness/core/spec.h:
     * cts_judge_add) after harness/core/spec.c's general rules (the copy, memset,
     * launch and stream-ordering clauses).  A new family needs no edit of
     * spec.c (docs/adding-a-family.md). */
    const struct cts_clause *clauses;
    void (*judge)(struct cts_judge *j);
    /* 1: spec.c's general rules, which speak of one device's streams and of
     * calls made beside held work, do not apply to the family's cases: its
     * judge names every clause (the capture family: nothing is held; the
     * peer family: two devices, its third streams on the other one). */
    int judges_alone;
    /* Optional: for the threshold search (sync-cts thresholds), the shape of
     * the call for c->size, as the generator gives it (width, height,
     * depth); 0, or -1 where no call of that size can be made.  A family
     * whose calls have no shape needs none. */
    int (*resize)(struct cts_case *c);
    /* Optional: a family whose cases hold nothing with the gate measures them
     * itself (the overlap family: two operations, two streams, their events):
     * fills res (its repetitions, then cts_classify) for `repeat`
     * repetitions.  The engine's idle measurement, control and repetitions
     * are skipped; needs() still applies, and a broken engine makes the case
     * BROKEN.  Settings under which nothing can be held (the engine's
     * self-check) do not make it NOTSUPP: they are what it measures. */
    void (*measure)(const struct cts_case *c, int repeat, struct cts_result *res);
    /* Optional: for data order (c->writes), the device address of the
     * family's own memory on a side (0 source, 1 destination), which the
     * engine then fills, has the held work write, and reads whole like device
     * memory; NULL where it has none (needs() should then say why). */
    void *(*address)(const struct cts_case *c, int side);
    /* Optional: for data order where address() gives none (an array): copies
     * n bytes between the family's own memory on a side and the linear buffer
     * p (into the own memory where to_own), p being device memory where
     * p_device, else host memory; queued on `stream` where async, else
     * synchronous with the device idle.  0, or non-zero with the error's name. */
    int (*own_copy)(const struct cts_case *c, int side, int to_own, void *p, int p_device, size_t n, int async,
                    void *stream, const char **error);
    /* Optional: 1 where c's call is a cheap one whose cost users ask about:
     * the engine then also times it from 1, 4 and 16 threads at once on the
     * idle GPU (harness/engine/latency.c), evidence beside the verdicts. */
    int (*cheap)(const struct cts_case *c);
};

#define FAMILY(name) extern const struct cts_family cts_family_##name;
#include "apis.def"
extern const struct cts_family *const cts_families[];
extern const size_t cts_family_count;

/* ---- names (ids.c) ------------------------------------------------------ */
const char *cts_api_token(enum cts_api a);     /* "memcpy_async" */
const char *cts_api_function(enum cts_api a);  /* "cudaMemcpyAsync" */
const char *cts_dir_token(enum cts_dir d);     /* "h2d" */
const char *cts_mem_token(enum cts_mem m);     /* "pageable" */
const char *cts_mem_allocator(enum cts_mem m); /* "cudaHostAlloc(cudaHostAllocMapped)" */
const char *cts_kind_token(enum cts_kind k);   /* "explicit" */
const char *cts_op_token(enum cts_op o);       /* "op_nonblocking" */
const char *cts_busy_token(enum cts_busy b);   /* "busy_legacy" */
const char *cts_size_token(int size_idx);      /* "64KiB+1" */
size_t cts_size_bytes(int size_idx);
/* The cudaMemcpyKind the case passes ("cudaMemcpyHostToDevice", "cudaMemcpyDefault"). */
const char *cts_copy_kind_name(const struct cts_case *c);
int cts_mem_host_accessible(enum cts_mem m);

/* What stream 0 and the synchronous APIs mean in this build. */
int cts_build_per_thread(void);
/* Whether op is the legacy default stream in this build (the handle 0 and
 * the implied stream are, unless the build is per-thread). */
int cts_op_is_legacy(enum cts_op op);
/* Whether busy placement b would hold the op stream itself (so that it
 * duplicates CTS_BUSY_SAME and is not generated). */
int cts_busy_is_op_stream(enum cts_op op, enum cts_busy b);

/* The memory kinds c's call reads and writes (its family's buffers(); none
 * where it has no such function: its memory is its own, or it has none). */
void cts_case_buffers(const struct cts_case *c, enum cts_mem *src, enum cts_mem *dst);
/* Writes c->id from the parameters.  Returns 0, or -1 if it would not fit. */
int cts_case_make_id(struct cts_case *c);
/* For generators: emits `proto` once for every (op stream, busy placement)
 * pair its API takes (the implied stream without a stream argument, the five
 * op streams with one; no placement that is the op stream itself) into
 * out[n..cap), and returns the new count n.  out may be NULL (counting). */
size_t cts_emit(const struct cts_case *proto, struct cts_case *out, size_t cap, size_t n);
/* Likewise with the busy work issued from a second host thread
 * (CTS_BUSY_THREAD_*), for every op stream the API takes. */
size_t cts_emit_threads(const struct cts_case *proto, struct cts_case *out, size_t cap, size_t n);
/* Likewise with a host function as the held work (CTS_BUSY_HOSTFN). */
size_t cts_emit_hostfn(const struct cts_case *proto, struct cts_case *out, size_t cap, size_t n);
/* Likewise with a host function on the op stream as the held work (CTS_BUSY_SAME_HOSTFN). */
size_t cts_emit_same_hostfn(const struct cts_case *proto, struct cts_case *out, size_t cap, size_t n);
/* Whether busy placement b is issued from the second host thread. */
int cts_busy_from_thread(enum cts_busy b);
/* Likewise for a case whose held work writes its source (proto->writes set
 * by it), `written` the kind of memory written: busy_same (the gate, then a
 * kernel writes) where the device can write it (device, mapped, managed, a
 * family's own: a symbol),
 * busy_same_hostfn (the host function writes) where the host can (every
 * host kind, managed). */
size_t cts_emit_written(const struct cts_case *proto, enum cts_mem written, struct cts_case *out, size_t cap,
                        size_t n);
/* Whether the held work of busy placement b is a host function, not the gate kernel. */
int cts_busy_is_hostfn(enum cts_busy b);
/* Whether busy placement b holds the op stream itself (busy_same, busy_same_hostfn). */
int cts_busy_in_op_stream(enum cts_busy b);

/* ---- the case table (table.c) ------------------------------------------ */
/* The case table: every family's cases, in declaration order. */
const struct cts_case *cts_all_cases(size_t *count);
/* The case with this id, or NULL. */
const struct cts_case *cts_case_find(const char *id);
/* Cases of `family` and CTest `group` (NULL: any) whose ids match the
 * fnmatch(3) glob (NULL: any).  Returns the number selected; *out is
 * malloc'ed (caller frees). */
size_t cts_select(const char *glob, const char *family, const char *group, int devices,
                  const struct cts_case ***out);
/* How many devices a case needs: 2 where it crosses to a second one (the
 * peer family; a thread or process busy on the peer; a stall beside work on
 * the peer, with_peer_*; cudaSetDevice to the other), else 1.  A test that
 * owns one GPU runs the cases of 1, one that owns two the cases of 2
 * (run --devices, tests/gpu-tests.cmake.in); with one device visible the
 * cases of 2 are NOTSUPP. */
int cts_case_devices(const struct cts_case *c);
/* The CTest group of a case: "<api>[.<variant>][.written][.<dir>]" ("memcpy_async.h2d"); a
 * capture case's, "capture_<mode>" (one a capture mode), a to-graph one's "capture_to_graph". */
void cts_case_group(const struct cts_case *c, char *buf, size_t len);

/* ---- observations and verdicts ----------------------------------------- */
/* Ordering of work enqueued after the call, seen while the gate is closed.
 * HELD_ANYWAY: held, but the same stream is held without the call too (the
 * control), so the hold comes from the streams' own semantics, not the call. */
enum cts_order { CTS_ORDER_NA, CTS_ORDER_RUNS, CTS_ORDER_HELD, CTS_ORDER_HELD_ANYWAY };
/* When the copy read a host source: its bytes, overwritten right after the
 * call returned, show whether the copy had taken them already. */
enum cts_src { CTS_SRC_NA, CTS_SRC_AT_CALL, CTS_SRC_AFTER_RETURN, CTS_SRC_PARTIAL };
/* Whether a host destination held the copied bytes when the call returned. */
enum cts_dst { CTS_DST_NA, CTS_DST_COMPLETE, CTS_DST_PENDING };
enum cts_host { CTS_HOST_NA, CTS_HOST_RETURNS, CTS_HOST_WAITS };
/* Data order (a case whose held work writes its source, c->writes): which
 * bytes the copy moved, from the whole destination after the drain
 * (harness/core/dataorder.h judges them); and whether work queued after the call
 * on its own stream saw them. */
enum cts_data { CTS_DATA_NA, CTS_DATA_ORDERED, CTS_DATA_STALE, CTS_DATA_PARTIAL };
enum cts_reader { CTS_READER_NA, CTS_READER_SAW, CTS_READER_MISSED };
/* Two operations A and B issued in two streams (the overlap family): did
 * they run at once?  OVERLAPS: the pair took little more than the longer
 * alone; SERIALIZES: about the sum, the first to end at its own speed (or B
 * provably started after A ended); SHARES: about the sum, but both slowed:
 * they ran at once and shared what bounds them (a copy engine's bandwidth,
 * the SMs); PARTIAL: in between. */
enum cts_overlap { CTS_OVERLAP_NA, CTS_OVERLAP_OVERLAPS, CTS_OVERLAP_PARTIAL, CTS_OVERLAP_SHARES,
                   CTS_OVERLAP_SERIALIZES };
#include "family_obs.h" /* the self-measured families' observations */

const char *cts_order_name(enum cts_order o); /* NULL for NA */
const char *cts_src_name(enum cts_src s);
const char *cts_dst_name(enum cts_dst d);
const char *cts_host_name(enum cts_host h);
const char *cts_overlap_name(enum cts_overlap o); /* "overlaps"; NULL for NA */
const char *cts_capture_token(enum cts_capture m); /* "global", "thread_local", "relaxed"; NULL for NONE */
const char *cts_data_name(enum cts_data d);     /* "ordered", "stale", "partial"; NULL for NA */
const char *cts_reader_name(enum cts_reader r); /* "saw", "missed"; NULL for NA */

/* A cheap call timed from several threads at once on an idle GPU
 * (harness/engine/latency.c; docs/method.md, "Latency from several threads"):
 * evidence, never part of a verdict. */
#define CTS_LATENCY_COUNTS 3
#define CTS_LATENCY_MOST 16
extern const int cts_latency_threads[CTS_LATENCY_COUNTS]; /* 1, 4, CTS_LATENCY_MOST (classify.c) */
struct cts_latency {
    int threads;     /* 0: not measured */
    int calls;       /* all threads' timed calls together */
    double median_us, p99_us, max_us;
};

/* One measurement of a staged-copy pattern (the overlap family's staged_*):
 * one array in N slices, each copied in, worked on and copied out on its own
 * stream, against the same work in one stream (sequential). */
struct cts_staged_obs {
    double sequential_us, version_us;  /* the whole work in one stream, and as the version stages it */
    double h2d_us, kernel_us, d2h_us;  /* each phase alone, the whole array at once */
    double fraction; /* (sequential - version) / (sequential - the longest phase): the share of the
                      * time perfect overlap would save that the version saved */
};

/* One measurement of a pair (times in microseconds, from the first of the two
 * start events; device times from events recorded right before and after
 * each operation on its own stream). */
struct cts_pair_obs {
    double a_alone_us, b_alone_us; /* each operation alone, right before */
    double a_start_us, a_end_us;   /* A's events in the pair */
    double b_start_us, b_end_us;   /* B's */
    double issue_us;               /* host time to issue A and B */
    double makespan_us;            /* from the first start to the last end */
    double fraction;               /* (A alone + B alone - makespan) / the shorter alone */
    double stretch;                /* the first to end: (its end - first start) / its alone time */
    enum cts_overlap overlap;      /* NA: undecided (between the bands) */
};

/* One repetition, as measured. */
struct cts_rep {
    enum cts_status status; /* PASS, or why this repetition gave nothing */
    char reason[CTS_REASON_MAX];
    enum cts_host host;            /* returned while the gate was closed, or not */
    double call_us;                /* host time inside the call */
    double release_to_return_us;   /* waits only: from the gate opening to the return */
    double run_delay_us;           /* how long its thread waited for a processor in the call (NAN: < 100 us);
                                    * a tracked wait: the larger of its two attempts' */
    double others_delay_us;        /* a tracked wait: how long the process's other threads (the driver's)
                                    * waited for a processor in the attempt that tracked it, in all
                                    * (NAN: < 100 us, or not known) */
    double timeout_us;             /* when the watchdog opened the gate, this repetition */
    double window_us;              /* how long its markers had to run while it was closed */
    /* Waits only, where this repetition's wait was itself tracked: the
     * attempt with the shorter timeout it was measured against (NAN when the
     * wait was prompt and the case's first tracked wait already proved it). */
    double tracked_from_timeout_us, tracked_from_call_us;
    enum cts_order op_after;       /* marker on the op stream after the call */
    enum cts_order third_blocking; /* marker on a third, blocking stream */
    enum cts_order third_nonblocking;
    double op_after_gpu_us; /* marker stamp minus gate end (GPU clock); NAN if none */
    double third_blocking_gpu_us;
    double third_nonblocking_gpu_us;
    enum cts_src src; /* raw; the verdict keeps it only where it is race-free */
    enum cts_dst dst;
    const char *rejected; /* the error a documented rejection returned (cts_family.rejects), or NULL */
    struct cts_pair_obs pair; /* the overlap family's: the pair measured (overlap NA otherwise) */
    struct cts_staged_obs staged; /* the overlap family's staged copies (sequential_us 0 otherwise) */
    enum cts_data data;      /* c->writes: the bytes the copy moved */
    long long data_boundary; /* PARTIAL: the first destination offset of the second run; else -1 */
    long long data_new_bytes; /* how many of them were the held work's write (-1: not judged) */
    enum cts_reader reader;  /* c->writes: what work after the call on its stream read */
    struct cts_capture_obs cap; /* the capture family's (outcome NA otherwise) */
    struct cts_depth_obs depth; /* the depth family's (limit NA otherwise) */
    struct cts_stall_obs stall; /* the stall family's (verdict NA otherwise) */
    struct cts_pool_obs pool;   /* the pool family's (outcome NA otherwise) */
    struct cts_kind_obs obs;    /* a kind without a member here: its family's (kind NULL otherwise) */
    enum cts_dst landed;     /* copies and memsets: was the destination complete right after the
                              * call returned, read from another stream (device-side memory) or by
                              * the host; whether or not the call waited */
};

struct cts_verdict {
    enum cts_host host;
    enum cts_order op_after;
    enum cts_order third_blocking;
    enum cts_order third_nonblocking;
    enum cts_src src;
    enum cts_dst dst;
    const char *rejected; /* the documented rejection's error, where the call was rejected */
    enum cts_overlap overlap; /* the overlap family's verdict; NA for every other case */
    enum cts_data data;       /* c->writes: data order; NA for every other case */
    enum cts_reader reader;
    enum cts_cap_outcome capture; /* the capture family's verdict; NA for every other case */
    enum cts_depth depth;     /* the depth family's: FOUND or NONE, with `queued`; BESIDE: `host` */
    long long queued;
    enum cts_stall stall;     /* the stall family's: the second thread's commands during the call
                               * (with `host`, the call's own) */
    enum cts_pool pool;       /* the pool family's: what the allocation got (with `host`) */
    enum cts_dst landed;      /* synchronous calls, kept where the call waited or its stream ran on
                               * (op_after runs): behind held work a copy cannot have landed */
    /* A kind of outcome without a member here (outcome.h, CTS_AT_KIND): which, its value
     * (0: NA) and the count that value carries. */
    const struct cts_outcome *kind;
    int kind_value;
    long long kind_count;
};

/* The control: the same gate and markers with no call in between (and, for
 * a family with before/after hooks, the case's set-up and hooks). */
struct cts_control {
    enum cts_order op_after, third_blocking, third_nonblocking; /* RUNS or HELD */
};

struct cts_result {
    enum cts_status status;
    char reason[CTS_REASON_MAX];
    struct cts_verdict verdict; /* VARIES: only the fields every repetition agrees on */
    char symbol[32]; /* PASS: the verdict's cell symbol; VARIES: each one seen, "A/W" */
    int nreps;
    struct cts_rep reps[CTS_MAX_REPEAT];
    /* The same call on an idle GPU. */
    double idle_call_us;      /* median host time inside the call */
    double idle_call_max_us;
    double idle_complete_us;  /* median time until a marker after it ran */
    double idle_complete_max_us;
    double timeout_us;        /* when the watchdog opens the gate (a repetition's first attempt) */
    double window_us;         /* how long markers get to run while it is closed */
    int window_retries;       /* times the window was doubled after proving too short (all
                               * repetitions together; at most WAIT_RETRIES each) */
    int timeout_retries;      /* likewise the timeout */
    int waits_tracked;        /* repetitions whose wait was proven by tracking the release */
    int late_holds_tracked;   /* late holds (by stream semantics, or by the call once proven)
                               * proven by tracking the gate's end */
    int rechecked;            /* repetitions measured again, longer, because the latch
                               * contradicted their timed verdict (case.c: recheck) */
    int perturbed_retries;    /* attempts measured again because this thread was descheduled
                               * between the call's return and its claim of the latch */
    double late_call_us, late_timeout_us; /* the last attempt a wait is to track (engine's own) */
    double late_run_delay_us;             /* and its thread's run delay (engine's own) */
    int holds_tracked[3];     /* holds proven by tracking: op_after, third_blocking, third_nonblocking */
    double hold_window_us, hold_late_us[3]; /* the last attempt a hold is to track (engine's own) */
    double grow_us;           /* how much longer the next attempt's timeout or window is (engine's own) */
    struct cts_control control;
    /* The call from 1, 4 and 16 threads at once, idle (its family's cheap()
     * cases): each entry's threads 0 where not measured; latency_error: why
     * not, where a call failed ("" otherwise). */
    struct cts_latency latency[CTS_LATENCY_COUNTS];
    char latency_error[CTS_REASON_MAX];
    int control_own; /* the control was the case's own: its set-up and hooks, no call */
    int synchronous; /* the call takes no stream: its landing is part of the verdict */
};

/* classify.c: pure functions, tested on the host. */
/* The verdict one repetition supports: data observations count only where
 * they are race-free (the call returned while the gate was closed and work
 * after it on its own stream was held, so its own device work was too);
 * landing only for a synchronous call. */
struct cts_verdict cts_rep_verdict(const struct cts_rep *r, const struct cts_control *ctl, int synchronous);
/* Combines repetitions into res->status, res->reason, res->verdict and
 * res->symbol: PASS when they agree, VARIES when every one was proven and
 * they differ (never a majority vote), else the status of the one that
 * decides (BROKEN, TIMEOUT, FAIL, NOTSUPP, INCONCLUSIVE, in that order). */
void cts_classify(struct cts_result *res);
/* Whether a call that returned after the gate opened proves nothing about
 * waiting because its thread could not run while the gate was closed: of
 * the closed_us from the call to the opening, the thread spent starved_us
 * waiting for a processor (schedstat's run delay over the call), and what
 * is left is less than the call needs on an idle GPU, given as prompt_us
 * (2x its slowest idle time + 100 us).  NAN starved_us (no schedstat): 0.
 * A gate closed for less than prompt_us is no starvation (0): the timeout
 * was too short for any call, and tracking measures it again, longer (at
 * ed5b4f45e65c such attempts, 565-673 a run with no load and a run delay
 * of 0, were measured again as starved). */
int cts_starved(double closed_us, double starved_us, double prompt_us);
/* How long a call's thread waited for a processor while the gate was
 * closed, from two lower bounds: the watchdog's reading as it opened the
 * gate (at_release_us; it misses a wait in progress then, which the kernel
 * adds only when the thread runs again) and the whole call's less the time
 * from the opening to the return (it misses what the thread ran after the
 * opening).  The larger, NANs as 0, is within that running time of the
 * truth: for a spinning waiter a few microseconds.  At 5b7a8bd the whole
 * call's run delay was used: a call that waited spinning under 32 busy
 * threads on 16 processors had 19956 us of it against a gate closed
 * 12869 us, and never proved its wait. */
double cts_starved_closed(double at_release_us, double whole_us, double release_to_return_us);
/* Whether the call came late to its gate: of the timeout_us the watchdog
 * was armed with, the gate stayed closed less than half once the call had
 * begun (closed_us, from the call to the opening; negative where it opened
 * first).  Arming and calling are microseconds apart, so its thread lost
 * the processor between them (the watchdog's wake-up, then the load): the
 * call never met a closed gate, and proves nothing by returning after it. */
int cts_called_late(double closed_us, double timeout_us);
/* qsort's comparison of doubles, ascending. */
int cts_cmp_double(const void *a, const void *b);
/* The q-quantile (0 < q <= 1) of n sorted values by nearest rank: the
 * smallest value with at least q*n values at or below it; NAN for n 0. */
double cts_quantile(const double *sorted, size_t n, double q);
/* For a family that measures itself (cts_family.measure): a repetition before
 * it is measured (PASS, every time NAN), and the result once they are: the
 * median of the repetitions' call times stands in for the idle time (none is
 * measured), the timeout is timeout_us, then cts_classify. */
void cts_rep_begin(struct cts_rep *r);
void cts_classify_measured(struct cts_result *res, double timeout_us);
/* A self-measured family's next repetition of res (whose nreps starts at 0), begun: NULL once
 * `repeat` of them (at most CTS_MAX_REPEAT) were made, or after one that is not PASS.
 *   for (struct cts_rep *r; (r = cts_rep_next(res, repeat));) measure_one(r, res); */
struct cts_rep *cts_rep_next(struct cts_result *res, int repeat);
/* A compact cell symbol for reports: "W", "A", "Q", with "+b"/"+n" only for
 * third streams the call itself held, "X" for a documented rejection
 * (docs/matrix.md, the cell legend). */
void cts_verdict_symbol(const struct cts_verdict *v, char *buf, size_t len);
/* The overlap family's judgement of one pair measurement: fills p->makespan_us,
 * p->fraction, p->stretch and p->overlap from the times (docs/method.md,
 * "Overlap"); overlap NA when the fraction falls between the bands. */
void cts_pair_judge(struct cts_pair_obs *p);
/* The same bands for a staged-copy pattern's fraction (fills s->fraction):
 * overlaps, partial or serializes; NA between the bands. */
enum cts_overlap cts_staged_judge(struct cts_staged_obs *s);

/* A self-measured case's stage, for a case whose process may die in it (the
 * capture family's body captures: a driver that crashes in cudaStreamEndCapture):
 * in a worker, each is reported before the step it names, and a case whose
 * process died is CRASH naming its last stage (harness/cli/supervisor.c);
 * elsewhere nothing.  cts_case_stage_sink: the worker's (NULL: none). */
extern void (*cts_case_stage_sink)(const char *stage);
void cts_case_stage(const char *stage);

#endif
