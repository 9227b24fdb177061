/* sync-cts cite: a stream argument, a busy placement and a registration's
 * range as words, for cite.c's paragraph of a call and cite_families.c's of a
 * stall. */
#include "cite_int.h"
#include "report.h"

#include <string.h>

const char *cts_cite_op_words(const char *op, const char *default_stream)
{
    /* No stream, or stream 0: the default stream of this build. */
    static const struct cts_words legacy[] = {
        {"implied", "on the legacy default stream (no stream argument)"},
        {"null", "on stream 0 (the legacy default stream in this build)"},
        {NULL, NULL}};
    static const struct cts_words per_thread[] = {
        {"implied", "on the per-thread default stream (no stream argument)"},
        {"null", "on stream 0 (the per-thread default stream in this build)"},
        {NULL, NULL}};
    static const struct cts_words streams[] = {
        {"legacy", "on cudaStreamLegacy"},
        {"perthread", "on cudaStreamPerThread"},
        {"blocking", "on a stream created with cudaStreamDefault"},
        {"nonblocking", "on a stream created with cudaStreamNonBlocking"},
        {NULL, NULL}};
    const char *w = cts_words(strcmp(default_stream, "per-thread") ? legacy : per_thread, op);
    return w != op ? w : cts_words(streams, op);
}

const char *cts_cite_busy_words(const char *busy)
{
    static const struct cts_words words[] = {
        {"same", "a kernel held that same stream"},
        {"legacy", "a kernel held the legacy default stream"},
        {"blocking", "a kernel held another blocking stream"},
        {"nonblocking", "a kernel held a non-blocking stream"},
        {"perthread", "a kernel held this thread's per-thread default stream"},
        {"thread_legacy", "a kernel launched by a second host thread held the legacy default stream"},
        {"thread_perthread", "a kernel held a second host thread's per-thread default stream"},
        {"hostfn", "a host function (cudaLaunchHostFunc) held a non-blocking stream"},
        {"same_hostfn", "a host function (cudaLaunchHostFunc) held that same stream"},
        {"peer_legacy", "a kernel held the other device's legacy default stream"},
        {"peer_blocking", "a kernel held a blocking stream of the other device"},
        {"peer_nonblocking", "a kernel held a non-blocking stream of the other device"},
        {"both", "kernels held a non-blocking stream of each device"},
        {"other_process", "a kernel of a second process held a non-blocking stream of that process on this device"},
        {"other_process_peer", "a kernel of a second process held a non-blocking stream of that process on the other device"},
        {NULL, NULL}};
    return cts_words(words, busy);
}

const char *cts_cite_range_words(const char *function, const char *variant, const char *allocator)
{
    static const struct cts_words words[] = {
        {"read_only", "malloc'ed pages, registered with cudaHostRegisterReadOnly"},
        {"mapped", "malloc'ed pages, registered with cudaHostRegisterMapped"},
        {"file_backed", "a writable MAP_SHARED mapping of a temporary file, its pages written, registered with "
                        "cudaHostRegisterDefault"},
        {"file_backed_read_only", "a MAP_SHARED mapping of a temporary file, its pages written, then mapped "
                                  "PROT_READ and registered with cudaHostRegisterReadOnly"},
        {"file_backed_mapped", "a writable MAP_SHARED mapping of a temporary file, its pages written, registered "
                               "with cudaHostRegisterMapped"},
        {NULL, NULL}};
    if (strcmp(function, "cudaHostRegister") && strcmp(function, "cudaHostUnregister"))
        return allocator;
    const char *w = cts_words(words, variant);
    return w != variant ? w : allocator;
}

const char *cts_cite_variant_words(const char *function, const char *variant)
{
    static const struct cts_words words[] = {
        {"set", "(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set to 1) of a 4 KiB cudaMalloc region with nothing issued on it"},
        {"set_pending_copy", "(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set to 1) of a 4 KiB cudaMalloc region right after a "
                             "synchronous device-to-device cudaMemcpy into it was issued"},
        {"set_pending_memset", "(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set to 1) of a 4 KiB cudaMalloc region right after a "
                               "synchronous cudaMemset of it was issued"},
        {NULL, NULL}};
    if (strcmp(function, "cuPointerSetAttribute"))
        return NULL;
    const char *w = cts_words(words, variant);
    return w != variant ? w : NULL;
}
