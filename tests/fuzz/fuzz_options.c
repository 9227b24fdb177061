/* libFuzzer target: a command line, one argument a line, parsed as the host-side commands
 * parse theirs -- those whose parsing can be called on its own: `sync-cts list` (getopt_long,
 * cts_bad_option, cts_select_cases: options, GLOB, family and group; it prints the cases it
 * selects and does no GPU work), and the helpers every command's parser uses on each
 * argument (cts_parse_int, cts_case_id_check, cts_derive_path).  The other commands parse
 * in static functions, or inline before reading files: docs/running.md "Fuzzing and
 * sanitizers" says what they would need.
 *
 * Invariants besides the sanitizers': a whole number parsed is in its range; a path derived
 * fits its buffer; a case id refused is given a reason. */
#include "fuzz.h"
#include "cli.h"
#include "report.h"

#include <getopt.h>

enum { MAX_ARGS = 64 };

/* The helpers, on one argument. */
static void helpers(const char *arg)
{
    int v = -1;
    if (cts_parse_int(arg, 1, CTS_MAX_REPEAT, &v) == 0 && (v < 1 || v > CTS_MAX_REPEAT))
        FUZZ_FAIL("cts_parse_int('%s', 1, %d) gave %d", arg, CTS_MAX_REPEAT, v);
    if (cts_parse_int(arg, 0, 1 << 30, &v) == 0 && (v < 0 || v > 1 << 30))
        FUZZ_FAIL("cts_parse_int('%s', 0, 2^30) gave %d", arg, v);
    char err[512] = "", path[4200];
    if (cts_case_id_check(arg, err, sizeof err))
        fuzz_reason("cts_case_id_check", err);
    cts_derive_path(path, sizeof path, arg, ".md");
    if (strnlen(path, sizeof path) == sizeof path)
        FUZZ_FAIL("cts_derive_path overran its buffer");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        FUZZ_FAIL("out of memory");
    memcpy(text, data, size);
    text[size] = 0;
    char *argv[MAX_ARGS + 2] = {"list"}, *rest = size ? text : NULL;
    int argc = 1;
    while (rest && argc <= MAX_ARGS) { /* empty arguments kept */
        argv[argc] = strsep(&rest, "\n");
        helpers(argv[argc++]);
    }
    optind = 0; /* getopt_long starts afresh (glibc: its state reset too) */
    int rc = cts_cmd_list(argc, argv);
    if (rc != 0 && rc != EXIT_USAGE)
        FUZZ_FAIL("list exited %d: neither 0 nor bad input (%d)", rc, EXIT_USAGE);
    free(text);
    return 0;
}
