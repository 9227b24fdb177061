/* A second host thread beside a call (second.h). */
#define _GNU_SOURCE
#include "second.h"
#include "../core/latch.h"

#include <linux/futex.h>
#include <math.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SLICE_US 100.0 /* the thread's slice: the shortest (cts_thread_slice) */

static void wake(atomic_int *word) { (void)syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }

/* Sleeps until `until` (monotonic us) or a kick, whichever comes first. */
static void pause_until(struct cts_second *w, double until)
{
    struct timespec at = {(time_t)(until / 1e6), (long)(fmod(until, 1e6) * 1e3)};
    while (!atomic_load(&w->stop) && !atomic_load(&w->kick) && cts_now_us() < until)
        (void)syscall(SYS_futex, &w->kick, FUTEX_WAIT_BITSET_PRIVATE, 0, &at, NULL, FUTEX_BITSET_MATCH_ANY);
    atomic_store(&w->kick, 0);
}

/* What the thread may ask of the scheduler without privilege: its timers to
 * the nanosecond (a pace of 50 us, not the default 50 us slack late), and
 * the shortest slice (it wakes before busy threads end theirs). */
static void ask_scheduler(void)
{
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    (void)cts_thread_slice(SLICE_US);
}

static void *second_thread(void *arg)
{
    struct cts_second *w = arg;
    ask_scheduler();
    int fd = cts_schedstat_open();
    double last = cts_schedstat_delay_us(fd);
    w->err = cudaSetDevice(w->device);
    while (w->err == cudaSuccess && !atomic_load(&w->stop)) {
        long i = atomic_load(&w->made);
        double rb = cts_schedstat_delay_us(fd);
        double b = cts_now_us();
        cudaError_t err = w->command(w->arg);
        double e = cts_now_us();
        double re = cts_schedstat_delay_us(fd);
        if (err != cudaSuccess) {
            w->err = err;
            break;
        }
        if (i < CTS_SECOND_MAX) {
            w->cmd[i] = (struct cts_stall_cmd){b, e, re - rb, rb - last};
            atomic_store(&w->made, i + 1);
        }
        last = re;
        pause_until(w, b + w->pace_us);
    }
    if (fd >= 0)
        close(fd);
    atomic_store(&w->left, 1);
    return NULL;
}

void cts_second_nap(void)
{
    struct timespec t = {0, 50000};
    nanosleep(&t, NULL);
}

int cts_second_start(struct cts_second *w, int device, cudaError_t (*command)(void *), void *arg, double pace_us,
                     double lead_us, char *why, size_t len)
{
    w->device = device;
    w->command = command;
    w->arg = arg;
    w->pace_us = pace_us;
    atomic_store(&w->stop, 0);
    atomic_store(&w->left, 0);
    atomic_store(&w->kick, 0);
    atomic_store(&w->made, 0);
    w->err = cudaSuccess;
    if (pthread_create(&w->thread, NULL, second_thread, w)) {
        snprintf(why, len, "harness: the second thread could not start");
        return -1;
    }
    /* Asleep meanwhile: a thread that wakes is given a fresh slice, and the
     * call comes right after (cts_thread_slice). */
    double t0 = cts_now_us();
    while (!atomic_load(&w->left) && (atomic_load(&w->made) < 2 || cts_now_us() - t0 < lead_us))
        cts_second_nap();
    return 0;
}

void cts_second_kick(struct cts_second *w)
{
    atomic_store(&w->kick, 1);
    wake(&w->kick);
}

int cts_second_stop(struct cts_second *w, double limit_us)
{
    atomic_store(&w->stop, 1);
    wake(&w->kick);
    for (double t0 = cts_now_us(); !atomic_load(&w->left);)
        if (cts_now_us() - t0 > limit_us)
            return 0;
    return 1;
}

cudaError_t cts_second_join(struct cts_second *w)
{
    atomic_store(&w->stop, 1);
    wake(&w->kick);
    pthread_join(w->thread, NULL);
    return w->err;
}

size_t cts_second_made(const struct cts_second *w) { return (size_t)atomic_load(&w->made); }
