/* What the sub-commands of sync-cts share (cli.h). */
#define _GNU_SOURCE
#include "cli.h"
#include "report.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cts_die(int code, const char *fmt, ...)
{
    va_list ap;
    fputs("sync-cts: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

int cts_parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* One positional GLOB at most.  Returns 0, or an exit code. */
static int take_glob(int argc, char **argv, const char **glob)
{
    *glob = NULL;
    if (optind < argc)
        *glob = argv[optind++];
    if (optind < argc)
        return cts_die(EXIT_USAGE, "unexpected argument '%s' (one GLOB at most)", argv[optind]);
    return 0;
}

/* After getopt_long (optstring ":") returned ':' (a missing value) or '?'. */
int cts_bad_option(int c, char **argv)
{
    if (c == ':')
        return cts_die(EXIT_USAGE, "option '%s' needs a value", argv[optind - 1]);
    return cts_die(EXIT_USAGE, "unknown option '%s' (see sync-cts --help)", argv[optind - 1]);
}

/* The cases the optional GLOB selects; a GLOB that selects nothing is bad input. */
int cts_select_cases(int argc, char **argv, const char *family, const char *group,
                        const char **glob, const struct cts_case ***sel, size_t *n)
{
    int rc = take_glob(argc, argv, glob);
    if (rc)
        return rc;
    if (family) {
        size_t f = 0;
        while (f < cts_family_count && strcmp(cts_families[f]->name, family))
            f++;
        if (f == cts_family_count) {
            char names[256] = "";
            for (f = 0; f < cts_family_count; f++) /* a test-only family is named where enabled */
                if (cts_families[f]->generate(NULL, 0))
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                             names[0] ? ", " : "", cts_families[f]->name);
            return cts_die(EXIT_USAGE, "no family '%s' (families: %s)", family, names);
        }
    }
    *n = cts_select(*glob, family, group, sel);
    if (*n == 0) {
        free(*sel);
        if (group)
            return cts_die(EXIT_USAGE, "no case of group '%s'%s%s matches '%s' (groups: sync-cts list --groups)",
                       group, family ? " in family " : "", family ? family : "", *glob ? *glob : "*");
        if (family)
            return cts_die(EXIT_USAGE, "no case of family '%s' matches '%s'", family, *glob ? *glob : "*");
        return cts_die(EXIT_USAGE, "no case matches '%s'", *glob);
    }
    return 0;
}


int cts_ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n > k && strcmp(s + n - k, tail) == 0;
}

void cts_derive_path(char *buf, size_t len, const char *out, const char *ext)
{
    size_t n = strlen(out);
    if (cts_ends_with(out, ".json.gz"))
        n -= 8;
    else if (cts_ends_with(out, ".json"))
        n -= 5;
    snprintf(buf, len, "%.*s%s", (int)n, out, ext);
}

/* Can `path` be written?  Leaves no file behind. */
