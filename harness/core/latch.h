/* The latch: a gate kernel holds the GPU until the host opens its flag.
 * A watchdog thread opens it after a timeout unless the call under test
 * returned first.  The watchdog makes no CUDA call. */
#ifndef CTS_LATCH_H
#define CTS_LATCH_H

#include <pthread.h>
#include <stdatomic.h>

enum { LATCH_IDLE, LATCH_ARMED, LATCH_RETURNED, LATCH_RELEASED, LATCH_QUIT };

struct cts_latch {
    volatile unsigned int *flag; /* mapped pinned host memory the gate spins on */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    atomic_int state;
    double deadline_us;  /* monotonic, when the watchdog opens the gate */
    double released_us;  /* monotonic, when it did (stamped before the flag was written) */
    double released_end_us;   /* monotonic, once the flag was written */
    double released_delay_us; /* the arming thread's run delay when the gate opened (NAN unknown) */
    int delay_fd;             /* the arming thread's schedstat, read by the watchdog */
    atomic_int realtime;      /* the watchdog runs SCHED_FIFO (where the system permits it) */
    atomic_int tid;           /* the watchdog's thread id (0 until it runs) */
    int running;
};

double cts_now_us(void); /* CLOCK_MONOTONIC in microseconds */
/* How long the calling thread has waited for a processor since it began
 * (schedstat's run delay, microseconds; NAN where the kernel does not say). */
double cts_run_delay_us(void);
/* The calling thread's schedstat, opened for any thread to read (close it when
 * done: threads that come and go would leak cts_run_delay_us's own), and the
 * run delay in it (NAN where it cannot be read). */
int cts_schedstat_open(void);
double cts_schedstat_delay_us(int fd);
/* The run delay of this process's other threads (the driver's among them),
 * read at once from /proc/self/task, leaving out the calling thread and
 * `skip` (a thread id, 0 for none): for a call that may wait on a thread of
 * its own process, which a busy host keeps from a processor as it keeps the
 * caller.  Tens of microseconds a reading. */
#define CTS_THREADS_MAX 64
struct cts_threads {
    int n;
    int tid[CTS_THREADS_MAX];
    double delay_us[CTS_THREADS_MAX];
};
/* 0, or -1 where /proc does not say (t->n 0). */
int cts_threads_read(struct cts_threads *t, int skip);
/* What the threads in both readings waited for a processor between them, in
 * all (NAN: a reading failed); the one that waited longest into *tid (0:
 * none waited) and its wait into *most_us. */
double cts_threads_waited_us(const struct cts_threads *before, const struct cts_threads *after, int *tid,
                             double *most_us);

/* Puts the calling thread in SCHED_FIFO at its lowest priority, so that it
 * runs when it wakes on a loaded host: 1, or 0 where not permitted.  For
 * watchdogs, which sleep but for a few instructions. */
int cts_thread_realtime(void);
/* What a thread may ask of the scheduler without privilege, where the kernel
 * has EEVDF's custom slices (Linux 6.12 and later): the calling thread's slice
 * (the time it runs before another of its processor's threads may; 100 us to
 * 100 ms): 1, or 0 where refused.  A short one lets a thread that wakes run
 * before busy threads end theirs; a long one keeps a running thread on its
 * processor through a call.  cts_thread_slice_us: the present one (NAN: not
 * known). */
int cts_thread_slice(double us);
double cts_thread_slice_us(void);

int cts_latch_start(struct cts_latch *l, volatile unsigned int *flag);
void cts_latch_stop(struct cts_latch *l);
/* Closes the flag.  Call before launching the gate. */
void cts_latch_close(struct cts_latch *l);
/* Arms the watchdog to open the gate timeout_us from now.  When it opens
 * the gate it reads the arming thread's run delay (released_delay_us). */
void cts_latch_arm(struct cts_latch *l, double timeout_us);
/* Right after the call returns: 1 if the gate was still closed (the
 * watchdog is then disarmed and the gate stays closed), 0 if the watchdog had
 * already opened it. */
int cts_latch_claim(struct cts_latch *l);
/* Opens the gate (if the watchdog has not) and returns the latch to idle. */
void cts_latch_open(struct cts_latch *l);

/* How long a gate may take to start, and a device to go idle once opened. */
#define START_LIMIT_US 5e6       /* a gate that has not started by then is BROKEN */
#define DRAIN_LIMIT_US 10e6      /* a device not idle this long after opening: TIMEOUT */

#endif
