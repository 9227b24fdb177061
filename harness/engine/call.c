/* Around the call under test: its buffers and sample bytes, the family's
 * hooks, and whether an error it returned is its documented rejection. */
#define _GNU_SOURCE
#include "engine_int.h"

#include <string.h>

/* ---- sample bytes ----------------------------------------------------------- */

int cts_eng_sample_offsets(size_t n, size_t off[3])
{
    int k = 0;
    size_t cand[3] = {0, n / 2, n - 1};
    for (int i = 0; i < 3; i++) {
        int dup = 0;
        for (int j = 0; j < k; j++)
            dup |= off[j] == cand[i];
        if (!dup)
            off[k++] = cand[i];
    }
    return k;
}

/* Harness access to a sample byte while the device is idle.  Host memory
 * is written by the host.  Device and managed memory are written by one
 * poke kernel for all the samples of a repetition (queued in *dev, launched
 * by flush_pokes), so managed pages stay on the device where they were put;
 * a family's own memory (CTS_MEM_OWN) through the family's poke and peek.
 * `side` is 0 for the source, 1 for the destination. */
static cudaError_t poke(const struct cts_case *c, int side, enum cts_mem m, void *base, size_t off,
                        unsigned char v, struct cts_bytes *dev, const char **ename)
{
    *ename = NULL;
    if (m == CTS_MEM_OWN) {
        if (!c->family->poke) {
            *ename = "the family names its own memory but has no poke()";
            return cudaErrorInvalidValue;
        }
        return c->family->poke(c, side, off, v, ename) ? cudaErrorUnknown : cudaSuccess;
    }
    if (cts_mem_host_accessible(m) && m != CTS_MEM_MANAGED) {
        ((volatile unsigned char *)base)[off] = v;
        return cudaSuccess;
    }
    if (dev->n == CTS_BYTES_MAX) {
        *ename = "harness: more device-side sample bytes than one poke takes";
        return cudaErrorInvalidValue;
    }
    dev->at[dev->n] = (unsigned char *)base + off;
    dev->value[dev->n++] = v;
    return cudaSuccess;
}

/* The destination's sample bytes, read while the device is idle; device
 * and managed memory by one peek kernel into the mapped page. */
cudaError_t cts_eng_peek_samples(struct cts_engine *e, const struct cts_case *c, enum cts_mem m,
                                 const void *base, const size_t *off, int nsamp, unsigned char *v,
                                 const char **ename)
{
    *ename = NULL;
    struct cts_bytes dev = {.n = 0};
    for (int i = 0; i < nsamp; i++) {
        if (m == CTS_MEM_OWN) {
            if (!c->family->peek) {
                *ename = "the family names its own memory but has no peek()";
                return cudaErrorInvalidValue;
            }
            if (c->family->peek(c, 1, off[i], &v[i], ename))
                return cudaErrorUnknown;
        } else if (cts_mem_host_accessible(m) && m != CTS_MEM_MANAGED) {
            v[i] = ((const volatile unsigned char *)base)[off[i]];
        } else {
            dev.at[dev.n++] = (unsigned char *)base + off[i];
        }
    }
    if (!dev.n)
        return cudaSuccess;
    cudaError_t err = cts_launch_peek(e->nonblocking[0], &dev, e->poke_dev);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(e->nonblocking[0]);
    for (int i = 0, k = 0; i < nsamp && err == cudaSuccess; i++)
        if (m != CTS_MEM_OWN && !(cts_mem_host_accessible(m) && m != CTS_MEM_MANAGED))
            v[i] = ((volatile unsigned char *)e->poke_host)[k++];
    return err;
}

/* May the host touch memory of kind m while the copy may be running?  Not
 * managed memory: a host touch faults its page across, and the migration
 * stalls the copy and other work for up to a millisecond (seen on an H200,
 * 580.159.04), which would be the harness perturbing what it measures. */
int cts_eng_touchable_while_busy(enum cts_mem m)
{
    return cts_mem_host_accessible(m) && m != CTS_MEM_MANAGED;
}

