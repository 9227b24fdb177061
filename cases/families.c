/* Every family of the suite, in the order their cases are listed and run. */
#include "../harness/cts.h"

const struct cts_family *const cts_families[] = {
    &cts_family_memcpy, &cts_family_copy,    &cts_family_memset, &cts_family_alloc,
    &cts_family_stream, &cts_family_managed, &cts_family_trigger, &cts_family_fault,
};
const size_t cts_family_count = sizeof cts_families / sizeof *cts_families;
