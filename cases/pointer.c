/* The pointer family: cuPointerSetAttribute(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
 * while other work is held (issue 41: a fabric library's validation failed
 * where a synchronous device-to-device cudaMemcpy was reported complete
 * before its bytes landed; SYNC_MEMOPS is the documented way to make such a
 * copy synchronize).  The attribute's own page promises more: "If there are
 * some previously initiated synchronous memory operations that are pending
 * when this attribute is set, the function does not return until those
 * memory operations are complete."
 *
 * Each call sets the attribute on a 4 KiB cudaMalloc region of the family's,
 * made in prepare() and freed in cleanup() (so every call meets a region
 * without it).  Variants:
 *   set                 nothing was issued on the region;
 *   set_pending_copy    before(): a synchronous cudaMemcpy device to device
 *                       into the region, which returns at once behind held
 *                       work in its stream (`memcpy.d2d.device...busy_same`: Q);
 *   set_pending_memset  before(): a synchronous cudaMemset of the region (Q
 *                       there too).
 * Where the held work is ahead in the default stream, the copy or memset is
 * pending at the call, and the call must wait for it, hence for the gate.
 * cleanup() checks the region's bytes, with the device idle: the copy or
 * memset ran, and set the attribute was (cuPointerGetAttribute).  What the
 * attribute does to later synchronous copies and memsets is the memcpy and
 * memset families' (memory kinds device_sync_memops, pinned_sync_memops). */
#include "../harness/core/cts.h"
#include "../harness/core/spec.h"
#include "../harness/families/driver.h"
#include "../harness/families/family.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <string.h>

#define REGION 4096
#define SRC_BYTE 0x5a
#define SET_BYTE 0xa5

static const char *const variants[] = {"set", "set_pending_copy", "set_pending_memset"};

static int is(const struct cts_case *c, const char *v) { return c->variant && !strcmp(c->variant, v); }

static size_t generate(struct cts_case *out, size_t cap)
{
    size_t n = 0;
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        struct cts_case c = {.family = &cts_family_pointer, .api = CTS_API_POINTER_SET_ATTRIBUTE,
                             .variant = variants[v], .dir = CTS_DIR_NONE, .mem = CTS_MEM_NONE,
                             .size_idx = -1, .kind = CTS_KIND_NONE};
        n = cts_emit(&c, out, cap, n);
        n = cts_emit_threads(&c, out, cap, n);
    }
    return out ? (n < cap ? n : cap) : n;
}

static int needs(const struct cts_case *c, char *why, size_t len)
{
    (void)c;
    return cts_need_driver("cuPointerSetAttribute", why, len) || cts_need_driver("cuPointerGetAttribute", why, len)
               ? -1
               : 0;
}

/* s->ptr: the region (zeroed); s->extra: the copy's source (SRC_BYTE), where one is made. */
static int prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaMalloc(&s->ptr, REGION);
    s->extra = NULL;
    s->pitch = 0;
    if (err != cudaSuccess) {
        s->ptr = NULL;
        return cts_result(err, error);
    }
    err = cudaMemset(s->ptr, 0, REGION);
    if (err == cudaSuccess && is(c, "set_pending_copy") && (err = cudaMalloc(&s->extra, REGION)) != cudaSuccess)
        s->extra = NULL;
    if (err == cudaSuccess && s->extra)
        err = cudaMemset(s->extra, SRC_BYTE, REGION);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    return cts_result(err, error);
}

/* Right before the call, while the gate holds its work: the synchronous
 * operation that is to be pending at the call. */
static int before(const struct cts_case *c, struct cts_scratch *s, void *stream, const char **error)
{
    (void)stream;
    if (is(c, "set_pending_copy"))
        return cts_result(cudaMemcpy(s->ptr, s->extra, REGION, cudaMemcpyDeviceToDevice), error);
    if (is(c, "set_pending_memset"))
        return cts_result(cudaMemset(s->ptr, SET_BYTE, REGION), error);
    return 0;
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    (void)c;
    unsigned one = 1;
    struct cts_scratch *s = call->scratch;
    CUresult r = cts_drv.cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)(uintptr_t)s->ptr);
    s->pitch = r == CUDA_SUCCESS; /* cleanup() checks the attribute only where it was set */
    return cts_driver_result(r, error);
}

/* With the device idle: the region holds what before() wrote (every byte),
 * and, where the call succeeded, the attribute is set; then both regions
 * freed, whatever happened. */
static int cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    static unsigned char got[REGION];
    unsigned char want = is(c, "set_pending_copy") ? SRC_BYTE : is(c, "set_pending_memset") ? SET_BYTE : 0;
    unsigned set = 0;
    int bad = 0;
    cudaError_t err = s->ptr ? cudaMemcpy(got, s->ptr, REGION, cudaMemcpyDeviceToHost) : cudaSuccess;
    for (size_t i = 0; s->ptr && err == cudaSuccess && i < REGION && !bad; i++)
        bad = got[i] != want;
    int called = s->pitch == 1;
    CUresult r = called && err == cudaSuccess && !bad
                     ? cts_drv.cuPointerGetAttribute(&set, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
                                                     (CUdeviceptr)(uintptr_t)s->ptr)
                     : CUDA_SUCCESS;
    cudaError_t f1 = s->ptr ? cudaFree(s->ptr) : cudaSuccess, f2 = s->extra ? cudaFree(s->extra) : cudaSuccess;
    s->ptr = s->extra = NULL;
    s->pitch = 0;
    if (err != cudaSuccess || f1 != cudaSuccess || f2 != cudaSuccess)
        return cts_result(err != cudaSuccess ? err : f1 != cudaSuccess ? f1 : f2, error);
    if (bad) {
        *error = "the region does not hold every byte the synchronous operation before the call wrote";
        return 1;
    }
    if (r != CUDA_SUCCESS)
        return cts_driver_result(r, error);
    if (called && !set) {
        *error = "cuPointerGetAttribute reads CU_POINTER_ATTRIBUTE_SYNC_MEMOPS as 0 after the call";
        return 1;
    }
    return 0;
}

#define DRV_UNIFIED "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__UNIFIED.html"
static const struct cts_clause clauses[] = {
    {"DRV-POINTER-SYNC-MEMOPS-PENDING", "Driver API reference, cuPointerSetAttribute, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS",
     "If there are some previously initiated synchronous memory operations that are pending when this attribute "
     "is set, the function does not return until those memory operations are complete.",
     DRV_UNIFIED, NULL},
    {NULL},
};

/* The copy or memset before the call is pending where the held work is
 * ahead of it in the default stream (the control held the op stream, which
 * for a call that takes none is that stream): the call must wait. */
static void judge(struct cts_judge *j)
{
    if (!is(j->c, "set") && j->held_in_stream)
        cts_judge_add(j, "DRV-POINTER-SYNC-MEMOPS-PENDING", CTS_ABOUT_HOST, CTS_PRED_GUARANTEED);
}

const struct cts_family cts_family_pointer = {
    .name = "pointer", .generate = generate, .needs = needs, .issue = issue, .prepare = prepare,
    .cleanup = cleanup, .before = before, .clauses = clauses, .judge = judge,
};
