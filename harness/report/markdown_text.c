/* Markdown text from the matrix, escaped for where it goes (markdown.c and
 * the other Markdown writers use it): as text, nothing in it can open raw
 * HTML, an entity, a code span, a link or a table cell (a ']' is escaped only
 * before '(': the quotes' "[...]" stay as they are); in a code span, the
 * delimiter is longer than any run of backticks in it; in an attribute, it is
 * entity-escaped; a link is made only of an http(s) URL with nothing in it to
 * escape. */
#define _GNU_SOURCE
#include "markdown_int.h"
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* in_link: the text of a link, where every bracket is escaped; elsewhere
 * only a ']' right before '(' is, which is all a link needs to form (a
 * reference link needs a definition at the start of a line, and no string
 * from the matrix starts a line). */
static void md_text(FILE *f, const char *s, int in_link)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '|': case '`': case '\\':
            fputc('\\', f);
            fputc(*s, f);
            break;
        case '[': case ']':
            if (in_link || (*s == ']' && s[1] == '('))
                fputc('\\', f);
            fputc(*s, f);
            break;
        default: fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
        }
}

void cts_md_text(FILE *f, const char *s) { md_text(f, s, 0); }

void cts_md_code(FILE *f, const char *s, int in_table)
{
    size_t run = 0, longest = 0, n = strlen(s);
    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    int pad = n && (s[0] == '`' || s[n - 1] == '`'); /* a space each side, which CommonMark strips */
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
    if (pad)
        fputc(' ', f);
    for (; *s; s++) {
        if (*s == '|' && in_table)
            fputc('\\', f); /* GFM reads \| as | even inside a code span in a table */
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
    }
    if (pad)
        fputc(' ', f);
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
}

/* An HTML attribute value inside a table cell. */
static void md_attr(FILE *f, const char *s) { cts_html_escape(f, s, 1); }

/* [text](url) where url is an http(s) URL with nothing to escape; else
 * the text and the URL, as text. */
static void md_link(FILE *f, const char *text, const char *url)
{
    int ok = !strncmp(url, "https://", 8) || !strncmp(url, "http://", 7);
    for (const char *p = url; ok && *p; p++)
        ok = (unsigned char)*p > 0x20 && *p != 0x7f && !strchr("<>()|`\\\"'[]", *p);
    if (ok) {
        fputc('[', f);
        md_text(f, text, 1);
        fprintf(f, "](%s)", url);
    } else {
        cts_md_text(f, text);
        if (*url) {
            fputs(" (", f);
            cts_md_text(f, url);
            fputc(')', f);
        }
    }
}

/* fprintf for Markdown: %s a string of ours, written as is; from the
 * matrix, %t text, %T a code span in a table cell, %C one elsewhere, %A an
 * attribute value in a table cell, %L a link (text, URL); %z a size_t, %f
 * a double (%.1f), %d a long long. */
void cts_md(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            fputc(*p, f);
            continue;
        }
        switch (*++p) {
        case 's': fputs(va_arg(ap, const char *), f); break;
        case 't': cts_md_text(f, va_arg(ap, const char *)); break;
        case 'T': cts_md_code(f, va_arg(ap, const char *), 1); break;
        case 'C': cts_md_code(f, va_arg(ap, const char *), 0); break;
        case 'A': md_attr(f, va_arg(ap, const char *)); break;
        case 'L': {
            const char *text = va_arg(ap, const char *);
            md_link(f, text, va_arg(ap, const char *));
            break;
        }
        case 'z': fprintf(f, "%zu", va_arg(ap, size_t)); break;
        case 'f': fprintf(f, "%.1f", va_arg(ap, double)); break;
        case 'd': fprintf(f, "%lld", va_arg(ap, long long)); break;
        default: fputc('%', f); if (*p) fputc(*p, f); else p--;
        }
    }
    va_end(ap);
}
