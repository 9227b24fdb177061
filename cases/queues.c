/* The queues family: how many streams really run at once (issue 41 item 2).
 * Training frameworks set CUDA_DEVICE_MAX_CONNECTIONS=1 and users ask why only
 * eight streams overlap by default: streams are mapped onto a few hardware
 * queues (connections), and two streams on one queue wait for each other.
 *
 * A case: N non-blocking streams (2 to 64; the `with_NN_streams` segment)
 * created for it, and on each, in stream order, a gate kernel of one thread
 * (kernels/latch.cu: it records when it starts and spins on a flag of its own
 * in mapped pinned memory until that flag opens, or until its own
 * %globaltimer deadline); the variant says what else and with which priority:
 * one_kernel, the gate alone; two_kernels, the gate then a marker kernel,
 * work that must wait in its stream for the gate to end (as any stream with
 * more than one kernel has); _priority_high, every stream the device's
 * greatest priority; _priority_mixed, the greatest and the least in turn
 * (the first the greatest; else the default priority).  This thread opens
 * the flags; it makes no CUDA call between the launches and the last opening
 * (every gate ends itself at its deadline, whatever this thread does).
 * Observed, each from
 * the gates' own records, never from a time:
 *   - the kernels that started while no flag was open, counted once nothing
 *     had started for SETTLE_US, and again after LONG_FACTOR times as long
 *     (a kernel merely slow to start would raise the second count);
 *   - where fewer than N started, the flags of those that did are opened one
 *     at a time, in stream order, until the first stream whose kernel had not
 *     started starts: the stream it waited behind, and how long after that
 *     stream's kernel ended it began (GPU clock); then every flag opens, and
 *     each kernel that had not started must start after the first opened
 *     gate ended (it waited for a gate, not for a slow launch);
 *   - whether a gate ended at its deadline before its flag opened (the
 *     repetition proves nothing then, and is measured again).
 * Its kind of outcome (harness/core/outcomes/queues.c): `all`, every kernel at
 * once, or `some`, with the count; the cell `K8`.
 *
 * CUDA_DEVICE_MAX_CONNECTIONS is the run's setting, as the user sets it for a
 * program (recorded in the matrix's environment): run the family under each
 * value and `diff` the matrices (docs/running.md).  The documentation promises
 * no count: RECORDED against the Multi-Process Service guide's words on the
 * variable. */
#define _GNU_SOURCE
#include "../harness/core/cts.h"
#include "../harness/core/latch.h"
#include "../harness/core/outcome.h"
#include "../harness/core/outcomes/outcomes.h"
#include "../harness/core/spec.h"
#include "../harness/families/family.h"
#include "../harness/families/kernels.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KMAX 64
#define SETTLE_US 2000.0           /* nothing new started for this long: count */
#define LONG_FACTOR 5.0            /* ... and count again after this many times as long */
#define LAUNCH_LIMIT_US 1000000.0  /* the launches and the first count, at most */
#define END_LIMIT_US 3000000.0     /* every gate ended after its flag opened, at most */
#define BUDGET_NS 2500000000ull    /* a gate's own deadline, from its start */
#define TRIES 3

static const int counts[] = {2, 4, 8, 9, 16, 17, 32, 33, 64};
#define NCOUNTS (sizeof counts / sizeof *counts)
/* What each stream is given, and with which priority: one_kernel, the gate alone; two_kernels, the
 * gate then a marker kernel (work that must wait for the gate's end in its stream); the priority
 * the default one, the device's greatest for every stream, or the greatest and the least in turn. */
static const struct shape {
    const char *variant;
    int marker;
    int priority; /* 0 default, 1 greatest, 2 greatest and least in turn */
} shapes[] = {
    {"one_kernel", 0, 0},
    {"two_kernels", 1, 0},
    {"two_kernels_priority_high", 1, 1},
    {"two_kernels_priority_mixed", 1, 2},
};
#define NSHAPES (sizeof shapes / sizeof *shapes)

static size_t generate(struct cts_case *out, size_t cap)
{
    static char with[NCOUNTS][16];
    size_t n = 0;
    for (size_t p = 0; p < NSHAPES; p++)
        for (size_t k = 0; k < NCOUNTS; k++, n++) {
            if (!out || n >= cap)
                continue;
            snprintf(with[k], sizeof with[k], "%02d_streams", counts[k]);
            struct cts_case c = {.family = &cts_family_queues, .api = CTS_API_KERNELS_AT_ONCE,
                                 .variant = shapes[p].variant, .with = with[k], .dir = CTS_DIR_NONE,
                                 .mem = CTS_MEM_NONE, .size_idx = -1, .kind = CTS_KIND_NONE,
                                 .op = CTS_OP_NONBLOCKING, .busy = CTS_BUSY_NONBLOCKING};
            cts_case_make_id(&c);
            out[n] = c;
        }
    return out ? (n < cap ? n : cap) : n;
}

