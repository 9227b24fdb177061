/* The overlap family's compute kernel for the staged-copy patterns: each
 * thread updates one float `iters` times (a kernel whose time scales with the
 * slice it is given, as the published example's does). */
#include <cuda_runtime.h>
#include <stddef.h>

__global__ void cts_stage_kernel(float *a, size_t n, int iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i];
        for (int k = 0; k < iters; k++)
            x = x * 0.999f + 0.001f;
        a[i] = x;
    }
}

extern "C" cudaError_t cts_launch_stage(float *a, size_t n, int iters, cudaStream_t s)
{
    cts_stage_kernel<<<(unsigned int)((n + 255) / 256), 256, 0, s>>>(a, n, iters);
    return cudaGetLastError();
}
