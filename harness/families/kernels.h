/* The C face of kernels/latch.cu. */
#ifndef CTS_KERNELS_H
#define CTS_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CTS_GATE_OPENED = 1, CTS_GATE_DEADLINE = 2 };

/* Written by the gate; read by the host through mapped pinned memory. */
struct cts_gate_record {
    volatile unsigned long long start_ns; /* %globaltimer when the gate began spinning */
    volatile unsigned long long end_ns;   /* %globaltimer when it stopped */
    volatile unsigned int started;        /* = seq once running */
    volatile unsigned int ended;          /* = seq once finished */
    volatile unsigned int reason;         /* CTS_GATE_OPENED or CTS_GATE_DEADLINE */
    unsigned int pad;
};

struct cts_marker_record {
    volatile unsigned long long stamp_ns; /* %globaltimer when the stream reached it */
    volatile unsigned int done;           /* = seq once written */
    unsigned int pad;
};

/* Up to CTS_BYTES_MAX single bytes of device-accessible memory. */
#define CTS_BYTES_MAX 6
struct cts_bytes {
    unsigned char *at[CTS_BYTES_MAX];
    unsigned char value[CTS_BYTES_MAX];
    int n;
};
/* Writes value[i] to at[i], i < n, in one launch. */
cudaError_t cts_launch_poke(cudaStream_t s, const struct cts_bytes *b);
/* Reads *at[i] into out_dev[i] (mapped host memory), i < n, in one launch. */
cudaError_t cts_launch_peek(cudaStream_t s, const struct cts_bytes *b, unsigned char *out_dev);
cudaError_t cts_launch_gate(cudaStream_t s, const volatile unsigned int *flag_dev,
                            unsigned long long budget_ns, struct cts_gate_record *rec_dev,
                            unsigned int seq);
cudaError_t cts_launch_marker(cudaStream_t s, struct cts_marker_record *rec_dev, unsigned int seq);
cudaError_t cts_launch_sleep(cudaStream_t s, unsigned long long ns);
/* Data order (kernels/dataorder.cu): writes n bytes of pattern `which`
 * (harness/core/pattern.h) at p; copies n bytes from `from` to `to`. */
cudaError_t cts_launch_pattern(cudaStream_t s, void *p, size_t n, unsigned seed, int which);
cudaError_t cts_launch_snapshot(cudaStream_t s, void *to, const void *from, size_t n);
/* Test-only (the fault family): a kernel that writes to an invalid address. */
cudaError_t cts_launch_fault(cudaStream_t s);
/* The sleep kernel itself, for the calls that take a kernel function
 * (cudaFuncSetCacheConfig, cudaFuncGetAttributes). */
const void *cts_sleep_kernel_fn(void);

/* A device symbol of CTS_SYMBOL_BYTES bytes (kernels/symbol.cu): what
 * cudaMemcpyToSymbol and cudaMemcpyFromSymbol take as `symbol`. */
#define CTS_SYMBOL_BYTES ((1u << 20) + 4096u)
const void *cts_symbol(void);

#ifdef __cplusplus
}
#endif
#endif
