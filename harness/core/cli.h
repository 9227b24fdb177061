/* What the sub-commands of sync-cts share: exit codes, option parsing,
 * case selection, output paths. */
#ifndef CTS_CLI_H
#define CTS_CLI_H

#include "cts.h"

#include <stddef.h>

/* README "Exit codes". */
enum { EXIT_VERDICTS = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_NO_VERDICT = 3, EXIT_SKIP = 77 };

/* The one-line error: "sync-cts: ..." on stderr; returns code. */
int cts_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same line, "sync-cts: " and the message, control bytes escaped: for a
 * message that ends nothing. */
void cts_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A whole number in [lo, hi]: 0, else -1. */
int cts_parse_int(const char *s, int lo, int hi, int *out);
/* After getopt_long (optstring ":") returned ':' (a missing value) or '?':
 * the one-line error, and EXIT_USAGE. */
int cts_bad_option(int c, char **argv);
/* The cases the optional positional GLOB (one at most), family and group
 * select; a selection of nothing is bad input.  Returns 0, or an exit code
 * (the error printed).  In table.c, with the case table. */
/* --devices N (list, run): 1 or 2, into *devices; else the usage error's exit status. */
int cts_parse_devices(const char *s, int *devices);
int cts_select_cases(int argc, char **argv, const char *family, const char *group, int devices,
                     const char **glob, const struct cts_case ***sel, size_t *n);
int cts_ends_with(const char *s, const char *tail);
/* out without .json or .json.gz, then ext: "m.json.gz" -> "m.md". */
void cts_derive_path(char *buf, size_t len, const char *out, const char *ext);

/* The sub-commands (argv[0] is the command word). */
int cts_cmd_list(int argc, char **argv);
int cts_cmd_env(int argc, char **argv);
int cts_cmd_run(int argc, char **argv);
int cts_cmd_ipc_export(int argc, char **argv); /* peer.c: the worker's exporting process */
int cts_cmd_log(int argc, char **argv);
int cts_cmd_thresholds(int argc, char **argv);

#endif
