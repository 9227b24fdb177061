/* The peer family's own, shared by its files only (cases/peer.c, cases/peer_gates.c, cases/peer_rep.c); not
 * harness/families/peer.h, the second process's.  What the family measures and why: cases/peer.c. */
#ifndef CTS_CASES_PEER_H
#define CTS_CASES_PEER_H

#include "../harness/core/cts.h"
#include "../harness/families/family.h"
#include "../harness/families/stallgate.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stddef.h>

/* A copy's variant (cases/peer.c has them): which way, and how the peer side is reached. */
struct peer_variant {
    const char *name;
    int to_peer;   /* the destination is the peer's (else the source) */
    int access;    /* peer access enabled both ways (else disabled) */
    int pool;      /* the peer side is a pool block */
    int granted;   /* ... its pool's access granted to this device */
};
const struct peer_variant *peer_variant_of(const struct cts_case *c); /* NULL: not a device-to-device copy */
const char *peer_rejects(const struct cts_case *c, const char **clause);
int peer_is_copy(const struct cts_case *c); /* between the devices or between host memory and the peer's */

/* What the family keeps (made once, on first use: peer_setup, cases/peer_gates.c). */
#define BYTES ((size_t)(16u << 20) + 4096u) /* each buffer below */
enum { S_OP_NB, S_BUSY_NB, S_BUSY_BL, S_THIRD_NB, S_THIRD_BL, S_SIDE, S_COUNT };
enum { MK_OP, MK_THIRD_BL, MK_THIRD_NB, MK_COUNT };

struct peer_state {
    int ready;
    char why[CTS_REASON_MAX];
    int dev[2];                 /* [0] this device, [1] the peer */
    int can_access;             /* cudaDeviceCanAccessPeer, both ways */
    int access[2];              /* device k's access to the other is enabled now */
    int pools;                  /* the peer has memory pools */
    cudaStream_t s[2][S_COUNT]; /* per device */
    struct cts_stallgate g[2];  /* one gate a device */
    struct cts_marker_record *mk_host, *mk_dev; /* MK_COUNT of them */
    unsigned seq;
    void *buf[2];               /* BYTES of device memory on each */
    void *pinned, *pageable;    /* BYTES of host memory */
    unsigned char *stage;       /* pinned: a device destination read back */
    unsigned char *land;        /* pinned: a synchronous copy's destination samples */
    cudaMemPool_t pool;         /* on the peer */
    void *block;                /* BYTES from it, kept */
    int granted;                /* its access granted to this device now */
    cudaEvent_t event;          /* on the peer */
    CUcontext ctx[2];           /* the primary contexts (cuMemcpyPeer) */
};
extern struct peer_state peer_d;

/* What failed, for a harness error. */
extern const char *peer_failed_at;
#define TRY(call) CTS_TRY_AT(peer_failed_at, call)

/* Runs on device `side` (0 this, 1 the peer) and comes back to this one. */
#define ON(side, call)                                       \
    do {                                                     \
        TRY(cudaSetDevice(peer_d.dev[side]));                \
        cudaError_t on_ = (call);                            \
        cudaError_t back_ = cudaSetDevice(peer_d.dev[0]);    \
        if (on_ != cudaSuccess) {                            \
            peer_failed_at = #call;                          \
            return on_;                                      \
        }                                                    \
        TRY(back_);                                          \
    } while (0)

/* cases/peer_gates.c */
int peer_setup(void);
int peer_hold(int k, cudaStream_t s, char *why, size_t len);
int peer_drain_held(const int *k, int nk, char *why, size_t len);
int peer_drain(char *why, size_t len);
cudaStream_t peer_op_stream(const struct cts_case *c);
int peer_held_streams(const struct cts_case *c, cudaStream_t s[2], int k[2]);
cudaError_t peer_markers(const struct cts_case *c, unsigned seq);
void peer_watch(unsigned seq, const int *k, int nk, enum cts_order out[MK_COUNT]);

/* cases/peer_rep.c */
void peer_measure(const struct cts_case *c, int repeat, struct cts_result *res);

#endif
