/* The stall family's own, shared by its two files only: cases/stall.c (the
 * family: its calls, how each is prepared, made and undone) and
 * cases/stall_window.c (its resources, the second thread's window, a
 * repetition).  What the family measures and why: cases/stall.c. */
#ifndef CTS_CASES_STALL_H
#define CTS_CASES_STALL_H

#include "../harness/core/cts.h"
#include "../harness/families/stallgate.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#define SMALL 1 /* size index 1: 4 KiB */
#define LARGE 6 /* size index 6: 16 MiB */
#define STALL_US 10000.0    /* the watchdog opens the gate this long after the call began */
#define STALL_FACTOR 4.0    /* ... and this many times longer, to track a wait */
#define GROW(stall) ((STALL_FACTOR - 1) * (stall)) /* how much longer the tracking try's stall time is */
#define CONTROL_US 10000.0  /* the control window */
#define LEAD_US 500.0       /* the second thread runs this long before the call or the control */
#define TAIL_US 1000.0      /* after a call that returned, the gate stays closed this long */
#define PACE_US 50.0        /* the second thread begins a command this often (at most 800 in 40 ms:
                             * fewer than a stream queues before a launch blocks, 1,021) */
#define EXIT_LIMIT_US 50000.0 /* the second thread leaves its loop within this once told (gate closed);
                               * 5 ms was too short once on a loaded host (H100, b8b2769: the control's
                               * thread not out in time, with no call: BROKEN) */
#define MIN_CONTROL 20      /* commands a control window must have timed */
#define TRIES 3
#define CALLER_SLICE_US 50000.0 /* the calling thread's, while the family runs: longer than a 16 MiB
                                 * cudaHostAlloc under load (24 ms, H200) */
#define KEPT_TRIES 200      /* a try where the second thread was kept from a processor (a busy host) is
                             * made again, at most this many times a repetition, before it counts: at
                             * 40, under 32 busy loops on the H200's 16 processors (2d2eb62), 15 cases
                             * took 20-70 such tries over their two repetitions and were proven, and 8
                             * used all 40 of one and were INCONCLUSIVE; a try takes 12-20 ms, and a
                             * quiet host needs 0-3 */
#define KEPT_TRIES_FIRST 40 /* ... for a first launch, whose every try spends one of the 1,024
                             * never-launched kernels (cases/stall.c's needs() reserves them) */
#define KEPT_TRIES_OF(x) ((x)->api == CTS_API_LAUNCH ? KEPT_TRIES_FIRST : KEPT_TRIES)
#define BRIEF_TRIES 10      /* a call that returned with no command of the second thread inside it is
                             * made again, at most this many times a repetition, before it is "brief"
                             * (cudaMemGetInfo, 11-64 us, fits a command of one every PACE_US only
                             * sometimes: H100, f8eae3d) */

/* The second thread's command; peer_*: the same on the other device (its stream and memory
 * there; NOTSUPP with one device): does a call on this device stall a thread working on another? */
extern const char *const stall_withs[];
enum { WITH_LAUNCH, WITH_MEMCPY, WITH_EVENT, WITH_PEER_LAUNCH, WITH_PEER_MEMCPY, NWITHS };
#define ON_PEER(w) ((w) >= WITH_PEER_LAUNCH)

/* A call the family makes: its own (cases/stall.c) or lent by another family. */
struct stall_call {
    enum cts_api api;
    const char *variant;
    enum cts_dir dir;
    enum cts_mem mem;
    int size_idx;
    enum cts_op op;
    enum cts_busy busy;
    const struct cts_case *lent; /* a lent call (below): its family's own case; NULL here */
};

/* What the family keeps (made once, on first use: stall_setup, cases/stall_window.c). */
struct stall_state {
    int ready, device;
    char why[CTS_REASON_MAX];
    struct cts_stallgate g;
    cudaStream_t own, held, second; /* the call's non-blocking stream, another held one, the second thread's */
    int peer;                      /* the other device (-1: none), and the second thread's stream and memory there */
    cudaStream_t second_peer;
    void *peer_dev;
    void *dev[2], *pinned[2], *pageable;
    cudaEvent_t behind, second_event; /* recorded behind the held work; the second thread's */
    unsigned int *word; /* where a first launch stores */
    unsigned int stores;
    void *image; /* the trigger family's module image, copied (cases/trigger.c does so too) */
    void *big_dev[2], *big_pageable; /* the lent calls' memory, LARGE bytes each */
};
extern struct stall_state stall_d;

/* What failed, for a harness error; the call's own error where it is not a cudaError_t. */
extern const char *stall_failed_at, *stall_call_error;
#define TRY(call) CTS_TRY_AT(stall_failed_at, call)

/* cases/stall.c */
size_t stall_ncalls(void);                         /* own and lent */
const struct stall_call *stall_call_at(size_t k);  /* the k-th, own then lent (NULL: a lent one not found) */
const struct stall_call *stall_call_of(const struct cts_case *c);
int stall_with_index(const struct cts_case *c);   /* the case's `with`: WITH_*, or -1 */
int stall_needs(const struct cts_case *c, char *why, size_t len);
int stall_lent_needs(const struct cts_case *x, char *why, size_t len);
cudaStream_t stall_held_stream(const struct stall_call *x);
cudaError_t stall_prepare(const struct stall_call *x, struct cts_scratch *s);
cudaError_t stall_issue(const struct stall_call *x, struct cts_scratch *s);
cudaError_t stall_cleanup(const struct stall_call *x, struct cts_scratch *s);

/* cases/stall_window.c */
void stall_measure(const struct cts_case *c, int repeat, struct cts_result *res);

#endif
