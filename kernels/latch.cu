/* GPU side of the latch: the gate, the marker, the sleep kernel.
 *
 * Every time here is read from %globaltimer (nanoseconds, one clock for all
 * multiprocessors), never from clock64 cycles times a clock rate.  The records
 * live in mapped pinned host memory, so the host reads them without a CUDA
 * call while the GPU is still held. */
#include "../harness/families/kernels.h"

#include <stdint.h>

static __device__ __forceinline__ unsigned long long globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One thread spins on *flag until the host opens it, or until its own hard
 * deadline passes, so that nothing the host does (or fails to do) can hold
 * the GPU forever. */
__global__ void cts_gate_kernel(const volatile unsigned int *flag,
                                unsigned long long budget_ns,
                                struct cts_gate_record *rec, unsigned int seq)
{
    unsigned long long start = globaltimer();
    unsigned long long deadline = start + budget_ns;
    rec->start_ns = start;
    __threadfence_system();
    rec->started = seq;
    __threadfence_system();

    unsigned int reason = CTS_GATE_OPENED;
    while (*flag == 0u) {
        if (globaltimer() >= deadline) {
            reason = CTS_GATE_DEADLINE;
            break;
        }
        __nanosleep(500);
    }
    rec->end_ns = globaltimer();
    rec->reason = reason;
    __threadfence_system();
    rec->ended = seq;
    __threadfence_system();
}

/* Records when the stream reached it. */
__global__ void cts_marker_kernel(struct cts_marker_record *rec, unsigned int seq)
{
    rec->stamp_ns = globaltimer();
    __threadfence_system();
    rec->done = seq;
    __threadfence_system();
}

/* Occupies its stream for a given time measured on %globaltimer. */
__global__ void cts_sleep_kernel(unsigned long long ns)
{
    unsigned long long end = globaltimer() + ns;
    while (globaltimer() < end)
        __nanosleep(1000);
}

/* Sets (or reads) the harness's sample bytes of device-side memory in one
 * launch, where one synchronous copy a byte cost ~10 us each. */
__global__ void cts_poke_kernel(struct cts_bytes b)
{
    for (int i = 0; i < b.n; i++)
        *b.at[i] = b.value[i];
    __threadfence_system();
}

__global__ void cts_peek_kernel(struct cts_bytes b, unsigned char *out)
{
    for (int i = 0; i < b.n; i++)
        out[i] = *b.at[i];
    __threadfence_system();
}

extern "C" cudaError_t cts_launch_poke(cudaStream_t s, const struct cts_bytes *b)
{
    cts_poke_kernel<<<1, 1, 0, s>>>(*b);
    return cudaGetLastError();
}

extern "C" cudaError_t cts_launch_peek(cudaStream_t s, const struct cts_bytes *b, unsigned char *out_dev)
{
    cts_peek_kernel<<<1, 1, 0, s>>>(*b, out_dev);
    return cudaGetLastError();
}

/* The fault family's illegal address: a store to an address no allocation
 * has, which loses the context (a sticky cudaErrorIllegalAddress). */
__global__ void cts_fault_kernel(unsigned int *bad)
{
    *bad = 1u;
}

extern "C" cudaError_t cts_launch_fault(cudaStream_t s)
{
    cts_fault_kernel<<<1, 1, 0, s>>>((unsigned int *)(uintptr_t)0x10);
    return cudaGetLastError();
}

extern "C" cudaError_t cts_launch_gate(cudaStream_t s, const volatile unsigned int *flag_dev,
                                       unsigned long long budget_ns,
                                       struct cts_gate_record *rec_dev, unsigned int seq)
{
    cts_gate_kernel<<<1, 1, 0, s>>>(flag_dev, budget_ns, rec_dev, seq);
    return cudaGetLastError();
}

extern "C" cudaError_t cts_launch_marker(cudaStream_t s, struct cts_marker_record *rec_dev,
                                         unsigned int seq)
{
    cts_marker_kernel<<<1, 1, 0, s>>>(rec_dev, seq);
    return cudaGetLastError();
}

extern "C" cudaError_t cts_launch_sleep(cudaStream_t s, unsigned long long ns)
{
    cts_sleep_kernel<<<1, 1, 0, s>>>(ns);
    return cudaGetLastError();
}

extern "C" const void *cts_sleep_kernel_fn(void)
{
    return (const void *)cts_sleep_kernel;
}
