/* The green family's private header (cases/green.c over cases/green_ctx.c, and its device code,
 * kernels/green.cu): what a block of its kernels records, the launches, and the contexts and
 * streams a case makes. */
#ifndef CTS_GREEN_H
#define CTS_GREEN_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CTS_GREEN_MAX_BLOCKS 512 /* the all-SM kernel's grid: one block an SM of the device */

/* Written by a block of the hold kernel (or by the start kernel), read by the host through mapped
 * pinned memory while the GPU is held: %globaltimer when it began and ended, its SM, and seq once
 * it had begun and ended; why it ended (CTS_GATE_OPENED or CTS_GATE_DEADLINE, kernels.h). */
struct cts_green_rec {
    volatile unsigned long long start_ns, end_ns;
    volatile unsigned int smid, started, ended, reason;
};

/* Both kernels take `smem` bytes of dynamic shared memory, so that one block fills an SM. */
/* The all-SM kernel: `blocks` blocks, each spinning on *flag_dev until it opens or budget_ns pass. */
cudaError_t cts_green_launch_hold(cudaStream_t s, const volatile unsigned int *flag_dev, unsigned long long budget_ns,
                                  struct cts_green_rec *rec_dev, int blocks, size_t smem, unsigned int seq);
/* The start kernel: one block that stamps its start and ends. */
cudaError_t cts_green_launch_start(cudaStream_t s, struct cts_green_rec *rec_dev, size_t smem, unsigned int seq);
/* Lets both kernels take `smem` bytes (cudaFuncSetAttribute) in the current context. */
cudaError_t cts_green_allow_smem(size_t smem);
/* How many blocks of the hold kernel fit an SM with `smem` bytes each. */
cudaError_t cts_green_blocks_per_sm(int *n, size_t smem);

#ifdef __cplusplus
}
#endif

#ifndef __CUDACC__
#include <cuda.h>

/* What a case makes (cases/green_ctx.c): green contexts A and B (CUgreenCtx, as void * so that
 * 12.0's headers compile) with their CUcontexts; two streams of A (a[0] holds, a[1] idle), one of
 * B, two non-blocking streams of the primary context; and an event on each idle stream (B's, A's
 * second, the primary's first). */
struct green_ctxs {
    CUcontext primary, ctx_a, ctx_b;
    void *green_a, *green_b;
    unsigned sms_a, sms_b, sms_device; /* the SMs each green context was given; the device's */
    cudaStream_t a[2], b, p[2];
    cudaEvent_t ev_a, ev_b, ev_p;
};

/* Makes them (the primary context current, and current again on return): CTS_PASS; else, with why,
 * CTS_NOTSUPP where the driver or the device cannot (CUDA_ERROR_NOT_SUPPORTED, fewer than two groups
 * of SMs), CTS_FAIL where a green-context call failed otherwise (the product's), CTS_BROKEN where a
 * harness call did.  What was made is destroyed again on failure. */
int green_make(struct green_ctxs *x, size_t smem, char *why, size_t len);
/* Destroys what green_make made, the primary context put back: 0, or -1 with the first error. */
int green_destroy(struct green_ctxs *x, char *why, size_t len);
/* Makes ctx current in this thread: 0, or -1 with why. */
int green_use(CUcontext ctx, char *why, size_t len);
#endif

#endif
