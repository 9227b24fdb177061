/* The fault family: test-only cases that break the process or its CUDA
 * context, to show that a run survives them (docs/method.md "Statuses", CRASH).
 * Declared only when the environment has CTS_FAULT_CASES=1, so that no real
 * run, `list` or CTest group ever sees them.  They need a GPU and are run by
 * hand: CTS_FAULT_CASES=1 sync-cts run 'fault.*' --repeat 3 (three: with two,
 * fickle_wait's waits are its first repetition and the one proving it, and
 * nothing follows to contradict them).
 *
 *   fault.abort            the call aborts the process (SIGABRT)
 *   fault.segv             the call writes through a null pointer (SIGSEGV):
 *                          its CRASH names the object it faulted in, sync-cts
 *   fault.illegal_address  the call launches a kernel that writes to an
 *                          invalid address: the context is lost (sticky)
 *   fault.none             the call does nothing: the run went on
 *   fault.fickle_wait      the call waits for the gate (cudaDeviceSynchronize)
 *                          in its first two repetitions and never after: the
 *                          latch's "returns" in the third contradicts their
 *                          timed "waits", and the recheck (case.c) replaces
 *                          them: PASS A with `rechecked` 2, not VARIES
 *   fault.starved_wait     waits for the gate in its first four calls (two
 *                          repetitions, each a late wait and the longer one
 *                          tracking it), each followed by 8 ms of spinning
 *                          while another thread shares its processor (its
 *                          thread waits for it for milliseconds: slow for a
 *                          reason outside the held work), then never: run
 *                          with --repeat 2, no repetition returns, and only
 *                          the recheck of starved waits (case.c) finds out:
 *                          PASS A with `rechecked` 2, not W
 *
 * Each on a non-blocking op stream, with the gate on another non-blocking
 * stream. */
#define _GNU_SOURCE
#include "../harness/core/cts.h"
#include "../harness/engine/engine.h" /* IDLE_WARMUP, IDLE_SAMPLES */
#include "../harness/families/kernels.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *const variants[] = {"abort", "segv", "illegal_address", "none", "fickle_wait", "starved_wait"};

static int enabled(void)
{
    const char *v = getenv("CTS_FAULT_CASES");
    return v && strcmp(v, "1") == 0;
}

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    if (!enabled())
        return 0;
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++, n++) {
        if (!out || n >= cap)
            continue;
        out[n] = (struct cts_case){.family = &cts_family_fault, .api = CTS_API_FAULT,
                                   .variant = variants[v], .dir = CTS_DIR_NONE, .mem = CTS_MEM_NONE,
                                   .size_idx = -1, .kind = CTS_KIND_NONE, .op = CTS_OP_NONBLOCKING,
                                   .busy = CTS_BUSY_NONBLOCKING};
        cts_case_make_id(&out[n]);
    }
    return n;
}

static atomic_int sharing;

/* Spins on the processor the caller is pinned to until told to stop. */
static void *share_processor(void *arg)
{
    (void)arg;
    while (atomic_load(&sharing))
        ;
    return NULL;
}

/* Waits for the gate in its first four measured calls, then spins for 8 ms
 * with a second thread sharing the caller's processor; never after. */
static int starved_wait(const char **error)
{
    static int calls;
    if (++calls <= IDLE_WARMUP + IDLE_SAMPLES || calls > IDLE_WARMUP + IDLE_SAMPLES + 4)
        return 0;
    cpu_set_t was, one;
    pthread_t rival;
    int cpu = sched_getcpu(), pinned = 0, started = 0;
    CPU_ZERO(&one);
    if (cpu >= 0 && pthread_getaffinity_np(pthread_self(), sizeof was, &was) == 0) {
        CPU_SET(cpu, &one);
        pinned = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
    }
    pthread_attr_t attr;
    if (pinned && pthread_attr_init(&attr) == 0) {
        atomic_store(&sharing, 1);
        started = pthread_attr_setaffinity_np(&attr, sizeof one, &one) == 0 &&
                  pthread_create(&rival, &attr, share_processor, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    cudaError_t err = cudaDeviceSynchronize();
    double until = cts_now_us() + 8000;
    while (cts_now_us() < until)
        ;
    atomic_store(&sharing, 0);
    if (started)
        pthread_join(rival, NULL);
    if (pinned)
        pthread_setaffinity_np(pthread_self(), sizeof was, &was);
    if (!started) {
        *error = "fault: no second thread could share the caller's processor";
        return 1;
    }
    *error = cudaGetErrorName(err);
    return err != cudaSuccess;
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    if (!strcmp(c->variant, "abort"))
        abort();
    if (!strcmp(c->variant, "segv")) {
        volatile int *volatile nowhere = NULL;
        *nowhere = 1;
    }
    if (!strcmp(c->variant, "illegal_address")) {
        cudaError_t err = cts_launch_fault((cudaStream_t)call->stream);
        *error = cudaGetErrorName(err);
        return err != cudaSuccess;
    }
    if (!strcmp(c->variant, "starved_wait"))
        return starved_wait(error);
    if (!strcmp(c->variant, "fickle_wait")) {
        /* The idle measurement makes the first calls; then two repetitions. */
        static int calls;
        if (++calls > IDLE_WARMUP + IDLE_SAMPLES && calls <= IDLE_WARMUP + IDLE_SAMPLES + 2) {
            cudaError_t err = cudaDeviceSynchronize();
            *error = cudaGetErrorName(err);
            return err != cudaSuccess;
        }
    }
    return 0;
}

const struct cts_family cts_family_fault = {
    .name = "fault", .generate = generate, .issue = issue,
};
