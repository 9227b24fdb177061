/* The validation's members of each kind (matrix_check.c says what the
 * validation is): a member present or not, a string, an object, a whole
 * number, a number and a name, each refused with why. */
#define _GNU_SOURCE
#include "matrix_check_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What a value is, as a message names it ("an object", "null"). */
const char *cts_mx_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    default: return "null";
    }
}

/* Member `key` of o (called pre+key in messages): *v, NULL where it may be
 * absent or null and is. */
int cts_mx_member(const json_t *o, const char *pre, const char *key, int flags, const json_t **v, char *why,
                  size_t len)
{
    *v = json_object_get(o, key);
    if (!*v)
        return flags & OPT ? 0 : BAD("%s%s is missing", pre, key);
    if (json_is_null(*v)) {
        *v = NULL;
        return flags & NUL ? 0 : BAD("%s%s is null", pre, key);
    }
    return 0;
}

/* Member key of o (as member) of one kind: a string (*s), an object (*out),
 * a whole number from lo to hi (*out, -1 where absent or null), a number
 * (number_ok) or, below, a name (*idx its index, 0 where absent); 0, or -1
 * and why. */
int cts_mx_v_str(const json_t *o, const char *pre, const char *key, int flags, const char **s, char *why,
                 size_t len)
{
    const json_t *v;
    if (cts_mx_member(o, pre, key, flags, &v, why, len))
        return -1;
    if (v && !json_is_string(v))
        return BAD("%s%s is %s, not a string", pre, key, cts_mx_type_name(v));
    if (s)
        *s = v ? json_string_value(v) : NULL;
    return 0;
}

int cts_mx_v_obj(const json_t *o, const char *pre, const char *key, int flags, const json_t **out, char *why,
                 size_t len)
{
    if (cts_mx_member(o, pre, key, flags, out, why, len))
        return -1;
    if (*out && !json_is_object(*out))
        return BAD("%s%s is %s, not an object", pre, key, cts_mx_type_name(*out));
    return 0;
}

int cts_mx_v_int(const json_t *o, const char *pre, const char *key, int flags, json_int_t lo, json_int_t hi,
                 json_int_t *out, char *why, size_t len)
{
    const json_t *v;
    if (cts_mx_member(o, pre, key, flags, &v, why, len))
        return -1;
    if (v && !json_is_integer(v))
        return BAD("%s%s is %s, not a whole number", pre, key, cts_mx_type_name(v));
    if (v && (json_integer_value(v) < lo || json_integer_value(v) > hi))
        return BAD("%s%s is %lld, not from %lld to %lld", pre, key, (long long)json_integer_value(v),
                   (long long)lo, (long long)hi);
    if (out)
        *out = v ? json_integer_value(v) : -1;
    return 0;
}

/* A number: finite, and not negative where it is a time (`time`). */
int cts_mx_number_ok(const json_t *v, int time, const char *pre, const char *key, char *why, size_t len)
{
    if (!json_is_number(v))
        return BAD("%s%s is %s, not a number", pre, key, cts_mx_type_name(v));
    double x = json_number_value(v);
    if (!isfinite(x))
        return BAD("%s%s is not a finite number", pre, key);
    if (time && x < 0)
        return BAD("%s%s is %g: a time cannot be negative", pre, key, x);
    return 0;
}

int cts_mx_v_num(const json_t *o, const char *pre, const char *key, int flags, int time, char *why, size_t len)
{
    const json_t *v;
    if (cts_mx_member(o, pre, key, flags, &v, why, len))
        return -1;
    return v ? cts_mx_number_ok(v, time, pre, key, why, len) : 0;
}

/* The name of index i of n. */
static const char *nm(struct names n, int i) { return n.list ? n.list[i] : n.name(i); }

/* The index of a name (null is 0 where NUL allows it), or -1 with a reason. */
int cts_mx_name_ok(const json_t *v, struct names n, int flags, const char *pre, const char *key, char *why,
                   size_t len)
{
    if (json_is_null(v) && (flags & NUL))
        return 0;
    const char *s = json_string_value(v);
    for (int i = 1; s && i < n.count; i++)
        if (!strcmp(s, nm(n, i)))
            return i;
    char list[160] = "";
    for (int i = 1; i < n.count; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i > 1 ? (i + 1 < n.count ? ", " : " or ") : "",
                 nm(n, i));
    if (s)
        return BAD("%s%s is \"%.40s\", not %s%s", pre, key, s, list, flags & NUL ? " (or null)" : "");
    return BAD("%s%s is %s, not %s%s", pre, key, cts_mx_type_name(v), list, flags & NUL ? " (or null)" : "");
}

int cts_mx_v_name(const json_t *o, const char *pre, const char *key, int flags, struct names n, int *idx,
                  char *why, size_t len)
{
    const json_t *v = json_object_get(o, key);
    if (!v) {
        if (flags & OPT) {
            if (idx)
                *idx = 0;
            return 0;
        }
        return BAD("%s%s is missing", pre, key);
    }
    int i = cts_mx_name_ok(v, n, flags, pre, key, why, len);
    if (i < 0)
        return -1;
    if (idx)
        *idx = i;
    return 0;
}
