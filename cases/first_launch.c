/* The first_launch family: the first runtime-API launch of a kernel never
 * launched before in the process (launch.first), while another stream, or
 * the op stream itself, is held, on every op stream and busy placement,
 * busy work from a second host thread included.
 *
 * Every call the engine makes of a case (its idle calls, its repetitions,
 * their retries and rechecks) launches another kernel of a pool of distinct
 * ones (kernels/first_launch.cu, cudaLaunchKernel, 1 block, 1 thread): so
 * each is a first launch.  Under lazy loading (CUDA_MODULE_LOADING=LAZY, the
 * default since 12.2) that launch loads the kernel ("Loading kernels might
 * require context synchronization"); the pool's module is loaded by the
 * first of them, the first case's first idle call, which is not measured.
 * Under EAGER every kernel was loaded with the context, and the case is a
 * plain launch.  A case is NOTSUPP when fewer than RESERVE kernels of the
 * pool are left (a run of the whole family uses about 15 a case).
 *
 * The kernel stores a number into a device word of the family's; cleanup
 * checks it, with the device idle: the launch ran, and it was that kernel.
 * Does a first launch wait for held work, or make other streams wait?  The
 * gate's deadline bounds every wait: a launch that waited for the gate is
 * released by the watchdog, as any waiting call is. */
#include "../harness/core/cts.h"
#include "../harness/families/family.h"
#include "../harness/core/spec.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

int cts_fresh_kernels(void);
int cts_fresh_take(void); /* the pool is shared with the capture family (kernels/first_launch.cu) */
int cts_fresh_left(void);
const void *const *cts_fresh_table(void);
cudaError_t cts_launch_fresh(int i, cudaStream_t s, unsigned int *where, unsigned int value);

/* Launches kernel i of the pool (1 block, 1 thread) on s through cudaLaunchKernel: it stores
 * value + i into *where.  Here, not beside the kernels: compiled with each build, so that a
 * stream 0 is that build's default stream (the kernels are compiled once for both). */
cudaError_t cts_launch_fresh(int i, cudaStream_t s, unsigned int *where, unsigned int value)
{
    void *args[] = {&where, &value};
    dim3 one = {1, 1, 1};
    if (i < 0 || i >= cts_fresh_kernels())
        return cudaErrorInvalidValue;
    return cudaLaunchKernel(cts_fresh_table()[i], one, one, args, 0, s);
}

#define RESERVE 64

static unsigned int *word;   /* where the kernels store */
static unsigned int stores;  /* the last number given to one */

static size_t generate(struct cts_case *out, size_t cap)
{
    struct cts_case c = {.family = &cts_family_first_launch, .api = CTS_API_LAUNCH, .variant = "first",
                         .dir = CTS_DIR_NONE, .mem = CTS_MEM_NONE, .size_idx = -1, .kind = CTS_KIND_NONE};
    size_t n = cts_emit(&c, out, cap, 0);
    n = cts_emit_threads(&c, out, cap, n);
    return out ? (n < cap ? n : cap) : n;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    (void)c;
    int left = cts_fresh_left();
    if (left >= RESERVE)
        return 0;
    snprintf(why, len, "only %d of the %d never-launched kernels are left (a case may need %d)", left,
             cts_fresh_kernels(), RESERVE);
    return -1;
}

/* The device word cleared; s->value: the kernel this call will launch. */
static int prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    (void)c;
    cudaError_t err;
    if (!cts_fresh_left()) {
        *error = "no never-launched kernel left";
        return 1;
    }
    if (!word && (err = cudaMalloc((void **)&word, sizeof *word)) != cudaSuccess) {
        word = NULL;
        return cts_result(err, error);
    }
    s->value = (unsigned long long)cts_fresh_take();
    s->pitch = 0;
    return cts_result(cudaMemset(word, 0, sizeof *word), error);
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    (void)c;
    struct cts_scratch *s = call->scratch;
    if (++stores == 0)
        stores = 1;
    int i = (int)s->value;
    cudaError_t err = cts_launch_fresh(i, (cudaStream_t)call->stream, word, stores);
    s->pitch = err == cudaSuccess ? (size_t)(stores + (unsigned int)i) : 0; /* what it stores */
    return cts_result(err, error);
}

/* With the device idle: the word holds what that kernel stores. */
static int cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    (void)c;
    unsigned int seen = 0;
    if (!s->pitch)
        return 0; /* the launch failed: reported as the call's failure */
    cudaError_t err = cudaMemcpy(&seen, word, sizeof seen, cudaMemcpyDeviceToHost);
    if (err == cudaSuccess && seen != (unsigned int)s->pitch) {
        *error = "the first-launched kernel did not store its value";
        return 1;
    }
    return cts_result(err, error);
}

static const struct cts_clause clauses[] = {
    {"PG-LAZY-SYNC", "CUDA Programming Guide, Lazy Loading, Potential Hazards",
     "Loading kernels might require context synchronization.",
     "https://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/lazy-loading.html", NULL},
    {NULL},
};

/* After spec.c's launch rule (RT-SYNC-LAUNCH): what lazy loading allows. */
static void judge(struct cts_judge *j)
{
    cts_judge_add(j, "PG-LAZY-SYNC", CTS_ABOUT_HOST, CTS_PRED_MAY);
}

const struct cts_family cts_family_first_launch = {
    .name = "first_launch", .generate = generate, .needs = needs, .issue = issue,
    .prepare = prepare, .cleanup = cleanup, .clauses = clauses, .judge = judge,
};
