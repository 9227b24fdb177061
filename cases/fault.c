/* The fault family: test-only cases that break the process or its CUDA
 * context, to show that a run survives them (docs/method.md "Statuses", CRASH).
 * Declared only when the environment has CTS_FAULT_CASES=1, so that no real
 * run, `list` or CTest group ever sees them.  They need a GPU and are run by
 * hand: CTS_FAULT_CASES=1 sync-cts run 'fault.*' --repeat 3 (three: with two,
 * fickle_wait's waits are its first repetition and the one proving it, and
 * nothing follows to contradict them).
 *
 *   fault.abort            the call aborts the process (SIGABRT)
 *   fault.illegal_address  the call launches a kernel that writes to an
 *                          invalid address: the context is lost (sticky)
 *   fault.none             the call does nothing: the run went on
 *   fault.fickle_wait      the call waits for the gate (cudaDeviceSynchronize)
 *                          in its first two repetitions and never after: the
 *                          latch's "returns" in the third contradicts their
 *                          timed "waits", and the recheck (case.c) replaces
 *                          them: PASS A with `rechecked` 2, not VARIES
 *
 * Each on a non-blocking op stream, with the gate on another non-blocking
 * stream. */
#include "../harness/cts.h"
#include "../harness/engine.h" /* IDLE_WARMUP, IDLE_SAMPLES */
#include "../harness/kernels.h"

#include <stdlib.h>
#include <string.h>

static const char *const variants[] = {"abort", "illegal_address", "none", "fickle_wait"};

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

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    if (!strcmp(c->variant, "abort"))
        abort();
    if (!strcmp(c->variant, "illegal_address")) {
        cudaError_t err = cts_launch_fault((cudaStream_t)call->stream);
        *error = cudaGetErrorName(err);
        return err != cudaSuccess;
    }
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
