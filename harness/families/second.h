/* A second host thread beside a call: it keeps making one cheap command, one
 * every pace, asleep between them, and is woken to begin one as the call
 * begins.  Each command is timed with what its thread waited for a processor
 * during it and before it (schedstat's run delay): struct cts_stall_cmd, which
 * cts_stall_decide and cts_stall_control judge (harness/core/classify.c).  For
 * cases/stall.c: does a call stall the program's other threads? */
#ifndef CTS_SECOND_H
#define CTS_SECOND_H

#include "../core/cts.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define CTS_SECOND_MAX 16384 /* commands one window times, at most */

struct cts_second {
    pthread_t thread;
    atomic_int stop, left, kick; /* kick: begin a command now (the call is beginning); a futex word */
    atomic_long made;
    cudaError_t err;             /* the command's, or cudaSetDevice's */
    int device;
    cudaError_t (*command)(void *arg);
    void *arg;
    double pace_us;
    struct cts_stall_cmd cmd[CTS_SECOND_MAX];
};

/* Starts the thread on `device` making command(arg) every pace_us, and waits
 * (asleep) until it has run lead_us and timed two: 0, or -1 with why. */
int cts_second_start(struct cts_second *w, int device, cudaError_t (*command)(void *), void *arg, double pace_us,
                     double lead_us, char *why, size_t len);
/* Begins a command now (the thread is asleep, or in one: then as that returns). */
void cts_second_kick(struct cts_second *w);
/* Tells it to stop and waits limit_us for it to leave its loop: 1 if it left,
 * 0 if a command of its was still inside. */
int cts_second_stop(struct cts_second *w, double limit_us);
/* Stops and joins it: the first error its commands returned (cudaSuccess: none). */
cudaError_t cts_second_join(struct cts_second *w);
/* The commands it has timed so far, in the order made. */
size_t cts_second_made(const struct cts_second *w);
/* The calling thread asleep a moment (50 us): for its waits outside the call,
 * so that the scheduler keeps it more of a turn than one that spun. */
void cts_second_nap(void);

#endif
