/* What the fuzz targets share (tests/fuzz.sh runs them): the input as a file, since the
 * readers take a path; /dev/null for the output of what is fuzzed; a target's failure and an
 * invariant that does not hold, each one line and abort(), which libFuzzer records as a
 * finding with its input. */
#ifndef CTS_FUZZ_H
#define CTS_FUZZ_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Standard error as it was when the program started: libFuzzer's -close_fd_mask=2 (tests/fuzz.sh)
 * sends the code under test's to /dev/null later, and the sanitizers' reports elsewhere. */
static FILE *fuzz_stderr;
__attribute__((constructor)) static void fuzz_keep_stderr(void)
{
    int fd = dup(2);
    fuzz_stderr = fd >= 0 ? fdopen(fd, "w") : NULL;
}

/* The target's own failure, or an invariant of the code under test broken. */
#define FUZZ_FAIL(...)                                                                              \
    do {                                                                                            \
        FILE *fuzz_f_ = fuzz_stderr ? fuzz_stderr : stderr;                                         \
        fprintf(fuzz_f_, "fuzz: " __VA_ARGS__);                                                     \
        fputc('\n', fuzz_f_);                                                                       \
        fflush(fuzz_f_);                                                                            \
        abort();                                                                                    \
    } while (0)

/* The input as the contents of a file (an anonymous one, in memory), and that file's path;
 * every call rewrites the same file. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz-input", 0);
        if (fd < 0)
            FUZZ_FAIL("memfd_create failed");
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0)
        FUZZ_FAIL("cannot truncate the input file");
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        if (n <= 0)
            FUZZ_FAIL("cannot write the input file");
        done += (size_t)n;
    }
    return path;
}

/* /dev/null, open for writing: where what is fuzzed writes its output. */
static inline FILE *fuzz_devnull(void)
{
    static FILE *f;
    if (!f && !(f = fopen("/dev/null", "w")))
        FUZZ_FAIL("cannot open /dev/null");
    return f;
}

/* A refusal gives its reason (cts_die prints it on one line, control bytes escaped). */
static inline void fuzz_reason(const char *what, const char *err)
{
    if (!err[0])
        FUZZ_FAIL("%s refused the input and gave no reason", what);
}

#endif
