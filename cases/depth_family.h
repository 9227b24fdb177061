/* The depth family's own, shared by its three files only: cases/depth.c (the
 * family: its cases, the set-up, the scans, queue_depth), cases/depth_keep.c
 * (its calls, what it keeps, the gate) and cases/depth_full.c
 * (queue_full(_thread)).  What the family measures and why: cases/depth.c. */
#ifndef CTS_CASES_DEPTH_FAMILY_H
#define CTS_CASES_DEPTH_FAMILY_H

#include "../harness/core/cts.h"
#include "../harness/families/stallgate.h"

#include <cuda_runtime_api.h>
#include <stddef.h>

#define STALL_US 10000.0         /* the watchdog opens the gate after this long with no return */
#define STALL_FACTOR 4.0         /* ... and this many times longer, to track a wait */
#define TRIES 3
#define GROW_US ((STALL_FACTOR - 1) * STALL_US) /* how much longer the second stall time is */
#define BYTES 4096u              /* each copy's and memset's size (size index 1, "4KiB") */

/* The calls the family makes (cases/depth_keep.c), NCALLS of them; k below
 * indexes them. */
struct depth_call {
    enum cts_api api;
    enum cts_dir dir;
    enum cts_mem mem;
};
extern const struct depth_call depth_calls[];
#define NCALLS 10

/* What the family keeps (made once, on first use: setup, cases/depth.c). */
struct depth_state {
    int ready, device;
    char why[CTS_REASON_MAX];
    struct cts_stallgate g;
    cudaStream_t blocking, nonblocking, full; /* the op streams of their kinds; the stream filled */
    void *pinned[2], *dev[2], *pageable;
    cudaEvent_t recorded, complete;
    cudaGraphExec_t graph;
    long long fill;       /* launches the full stream takes (its launch depth), 0 before the scan */
};
extern struct depth_state depth_d;

/* cases/depth_keep.c */
cudaError_t depth_issue(size_t k, cudaStream_t s); /* call k on s */
int depth_returned_closed(void); /* cts_sg_returned_closed of depth_d.g */
int depth_drain(cudaStream_t a, cudaStream_t b, char *why, size_t len); /* opens the gate, waits for a and b */

/* cases/depth_full.c: a repetition of queue_full (threaded 0) or queue_full_thread (1) */
void depth_rep_full(size_t k, cudaStream_t s, int threaded, struct cts_rep *r, struct cts_result *res);

#endif