/* Puts pattern v in the source's sample bytes and u in the destination's.
 * Repetitions and idle calls alike start from this state, managed memory
 * included: prefetched whole to the device (where the device supports it),
 * so that no copy pays a page migration whose cost varies from one
 * repetition to the next.  (Left where the host last touched it, a held
 * managed copy finished 80 us to over 1 ms after its gate opened: H200,
 * 580.159.04.) */
cudaError_t cts_eng_prepare_samples(struct cts_engine *e, const struct cts_case *c, enum cts_mem sm,
                                    void *src, enum cts_mem dm, void *dst, const size_t *off,
                                    int nsamp, unsigned char v, unsigned char u, const char **ename)
{
    cudaError_t err = cudaSuccess;
    int prefetched = e->prefetch_managed && (sm == CTS_MEM_MANAGED || dm == CTS_MEM_MANAGED);
    size_t bytes = c->size > e->buf_bytes ? CTS_BIG_BYTES : e->buf_bytes;
    if (prefetched) { /* the pokes below follow it in the same stream */
#if CUDART_VERSION >= 12020 /* the cudaMemLocation form: ..._v2 in 12.2-12.9 */
        struct cudaMemLocation loc = {.type = cudaMemLocationTypeDevice, .id = e->device};
        for (int i = 0; i < 2 && err == cudaSuccess; i++)
#if CUDART_VERSION >= 13000
            err = cudaMemPrefetchAsync(cts_eng_buffer(e, c, CTS_MEM_MANAGED, i), bytes, loc, 0,
                                       e->nonblocking[0]);
#else
            err = cudaMemPrefetchAsync_v2(cts_eng_buffer(e, c, CTS_MEM_MANAGED, i), bytes, loc, 0,
                                          e->nonblocking[0]);
#endif
#else /* 12.0-12.1: the older form, a device ordinal */
        for (int i = 0; i < 2 && err == cudaSuccess; i++)
            err = cudaMemPrefetchAsync(cts_eng_buffer(e, c, CTS_MEM_MANAGED, i), bytes, e->device,
                                       e->nonblocking[0]);
#endif
    }
    struct cts_bytes dev = {.n = 0};
    for (int i = 0; i < nsamp && err == cudaSuccess; i++) {
        if (sm != CTS_MEM_NONE)
            err = poke(c, 0, sm, src, off[i], v, &dev, ename);
        if (err == cudaSuccess && dm != CTS_MEM_NONE)
            err = poke(c, 1, dm, dst, off[i], u, &dev, ename);
    }
    if (err == cudaSuccess && dev.n)
        err = cts_launch_poke(e->nonblocking[0], &dev);
    if (err == cudaSuccess && (dev.n || prefetched))
        err = cudaStreamSynchronize(e->nonblocking[0]);
    return err;
}

void *cts_eng_buffer(struct cts_engine *e, const struct cts_case *c, enum cts_mem m, int slot)
{
    return m < 0 ? NULL : c->size > e->buf_bytes ? e->big[m][slot] : e->buf[m][slot];
}

/* Whether the error c's call returned (named ename) is the rejection its
 * documentation declares (cts_family.rejects): 1, the error cleared from
 * the runtime's last-error state; 0 otherwise, with why in why[] where a
 * rejection was declared but another error came. */
int cts_eng_rejected_as_documented(const struct cts_case *c, const char *ename, char *why)
{
    const char *clause = NULL, *want = c->family->rejects ? c->family->rejects(c, &clause) : NULL;
    why[0] = '\0';
    if (!want)
        return 0;
    if (!*want || (ename && strcmp(ename, want) == 0)) {
        (void)cudaGetLastError();
        return 1;
    }
    cts_eng_setf(why, "; its documented rejection (%s) is %s", clause ? clause : "?", want);
    return 0;
}

/* A family hook that may be absent: 0 if it is, or if it succeeded. */
int cts_eng_hook(int (*fn)(const struct cts_case *, struct cts_scratch *, void *, const char **),
                 const struct cts_case *c, struct cts_scratch *s, cudaStream_t st, const char **ename)
{
    return fn ? fn(c, s, (void *)st, ename) : 0;
}
