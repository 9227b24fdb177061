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
 * the 16 MiB ones).  A kernel that will not pin writable file pages makes
 * the writable ones NOTSUPP (writable_file_refused).
 *
 * scratch: ptr = the range, pitch = 1 while registered, value = the file's
 * descriptor + 1 (0: anonymous pages), extra = the mapping's length.
 *
 * Time against size: cudaHostRegister, plain and file-backed (writable and
 * read-only), also at
 * 256 MiB and 1 GiB (one placement each, beside held work on a non-blocking
 * stream; NOTSUPP where twice that is not free in memory, or on the file's
 * disk); the engine's buffers are not used, so any size fits.  Their pages,
 * made and written once, serve every call of the case (its idle measurement,
 * control and repetitions; each call registers them anew, its clean-up
 * unregisters them) and are freed when it ends (alloc_register_release):
 * making and writing 1 GiB took about 0.5 s a call, the registration itself
 * 24-34 ms (H200, 580.159.04), and 15.5 of the suite's 113 s went to it. */
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
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
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

/* The file system of the temporary files' folder, by statfs's magic number. */
static const char *fs_name(char *buf, size_t len)
{
    static const struct {
        unsigned long magic;
        const char *name;
    } known[] = {
        {0xEF53, "ext2/3/4"}, {0x01021994, "tmpfs"}, {0x58465342, "xfs"}, {0x9123683E, "btrfs"},
        {0x6969, "nfs"}, {0x794C7630, "overlayfs"}, {0x2FC12FC1, "zfs"},
    };
    struct statfs fs;
    if (statfs(file_dir(), &fs) != 0)
        return "a file system statfs cannot read";
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if ((unsigned long)fs.f_type == known[i].magic)
            return known[i].name;
    snprintf(buf, len, "file system 0x%lx", (unsigned long)fs.f_type);
    return buf;
}

/* Whether a writable shared mapping of a file can be registered here with
 * `flags`: tried once a process on one page, the device idle.  Linux 6.18
 * with ext4 refuses it (cudaErrorInvalidValue; the read-only form registers:
 * the kernel pins no writable file pages long-term outside tmpfs and
 * hugetlbfs); the case is then NOTSUPP with what was tried where. */
static int writable_file_refused(unsigned flags, char *why, size_t len)
{
    static int tried[2];
    static char reason[2][CTS_REASON_MAX];
    int k = flags == cudaHostRegisterMapped;
    if (!tried[k]) {
        tried[k] = 1;
        struct cts_case probe = {.size = PAGE, .variant = "file_backed"};
        struct cts_scratch s = {0};
        const char *error = NULL;
        if (file_pages(&probe, &s, PAGE, &error) != 0)
            return 0; /* the case's own prepare fails the same way, BROKEN with the reason */
        cudaError_t err = cudaHostRegister(s.ptr, PAGE, flags);
        if (err == cudaSuccess)
            err = cudaHostUnregister(s.ptr) == cudaSuccess ? cudaSuccess : cudaErrorUnknown;
        (void)cudaGetLastError();
        munmap(s.ptr, PAGE);
        close((int)(s.value - 1));
        struct utsname u;
        char fs[32];
        if (err == cudaErrorInvalidValue && uname(&u) == 0)
            snprintf(reason[k], sizeof reason[k],
                     "cudaHostRegister%s of a writable shared mapping of a file on %s (%s), Linux %.40s: "
                     "cudaErrorInvalidValue on an idle GPU (no long-term writable pin of file pages)",
                     k ? "(Mapped)" : "", fs_name(fs, sizeof fs), file_dir(), u.release);
    }
    if (!reason[k][0])
        return 0;
    snprintf(why, len, "%s", reason[k]);
    return -1;
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
    if (has(c, "mapped") &&
        (r = cts_need_attribute(cudaDevAttrCanMapHostMemory, "cudaDevAttrCanMapHostMemory", why, len)))
        return r;
    return file_backed(c) ? writable_file_refused(flags(c), why, len) : 0;
}

/* The pages of a case above KEPT_MIN between its calls: its scratch as its
 * clean-up left it, unregistered (kept.ptr NULL: none). */
#define KEPT_MIN (64u << 20)
static struct {
    const struct cts_case *c;
    size_t size;
    struct cts_scratch s;
} kept;

/* Unmaps or frees the range of s (not registered). */
static void free_pages(struct cts_scratch *s)
{
    if (s->value) {
        if (s->ptr)
            munmap(s->ptr, (size_t)(uintptr_t)s->extra);
        close((int)(s->value - 1));
    } else {
        free(s->ptr);
    }
    s->ptr = s->extra = NULL;
    s->value = 0;
}

void alloc_register_release(void)
{
    if (kept.s.ptr)
        free_pages(&kept.s);
    kept.c = NULL;
}

/* The case's kept pages into s, if it has them (keyed by the case and its
 * size: the threshold search resizes one case). */
static int take_kept(const struct cts_case *c, struct cts_scratch *s)
{
    if (!kept.s.ptr || kept.c != c || kept.size != c->size) {
        alloc_register_release();
        return 0;
    }
    *s = kept.s;
    kept.s = (struct cts_scratch){0};
    return 1;
}

int alloc_register_prepare(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    size_t bytes = (c->size + PAGE - 1) / PAGE * PAGE;
    s->extra = (void *)(uintptr_t)bytes;
    if (take_kept(c, s)) {
        s->pitch = 0;
    } else if (file_backed(c)) {
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

int alloc_register_cleanup(const struct cts_case *c, struct cts_scratch *s, const char **error)
{
    cudaError_t err = cudaSuccess;
    if (s->ptr && s->pitch) /* registered, and not unregistered by the call */
        err = cudaHostUnregister(s->ptr);
    s->pitch = 0;
    if (err == cudaSuccess && s->ptr && c->size > KEPT_MIN && !kept.s.ptr) {
        kept.c = c;
        kept.size = c->size;
        kept.s = *s;
        *s = (struct cts_scratch){0};
    } else {
        free_pages(s);
    }
    return cts_result(err, error);
}
