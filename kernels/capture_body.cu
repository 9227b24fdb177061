/* The capture family's kernel for a conditional node's body (cases/capture_body.c):
 * it sets the node's condition to 0, so that a WHILE node runs its body once (an
 * IF node's is read once, before the body: it changes nothing there).  Needs the
 * conditional nodes of runtime 12.3. */
#include <cuda_runtime.h>

#if CUDART_VERSION >= 12030
__global__ void cts_cond_stop(cudaGraphConditionalHandle handle)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        cudaGraphSetConditional(handle, 0);
}

/* Loads it (under lazy loading its first launch would, inside a capture). */
extern "C" cudaError_t cts_cond_stop_load(void)
{
    cudaFuncAttributes a;
    return cudaFuncGetAttributes(&a, cts_cond_stop);
}

/* Launches it (1 block, 1 thread) on s, for the node whose handle is `handle`. */
extern "C" cudaError_t cts_launch_cond_stop(cudaStream_t s, unsigned long long handle)
{
    cts_cond_stop<<<1, 1, 0, s>>>((cudaGraphConditionalHandle)handle);
    return cudaGetLastError();
}
#endif
