/* What the sub-commands of sync-cts share (cli.h). */
#define _GNU_SOURCE
#include "cli.h"
#include "matrix.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "sync-cts: " and the message on one line of standard error: a control
 * byte in it (a newline in a file name or a case id, a raw byte quoted by
 * the JSON parser) is written escaped, \n or \xHH. */
static void one_line(const char *fmt, va_list ap)
{
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    fputs("sync-cts: ", stderr);
    for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
        if (*p == '\n')
            fputs("\\n", stderr);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(stderr, "\\x%02x", *p);
        else
            fputc(*p, stderr);
    fputc('\n', stderr);
}

void cts_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    one_line(fmt, ap);
    va_end(ap);
}

int cts_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    one_line(fmt, ap);
    va_end(ap);
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

/* After getopt_long (optstring ":") returned ':' (a missing value) or '?'. */
int cts_bad_option(int c, char **argv)
{
    if (c == ':')
        return cts_die(EXIT_USAGE, "option '%s' needs a value", argv[optind - 1]);
    return cts_die(EXIT_USAGE, "unknown option '%s' (see sync-cts --help)", argv[optind - 1]);
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
