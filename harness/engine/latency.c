/* The latency of a cheap call from 1, 4 and 16 threads at once (issue 20,
 * item 4; docs/method.md, "Latency from several threads"): evidence beside
 * the verdicts of its family's cheap() cases, measured once for the cases
 * that differ only in busy placement, right after their idle measurement.
 *
 * At each thread count T, with the device idle: this thread has the family
 * prepare one scratch for every call (CALLS timed ones, and one warm-up call
 * a thread); T threads start, each makes the engine's device current and,
 * where the op stream is one the engine creates (blocking, non-blocking),
 * takes a stream of the same kind of its own (the other op streams are one
 * handle in every thread: the legacy stream, 0, the thread's own per-thread
 * stream); each makes one untimed warm-up call, and once every thread has,
 * all are let go at once and make their CALLS / T calls back to back, each
 * timed alone (the family's before and after hooks, if any, untimed around
 * it).  Then the device drains and this thread has the family clean up
 * every scratch.  A call or hook that fails ends the measurement:
 * latency_error names it and the thread count.  Nothing here touches a
 * verdict. */
#define _GNU_SOURCE
#include "engine_int.h"
#include "family.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CALLS 960 /* timed calls at each thread count, all threads together: fewer than a
                   * stream's queue takes before a launch blocks (the depth family: about a
                   * thousand), so that a full queue never times the launches */

struct lat_run {
    struct cts_engine *e;
    const struct cts_case *c;
    void *src, *dst;
    atomic_int ready; /* threads done with their warm-up (or failed before it) */
    atomic_int go;    /* 1: make the timed calls; -1: stop (a thread could not start) */
};

struct lat_thread {
    struct lat_run *run;
    pthread_t tid;
    cudaStream_t stream;
    int own_stream;              /* made for this thread (destroyed after) */
    struct cts_scratch *scratch; /* n + 1: the warm-up call's first */
    double *us;                  /* its n timed calls */
    int n;
    const char *error, *where;   /* the first failure: the error's name, and what returned it */
};

/* One call between the family's hooks; its time in *us (NULL: untimed). */
static int one_call(struct lat_thread *t, struct cts_scratch *s, double *us)
{
    const struct cts_case *c = t->run->c;
    struct cts_call call = {t->run->dst, t->run->src, 0x11, t->stream, s};
    const char *en = "?";
    char why[CTS_REASON_MAX];
    if (cts_eng_hook(c->family->before, c, s, t->stream, &en)) {
        t->where = "its family's before-hook";
        goto fail;
    }
    double t0 = cts_now_us();
    int err = c->family->issue(c, &call, &en);
    double t1 = cts_now_us();
    if (err && !cts_eng_rejected_as_documented(c, en, why)) {
        t->where = cts_api_function(c->api);
        goto fail;
    }
    if (!err && cts_eng_hook(c->family->after, c, s, t->stream, &en)) {
        t->where = "its family's after-hook";
        goto fail;
    }
    if (us)
        *us = t1 - t0;
    return 0;
fail:
    (void)cudaGetLastError();
    t->error = en;
    return -1;
}

static void *lat_main(void *arg)
{
    struct lat_thread *t = arg;
    struct lat_run *run = t->run;
    cudaError_t err = cudaSetDevice(run->e->device);
    if (err != cudaSuccess) {
        t->where = "cudaSetDevice";
        t->error = cudaGetErrorName(err);
    } else {
        (void)one_call(t, &t->scratch[0], NULL);
    }
    atomic_fetch_add(&run->ready, 1);
    int go;
    while ((go = atomic_load(&run->go)) == 0)
        ; /* spin: every thread leaves within the same few hundred nanoseconds */
    for (int i = 0; go > 0 && !t->error && i < t->n; i++)
        (void)one_call(t, &t->scratch[i + 1], &t->us[i]);
    return NULL;
}

/* Starts the threads, lets them go together once all are ready, joins them:
 * 0, or -1 with why (a thread that could not be started). */
static int run_threads(struct lat_run *run, struct lat_thread *th, int nth, char *why)
{
    int started = 0, rc = 0;
    for (; started < nth; started++)
        if (pthread_create(&th[started].tid, NULL, lat_main, &th[started])) {
            cts_eng_setf(why, "harness: cannot start thread %d of %d", started + 1, nth);
            rc = -1;
            break;
        }
    struct timespec nap = {0, 50000};
    while (rc == 0 && atomic_load(&run->ready) < nth)
        nanosleep(&nap, NULL);
    atomic_store(&run->go, rc == 0 ? 1 : -1);
    for (int k = 0; k < started; k++)
        pthread_join(th[k].tid, NULL);
    return rc;
}