/* The case's stream count and shape; NULL if not one of ours. */
static const struct shape *shape_of(const struct cts_case *c, int *n)
{
    *n = c->with ? atoi(c->with) : 0;
    for (size_t p = 0; p < NSHAPES; p++)
        if (c->variant && !strcmp(c->variant, shapes[p].variant) && *n >= 2 && *n <= KMAX)
            return &shapes[p];
    return NULL;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    if (cts_need_attribute(cudaDevAttrConcurrentKernels, "cudaDevAttrConcurrentKernels", why, len))
        return -1;
    int least = 0, greatest = 0;
    cudaError_t err = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "cudaDeviceGetStreamPriorityRange returned %s", cudaGetErrorName(err));
        return -1;
    }
    int n;
    const struct shape *p = shape_of(c, &n);
    if (p && p->priority && least == greatest) {
        snprintf(why, len, "the device has one stream priority (cudaDeviceGetStreamPriorityRange: %d)", least);
        return -1;
    }
    return 0;
}

/* ---- what the family keeps ----------------------------------------------------- */

static struct {
    volatile unsigned *flag, *flag_dev;  /* one a stream, mapped pinned */
    struct cts_gate_record *rec, *rec_dev;
    struct cts_marker_record *mk, *mk_dev; /* two_kernels: the marker after each gate */
    unsigned seq;
} d;

static const char *failed_at = "";
#define TRY(call) CTS_TRY_AT(failed_at, call)

static cudaError_t setup_resources(void)
{
    TRY(cudaHostAlloc((void **)&d.flag, KMAX * sizeof *d.flag, cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&d.flag_dev, (void *)d.flag, 0));
    TRY(cudaHostAlloc((void **)&d.rec, KMAX * sizeof *d.rec, cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&d.rec_dev, d.rec, 0));
    TRY(cudaHostAlloc((void **)&d.mk, KMAX * sizeof *d.mk, cudaHostAllocMapped));
    TRY(cudaHostGetDevicePointer((void **)&d.mk_dev, d.mk, 0));
    memset(d.mk, 0, KMAX * sizeof *d.mk);
    memset((void *)d.flag, 0, KMAX * sizeof *d.flag);
    memset(d.rec, 0, KMAX * sizeof *d.rec);
    return cudaSuccess;
}

static struct cts_setup_once once;
static int setup(void) { return cts_setup_once(&once, "queues", setup_resources, &failed_at); }

static void nap(void)
{
    struct timespec t = {0, 20000};
    nanosleep(&t, NULL);
}

/* The streams' kernels that have started in this try: how many, and each in started[]. */
static int count_started(int n, int *started)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += started[i] = d.rec[i].started == d.seq;
    return k;
}

/* Whether a gate ended before its flag opened (at its deadline). */
static int any_deadline(int n)
{
    for (int i = 0; i < n; i++)
        if (d.rec[i].ended == d.seq && d.rec[i].reason == CTS_GATE_DEADLINE)
            return 1;
    return 0;
}

/* Waits until nothing new has started for settle_us (at least settle_us from now): the count. */
static int settle(int n, double settle_us, double limit_us, int *started)
{
    double t0 = cts_now_us(), last = t0;
    int k = count_started(n, started);
    while (cts_now_us() - last < settle_us && cts_now_us() - t0 < limit_us) {
        nap();
        int now = count_started(n, started);
        if (now != k)
            k = now, last = cts_now_us();
    }
    return k;
}

static void open_flag(int i)
{
    __atomic_store_n(&d.flag[i], 1u, __ATOMIC_SEQ_CST);
}

/* Opens the started kernels' flags in stream order until `waiting`'s kernel starts: the stream it
 * started behind (-1: none found) and how long after that kernel ended it began (us, GPU clock). */
static int find_behind(int n, const int *started, int waiting, double *gap_us)
{
    for (int i = 0; i < n; i++) {
        if (!started[i])
            continue;
        open_flag(i);
        for (double t0 = cts_now_us(); d.rec[i].ended != d.seq && cts_now_us() - t0 < END_LIMIT_US;)
            nap();
        for (double t0 = cts_now_us(); d.rec[waiting].started != d.seq && cts_now_us() - t0 < SETTLE_US;)
            nap();
        if (d.rec[waiting].started == d.seq) {
            double gap = ((double)d.rec[waiting].start_ns - (double)d.rec[i].end_ns) / 1e3;
            if (gap < 0)
                return -1; /* it did not start behind this one */
            *gap_us = gap;
            return i;
        }
    }
    return -1;
}

