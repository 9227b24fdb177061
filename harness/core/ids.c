/* Names and ids (the case table and selection: table.c).  The tokens here are part of every case id and
 * every committed matrix: changing one changes ids, so don't. */
#define _GNU_SOURCE
#include "cts.h"

#include <stdio.h>
#include <string.h>

static const char *const status_names[CTS_STATUS_COUNT] = {
    "PASS", "VARIES", "FAIL", "NOTSUPP", "BROKEN", "INCONCLUSIVE", "TIMEOUT", "CRASH",
};

const char *cts_status_name(enum cts_status s)
{
    return (unsigned)s < CTS_STATUS_COUNT ? status_names[s] : "?";
}

int cts_status_parse(const char *name)
{
    for (int i = 0; i < CTS_STATUS_COUNT; i++)
        if (strcmp(name, status_names[i]) == 0)
            return i;
    return -1;
}

#define TOKEN(fn, type, count, ...)                                  \
    const char *fn(type v)                                           \
    {                                                                \
        static const char *const t[count] = {__VA_ARGS__};          \
        return (unsigned)v < (unsigned)(count) ? t[v] : "?";         \
    }

static const struct {
    const char *token, *function;
    int takes_stream, since, documented;
} apis[CTS_API_COUNT] = {
#define X(name, token, function, takes_stream, since, documented)                                      \
    [CTS_API_##name] = {token, function, takes_stream, since, documented},
#include "apis.def"
};

const char *cts_api_token(enum cts_api a)
{
    return (unsigned)a < CTS_API_COUNT ? apis[a].token : "?";
}

const char *cts_api_function(enum cts_api a)
{
    return (unsigned)a < CTS_API_COUNT ? apis[a].function : "?";
}

int cts_api_takes_stream(enum cts_api a)
{
    return (unsigned)a < CTS_API_COUNT && apis[a].takes_stream;
}

int cts_api_since(enum cts_api a)
{
    return (unsigned)a < CTS_API_COUNT ? apis[a].since : 0;
}

int cts_api_documented(enum cts_api a)
{
    return (unsigned)a < CTS_API_COUNT && apis[a].documented;
}

TOKEN(cts_dir_token, enum cts_dir, CTS_DIR_COUNT, "h2d", "d2h", "d2d", "h2h")
TOKEN(cts_mem_token, enum cts_mem, CTS_MEM_COUNT, "pageable", "pinned", "portable", "mapped",
      "wc", "registered", "managed", "device", "device_sync_memops", "pinned_sync_memops")
TOKEN(cts_mem_allocator, enum cts_mem, CTS_MEM_COUNT, "malloc", "cudaMallocHost",
      "cudaHostAlloc(cudaHostAllocPortable)", "cudaHostAlloc(cudaHostAllocMapped)",
      "cudaHostAlloc(cudaHostAllocWriteCombined)", "malloc+cudaHostRegister(cudaHostRegisterDefault)",
      "cudaMallocManaged(cudaMemAttachGlobal)", "cudaMalloc",
      "cudaMalloc+cuPointerSetAttribute(SYNC_MEMOPS)", "cudaMallocHost+cuPointerSetAttribute(SYNC_MEMOPS)")
TOKEN(cts_kind_token, enum cts_kind, CTS_KIND_COUNT, "explicit", "default")
TOKEN(cts_op_token, enum cts_op, CTS_OP_COUNT, "op_implied", "op_null", "op_legacy",
      "op_perthread", "op_blocking", "op_nonblocking")
TOKEN(cts_busy_token, enum cts_busy, CTS_BUSY_COUNT, "busy_same", "busy_legacy",
      "busy_blocking", "busy_nonblocking", "busy_perthread", "busy_thread_legacy",
      "busy_thread_perthread", "busy_hostfn", "busy_same_hostfn", "busy_thread_same",
      "busy_peer_legacy", "busy_peer_blocking", "busy_peer_nonblocking", "busy_both",
      "busy_thread_peer", "busy_other_process", "busy_other_process_peer")
TOKEN(cts_capture_token, enum cts_capture, CTS_CAPTURE_COUNT, NULL, "global", "thread_local", "relaxed")
TOKEN(cts_cap_status_name, enum cts_cap_status, CTS_CAPST_COUNT, NULL, "active", "invalidated", "none")

static const struct {
    size_t bytes;
    const char *token;
} sizes[CTS_SIZE_ALL] = {
    {1, "1B"},
    {4096, "4KiB"},
    {65535, "64KiB-1"},
    {65536, "64KiB"},
    {65537, "64KiB+1"},
    {1u << 20, "1MiB"},
    {16u << 20, "16MiB"},
    /* Not in the regular grid: around the pageable staging threshold (data order). */
    {2u << 20, "2MiB"},
    {(2u << 20) + 1, "2MiB+1"},
    {64u << 20, "64MiB"},
    /* Only the host registrations' time against size (cases/alloc_register.c). */
    {256u << 20, "256MiB"},
    {1u << 30, "1GiB"},
};

const char *cts_size_token(int i) { return i >= 0 && i < CTS_SIZE_ALL ? sizes[i].token : "?"; }
size_t cts_size_bytes(int i) { return i >= 0 && i < CTS_SIZE_ALL ? sizes[i].bytes : 0; }

int cts_mem_host_accessible(enum cts_mem m) { return m >= 0 && m != CTS_MEM_DEVICE && m != CTS_MEM_DEVICE_SYNC; }

const char *cts_copy_kind_name(const struct cts_case *c)
{
    static const char *const explicit_kinds[CTS_DIR_COUNT] = {
        "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
        "cudaMemcpyDeviceToDevice", "cudaMemcpyHostToHost",
    };
    if (c->kind == CTS_KIND_NONE)
        return NULL;
    if (c->kind == CTS_KIND_DEFAULT)
        return "cudaMemcpyDefault";
    return (unsigned)c->dir < CTS_DIR_COUNT ? explicit_kinds[c->dir] : "?";
}

int cts_build_per_thread(void)
{
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
    return 1;
#else
    return 0;
#endif
}

/* The default stream an op stream is, if it is one: 'L' legacy, 'P' per-thread. */
static char op_default_stream(enum cts_op op)
{
    switch (op) {
    case CTS_OP_IMPLIED:
    case CTS_OP_NULL:
        return cts_build_per_thread() ? 'P' : 'L';
    case CTS_OP_LEGACY:
        return 'L';
    case CTS_OP_PERTHREAD:
        return 'P';
    default:
        return 0;
    }
}

int cts_op_is_legacy(enum cts_op op) { return op_default_stream(op) == 'L'; }

int cts_busy_is_op_stream(enum cts_op op, enum cts_busy b)
{
    char d = op_default_stream(op);
    return (b == CTS_BUSY_LEGACY && d == 'L') || (b == CTS_BUSY_PERTHREAD && d == 'P');
}

/* api[.variant][.with_x][.written][.dir][.memory][.size][.kind].op.busy:
 * segments that do not apply are left out. */
/* A capture case's "capture_<mode>[.to_graph].by_<mode>" segment; "" elsewhere. */
static const char *capture_segment(const struct cts_case *c, char *buf, size_t len)
{
    if (c->capture == CTS_CAPTURE_NONE)
        return "";
    snprintf(buf, len, ".capture_%s%s.by_%s", cts_capture_token(c->capture), c->to_graph ? ".to_graph" : "",
             cts_capture_token(c->capture_by));
    return buf;
}

void cts_case_buffers(const struct cts_case *c, enum cts_mem *src, enum cts_mem *dst)
{
    *src = *dst = CTS_MEM_NONE;
    if (c->family && c->family->buffers)
        c->family->buffers(c, src, dst);
}

int cts_case_make_id(struct cts_case *c)
{
    int dir = c->dir != CTS_DIR_NONE, mem = c->mem >= 0, size = c->size_idx >= 0,
        kind = c->kind != CTS_KIND_NONE, var = c->variant != NULL, with = c->with != NULL;
    char cap[64];
    int n = snprintf(c->id, sizeof c->id, "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s.%s.%s", cts_api_token(c->api),
                     var ? "." : "", var ? c->variant : "", with ? ".with_" : "", with ? c->with : "",
                     capture_segment(c, cap, sizeof cap), c->writes ? ".written" : "",
                     dir ? "." : "", dir ? cts_dir_token(c->dir) : "", mem ? "." : "",
                     mem ? cts_mem_token(c->mem) : "", size ? "." : "",
                     size ? cts_size_token(c->size_idx) : "", kind ? "." : "",
                     kind ? cts_kind_token(c->kind) : "", cts_op_token(c->op), cts_busy_token(c->busy));
    return n > 0 && (size_t)n < sizeof c->id ? 0 : -1;
}

int cts_busy_from_thread(enum cts_busy b)
{
    return b == CTS_BUSY_THREAD_LEGACY || b == CTS_BUSY_THREAD_PERTHREAD;
}

int cts_busy_is_hostfn(enum cts_busy b) { return b == CTS_BUSY_HOSTFN || b == CTS_BUSY_SAME_HOSTFN; }

int cts_busy_in_op_stream(enum cts_busy b) { return b == CTS_BUSY_SAME || b == CTS_BUSY_SAME_HOSTFN; }

/* Every (op stream, busy placement) pair the API takes, busy placements in
 * [from, to), op streams in the mask `ops` (1 << op). */
static size_t emit_ops(const struct cts_case *proto, struct cts_case *out, size_t cap, size_t n, int from,
                       int to, unsigned ops)
{
    for (int op = 0; op < CTS_OP_COUNT; op++) {
        if (cts_api_takes_stream(proto->api) == (op == CTS_OP_IMPLIED) || !(ops & (1u << op)))
            continue;
        for (int b = from; b < to; b++) {
            if (cts_busy_is_op_stream(op, b))
                continue;
            if (out && n < cap) {
                out[n] = *proto;
                out[n].op = op;
                out[n].busy = b;
                cts_case_make_id(&out[n]);
            }
            n++;
        }
    }
    return n;
}

static size_t emit_range(const struct cts_case *proto, struct cts_case *out, size_t cap, size_t n,
                         int from, int to)
{
    return emit_ops(proto, out, cap, n, from, to, ~0u);
}

size_t cts_emit(const struct cts_case *proto, struct cts_case *out, size_t cap, size_t n)
{
    return emit_range(proto, out, cap, n, 0, CTS_BUSY_THREAD_LEGACY);
}

size_t cts_emit_threads(const struct cts_case *proto, struct cts_case *out, size_t cap, size_t n)
{
    return emit_range(proto, out, cap, n, CTS_BUSY_THREAD_LEGACY, CTS_BUSY_HOSTFN);
}

size_t cts_emit_hostfn(const struct cts_case *proto, struct cts_case *out, size_t cap, size_t n)
{
    return emit_range(proto, out, cap, n, CTS_BUSY_HOSTFN, CTS_BUSY_HOSTFN + 1);
}

size_t cts_emit_same_hostfn(const struct cts_case *proto, struct cts_case *out, size_t cap, size_t n)
{
    return emit_range(proto, out, cap, n, CTS_BUSY_SAME_HOSTFN, CTS_BUSY_SAME_HOSTFN + 1);
}

size_t cts_emit_written(const struct cts_case *proto, enum cts_mem written, struct cts_case *out, size_t cap,
                        size_t n)
{
    /* Two op streams: the handle 0 (the build's default stream) and a created
     * non-blocking one; the other three gave the same bytes in every case
     * (H100, 580.159.04, b119fd1ebef5) at twice the cost. */
    const unsigned ops = 1u << CTS_OP_IMPLIED | 1u << CTS_OP_NULL | 1u << CTS_OP_NONBLOCKING;
    struct cts_case c = *proto;
    c.writes = 1;
    if (written == CTS_MEM_DEVICE || written == CTS_MEM_MAPPED || written == CTS_MEM_MANAGED ||
        written == CTS_MEM_OWN)
        n = emit_ops(&c, out, cap, n, CTS_BUSY_SAME, CTS_BUSY_SAME + 1, ops);
    if (cts_mem_host_accessible(written))
        n = emit_ops(&c, out, cap, n, CTS_BUSY_SAME_HOSTFN, CTS_BUSY_SAME_HOSTFN + 1, ops);
    return n;
}

int cts_case_devices(const struct cts_case *c)
{
    if (c->family->crosses || c->busy == CTS_BUSY_THREAD_PEER || c->busy == CTS_BUSY_OTHER_PROCESS_PEER ||
        (c->with && !strncmp(c->with, "peer_", 5)) ||
        (c->api == CTS_API_SET_DEVICE && c->variant && !strcmp(c->variant, "other")))
        return 2;
    return 1;
}

void cts_case_group(const struct cts_case *c, char *buf, size_t len)
{
    if (c->capture != CTS_CAPTURE_NONE) { /* one group a capture mode ("capture_global"), and the to-graph one */
        snprintf(buf, len, "capture_%s", c->to_graph ? "to_graph" : cts_capture_token(c->capture));
        return;
    }
    snprintf(buf, len, "%s%s%s%s%s%s", cts_api_token(c->api), c->variant ? "." : "",
             c->variant ? c->variant : "", c->writes ? ".written" : "", c->dir == CTS_DIR_NONE ? "" : ".",
             c->dir == CTS_DIR_NONE ? "" : cts_dir_token(c->dir));
}
