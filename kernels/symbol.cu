/* The device symbol the copy family copies to and from
 * (cudaMemcpyToSymbol, cudaMemcpyFromSymbol and their Async forms). */
#include "../harness/families/kernels.h"

static __device__ unsigned char cts_symbol_bytes[CTS_SYMBOL_BYTES];

extern "C" const void *cts_symbol(void)
{
    return (const void *)&cts_symbol_bytes;
}
