/* Assertions for the host-only tests: each prints both operands when it
 * fails and the test exits non-zero if any did. */
#ifndef CTS_CHECK_H
#define CTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);  \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

#define CHECK_INT(a, b)                                                               \
    do {                                                                              \
        long long a_ = (long long)(a), b_ = (long long)(b);                           \
        if (a_ != b_) {                                                               \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,       \
                    __LINE__, #a, #b, a_, b_);                                        \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

#define CHECK_STR(a, b)                                                               \
    do {                                                                              \
        const char *a_ = (a), *b_ = (b);                                              \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__,   \
                    __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");        \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                   \
    do {                                                                              \
        const char *h_ = (hay), *n_ = (needle);                                       \
        if (!h_ || !strstr(h_, n_)) {                                                 \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,      \
                    __LINE__, h_ ? h_ : "(null)", n_);                                \
            check_failures++;                                                         \
        }                                                                             \
    } while (0)

#define CHECK_DONE()                                                                  \
    do {                                                                              \
        if (check_failures)                                                           \
            fprintf(stderr, "%d check(s) failed\n", check_failures);                  \
        return check_failures ? 1 : 0;                                                \
    } while (0)

#endif
