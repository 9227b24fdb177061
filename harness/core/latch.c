#define _GNU_SOURCE
#include "latch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

double cts_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The run delay in a schedstat file (its second number, ns), in us. */
static double read_delay(int fd)
{
    char buf[128];
    unsigned long long on = 0, wait = 0;
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0)
        return NAN;
    buf[n] = 0;
    return sscanf(buf, "%llu %llu", &on, &wait) == 2 ? (double)wait / 1e3 : NAN;
}

/* This thread's schedstat, opened once per thread (the file of the thread
 * that opened it, whoever reads it later). */
static _Thread_local int own_fd = -1;

int cts_schedstat_open(void) { return open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC); }

double cts_schedstat_delay_us(int fd) { return read_delay(fd); }

static int own_schedstat(void)
{
    if (own_fd < 0)
        own_fd = cts_schedstat_open();
    return own_fd;
}

double cts_run_delay_us(void) { return read_delay(own_schedstat()); }

int cts_threads_read(struct cts_threads *t, int skip)
{
    t->n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int self = (int)syscall(SYS_gettid);
    struct dirent *de;
    while ((de = readdir(d)) && t->n < CTS_THREADS_MAX) {
        int tid = atoi(de->d_name);
        if (tid <= 0 || tid == self || tid == skip)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", tid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        double delay = read_delay(fd);
        if (fd >= 0)
            close(fd);
        if (isnan(delay))
            continue; /* gone since the listing */
        t->tid[t->n] = tid;
        t->delay_us[t->n++] = delay;
    }
    closedir(d);
    return 0;
}

double cts_threads_waited_us(const struct cts_threads *before, const struct cts_threads *after, int *tid,
                             double *most_us)
{
    double all = 0;
    *tid = 0;
    *most_us = 0;
    if (!before->n || !after->n)
        return NAN;
    for (int i = 0; i < after->n; i++)
        for (int j = 0; j < before->n; j++) {
            if (before->tid[j] != after->tid[i])
                continue;
            double waited = after->delay_us[i] - before->delay_us[j];
            all += waited;
            if (waited > *most_us) {
                *most_us = waited;
                *tid = after->tid[i];
            }
        }
    return all;
}

int cts_thread_realtime(void)
{
    struct sched_param sp = {.sched_priority = sched_get_priority_min(SCHED_FIFO)};
    return sp.sched_priority >= 0 && pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
}

/* struct sched_attr (linux/sched/types.h, its first version), which glibc before 2.41 lacks. */
struct slice_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

double cts_thread_slice_us(void)
{
    struct slice_attr a = {0};
    if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof a, 0u) || a.policy != SCHED_OTHER)
        return NAN;
    return (double)a.runtime / 1e3;
}

int cts_thread_slice(double us)
{
    struct slice_attr a = {0};
    if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof a, 0u) || a.policy != SCHED_OTHER)
        return 0;
    a.size = sizeof a;
    a.flags = 0;
    a.runtime = (uint64_t)(us * 1e3);
    return syscall(SYS_sched_setattr, 0, &a, 0u) == 0;
}

static void open_flag(struct cts_latch *l)
{
    atomic_thread_fence(memory_order_seq_cst);
    *l->flag = 1u;
    atomic_thread_fence(memory_order_seq_cst);
}

static void *watchdog(void *arg)
{
    struct cts_latch *l = arg;
    atomic_store(&l->realtime, cts_thread_realtime());
    atomic_store(&l->tid, (int)syscall(SYS_gettid));
    pthread_mutex_lock(&l->mu);
    for (;;) {
        int st = atomic_load(&l->state);
        if (st == LATCH_QUIT)
            break;
        if (st != LATCH_ARMED) {
            pthread_cond_wait(&l->cv, &l->mu);
            continue;
        }
        double left = l->deadline_us - cts_now_us();
        if (left > 0) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            long long ns = ts.tv_nsec + (long long)(left * 1e3);
            ts.tv_sec += ns / 1000000000LL;
            ts.tv_nsec = ns % 1000000000LL;
            pthread_cond_timedwait(&l->cv, &l->mu, &ts);
            continue;
        }
        int expected = LATCH_ARMED;
        /* Claim first, then open: if the main thread's claim succeeded, the
         * flag was never opened by us before the call returned. */
        if (atomic_compare_exchange_strong(&l->state, &expected, LATCH_RELEASED)) {
            /* The caller's run delay first: whatever it waited for a
             * processor after this point, it waited with the gate open. */
            l->released_delay_us = read_delay(l->delay_fd);
            l->released_us = cts_now_us();
            open_flag(l);
            l->released_end_us = cts_now_us();
        }
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

int cts_latch_start(struct cts_latch *l, volatile unsigned int *flag)
{
    pthread_condattr_t ca;
    l->flag = flag;
    l->released_us = l->released_end_us = l->released_delay_us = NAN;
    l->delay_fd = -1;
    atomic_store(&l->tid, 0);
    atomic_store(&l->state, LATCH_IDLE);
    if (pthread_mutex_init(&l->mu, NULL) || pthread_condattr_init(&ca) ||
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) || pthread_cond_init(&l->cv, &ca))
        return -1;
    pthread_condattr_destroy(&ca);
    if (pthread_create(&l->thread, NULL, watchdog, l))
        return -1;
    l->running = 1;
    return 0;
}

void cts_latch_stop(struct cts_latch *l)
{
    if (!l->running)
        return;
    pthread_mutex_lock(&l->mu);
    atomic_store(&l->state, LATCH_QUIT);
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
    pthread_join(l->thread, NULL);
    l->running = 0;
}

void cts_latch_close(struct cts_latch *l)
{
    *l->flag = 0u;
    atomic_thread_fence(memory_order_seq_cst);
}

void cts_latch_arm(struct cts_latch *l, double timeout_us)
{
    int fd = own_schedstat();
    pthread_mutex_lock(&l->mu);
    l->released_us = l->released_end_us = l->released_delay_us = NAN;
    l->delay_fd = fd;
    l->deadline_us = cts_now_us() + timeout_us;
    atomic_store(&l->state, LATCH_ARMED);
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

int cts_latch_claim(struct cts_latch *l)
{
    int expected = LATCH_ARMED;
    return atomic_compare_exchange_strong(&l->state, &expected, LATCH_RETURNED);
}

void cts_latch_open(struct cts_latch *l)
{
    pthread_mutex_lock(&l->mu);
    if (atomic_load(&l->state) != LATCH_RELEASED)
        open_flag(l);
    atomic_store(&l->state, LATCH_IDLE);
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}
