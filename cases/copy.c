/* The copy family: its cases are being written (issue 3). */
#include "../harness/cts.h"

static size_t generate(struct cts_case *out, size_t cap)
{
    (void)out;
    (void)cap;
    return 0;
}

static void buffers(const struct cts_case *c, enum cts_mem *src, enum cts_mem *dst)
{
    (void)c;
    *src = *dst = CTS_MEM_NONE;
}

static int issue(const struct cts_case *c, const struct cts_call *call, const char **error)
{
    (void)c;
    (void)call;
    *error = "(no cases yet)";
    return 1;
}

const struct cts_family cts_family_copy = {"copy", generate, buffers, NULL, issue};