/* The op stream of thread k: its own where the engine creates that kind. */
static int thread_stream(struct cts_engine *e, const struct cts_case *c, struct lat_thread *t, char *why)
{
    t->stream = cts_eng_op_stream(e, c->op);
    if (c->op != CTS_OP_BLOCKING && c->op != CTS_OP_NONBLOCKING)
        return 0;
    cudaError_t err = cudaStreamCreateWithFlags(&t->stream, c->op == CTS_OP_BLOCKING ? cudaStreamDefault
                                                                                      : cudaStreamNonBlocking);
    if (err != cudaSuccess) {
        cts_eng_setf(why, "harness: cudaStreamCreateWithFlags returned %s", cudaGetErrorName(err));
        return -1;
    }
    t->own_stream = 1;
    return 0;
}

/* Every scratch cleaned up (those prepared), every own stream destroyed:
 * 0, or -1 with why where nothing else was said. */
static int lat_cleanup(const struct cts_case *c, struct cts_scratch *sc, int prepared, struct lat_thread *th,
                       int nth, char *why)
{
    int rc = 0;
    const char *en = "?";
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        cts_eng_setf(why, "harness: draining after the threads returned %s", cudaGetErrorName(err));
        return -1;
    }
    for (int i = 0; i < prepared; i++)
        if (c->family->cleanup && c->family->cleanup(c, &sc[i], &en) && rc == 0) {
            cts_eng_setf(why, "harness: cleaning up after %s failed: %s", cts_api_function(c->api), en);
            rc = -1;
        }
    for (int k = 0; k < nth; k++)
        if (th[k].own_stream && (err = cudaStreamDestroy(th[k].stream)) != cudaSuccess && rc == 0) {
            cts_eng_setf(why, "harness: cudaStreamDestroy returned %s", cudaGetErrorName(err));
            rc = -1;
        }
    return rc;
}

/* One thread count: out filled, or -1 with why. */
static int measure_count(struct lat_run *run, int nth, struct cts_latency *out, char *why)
{
    const struct cts_case *c = run->c;
    struct lat_thread th[CTS_LATENCY_MOST];
    int per = CALLS / nth, total = per * nth, prepared = 0, rc = -1;
    double *us = calloc((size_t)total, sizeof *us);
    struct cts_scratch *sc = calloc((size_t)(total + nth), sizeof *sc);
    const char *en = "?";
    cudaError_t err;

    memset(th, 0, sizeof th);
    atomic_store(&run->ready, 0);
    atomic_store(&run->go, 0);
    if (!us || !sc) {
        cts_eng_setf(why, "harness: out of memory");
        goto out;
    }
    for (int k = 0; k < nth; k++) {
        th[k] = (struct lat_thread){.run = run, .scratch = sc + k * (per + 1), .us = us + k * per, .n = per};
        if (thread_stream(run->e, c, &th[k], why))
            goto out;
    }
    if ((err = cudaDeviceSynchronize()) != cudaSuccess) {
        cts_eng_setf(why, "harness: cudaDeviceSynchronize returned %s", cudaGetErrorName(err));
        goto out;
    }
    for (; prepared < total + nth; prepared++)
        if (c->family->prepare && c->family->prepare(c, &sc[prepared], &en)) {
            (void)cudaGetLastError();
            cts_eng_setf(why, "harness: setting up %s failed: %s", cts_api_function(c->api), en);
            goto out;
        }
    if ((err = cudaDeviceSynchronize()) != cudaSuccess) {
        cts_eng_setf(why, "harness: cudaDeviceSynchronize returned %s", cudaGetErrorName(err));
        goto out;
    }
    if (run_threads(run, th, nth, why))
        goto out;
    for (int k = 0; k < nth; k++)
        if (th[k].error) {
            cts_eng_setf(why, "%s returned %s in one of %d threads at once", th[k].where, th[k].error, nth);
            goto out;
        }
    qsort(us, (size_t)total, sizeof *us, cts_cmp_double);
    *out = (struct cts_latency){.threads = nth, .calls = total, .median_us = cts_quantile(us, (size_t)total, 0.5),
                                .p99_us = cts_quantile(us, (size_t)total, 0.99), .max_us = us[total - 1]};
    rc = 0;
out:;
    char later[CTS_REASON_MAX]; /* a clean-up's failure, said where nothing was before */
    if (lat_cleanup(c, sc, prepared, th, nth, later) && rc == 0) {
        snprintf(why, CTS_REASON_MAX, "%s", later);
        rc = -1;
    }
    free(sc);
    free(us);
    return rc;
}

void cts_engine_latency(struct cts_engine *e, const struct cts_case *c, struct cts_idle *idle)
{
    enum cts_mem sm, dm;
    cts_case_buffers(c, &sm, &dm);
    struct lat_run run = {.e = e, .c = c, .src = cts_eng_buffer(e, c, sm, 0), .dst = cts_eng_buffer(e, c, dm, 1)};
    memset(idle->latency, 0, sizeof idle->latency);
    idle->latency_error[0] = '\0';
    for (int k = 0; k < CTS_LATENCY_COUNTS; k++)
        if (measure_count(&run, cts_latency_threads[k], &idle->latency[k], idle->latency_error)) {
            memset(idle->latency, 0, sizeof idle->latency);
            return;
        }
}
