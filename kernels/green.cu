/* GPU side of the green family (cases/green.c): the all-SM hold kernel and the start kernel.
 * Both take enough dynamic shared memory that one block fills an SM, so that a grid of one block
 * an SM occupies every SM it is given and a second kernel's block finds room only on an SM the first
 * does not hold.  Times are %globaltimer's (one clock for all SMs); records live in mapped pinned
 * memory, read by the host without a CUDA call while the GPU is held. */
#include "../cases/green.h"
#include "../harness/families/kernels.h"

static __device__ __forceinline__ unsigned long long green_now(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ unsigned int green_smid(void)
{
    unsigned int id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

static __device__ void green_begin(struct cts_green_rec *r, unsigned int seq)
{
    extern __shared__ unsigned char green_smem[];
    green_smem[0] = 0; /* the block's shared memory, held while it runs */
    r->start_ns = green_now();
    r->smid = green_smid();
    __threadfence_system();
    r->started = seq;
    __threadfence_system();
}

static __device__ void green_end(struct cts_green_rec *r, unsigned int reason, unsigned int seq)
{
    r->end_ns = green_now();
    r->reason = reason;
    __threadfence_system();
    r->ended = seq;
    __threadfence_system();
}

/* Each block: spins on *flag until the host opens it, or until its own deadline. */
__global__ void cts_green_hold_kernel(const volatile unsigned int *flag, unsigned long long budget_ns,
                                      struct cts_green_rec *rec, unsigned int seq)
{
    if (threadIdx.x != 0)
        return;
    struct cts_green_rec *r = rec + blockIdx.x;
    green_begin(r, seq);
    unsigned long long deadline = r->start_ns + budget_ns;
    unsigned int reason = CTS_GATE_OPENED;
    while (*flag == 0u) {
        if (green_now() >= deadline) {
            reason = CTS_GATE_DEADLINE;
            break;
        }
        __nanosleep(500);
    }
    green_end(r, reason, seq);
}

/* One block: records that it started, and ends. */
__global__ void cts_green_start_kernel(struct cts_green_rec *r, unsigned int seq)
{
    if (threadIdx.x != 0)
        return;
    green_begin(r, seq);
    green_end(r, CTS_GATE_OPENED, seq);
}

extern "C" cudaError_t cts_green_launch_hold(cudaStream_t s, const volatile unsigned int *flag_dev,
                                             unsigned long long budget_ns, struct cts_green_rec *rec_dev, int blocks,
                                             size_t smem, unsigned int seq)
{
    cts_green_hold_kernel<<<blocks, 32, smem, s>>>(flag_dev, budget_ns, rec_dev, seq);
    return cudaGetLastError();
}

extern "C" cudaError_t cts_green_launch_start(cudaStream_t s, struct cts_green_rec *rec_dev, size_t smem,
                                              unsigned int seq)
{
    cts_green_start_kernel<<<1, 32, smem, s>>>(rec_dev, seq);
    return cudaGetLastError();
}

extern "C" cudaError_t cts_green_allow_smem(size_t smem)
{
    cudaError_t e = cudaFuncSetAttribute(cts_green_hold_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(cts_green_start_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    return e;
}

extern "C" cudaError_t cts_green_blocks_per_sm(int *n, size_t smem)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, cts_green_hold_kernel, 32, smem);
}
