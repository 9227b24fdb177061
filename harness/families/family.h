/* Helpers every family (cases/) shares. */
#ifndef CTS_FAMILY_H
#define CTS_FAMILY_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stddef.h>

#include "kernels.h"

struct cts_case;

/* For issue/prepare/cleanup: 0 on cudaSuccess, else 1, with the error's name in *error. */
int cts_result(cudaError_t err, const char **error);
/* For needs(): 0 if the current device's attribute `a` (called `name`) is
 * non-zero; else -1 with why ("<name> is 0 on this device", or why it could not be read). */
int cts_need_attribute(enum cudaDeviceAttr a, const char *name, char *why, size_t len);

/* Likewise for a driver API CUresult. */
int cts_driver_result(CUresult r, const char **error);
/* For needs(): 0 if the driver API function `name` (a driver.h entry) was
 * found; else -1 with why. */
int cts_need_driver(const char *name, char *why, size_t len);
/* For needs(): 0 if cudaDriverGetVersion reports at least `version`
 * (e.g. 12080 for 12.8); else -1 with why, naming `what` needs it. */
int cts_need_driver_version(int version, const char *what, char *why, size_t len);
/* Every case, before its family's needs(): 0 if the runtime built against
 * (CUDART_VERSION) has the form of the call the case makes (apis.def's
 * `since`); else -1 with why ("not in runtime 12.0: cudaMemcpyBatchAsync
 * appeared in 12.8").  The case stays in the table, NOTSUPP. */
int cts_need_runtime(const struct cts_case *c, char *why, size_t len);
/* An error name (runtime or driver API) that says the call needs a newer
 * driver than the one loaded (minor-version compatibility: a runtime newer
 * than the driver): 1, with the NOTSUPP reason in why[]; else 0. */
int cts_needs_newer_driver(const struct cts_case *c, const char *ename, char *why, size_t len);

/* The event and the memory another process exported (harness/families/peer.c), for
 * the cases whose call opens them (cudaIpcOpenEventHandle, cudaIpcOpenMemHandle);
 * NULL with why where there is none (a failure of the harness: prepare() fails
 * with it). */
const cudaIpcEventHandle_t *cts_peer_event(const char **why);
const cudaIpcMemHandle_t *cts_peer_memory(const char **why);

/* The page the worker shares with that process (harness/families/peer.c): the flag its
 * gate spins on (the worker's watchdog opens it), the gate's record, and the
 * marker it queues after its held work. */
struct cts_shared {
    volatile unsigned int flag;
    unsigned int pad;
    struct cts_gate_record gate;
    struct cts_marker_record after;
};
#define OTHER_BYTES ((size_t)1 << 20)          /* the memory it exports (and copies from) */
#define OTHER_BUDGET_NS 20000000000ull        /* its gate ends itself after 20 s */
/* The other process as the process family sees it (cases/process.c). */
struct cts_other {
    struct cts_shared *shared;
    const cudaIpcMemHandle_t *mem;
    int device;           /* where it runs */
    unsigned generation;  /* another number: another process (its memory to open again) */
};
/* 0 with o filled, or -1 with why (none runs: the harness's failure). */
int cts_peer_process(struct cts_other *o, const char **why);
/* A command to it ("prepare OLD NEW", "hold SEQ COPY", "sync"; harness/families/peer.c):
 * 0 once it answered "ok", else -1 with why. */
int cts_peer_command(const char *cmd, char *why, size_t len);

/* In a function returning cudaError_t: returns the error of `call`, naming
 * the call in `at` (a const char * the family reports it from). */
#define CTS_TRY_AT(at, call)            \
    do {                                \
        cudaError_t e_ = (call);        \
        if (e_ != cudaSuccess) {        \
            (at) = #call;               \
            return e_;                  \
        }                               \
    } while (0)

/* A self-measured family's set-up, made once, on its first case: make() returns cudaSuccess, or
 * the error of the call it names in *failed_at (CTS_TRY_AT).  0; -1 with why in o->why, the same
 * for every later case. */
struct cts_setup_once {
    int ready;
    char why[512]; /* CTS_REASON_MAX: a case's reason */
};
int cts_setup_once(struct cts_setup_once *o, const char *family, cudaError_t (*make)(void),
                   const char *const *failed_at);

/* How work is held (hold.h says how each method holds): the gate kernel or a
 * stream memory operation that waits on the flag.  Defined in family.c. */
enum cts_hold { CTS_HOLD_KERNEL, CTS_HOLD_WAIT_VALUE, CTS_HOLD_COUNT };

extern const char *const cts_hold_names[CTS_HOLD_COUNT]; /* "kernel", "wait-value" */
/* The method a worker's engine uses (run --hold); set before cts_engine_init. */
extern enum cts_hold cts_hold_selected;

#endif
