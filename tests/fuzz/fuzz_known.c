/* libFuzzer target: a known-variability file as `sync-cts diff --known` and `check --known`
 * read it (cts_known_load) and, when it is accepted, matched against the cases of the matrix
 * named by CTS_FUZZ_MATRIX (tests/fuzz.sh gives a small one; unset: loading alone): its
 * configuration (cts_known_fits) and each case's outcome moved to W (cts_known_within).
 *
 * Invariants besides the sanitizers': a refusal gives a reason; an id the file does not
 * name is never within it. */
#include "fuzz.h"
#include "known.h"
#include "report.h"

static json_t *matrix;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *path = getenv("CTS_FUZZ_MATRIX");
    char err[512];
    if (path && !(matrix = cts_matrix_load(path, err, sizeof err)))
        FUZZ_FAIL("CTS_FUZZ_MATRIX: %s", err);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    struct cts_known k;
    if (cts_known_load(fuzz_file(data, size), &k, err, sizeof err)) {
        fuzz_reason("cts_known_load", err);
        return 0;
    }
    if (matrix && cts_known_fits(&k, matrix, "known", "matrix", err, sizeof err))
        fuzz_reason("cts_known_fits", err);
    const char *id;
    json_t *c;
    json_object_foreach(json_object_get(matrix, "cases"), id, c) {
        const char *sym = json_string_value(json_object_get(c, "symbol"));
        (void)cts_known_within(&k, id, CTS_PASS, sym, CTS_VARIES, "W/A");
    }
    if (cts_known_within(&k, "", CTS_PASS, "W", CTS_PASS, "A")) /* ids are never empty */
        FUZZ_FAIL("cts_known_within: an id the file cannot name is within it");
    cts_known_free(&k);
    return 0;
}
