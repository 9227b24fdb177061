/* The data-order kernels (issue 18): the writer that held work ends with, the
 * fills that set a case's source and destination up, and the reader queued
 * after the call on its own stream.  Byte by byte, grid-stride, so that any
 * size and alignment goes; 16 MiB takes tens of microseconds. */
#include "../harness/families/kernels.h"
#include "../harness/core/pattern.h"

static unsigned blocks_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return b == 0 ? 1u : b > 4096 ? 4096u : (unsigned)b;
}

__global__ void cts_pattern_kernel(unsigned char *p, size_t n, unsigned seed, int which)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = cts_pattern_byte(i, seed, which);
    __threadfence_system();
}

__global__ void cts_snapshot_kernel(unsigned char *to, const volatile unsigned char *from, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        to[i] = from[i];
}

extern "C" cudaError_t cts_launch_pattern(cudaStream_t s, void *p, size_t n, unsigned seed, int which)
{
    cts_pattern_kernel<<<blocks_for(n), 256, 0, s>>>((unsigned char *)p, n, seed, which);
    return cudaGetLastError();
}

extern "C" cudaError_t cts_launch_snapshot(cudaStream_t s, void *to, const void *from, size_t n)
{
    cts_snapshot_kernel<<<blocks_for(n), 256, 0, s>>>((unsigned char *)to, (const volatile unsigned char *)from, n);
    return cudaGetLastError();
}
