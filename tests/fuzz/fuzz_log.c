/* libFuzzer target: a run's log as `sync-cts log FILE.log` and run's supervisor read it
 * (cts_log_scan).
 *
 * Invariants besides the sanitizers': a refusal gives a reason; an accepted log gives each case
 * a status that is a status name, and a reason for exactly its CRASH cases. */
#include "fuzz.h"
#include "report.h"

static void check_scan(const json_t *scan, const json_t *crashes)
{
    const char *id;
    json_t *st;
    json_object_foreach((json_t *)scan, id, st)
    {
        int s = cts_status_parse(json_string_value(st));
        if (s < 0)
            FUZZ_FAIL("case '%s' has the status '%s', which is no status", id, json_string_value(st));
        if ((s == CTS_CRASH) != (json_string_value(json_object_get(crashes, id)) != NULL))
            FUZZ_FAIL("case '%s' is %s with%s a crash reason", id, cts_status_name(s), s == CTS_CRASH ? "out" : "");
    }
    if (json_object_size(crashes) > json_object_size(scan))
        FUZZ_FAIL("more crash reasons than cases");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    json_t *crashes = NULL, *scan = cts_log_scan(fuzz_file(data, size), &crashes, err, sizeof err);
    if (scan)
        check_scan(scan, crashes);
    else
        fuzz_reason("cts_log_scan", err);
    json_decref(scan);
    json_decref(crashes);
    return 0;
}
