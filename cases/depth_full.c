/* The depth family's queue_full and queue_full_thread: a repetition beside a
 * full queue, filled by this thread or a second one.  cases/depth.c says what
 * the family measures. */
#define _GNU_SOURCE
#include "depth_family.h"
#include "../harness/engine/engine.h" /* TRACK_FRACTION */
#include "../harness/families/kernels.h"
#include "../harness/core/latch.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define STUCK_US 2000.0          /* the filling thread is inside its launch this long: blocked */

/* The second thread of queue_full_thread: fills depth_d.full with launches
 * until one does not return while the flag is closed. */
static struct {
    pthread_t thread;
    atomic_llong filled;
    atomic_int inside; /* in a launch */
    cudaError_t err;
} filler;

static void *fill_thread(void *arg)
{
    (void)arg;
    filler.err = cudaSetDevice(depth_d.device);
    for (long long i = 0; filler.err == cudaSuccess && i <= depth_d.fill; i++) {
        atomic_store(&filler.inside, 1);
        filler.err = cts_launch_sleep(depth_d.full, 0);
        atomic_store(&filler.inside, 0);
        if (filler.err != cudaSuccess)
            break;
        if (!depth_returned_closed())
            break; /* the queue was full: this launch waited for the gate */
        atomic_store(&filler.filled, i + 1);
    }
    return NULL;
}

struct full_try {
    struct cts_beside_try t; /* what cts_beside_decide reads */
    long long filled;        /* launches queued on the full stream first */
    double after_us;         /* where the call waited: from the opening to its return */
};

/* The full stream filled to its depth: by this thread (each launch proven
 * not to wait), or by the second thread, waited for until it sits inside
 * the next launch.  The launches queued; *ferr: a launch's error. */
static long long fill(int threaded, cudaError_t *ferr)
{
    long long n = 0;
    if (!threaded) {
        while (n < depth_d.fill && (*ferr = cts_launch_sleep(depth_d.full, 0)) == cudaSuccess &&
               depth_returned_closed())
            n++;
        return n;
    }
    while (cts_sg_closed(&depth_d.g) &&
           !(atomic_load(&filler.filled) >= depth_d.fill && atomic_load(&filler.inside) &&
             cts_now_us() - atomic_load(&depth_d.g.last_us) >= STUCK_US))
        ;
    return atomic_load(&filler.filled);
}

/* The call beside the full queue, into f; *ferr: the check launch's error. */
static cudaError_t beside(size_t k, cudaStream_t s, int threaded, struct full_try *f, cudaError_t *ferr)
{
    double t0 = cts_now_us();
    cudaError_t err = depth_issue(k, s);
    double t1 = cts_now_us(), rel;
    f->t.call_us = t1 - t0;
    f->t.returned = err == cudaSuccess && depth_returned_closed();
    rel = cts_sg_released_us(&depth_d.g);
    f->t.early = !f->t.returned && (isnan(rel) || t1 < rel);
    f->after_us = f->t.returned ? NAN : t1 - rel;
    f->t.filled = 1;
    if (!f->t.returned)
        f->t.full = 1; /* the queue was full when the call was made, and the flag opened since */
    else if (threaded)
        f->t.full = atomic_load(&filler.inside); /* the filler still blocked after the call */
    else /* the next launch on the full stream must wait */
        f->t.full = (*ferr = cts_launch_sleep(depth_d.full, 0)) == cudaSuccess && !depth_returned_closed();
    return err;
}

/* One try of queue_full(_thread) with the given stall time: 0, or -1 with
 * why (the harness), -2 (TIMEOUT) or 1 (the call failed). */
static int full_try(size_t k, cudaStream_t s, int threaded, double stall_us, struct full_try *f, char *why,
                    size_t len)
{
    memset(f, 0, sizeof *f);
    if (cts_sg_hold(&depth_d.g, depth_d.full, why, len))
        return -1;
    cts_sg_arm(&depth_d.g, stall_us);
    cudaError_t err = cudaSuccess, ferr = cudaSuccess;
    if (threaded) {
        atomic_store(&filler.filled, 0);
        atomic_store(&filler.inside, 0);
        if (pthread_create(&filler.thread, NULL, fill_thread, NULL)) {
            cts_sg_open(&depth_d.g);
            snprintf(why, len, "harness: the filling thread could not start");
            return -1;
        }
    }
    f->filled = fill(threaded, &ferr);
    if (ferr == cudaSuccess && f->filled == depth_d.fill && cts_sg_closed(&depth_d.g))
        err = beside(k, s, threaded, f, &ferr);
    if (threaded) {
        cts_sg_open(&depth_d.g);
        pthread_join(filler.thread, NULL);
        if (filler.err != cudaSuccess)
            ferr = filler.err;
    }
    int bad = depth_drain(depth_d.full, s, why, len);
    if (bad == -2)
        return -2;
    if (ferr != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "harness: filling the held stream returned %s", cudaGetErrorName(ferr));
        return -1;
    }
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, len, "%s returned %s", cts_api_function(depth_calls[k].api), cudaGetErrorName(err));
        return 1;
    }
    return bad ? -1 : 0;
}

void depth_rep_full(size_t k, cudaStream_t s, int threaded, struct cts_rep *r, struct cts_result *res)
{
    struct full_try a, b;
    char seen[160] = "";
    for (int t = 0; t < TRIES; t++) {
        int bad = full_try(k, s, threaded, STALL_US, &a, r->reason, sizeof r->reason);
        if (bad) {
            r->status = bad > 0 ? CTS_FAIL : bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
            return;
        }
        r->timeout_us = STALL_US;
        r->depth.fill = a.filled;
        r->depth.max = depth_d.fill;
        r->depth.limit = CTS_DEPTH_BESIDE;
        int again;
        enum cts_host h = cts_beside_decide(&a.t, NULL, GROW_US, TRACK_FRACTION, &again);
        if (h == CTS_HOST_RETURNS) {
            r->host = h;
            r->call_us = a.t.call_us;
            return;
        }
        if (again) { /* waited: tracked with a longer stall */
            bad = full_try(k, s, threaded, STALL_US * STALL_FACTOR, &b, r->reason, sizeof r->reason);
            if (bad) {
                r->status = bad > 0 ? CTS_FAIL : bad == -2 ? CTS_TIMEOUT : CTS_BROKEN;
                return;
            }
            if (cts_beside_decide(&a.t, &b.t, GROW_US, TRACK_FRACTION, &again) == CTS_HOST_WAITS) {
                r->host = CTS_HOST_WAITS; /* the longer try, tracked from the first (as the engine's) */
                r->call_us = b.t.call_us;
                r->timeout_us = STALL_US * STALL_FACTOR;
                r->release_to_return_us = b.after_us;
                r->tracked_from_timeout_us = STALL_US;
                r->tracked_from_call_us = a.t.call_us;
                r->depth.blocked_us = a.t.call_us;
                r->depth.tracked_us = b.t.call_us;
                r->depth.stall_us = STALL_US;
                r->depth.tracked_stall_us = STALL_US * STALL_FACTOR;
                return;
            }
        }
        res->window_retries++;
        size_t n = strlen(seen);
        snprintf(seen + n, sizeof seen - n, "%sfilled %lld of %lld%s, %s", t ? "; " : "", a.filled, depth_d.fill,
                 a.t.full ? "" : " (not full)", a.t.returned ? "returned" : a.t.early ? "returned late" : "waited");
    }
    r->status = CTS_INCONCLUSIVE;
    snprintf(r->reason, sizeof r->reason, "no try proved the call beside a full queue, %d tries: %s", TRIES, seen);
}
