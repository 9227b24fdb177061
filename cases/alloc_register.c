/* The allocation family's host registrations (issue 41 item 5): the range
 * cudaHostRegister pins, or cudaHostUnregister unpins, and its flags, by the
 * case's variant.  No variant: malloc'ed (aligned) pages, the default flags,
 * as before.  `read_only` and `mapped`: the same pages with
 * cudaHostRegisterReadOnly or cudaHostRegisterMapped.  `file_backed`:
 * a MAP_SHARED mapping of a temporary file on local disk ($TMPDIR, else
 * /var/tmp; unlinked once open), its pages written (present and dirty in the
 * page cache) before the call; `file_backed_read_only` maps it PROT_READ once
 * written and registers it read-only; `file_backed_mapped` registers it
 * mapped.  The users' question: registering a file-backed range takes
 * hundreds of milliseconds and stalls other threads (the stall family lends
 * the 16 MiB one).
 *
 * scratch: ptr = the range, pitch = 1 while registered, value = the file's
 * descriptor + 1 (0: anonymous pages), extra = the mapping's length.
 *
 * Time against size: cudaHostRegister, plain and file-backed, also at
 * 256 MiB and 1 GiB (one placement each, beside held work on a non-blocking
 * stream; NOTSUPP where twice that is not free in memory, or on the file's
 * disk); the engine's buffers are not used, so any size fits. */
#define _DEFAULT_SOURCE /* mkstemp, ftruncate, sysconf's _SC_AVPHYS_PAGES */
#include "alloc.h"
#include "../harness/families/family.h"

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define PAGE 4096u

const char *const alloc_register_variants[ALLOC_REGISTER_VARIANTS] = {
    "read_only", "mapped", "file_backed", "file_backed_read_only", "file_backed_mapped",
};

static int has(const struct cts_case *c, const char *word)
{
    return c->variant && strstr(c->variant, word) != NULL;
}

static int file_backed(const struct cts_case *c)
{
    return c->variant && !strncmp(c->variant, "file_backed", 11);
}

static unsigned flags(const struct cts_case *c)
{
    return has(c, "read_only") ? cudaHostRegisterReadOnly
           : has(c, "mapped")  ? cudaHostRegisterMapped
                               : cudaHostRegisterDefault;
}

/* The temporary files' folder. */
static const char *file_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/var/tmp";
}

/* 256 MiB and 1 GiB: twice the range free, in memory and (file-backed) on the file's disk. */
static int need_room(const struct cts_case *c, char *why, size_t len)
{
    unsigned long long want = 2ull * c->size;
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (unsigned long long)pages * (unsigned long long)page < want) {
        snprintf(why, len, "%llu MiB of host memory is free, less than twice the %zu MiB to register",
                 (unsigned long long)pages * (unsigned long long)page >> 20, c->size >> 20);
        return -1;
    }
    struct statvfs fs;
    if (file_backed(c) && statvfs(file_dir(), &fs) == 0 && (unsigned long long)fs.f_bavail * fs.f_frsize < want) {
        snprintf(why, len, "%llu MiB is free in %s, less than twice the %zu MiB file to map",
                 (unsigned long long)fs.f_bavail * fs.f_frsize >> 20, file_dir(), c->size >> 20);
        return -1;
    }
    return 0;
}

int alloc_register_needs(const struct cts_case *c, char *why, size_t len)
{
    int r = cts_need_attribute(cudaDevAttrHostRegisterSupported, "cudaDevAttrHostRegisterSupported", why, len);
    if (!r && c->size > (64u << 20))
        r = need_room(c, why, len);
    if (r || !c->variant)
        return r;
    if (has(c, "read_only"))
        return cts_need_attribute(cudaDevAttrHostRegisterReadOnlySupported,
                                  "cudaDevAttrHostRegisterReadOnlySupported", why, len);
    if (has(c, "mapped"))
        return cts_need_attribute(cudaDevAttrCanMapHostMemory, "cudaDevAttrCanMapHostMemory", why, len);
    return 0;
}

/* An unlinked temporary file of `bytes`, mapped shared and written through. */
static int file_pages(const struct cts_case *c, struct cts_scratch *s, size_t bytes, const char **error)
{
    static char why[160];
    char path[4096];
    snprintf(path, sizeof path, "%s/sync-cts-register-XXXXXX", file_dir());
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(why, sizeof why, "mkstemp in %s failed: the file to map", file_dir());
        *error = why;
        return 1;
    }
    unlink(path);
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)bytes) == 0)
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        *error = "ftruncate or mmap of the temporary file failed";
        return 1;
    }
    memset(p, 0x5a, c->size); /* its pages present, as the anonymous ones are */
    if (has(c, "read_only") && mprotect(p, bytes, PROT_READ) != 0) {
        munmap(p, bytes);
        close(fd);
        *error = "mprotect(PROT_READ) of the mapped file failed";
        return 1;
    }
    s->ptr = p;
    s->value = (unsigned long long)fd + 1;
    return 0;
}

int alloc_register_prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    size_t bytes = (c->size + PAGE - 1) / PAGE * PAGE;
    s->extra = (void *)(uintptr_t)bytes;
    if (file_backed(c)) {
        if (file_pages(c, s, bytes, error))
            return 1;
    } else {
        if (!(s->ptr = aligned_alloc(PAGE, bytes))) {
            *error = "aligned_alloc failed";
            return 1;
        }
        memset(s->ptr, 0x5a, c->size);
    }
    if (c->api != CTS_API_HOST_UNREGISTER)
        return 0;
    cudaError_t err = cudaHostRegister(s->ptr, c->size, flags(c));
    s->pitch = err == cudaSuccess; /* registered: cleanup unregisters unless the call did */
    return cts_result(err, error);
}

int alloc_register_issue(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err;
    if (c->api == CTS_API_HOST_UNREGISTER) {
        if ((err = cudaHostUnregister(s->ptr)) == cudaSuccess)
            s->pitch = 0;
        return cts_result(err, error);
    }
    err = cudaHostRegister(s->ptr, c->size, flags(c));
    s->pitch = err == cudaSuccess; /* registered: cleanup unregisters */
    return cts_result(err, error);
}

int alloc_register_cleanup(struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess;
    if (s->ptr && s->pitch) /* registered, and not unregistered by the call */
        err = cudaHostUnregister(s->ptr);
    if (s->value) {
        if (s->ptr)
            munmap(s->ptr, (size_t)(uintptr_t)s->extra);
        close((int)(s->value - 1));
    } else {
        free(s->ptr);
    }
    s->ptr = s->extra = NULL;
    s->pitch = 0;
    s->value = 0;
    return cts_result(err, error);
}
