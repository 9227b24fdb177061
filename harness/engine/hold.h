/* How work is held: the gate kernel (kernels/latch.cu), or a stream memory
 * operation that waits on the same flag (cuStreamWaitValue32 on mapped
 * pinned memory), which is not a kernel launch and so holds a stream even
 * where launches are synchronous (CUDA_LAUNCH_BLOCKING=1).  Both are opened
 * by the watchdog (latch.c); the gate kernel ends itself at a %globaltimer
 * deadline, the wait by a deadline thread of its own that opens the flag. */
#ifndef CTS_HOLD_H
#define CTS_HOLD_H

#include "family.h"
#include "kernels.h"

#include <cuda_runtime_api.h>

/* enum cts_hold, its names and the method selected: family.h. */

struct cts_engine;
/* A gate on s: it records started/ended = seq in the engine's gate record
 * and holds s until the flag opens, or budget_ns passes. */
cudaError_t cts_eng_gate(struct cts_engine *e, cudaStream_t s, unsigned long long budget_ns, unsigned seq);
/* A marker on s: rec->done = seq once s reaches it (with a %globaltimer stamp
 * under the kernel method only). */
cudaError_t cts_eng_marker(const struct cts_engine *e, cudaStream_t s, struct cts_marker_record *rec_dev,
                           unsigned seq);
/* Markers carry GPU stamps (kernel method): holds are tracked on the GPU's
 * clock; otherwise on the host's, polling. */
int cts_eng_gpu_stamps(const struct cts_engine *e);
/* Starts and stops the wait-value method's deadline thread (no CUDA call). */
int cts_hold_start(struct cts_engine *e);
void cts_hold_stop(struct cts_engine *e);

#endif
