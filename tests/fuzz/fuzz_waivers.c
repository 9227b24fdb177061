/* libFuzzer target: a waivers file as `sync-cts check --waivers FILE` and `run --waivers` read
 * it (cts_waivers_load) and, when it is accepted, applied by check to the matrix named by
 * CTS_FUZZ_MATRIX (tests/fuzz.sh gives a small one with deviations; unset: loading alone).
 *
 * Invariant besides the sanitizers': a refusal gives a reason. */
#include "fuzz.h"
#include "report.h"

static json_t *matrix;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *path = getenv("CTS_FUZZ_MATRIX");
    char err[512];
    if (path && !(matrix = cts_matrix_load(path, err, sizeof err)))
        FUZZ_FAIL("CTS_FUZZ_MATRIX: %s", err);
    if (matrix && !json_is_object(json_object_get(matrix, "spec")))
        FUZZ_FAIL("CTS_FUZZ_MATRIX: '%s' is not judged (check needs its clause table)", path);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    json_t *w = cts_waivers_load(fuzz_file(data, size), err, sizeof err);
    if (!w) {
        fuzz_reason("cts_waivers_load", err);
        return 0;
    }
    if (matrix && cts_check(matrix, w, NULL, NULL, fuzz_devnull(), err, sizeof err) < 0)
        fuzz_reason("cts_check", err);
    json_decref(w);
    return 0;
}