/* Launches the gate, and where `marker` the marker, on each stream in order: how many streams got
 * theirs (n, or fewer with *err the launch's error). */
static int launch_all(int n, int marker, cudaStream_t *s, cudaError_t *err)
{
    int launched = 0;
    *err = cudaSuccess;
    while (launched < n &&
           (*err = cts_launch_gate(s[launched], d.flag_dev + launched, BUDGET_NS, d.rec_dev + launched, d.seq)) ==
               cudaSuccess &&
           (!marker || (*err = cts_launch_marker(s[launched], d.mk_dev + launched, d.seq)) == cudaSuccess))
        launched++;
    return launched;
}

/* Opens every flag, gives every kernel END_LIMIT_US to start, and synchronizes the streams that
 * were launched on: the first error. */
static cudaError_t release_all(int n, int launched, cudaStream_t *s)
{
    int seen[KMAX];
    for (int i = 0; i < n; i++)
        open_flag(i);
    for (double t0 = cts_now_us(); launched == n && count_started(n, seen) < n && cts_now_us() - t0 < END_LIMIT_US;)
        nap();
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < launched; i++) {
        cudaError_t e = cudaStreamSynchronize(s[i]);
        if (err == cudaSuccess)
            err = e;
    }
    return err;
}

/* Every gate and marker ran once its stream was synchronized: 0; else -1 with why. */
static int all_ran(int n, int marker, char *why, size_t len)
{
    for (int i = 0; i < n; i++)
        if (d.rec[i].ended != d.seq || (marker && d.mk[i].done != d.seq)) {
            snprintf(why, len, "harness: stream %d's %s had not run when its stream was synchronized", i,
                     d.rec[i].ended != d.seq ? "gate" : "marker");
            return -1;
        }
    return 0;
}

/* The kernels that had not started and began after the first started gate ended: they waited for a
 * gate, not for their launch. */
static int count_late(int n, const int *started)
{
    unsigned long long first_end = ~0ull;
    for (int i = 0; i < n; i++)
        if (started[i] && d.rec[i].end_ns < first_end)
            first_end = d.rec[i].end_ns;
    int late = 0;
    for (int i = 0; i < n; i++)
        late += !started[i] && d.rec[i].started == d.seq && d.rec[i].start_ns >= first_end;
    return late;
}

/* One try: the observations into r (cts_obs_set).  0; -1 with why (the harness). */
static int try_streams(int n, int marker, cudaStream_t *s, struct cts_rep *r, char *why, size_t len)
{
    const struct cts_outcome *o = &cts_queues_outcome;
    int started[KMAX] = {0};
    d.seq++;
    for (int i = 0; i < n; i++)
        d.flag[i] = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    cudaError_t err;
    int launched = launch_all(n, marker, s, &err);
    int at_once = launched == n ? settle(n, SETTLE_US, LAUNCH_LIMIT_US, started) : 0;
    int at_once_long = launched == n ? settle(n, SETTLE_US * LONG_FACTOR, LAUNCH_LIMIT_US, started) : 0;
    int waiting = -1, behind = -1;
    double gap = NAN;
    for (int i = 0; i < n && waiting < 0; i++)
        if (!started[i])
            waiting = i;
    if (launched == n && waiting >= 0 && !any_deadline(n))
        behind = find_behind(n, started, waiting, &gap);
    cudaError_t rel = release_all(n, launched, s);
    if (err == cudaSuccess)
        err = rel;
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: %s returned %s", launched < n ? "launching a gate or marker" : "cudaStreamSynchronize",
                 cudaGetErrorName(err));
        return -1;
    }
    if (all_ran(n, marker, why, len))
        return -1;
    cts_obs_set(r, o, "streams", n);
    cts_obs_set(r, o, "at_once", at_once);
    cts_obs_set(r, o, "at_once_long", at_once_long);
    cts_obs_set(r, o, "late", count_late(n, started));
    cts_obs_set(r, o, "first_waiting", waiting < 0 ? NAN : waiting);
    cts_obs_set(r, o, "behind", behind < 0 ? NAN : behind);
    cts_obs_set(r, o, "behind_gap_us", behind < 0 ? NAN : gap);
    cts_obs_set(r, o, "deadline", any_deadline(n)); /* a gate that ended at its deadline before its flag opened */
    return 0;
}

