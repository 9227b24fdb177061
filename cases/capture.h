/* The capture family's own, shared by its four files only: cases/capture.c
 * (the family: its cases, the lent calls, what the documentation says),
 * cases/capture_calls.c (its resources, the call, the second thread, the
 * set-up and the call's effect), cases/capture_rep.c (a repetition,
 * measured) and cases/capture_body.c (a call in a conditional node's body).  What the family measures and why: cases/capture.c. */
#ifndef CTS_CASES_CAPTURE_H
#define CTS_CASES_CAPTURE_H

#include "../harness/core/cts.h"
#include "../harness/families/family.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#define N_OF(a) (sizeof(a) / sizeof *(a))

/* The family's own calls (cases/capture.c): those that take a stream, then
 * those that do not.  Their lengths are checked: a definition of another
 * length does not compile. */
extern const enum cts_api cap_stream_calls[13];
extern const enum cts_api cap_plain_calls[13];

/* The variants (cases/capture.c says what each is). */
#define CAPTURED "captured"
#define EXTERNAL "external"
#define FIRST "first"
/* A "first" case's kernels: the first_launch family's pool (kernels/first_launch.cu). */
int cts_fresh_take(void);
int cts_fresh_left(void);
cudaError_t cts_launch_fresh(int i, cudaStream_t s, unsigned int *where, unsigned int value);

/* The lent calls (cases/capture.c): their representatives, and a lent call's buffers. */
#define LEND_BYTES ((size_t)1 << 20)
struct cap_lent_table {
    struct cts_case *v; /* the representatives, each of its own family */
    size_t n;
    int made;
};
extern struct cap_lent_table cap_lent;
const struct cts_case *cap_lent_of(const struct cts_case *c);

/* enum cts_capture as cudaStreamCaptureMode (NONE: unused; cases/capture_calls.c). */
extern const enum cudaStreamCaptureMode cap_capture_modes[];

/* The family's own resources (made once, on first use: cap_setup, cases/capture_calls.c). */
struct cap_state {
    int ready, device;
    int other;                /* another device (busy_thread_peer), or -1 */
    char why[CTS_REASON_MAX];
    unsigned char *src, *dst; /* device, BYTES each */
    unsigned char *host;      /* 64 KiB of pageable memory to register */
    cudaStream_t sib_blocking, sib_nonblocking, quiet; /* quiet: the harness's own work */
    cudaEvent_t done;         /* recorded (and complete) before any capture */
    cudaEvent_t fresh;        /* what the call records (and a "captured" case's capture) */
    cudaEvent_t asked;        /* what the call queries or waits for: done, or fresh */
    cudaEvent_t join;         /* a "captured" wait's stream, joined back to the capturing one */
    cudaStream_t capturing;   /* the capturing stream of the repetition */
    int joined;               /* a "captured" wait: its stream joined the capture, and the memset after it was made */
    int rejoin;               /* ... and that stream (not the capturing one) waits to be rejoined (cap_rejoin) */
    const char *join_error;   /* ... what failed after the wait, where something did (the harness's: BROKEN) */
    cudaMemPool_t pool;       /* the device's default pool */
    void *spare;              /* what cudaFree frees */
    void *pooled;             /* what cudaFreeAsync frees */
    void *made, *made_host, *made_pooled; /* what the call allocated: freed after the capture */
    CUmodule module;          /* what cuModuleLoadData loaded: unloaded after the capture */
    cudaGraph_t ended;        /* what cudaStreamEndCapture returned: destroyed after the capture */
    cudaGraph_t into;         /* a to-graph case's graph, made for the repetition (else NULL) */
    cudaGraphNode_t into_node; /* ... the node it held before the capture: the capture's one dependency */
    unsigned into_gen;         /* ... its serial: its user object's, whose destructor stores it in cap_released */
    void *image;              /* the module image, in malloc'ed (aligned) memory */
    unsigned int *word;       /* what a first-launched kernel stores into */
    int fresh_kernel;         /* the kernel a "first" case launches (-1: none left) */
    const struct cts_case *c; /* the case being measured */
    const struct cts_case *lent; /* its representative, where the call is lent (else NULL) */
    struct cts_case lc;          /* ... the call as its own family makes it (its op stream) */
    struct cts_scratch scratch;  /* ... what that family's prepare() keeps for the call */
    const char *after_error;     /* ... its after()'s error, where that failed (made by the calling thread) */
    void *lbuf[CTS_MEM_COUNT][2]; /* ... its memory: device, pinned, pageable; LEND_BYTES each */
    int registered;
    pthread_t worker;
};
extern struct cap_state cap_f;

#define SETUP(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            snprintf(cap_f.why, sizeof cap_f.why, "harness: setting up the capture family: %s returned %s", \
                     #call, cudaGetErrorName(e_));                                                      \
            return -1;                                                                                  \
        }                                                                                               \
    } while (0)

/* cases/capture_rep.c: a user object of the harness whose only reference graph g takes
 * (cudaGraphUserObjectMove), its serial in *serial: the driver runs its destructor when the graph
 * lets go of it, which the caller cannot see otherwise without touching a handle that may be stale;
 * and whether that destructor has run (waited for up to 10 ms where `wait`). */
cudaError_t cap_user_object(cudaGraph_t g, unsigned *serial);
int cap_user_object_released(unsigned serial, int wait);

/* cases/capture_calls.c */
/* The types of graph g's nodes (of its first 16) or'ed into *types as bits 1 << type, how many
 * nodes it has (*n) and how many of those read are kernels, node `skip` not counted where it is
 * among those read (the harness's own; NULL: none): 0, or -1 with cap_f.why. */
int cap_node_types(cudaGraph_t g, cudaGraphNode_t skip, unsigned *types, size_t *n, size_t *kernels);
/* The capturing thread, right after the call: a "captured" wait's joined stream rejoined to the
 * capturing stream (the event it recorded waited for), or cap_f.join_error. */
void cap_rejoin(cudaStream_t capturing);
const char *cap_call_in_mode(const struct cts_case *c, enum cts_capture by, cudaStream_t s, double *us);
const char *cap_in_worker(const struct cts_case *c, enum cts_capture by, cudaStream_t cap, enum cts_busy where,
                          double *us);
int cap_reset(void);
int cap_undo(void);
int cap_setup(void);
int cap_effect(enum cts_api api, int *out);

/* cases/capture_body.c: a call in a conditional node's body capture (variants body_if_<order>, body_while_<order>) */
int cap_is_body(const struct cts_case *c);
int cap_body_legal(enum cts_api api); /* a call a body capture takes (the control) */
size_t cap_body_generate(struct cts_case *out, size_t cap, size_t n, enum cts_capture m);
int cap_body_needs(const struct cts_case *c, char *why, size_t len);
int cap_body_rep(const struct cts_case *c, struct cts_rep *r); /* -1 with r BROKEN where the harness failed */

/* cases/capture_rep.c */
void cap_measure(const struct cts_case *c, int repeat, struct cts_result *res);

#endif
