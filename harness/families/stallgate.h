/* A gate that opens on a stall: the gate kernel holds a stream, spinning on
 * a flag in mapped pinned memory, and a watchdog thread (which makes no CUDA
 * call) opens the flag once no call has returned for the stall time; the
 * kernel also ends itself after CTS_SG_BUDGET_NS.  For the families that
 * measure themselves around calls that may wait (cases/depth.c,
 * cases/stall.c): a call that returned while the watchdog had not opened the
 * flag provably did not wait for the held work; one that returned only after
 * it is measured again with a longer stall time, and waited when its time
 * grew with it (TRACK_FRACTION, engine.h).
 *
 * One gate at a time per struct; each family keeps its own. */
#ifndef CTS_STALLGATE_H
#define CTS_STALLGATE_H

#include "kernels.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define CTS_SG_BUDGET_NS 20000000000ull /* the gate ends itself after 20 s */

struct cts_stallgate {
    volatile unsigned int *flag_host;
    unsigned int *flag_dev;
    struct cts_gate_record *gate_host, *gate_dev;
    unsigned seq;
    pthread_t watchdog;
    int running;
    atomic_int state;
    _Atomic double last_us, stall_us, released_us;
    _Atomic double deadline_us; /* a wait-value hold's: the watchdog opens the flag then (NAN: none) */
};

/* Allocates the flag and the gate's record and starts the watchdog: 0, or -1
 * with why.  The current device must be set. */
int cts_sg_init(struct cts_stallgate *g, char *why, size_t len);
/* The same on a flag and record another process maps too (harness/families/peer.c's
 * shared page; no CUDA call): the other process holds its stream on them. */
int cts_sg_init_shared(struct cts_stallgate *g, volatile unsigned int *flag, struct cts_gate_record *rec, char *why,
                       size_t len);
/* Closes the flag and holds s: 0 once the gate spins, else -1 with why.
 * cts_sg_hold_by: by a stream memory operation that waits on the flag where
 * wait_value is set (hold.h: launches may be synchronous, CUDA_LAUNCH_BLOCKING=1),
 * else the gate kernel. */
int cts_sg_hold(struct cts_stallgate *g, cudaStream_t s, char *why, size_t len);
int cts_sg_hold_by(struct cts_stallgate *g, cudaStream_t s, int wait_value, char *why, size_t len);
/* Closes the flag for a hold another process makes (a shared gate): the seq it
 * is to record, then cts_sg_started waits (START_LIMIT_US) until it spins. */
unsigned cts_sg_close_for_other(struct cts_stallgate *g);
int cts_sg_started(struct cts_stallgate *g, char *why, size_t len);
/* cudaStreamQuery until s is idle, or DRAIN_LIMIT_US after since_us (cudaErrorNotReady). */
cudaError_t cts_sg_drained(cudaStream_t s, double since_us);
/* After a hold's streams drained: 0 if its gate ended by the flag, else -1 with why. */
int cts_sg_ended_by_flag(const struct cts_stallgate *g, char *why, size_t len);
/* The watchdog opens the flag once nothing returned for stall_us, from now. */
void cts_sg_arm(struct cts_stallgate *g, double stall_us);
/* Right after a call returned: 1 if the flag was still closed (the call did
 * not wait for the held work; the stall time then starts again), else 0. */
int cts_sg_returned_closed(struct cts_stallgate *g);
/* 1 while the watchdog has not opened the flag (nor has cts_sg_open). */
int cts_sg_closed(struct cts_stallgate *g);
/* 1 while the flag is closed, armed or not (between cts_sg_hold and the opening). */
int cts_sg_flag_closed(struct cts_stallgate *g);
/* When the watchdog opened the flag (NAN: it has not). */
double cts_sg_released_us(struct cts_stallgate *g);
/* Opens the flag, if the watchdog has not. */
void cts_sg_open(struct cts_stallgate *g);
/* Opens the gate and waits for a and b (b may be NULL) to drain, at most
 * DRAIN_LIMIT_US (engine.h); then checks that the gate was ended by the flag,
 * not by its own deadline.  0; -1 with why (the harness); -2 with why where
 * they did not drain (TIMEOUT). */
int cts_sg_drain(struct cts_stallgate *g, cudaStream_t a, cudaStream_t b, char *why, size_t len);

#endif
