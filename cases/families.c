/* Every family of the suite, in the order their cases are listed and run
 * (harness/core/apis.def). */
#include "../harness/core/cts.h"

const struct cts_family *const cts_families[] = {
#define FAMILY(name) &cts_family_##name,
#include "../harness/core/apis.def"
};
const size_t cts_family_count = sizeof cts_families / sizeof *cts_families;
