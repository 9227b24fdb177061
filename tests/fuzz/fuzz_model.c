/* libFuzzer target: a race detector's model file as `sync-cts model MODEL MATRIX` reads it,
 * the whole command run (cts_model_main: the model checked, then held against the matrix
 * named by CTS_FUZZ_MATRIX -- tests/fuzz.sh gives a small one -- and the report written to
 * /dev/null as JSON).  Without CTS_FUZZ_MATRIX the command refuses for want of a matrix.
 *
 * Invariant besides the sanitizers': the command exits 0, 1 or 2. */
#include "fuzz.h"
#include "known.h" /* cts_model_main */

#include <getopt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *matrix = getenv("CTS_FUZZ_MATRIX");
    char *argv[] = {"model", (char *)fuzz_file(data, size), (char *)(matrix ? matrix : ""),
                    "--format", "json", "--out", "/dev/null", NULL};
    optind = 0; /* getopt_long from the start, its state reset */
    int rc = cts_model_main(7, argv);
    if (rc < 0 || rc > 2)
        FUZZ_FAIL("cts_model_main exited %d", rc);
    return 0;
}