static void rep_streams(int n, int marker, cudaStream_t *s, struct cts_rep *r, struct cts_result *res)
{
    char seen[160] = "";
    for (int t = 0; t < TRIES; t++) {
        double t0 = cts_now_us();
        if (try_streams(n, marker, s, r, r->reason, sizeof r->reason)) {
            r->status = CTS_BROKEN;
            return;
        }
        r->call_us = cts_now_us() - t0;
        struct cts_verdict v = {0};
        cts_queues_outcome.from_rep(r, &v);
        if (cts_outcome_get(&v, &cts_queues_outcome))
            return;
        res->window_retries++;
        size_t k = strlen(seen);
        snprintf(seen + k, sizeof seen - k, "%s%.0f at once, %.0f after the longer wait, %.0f late%s", t ? "; " : "",
                 cts_obs_get(r, &cts_queues_outcome, "at_once"), cts_obs_get(r, &cts_queues_outcome, "at_once_long"),
                 cts_obs_get(r, &cts_queues_outcome, "late"),
                 cts_obs_get(r, &cts_queues_outcome, "deadline") != 0 ? ", a gate at its deadline" : "");
    }
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason, "no try proved the count, %d tries: %s", TRIES, seen);
}

/* The streams, each with its priority, and a first kernel on each (its first use, outside the
 * measurement): 0, or the error with failed_at. */
static cudaError_t make_streams(int n, const struct shape *p, cudaStream_t *s, int *made)
{
    int least = 0, greatest = 0;
    TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (*made = 0; *made < n; (*made)++) {
        int prio = p->priority == 0 ? 0 : p->priority == 1 || *made % 2 == 0 ? greatest : least;
        TRY(cudaStreamCreateWithPriority(&s[*made], cudaStreamNonBlocking, prio));
    }
    d.seq++;
    for (int i = 0; i < n; i++) {
        d.flag[i] = 1;
        TRY(cts_launch_gate(s[i], d.flag_dev + i, BUDGET_NS, d.rec_dev + i, d.seq));
        if (p->marker)
            TRY(cts_launch_marker(s[i], d.mk_dev + i, d.seq));
    }
    for (int i = 0; i < n; i++)
        TRY(cudaStreamSynchronize(s[i]));
    return cudaSuccess;
}

static void measure(const struct cts_case *c, int repeat, struct cts_result *res)
{
    memset(res, 0, sizeof *res);
    int n, made = 0;
    const struct shape *p = shape_of(c, &n);
    if (!p || setup()) {
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "%s", !p ? "harness: not a queues case" : once.why);
        return;
    }
    cudaStream_t s[KMAX];
    cudaError_t err = make_streams(n, p, s, &made);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        res->status = CTS_BROKEN;
        snprintf(res->reason, sizeof res->reason, "harness: %s returned %s", failed_at, cudaGetErrorName(err));
    }
    for (struct cts_rep *r; err == cudaSuccess && (r = cts_rep_next(res, repeat));)
        rep_streams(n, p->marker, s, r, res);
    for (int i = 0; i < made; i++)
        if ((err = cudaStreamDestroy(s[i])) != cudaSuccess && res->status != CTS_BROKEN) {
            (void)cudaGetLastError();
            res->status = CTS_BROKEN;
            snprintf(res->reason, sizeof res->reason, "harness: cudaStreamDestroy returned %s", cudaGetErrorName(err));
        }
    if (res->status != CTS_BROKEN)
        cts_classify_measured(res, SETTLE_US);
}

/* ---- what the documentation says ---------------------------------------------- */

static const struct cts_clause clauses[] = {
    {"MPS-MAX-CONNECTIONS", "GPU Deployment and Management Guide, Multi-Process Service, CUDA_DEVICE_MAX_CONNECTIONS",
     "When encountered in the MPS client's environment CUDA_DEVICE_MAX_CONNECTIONS sets the preferred number of "
     "compute and copy engine concurrent connections (work queues) from the host to the device for that client. "
     "The number actually allocated by the driver may differ from what is requested based on hardware resource "
     "limitations or other considerations. Under MPS, each server's clients share one pool of connections, "
     "whereas without MPS each CUDA context would be allocated its own separate connection pool.",
     "https://docs.nvidia.com/deploy/topics/topic_5_2_4.html", NULL},
    {NULL},
};

/* How many run at once is not promised: the variable names a preference. */
static void judge(struct cts_judge *j)
{
    cts_judge_add(j, "MPS-MAX-CONNECTIONS", CTS_ABOUT_CONCURRENT, CTS_PRED_MAY);
}

const struct cts_family cts_family_queues = {
    .name = "queues", .generate = generate, .needs = needs, .measure = measure,
    .clauses = clauses, .judge = judge, .judges_alone = 1,
};
